import CODataStoreABI
import Glibc
import ODataStore

/// The `ods_entity` view of one entity of a response, with typed property access.
/// BORROWED from its `ResponseView`.
///
/// The entity is a byte range of the response's canonical JSON: nothing is parsed up front.
/// Each property lookup scans the entity's members for the name and reads only that value;
/// strings handed to C are made on first use and cached until the response is released.
///
/// Threading: the accessors may be called from any thread while the callback runs (the JSON
/// is immutable; the strings are kept in the response view's locked cache).
final class EntityView: Sendable {
    /// The response view that owns this view (and outlives it: it holds its entity views).
    unowned let owner: ResponseView
    /// The entity's position in the response.
    let index: Int
    let text: CanonicalJSONText
    /// The entity object's bytes in `text`, braces included.
    let range: Range<Int>

    /// A property's value: its JSON kind and where its bytes are.
    struct Property {
        enum Kind { case null, bool, number, string, object, array }
        var kind: Kind
        var range: Range<Int>
    }

    init(owner: ResponseView, index: Int, text: CanonicalJSONText, range: Range<Int>) {
        self.owner = owner
        self.index = index
        self.text = text
        self.range = range
    }

    var pointer: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ p: OpaquePointer?) -> EntityView? {
        guard let p else { return nil }
        return Unmanaged<EntityView>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    /// The entity's JSON object, as it is in the response's canonical JSON.
    var json: UnsafePointer<CChar>? {
        owner.withCache { c in
            if let cached = c.entityJSON[index] { return cached }
            let pointer = text.withScanner { c.keep(bytes: Array($0.buffer[range])) }
            c.entityJSON[index] = pointer
            return pointer
        }
    }

    /// The property named `name` (names compared as Swift strings, as `JSONObject` does).
    func property(_ name: String) -> Property? {
        var utf8Name = name
        return utf8Name.withUTF8 { utf8 in
            let ascii = utf8.allSatisfy { $0 < 0x80 } ? utf8 : nil
            return text.withScanner { scan -> Property? in
                var found: Property?
                scan.forEachMember(ofObjectAt: range.lowerBound) { member in
                    guard scan.name(of: member, equals: name, asciiName: ascii) else { return true }
                    found = Property(kind: Self.kind(of: scan.byte(member.value.lowerBound)), range: member.value)
                    return false
                }
                return found
            }
        }
    }

    private static func kind(of first: UInt8) -> Property.Kind {
        switch first {
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return .number
        }
    }

    /// A boolean property's value (`.bool` kind only).
    func bool(_ p: Property) -> Bool {
        p.kind == .bool && text.withScanner { $0.byte(p.range.lowerBound) } == UInt8(ascii: "t")
    }

    /// A number as spelled or a string unescaped; nil for other kinds.
    func scalarText(_ p: Property) -> String? {
        switch p.kind {
        case .number: return text.withScanner { $0.text(p.range) }
        case .string: return text.withScanner { $0.string(quoted: p.range) }
        default: return nil
        }
    }

    /// The property as text (see ods_entity_get_string); nil pointer for JSON null,
    /// `.none` when absent.
    func text(_ property: String) -> UnsafePointer<CChar>?? {
        guard let p = self.property(property) else { return .none }
        let key = ResponseView.EntityTextKey(entity: index, property: property)
        return owner.withCache { c in
            if let cached = c.entityTexts[key] { return .some(cached) }
            let pointer: UnsafePointer<CChar>?
            switch p.kind {
            case .null: pointer = nil
            case .bool: pointer = c.keep(bool(p) ? "true" : "false")
            case .number, .string: pointer = scalarText(p).flatMap { c.keep($0) }
            case .array, .object:
                // Re-serialized compactly, as a parsed value would be.
                let value = text.withScanner { try? JSONValue.parse(UnsafeBufferPointer(rebasing: $0.buffer[p.range])) }
                pointer = value.flatMap { c.keep($0.serialized()) }
            }
            c.entityTexts[key] = pointer
            return .some(pointer)
        }
    }
}

/// The canonical JSON of one response, shared by the response's entity views.
final class CanonicalJSONText: Sendable {
    let json: String

    init(_ json: String) {
        self.json = json
    }

    /// Runs `body` over the UTF-8 bytes (in place for a native string, else on a copy).
    func withScanner<R>(_ body: (CanonicalJSONScanner) -> R) -> R {
        if let r = json.utf8.withContiguousStorageIfAvailable({ body(CanonicalJSONScanner($0)) }) { return r }
        return Array(json.utf8).withUnsafeBufferPointer { body(CanonicalJSONScanner($0)) }
    }

    /// True when every range lies in the text and starts and ends an object (a cheap check of
    /// ranges recorded by the decoder; anything else falls back to a scan).
    func areEntities(_ ranges: [Range<Int>]) -> Bool {
        withScanner { scan in
            ranges.allSatisfy { r in
                r.lowerBound >= 0 && r.upperBound <= scan.count && r.count >= 2
                    && scan.byte(r.lowerBound) == UInt8(ascii: "{") && scan.byte(r.upperBound - 1) == UInt8(ascii: "}")
            }
        }
    }

    /// The entities: the object elements of a collection's "value", or the single top-level
    /// object. A canonical collection has a "value" array and otherwise only `@` annotations;
    /// an entity has its properties (docs/json-shape.md). Empty when the text is not a JSON object.
    func entityRanges() -> [Range<Int>] {
        withScanner { scan in
            let top = scan.skipSpace(0)
            var value: Range<Int>?
            var onlyAnnotations = true
            let end = scan.forEachMember(ofObjectAt: top) { member in
                if value == nil, scan.name(of: member, is: "value") {
                    value = member.value
                } else if !scan.nameIsAnnotation(member) {
                    onlyAnnotations = false
                }
                return true
            }
            guard let end else { return [] }
            guard let items = value, scan.byte(items.lowerBound) == UInt8(ascii: "["), onlyAnnotations else {
                return [top..<end]
            }
            var ranges: [Range<Int>] = []
            let ok = scan.forEachElement(ofArrayAt: items.lowerBound) { element in
                if scan.byte(element.lowerBound) == UInt8(ascii: "{") { ranges.append(element) }
            }
            return ok ? ranges : []
        }
    }
}
