import ODataProtocol

/// How a property's values are stored in SQLite, chosen so that SQL comparisons and sorting
/// follow OData's rules (see `SQLFunctions` for the collations).
enum ColumnKind: String, Sendable, Hashable {
    /// Byte, SByte, Int16, Int32, Int64: INTEGER (exact to 64 bits).
    case integer
    /// Boolean: INTEGER 0/1.
    case boolean
    /// Single, Double: REAL; `NaN` is kept as the TEXT 'NaN' (SQLite turns a NaN REAL into NULL).
    case real
    /// String, Guid, Date, TimeOfDay, Binary (base64), enumeration members: TEXT compared
    /// byte by byte (UTF-8 order is code point order), case-sensitive.
    case text
    /// Decimal: TEXT with the exact digits, `COLLATE ODS_DECIMAL` (compared as numbers).
    case decimal
    /// DateTimeOffset and V2 DateTime: ISO 8601 TEXT as the service sent it,
    /// `COLLATE ODS_INSTANT` (compared as instants, across offsets).
    case instant
    /// Duration: TEXT (`P1DT2H`), `COLLATE ODS_DURATION` (compared by length of time).
    case duration
    /// Collections, geography/geometry values and complex values that are not flattened:
    /// their canonical JSON text.
    case json
    /// The column of a flattened complex property itself: 1 when the value is an object,
    /// NULL when it is null. Its members have columns of their own (`Address/City`).
    case presence

    /// The SQL column type and collation (TEXT affinity for every text kind, so SQLite never
    /// converts "1.50" into a REAL).
    var sqlType: String {
        switch self {
        case .integer, .boolean, .presence: "INTEGER"
        case .real: "REAL"
        case .text, .json: "TEXT"
        case .decimal: "TEXT COLLATE ODS_DECIMAL"
        case .instant: "TEXT COLLATE ODS_INSTANT"
        case .duration: "TEXT COLLATE ODS_DURATION"
        }
    }

    /// The collation SQL comparisons of this kind need, when not SQLite's BINARY.
    var collation: String? {
        switch self {
        case .decimal: "ODS_DECIMAL"
        case .instant: "ODS_INSTANT"
        case .duration: "ODS_DURATION"
        default: nil
        }
    }

    /// The kind for a primitive type (V2 `Edm.Time` is stored as the V4 TimeOfDay text the
    /// canonical shape gives it).
    static func forPrimitive(_ kind: EdmPrimitiveKind) -> ColumnKind {
        switch kind {
        case .byte, .sbyte, .int16, .int32, .int64: .integer
        case .boolean: .boolean
        case .single, .double: .real
        case .decimal: .decimal
        case .dateTimeOffset, .dateTime: .instant
        case .duration: .duration
        case .string, .guid, .date, .timeOfDay, .time, .binary: .text
        case .geography, .geometry, .stream, .other: .json
        }
    }
}

/// One column of an entity table: a structural property, or a member of a flattened
/// complex property (`path` = ["Address", "City"], SQL name `Address/City`).
struct Column: Sendable, Hashable {
    /// The quoted-identifier name in SQL (unquoted here; see `SQLName.quote`).
    let sqlName: String
    /// The property path from the entity: one name, or several through complex properties.
    let path: [String]
    let kind: ColumnKind
    /// The primitive kind, nil for enumerations, complex values and JSON columns of
    /// structured values.
    let edm: EdmPrimitiveKind?
    /// The property's (element) type, qualified (`Edm.Int32`, `NS.Color`, `NS.Address`).
    let typeName: String
    let isCollection: Bool
    let nullable: Bool
    /// Part of the entity key.
    let isKey: Bool
    /// The entity type that declares the (top-level) property: the set's type or one of its
    /// base types, or a derived type for properties only derived entities have. Members of a
    /// flattened complex property share their property's declaring type.
    let declaringType: String
    /// The facets its property states (MaxLength, Precision, Scale), which local writes
    /// are checked against (`PrimitiveValueCheck`).
    var facets = PrimitiveValueCheck.Facets()

    /// The SQL column type and collation: the kind's, except that GUIDs compare without
    /// ASCII case (`NOCASE`: hex digits) and times of day as times (`ODS_TIMEOFDAY`), so the
    /// indexes on such columns serve the comparisons `FilterSQL` writes.
    var sqlType: String {
        guard kind == .text, !isCollection else { return kind.sqlType }
        switch edm {
        case .guid?: return "TEXT COLLATE NOCASE"
        case .timeOfDay?, .time?: return "TEXT COLLATE ODS_TIMEOFDAY"
        default: return kind.sqlType
        }
    }

    /// `Address/City`: the path as OData writes it.
    var pathText: String { path.joined(separator: "/") }

    var quoted: String { SQLName.quote(sqlName) }
}
