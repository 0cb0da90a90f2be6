/// Atom (XML) literal text of an Edm primitive value to its canonical JSON form
/// (docs/json-shape.md): Int64/Decimal as strings, DateTime with `Z`, Time as TimeOfDay,
/// Binary as standard base64, Double special values as strings.
enum AtomLiteral {
    /// Writes the canonical JSON value of `text` (UTF-8, an element's character data) typed
    /// as `kind`. ASCII text is converted on the bytes; other text goes through `value(_:_:)`,
    /// whose `String` semantics (grapheme clusters when trimming) it then keeps exactly.
    static func write(_ text: UnsafeBufferPointer<UInt8>, _ kind: EdmPrimitiveKind, into out: inout [UInt8]) {
        guard AtomBytes.isASCII(text) else {
            return value(String(decoding: text, as: UTF8.self), kind).write(into: &out)
        }
        switch kind {
        case .int16, .int32, .byte, .sbyte:
            let t = AtomBytes.trimmed(text)
            if AtomBytes.isJSONNumber(t, integer: true) { out.append(contentsOf: t) } else { string(text, into: &out) }
        case .int64, .decimal:
            string(AtomBytes.trimmed(text), into: &out)
        case .double, .single:
            let t = AtomBytes.trimmed(text)
            // A JSON number is its own canonical form (EdmLiteral.floatLiteral leaves it as it is).
            if AtomBytes.isJSONNumber(t, integer: false) { out.append(contentsOf: t) }
            else { value(String(decoding: text, as: UTF8.self), kind).write(into: &out) }
        case .boolean:
            let t = AtomBytes.trimmed(text)
            if AtomBytes.equal(t, "true") || AtomBytes.equal(t, "1") { out.append(contentsOf: "true".utf8) }
            else if AtomBytes.equal(t, "false") || AtomBytes.equal(t, "0") { out.append(contentsOf: "false".utf8) }
            else { string(text, into: &out) }
        case .dateTime, .time, .binary:
            value(String(decoding: text, as: UTF8.self), kind).write(into: &out)
        default:
            string(text, into: &out)
        }
    }

    /// `"text"`, escaped.
    @inline(__always)
    static func string(_ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        JSONWriter.writeEscaped(text, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// XML literal text to the canonical JSON form of `kind` (the reference conversion).
    static func value(_ text: String, _ kind: EdmPrimitiveKind) -> JSONValue {
        switch kind {
        case .int16, .int32, .byte, .sbyte:
            let t = MultipartReader.trim(text)
            return EdmLiteral.isJSONInteger(Array(t.utf8)) ? .number(t) : .string(text)
        case .int64, .decimal:
            return .string(MultipartReader.trim(text))
        case .double, .single:
            switch EdmLiteral.floatLiteral(MultipartReader.trim(text)) {
            case .number(let n)?: return .number(n)
            case .special(let s)?: return .string(s)
            case nil: return .string(text)
            }
        case .boolean:
            switch MultipartReader.trim(text) {
            case "true", "1": return .bool(true)
            case "false", "0": return .bool(false)
            default: return .string(text)
            }
        case .dateTime:
            if let (_, offset) = EdmLiteral.epochMillis(fromISO: text), offset == nil { return .string(text + "Z") }
            return .string(text)
        case .time:
            return .string(EdmLiteral.timeOfDay(fromDuration: text) ?? text)
        case .binary:
            return .string(EdmLiteral.standardBase64(text) ?? text)
        default:
            return .string(text)
        }
    }

    /// `href` resolved against `base` (absolute URLs and absent bases leave it unchanged).
    static func resolve(_ href: String, against base: String) -> String {
        if base.isEmpty || href.contains("://") { return href }
        if href.hasPrefix("/") {
            // Absolute path: keep the scheme and authority of the base.
            if let schemeEnd = base.firstRange(of: "://"),
               let slash = base[schemeEnd.upperBound...].firstIndex(of: "/") {
                return String(base[..<slash]) + href
            }
            return href
        }
        if base.hasSuffix("/") { return base + href }
        if let slash = base.lastIndex(of: "/") { return String(base[...slash]) + href }
        return href
    }
}
