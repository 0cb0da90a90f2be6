#if canImport(Glibc)
import Glibc
#endif

/// A light reading of a request path: enough to pick the entity set that types a payload
/// and the operation import a FUNCTION request calls.
struct ResourceTarget {
    /// The first path segment without key predicate or parameters ("Products" for
    /// "Products(1)/Category?$expand=x").
    var firstSegment: String?
    /// True when the path goes beyond the first segment and its key ("Products(1)/Category").
    var hasMoreSegments: Bool
    /// True for `/$count` and `/$value` requests, which answer with raw text or media.
    var isRawValue: Bool
    /// True for `/$count`: the answer must be a non-negative integer.
    var isCount: Bool

    init(path: String, serviceRoot: String) {
        // UTF-8 bytes, not Characters: the path's structure is ASCII ('/', '(', ')', '\'', '?'),
        // and Character iteration made this ~15,000 instructions per request.
        var path = path
        var root = serviceRoot
        let (name, more, raw, count) = path.withUTF8 { p in
            root.withUTF8 { r in Self.scan(p, root: r) }
        }
        firstSegment = name
        hasMoreSegments = more
        isRawValue = raw
        isCount = count
    }

    private static func scan(_ p: UnsafeBufferPointer<UInt8>, root: UnsafeBufferPointer<UInt8>) -> (String?, Bool, Bool, Bool) {
        var i = 0
        if p.count >= root.count, let pb = p.baseAddress, let rb = root.baseAddress, memcmp(pb, rb, root.count) == 0 {
            i = root.count
        }
        while i < p.count, p[i] == UInt8(ascii: "/") { i += 1 }
        var end = i  // end of the resource part (before '?')
        while end < p.count, p[end] != UInt8(ascii: "?") { end += 1 }
        var j = i
        while j < end, p[j] != UInt8(ascii: "("), p[j] != UInt8(ascii: "/") { j += 1 }
        let name = j > i ? String(decoding: UnsafeBufferPointer(rebasing: p[i..<j]), as: UTF8.self) : nil
        var k = j
        if k < end, p[k] == UInt8(ascii: "(") {
            var depth = 0
            var quoted = false
            while k < end {
                let c = p[k]
                k += 1
                if c == UInt8(ascii: "'") { quoted.toggle() }
                if quoted { continue }
                if c == UInt8(ascii: "(") { depth += 1 }
                if c == UInt8(ascii: ")") { depth -= 1; if depth == 0 { break } }
            }
        }
        var more = false
        while k < end {
            if p[k] == UInt8(ascii: "/") { more = true; break }
            k += 1
        }
        let resource = UnsafeBufferPointer(rebasing: p[i..<end])
        let count = hasSuffix(resource, "/$count")
        let raw = count || hasSuffix(resource, "/$value")
        return (name, more, raw, count)
    }

    /// True when `path` (relative, or a full URL under `serviceRoot`) is `$metadata` itself,
    /// query options allowed: the service's CSDL document (XML), not an OData payload. A byte
    /// comparison, cheap enough for every request the engines and the mixed router see.
    static func isMetadata(_ path: String, serviceRoot: String) -> Bool {
        var path = path
        var root = serviceRoot
        return path.withUTF8 { p in
            root.withUTF8 { r in
                var i = 0
                if p.count >= r.count, let pb = p.baseAddress, let rb = r.baseAddress, memcmp(pb, rb, r.count) == 0 {
                    i = r.count
                }
                while i < p.count, p[i] == UInt8(ascii: "/") { i += 1 }
                let name: StaticString = "$metadata"
                let n = name.utf8CodeUnitCount
                guard p.count - i >= n, let pb = p.baseAddress, memcmp(pb + i, name.utf8Start, n) == 0 else { return false }
                return p.count == i + n || p[i + n] == UInt8(ascii: "?")
            }
        }
    }

    private static func hasSuffix(_ bytes: UnsafeBufferPointer<UInt8>, _ suffix: StaticString) -> Bool {
        let n = suffix.utf8CodeUnitCount
        guard bytes.count >= n, let base = bytes.baseAddress else { return false }
        return memcmp(base + (bytes.count - n), suffix.utf8Start, n) == 0
    }

    /// What a path that goes beyond its first segment addresses, found with the
    /// schema-checked parse.
    enum PathType: Equatable {
        /// Entities through a navigation (`Products(1)/Category`, `Categories(3)/Products`):
        /// typing them with their type keeps `@odata.type` out of the canonical shape when
        /// they are of the declared type, as for sets.
        case entities(String)
        /// A property (`Products(1)/Price`, `Flights(...)/flightDetails/departureTime`, also
        /// after a navigation): its value is typed by the property's declaration, as inside an
        /// entity (a V2 `Edm.Time` becomes `hh:mm:ss` either way).
        case value(TypeReference)
    }

    /// The `PathType` of `path`; nil for anything else (`$count`, `$value`, operations, paths
    /// the model does not have).
    static func pathType(path: String, serviceRoot: String, model: ServiceModel) -> PathType? {
        var relative = Substring(path)
        if relative.hasPrefix(serviceRoot) { relative = relative.dropFirst(serviceRoot.count) }
        while relative.hasPrefix("/") { relative = relative.dropFirst() }
        guard let request = try? ResourceRequestParser(version: model.version).parse(String(relative), checkingAgainst: model),
              let first = request.segments.first, let set = model.entitySets[first.name] else { return nil }
        var type = model.resolve(set.entityType)
        var sawNavigation = false
        var property: TypeReference? = nil
        for segment in request.segments.dropFirst() {
            switch segment.role {
            case .navigation where property == nil:
                guard let t = model.structuredType(type), let nav = model.navigationProperty(segment.name, of: t) else { return nil }
                type = model.resolve(nav.targetType)
                sawNavigation = true
            case .typeCast:
                type = model.resolve(segment.name)
                if property != nil { property?.name = type }
            case .property:
                // A member of a complex value continues from the complex type.
                if let p = property, p.isCollection { return nil }
                guard let t = model.structuredType(type), let p = model.property(segment.name, of: t) else { return nil }
                property = p.type
                type = model.resolve(p.type.name)
            default:
                return nil
            }
        }
        if let property { return .value(property) }
        return sawNavigation ? .entities(type) : nil
    }

    /// The entity set whose type describes the payload, when the path addresses a set or
    /// one of its entities directly.
    func entitySet(in model: ServiceModel?) -> String? {
        guard let model, let name = firstSegment, !hasMoreSegments, model.entitySets[name] != nil else { return nil }
        return name
    }
}
