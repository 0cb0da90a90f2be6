/// Builds URL text from values, so that callers never paste user input into a URL by hand:
/// a string literal for `$filter` or a key, and the path of an entity by its key, typed by
/// `$metadata` and spelled for the protocol version (`12L` and `guid'…'` in V2, bare in V4).
///
/// Everything returned is ready to be used as (part of) a request path: characters that have
/// a meaning in a URL (`%`, `&`, `#`, `?`, `/`, `+`, space, `"`) and non-ASCII bytes are
/// percent-encoded, and quotes inside string literals are doubled.
public enum URLText {
    /// `'…'` with `'` doubled and URL-significant characters percent-encoded: the same text in
    /// V2 and V4, safe in a key predicate and in a query option.
    public static func quotedString(_ value: String) -> String {
        PercentEncoding.encode(LiteralPrinter.quoted(value), .pathSegment)
    }

    /// Why `keyPath` cannot build a path.
    public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// The model has no such entity set.
            case unknownSet
            /// The key value does not match the set's key (names, count or types).
            case invalidKey
        }
        public var kind: Kind
        public var message: String
        public var description: String { message }
    }

    /// `Set(key)` for the entity set `setName`: a single key as `Set(literal)`, a compound key
    /// as `Set(A=literal,B=literal)` in the order `$metadata` declares the key.
    ///
    /// `key` is the key's value in the canonical JSON shape: for a single key the value itself
    /// or an object naming it; for a compound key an object with exactly the key properties.
    /// Int64 and Decimal may be JSON numbers or strings; DateTimeOffset, Date, Guid and the
    /// like are strings as the canonical shape writes them.
    public static func keyPath(entitySet setName: String, key: JSONValue, model: ServiceModel,
                               version: ODataVersion) throws(KeyError) -> String {
        guard let set = model.entitySet(setName), let type = model.structuredType(set.entityType) else {
            throw KeyError(kind: .unknownSet, message: "the service has no entity set \"\(setName)\"")
        }
        let keys = model.keyProperties(of: type)
        guard !keys.isEmpty else {
            throw KeyError(kind: .invalidKey, message: "\(type.qualifiedName) has no key")
        }
        var values: [(name: String, value: JSONValue)] = []
        if case .object(let o) = key {
            for k in keys {
                guard let v = o[k.name] else {
                    throw KeyError(kind: .invalidKey, message: "the key of \(setName) needs \"\(k.name)\"")
                }
                values.append((k.name, v))
            }
            for name in o.keys where !keys.contains(where: { $0.name == name }) {
                throw KeyError(kind: .invalidKey, message: "\"\(name)\" is not a key property of \(setName)")
            }
        } else {
            guard keys.count == 1 else {
                throw KeyError(kind: .invalidKey,
                               message: "\(setName) has a compound key (\(keys.map(\.name).joined(separator: ","))): give an object")
            }
            values.append((keys[0].name, key))
        }
        var parts: [String] = []
        for (i, k) in keys.enumerated() {
            let literal = try Self.literal(values[i].value, property: k.property, name: k.name)
            let text = PercentEncoding.encode(LiteralPrinter.print(literal, version: version), .pathSegment)
            parts.append(keys.count == 1 ? text : "\(PercentEncoding.encode(k.name, .pathSegment))=\(text)")
        }
        return PercentEncoding.encode(setName, .pathSegment) + "(" + parts.joined(separator: ",") + ")"
    }

    /// The literal of one key value, checked against the property's type.
    static func literal(_ value: JSONValue, property: StructuralProperty, name: String) throws(KeyError) -> Literal {
        let typeName = property.type.name
        func bad() -> KeyError {
            KeyError(kind: .invalidKey, message: "key property \"\(name)\" is \(typeName); \(value.serialized()) is not a value of it")
        }
        guard let kind = EdmPrimitiveKind(rawValue: typeName) else { throw bad() }
        // Numbers as their JSON text (never through a Double); strings for the rest.
        let text: String
        switch value {
        case .string(let s): text = s
        case .bool(let b):
            guard kind == .boolean else { throw bad() }
            return .boolean(b)
        case .null, .object, .array: throw bad()
        default: text = value.serialized()
        }
        let isNumber: Bool
        if case .string = value { isNumber = false } else { isNumber = true }
        switch kind {
        case .string:
            guard !isNumber else { throw bad() }
            return .string(text)
        case .byte, .sbyte, .int16, .int32:
            // The canonical shape writes these as JSON numbers (only Int64 and Decimal as strings).
            guard isNumber else { throw bad() }
            let l = Literal.integer(text)
            guard TypeCompatibility.literal(l, fits: kind) else { throw bad() }
            return l
        case .int64:
            guard Int64(text) != nil else { throw bad() }
            return .int64(text)
        case .decimal:
            guard isDecimal(text) else { throw bad() }
            return .decimal(text)
        case .double, .single:
            guard Double(text) != nil || ["INF", "-INF", "NaN"].contains(text) else { throw bad() }
            return kind == .double ? .double(text) : .single(text)
        case .boolean:
            guard text == "true" || text == "false" else { throw bad() }
            return .boolean(text == "true")
        case .guid:
            guard !isNumber, text.utf8.count == 36 else { throw bad() }
            return .guid(text)
        case .dateTime:
            guard !isNumber else { throw bad() }
            // The canonical shape writes V2 DateTime in UTC with "Z"; the literal has no offset.
            return .dateTime(text.hasSuffix("Z") ? String(text.dropLast()) : text)
        case .dateTimeOffset:
            guard !isNumber else { throw bad() }
            return .dateTimeOffset(text)
        case .date:
            guard !isNumber else { throw bad() }
            return .date(text)
        case .timeOfDay:
            guard !isNumber else { throw bad() }
            return .timeOfDay(text)
        case .time:
            guard !isNumber else { throw bad() }
            return .time(text)
        case .duration:
            guard !isNumber else { throw bad() }
            return .duration(text)
        default:
            throw KeyError(kind: .invalidKey, message: "key property \"\(name)\" is \(typeName), which keyPath does not write")
        }
    }

    private static func isDecimal(_ t: String) -> Bool {
        var digits = 0
        var dot = false
        for (i, c) in t.utf8.enumerated() {
            if c == UInt8(ascii: "-") || c == UInt8(ascii: "+") { if i != 0 { return false }; continue }
            if c == UInt8(ascii: ".") { if dot { return false }; dot = true; continue }
            guard c >= 48 && c <= 57 else { return false }
            digits += 1
        }
        return digits > 0
    }
}
