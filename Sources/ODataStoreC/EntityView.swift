import CODataStoreABI
import Glibc
import ODataStore

/// The `ods_entity` view of one entity of a response, with typed property access.
/// BORROWED from its `ResponseView`.
final class EntityView: Sendable {
    let object: JSONObject
    private let cache = Locked(Cache())

    private struct Cache: @unchecked Sendable {
        let strings = BorrowedStrings()
        var json: UnsafePointer<CChar>?
        var texts: [String: UnsafePointer<CChar>?] = [:]
    }

    init(_ object: JSONObject) {
        self.object = object
    }

    var pointer: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ p: OpaquePointer?) -> EntityView? {
        guard let p else { return nil }
        return Unmanaged<EntityView>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    /// The entities in a response's canonical JSON: the elements of a collection's "value",
    /// or the single entity.
    static func entities(in response: Response) -> [EntityView] {
        guard response.entityCount > 0, !response.json.isEmpty,
              case .object(let top)? = try? JSONValue.parse(response.json) else { return [] }
        if isCollection(top), case .array(let items)? = top["value"] {
            return items.compactMap { item in
                if case .object(let o) = item { return EntityView(o) }
                return nil
            }
        }
        return [EntityView(top)]
    }

    /// A canonical collection has a "value" array and otherwise only `@` annotations; an
    /// entity has its properties (docs/json-shape.md).
    static func isCollection(_ top: JSONObject) -> Bool {
        guard case .array? = top["value"] else { return false }
        return top.keys.allSatisfy { $0 == "value" || $0.hasPrefix("@") }
    }

    var json: UnsafePointer<CChar>? {
        cache.withLock { c in
            if c.json == nil { c.json = c.strings.keep(JSONValue.object(object).serialized()) }
            return c.json
        }
    }

    func value(_ property: String) -> JSONValue? { object[property] }

    /// The property as text (see ods_entity_get_string); nil pointer for JSON null.
    func text(_ property: String) -> UnsafePointer<CChar>?? {
        guard let v = object[property] else { return .none }
        return cache.withLock { c in
            if let cached = c.texts[property] { return .some(cached) }
            let pointer: UnsafePointer<CChar>?
            switch v {
            case .null: pointer = nil
            case .bool(let b): pointer = c.strings.keep(b ? "true" : "false")
            case .number(let n): pointer = c.strings.keep(n)
            case .string(let s): pointer = c.strings.keep(s)
            case .array, .object: pointer = c.strings.keep(v.serialized())
            }
            c.texts[property] = pointer
            return .some(pointer)
        }
    }
}
