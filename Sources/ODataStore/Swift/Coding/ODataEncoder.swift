/// Encodes `Encodable` values into the canonical JSON shape (docs/json-shape.md), the form
/// request bodies take before the store converts them for the service (V2 or V4).
/// No Foundation: the standard library's `Encoder` protocol over the protocol layer's `JSONValue`.
///
/// `ODataPrimitive` types write their exact form (`Int64` and `ODataDecimal` as strings,
/// dates as ISO 8601); `nil` optionals are left out (synthesized `encodeIfPresent`), so an
/// update sends only what is set. With `model` and `entityType`, `typed(_:)` then converts
/// each property to its declared Edm type: a `Date` for an Edm.Date property is sent as its
/// date, an `Int` for an Edm.Int64 as a string, a date for a V2 Edm.DateTime as midnight UTC.
public struct ODataEncoder: Sendable {
    public var model: ServiceModel?

    public init(model: ServiceModel? = nil) {
        self.model = model
    }

    /// The value as canonical JSON.
    public func encode<T: Encodable>(_ value: T) throws(ODataStoreError) -> JSONValue {
        do {
            return try EncodingNode.encodeValue(value, path: [])
        } catch let error as EncodingError {
            switch error {
            case .invalidValue(_, let c):
                throw ODataStoreError(.invalidArgument, "cannot encode \(T.self): \(c.debugDescription)")
            @unknown default:
                throw ODataStoreError(.invalidArgument, "cannot encode \(T.self): \(error)")
            }
        } catch let error as ODataStoreError {
            throw error
        } catch {
            throw ODataStoreError(.invalidArgument, "cannot encode \(T.self): \(error)")
        }
    }

    /// The value as canonical JSON text.
    public func encodeText<T: Encodable>(_ value: T) throws(ODataStoreError) -> String {
        try encode(value).serialized()
    }

    /// An entity for `entitySet`, its properties converted to the model's types.
    public func encode<T: Encodable>(_ value: T, forEntitySet entitySet: String) throws(ODataStoreError) -> JSONValue {
        let json = try encode(value)
        guard let model, let set = model.entitySet(entitySet) else { return json }
        return BodyTyping.typed(json, .structured(model.resolve(set.entityType)), model: model)
    }
}

/// The tree an encoding builds: a reference per container, so nested containers can be
/// filled after they were handed out (as `Encoder` requires).
final class EncodingNode {
    enum Content {
        case empty
        case value(JSONValue)
        case object([(String, EncodingNode)])
        case array([EncodingNode])
    }
    var content: Content = .empty

    var json: JSONValue {
        switch content {
        case .empty: return .object(JSONObject())
        case .value(let v): return v
        case .object(let members):
            var o = JSONObject()
            for (k, n) in members { o[k] = n.json }
            return .object(o)
        case .array(let items): return .array(items.map(\.json))
        }
    }

    static func encodeValue<T: Encodable>(_ value: T, path: [any CodingKey]) throws -> JSONValue {
        if let v = value as? ODataValue { return v.canonicalJSON }
        if let e = value as? ODataEntity { return e.canonicalJSON }
        if let p = value as? any ODataPrimitive { return p.canonicalJSON }
        let node = EncodingNode()
        try value.encode(to: NodeEncoder(node: node, path: path))
        return node.json
    }

    func objectMembers(_ path: [any CodingKey]) {
        if case .object = content { return }
        content = .object([])
    }

    func child(named key: String) -> EncodingNode {
        let n = EncodingNode()
        if case .object(var members) = content {
            members.removeAll { $0.0 == key }
            members.append((key, n))
            content = .object(members)
        } else {
            content = .object([(key, n)])
        }
        return n
    }

    func appendChild() -> EncodingNode {
        let n = EncodingNode()
        if case .array(var items) = content {
            items.append(n)
            content = .array(items)
        } else {
            content = .array([n])
        }
        return n
    }
}

enum ScalarJSON {
    static func double(_ d: Double) -> JSONValue { d.canonicalJSON }
    static func integer<I: BinaryInteger>(_ i: I) -> JSONValue { .number(String(i)) }
}

struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: EncodingNode, path: [any CodingKey]) {
        self.node = node
        self.codingPath = path
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.objectMembers(codingPath)
        return KeyedEncodingContainer(KeyedNodes<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedNodes(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNode(node: node, codingPath: codingPath)
    }
}

struct KeyedNodes<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    private func set(_ v: JSONValue, _ key: Key) { node.child(named: key.stringValue).content = .value(v) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(value.canonicalJSON, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(value.canonicalJSON, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(ScalarJSON.integer(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(ScalarJSON.integer(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(ScalarJSON.integer(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(ScalarJSON.integer(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(value.canonicalJSON, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(ScalarJSON.integer(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(ScalarJSON.integer(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(ScalarJSON.integer(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(ScalarJSON.integer(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.string(String(value)), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try EncodingNode.encodeValue(value, path: codingPath + [key]), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = node.child(named: key.stringValue)
        child.content = .object([])
        return KeyedEncodingContainer(KeyedNodes<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.child(named: key.stringValue)
        child.content = .array([])
        return UnkeyedNodes(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.child(named: "super"), path: codingPath + [AnyCodingKey("super")])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.child(named: key.stringValue), path: codingPath + [key])
    }
}

struct UnkeyedNodes: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let items) = node.content { return items.count }
        return 0
    }

    private func append(_ v: JSONValue) { node.appendChild().content = .value(v) }
    private var key: AnyCodingKey { AnyCodingKey(intValue: count) }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(value.canonicalJSON) }
    mutating func encode(_ value: Float) throws { append(value.canonicalJSON) }
    mutating func encode(_ value: Int) throws { append(ScalarJSON.integer(value)) }
    mutating func encode(_ value: Int8) throws { append(ScalarJSON.integer(value)) }
    mutating func encode(_ value: Int16) throws { append(ScalarJSON.integer(value)) }
    mutating func encode(_ value: Int32) throws { append(ScalarJSON.integer(value)) }
    mutating func encode(_ value: Int64) throws { append(value.canonicalJSON) }
    mutating func encode(_ value: UInt) throws { append(ScalarJSON.integer(value)) }
    mutating func encode(_ value: UInt8) throws { append(ScalarJSON.integer(value)) }
    mutating func encode(_ value: UInt16) throws { append(ScalarJSON.integer(value)) }
    mutating func encode(_ value: UInt32) throws { append(ScalarJSON.integer(value)) }
    mutating func encode(_ value: UInt64) throws { append(.string(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = codingPath + [key]
        append(try EncodingNode.encodeValue(value, path: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [key]
        let child = node.appendChild()
        child.content = .object([])
        return KeyedEncodingContainer(KeyedNodes<NestedKey>(node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [key]
        let child = node.appendChild()
        child.content = .array([])
        return UnkeyedNodes(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = codingPath + [key]
        return NodeEncoder(node: node.appendChild(), path: path)
    }
}

struct SingleNode: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    private func set(_ v: JSONValue) { node.content = .value(v) }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(value.canonicalJSON) }
    mutating func encode(_ value: Float) throws { set(value.canonicalJSON) }
    mutating func encode(_ value: Int) throws { set(ScalarJSON.integer(value)) }
    mutating func encode(_ value: Int8) throws { set(ScalarJSON.integer(value)) }
    mutating func encode(_ value: Int16) throws { set(ScalarJSON.integer(value)) }
    mutating func encode(_ value: Int32) throws { set(ScalarJSON.integer(value)) }
    mutating func encode(_ value: Int64) throws { set(value.canonicalJSON) }
    mutating func encode(_ value: UInt) throws { set(ScalarJSON.integer(value)) }
    mutating func encode(_ value: UInt8) throws { set(ScalarJSON.integer(value)) }
    mutating func encode(_ value: UInt16) throws { set(ScalarJSON.integer(value)) }
    mutating func encode(_ value: UInt32) throws { set(ScalarJSON.integer(value)) }
    mutating func encode(_ value: UInt64) throws { set(.string(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        set(try EncodingNode.encodeValue(value, path: codingPath))
    }
}

/// Converts an encoded entity's properties to the types `$metadata` declares for them.
enum BodyTyping {
    static func typed(_ json: JSONValue, _ type: ValueType, model: ServiceModel) -> JSONValue {
        switch (type, json) {
        case (.structured(let name), .object(let o)):
            guard let t = model.structuredType(name) else { return json }
            var out = JSONObject()
            for m in o {
                if m.key.contains("@") {
                    out[m.key] = m.value
                } else if let p = model.property(m.key, of: t) {
                    out[m.key] = fitted(typed(m.value, ValueType(p.type, model: model), model: model), p.type, model: model)
                } else if let n = model.navigationProperty(m.key, of: t) {
                    let target = ValueType.structured(model.resolve(n.targetType))
                    out[m.key] = typed(m.value, n.isCollection ? .collection(target) : target, model: model)
                } else {
                    out[m.key] = m.value
                }
            }
            return .object(out)
        case (.collection(let element), .array(let items)):
            return .array(items.map { typed($0, element, model: model) })
        case (.primitive(let kind), _):
            return primitive(json, kind)
        default:
            return json
        }
    }

    /// Fractional seconds beyond a V4 temporal property's `Precision` (0 when not declared)
    /// are cut off: a Foundation `Date` almost always has some, and services refuse them.
    static func fitted(_ json: JSONValue, _ ref: TypeReference, model: ServiceModel) -> JSONValue {
        guard model.version == .v4, !ref.isCollection, case .string(let text) = json,
              let kind = EdmPrimitiveKind(qualifiedName: model.resolve(ref.name)),
              kind == .dateTimeOffset || kind == .timeOfDay else { return json }
        let digits = ref.precision ?? 0
        var bytes = Array(text.utf8)
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return json }
        var end = dot + 1
        while end < bytes.count, bytes[end] >= 48, bytes[end] <= 57 { end += 1 }
        guard end - dot - 1 > digits else { return json }
        bytes.removeSubrange((digits == 0 ? dot : dot + 1 + digits)..<end)
        return .string(String(decoding: bytes, as: UTF8.self))
    }

    static func primitive(_ json: JSONValue, _ kind: EdmPrimitiveKind) -> JSONValue {
        switch (kind, json) {
        case (.int64, .number(let t)), (.decimal, .number(let t)):
            return .string(t)
        case (.byte, .string(let t)), (.sbyte, .string(let t)), (.int16, .string(let t)), (.int32, .string(let t)):
            return Int64(t) != nil ? .number(t) : json
        case (.double, .string(let t)), (.single, .string(let t)):
            guard !["NaN", "INF", "-INF"].contains(t), let d = Double(t), d.isFinite else { return json }
            return .number(t)
        case (.date, .string(let t)):
            // A date-time (from a Date or ODataDateTimeOffset) for an Edm.Date: its date.
            if ODataDate(t) == nil, let d = ODataDate(lenient: t) { return .string(d.description) }
            return json
        case (.dateTime, .string(let t)), (.dateTimeOffset, .string(let t)):
            // A date for a date-time: midnight UTC.
            if let d = ODataDate(t) { return .string(d.description + "T00:00:00Z") }
            return json
        case (.timeOfDay, .string(let t)), (.time, .string(let t)):
            // A Duration for a time of day (V2 Edm.Time): the time since midnight.
            if ODataTimeOfDay(t) == nil, let d = TemporalParsing.duration(t), d >= .zero, d < .seconds(86_400) {
                let (s, atto) = d.components
                let sec = Int(s)
                if let time = ODataTimeOfDay(hour: sec / 3600, minute: sec % 3600 / 60, second: sec % 60, picoseconds: atto / 1_000_000) {
                    return .string(time.description)
                }
            }
            return json
        default:
            return json
        }
    }
}
