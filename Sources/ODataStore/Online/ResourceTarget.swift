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
        var p = Substring(path)
        if p.hasPrefix(serviceRoot) { p = p.dropFirst(serviceRoot.count) }
        while p.first == "/" { p = p.dropFirst() }
        let resource = p.prefix { $0 != "?" }
        let name = resource.prefix { $0 != "(" && $0 != "/" }
        firstSegment = name.isEmpty ? nil : String(name)
        var rest = resource.dropFirst(name.count)
        if rest.first == "(" {
            var depth = 0
            var quoted = false
            while let c = rest.first {
                rest = rest.dropFirst()
                if c == "'" { quoted.toggle() }
                if quoted { continue }
                if c == "(" { depth += 1 }
                if c == ")" { depth -= 1; if depth == 0 { break } }
            }
        }
        hasMoreSegments = rest.contains("/")
        isRawValue = resource.hasSuffix("/$count") || resource.hasSuffix("/$value")
    }

    /// The entity set whose type describes the payload, when the path addresses a set or
    /// one of its entities directly.
    func entitySet(in model: ServiceModel?) -> String? {
        guard let model, let name = firstSegment, !hasMoreSegments, model.entitySets[name] != nil else { return nil }
        return name
    }
}
