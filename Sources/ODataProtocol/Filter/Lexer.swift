/// Splits decoded expression text (UTF-8 bytes) into tokens.
///
/// The dialect decides which literal spellings are recognised: V2 only (`guid'…'`,
/// `datetime'…'`, `X'…'`, `12L`, `1.5M`), V4 only (bare GUIDs, dates, times and date-time
/// offsets, `duration'…'`, enum literals), or both when the version is nil. Errors carry byte
/// offsets into `bytes`; the public parsers convert them to character positions.
struct Lexer {
    let bytes: [UInt8]
    let end: Int
    let version: ODataVersion?
    var offset: Int

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil, version: ODataVersion?) {
        self.bytes = bytes
        self.offset = start
        self.end = min(end ?? bytes.count, bytes.count)
        self.version = version
    }

    var allowsV2: Bool { version != .v4 }
    var allowsV4: Bool { version != .v2 }

    private func byte(_ i: Int) -> UInt8? { i < end ? bytes[i] : nil }

    mutating func skipWhitespace() {
        while offset < end, bytes[offset] == 0x20 || bytes[offset] == 0x09 { offset += 1 }
    }

    /// The next token, leaving the lexer after it.
    mutating func next() throws(URLParseError) -> Token {
        let before = offset
        skipWhitespace()
        var t = try scan()
        t.spaceBefore = t.start > before
        return t
    }

    private mutating func scan() throws(URLParseError) -> Token {
        let start = offset
        guard let c = byte(offset) else { return Token(kind: .eof, start: end, end: end) }
        func single(_ k: Token.Kind) -> Token { offset += 1; return Token(kind: k, start: start, end: offset) }
        switch c {
        case UInt8(ascii: "("): return single(.lparen)
        case UInt8(ascii: ")"): return single(.rparen)
        case UInt8(ascii: ","): return single(.comma)
        case UInt8(ascii: "/"): return single(.slash)
        case UInt8(ascii: ":"): return single(.colon)
        case UInt8(ascii: "="): return single(.equals)
        case UInt8(ascii: ";"): return single(.semicolon)
        case UInt8(ascii: "*"): return single(.star)
        case UInt8(ascii: "[") where allowsV4: return single(.lbracket)
        case UInt8(ascii: "]") where allowsV4: return single(.rbracket)
        case UInt8(ascii: "{") where allowsV4: return single(.lbrace)
        case UInt8(ascii: "}") where allowsV4: return single(.rbrace)
        case UInt8(ascii: "\"") where allowsV4:
            let s = try scanJSONString()
            return Token(kind: .jsonString(s), start: start, end: offset)
        case UInt8(ascii: "'"):
            let s = try scanQuoted()
            return Token(kind: .literal(.string(s)), start: start, end: offset)
        case UInt8(ascii: "-"):
            if let d = byte(offset + 1), isDigit(d) { return try scanNumberOrTemporal() }
            if allowsV4, matches("-INF", at: offset), !isIdentifierByte(byte(offset + 4)) {
                offset += 4
                return Token(kind: .literal(.double("-INF")), start: start, end: offset)
            }
            return single(.minus)
        case UInt8(ascii: "+"):
            // SIGN = "%2B" / "-" (ABNF 7): a plus sign before a number (V4).
            if allowsV4, let d = byte(offset + 1), isDigit(d) { return try scanNumberOrTemporal() }
            throw URLParseError("unexpected character '+' (a '+' is a literal plus; write spaces as %20)", at: start)
        default:
            break
        }
        if allowsV4, isHex(c), let g = guidAt(offset) {
            offset += 36
            return Token(kind: .literal(.guid(g)), start: start, end: offset)
        }
        if isDigit(c) { return try scanNumberOrTemporal() }
        if isIdentifierStart(c) { return try scanIdentifierOrTypedLiteral() }
        throw URLParseError("unexpected character '\(Self.describe(c))'", at: start)
    }

    /// A JSON string (RFC 8259) starting at the opening double quote, unescaped: `\"`, `\\`,
    /// `\/`, `\b`, `\f`, `\n`, `\r`, `\t` and `\uXXXX` (surrogate pairs combined).
    mutating func scanJSONString() throws(URLParseError) -> String {
        let open = offset
        offset += 1
        var out: [UInt8] = []
        while true {
            guard let c = byte(offset) else {
                throw URLParseError("unterminated JSON string (expected closing '\"')", at: open)
            }
            if c == UInt8(ascii: "\"") {
                offset += 1
                return String(decoding: out, as: UTF8.self)
            }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                offset += 1
                continue
            }
            let escapeAt = offset
            guard let e = byte(offset + 1) else { throw URLParseError("unterminated JSON string (expected closing '\"')", at: open) }
            offset += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var unit = hex4(at: offset) else { throw URLParseError("invalid \\u escape in a JSON string", at: escapeAt) }
                offset += 4
                if unit >= 0xD800 && unit < 0xDC00 {
                    guard byte(offset) == UInt8(ascii: "\\"), byte(offset + 1) == UInt8(ascii: "u"), let low = hex4(at: offset + 2),
                          low >= 0xDC00 && low < 0xE000 else {
                        throw URLParseError("unpaired surrogate in a JSON string", at: escapeAt)
                    }
                    offset += 6
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                } else if unit >= 0xDC00 && unit < 0xE000 {
                    throw URLParseError("unpaired surrogate in a JSON string", at: escapeAt)
                }
                guard let scalar = Unicode.Scalar(unit) else { throw URLParseError("invalid \\u escape in a JSON string", at: escapeAt) }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw URLParseError("invalid escape '\\\(Self.describe(e))' in a JSON string", at: escapeAt)
            }
        }
    }

    private func hex4(at i: Int) -> UInt32? {
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let c = byte(i + k), let h = PercentDecoding.hexValue(c) else { return nil }
            v = v << 4 | UInt32(h)
        }
        return v
    }

    /// The token after the current position, without consuming it.
    func peek() throws(URLParseError) -> Token {
        var copy = self
        return try copy.next()
    }

    static func describe(_ c: UInt8) -> String {
        if c >= 0x21 && c < 0x7F { return String(UnicodeScalar(c)) }
        let hex = String(c, radix: 16, uppercase: true)
        return "\\x" + (hex.count < 2 ? "0" + hex : hex)
    }

    // MARK: - Character classes

    func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    func isHex(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }
    func isLetter(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }
    func isIdentifierStart(_ c: UInt8) -> Bool {
        isLetter(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: "$") || c == UInt8(ascii: "@") || c >= 0x80
    }
    func isIdentifierByte(_ c: UInt8?) -> Bool {
        guard let c else { return false }
        return isLetter(c) || isDigit(c) || c == UInt8(ascii: "_") || c >= 0x80
    }

    func matches(_ s: String, at i: Int) -> Bool {
        var j = i
        for b in s.utf8 {
            guard let c = byte(j), c == b else { return false }
            j += 1
        }
        return true
    }

    // MARK: - Scanners

    /// Reads `'…'` starting at the opening quote; `''` stands for one quote.
    mutating func scanQuoted() throws(URLParseError) -> String {
        let open = offset
        offset += 1
        var out: [UInt8] = []
        while true {
            guard let c = byte(offset) else {
                throw URLParseError("unterminated string literal (expected closing \"'\")", at: open)
            }
            if c == UInt8(ascii: "'") {
                if byte(offset + 1) == UInt8(ascii: "'") {
                    out.append(c)
                    offset += 2
                    continue
                }
                offset += 1
                return String(decoding: out, as: UTF8.self)
            }
            out.append(c)
            offset += 1
        }
    }

    private mutating func scanIdentifierOrTypedLiteral() throws(URLParseError) -> Token {
        let start = offset
        offset += 1
        while true {
            if isIdentifierByte(byte(offset)) { offset += 1; continue }
            if byte(offset) == UInt8(ascii: "."), let n = byte(offset + 1) {
                if isIdentifierStart(n) && n != UInt8(ascii: "$") && n != UInt8(ascii: "@") { offset += 2; continue }
                if n == UInt8(ascii: "*") { offset += 2; break }
            }
            break
        }
        // An annotation's qualifier: `@Measures.Currency#Reporting` (HASH is `%23` in a URL).
        if bytes[start] == UInt8(ascii: "@"), byte(offset) == UInt8(ascii: "#"), let q = byte(offset + 1), isLetter(q) || q == UInt8(ascii: "_") || q >= 0x80 {
            offset += 2
            while isIdentifierByte(byte(offset)) { offset += 1 }
        }
        let name = String(decoding: bytes[start..<offset], as: UTF8.self)
        if byte(offset) == UInt8(ascii: "'") {
            let quoteAt = offset
            let content = try scanQuoted()
            let literal = try typedLiteral(prefix: name, content: content, at: start, contentAt: quoteAt + 1)
            return Token(kind: .literal(literal), start: start, end: offset)
        }
        return Token(kind: .identifier(name), start: start, end: offset)
    }

    private func typedLiteral(prefix: String, content: String, at start: Int, contentAt: Int) throws(URLParseError) -> Literal {
        let lower = prefix.lowercased()
        func bad(_ what: String) -> URLParseError { URLParseError("invalid \(what) literal '\(content)'", at: contentAt) }
        switch lower {
        case "datetime" where allowsV2:
            guard TemporalSyntax.isDateTime(content, offset: false) else { throw bad("datetime") }
            return .dateTime(content)
        case "datetimeoffset" where allowsV2:
            guard TemporalSyntax.isDateTime(content, offset: true) else { throw bad("datetimeoffset") }
            return .dateTimeOffset(content)
        case "time" where allowsV2:
            guard TemporalSyntax.isDuration(content) else { throw bad("time") }
            return .time(content)
        case "guid" where allowsV2:
            guard TemporalSyntax.isGuid(content) else { throw bad("guid") }
            return .guid(content)
        case "x" where allowsV2:
            guard let b = BinaryLiteral.fromHex(content) else { throw bad("binary") }
            return .binary(b)
        case "binary":
            if version == .v4 {
                guard let b = Base64.decode(content) else { throw bad("binary") }
                return .binary(b)
            }
            if let b = BinaryLiteral.fromHex(content) { return .binary(b) }
            if version == nil, let b = Base64.decode(content) { return .binary(b) }
            throw bad("binary")
        case "duration" where allowsV4:
            guard TemporalSyntax.isDuration(content) else { throw bad("duration") }
            return .duration(content)
        case "geography" where allowsV4, "geometry" where allowsV4:
            guard GeoLiteral.isValid(content) else { throw bad(lower) }
            return lower == "geography" ? .geography(content) : .geometry(content)
        case "geography", "geometry":
            throw URLParseError("geo literals are V4 only", at: start)
        default:
            if allowsV4, prefix.contains("."), !prefix.hasSuffix(".*") {
                guard !content.isEmpty else { throw bad("enum") }
                return .enumMember(type: prefix, value: content)
            }
            throw URLParseError("unknown literal prefix '\(prefix)'", at: start)
        }
    }

    /// A GUID of the form 8-4-4-4-12 hex digits at `i`, not followed by a name character.
    func guidAt(_ i: Int) -> String? {
        guard i + 36 <= end else { return nil }
        for k in 0..<36 {
            let c = bytes[i + k]
            if k == 8 || k == 13 || k == 18 || k == 23 {
                if c != UInt8(ascii: "-") { return nil }
            } else if !isHex(c) { return nil }
        }
        if isIdentifierByte(byte(i + 36)) || byte(i + 36) == UInt8(ascii: "-") { return nil }
        return String(decoding: bytes[i..<(i + 36)], as: UTF8.self)
    }

    private func digits(from i: Int) -> Int {
        var j = i
        while let c = byte(j), isDigit(c) { j += 1 }
        return j - i
    }

    private mutating func scanNumberOrTemporal() throws(URLParseError) -> Token {
        let start = offset
        let negative = byte(offset) == UInt8(ascii: "-")
        let plus = byte(offset) == UInt8(ascii: "+")
        let first = negative || plus ? offset + 1 : offset
        if allowsV4 && !negative && !plus {
            // Date (and date-time offset): YYYY-MM-DD[Thh:mm[:ss[.f]](Z|±hh:mm)]
            if digits(from: first) == 4, byte(first + 4) == UInt8(ascii: "-"), digits(from: first + 5) == 2,
               byte(first + 7) == UInt8(ascii: "-"), digits(from: first + 8) == 2 {
                var j = first + 10
                if byte(j) == UInt8(ascii: "T") {
                    j += 1
                    while let c = byte(j), isDigit(c) || c == UInt8(ascii: ":") || c == UInt8(ascii: ".")
                        || c == UInt8(ascii: "Z") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { j += 1 }
                    let text = String(decoding: bytes[start..<j], as: UTF8.self)
                    guard TemporalSyntax.isDateTime(text, offset: true) else {
                        throw URLParseError("invalid date-time offset literal '\(text)'", at: start)
                    }
                    offset = j
                    return Token(kind: .literal(.dateTimeOffset(text)), start: start, end: j)
                }
                let text = String(decoding: bytes[start..<j], as: UTF8.self)
                guard TemporalSyntax.isDate(text), !isIdentifierByte(byte(j)) else {
                    throw URLParseError("invalid date literal '\(text)'", at: start)
                }
                offset = j
                return Token(kind: .literal(.date(text)), start: start, end: j)
            }
            // Time of day: hh:mm[:ss[.fffffff]]
            if digits(from: first) == 2, byte(first + 2) == UInt8(ascii: ":"), let m = byte(first + 3), isDigit(m) {
                var j = first + 3
                while let c = byte(j), isDigit(c) || c == UInt8(ascii: ":") || c == UInt8(ascii: ".") { j += 1 }
                let text = String(decoding: bytes[start..<j], as: UTF8.self)
                guard TemporalSyntax.isTimeOfDay(text), !isIdentifierByte(byte(j)) else {
                    throw URLParseError("invalid time-of-day literal '\(text)'", at: start)
                }
                offset = j
                return Token(kind: .literal(.timeOfDay(text)), start: start, end: j)
            }
        }
        var j = first + digits(from: first)
        var fractional = false
        if byte(j) == UInt8(ascii: "."), let d = byte(j + 1), isDigit(d) {
            fractional = true
            j += 1
            j += digits(from: j)
        }
        if let e = byte(j), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var k = j + 1
            if let s = byte(k), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { k += 1 }
            if digits(from: k) > 0 {
                fractional = true
                j = k + digits(from: k)
            }
        }
        // `+42` is `42`: the sign is dropped so that the literal's text is the canonical one.
        let text = String(decoding: bytes[(plus ? first : start)..<j], as: UTF8.self)
        var literal: Literal = fractional ? .fractional(text) : .integer(text)
        if let s = byte(j), isLetter(s), !isIdentifierByte(byte(j + 1)) {
            var suffixed: Literal? = nil
            if allowsV2 {
                switch s {
                case UInt8(ascii: "L"), UInt8(ascii: "l"): suffixed = fractional ? nil : .int64(text)
                case UInt8(ascii: "M"), UInt8(ascii: "m"): suffixed = .decimal(text)
                case UInt8(ascii: "D"), UInt8(ascii: "d"): suffixed = .double(text)
                case UInt8(ascii: "F"), UInt8(ascii: "f"): suffixed = .single(text)
                default: suffixed = nil
                }
            }
            guard let suffixed else {
                throw URLParseError("unexpected '\(Self.describe(s))' after number", at: j)
            }
            literal = suffixed
            j += 1
        } else if isIdentifierByte(byte(j)) || byte(j) == UInt8(ascii: ".") {
            throw URLParseError("unexpected '\(Self.describe(bytes[j]))' after number", at: j)
        }
        offset = j
        return Token(kind: .literal(literal), start: start, end: j)
    }
}
