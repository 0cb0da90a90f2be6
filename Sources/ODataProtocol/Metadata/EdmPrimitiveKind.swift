/// The Edm primitive types of both protocol versions.
///
/// V2-only types (`dateTime`, `time`) and V4-only types (`date`, `timeOfDay`, `duration`,
/// `stream`) share one enum so codecs can convert between the two worlds.
public enum EdmPrimitiveKind: String, Sendable, Hashable, CaseIterable {
    case binary = "Edm.Binary"
    case boolean = "Edm.Boolean"
    case byte = "Edm.Byte"
    case sbyte = "Edm.SByte"
    case int16 = "Edm.Int16"
    case int32 = "Edm.Int32"
    case int64 = "Edm.Int64"
    case single = "Edm.Single"
    case double = "Edm.Double"
    case decimal = "Edm.Decimal"
    case string = "Edm.String"
    case guid = "Edm.Guid"
    /// V2 `Edm.DateTime` (no offset; `/Date(ms)/` in V2 JSON).
    case dateTime = "Edm.DateTime"
    case dateTimeOffset = "Edm.DateTimeOffset"
    /// V2 `Edm.Time` (an xsd:duration such as `PT13H20M`).
    case time = "Edm.Time"
    case date = "Edm.Date"
    case timeOfDay = "Edm.TimeOfDay"
    case duration = "Edm.Duration"
    case stream = "Edm.Stream"
    case geography = "Edm.Geography"
    case geometry = "Edm.Geometry"
    /// Any other `Edm.*` name (geo subtypes, `Edm.PrimitiveType`, ...): carried as JSON as-is.
    case other = "Edm.Other"

    /// The kind for a qualified name such as `Edm.Int32`; geo subtypes map to `.geography`/`.geometry`.
    public init?(qualifiedName name: String) {
        if let k = EdmPrimitiveKind(rawValue: name), k != .other { self = k; return }
        if name.hasPrefix("Edm.Geography") { self = .geography; return }
        if name.hasPrefix("Edm.Geometry") { self = .geometry; return }
        if name.hasPrefix("Edm.") { self = .other; return }
        return nil
    }

    /// True where V4 JSON with `IEEE754Compatible=true` (our canonical shape) writes the value as a string.
    public var isIEEE754String: Bool { self == .int64 || self == .decimal }
}
