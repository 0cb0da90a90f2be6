/// A JSON value of a CSDL JSON document, with the position where it starts.
/// Objects keep their members in document order (duplicates included; lookups take the first).
struct CSDLJSONValue {
    enum Kind {
        case object([(key: String, value: CSDLJSONValue)])
        case array([CSDLJSONValue])
        case string(String)
        /// The number as written (CSDL uses numbers for facets and enum values).
        case number(String)
        case bool(Bool)
        case null
    }

    var kind: Kind
    var line: Int
    var column: Int

    var members: [(key: String, value: CSDLJSONValue)] {
        if case .object(let m) = kind { return m }
        return []
    }

    subscript(key: String) -> CSDLJSONValue? {
        guard case .object(let m) = kind else { return nil }
        return m.first { $0.key == key }?.value
    }

    var string: String? {
        if case .string(let s) = kind { return s }
        return nil
    }

    var bool: Bool? {
        if case .bool(let b) = kind { return b }
        return nil
    }

    var array: [CSDLJSONValue]? {
        if case .array(let a) = kind { return a }
        return nil
    }

    var isObject: Bool {
        if case .object = kind { return true }
        return false
    }

    /// Strings, numbers and booleans as attribute text (`"true"`, `"8"`, `"variable"`).
    var scalarText: String? {
        switch kind {
        case .string(let s): return s
        case .number(let n): return n
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }
}

/// A small strict JSON (RFC 8259) reader for CSDL JSON documents, which are small: it builds
/// the whole value tree. Nesting is limited to 256 levels like the XML layer. Errors are
/// `MetadataError.notWellFormed` with line and column.
struct CSDLJSONReader {
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    static let maxDepth = 256

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3; lineStart = 3 }
    }

    /// True when the first significant byte (after an optional BOM and whitespace) is `{`.
    static func looksLikeJSON(_ bytes: some Collection<UInt8>) -> Bool {
        var it = bytes.makeIterator()
        var first = true
        while let b = it.next() {
            if first, b == 0xEF { first = false; _ = it.next(); _ = it.next(); continue }  // UTF-8 BOM
            first = false
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return b == UInt8(ascii: "{")
            }
        }
        return false
    }

    mutating func parseDocument() throws(MetadataError) -> CSDLJSONValue {
        skipWhitespace()
        let v = try parseValue()
        skipWhitespace()
        guard i == bytes.count else { throw error("unexpected content after the JSON document") }
        return v
    }

    private func error(_ message: String) -> MetadataError {
        MetadataError(kind: .notWellFormed, message: "not well-formed JSON: " + message,
                      line: line, column: i - lineStart + 1)
    }

    private mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x0A:
                i += 1
                line += 1
                lineStart = i
            case 0x20, 0x09, 0x0D:
                i += 1
            default:
                return
            }
        }
    }

    private mutating func parseValue() throws(MetadataError) -> CSDLJSONValue {
        guard i < bytes.count else { throw error("unexpected end of input") }
        let (l, c) = (line, i - lineStart + 1)
        let kind: CSDLJSONValue.Kind
        switch bytes[i] {
        case UInt8(ascii: "{"): kind = try parseObject()
        case UInt8(ascii: "["): kind = try parseArray()
        case UInt8(ascii: "\""): kind = .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); kind = .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); kind = .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); kind = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): kind = .number(try parseNumber())
        default: throw error("unexpected character")
        }
        return CSDLJSONValue(kind: kind, line: l, column: c)
    }

    private mutating func enter() throws(MetadataError) {
        depth += 1
        if depth > Self.maxDepth { throw error("values are nested deeper than \(Self.maxDepth) levels") }
    }

    private mutating func parseObject() throws(MetadataError) -> CSDLJSONValue.Kind {
        try enter()
        defer { depth -= 1 }
        i += 1
        var members: [(key: String, value: CSDLJSONValue)] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
            i += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            throw error("expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws(MetadataError) -> CSDLJSONValue.Kind {
        try enter()
        defer { depth -= 1 }
        i += 1
        var items: [CSDLJSONValue] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            throw error("expected ',' or ']'")
        }
    }

    private mutating func expectLiteral(_ word: String) throws(MetadataError) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, bytes[i..<(i + w.count)].elementsEqual(w) else {
            throw error("unexpected character")
        }
        i += w.count
    }

    private mutating func parseNumber() throws(MetadataError) -> String {
        let start = i
        func digits() -> Int {
            let s = i
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            return i - s
        }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard digits() > 0 else { throw error("invalid number") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw error("invalid number") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw error("invalid number") }
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    private mutating func parseString() throws(MetadataError) -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw error("unterminated string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            if b < 0x20 { throw error("control character in a string") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                i += 1
                continue
            }
            i += 1
            guard i < bytes.count else { throw error("unterminated string") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar), i + 1 < bytes.count,
                   bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    let save = i
                    i += 2
                    let low = try hex4()
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        i = save
                    }
                }
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw error("invalid escape in a string")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func hex4() throws(MetadataError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("invalid \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }
}
