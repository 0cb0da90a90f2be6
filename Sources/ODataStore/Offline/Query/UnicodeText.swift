/// OData's string functions on UTF-8 text, by Unicode code point: `length`, `indexof` and
/// `substring` count characters as code points (as Python, odatapy's language, does; V4.01
/// Part 2, 5.1.1.5 says "characters"), matching is case-sensitive and byte-exact (for valid
/// UTF-8 a byte match of a whole needle is a code point match), and case mapping and
/// trimming follow Unicode's rules rather than SQLite's ASCII-only `lower`/`upper`.
///
/// Text that is not valid UTF-8 never traps: a code point starts at every byte that is not a
/// continuation byte (and at the first byte), so stray bytes count as characters of their own
/// or with the character before them, the same way in every function.
enum UnicodeText {
    @inline(__always)
    static func isBoundary(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        i == 0 || i == b.count || (b[i] & 0xC0) != 0x80
    }

    /// Number of code points.
    static func length(_ b: UnsafeBufferPointer<UInt8>) -> Int {
        guard !b.isEmpty else { return 0 }
        var n = 1
        for i in 1..<b.count where (b[i] & 0xC0) != 0x80 { n += 1 }
        return n
    }

    /// Byte offset of code point `n` (clamped to the end).
    static func byteOffset(_ b: UnsafeBufferPointer<UInt8>, character n: Int) -> Int {
        if n <= 0 { return 0 }
        var seen = 0
        var i = 1
        while i < b.count {
            if (b[i] & 0xC0) != 0x80 {
                seen += 1
                if seen == n { return i }
            }
            i += 1
        }
        return b.count
    }

    static func matches(_ h: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard i >= 0, i + n.count <= h.count else { return false }
        for k in 0..<n.count where h[i + k] != n[k] { return false }
        return true
    }

    static func hasPrefix(_ h: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
        matches(h, n, at: 0)
    }

    static func hasSuffix(_ h: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
        guard n.count <= h.count else { return false }
        let start = h.count - n.count
        return isBoundary(h, start) && matches(h, n, at: start)
    }

    /// Byte offset of the first occurrence of `n` in `h` that starts on a code point
    /// boundary, or nil.
    static func firstByteOffset(_ h: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Int? {
        if n.isEmpty { return 0 }
        guard n.count <= h.count else { return nil }
        let first = n[0]
        var i = 0
        while i + n.count <= h.count {
            if h[i] == first, isBoundary(h, i), matches(h, n, at: i) { return i }
            i += 1
        }
        return nil
    }

    static func contains(_ h: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Bool {
        firstByteOffset(h, n) != nil
    }

    /// Zero-based code point index of the first occurrence, or -1 (`indexof`).
    static func indexOf(_ h: UnsafeBufferPointer<UInt8>, _ n: UnsafeBufferPointer<UInt8>) -> Int {
        guard let offset = firstByteOffset(h, n) else { return -1 }
        return offset == 0 ? 0 : length(UnsafeBufferPointer(rebasing: h[0..<offset]))
    }

    enum SubstringFailure: Error { case negativeLength }

    /// The byte range of `substring(s, start[, length])` (V4.01 Part 2, 5.1.1.5.7): a start
    /// beyond the end gives the empty string, a negative start counts from the end, a
    /// negative length is an error ("a bad request").
    static func substring(_ b: UnsafeBufferPointer<UInt8>, start: Int64, length len: Int64?) throws(SubstringFailure) -> Range<Int> {
        let r = try slice(count: length(b), start: start, length: len)
        return byteOffset(b, character: r.lowerBound)..<byteOffset(b, character: r.upperBound)
    }

    /// The positions `substring(x, start[, length])` takes of `count` characters or items
    /// (5.1.1.5.7, the same rules for strings and collections).
    static func slice(count: Int, start: Int64, length len: Int64?) throws(SubstringFailure) -> Range<Int> {
        if let len, len < 0 { throw .negativeLength }
        let n = Int64(count)
        var first = start
        if first < 0 { first = max(0, n + first) }
        if first >= n { return count..<count }
        guard let len else { return Int(first)..<count }
        let end = first.addingReportingOverflow(len)
        if end.overflow || end.partialValue >= n { return Int(first)..<count }
        return Int(first)..<Int(end.partialValue)
    }

    // MARK: - Case and whitespace

    /// Full Unicode lowercase mapping (SpecialCasing included: `İ` → `i̇`), with the one
    /// context-sensitive rule of the default mapping, Final_Sigma: `Σ` at the end of a word
    /// becomes `ς` (Unicode 15, 3.13; Python's `str.lower` applies it too, Swift's
    /// `lowercased()` does not).
    static func lowercased(_ s: String) -> String {
        let scalars = Array(s.unicodeScalars)
        var out = String.UnicodeScalarView()
        for (i, c) in scalars.enumerated() {
            if c.value == 0x03A3, isFinalSigma(scalars, i) {
                out.append(Unicode.Scalar(0x03C2)!)
            } else {
                out.append(contentsOf: c.properties.lowercaseMapping.unicodeScalars)
            }
        }
        return String(out)
    }

    static func isFinalSigma(_ s: [Unicode.Scalar], _ i: Int) -> Bool {
        // Before: a cased letter, then zero or more case-ignorable characters.
        var j = i - 1
        while j >= 0, s[j].properties.isCaseIgnorable { j -= 1 }
        guard j >= 0, s[j].properties.isCased else { return false }
        // After: not (zero or more case-ignorable characters, then a cased letter).
        var k = i + 1
        while k < s.count, s[k].properties.isCaseIgnorable { k += 1 }
        return !(k < s.count && s[k].properties.isCased)
    }

    /// Full Unicode uppercase mapping (`ß` → `SS`).
    static func uppercased(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for c in s.unicodeScalars { out.append(contentsOf: c.properties.uppercaseMapping.unicodeScalars) }
        return String(out)
    }

    /// Leading and trailing characters with the Unicode White_Space property removed.
    static func trimmed(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
