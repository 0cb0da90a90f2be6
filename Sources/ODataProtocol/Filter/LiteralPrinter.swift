/// Writes literals in the spelling of one protocol version (nil: the spelling that is valid in
/// both where one exists, else the only one there is).
public enum LiteralPrinter {
    public static func print(_ literal: Literal, version: ODataVersion?) -> String {
        switch literal {
        case .null: return "null"
        case .boolean(let b): return b ? "true" : "false"
        case .string(let s): return quoted(s)
        case .integer(let t), .fractional(let t): return t
        case .int64(let t): return version == .v4 ? t : t + "L"
        case .decimal(let t): return version == .v4 ? t : t + "M"
        case .double(let t):
            if t == "NaN" || t == "INF" || t == "-INF" { return t }
            return version == .v4 ? t : t + "d"
        case .single(let t): return version == .v4 ? t : t + "f"
        case .guid(let g): return version == .v2 ? "guid" + quoted(g) : g
        case .dateTime(let t): return "datetime" + quoted(t)
        case .dateTimeOffset(let t): return version == .v2 ? "datetimeoffset" + quoted(t) : t
        case .time(let t): return "time" + quoted(t)
        case .date(let t), .timeOfDay(let t): return t
        case .duration(let t): return "duration" + quoted(t)
        case .binary(let b):
            switch version {
            case .v2: return "binary'" + BinaryLiteral.hex(b) + "'"
            case .v4: return "binary'" + Base64.encode(b, urlSafe: true, padded: false) + "'"
            case nil: return "X'" + BinaryLiteral.hex(b) + "'"
            }
        case .enumMember(let type, let value): return type + quoted(value)
        case .geography(let t): return "geography" + quoted(t)
        case .geometry(let t): return "geometry" + quoted(t)
        }
    }

    /// `'…'` with embedded quotes doubled.
    public static func quoted(_ s: String) -> String {
        var out = "'"
        for ch in s {
            if ch == "'" { out += "''" } else { out.append(ch) }
        }
        return out + "'"
    }
}
