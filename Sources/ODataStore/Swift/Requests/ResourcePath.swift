/// Where a request goes: a resource path and query options, relative to the service root.
///
/// Written as OData documents show it (`"Products?$filter=Price gt 10"`: the store encodes what
/// a URL cannot hold, as for every path), or built from values, which the store turns into
/// text with the service's `$metadata` when the request is sent:
///
/// ```swift
/// ResourcePath(entitySet: "Customers", key: "O'NEIL")                  // Customers('O''NEIL')
/// ResourcePath(entitySet: "Categories", key: 3).navigation("Products")
///     .filter("Price gt \(minimum)").orderBy("ID").top(5)
/// ResourcePath(parsed)   // a ResourceRequest from the protocol layer's parser
/// ```
public struct ResourcePath: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        /// Text as written (may hold `?query`).
        case text(String)
        case entitySet(String, key: EntityKey?)
        case navigation(String, key: EntityKey?)
        /// A segment name as it is (`$count`, a property, `$value`, a cast, an operation call).
        case raw(String)
    }
    var segments: [Segment]
    var query: [(name: String, value: QueryText)] = []

    /// A path as OData documents show it, relative to the service root (or a full URL under it).
    public init(_ text: String) { segments = [.text(text)] }
    public init(stringLiteral value: String) { self.init(value) }

    /// An entity set, or one of its entities by key.
    public init(entitySet: String, key: EntityKey? = nil) {
        segments = [.entitySet(entitySet, key: key)]
    }

    /// The canonical URL of a request parsed by the protocol layer (`ResourceRequestParser`).
    public init(_ request: ResourceRequest, version: ODataVersion? = nil) {
        segments = [.text(RequestPrinter.canonicalURL(request, version: version))]
    }

    /// Follows a navigation property, to one of its entities when `key` is given.
    public func navigation(_ property: String, key: EntityKey? = nil) -> ResourcePath {
        var p = self
        p.segments.append(.navigation(property, key: key))
        return p
    }

    /// Appends a segment as written: a property (`Name`), `$count`, `$value`, a type cast.
    public func appending(_ segment: String) -> ResourcePath {
        var p = self
        p.segments.append(.raw(segment))
        return p
    }

    /// Adds a query option; its value is percent-encoded when the URL is made.
    public func query(_ name: String, _ value: QueryText) -> ResourcePath {
        var p = self
        p.query.append((name, value))
        return p
    }

    public func filter(_ expression: QueryText) -> ResourcePath { query("$filter", expression) }
    public func select(_ properties: String...) -> ResourcePath { query("$select", QueryText(properties.joined(separator: ","))) }
    public func expand(_ expansion: QueryText) -> ResourcePath { query("$expand", expansion) }
    public func orderBy(_ ordering: QueryText) -> ResourcePath { query("$orderby", ordering) }
    public func top(_ n: Int) -> ResourcePath { query("$top", QueryText(String(n))) }
    public func skip(_ n: Int) -> ResourcePath { query("$skip", QueryText(String(n))) }
    /// Asks for the total count with the results (`$count=true`; V2 `$inlinecount=allpages`).
    public func count() -> ResourcePath { query("$count", "true") }

    public static func == (a: ResourcePath, b: ResourcePath) -> Bool {
        a.segments == b.segments && a.query.map(\.name) == b.query.map(\.name) && a.query.map(\.value) == b.query.map(\.value)
    }

    /// The path with keys and literals as JSON and V4 spellings (the text sent is made with
    /// the service's model and version).
    public var description: String {
        var out = ""
        for (i, s) in segments.enumerated() {
            let sep = i == 0 ? "" : "/"
            switch s {
            case .text(let t): out += sep + t
            case .entitySet(let n, let k), .navigation(let n, let k): out += sep + n + (k.map { "(\($0))" } ?? "")
            case .raw(let r): out += sep + r
            }
        }
        for (i, q) in query.enumerated() {
            out += ((i == 0 && !out.contains("?")) ? "?" : "&") + q.name + "=" + q.value.description
        }
        return out
    }

    /// True when the path needs `$metadata` to become text (keys to type).
    var needsModel: Bool {
        segments.contains { s in
            switch s {
            case .entitySet(_, let k), .navigation(_, let k): k != nil
            default: false
            }
        }
    }

    /// The text of the path for the service: keys typed and spelled by `model`, query values
    /// percent-encoded. Throws `.notFound` for an unknown entity set or navigation property
    /// and `.invalidArgument` for a key that does not fit.
    func text(model: ServiceModel?, version: ODataVersion?) throws(ODataStoreError) -> String {
        var parts: [String] = []
        var currentType: String? = nil
        for s in segments {
            switch s {
            case .text(let t):
                parts.append(t)
                currentType = nil
            case .raw(let r):
                parts.append(URLEscaping.encode(r, .pathSegment))
                currentType = nil
            case .entitySet(let name, let key):
                if let key {
                    guard let model else { throw .state("the store has no $metadata yet to type the key of \(name)") }
                    parts.append(try key.path(entitySet: name, model: model))
                } else {
                    parts.append(URLEscaping.encode(name, .pathSegment))
                }
                if let model, let set = model.entitySet(name) {
                    currentType = model.resolve(set.entityType)
                } else {
                    currentType = nil
                }
            case .navigation(let name, let key):
                var text = URLEscaping.encode(name, .pathSegment)
                var target: String? = nil
                if let model, let ct = currentType, let t = model.structuredType(ct), let nav = model.navigationProperty(name, of: t) {
                    target = model.resolve(nav.targetType)
                }
                if let key {
                    guard let model else { throw .state("the store has no $metadata yet to type the key of \(name)") }
                    guard let target else {
                        throw ODataStoreError(.notFound, "\(name) is not a navigation property of \(currentType ?? "the previous segment")")
                    }
                    // keyPath types keys by an entity set: any set of the target type will do.
                    guard let set = model.entitySets.values.sorted(by: { $0.name < $1.name })
                        .first(where: { model.resolve($0.entityType) == target }) else {
                        throw ODataStoreError(.notFound, "no entity set holds \(target) entities")
                    }
                    let full = try key.path(entitySet: set.name, model: model)
                    text += full.dropFirst(URLEscaping.encode(set.name, .pathSegment).count)
                }
                parts.append(text)
                currentType = target
            }
        }
        var out = parts.joined(separator: "/")
        for (i, q) in query.enumerated() {
            let first = i == 0 && !out.contains("?")
            out += first ? "?" : "&"
            if version == .v2 && q.name == "$count" && q.value == "true" {
                out += "$inlinecount=allpages"  // V2's spelling of $count=true
                continue
            }
            out += URLEscaping.encode(q.name, .queryName) + "=" + URLEscaping.encode(q.value.text(for: version), .queryValue)
        }
        return out
    }

    /// The entity set the path starts with, when it was built from values.
    var entitySet: String? {
        if case .entitySet(let n, _)? = segments.first { return n }
        return nil
    }
}
