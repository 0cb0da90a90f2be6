/// Byte-level, ASCII case-insensitive matching for protocol tokens (media types, header
/// values). `String.contains(_:)` with a `String` argument goes through the stdlib's generic
/// substring searcher (about 25,000 instructions for a 60-byte Content-Type); these loops
/// over the UTF-8 bytes cost a few hundred.
enum ASCIIMatch {
    @inline(__always)
    private static func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c | 0x20 : c }

    /// True when `text` starts with `prefix` (which must be lowercase ASCII), ignoring case.
    static func hasPrefix(_ text: String, lowercased prefix: StaticString) -> Bool {
        var it = text.utf8.makeIterator()
        let p = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        for c in p {
            guard let t = it.next(), lower(t) == c else { return false }
        }
        return true
    }

    /// True when `text` contains `needle` (which must be lowercase ASCII), ignoring case.
    static func contains(_ text: String, lowercased needle: StaticString) -> Bool {
        let n = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = n.first else { return true }
        var text = text
        return text.withUTF8 { t in
            guard t.count >= n.count else { return false }
            var i = 0
            while i + n.count <= t.count {
                if lower(t[i]) == first {
                    var j = 1
                    while j < n.count, lower(t[i + j]) == n[j] { j += 1 }
                    if j == n.count { return true }
                }
                i += 1
            }
            return false
        }
    }
}
