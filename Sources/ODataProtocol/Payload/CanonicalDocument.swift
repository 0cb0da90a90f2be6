/// A decoded result in the canonical JSON shape (docs/json-shape.md) with typed navigation:
/// where its entities are, the members of an object, the elements of an array, and scalars
/// read as the types the shape promises (Int64 and Decimal from their exact strings, `INF`,
/// `-INF` and `NaN` for doubles). Values are addressed by the byte range of their JSON text,
/// so nothing is parsed up front and nothing is copied: a lookup scans only the object or
/// array it is asked about (`CanonicalJSONScanner`).
///
/// The decoder records where a single entity is (`DecodedPayload.entityRanges`); the rest is
/// found here on demand. The C views of a response, the Swift API and the offline store's
/// writer share this one reading of the shape.
///
/// Threading: immutable, `Sendable`.
public final class CanonicalDocument: Sendable {
    /// The canonical JSON text.
    public let json: String

    public init(_ json: String) {
        self.json = json
    }

    /// The JSON kinds the shape uses.
    public enum Kind: Sendable, Equatable {
        case null, bool, number, string, object, array
    }

    /// Runs `body` over the UTF-8 bytes (in place for a native string, else on a copy).
    public func withScanner<R>(_ body: (CanonicalJSONScanner) -> R) -> R {
        if let r = json.utf8.withContiguousStorageIfAvailable({ body(CanonicalJSONScanner($0)) }) { return r }
        return Array(json.utf8).withUnsafeBufferPointer { body(CanonicalJSONScanner($0)) }
    }

    /// The whole document's value (its byte range), or nil when the text is empty or not JSON.
    public var root: Range<Int>? {
        withScanner { scan in
            let start = scan.skipSpace(0)
            guard start < scan.count, let end = scan.endOfValue(start) else { return nil }
            return start..<end
        }
    }

    /// The kind of the value whose text starts at `range.lowerBound`.
    public func kind(of range: Range<Int>) -> Kind {
        Self.kind(first: withScanner { $0.byte(range.lowerBound) })
    }

    static func kind(first: UInt8) -> Kind {
        switch first {
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return .number
        }
    }

    // MARK: - Entities

    /// True when every range lies in the text and starts and ends an object (a cheap check of
    /// ranges recorded by the decoder; anything else falls back to a scan).
    public func areObjects(_ ranges: [Range<Int>]) -> Bool {
        withScanner { scan in
            ranges.allSatisfy { r in
                r.lowerBound >= 0 && r.upperBound <= scan.count && r.count >= 2
                    && scan.byte(r.lowerBound) == UInt8(ascii: "{") && scan.byte(r.upperBound - 1) == UInt8(ascii: "}")
            }
        }
    }

    /// The entities: the object elements of a collection's "value", or the single top-level
    /// object. A canonical collection has a "value" array and otherwise only `@` annotations;
    /// an entity has its properties (docs/json-shape.md). Empty when the text is not a JSON
    /// object. `known` are the decoder's ranges, used when they check out.
    public func entityRanges(known: [Range<Int>]? = nil) -> [Range<Int>] {
        if let known, areObjects(known) { return known }
        return withScanner { scan in
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

    // MARK: - Objects and arrays

    /// The member named `name` of the object at `object` (names compared as Swift strings,
    /// as `JSONObject` does); nil when absent or when `object` is not an object.
    public func member(_ name: String, of object: Range<Int>) -> Range<Int>? {
        var utf8Name = name
        return utf8Name.withUTF8 { utf8 in
            let ascii = utf8.allSatisfy { $0 < 0x80 } ? utf8 : nil
            return withScanner { scan -> Range<Int>? in
                var found: Range<Int>?
                scan.forEachMember(ofObjectAt: object.lowerBound) { m in
                    guard scan.name(of: m, equals: name, asciiName: ascii) else { return true }
                    found = m.value
                    return false
                }
                return found
            }
        }
    }

    /// Every member of the object at `object`, in order (empty for anything else).
    public func members(of object: Range<Int>) -> [(name: String, value: Range<Int>)] {
        withScanner { scan in
            var out: [(name: String, value: Range<Int>)] = []
            let ok = scan.forEachMember(ofObjectAt: object.lowerBound) { m in
                let quoted = (m.name.lowerBound - 1)..<(m.name.upperBound + 1)
                out.append((scan.string(quoted: quoted) ?? "", m.value))
                return true
            }
            return ok == nil ? [] : out
        }
    }

    /// Every element of the array at `array`, in order (empty for anything else).
    public func elements(of array: Range<Int>) -> [Range<Int>] {
        withScanner { scan in
            var out: [Range<Int>] = []
            return scan.forEachElement(ofArrayAt: array.lowerBound) { out.append($0) } ? out : []
        }
    }

    // MARK: - Scalars

    /// A string unescaped, or a number as spelled; nil for other kinds.
    public func scalarText(_ value: Range<Int>) -> String? {
        switch kind(of: value) {
        case .number: return withScanner { $0.text(value) }
        case .string: return withScanner { $0.string(quoted: value) }
        default: return nil
        }
    }

    /// The value's JSON text, compact (as the document holds it).
    public func text(_ value: Range<Int>) -> String {
        withScanner { $0.text(value) }
    }

    public func bool(_ value: Range<Int>) -> Bool? {
        switch withScanner({ $0.byte(value.lowerBound) }) {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: return nil
        }
    }

    /// Why a scalar cannot be read as the type asked for.
    public enum ScalarProblem: Error, Equatable {
        /// The value is JSON null.
        case null
        /// Another kind of value, or one that does not fit the type.
        case type
    }

    /// A JSON number that is an integer, or a string holding one (Int64 in the shape).
    public func int64(_ value: Range<Int>) -> Result<Int64, ScalarProblem> {
        switch kind(of: value) {
        case .null: return .failure(.null)
        case .number, .string:
            guard let text = scalarText(value), let v = Int64(text) else { return .failure(.type) }
            return .success(v)
        default: return .failure(.type)
        }
    }

    /// A JSON number, or a string holding a decimal or `INF`, `-INF`, `NaN`.
    public func double(_ value: Range<Int>) -> Result<Double, ScalarProblem> {
        switch kind(of: value) {
        case .null: return .failure(.null)
        case .number, .string:
            guard let text = scalarText(value) else { return .failure(.type) }
            switch text {
            case "INF": return .success(.infinity)
            case "-INF": return .success(-.infinity)
            case "NaN": return .success(.nan)
            default:
                // Swift also reads "inf", "nan", "infinity": only the shape's spellings count.
                guard let v = Double(text), v.isFinite else { return .failure(.type) }
                return .success(v)
            }
        default: return .failure(.type)
        }
    }
}
