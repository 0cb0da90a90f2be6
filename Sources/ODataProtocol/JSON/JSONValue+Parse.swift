/// Options for `JSONValue.parse`.
public struct JSONParseOptions: Sendable {
    /// What to do when an object repeats a member name (RFC 8259 says names SHOULD be unique).
    public enum DuplicateKeys: Sendable { case reject, keepLast }

    /// Maximum nesting of arrays and objects; deeper input is an error rather than a stack overflow.
    public var maxDepth: Int
    public var duplicateKeys: DuplicateKeys

    public init(maxDepth: Int = 512, duplicateKeys: DuplicateKeys = .reject) {
        self.maxDepth = maxDepth
        self.duplicateKeys = duplicateKeys
    }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259, strict; a leading UTF-8 BOM is skipped).
    ///
    /// Rejected with a `JSONError` carrying the byte offset: trailing commas, comments, single
    /// quotes, leading zeros and other non-grammar numbers, unknown escapes, lone surrogates
    /// (escaped `\uD800` without a low half, or an unpaired low half), invalid UTF-8, control
    /// characters in strings, trailing non-whitespace, nesting deeper than `options.maxDepth`,
    /// and (by default) duplicate member names.
    public static func parse(_ bytes: some Collection<UInt8>, options: JSONParseOptions = .init()) throws(JSONError) -> JSONValue {
        try JSONScanner.with(bytes, maxDepth: options.maxDepth) { (s: inout JSONScanner) throws(JSONError) -> JSONValue in
            let v = try s.parseValue(options.duplicateKeys)
            try s.finish()
            return v
        }
    }

    /// Parses one JSON text from raw memory (borrowed for the duration of the call).
    public static func parse(_ buffer: UnsafeRawBufferPointer, options: JSONParseOptions = .init()) throws(JSONError) -> JSONValue {
        try parse(UnsafeBufferPointer(start: buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), count: buffer.count),
                  options: options)
    }

    /// Parses one JSON text from a string.
    public static func parse(_ string: String, options: JSONParseOptions = .init()) throws(JSONError) -> JSONValue {
        try parse(Array(string.utf8), options: options)
    }
}

extension JSONScanner {
    mutating func parseValue(_ duplicates: JSONParseOptions.DuplicateKeys) throws(JSONError) -> JSONValue {
        let b = try peek()
        switch b {
        case UInt8(ascii: "\""): return .string(string(try scanString()))
        case UInt8(ascii: "{"):
            var o = JSONObject()
            if try beginObject() {
                repeat {
                    let at = pos
                    let key = string(try readKey())
                    let v = try parseValue(duplicates)
                    if o.position(of: key) != nil {
                        if duplicates == .reject { throw fail("duplicate member name \"\(key)\"", at: at) }
                        o[key] = v
                    } else {
                        o.append(key: key, value: v)
                    }
                } while try nextMember()
            }
            return .object(o)
        case UInt8(ascii: "["):
            var a = [JSONValue]()
            if try beginArray() {
                repeat { a.append(try parseValue(duplicates)) } while try nextElement()
            }
            return .array(a)
        case UInt8(ascii: "-"), 0x30...0x39: return .number(text(try scanNumber()))
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): return try scanLiteral()
        default: throw fail("unexpected \(Self.describe(b))")
        }
    }
}
