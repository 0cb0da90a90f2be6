/// A parser of ECMAScript pattern syntax (ECMA-262 2018 and later, 22.2.1 Patterns) with
/// the `u` flag's grammar, over code points, into a `RegexNode` tree:
///
/// - alternation `|`, groups `(...)`, `(?:...)`, named groups `(?<name>...)`, lookahead
///   `(?=...)` `(?!...)`, lookbehind `(?<=...)` `(?<!...)`;
/// - quantifiers `*` `+` `?` `{n}` `{n,}` `{n,m}`, lazy with a `?` after them; assertions are
///   not quantifiable (`(?=a)*` and `^*` are errors, as with the `u` flag);
/// - `^` `$` `\b` `\B`, `.`, classes `[...]` `[^...]` with ranges, `\d \D \w \W \s \S`;
/// - escapes `\t \n \r \v \f`, `\0` (not before a digit), `\xHH`, `\uHHHH` (a surrogate
///   pair of two such escapes is one code point), `\u{H...}`, `\cX`, `\b` (backspace) and
///   `\-` in a class, backreferences `\1` ... (to a group that exists) and `\k<name>`.
///
/// One leniency beyond the `u` grammar: an escaped character that is not an ASCII letter or
/// digit stands for itself (`\-`, `\@`, `\ ` outside a class), as ECMAScript without the `u`
/// flag and Python read it; an escaped ASCII letter or digit without a meaning is an error,
/// as in both. Unicode property escapes `\p{...}` `\P{...}` are refused as unsupported.
///
/// Pure and bounded: the pattern's length and group nesting are checked against
/// `RegexLimits` (the recursion of the parser follows the nesting), every error is a
/// `RegexError` with the code point position, nothing traps.
struct ECMAPatternParser {
    /// What a parse produces.
    struct Pattern: Sendable {
        let root: RegexNode
        /// Number of capture groups.
        let groupCount: Int
        /// Group names and their numbers.
        let names: [String: Int]
    }

    private let source: [UInt32]
    private let limits: RegexLimits
    private var i = 0
    private var depth = 0
    private var groupCount = 0
    private var names: [String: Int] = [:]
    /// `\N` references, checked against the group count at the end.
    private var numbered: [(group: Int, position: Int)] = []
    /// `\k<name>` references, resolved at the end (a name may be defined after its use).
    private var named: [(name: String, position: Int)] = []

    static func parse(_ pattern: [UInt32], limits: RegexLimits = .standard) throws(RegexError) -> Pattern {
        guard pattern.count <= limits.patternLength else {
            throw .patternTooLong(length: pattern.count, limit: limits.patternLength)
        }
        var p = ECMAPatternParser(source: pattern, limits: limits)
        var root = try p.disjunction()
        if p.i < p.source.count {
            // disjunction() stops only at the end or at a ')' without its '('.
            throw .syntax("unmatched ')'", position: p.i)
        }
        for r in p.numbered where r.group > p.groupCount {
            throw .syntax("reference to group \(r.group), which does not exist", position: r.position)
        }
        if !p.named.isEmpty {
            var resolved: [Int] = []
            for r in p.named {
                guard let n = p.names[r.name] else {
                    throw .syntax("reference to the group name '\(r.name)', which does not exist", position: r.position)
                }
                resolved.append(n)
            }
            root = Self.resolveNamed(root, resolved)
        }
        return Pattern(root: root, groupCount: p.groupCount, names: p.names)
    }

    private init(source: [UInt32], limits: RegexLimits) {
        self.source = source
        self.limits = limits
    }

    // MARK: - Characters

    private static func ascii(_ s: Unicode.Scalar) -> UInt32 { s.value }

    private var peek: UInt32? { i < source.count ? source[i] : nil }

    private func peek(_ offset: Int) -> UInt32? {
        let k = i + offset
        return k >= 0 && k < source.count ? source[k] : nil
    }

    private mutating func eat(_ c: Unicode.Scalar) -> Bool {
        guard peek == c.value else { return false }
        i += 1
        return true
    }

    private static func isDigit(_ c: UInt32?) -> Bool { c.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }

    private static func isASCIILetter(_ c: UInt32) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }

    private static func hexValue(_ c: UInt32?) -> UInt32? {
        guard let c else { return nil }
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    private static func text(_ c: UInt32) -> String {
        guard let s = Unicode.Scalar(c) else { return "U+" + String(c, radix: 16, uppercase: true) }
        return String(Character(s))
    }

    // MARK: - Disjunction, alternative, term

    private mutating func disjunction() throws(RegexError) -> RegexNode {
        var alternatives = [try alternative()]
        while eat("|") { alternatives.append(try alternative()) }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    private mutating func alternative() throws(RegexError) -> RegexNode {
        var terms: [RegexNode] = []
        while let c = peek, c != Self.ascii("|"), c != Self.ascii(")") {
            terms.append(try term())
        }
        switch terms.count {
        case 0: return .empty
        case 1: return terms[0]
        default: return .sequence(terms)
        }
    }

    private mutating func term() throws(RegexError) -> RegexNode {
        let groupsBefore = groupCount
        let (atom, quantifiable) = try atomOrAssertion()
        let quantifierStart = i
        guard let (min, max) = try quantifierPrefix() else { return atom }
        guard quantifiable else { throw .syntax("nothing to repeat (an assertion cannot be quantified)", position: quantifierStart) }
        let greedy = !eat("?")
        let groups: ClosedRange<Int>? = groupCount > groupsBefore ? (groupsBefore + 1)...groupCount : nil
        return .quantified(atom, min: min, max: max, greedy: greedy, groups: groups)
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (without the lazy mark), or nil.
    private mutating func quantifierPrefix() throws(RegexError) -> (Int, Int?)? {
        guard let c = peek else { return nil }
        switch c {
        case Self.ascii("*"): i += 1; return (0, nil)
        case Self.ascii("+"): i += 1; return (1, nil)
        case Self.ascii("?"): i += 1; return (0, 1)
        case Self.ascii("{"):
            let open = i
            guard let braces = bracedQuantifier() else {
                throw .syntax("incomplete quantifier '{' (a literal '{' is written '\\{')", position: open)
            }
            if let max = braces.1, max < braces.0 {
                throw .syntax("numbers out of order in {} quantifier", position: open)
            }
            return braces
        default:
            return nil
        }
    }

    /// `{n}`, `{n,}` or `{n,m}` at `i`; nil (and `i` unchanged) when the text is not one.
    private mutating func bracedQuantifier() -> (Int, Int?)? {
        let saved = i
        i += 1
        guard let min = decimal() else { i = saved; return nil }
        var max: Int? = min
        if eat(",") {
            max = Self.isDigit(peek) ? decimal() : nil
        }
        guard eat("}") else { i = saved; return nil }
        return (min, max)
    }

    /// DecimalDigits, saturated at Int32.max (a count that large is never reached: the
    /// step budget stops the evaluation first).
    private mutating func decimal() -> Int? {
        guard Self.isDigit(peek) else { return nil }
        var v = 0
        while let c = peek, Self.isDigit(c) {
            v = Swift.min(Int(Int32.max), v * 10 + Int(c - 0x30))
            i += 1
        }
        return v
    }

    // MARK: - Atoms

    /// An atom and whether it may take a quantifier (assertions and lookarounds may not).
    private mutating func atomOrAssertion() throws(RegexError) -> (RegexNode, Bool) {
        let start = i
        guard let c = peek else { throw .syntax("unexpected end of pattern", position: i) }
        switch c {
        case Self.ascii("^"): i += 1; return (.assertion(.start), false)
        case Self.ascii("$"): i += 1; return (.assertion(.end), false)
        case Self.ascii("."): i += 1; return (.set(.dot), true)
        case Self.ascii("("): return try group()
        case Self.ascii("["): return (try characterClass(), true)
        case Self.ascii("\\"):
            i += 1
            if eat("b") { return (.assertion(.wordBoundary), false) }
            if eat("B") { return (.assertion(.notWordBoundary), false) }
            return (try atomEscape(at: start), true)
        case Self.ascii("*"), Self.ascii("+"), Self.ascii("?"):
            throw .syntax("nothing to repeat", position: i)
        case Self.ascii("{"):
            if bracedQuantifier() != nil { throw .syntax("nothing to repeat", position: start) }
            throw .syntax("lone '{' (a literal '{' is written '\\{')", position: i)
        case Self.ascii("}"):
            throw .syntax("lone '}' (a literal '}' is written '\\}')", position: i)
        case Self.ascii("]"):
            throw .syntax("lone ']' (a literal ']' is written '\\]')", position: i)
        default:
            i += 1
            return (.character(c), true)
        }
    }

    private mutating func group() throws(RegexError) -> (RegexNode, Bool) {
        let open = i
        depth += 1
        defer { depth -= 1 }
        guard depth <= limits.nesting else { throw .nestingTooDeep(position: open, limit: limits.nesting) }
        i += 1
        var kind: (capture: Int?, look: (behind: Bool, negative: Bool)?) = (nil, nil)
        if eat("?") {
            if eat(":") {
            } else if eat("=") {
                kind.look = (false, false)
            } else if eat("!") {
                kind.look = (false, true)
            } else if peek == Self.ascii("<") && peek(1) == Self.ascii("=") {
                i += 2
                kind.look = (true, false)
            } else if peek == Self.ascii("<") && peek(1) == Self.ascii("!") {
                i += 2
                kind.look = (true, true)
            } else if peek == Self.ascii("<") {
                let at = i
                i += 1
                let name = try groupName(terminator: ">")
                guard names[name] == nil else { throw .syntax("duplicate group name '\(name)'", position: at) }
                groupCount += 1
                names[name] = groupCount
                kind.capture = groupCount
            } else {
                throw .syntax("invalid group: '(?' must be followed by ':', '=', '!', '<=', '<!' or '<name>'", position: open)
            }
        } else {
            groupCount += 1
            kind.capture = groupCount
        }
        let body = try disjunction()
        guard eat(")") else { throw .syntax("missing ')', unterminated group", position: open) }
        if let n = kind.capture { return (.capture(n, body), true) }
        if let look = kind.look { return (.look(behind: look.behind, negative: look.negative, body), false) }
        return (body, true)
    }

    /// A group name up to `terminator` (consumed): IdentifierStart (ASCII letters, `$`, `_`,
    /// any non-ASCII code point, a `\u` escape) then IdentifierPart (also digits). Non-ASCII
    /// code points are taken as identifier characters without Unicode's ID_Start tables.
    private mutating func groupName(terminator: Unicode.Scalar) throws(RegexError) -> String {
        let start = i
        var name = ""
        while true {
            guard var c = peek else { throw .syntax("unterminated group name", position: start) }
            if c == terminator.value { i += 1; break }
            let at = i
            if c == Self.ascii("\\") {
                i += 1
                guard eat("u"), let v = try unicodeEscape(at: at) else {
                    throw .syntax("invalid escape in a group name", position: at)
                }
                c = v
            } else {
                i += 1
            }
            let isStart = Self.isASCIILetter(c) || c == Self.ascii("$") || c == Self.ascii("_") || (c >= 0x80 && c != 0x200C && c != 0x200D)
            let isPart = isStart || Self.isDigit(c) || c == 0x200C || c == 0x200D
            guard name.isEmpty ? isStart : isPart, c < 0xD800 || c > 0xDFFF, let scalar = Unicode.Scalar(c) else {
                throw .syntax("invalid character in a group name", position: at)
            }
            name.unicodeScalars.append(scalar)
        }
        guard !name.isEmpty else { throw .syntax("empty group name", position: start) }
        return name
    }

    /// After `\` (at `start`) outside a class: a backreference, a class escape or a
    /// character escape.
    private mutating func atomEscape(at start: Int) throws(RegexError) -> RegexNode {
        guard let c = peek else { throw .syntax("'\\' at the end of the pattern", position: start) }
        if c >= 0x31 && c <= 0x39 {
            let n = decimal() ?? 0
            numbered.append((n, start))
            return .backreference(n)
        }
        if c == Self.ascii("k") {
            i += 1
            guard eat("<") else { throw .syntax("'\\k' must be followed by '<name>'", position: start) }
            let name = try groupName(terminator: ">")
            named.append((name, start))
            // Resolved to the group's number once the whole pattern is read.
            return .backreference(-named.count)
        }
        if let set = try classEscape(at: start) { return .set(set) }
        return .character(try characterEscape(at: start, inClass: false))
    }

    /// `\d \D \s \S \w \W` (the letter at `i`), or nil for another escape.
    private mutating func classEscape(at start: Int) throws(RegexError) -> CodePointSet? {
        guard let c = peek else { return nil }
        let set: CodePointSet
        switch c {
        case Self.ascii("d"): set = .digits
        case Self.ascii("D"): set = CodePointSet.digits.inverted
        case Self.ascii("s"): set = .space
        case Self.ascii("S"): set = CodePointSet.space.inverted
        case Self.ascii("w"): set = .word
        case Self.ascii("W"): set = CodePointSet.word.inverted
        case Self.ascii("p"), Self.ascii("P"):
            throw .unsupported("the Unicode property escape \\\(Self.text(c)){...}", position: start)
        default: return nil
        }
        i += 1
        return set
    }

    /// A CharacterEscape (the character after `\` at `i`): its code point.
    private mutating func characterEscape(at start: Int, inClass: Bool) throws(RegexError) -> UInt32 {
        guard let c = peek else { throw .syntax("'\\' at the end of the pattern", position: start) }
        i += 1
        switch c {
        case Self.ascii("t"): return 0x09
        case Self.ascii("n"): return 0x0A
        case Self.ascii("v"): return 0x0B
        case Self.ascii("f"): return 0x0C
        case Self.ascii("r"): return 0x0D
        case Self.ascii("c"):
            guard let l = peek, Self.isASCIILetter(l) else { throw .syntax("'\\c' must be followed by an ASCII letter", position: start) }
            i += 1
            return l % 32
        case Self.ascii("0"):
            if Self.isDigit(peek) { throw .syntax("invalid decimal escape (octal escapes are not allowed)", position: start) }
            return 0
        case Self.ascii("x"):
            guard let h = Self.hexValue(peek), let l = Self.hexValue(peek(1)) else {
                throw .syntax("'\\x' must be followed by two hexadecimal digits", position: start)
            }
            i += 2
            return h << 4 | l
        case Self.ascii("u"):
            guard let v = try unicodeEscape(at: start) else {
                throw .syntax("invalid Unicode escape ('\\u' needs four hexadecimal digits or '{...}')", position: start)
            }
            return v
        case 0x31...0x39:
            throw .syntax(inClass ? "a backreference cannot be used in a character class" : "invalid escape", position: start)
        default:
            if Self.isASCIILetter(c) || Self.isDigit(c) {
                throw .syntax("invalid escape '\\\(Self.text(c))'", position: start)
            }
            // An identity escape: the character itself.
            return c
        }
    }

    /// After `\u`: `HHHH` (two such escapes forming a surrogate pair give one code point) or
    /// `{H...}` up to U+10FFFF; nil when neither follows.
    private mutating func unicodeEscape(at start: Int) throws(RegexError) -> UInt32? {
        if eat("{") {
            var v: UInt32 = 0
            var digits = 0
            while let h = Self.hexValue(peek) {
                v = v > CodePointSet.maxCodePoint ? v : v << 4 | h
                digits += 1
                i += 1
            }
            guard digits > 0, eat("}") else { return nil }
            guard v <= CodePointSet.maxCodePoint else {
                throw .syntax("Unicode escape beyond U+10FFFF", position: start)
            }
            return v
        }
        guard let v = fourHex(at: i) else { return nil }
        i += 4
        if v >= 0xD800 && v <= 0xDBFF, peek == Self.ascii("\\"), peek(1) == Self.ascii("u"),
           let trail = fourHex(at: i + 2), trail >= 0xDC00 && trail <= 0xDFFF {
            i += 6
            return 0x10000 + ((v - 0xD800) << 10) + (trail - 0xDC00)
        }
        return v
    }

    private func fourHex(at k: Int) -> UInt32? {
        var v: UInt32 = 0
        for d in 0..<4 {
            guard k + d < source.count, let h = Self.hexValue(source[k + d]) else { return nil }
            v = v << 4 | h
        }
        return v
    }

    // MARK: - Character classes

    private enum ClassAtom {
        case character(UInt32)
        case set(CodePointSet)
    }

    private mutating func characterClass() throws(RegexError) -> RegexNode {
        let open = i
        i += 1
        let negated = eat("^")
        var set = CodePointSet()
        while true {
            guard let c = peek else { throw .syntax("unterminated character class", position: open) }
            if c == Self.ascii("]") {
                i += 1
                break
            }
            let first = try classAtom()
            if peek == Self.ascii("-"), let next = peek(1), next != Self.ascii("]") {
                let dash = i
                i += 1
                let second = try classAtom()
                guard case .character(let lower) = first, case .character(let upper) = second else {
                    throw .syntax("a class escape cannot be the end of a range in a character class", position: dash)
                }
                guard lower <= upper else { throw .syntax("range out of order in character class", position: dash) }
                set.insert(lower...upper)
            } else {
                switch first {
                case .character(let c): set.insert(c)
                case .set(let s): set.formUnion(s)
                }
            }
        }
        return .set(negated ? set.inverted : set)
    }

    private mutating func classAtom() throws(RegexError) -> ClassAtom {
        let start = i
        guard let c = peek else { throw .syntax("unterminated character class", position: start) }
        i += 1
        guard c == Self.ascii("\\") else { return .character(c) }
        if eat("b") { return .character(0x08) }
        if eat("-") { return .character(Self.ascii("-")) }
        if let set = try classEscape(at: start) { return .set(set) }
        return .character(try characterEscape(at: start, inClass: true))
    }

    // MARK: - Named references

    /// Replaces the placeholders `.backreference(-k)` by the number of the k-th named reference.
    private static func resolveNamed(_ node: RegexNode, _ numbers: [Int]) -> RegexNode {
        switch node {
        case .backreference(let n) where n < 0:
            let k = -n - 1
            return .backreference(k < numbers.count ? numbers[k] : 0)
        case .sequence(let items): return .sequence(items.map { resolveNamed($0, numbers) })
        case .alternation(let items): return .alternation(items.map { resolveNamed($0, numbers) })
        case .capture(let g, let body): return .capture(g, resolveNamed(body, numbers))
        case .look(let behind, let negative, let body): return .look(behind: behind, negative: negative, resolveNamed(body, numbers))
        case .quantified(let body, let min, let max, let greedy, let groups):
            return .quantified(resolveNamed(body, numbers), min: min, max: max, greedy: greedy, groups: groups)
        case .empty, .character, .set, .backreference, .assertion:
            return node
        }
    }
}
