/// A value of an OData service, typed by the service's `$metadata`: what an entity's
/// property holds when you do not decode into a struct of your own.
///
/// Read a response with `try response.entities()` (or `store.read(ODataEntity.self, ...)`),
/// then `entity["Price"]?.decimal`. Without a model (or for an open property) the type
/// follows the JSON: strings stay strings, integral numbers are `.int`, others `.double`.
public enum ODataValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// Edm.Byte, SByte, Int16, Int32 and Int64.
    case int(Int64)
    case decimal(ODataDecimal)
    /// Edm.Double and Single.
    case double(Double)
    /// Edm.String and enum members.
    case string(String)
    case guid(ODataGuid)
    case binary([UInt8])
    case date(ODataDate)
    /// Edm.DateTimeOffset and V2's Edm.DateTime.
    case dateTimeOffset(ODataDateTimeOffset)
    /// Edm.TimeOfDay and V2's Edm.Time.
    case timeOfDay(ODataTimeOfDay)
    case duration(Duration)
    /// An entity (expanded navigation) or a complex value.
    case entity(ODataEntity)
    case collection([ODataValue])
    /// Anything else, as JSON (geography and geometry values, values that do not read as
    /// their declared type).
    case json(JSONValue)

    public var isNull: Bool { self == .null }
    public var bool: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var int: Int64? { if case .int(let v) = self { v } else { nil } }
    public var decimal: ODataDecimal? { if case .decimal(let v) = self { v } else { nil } }
    public var double: Double? {
        switch self {
        case .double(let v): v
        case .int(let v): Double(v)
        case .decimal(let v): v.doubleValue
        default: nil
        }
    }
    public var string: String? { if case .string(let v) = self { v } else { nil } }
    public var guid: ODataGuid? { if case .guid(let v) = self { v } else { nil } }
    public var binary: [UInt8]? { if case .binary(let v) = self { v } else { nil } }
    public var date: ODataDate? { if case .date(let v) = self { v } else { nil } }
    public var dateTimeOffset: ODataDateTimeOffset? { if case .dateTimeOffset(let v) = self { v } else { nil } }
    public var timeOfDay: ODataTimeOfDay? { if case .timeOfDay(let v) = self { v } else { nil } }
    public var duration: Duration? { if case .duration(let v) = self { v } else { nil } }
    public var entity: ODataEntity? { if case .entity(let v) = self { v } else { nil } }
    public var collection: [ODataValue]? { if case .collection(let v) = self { v } else { nil } }

    /// The value in the canonical JSON shape.
    public var canonicalJSON: JSONValue {
        switch self {
        case .null: .null
        case .bool(let v): .bool(v)
        case .int(let v): Int32(exactly: v) != nil ? .number(String(v)) : .string(String(v))
        case .decimal(let v): v.canonicalJSON
        case .double(let v): v.canonicalJSON
        case .string(let v): .string(v)
        case .guid(let v): v.canonicalJSON
        case .binary(let v): v.canonicalJSON
        case .date(let v): v.canonicalJSON
        case .dateTimeOffset(let v): v.canonicalJSON
        case .timeOfDay(let v): v.canonicalJSON
        case .duration(let v): v.canonicalJSON
        case .entity(let v): v.canonicalJSON
        case .collection(let v): .array(v.map(\.canonicalJSON))
        case .json(let v): v
        }
    }
}

extension ODataValue: CustomStringConvertible {
    /// The value as people read it: `"Chai"`, `18.00`, `2020-01-02`, `null`, `[1, 2]`.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let v): v ? "true" : "false"
        case .int(let v): String(v)
        case .decimal(let v): v.description
        case .double(let v): v.description
        case .string(let v): JSONValue.string(v).serialized()
        case .guid(let v): v.description
        case .binary(let v): "<\(v.count) bytes>"
        case .date(let v): v.description
        case .dateTimeOffset(let v): v.description
        case .timeOfDay(let v): v.description
        case .duration(let v): TemporalParsing.durationText(v)
        case .entity(let v): v.description
        case .collection(let v): "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .json(let v): v.serialized()
        }
    }
}

/// An entity or complex value: its properties in the order the service sent them, typed by
/// the model, and its control information (ETag, type, other annotations).
public struct ODataEntity: Sendable, Equatable {
    public struct Property: Sendable, Equatable {
        public var name: String
        public var value: ODataValue
        public init(name: String, value: ODataValue) {
            self.name = name
            self.value = value
        }
    }

    public var properties: [Property]
    /// `@odata.etag`, when the service gave one.
    public var etag: String?
    /// The qualified type name from the model (or the payload's `@odata.type`), when known.
    public var typeName: String?
    /// Other control information (`@odata.id`, `Name@odata.count`...), as received.
    public var annotations: JSONObject

    public init(properties: [Property] = [], etag: String? = nil, typeName: String? = nil, annotations: JSONObject = JSONObject()) {
        self.properties = properties
        self.etag = etag
        self.typeName = typeName
        self.annotations = annotations
    }

    /// The value of a property; nil when absent (a navigation property not expanded).
    /// Setting nil removes the property.
    public subscript(name: String) -> ODataValue? {
        get { properties.first { $0.name == name }?.value }
        set {
            if let i = properties.firstIndex(where: { $0.name == name }) {
                if let newValue { properties[i].value = newValue } else { properties.remove(at: i) }
            } else if let newValue {
                properties.append(Property(name: name, value: newValue))
            }
        }
    }

    public var propertyNames: [String] { properties.map(\.name) }

    /// The entity in the canonical JSON shape (a request body for create and update).
    public var canonicalJSON: JSONValue {
        var o = JSONObject()
        if let etag { o["@odata.etag"] = .string(etag) }
        for m in annotations where m.key != "@odata.etag" { o[m.key] = m.value }
        for p in properties { o[p.name] = p.value.canonicalJSON }
        return .object(o)
    }
}

extension ODataEntity: CustomStringConvertible {
    /// `{ID: 7, Name: "Product 007", Price: 260.59}`
    public var description: String {
        "{" + properties.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "}"
    }
}

// MARK: - Typing canonical JSON with the model

/// What the model says a value is.
indirect enum ValueType: Sendable {
    case primitive(EdmPrimitiveKind)
    case structured(String)
    case enumeration
    case collection(ValueType)
    case unknown

    init(_ ref: TypeReference, model: ServiceModel) {
        let element: ValueType
        let name = model.resolve(ref.name)
        if let k = EdmPrimitiveKind(qualifiedName: name) {
            element = .primitive(k)
        } else if model.structuredType(name) != nil {
            element = .structured(name)
        } else if model.enumType(name) != nil {
            element = .enumeration
        } else if let underlying = model.typeDefinitions[name], let k = EdmPrimitiveKind(qualifiedName: underlying) {
            element = .primitive(k)
        } else {
            element = .unknown
        }
        self = ref.isCollection ? .collection(element) : element
    }
}

enum ValueTyping {
    static func value(_ json: JSONValue, _ type: ValueType, model: ServiceModel?) -> ODataValue {
        if case .null = json { return .null }
        switch type {
        case .collection(let element):
            guard case .array(let items) = json else { return untyped(json, model: model) }
            return .collection(items.map { value($0, element, model: model) })
        case .structured(let name):
            guard case .object(let o) = json else { return untyped(json, model: model) }
            return .entity(entity(o, typeName: name, model: model))
        case .enumeration:
            if case .string(let s) = json { return .string(s) }
            return .json(json)
        case .primitive(let kind):
            return primitive(json, kind) ?? .json(json)
        case .unknown:
            return untyped(json, model: model)
        }
    }

    static func primitive(_ json: JSONValue, _ kind: EdmPrimitiveKind) -> ODataValue? {
        switch kind {
        case .boolean: Bool(canonicalJSON: json).map(ODataValue.bool)
        case .byte, .sbyte, .int16, .int32, .int64: Int64(canonicalJSON: json).map(ODataValue.int)
        case .decimal: ODataDecimal(canonicalJSON: json).map(ODataValue.decimal)
        case .double, .single: Double(canonicalJSON: json).map(ODataValue.double)
        case .string: String(canonicalJSON: json).map(ODataValue.string)
        case .guid: ODataGuid(canonicalJSON: json).map(ODataValue.guid)
        case .binary, .stream: [UInt8](canonicalJSON: json).map(ODataValue.binary)
        case .date: ODataDate(canonicalJSON: json).map(ODataValue.date)
        case .dateTime, .dateTimeOffset: ODataDateTimeOffset(canonicalJSON: json).map(ODataValue.dateTimeOffset)
        case .timeOfDay, .time:
            if case .string(let s) = json, let t = ODataTimeOfDay(s) { .timeOfDay(t) } else { Duration(canonicalJSON: json).map(ODataValue.duration) }
        case .duration: Duration(canonicalJSON: json).map(ODataValue.duration)
        case .geography, .geometry, .other: .json(json)
        }
    }

    static func untyped(_ json: JSONValue, model: ServiceModel?) -> ODataValue {
        switch json {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .number(let t):
            if let i = Int64(t) { return .int(i) }
            return Double(t).map(ODataValue.double) ?? .json(json)
        case .array(let items): return .collection(items.map { untyped($0, model: model) })
        case .object(let o): return .entity(entity(o, typeName: nil, model: model))
        }
    }

    static func entity(_ o: JSONObject, typeName declared: String?, model: ServiceModel?) -> ODataEntity {
        var result = ODataEntity()
        var typeName = declared
        if case .string(let t)? = o["@odata.type"] {
            let name = t.hasPrefix("#") ? String(t.dropFirst()) : t
            typeName = model?.resolve(name) ?? name
        }
        result.typeName = typeName
        let type = typeName.flatMap { model?.structuredType($0) }
        for member in o {
            if member.key.contains("@") {
                if member.key == "@odata.etag", case .string(let e) = member.value {
                    result.etag = e
                } else {
                    result.annotations[member.key] = member.value
                }
                continue
            }
            var valueType = ValueType.unknown
            if let model, let type {
                if let p = model.property(member.key, of: type) {
                    valueType = ValueType(p.type, model: model)
                } else if let n = model.navigationProperty(member.key, of: type) {
                    let target = ValueType.structured(model.resolve(n.targetType))
                    valueType = n.isCollection ? .collection(target) : target
                }
            }
            result.properties.append(.init(name: member.key, value: value(member.value, valueType, model: model)))
        }
        return result
    }
}

// MARK: - Codable (ODataDecoder/ODataEncoder type these with the model; other coders get JSON)

extension ODataValue: Codable {
    public init(from decoder: any Decoder) throws {
        self = ValueTyping.untyped(try JSONValueCoding.decode(decoder), model: nil)
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValueCoding.encode(canonicalJSON, to: encoder)
    }
}

extension ODataEntity: Codable {
    public init(from decoder: any Decoder) throws {
        guard case .object(let o) = try JSONValueCoding.decode(decoder) else {
            throw DecodingError.typeMismatch(ODataEntity.self, .init(codingPath: decoder.codingPath, debugDescription: "expected an object"))
        }
        self = ValueTyping.entity(o, typeName: nil, model: nil)
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValueCoding.encode(canonicalJSON, to: encoder)
    }
}

/// A JSON value through any `Decoder`/`Encoder` (for coders other than the library's own).
enum JSONValueCoding {
    static func decode(_ decoder: any Decoder) throws -> JSONValue {
        if let keyed = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var o = JSONObject()
            for k in keyed.allKeys {
                o[k.stringValue] = try decode(keyed.superDecoder(forKey: k))
            }
            return .object(o)
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !unkeyed.isAtEnd { items.append(try decode(unkeyed.superDecoder())) }
            return .array(items)
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { return .null }
        if let b = try? single.decode(Bool.self) { return .bool(b) }
        if let i = try? single.decode(Int64.self) { return .number(String(i)) }
        if let d = try? single.decode(Double.self) { return d.canonicalJSON }
        return .string(try single.decode(String.self))
    }

    static func encode(_ value: JSONValue, to encoder: any Encoder) throws {
        switch value {
        case .object(let o):
            var c = encoder.container(keyedBy: AnyCodingKey.self)
            for m in o { try encode(m.value, to: c.superEncoder(forKey: AnyCodingKey(m.key))) }
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try encode(item, to: c.superEncoder()) }
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .number(let n):
            var c = encoder.singleValueContainer()
            if let i = Int64(n) { try c.encode(i) } else { try c.encode(Double(n) ?? 0) }
        }
    }
}
