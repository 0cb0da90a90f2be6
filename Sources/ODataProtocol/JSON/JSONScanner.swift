/// A strict RFC 8259 pull scanner over contiguous UTF-8 bytes.
///
/// This is the single tokenizer under both the tree parser (`JSONValue.parse`) and the payload
/// codecs, which walk documents token by token and copy validated spans to their output
/// without building a tree (see docs/benchmarks.md for why).
///
/// The scanner borrows `base`: it must only be used inside the `withUnsafeBytes`-style closure
/// that produced the pointer. Not thread-safe (a value used by one parse at a time).
///
/// Strictness: no trailing commas, no comments, no leading zeros, no `+`/`.5`/`1.` numbers,
/// no unescaped control characters, only the eight JSON escapes plus `\uXXXX`, no lone
/// surrogates (escaped or not), no invalid UTF-8, nesting limited to `maxDepth`.
package struct JSONScanner {
    package let base: UnsafePointer<UInt8>
    package let count: Int
    package var pos: Int
    package var depth: Int = 0
    package let maxDepth: Int

    /// The span of a string's content (between the quotes) and whether it has escapes.
    package struct StringToken {
        package var start: Int
        package var end: Int
        package var escaped: Bool
        package var length: Int { end - start }

        package init(start: Int, end: Int, escaped: Bool) {
            self.start = start
            self.end = end
            self.escaped = escaped
        }
    }

    package init(base: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
        self.base = base
        self.count = count
        self.maxDepth = maxDepth
        // A leading UTF-8 byte order mark is ignored (RFC 8259 section 8.1 allows it).
        if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { pos = 3 } else { pos = 0 }
    }

    @inline(__always)
    package func fail(_ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(offset: offset ?? pos, message: message)
    }

    // MARK: Whitespace and structure

    @inline(__always)
    package mutating func skipWhitespace() {
        while pos < count {
            let b = base[pos]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 } else { return }
        }
    }

    /// The next non-whitespace byte, without consuming it.
    @inline(__always)
    package mutating func peek() throws(JSONError) -> UInt8 {
        skipWhitespace()
        guard pos < count else { throw fail("unexpected end of input") }
        return base[pos]
    }

    @inline(__always)
    package mutating func expect(_ byte: UInt8, _ what: String) throws(JSONError) {
        let b = try peek()
        guard b == byte else { throw fail("expected \(what), found \(Self.describe(b))") }
        pos += 1
    }

    /// Requires that only whitespace remains.
    package mutating func finish() throws(JSONError) {
        skipWhitespace()
        if pos < count { throw fail("unexpected \(Self.describe(base[pos])) after the JSON value") }
    }

    @inline(__always)
    package mutating func enter() throws(JSONError) {
        depth += 1
        if depth > maxDepth { throw fail("nesting deeper than \(maxDepth) levels") }
    }

    /// Consumes `{`; returns false (and leaves the object) when it is empty.
    package mutating func beginObject() throws(JSONError) -> Bool {
        try expect(UInt8(ascii: "{"), "'{'")
        try enter()
        if try peek() == UInt8(ascii: "}") { pos += 1; depth -= 1; return false }
        return true
    }

    /// After a member value: consumes `,` (true: another member follows) or `}` (false).
    package mutating func nextMember() throws(JSONError) -> Bool {
        if pos < count && base[pos] == UInt8(ascii: ",") { pos += 1; return true }  // the usual case: no whitespace
        let b = try peek()
        pos += 1
        if b == UInt8(ascii: ",") { return true }
        if b == UInt8(ascii: "}") { depth -= 1; return false }
        pos -= 1
        throw fail("expected ',' or '}' in object, found \(Self.describe(b))")
    }

    /// Reads a member name and the `:` after it.
    package mutating func readKey() throws(JSONError) -> StringToken {
        let b = try peek()
        guard b == UInt8(ascii: "\"") else {
            throw fail(b == UInt8(ascii: "}") ? "trailing comma in object" : "expected a member name string, found \(Self.describe(b))")
        }
        let key = try scanStringAtQuote()
        if pos < count && base[pos] == UInt8(ascii: ":") {  // the usual case: no whitespace before ':'
            pos += 1
        } else {
            try expect(UInt8(ascii: ":"), "':' after member name")
        }
        return key
    }

    /// Consumes `"name":` when it comes next (after whitespace), spelled exactly so: what
    /// `readKey` followed by `equals(key, name)` accepts for that spelling, without scanning
    /// the key. `name` must need no JSON escape. False otherwise, with only the whitespace
    /// before the key consumed (as `readKey` would).
    @inline(__always)
    package mutating func takeKey(_ name: StaticString) -> Bool {
        skipWhitespace()
        let q = pos
        let n = name.utf8CodeUnitCount
        guard q &+ n &+ 3 <= count, base[q] == UInt8(ascii: "\""), base[q &+ n &+ 1] == UInt8(ascii: "\""),
              base[q &+ n &+ 2] == UInt8(ascii: ":") else { return false }
        let p = name.utf8Start
        var i = 0
        while i < n && base[q &+ 1 &+ i] == p[i] { i &+= 1 }
        guard i == n else { return false }
        pos = q &+ n &+ 3
        return true
    }

    /// Consumes `[`; returns false (and leaves the array) when it is empty.
    package mutating func beginArray() throws(JSONError) -> Bool {
        try expect(UInt8(ascii: "["), "'['")
        try enter()
        if try peek() == UInt8(ascii: "]") { pos += 1; depth -= 1; return false }
        return true
    }

    /// After an element: consumes `,` (true) or `]` (false).
    package mutating func nextElement() throws(JSONError) -> Bool {
        let b = try peek()
        pos += 1
        if b == UInt8(ascii: ",") {
            if try peek() == UInt8(ascii: "]") { throw fail("trailing comma in array") }
            return true
        }
        if b == UInt8(ascii: "]") { depth -= 1; return false }
        pos -= 1
        throw fail("expected ',' or ']' in array, found \(Self.describe(b))")
    }

    // MARK: Scalars

    /// Scans a string starting at the opening quote (at `pos`, after whitespace) and validates it.
    package mutating func scanString() throws(JSONError) -> StringToken {
        skipWhitespace()
        guard pos < count, base[pos] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        return try scanStringAtQuote()
    }

    /// `scanString` when `pos` is known to be at the opening quote.
    @inline(__always)
    private mutating func scanStringAtQuote() throws(JSONError) -> StringToken {
        let start = pos + 1
        var p = start
        var escaped = false
        while true {
            // Plain bytes (printable ASCII other than `"` and `\`) eight at a time, then
            // straight to the first byte that is not plain.
            p = Self.skipPlainStringBytes(base, from: p, count: count)
            guard p < count else { break }
            let b = base[p]
            if b == 0x22 {
                pos = p + 1
                return StringToken(start: start, end: p, escaped: escaped)
            }
            pos = p
            if b == 0x5C {
                escaped = true
                try scanEscape()
            } else if b < 0x20 {
                throw fail("unescaped control character 0x\(String(b, radix: 16)) in string")
            } else if b >= 0x80 {
                try scanUTF8Sequence()
            } else {
                pos += 1  // unreachable: skipPlainStringBytes stops only at the bytes above
            }
            p = pos
        }
        pos = p
        throw fail("unterminated string", at: start - 1)
    }

    /// The index of the first byte at or after `i` that is not plain string content (`"`,
    /// `\`, a control character or a non-ASCII byte), or `count`. Reads whole 64-bit words
    /// while they lie inside the input (SWAR: a word holds such a byte iff one of the masks
    /// below is non-zero; the lowest flagged byte is exact, as borrows only run upwards).
    @inline(__always)
    package static func skipPlainStringBytes(_ base: UnsafePointer<UInt8>, from i: Int, count: Int) -> Int {
        var p = i
        #if _endian(little)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while p &+ 8 <= count {
            let w = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)
            let quote = w ^ (ones &* 0x22)
            let backslash = w ^ (ones &* 0x5C)
            let special = (w | ((w &- ones &* 0x20) & ~w)
                           | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
            if special != 0 { return p &+ special.trailingZeroBitCount >> 3 }
            p &+= 8
        }
        #endif
        while p < count {
            let b = base[p]
            if b < 0x20 || b >= 0x80 || b == 0x22 || b == 0x5C { return p }
            p &+= 1
        }
        return count
    }

    private mutating func scanEscape() throws(JSONError) {
        let at = pos
        guard pos + 1 < count else { throw fail("unterminated escape sequence") }
        let e = base[pos + 1]
        switch e {
        case 0x22, 0x5C, 0x2F, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            pos += 2
        case UInt8(ascii: "u"):
            guard let u = hex4(at: pos + 2) else { throw fail("\\u must be followed by four hex digits", at: at) }
            pos += 6
            if u >= 0xD800 && u <= 0xDBFF {
                guard pos + 1 < count, base[pos] == 0x5C, base[pos + 1] == UInt8(ascii: "u"),
                      let low = hex4(at: pos + 2), low >= 0xDC00 && low <= 0xDFFF
                else { throw fail("lone high surrogate \\u\(String(u, radix: 16, uppercase: true)) (not followed by a low surrogate)", at: at) }
                pos += 6
            } else if u >= 0xDC00 && u <= 0xDFFF {
                throw fail("lone low surrogate \\u\(String(u, radix: 16, uppercase: true))", at: at)
            }
        default:
            throw fail("invalid escape \\\(Self.describe(e))", at: at)
        }
    }

    @inline(__always)
    package func hex4(at i: Int) -> UInt32? {
        guard i + 4 <= count else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = base[i + k]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c &- 0x30
            case 0x41...0x46: d = c &- 0x37
            case 0x61...0x66: d = c &- 0x57
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// Validates one multi-byte UTF-8 sequence at `pos` (RFC 3629: no overlongs, no surrogates, <= U+10FFFF).
    private mutating func scanUTF8Sequence() throws(JSONError) {
        let b0 = base[pos]
        var need = 0
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2
        case 0xED: need = 2; hi = 0x9F
        case 0xF0: need = 3; lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; hi = 0x8F
        default: throw fail("invalid UTF-8 byte 0x\(String(b0, radix: 16))")
        }
        guard pos + need < count else { throw fail("truncated UTF-8 sequence") }
        let b1 = base[pos + 1]
        guard b1 >= lo && b1 <= hi else { throw fail("invalid UTF-8 sequence") }
        var k = 2
        while k <= need {
            let b = base[pos + k]
            guard b & 0xC0 == 0x80 else { throw fail("invalid UTF-8 sequence") }
            k += 1
        }
        pos += need + 1
    }

    /// Scans a number per the RFC 8259 grammar; returns its byte range.
    package mutating func scanNumber() throws(JSONError) -> Range<Int> {
        skipWhitespace()
        let start = pos
        if pos < count && base[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < count, isDigit(base[pos]) else { throw fail("invalid number: expected a digit", at: pos) }
        if base[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < count && isDigit(base[pos]) { throw fail("invalid number: leading zero", at: start) }
        } else {
            while pos < count && isDigit(base[pos]) { pos += 1 }
        }
        if pos < count && base[pos] == UInt8(ascii: ".") {
            pos += 1
            guard pos < count, isDigit(base[pos]) else { throw fail("invalid number: expected a digit after '.'") }
            while pos < count && isDigit(base[pos]) { pos += 1 }
        }
        if pos < count && (base[pos] | 0x20) == UInt8(ascii: "e") {
            pos += 1
            if pos < count && (base[pos] == UInt8(ascii: "+") || base[pos] == UInt8(ascii: "-")) { pos += 1 }
            guard pos < count, isDigit(base[pos]) else { throw fail("invalid number: expected a digit in the exponent") }
            while pos < count && isDigit(base[pos]) { pos += 1 }
        }
        return start..<pos
    }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

    /// Consumes `true`, `false` or `null` (the byte at `pos` is its first letter).
    package mutating func scanLiteral() throws(JSONError) -> JSONValue {
        skipWhitespace()
        if pos < count {
            switch base[pos] {  // only the literal its first letter names can match
            case UInt8(ascii: "t"): if fourBytes(at: pos) == Self.trueWord { pos += 4; return .bool(true) }
            case UInt8(ascii: "f"): if fourBytes(at: pos + 1) == Self.alseWord { pos += 5; return .bool(false) }
            case UInt8(ascii: "n"): if fourBytes(at: pos) == Self.nullWord { pos += 4; return .null }
            default: break
            }
        }
        throw fail("invalid literal")
    }

    /// `true`, `alse` (after the `f` of `false`) and `null` as `fourBytes` reads them. The
    /// literals were compared through `matches(StaticString)`, about 90 instructions each (a
    /// `false` in every entity of a V4 download's pages).
    static let trueWord = word4("true"), alseWord = word4("alse"), nullWord = word4("null")

    private static func word4(_ s: StaticString) -> UInt32 {
        let p = s.utf8Start
        return UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
    }

    /// The four bytes at `i` as one little-endian word, or `UInt32.max` (no literal's word)
    /// when fewer than four remain.
    @inline(__always) func fourBytes(at i: Int) -> UInt32 {
        guard i + 4 <= count else { return .max }
        return UInt32(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self))
    }

    package func matches(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard pos + n <= count else { return false }
        let w = word.utf8Start
        for i in 0..<n where base[pos + i] != w[i] { return false }
        return true
    }

    /// Skips (and fully validates) one value of any kind.
    package mutating func skipValue() throws(JSONError) {
        let b = try peek()
        switch b {
        case UInt8(ascii: "\""): _ = try scanString()
        case UInt8(ascii: "{"):
            if try beginObject() {
                repeat { _ = try readKey(); try skipValue() } while try nextMember()
            }
        case UInt8(ascii: "["):
            if try beginArray() {
                repeat { try skipValue() } while try nextElement()
            }
        case UInt8(ascii: "-"), 0x30...0x39: _ = try scanNumber()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): _ = try scanLiteral()
        default: throw fail("unexpected \(Self.describe(b))")
        }
    }

    // MARK: Decoding tokens

    /// The decoded text of a string token.
    package func string(_ t: StringToken) -> String {
        if !t.escaped {
            return String(decoding: UnsafeBufferPointer(start: base + t.start, count: t.length), as: UTF8.self)
        }
        var out = [UInt8]()
        out.reserveCapacity(t.length)
        unescape(t, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the decoded UTF-8 bytes of a (validated) string token.
    package func unescape(_ t: StringToken, into out: inout [UInt8]) {
        var i = t.start
        while i < t.end {
            let b = base[i]
            if b != 0x5C { out.append(b); i += 1; continue }
            let e = base[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(at: i) ?? 0xFFFD
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF, let low = hex4(at: i + 2) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                appendUTF8(scalar, into: &out)
            default: out.append(e)  // " \ /
            }
        }
    }

    /// Appends the UTF-8 encoding of a scalar value (validated by `scanEscape`).
    @inline(__always)
    package func appendUTF8(_ v: UInt32, into out: inout [UInt8]) {
        switch v {
        case 0..<0x80: out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | v >> 6)); out.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | v >> 12)); out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        default:
            out.append(UInt8(0xF0 | v >> 18)); out.append(UInt8(0x80 | v >> 12 & 0x3F))
            out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        }
    }

    /// True when the token's decoded text equals `s` (ASCII fast path without allocation).
    @inline(__always) package func equals(_ t: StringToken, _ s: StaticString) -> Bool {
        if t.escaped { return string(t) == s.description }
        let n = s.utf8CodeUnitCount
        guard t.length == n else { return false }
        let p = s.utf8Start
        for i in 0..<n where base[t.start + i] != p[i] { return false }
        return true
    }

    /// True when the token's raw bytes start with `prefix` (no escapes considered).
    package func hasPrefix(_ t: StringToken, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard t.length >= n else { return false }
        let p = prefix.utf8Start
        for i in 0..<n where base[t.start + i] != p[i] { return false }
        return true
    }

    package func text(_ r: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(start: base + r.lowerBound, count: r.count), as: UTF8.self)
    }

    package static func describe(_ b: UInt8) -> String {
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }
}

extension JSONScanner {
    /// Runs `body` with a scanner over `bytes` (contiguous storage is used in place when available).
    package static func with<R>(
        _ bytes: some Collection<UInt8>, maxDepth: Int,
        _ body: (inout JSONScanner) throws(JSONError) -> R
    ) throws(JSONError) -> R {
        let run: (UnsafeBufferPointer<UInt8>) -> Result<R, JSONError> = { buf in
            guard let p = buf.baseAddress, buf.count > 0 else {
                return .failure(JSONError(offset: 0, message: "empty input"))
            }
            var s = JSONScanner(base: p, count: buf.count, maxDepth: maxDepth)
            do throws(JSONError) { return .success(try body(&s)) } catch { return .failure(error) }
        }
        if let r = bytes.withContiguousStorageIfAvailable(run) { return try r.get() }
        return try Array(bytes).withUnsafeBufferPointer(run).get()
    }
}
