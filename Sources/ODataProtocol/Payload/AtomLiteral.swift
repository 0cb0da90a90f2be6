/// Atom (XML) literal text of an Edm primitive value to its canonical JSON form
/// (docs/json-shape.md): Int64/Decimal as strings, DateTime with `Z`, Time as TimeOfDay,
/// Binary as standard base64, Double special values as strings.
enum AtomLiteral {
    /// Writes the canonical JSON value of `text` (UTF-8, an element's character data) typed
    /// as `kind`. ASCII text is converted on the bytes; other text goes through `value(_:_:)`,
    /// whose `String` semantics (grapheme clusters when trimming) it then keeps exactly.
    static func write(_ text: UnsafeBufferPointer<UInt8>, _ kind: EdmPrimitiveKind, into out: inout AtomByteWriter) {
        guard AtomBytes.isASCII(text) else { return slow(text, kind, into: &out) }
        switch kind {
        case .int16, .int32, .byte, .sbyte:
            let t = AtomBytes.trimmed(text)
            if AtomBytes.isJSONNumber(t, integer: true) { out.append(t) } else { out.appendString(text) }
        case .int64, .decimal:
            out.appendString(AtomBytes.trimmed(text))
        case .double, .single:
            let t = AtomBytes.trimmed(text)
            // A JSON number is its own canonical form (EdmLiteral.floatLiteral leaves it as it is).
            if AtomBytes.isJSONNumber(t, integer: false) { out.append(t) } else { slow(text, kind, into: &out) }
        case .boolean:
            let t = AtomBytes.trimmed(text)
            if AtomBytes.equal(t, "true") || AtomBytes.equal(t, "1") { out.append("true") }
            else if AtomBytes.equal(t, "false") || AtomBytes.equal(t, "0") { out.append("false") }
            else { out.appendString(text) }
        case .dateTime:
            // EdmLiteral.epochMillis(fromISO:) accepts it without an offset: V2's UTC wall time.
            out.appendString(text)
            if isLocalISODateTime(text) {
                out.truncate(to: out.count - 1)
                out.append("Z\"")
            }
        case .time, .binary:
            slow(text, kind, into: &out)
        default:
            out.appendString(text)
        }
    }

    /// Through `value(_:_:)`.
    static func slow(_ text: UnsafeBufferPointer<UInt8>, _ kind: EdmPrimitiveKind, into out: inout AtomByteWriter) {
        var json: [UInt8] = []
        value(String(decoding: text, as: UTF8.self), kind).write(into: &json)
        out.append(json)
    }

    /// True when `EdmLiteral.epochMillis(fromISO:)` reads `b` (ASCII) as a date and time with no
    /// offset: `[-]yyyy-mm-ddThh:mm[:ss[.f...]]`, fields in range. The same grammar, on the bytes.
    static func isLocalISODateTime(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        var i = 0
        func num(_ k: Int) -> Int? {
            guard i + k <= n else { return nil }
            var v = 0
            for j in 0..<k {
                let d = Int(b[i + j]) - 48
                guard d >= 0 && d < 10 else { return nil }
                v = v * 10 + d
            }
            i += k
            return v
        }
        func lit(_ c: UInt8) -> Bool {
            guard i < n, b[i] == c else { return false }
            i += 1
            return true
        }
        _ = lit(UInt8(ascii: "-"))
        // The year: at least four digits that fit an Int.
        let yStart = i
        var year = 0, overflow = false
        while i < n, b[i] &- 48 < 10 {
            let (m, o1) = year.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(b[i] &- 48))
            overflow = overflow || o1 || o2
            year = a
            i += 1
        }
        guard i - yStart >= 4, !overflow else { return false }
        guard lit(UInt8(ascii: "-")), let mo = num(2), lit(UInt8(ascii: "-")), let d = num(2),
              lit(UInt8(ascii: "T")) || lit(UInt8(ascii: "t")), let h = num(2), lit(UInt8(ascii: ":")), let mi = num(2)
        else { return false }
        var sec = 0
        if lit(UInt8(ascii: ":")) {
            guard let sv = num(2) else { return false }
            sec = sv
            if lit(UInt8(ascii: ".")) {
                let fStart = i
                while i < n, b[i] &- 48 < 10 { i += 1 }
                guard i > fStart else { return false }
            }
        }
        guard (1...12).contains(mo), (1...31).contains(d), h <= 24, mi < 60, sec < 61 else { return false }
        return i == n  // a Z or an offset would be left over
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

    /// Writes `resolve(href, against: base)` as a JSON string; ASCII values are resolved on the
    /// bytes (where byte and `String` semantics agree), others through `resolve`.
    static func writeResolved(_ href: UnsafeBufferPointer<UInt8>, against base: String, into out: inout AtomByteWriter) {
        var base = base
        let done: Bool = base.withUTF8 { b in
            guard AtomBytes.isASCII(b), AtomBytes.isASCII(href) else { return false }
            out.append(UInt8(ascii: "\""))
            defer { out.append(UInt8(ascii: "\"")) }
            if b.isEmpty || AtomBytes.contains(href, "://") {
                out.appendEscaped(href)
                return true
            }
            if href.first == UInt8(ascii: "/") {
                // Absolute path: keep the scheme and authority of the base.
                if let scheme = AtomBytes.firstIndex(of: "://", in: b),
                   let slash = b[(scheme + 3)...].firstIndex(of: UInt8(ascii: "/")) {
                    out.appendEscaped(UnsafeBufferPointer(rebasing: b[..<slash]))
                }
                out.appendEscaped(href)
                return true
            }
            if let slash = b.lastIndex(of: UInt8(ascii: "/")) {
                out.appendEscaped(UnsafeBufferPointer(rebasing: b[...slash]))
            }
            out.appendEscaped(href)
            return true
        }
        if !done { out.appendString(resolve(String(decoding: href, as: UTF8.self), against: base)) }
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
