/// A defining request: a READ whose result the offline store downloads and keeps, parsed and
/// checked against `$metadata` before anything is created.
///
/// Accepted: an entity set, a singleton, an entity by key, and navigation from them
/// (`Customers('A')/Orders`), with `$filter`, `$select`, `$expand` (nested options too),
/// `$orderby`, `$top`, `$skip`, `$search` and custom options, which go to the service as
/// written. Refused, with the reason: properties, `$count`, `$value`, `$ref`, functions and
/// actions, `$apply`, `$format`, and a `$select` that leaves out key properties (rows are
/// stored by key).
struct DefiningRequest: Sendable {
    /// As the app gave it (relative to the service root).
    let path: String
    let request: ResourceRequest
    let resolved: ResolvedPath
    let expand: ExpandPlan
    /// The table the request's own entities go into.
    var table: EntityTable { resolved.table }

    /// Checks `path` (syntax and schema). Errors carry the character position in `path`.
    static func make(_ path: String, model: ServiceModel, schema: StoreSchema, serviceRoot: String) throws(ODataStoreError) -> DefiningRequest {
        let relative = Self.relative(path, serviceRoot: serviceRoot)
        let (text, escaped) = RequestURL.escapingStrayPercents(relative)
        let request: ResourceRequest
        do {
            request = try ResourceRequestParser(version: model.version).parse(text, checkingAgainst: model)
        } catch {
            let position = RequestURL.originalPosition(error.position, escaped: escaped) + (path.count - relative.count)
            throw ODataStoreError(.syntax, "defining request \"\(path)\": \(error.message)", position: position)
        }
        let resolved: ResolvedPath
        do {
            resolved = try ResolvedPath.resolve(request, schema: schema)
        } catch {
            throw ODataStoreError(error.code == .notInScope ? .invalidArgument : error.code, "defining request \"\(path)\": \(error.message)")
        }
        switch resolved.result {
        case .collection, .entity: break
        default:
            throw ODataStoreError(.invalidArgument, "defining request \"\(path)\" must read entities (an entity set, an entity, or a navigation), not a property or a count")
        }
        let o = request.options
        if o.format != nil { throw ODataStoreError(.invalidArgument, "defining request \"\(path)\": $format is chosen by the store; leave it out") }
        if let other = o.otherSystemOptions.first {
            throw ODataStoreError(.invalidArgument, "defining request \"\(path)\": \(other.name) is not allowed in a defining request")
        }
        try Self.checkKeysSelected(o.select, table: resolved.table, path: path)
        let expand: ExpandPlan
        do {
            expand = try ExpandPlan.make(o.expand, on: resolved.table, schema: schema)
        } catch {
            throw ODataStoreError(error.code, "defining request \"\(path)\": \(error.message)")
        }
        try Self.checkNestedSelects(expand, path: path)
        return DefiningRequest(path: relative, request: request, resolved: resolved, expand: expand)
    }

    /// The part of `path` after the service root, when it is a full URL under it.
    static func relative(_ path: String, serviceRoot: String) -> String {
        let root = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        if path.hasPrefix(root) { return String(path.dropFirst(root.count)) }
        var p = Substring(path)
        while p.hasPrefix("/") { p = p.dropFirst() }
        return String(p)
    }

    private static func checkKeysSelected(_ select: [SelectItem]?, table: EntityTable, path: String) throws(ODataStoreError) {
        guard let select, !select.contains(where: { $0.path == ["*"] }) else { return }
        let selected = Set(select.compactMap(\.path.first))
        let missing = table.keyColumns.map { $0.path[0] }.filter { !selected.contains($0) }
        if !missing.isEmpty {
            throw ODataStoreError(.invalidArgument, "defining request \"\(path)\": $select must include the key properties of \(table.entitySet) (\(missing.joined(separator: ", "))); the store keeps entities by key")
        }
    }

    private static func checkNestedSelects(_ plan: ExpandPlan, path: String) throws(ODataStoreError) {
        for item in plan.items {
            try checkKeysSelected(item.options.select, table: item.link.target, path: path)
            try checkNestedSelects(item.nested, path: path)
        }
    }

    /// The URL path (relative to the service root) the first page is downloaded from: the
    /// request as written, asking for the total count when it reads a collection.
    func downloadPath(version: ODataVersion) -> String {
        guard resolved.result == .collection, request.options.count == nil, request.options.top == nil else { return path }
        let option = version == .v2 ? "$inlinecount=allpages" : "$count=true"
        return path + (path.contains("?") ? "&" : "?") + option
    }
}
