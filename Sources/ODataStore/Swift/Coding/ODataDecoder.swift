/// Decodes `Decodable` values from the canonical JSON shape (docs/json-shape.md): the JSON of
/// every `Response`, whatever the service's OData version. No Foundation: this is the
/// standard library's `Decoder` protocol implemented over the protocol layer's `JSONValue`.
///
/// - A collection (`{"value": [...], "@odata.count": ...}`) decodes as an array: `[Product].self`.
///   A value result (`{"value": 42}`) decodes as the value: `Int64.self`. An entity decodes as
///   your struct; control information is there under its name (`case etag = "@odata.etag"`).
/// - Types that conform to `ODataPrimitive` are read from their exact text: `Int64` and
///   `ODataDecimal` from strings (never through a Double), `ODataDate`, `ODataDateTimeOffset`,
///   `ODataTimeOfDay`, `ODataGuid`, `Duration`, `[UInt8]` (base64). Numbers also read from
///   strings (`Double` from a Decimal, `INF`, `NaN`).
/// - `ODataValue` and `ODataEntity` are typed by `model` (with `resultType`, the type of the
///   document's entities): `store.read(...)` passes both.
///
/// Failures are `ODataStoreError` with code `.type` and the coding path in the message.
public struct ODataDecoder: Sendable {
    /// The service's schema, to type `ODataValue`/`ODataEntity`; optional.
    public var model: ServiceModel?

    public init(model: ServiceModel? = nil) {
        self.model = model
    }

    /// Decodes from canonical JSON text.
    public func decode<T: Decodable>(_ type: T.Type, from json: String) throws(ODataStoreError) -> T {
        try decode(type, from: try Self.parse(json), resultType: .unknown)
    }

    /// Decodes from canonical JSON bytes (UTF-8).
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(ODataStoreError) -> T {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw ODataStoreError(.invalidArgument, "not JSON: \(error)")
        }
        return try decode(type, from: value, resultType: .unknown)
    }

    /// Decodes from a parsed value.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(ODataStoreError) -> T {
        try decode(type, from: value, resultType: .unknown)
    }

    static func parse(_ json: String) throws(ODataStoreError) -> JSONValue {
        if json.isEmpty { return .null }  // a 204 answer
        do {
            return try JSONValue.parse(json)
        } catch {
            throw ODataStoreError(.invalidArgument, "not JSON: \(error)")
        }
    }

    func decode<T: Decodable>(_ type: T.Type, from root: JSONValue, resultType: ValueType) throws(ODataStoreError) -> T {
        let context = DecodingContext(model: model)
        do {
            return try context.unbox(root, as: T.self, path: [], type: resultType, topLevel: true)
        } catch let error as DecodingError {
            throw ODataStoreError(.type, Self.describe(error))
        } catch let error as ODataStoreError {
            throw error
        } catch {
            throw ODataStoreError(.type, "\(error)")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ p: [any CodingKey]) -> String {
            var out = ""
            for k in p {
                if let i = k.intValue { out += "[\(i)]" } else { out += (out.isEmpty ? "" : ".") + k.stringValue }
            }
            return out.isEmpty ? "the document" : out
        }
        switch error {
        case .typeMismatch(let t, let c): return "\(path(c.codingPath)): cannot decode \(t): \(c.debugDescription)"
        case .valueNotFound(let t, let c): return "\(path(c.codingPath)): cannot decode \(t): \(c.debugDescription)"
        case .keyNotFound(let k, let c): return "\(path(c.codingPath + [k])): no such member (\(c.debugDescription))"
        case .dataCorrupted(let c): return "\(path(c.codingPath)): \(c.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// A coding key for array positions and names found at run time.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
    init(_ s: String) { self.stringValue = s }
}

struct DecodingContext {
    let model: ServiceModel?

    /// True for a canonical wrapper: an object whose only member apart from annotations is
    /// "value" (a collection, a value result).
    static func wrapped(_ value: JSONValue) -> JSONValue? {
        guard case .object(let o) = value, let inner = o["value"] else { return nil }
        for m in o where m.key != "value" && !m.key.hasPrefix("@") { return nil }
        return inner
    }

    static func kindName(_ v: JSONValue) -> String {
        switch v {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let n): "the number \(n)"
        case .string(let s): "the string \(JSONValue.string(String(s.prefix(40))).serialized())"
        case .array: "an array"
        case .object: "an object"
        }
    }

    func unbox<T: Decodable>(_ value: JSONValue, as type: T.Type, path: [any CodingKey], type vt: ValueType,
                             topLevel: Bool = false) throws -> T {
        if T.self == ODataValue.self {
            if topLevel, let inner = Self.wrapped(value) {
                // A collection or a value result: the value.
                return ValueTyping.value(inner, vt, model: model) as! T
            }
            var t = vt
            if topLevel, case .collection(let e) = vt { t = e }
            return ValueTyping.value(value, t, model: model) as! T
        }
        if T.self == ODataEntity.self {
            var t = vt
            if case .collection(let e) = vt, topLevel { t = e }
            var v = value
            if topLevel, let inner = Self.wrapped(value), case .object = inner { v = inner }
            guard case .object(let o) = v else {
                throw DecodingError.typeMismatch(T.self, .init(codingPath: path, debugDescription: "expected an entity, found \(Self.kindName(v))"))
            }
            var typeName: String? = nil
            if case .structured(let name) = t { typeName = name }
            return ValueTyping.entity(o, typeName: typeName, model: model) as! T
        }
        if let primitive = T.self as? any ODataPrimitive.Type {
            var v = value
            if topLevel, let inner = Self.wrapped(value) { v = inner }
            switch v {
            case .string, .number, .bool:
                guard let result = primitive.init(canonicalJSON: v) else {
                    throw DecodingError.typeMismatch(T.self, .init(codingPath: path, debugDescription: "\(Self.kindName(v)) is not a value of \(T.self)"))
                }
                return result as! T
            case .null:
                throw DecodingError.valueNotFound(T.self, .init(codingPath: path, debugDescription: "found null"))
            default:
                break  // [UInt8] as a JSON array of numbers: its own Decodable below
            }
        }
        return try T(from: ValueDecoder(value: value, path: path, context: self, type: vt, topLevel: topLevel))
    }
}

final class ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let context: DecodingContext
    let type: ValueType
    let topLevel: Bool
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: JSONValue, path: [any CodingKey], context: DecodingContext, type: ValueType, topLevel: Bool) {
        self.value = value
        self.codingPath = path
        self.context = context
        self.type = type
        self.topLevel = topLevel
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        var v = value
        var t = self.type
        if topLevel, let inner = DecodingContext.wrapped(value) {
            switch inner {
            case .object:
                v = inner  // a complex value result
            case .array:
                throw DecodingError.typeMismatch([String: String].self, .init(
                    codingPath: codingPath, debugDescription: "the document is a collection: decode an array ([\(Key.self)...])"))
            default:
                break
            }
        }
        if case .collection(let e) = t, topLevel { t = e }
        guard case .object(let o) = v else {
            throw DecodingError.typeMismatch([String: String].self, .init(codingPath: codingPath, debugDescription: "expected an object, found \(DecodingContext.kindName(v))"))
        }
        return KeyedDecodingContainer(KeyedValues<Key>(object: o, decoder: self, type: t))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        var v = value
        if topLevel, let inner = DecodingContext.wrapped(value) { v = inner }
        guard case .array(let items) = v else {
            throw DecodingError.typeMismatch([String].self, .init(codingPath: codingPath, debugDescription: "expected an array, found \(DecodingContext.kindName(v))"))
        }
        var element = ValueType.unknown
        if case .collection(let e) = type { element = e }
        return UnkeyedValues(items: items, decoder: self, element: element)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        var v = value
        if topLevel, let inner = DecodingContext.wrapped(value) { v = inner }
        return SingleValue(value: v, decoder: self)
    }
}

/// Scalars shared by the three container kinds.
enum Scalars {
    static func mismatch<T>(_ t: T.Type, _ v: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        if case .null = v {
            return .valueNotFound(T.self, .init(codingPath: path, debugDescription: "found null"))
        }
        return .typeMismatch(T.self, .init(codingPath: path, debugDescription: "found \(DecodingContext.kindName(v))"))
    }

    static func bool(_ v: JSONValue, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let b) = v else { throw mismatch(Bool.self, v, path) }
        return b
    }

    static func string(_ v: JSONValue, _ path: [any CodingKey]) throws -> String {
        guard case .string(let s) = v else { throw mismatch(String.self, v, path) }
        return s
    }

    static func integer<I: FixedWidthInteger>(_ t: I.Type, _ v: JSONValue, _ path: [any CodingKey]) throws -> I {
        switch v {
        case .number(let n), .string(let n):
            if let i = I(n) { return i }
            // 1.0, 1e3: integral numbers written with a fraction or exponent
            if case .number = v, let d = Double(n), d.rounded() == d, let i = I(exactly: d) { return i }
            throw DecodingError.typeMismatch(I.self, .init(codingPath: path, debugDescription: "\(DecodingContext.kindName(v)) does not fit \(I.self)"))
        default:
            throw mismatch(I.self, v, path)
        }
    }

    static func double(_ v: JSONValue, _ path: [any CodingKey]) throws -> Double {
        if case .number = v, let d = v.doubleValue { return d }
        if case .string = v, let d = v.doubleValue { return d }
        throw mismatch(Double.self, v, path)
    }
}

struct KeyedValues<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let decoder: ValueDecoder
    let type: ValueType
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let v = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\""))
        }
        return v
    }

    /// The model's type of a member of this structured value.
    private func memberType(_ key: Key) -> ValueType {
        guard case .structured(let name) = type, let model = decoder.context.model, let t = model.structuredType(name) else { return .unknown }
        if let p = model.property(key.stringValue, of: t) { return ValueType(p.type, model: model) }
        if let n = model.navigationProperty(key.stringValue, of: t) {
            let target = ValueType.structured(model.resolve(n.targetType))
            return n.isCollection ? .collection(target) : target
        }
        return .unknown
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let v = object[key.stringValue] else { return true }
        return v.isNull
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Scalars.bool(value(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try Scalars.string(value(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Scalars.double(value(key), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try Scalars.double(value(key), codingPath + [key])) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Scalars.integer(Int.self, value(key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Scalars.integer(Int8.self, value(key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try Scalars.integer(Int16.self, value(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Scalars.integer(Int32.self, value(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Scalars.integer(Int64.self, value(key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try Scalars.integer(UInt.self, value(key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try Scalars.integer(UInt8.self, value(key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try Scalars.integer(UInt16.self, value(key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try Scalars.integer(UInt32.self, value(key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try Scalars.integer(UInt64.self, value(key), codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.context.unbox(value(key), as: T.self, path: codingPath + [key], type: memberType(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: value(key), path: codingPath + [key], context: decoder.context, type: memberType(key), topLevel: false)
            .container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: value(key), path: codingPath + [key], context: decoder.context, type: memberType(key), topLevel: false)
            .unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: object["super"] ?? .null, path: codingPath + [AnyCodingKey("super")], context: decoder.context, type: .unknown, topLevel: false)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: object[key.stringValue] ?? .null, path: codingPath + [key], context: decoder.context, type: memberType(key), topLevel: false)
    }
}

struct UnkeyedValues: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let decoder: ValueDecoder
    let element: ValueType
    var currentIndex = 0

    init(items: [JSONValue], decoder: ValueDecoder, element: ValueType) {
        self.items = items
        self.decoder = decoder
        self.element = element
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }
    private var key: AnyCodingKey { AnyCodingKey(intValue: currentIndex) }

    private mutating func next<T>(_ t: T.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: codingPath + [key], debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if items[currentIndex].isNull {
            currentIndex += 1
            return true
        }
        return false
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { let p = codingPath + [key]; return try Scalars.bool(next(Bool.self), p) }
    mutating func decode(_ type: String.Type) throws -> String { let p = codingPath + [key]; return try Scalars.string(next(String.self), p) }
    mutating func decode(_ type: Double.Type) throws -> Double { let p = codingPath + [key]; return try Scalars.double(next(Double.self), p) }
    mutating func decode(_ type: Float.Type) throws -> Float { let p = codingPath + [key]; return Float(try Scalars.double(next(Float.self), p)) }
    mutating func decode(_ type: Int.Type) throws -> Int { let p = codingPath + [key]; return try Scalars.integer(Int.self, next(Int.self), p) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let p = codingPath + [key]; return try Scalars.integer(Int8.self, next(Int8.self), p) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let p = codingPath + [key]; return try Scalars.integer(Int16.self, next(Int16.self), p) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let p = codingPath + [key]; return try Scalars.integer(Int32.self, next(Int32.self), p) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let p = codingPath + [key]; return try Scalars.integer(Int64.self, next(Int64.self), p) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let p = codingPath + [key]; return try Scalars.integer(UInt.self, next(UInt.self), p) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let p = codingPath + [key]; return try Scalars.integer(UInt8.self, next(UInt8.self), p) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let p = codingPath + [key]; return try Scalars.integer(UInt16.self, next(UInt16.self), p) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let p = codingPath + [key]; return try Scalars.integer(UInt32.self, next(UInt32.self), p) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let p = codingPath + [key]; return try Scalars.integer(UInt64.self, next(UInt64.self), p) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let p = codingPath + [key]
        let v = try next(T.self)
        return try decoder.context.unbox(v, as: T.self, path: p, type: element)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let p = codingPath + [key]
        let v = try next([String: String].self)
        return try ValueDecoder(value: v, path: p, context: decoder.context, type: element, topLevel: false).container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let p = codingPath + [key]
        let v = try next([String].self)
        return try ValueDecoder(value: v, path: p, context: decoder.context, type: element, topLevel: false).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let p = codingPath + [key]
        let v = try next(JSONValue.self)
        return ValueDecoder(value: v, path: p, context: decoder.context, type: element, topLevel: false)
    }
}

struct SingleValue: SingleValueDecodingContainer {
    let value: JSONValue
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try Scalars.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Scalars.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Scalars.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { Float(try Scalars.double(value, codingPath)) }
    func decode(_ type: Int.Type) throws -> Int { try Scalars.integer(Int.self, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Scalars.integer(Int8.self, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Scalars.integer(Int16.self, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Scalars.integer(Int32.self, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Scalars.integer(Int64.self, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Scalars.integer(UInt.self, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Scalars.integer(UInt8.self, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Scalars.integer(UInt16.self, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Scalars.integer(UInt32.self, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Scalars.integer(UInt64.self, value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.context.unbox(value, as: T.self, path: codingPath, type: decoder.type)
    }
}
