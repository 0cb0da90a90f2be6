/// A V4 `$search` expression (4.01 Part 2, 5.1.7; ABNF `searchExpr`): words, `"phrases"`,
/// `NOT`, `AND` (also implicit, between terms separated by whitespace), `OR` and parentheses,
/// with the precedence NOT, AND, OR. `AND`, `OR` and `NOT` (upper case) are operators only
/// where an operator can stand; elsewhere they are words (`$search=NOT` searches for "NOT").
///
/// Runs of `AND`/`OR` are kept flat (`and([a, b, c])`), so long inputs cost no recursion;
/// parentheses and `NOT` count towards `ParserLimits.maxNesting`.
public indirect enum SearchExpression: Hashable, Sendable {
    case word(String)
    case phrase(String)
    /// `searchExpr-incomplete`: the whole value in single quotes (`'"blue'`), unquoted.
    case incomplete(String)
    case not(SearchExpression)
    case and([SearchExpression])
    case or([SearchExpression])
}

/// Parses `$search` values (decoded bytes; `encoded` tells which bytes were percent-encoded:
/// a literal `;` ends a nested option and is not allowed in a word, `%3B` is part of a word).
struct SearchParser {
    let bytes: [UInt8]
    let end: Int
    let encoded: [Bool]?
    let limits: ParserLimits
    var i: Int
    var nesting = 0

    init(_ bytes: [UInt8], from start: Int, to end: Int, encoded: [Bool]?, limits: ParserLimits) {
        self.bytes = bytes
        self.i = start
        self.end = min(end, bytes.count)
        self.encoded = encoded
        self.limits = limits
    }

    enum Tok: Equatable {
        case open, close, phrase(String), word(String), eof
    }

    func isEncoded(_ k: Int) -> Bool { encoded.map { k < $0.count && $0[k] } ?? false }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    /// Parses the whole range; errors carry byte offsets into `bytes`.
    mutating func parseAll() throws(URLParseError) -> SearchExpression {
        let start = i
        while i < end, Self.isSpace(bytes[i]) { i += 1 }  // search = "$search" EQ BWS …
        guard i < end else { throw URLParseError("empty $search", at: start) }
        if bytes[i] == UInt8(ascii: "'") { return try incomplete() }
        let e = try parseOr()
        skipSpace()
        guard i >= end else {
            if bytes[i] == UInt8(ascii: ")") { throw URLParseError("unbalanced ')' in $search", at: i) }
            throw URLParseError("unexpected '\(Lexer.describe(bytes[i]))' in $search", at: i)
        }
        return e
    }

    /// `'…'` (`''` for a quote) spanning the whole value.
    mutating func incomplete() throws(URLParseError) -> SearchExpression {
        let open = i
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < end else { throw URLParseError("unterminated single-quoted $search (expected closing \"'\")", at: open) }
            let c = bytes[i]
            if c == UInt8(ascii: "'") {
                if i + 1 < end, bytes[i + 1] == UInt8(ascii: "'") {
                    out.append(c)
                    i += 2
                    continue
                }
                i += 1
                break
            }
            out.append(c)
            i += 1
        }
        while i < end, Self.isSpace(bytes[i]) { i += 1 }
        guard i >= end else { throw URLParseError("unexpected text after a single-quoted $search", at: i) }
        return .incomplete(String(decoding: out, as: UTF8.self))
    }

    mutating func skipSpace() { while i < end, Self.isSpace(bytes[i]) { i += 1 } }

    /// The next token without consuming it, and the offset after it.
    func peek(from k: Int) throws(URLParseError) -> (Tok, Int, Int) {
        var j = k
        while j < end, Self.isSpace(bytes[j]) { j += 1 }
        let start = j
        guard j < end else { return (.eof, j, j) }
        let c = bytes[j]
        if c == UInt8(ascii: "(") { return (.open, start, j + 1) }
        if c == UInt8(ascii: ")") { return (.close, start, j + 1) }
        if c == UInt8(ascii: "\"") {
            j += 1
            let s = j
            while j < end, bytes[j] != UInt8(ascii: "\"") { j += 1 }
            guard j < end else { throw URLParseError("unbalanced '\"' in $search (a phrase needs its closing quote)", at: start) }
            guard j > s else { throw URLParseError("empty phrase in $search", at: start) }
            return (.phrase(String(decoding: bytes[s..<j], as: UTF8.self)), start, j + 1)
        }
        if c == UInt8(ascii: "'") { throw URLParseError("a search word cannot start with \"'\" (quote the whole value, or use a \"phrase\")", at: j) }
        while j < end {
            let b = bytes[j]
            if Self.isSpace(b) || b == UInt8(ascii: "(") || b == UInt8(ascii: ")") { break }
            if b == UInt8(ascii: "\"") { throw URLParseError("'\"' inside a search word (a phrase starts after whitespace)", at: j) }
            if b == UInt8(ascii: ";") && !isEncoded(j) { throw URLParseError("';' is not allowed in a search word (write %3B)", at: j) }
            j += 1
        }
        return (.word(String(decoding: bytes[start..<j], as: UTF8.self)), start, j)
    }

    /// Whether a term can start at `k` (after whitespace): a word, phrase or `(`.
    func termStarts(at k: Int) throws(URLParseError) -> Bool {
        switch try peek(from: k).0 {
        case .open, .phrase, .word: return true
        default: return false
        }
    }

    /// `OR`/`AND`/`NOT` at `k` is an operator when whitespace follows it and a term comes next.
    func isOperator(_ word: String, at k: Int, _ next: Int) throws(URLParseError) -> Bool {
        guard next < end, Self.isSpace(bytes[next]) else { return false }
        return try termStarts(at: next)
    }

    mutating func parseOr() throws(URLParseError) -> SearchExpression {
        var terms = [try parseAnd()]
        while true {
            let (t, _, next) = try peek(from: i)
            guard case .word("OR") = t, i < end, Self.isSpace(bytes[i]), try isOperator("OR", at: i, next) else { break }
            i = next
            terms.append(try parseAnd())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    mutating func parseAnd() throws(URLParseError) -> SearchExpression {
        var terms = [try parseUnary()]
        while true {
            let (t, _, next) = try peek(from: i)
            switch t {
            case .eof, .close: break
            case .word("OR") where try isOperator("OR", at: i, next): break
            case .word("AND") where try isOperator("AND", at: i, next):
                guard i < end, Self.isSpace(bytes[i]) else { throw URLParseError("expected whitespace before AND", at: i) }
                i = next
                terms.append(try parseUnary())
                continue
            default:
                // Implicit AND: terms separated by whitespace.
                guard i < end, Self.isSpace(bytes[i]) else {
                    throw URLParseError("expected whitespace between search terms", at: i)
                }
                terms.append(try parseUnary())
                continue
            }
            break
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    mutating func parseUnary() throws(URLParseError) -> SearchExpression {
        var nots: [Int] = []
        while true {
            let (t, start, next) = try peek(from: i)
            guard case .word("NOT") = t, try isOperator("NOT", at: start, next) else { break }
            nesting += 1
            if nesting > limits.maxNesting { throw URLParseError("$search nested too deeply (limit \(limits.maxNesting))", at: start) }
            nots.append(start)
            i = next
        }
        var e = try parsePrimary()
        for _ in nots {
            e = .not(e)
            nesting -= 1
        }
        return e
    }

    mutating func parsePrimary() throws(URLParseError) -> SearchExpression {
        let (t, start, next) = try peek(from: i)
        switch t {
        case .word(let w):
            i = next
            return .word(w)
        case .phrase(let p):
            i = next
            return .phrase(p)
        case .open:
            i = next
            nesting += 1
            if nesting > limits.maxNesting { throw URLParseError("$search nested too deeply (limit \(limits.maxNesting))", at: start) }
            let inner = try parseOr()
            let (c, cs, cn) = try peek(from: i)
            guard c == .close else { throw URLParseError("unbalanced '(' in $search (expected ')')", at: cs) }
            i = cn
            nesting -= 1
            return inner
        case .close:
            throw URLParseError("expected a search term, found ')'", at: start)
        case .eof:
            throw URLParseError("expected a search term", at: start)
        }
    }
}

/// Prints a `$search` expression canonically: ` AND `, ` OR `, `NOT `, parentheses only where
/// needed, and the words `AND`, `OR`, `NOT` in parentheses so that they stay words.
public enum SearchPrinter {
    public static func print(_ s: SearchExpression) -> String {
        var out = ""
        write(s, into: &out)
        return out
    }

    static func write(_ s: SearchExpression, into out: inout String) {
        switch s {
        case .word(let w):
            out += (w == "AND" || w == "OR" || w == "NOT") ? "(" + w + ")" : w
        case .phrase(let p):
            out += "\"" + p + "\""
        case .incomplete(let t):
            out += LiteralPrinter.quoted(t)
        case .not(let e):
            out += "NOT "
            switch e {
            case .and, .or: out += "("; write(e, into: &out); out += ")"
            default: write(e, into: &out)
            }
        case .and(let terms):
            for (k, t) in terms.enumerated() {
                if k > 0 { out += " AND " }
                switch t {
                case .and, .or: out += "("; write(t, into: &out); out += ")"
                default: write(t, into: &out)
                }
            }
        case .or(let terms):
            for (k, t) in terms.enumerated() {
                if k > 0 { out += " OR " }
                if case .or = t { out += "("; write(t, into: &out); out += ")" } else { write(t, into: &out) }
            }
        }
    }
}
