/// A primitive literal as written in a URL (key predicates, function parameters, `$filter`),
/// in one shape for V2 and V4.
///
/// Numbers and date/time values keep their text so that Int64 and Decimal values never pass
/// through a Double. Where both versions have a literal for the same type but spell it
/// differently (`guid'…'` vs. a bare GUID, `12L` vs. `12`, `X'0A'` vs. `binary'Cg=='`), the
/// literal has one case and the printer picks the spelling for the target version.
public enum Literal: Hashable, Sendable {
    case null
    case boolean(Bool)
    case string(String)
    /// An integer without suffix, optionally signed: Edm.Int32 when it fits, else Edm.Int64
    /// (beyond Int64: Edm.Decimal).
    case integer(String)
    /// V2 `12L`: Edm.Int64.
    case int64(String)
    /// A number with a fraction or an exponent and no suffix (`1.5`, `2e10`): Edm.Decimal
    /// without exponent, Edm.Double with one.
    case fractional(String)
    /// V2 `1.5M`: Edm.Decimal.
    case decimal(String)
    /// V2 `1.5d`, and the special values `NaN`, `INF`, `-INF`: Edm.Double.
    case double(String)
    /// V2 `1.5f`: Edm.Single.
    case single(String)
    /// A GUID, as written (V2 `guid'…'`, V4 bare).
    case guid(String)
    /// V2 `datetime'2013-09-16T00:00'`: Edm.DateTime (the text between the quotes).
    case dateTime(String)
    /// V2 `datetimeoffset'…'`, V4 bare `2012-12-03T07:16:23Z`: Edm.DateTimeOffset.
    case dateTimeOffset(String)
    /// V2 `time'PT13H20M'`: Edm.Time (an xsd:duration).
    case time(String)
    /// V4 `2024-01-02`: Edm.Date.
    case date(String)
    /// V4 `13:20:00`: Edm.TimeOfDay.
    case timeOfDay(String)
    /// V4 `duration'P1DT2H'`: Edm.Duration.
    case duration(String)
    /// V2 `X'0A1B'`/`binary'0A1B'` (hex), V4 `binary'Chs='` (base64url): the decoded bytes.
    case binary([UInt8])
    /// V4 `Namespace.Color'Red'` (member names, comma-separated flags, or an integer value).
    case enumMember(type: String, value: String)
    /// V4 `geography'SRID=4326;Point(142.1 64.1)'`: the text between the quotes (checked
    /// against the ABNF's well-known-text rules, kept as written).
    case geography(String)
    /// V4 `geometry'SRID=0;Polygon((1 1,1 2,2 2,1 1))'`, as `geography`.
    case geometry(String)

    /// The Edm type a literal has on its own (before any promotion); nil for `null`.
    public var edmKind: EdmPrimitiveKind? {
        switch self {
        case .null, .enumMember: return nil
        case .boolean: return .boolean
        case .string: return .string
        case .integer(let t):
            if let v = Int64(t), v >= Int64(Int32.min), v <= Int64(Int32.max) { return .int32 }
            if Int64(t) != nil { return .int64 }
            return .decimal
        case .int64: return .int64
        case .fractional(let t): return t.contains("e") || t.contains("E") ? .double : .decimal
        case .decimal: return .decimal
        case .double: return .double
        case .single: return .single
        case .guid: return .guid
        case .dateTime: return .dateTime
        case .dateTimeOffset: return .dateTimeOffset
        case .time: return .time
        case .date: return .date
        case .timeOfDay: return .timeOfDay
        case .duration: return .duration
        case .binary: return .binary
        case .geography: return .geography
        case .geometry: return .geometry
        }
    }

    /// Short name of the literal's kind, used in JSON output and messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .boolean: return "boolean"
        case .string: return "string"
        case .integer: return "integer"
        case .int64: return "int64"
        case .fractional: return "fractional"
        case .decimal: return "decimal"
        case .double: return "double"
        case .single: return "single"
        case .guid: return "guid"
        case .dateTime: return "datetime"
        case .dateTimeOffset: return "datetimeoffset"
        case .time: return "time"
        case .date: return "date"
        case .timeOfDay: return "timeofday"
        case .duration: return "duration"
        case .binary: return "binary"
        case .enumMember: return "enum"
        case .geography: return "geography"
        case .geometry: return "geometry"
        }
    }

    /// `a string`, `an integer`: the kind name with its article, for messages.
    public var withArticle: String {
        let n = kindName
        return (n.first.map { "aeio".contains($0) } ?? false ? "an " : "a ") + n
    }
}
