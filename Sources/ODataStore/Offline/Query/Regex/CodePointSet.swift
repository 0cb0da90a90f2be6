/// A set of Unicode code points as sorted, disjoint, non-adjacent closed ranges: what a
/// character class (`[a-z\d]`), `.` or a class escape (`\d`, `\W`, ...) of an ECMAScript
/// pattern matches, one code point at a time (the `u` flag's view of the text).
///
/// The predefined sets are ECMAScript's own (ECMA-262, 22.2.2.9 CharacterClassEscape,
/// 12.2 WhiteSpace, 12.3 LineTerminator), not Unicode's or Python's: `\d` and `\w` are
/// ASCII, `\s` is WhiteSpace plus LineTerminator, `.` is everything but the four line
/// terminators.
///
/// Threading: a value type with only immutable storage once built; Sendable.
struct CodePointSet: Equatable, Sendable {
    /// Largest code point.
    static let maxCodePoint: UInt32 = 0x10FFFF

    /// Sorted, disjoint and non-adjacent (`upper + 1 < next.lower`).
    private(set) var ranges: [ClosedRange<UInt32>]
    /// Bit i of `ascii[i >> 6]`: code point i (< 128) is in the set.
    private var ascii: (UInt64, UInt64) = (0, 0)

    init() { ranges = [] }

    init(_ ranges: [ClosedRange<UInt32>]) {
        self.ranges = []
        for r in ranges { insert(r) }
    }

    static let empty = CodePointSet()
    static let all = CodePointSet([0...maxCodePoint])
    /// `\d`: ASCII digits.
    static let digits = CodePointSet([0x30...0x39])
    /// `\w`: ASCII letters, digits and `_` (without the `i` and `u` flags together, which
    /// would add U+017F and U+212A; no flags are given to an OData pattern).
    static let word = CodePointSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// `\s`: WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP and category Zs) and LineTerminator
    /// (LF, CR, LS, PS).
    static let space = CodePointSet([0x09...0x0D, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
                                     0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF])
    /// LineTerminator: LF, CR, LS, PS.
    static let lineTerminators = CodePointSet([0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029])
    /// `.` without the `s` flag: every code point but a line terminator.
    static let dot = lineTerminators.inverted

    /// Adds a range, keeping the ranges sorted and merged.
    mutating func insert(_ r: ClosedRange<UInt32>) {
        var lower = r.lowerBound, upper = min(r.upperBound, Self.maxCodePoint)
        guard lower <= upper else { return }
        // First range that ends at or after lower - 1 (may merge).
        var i = 0
        while i < ranges.count, ranges[i].upperBound &+ 1 < lower { i += 1 }
        var j = i
        while j < ranges.count, ranges[j].lowerBound <= upper &+ 1 {
            lower = min(lower, ranges[j].lowerBound)
            upper = max(upper, ranges[j].upperBound)
            j += 1
        }
        ranges.replaceSubrange(i..<j, with: [lower...upper])
        if lower < 128 {
            for c in lower...min(upper, 127) {
                if c < 64 { ascii.0 |= 1 << UInt64(c) } else { ascii.1 |= 1 << UInt64(c - 64) }
            }
        }
    }

    mutating func insert(_ c: UInt32) { insert(c...c) }

    mutating func formUnion(_ other: CodePointSet) {
        for r in other.ranges { insert(r) }
    }

    /// Every code point (0...0x10FFFF) not in the set.
    var inverted: CodePointSet {
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in ranges {
            if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
            next = r.upperBound &+ 1
        }
        if next <= Self.maxCodePoint { out.append(next...Self.maxCodePoint) }
        return CodePointSet(out)
    }

    var isEmpty: Bool { ranges.isEmpty }

    func contains(_ c: UInt32) -> Bool {
        if c < 64 { return ascii.0 & (1 << UInt64(c)) != 0 }
        if c < 128 { return ascii.1 & (1 << UInt64(c - 64)) != 0 }
        var lo = 0, hi = ranges.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ranges[mid].upperBound < c { lo = mid + 1 } else { hi = mid }
        }
        return lo < ranges.count && ranges[lo].contains(c)
    }

    static func == (a: CodePointSet, b: CodePointSet) -> Bool { a.ranges == b.ranges }
}
