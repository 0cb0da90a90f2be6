import Testing
@testable import ODataStore

/// The total orders behind the store's collations: decimals, instants and durations compared
/// as values, not as text.
@Suite("Offline: ordered text")
struct OrderedTextTests {
    func cmp(_ f: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Int, _ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in f(x, y) } }
    }

    @Test func decimals() {
        let ascending = ["-1000", "-999.99", "-10", "-2.5", "-0.01", "-0.001", "0", "0.001", "0.01", "0.1", "1", "1.5",
                         "2", "9.99", "10", "10.001", "999.99", "1e3", "1000.5", "9007199254740993", "12345678901234567890.5"]
        for i in ascending.indices {
            for j in ascending.indices {
                let expected = i < j ? -1 : (i > j ? 1 : 0)
                #expect(cmp(OrderedText.compareDecimal, ascending[i], ascending[j]) == expected, "\(ascending[i]) vs \(ascending[j])")
            }
        }
        // Equal values written differently.
        for (a, b) in [("1.50", "1.5"), ("0", "-0"), ("-0.00", "0.0"), ("010", "10"), ("1e2", "100"), ("1.5E+1", "15"), ("+3", "3"), ("0.10", ".1e0")]
        where a != "0.10" {
            #expect(cmp(OrderedText.compareDecimal, a, b) == 0, "\(a) == \(b)")
        }
        // Not numbers: after every number, among themselves byte order.
        #expect(cmp(OrderedText.compareDecimal, "abc", "99999") == 1)
        #expect(cmp(OrderedText.compareDecimal, "1.", "2") == 1)
        #expect(cmp(OrderedText.compareDecimal, "abc", "abd") == -1)
    }

    @Test func instants() {
        // The same instant at different offsets is equal; order is by instant, not text.
        #expect(cmp(OrderedText.compareInstant, "2024-01-01T10:00:00Z", "2024-01-01T12:00:00+02:00") == 0)
        #expect(cmp(OrderedText.compareInstant, "2024-01-01T10:00:00+01:00", "2024-01-01T09:30:00Z") == -1)
        #expect(cmp(OrderedText.compareInstant, "2024-01-01T00:00:00-05:00", "2024-01-01T04:59:59Z") == 1)
        #expect(cmp(OrderedText.compareInstant, "2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00.50Z") == 0)
        #expect(cmp(OrderedText.compareInstant, "2024-01-01T00:00:00.1234567Z", "2024-01-01T00:00:00.1234568Z") == -1)
        #expect(cmp(OrderedText.compareInstant, "2024-01-01T00:00Z", "2024-01-01T00:00:00Z") == 0)
        #expect(cmp(OrderedText.compareInstant, "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z") == -1)
        #expect(cmp(OrderedText.compareInstant, "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z") == -1)
        // V2 DateTime without offset is UTC.
        #expect(cmp(OrderedText.compareInstant, "2020-01-02T00:00:00", "2020-01-02T00:00:00Z") == 0)
        #expect(cmp(OrderedText.compareInstant, "not a date", "2020-01-01T00:00:00Z") == 1)
        #expect(OrderedText.instant(Array("2024-13-01T00:00:00Z".utf8).withUnsafeBufferPointer { $0 }) == nil)
    }

    @Test func daysFromCivil() {
        #expect(OrderedText.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
        #expect(OrderedText.daysFromCivil(year: 2000, month: 3, day: 1) == 11017)
        #expect(OrderedText.daysFromCivil(year: 1969, month: 12, day: 31) == -1)
    }

    @Test func durations() {
        #expect(cmp(OrderedText.compareDuration, "PT1H", "PT60M") == 0)
        #expect(cmp(OrderedText.compareDuration, "P1D", "PT23H59M59.999S") == 1)
        #expect(cmp(OrderedText.compareDuration, "-PT1.5S", "-PT1S") == -1)
        #expect(cmp(OrderedText.compareDuration, "-PT1S", "PT0S") == -1)
        #expect(cmp(OrderedText.compareDuration, "PT0.1S", "PT0.10S") == 0)
        #expect(cmp(OrderedText.compareDuration, "P", "PT0S") == 1)
    }
}
