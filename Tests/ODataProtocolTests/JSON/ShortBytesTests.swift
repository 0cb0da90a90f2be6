import Testing
@testable import ODataProtocol

/// `ShortBytes.equal` (member names against the names a model or a cache expects) must say
/// what a byte loop says for every length, wherever the one differing byte is, and read
/// nothing outside the two spans (each span below sits at the very end of its own
/// allocation, so a load past it would be caught by the address sanitizer).
@Suite struct ShortBytesTests {
    /// `n` bytes at the end of a fresh allocation, copied from `bytes`.
    func atEnd(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8> {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        p.initialize(from: bytes, count: bytes.count)
        return p
    }

    @Test func everyLengthAndEveryDifferingByte() {
        for n in 0...40 {
            let name = (0..<n).map { UInt8(truncatingIfNeeded: 0x41 + ($0 * 7) % 50) }
            let a = atEnd(name)
            let b = atEnd(name)
            defer { a.deallocate(); b.deallocate() }
            #expect(ShortBytes.equal(a, b, count: n), "length \(n)")
            for k in 0..<n {
                for flip: UInt8 in [0x01, 0x20, 0x80] {
                    b[k] ^= flip
                    #expect(!ShortBytes.equal(a, b, count: n), "length \(n), byte \(k)")
                    #expect(!ShortBytes.equal(b, a, count: n), "length \(n), byte \(k)")
                    b[k] ^= flip
                }
            }
            #expect(ShortBytes.equal(a, b, count: n))
        }
    }

    @Test func realMemberNames() {
        let names = ["ID", "Name", "UUID", "Price", "Stock", "Rating", "CategoryID", "Description", "LastModified",
                     "ReleaseDate", "Discontinued", "@odata.etag", "Größe", "名前", "a\u{0}b"]
        for x in names {
            for y in names {
                let ax = Array(x.utf8), ay = Array(y.utf8)
                guard ax.count == ay.count else { continue }
                let a = atEnd(ax), b = atEnd(ay)
                defer { a.deallocate(); b.deallocate() }
                #expect(ShortBytes.equal(a, b, count: ax.count) == (x == y), "\(x) \(y)")
            }
        }
    }
}
