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

    init(path: String, serviceRoot: String) {
        // UTF-8 bytes, not Characters: the path's structure is ASCII ('/', '(', ')', '\'', '?'),
        // and Character iteration made this ~15,000 instructions per request.
        var p = Substring(path).utf8
        let root = serviceRoot.utf8
        if p.starts(with: root) { p = p.dropFirst(root.count) }
        while p.first == UInt8(ascii: "/") { p = p.dropFirst() }
        let resource = p.prefix { $0 != UInt8(ascii: "?") }
        let name = resource.prefix { $0 != UInt8(ascii: "(") && $0 != UInt8(ascii: "/") }
        firstSegment = name.isEmpty ? nil : String(Substring(name))
        var rest = resource.dropFirst(name.count)
        if rest.first == UInt8(ascii: "(") {
            var depth = 0
            var quoted = false
            while let c = rest.first {
                rest = rest.dropFirst()
                if c == UInt8(ascii: "'") { quoted.toggle() }
                if quoted { continue }
                if c == UInt8(ascii: "(") { depth += 1 }
                if c == UInt8(ascii: ")") { depth -= 1; if depth == 0 { break } }
            }
        }
        hasMoreSegments = rest.contains(UInt8(ascii: "/"))
        isRawValue = Self.hasSuffix(resource, "/$count") || Self.hasSuffix(resource, "/$value")
    }

    private static func hasSuffix(_ bytes: Substring.UTF8View, _ suffix: StaticString) -> Bool {
        let s = UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
        return bytes.count >= s.count && bytes.suffix(s.count).elementsEqual(s)
    }

    /// The entity set whose type describes the payload, when the path addresses a set or
    /// one of its entities directly.
    func entitySet(in model: ServiceModel?) -> String? {
        guard let model, let name = firstSegment, !hasMoreSegments, model.entitySets[name] != nil else { return nil }
        return name
    }
}
