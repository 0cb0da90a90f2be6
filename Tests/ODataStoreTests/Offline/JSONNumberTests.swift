import Testing
@testable import ODataStore

/// `JSONNumber.int64`, which reads every integer column of a download from the page's bytes:
/// the short path (18 digits or fewer, unchecked arithmetic) and the checked one (19 digits
/// and more) must agree with `Int64(_: String)` on every integer text a page can hold, and
/// refuse what is not one.
@Suite("Offline: integer values read from page bytes")
struct JSONNumberTests {
    func read(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { JSONNumber.int64($0) }
    }

    @Test("integers of every length, both signs, at and past Int64's limits")
    func integers() {
        let cases: [(String, Int64?)] = [
            ("0", 0), ("-0", 0), ("7", 7), ("-7", -7), ("2147483647", 2_147_483_647), ("-2147483648", -2_147_483_648),
            ("4294967297", 4_294_967_297),
            ("9007199254740993", 9_007_199_254_740_993), ("-9007199254740993", -9_007_199_254_740_993),  // above 2^53
            ("999999999999999999", 999_999_999_999_999_999), ("-999999999999999999", -999_999_999_999_999_999),  // 18 digits
            ("1000000000000000000", 1_000_000_000_000_000_000), ("-1000000000000000000", -1_000_000_000_000_000_000),  // 19
            ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
            ("9223372036854775808", nil), ("-9223372036854775809", nil), ("99999999999999999999", nil),
            ("00042", 42), ("0000000000000000000000042", 42),  // leading zeros (a string value): the number
        ]
        for (text, expected) in cases {
            #expect(read(text) == expected, "\(text)")
            if let expected, !text.hasPrefix("0") || text == "0" { #expect(Int64(text) == expected, "\(text)") }
        }
    }

    @Test("what is not an integer is refused")
    func notIntegers() {
        for text in ["", "-", "--1", "+1", "1.5", "-0.01", "1e3", "12a", "a12", " 1", "1 ", "1-", "0x10",
                     "١٢", "12345678901234567a", "-12345678901234567890a"] {
            #expect(read(text) == nil, "\(text)")
        }
    }
}
