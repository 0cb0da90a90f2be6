/// The navigation properties a request expands, resolved against the store's tables: for
/// each, the local link and the nested options (`$filter`, `$select`, `$orderby`, `$top`,
/// `$skip`, `$count`, deeper `$expand`).
struct ExpandPlan: Sendable {
    struct Item: Sendable {
        let link: NavigationLink
        let options: QueryOptions
        let nested: ExpandPlan
        /// The expansion brings every related entity (no nested `$filter`, `$top`, `$skip`),
        /// so a download may replace the links it had.
        var isComplete: Bool { options.filter == nil && options.top == nil && options.skip == nil }
    }

    /// In `$expand` order.
    let items: [Item]

    static let none = ExpandPlan(items: [])

    func item(named name: String) -> Item? { items.first { $0.link.name == name } }

    /// Resolves `$expand` items on rows of `table`. `$expand=*`, `$ref` and `$count` items and
    /// type-cast paths other than the set's own derived types are refused as unsupported.
    /// `select` is the `$select` of the entities being expanded from: V2 selects properties
    /// of expanded entities there (`$select=ID,Products/Name`), which become the expansion's
    /// own `$select` when it has none.
    static func make(_ expand: [ExpandItem]?, on table: EntityTable, schema: StoreSchema,
                     select: [SelectItem]? = nil) throws(ODataStoreError) -> ExpandPlan {
        guard let expand else { return .none }
        var items: [Item] = []
        for e in expand {
            var path = e.path
            // A leading type cast to a derived type: its navigation is on the same table.
            if let first = path.first, first.contains("."), path.count > 1 { path.removeFirst() }
            guard path.count >= 1, !path.contains("*") else {
                throw ODataStoreError(.unsupported, "$expand=\(e.path.joined(separator: "/")) cannot be evaluated offline: use the navigation property's name")
            }
            if e.isRef || e.isCount {
                throw ODataStoreError(.unsupported, "$expand with \(e.isRef ? "$ref" : "$count") cannot be evaluated offline")
            }
            // V2 "A/B" expands A and, inside it, B.
            var current = table
            var chain: [NavigationLink] = []
            for name in path {
                let link = try schema.link(from: current, navigation: name).get()
                chain.append(link)
                current = link.target
            }
            var options = e.options
            if options.select == nil, let select {
                // The parent's select items under this navigation path, without the path.
                let inner = select.filter { $0.path.count > path.count && Array($0.path.prefix(path.count)) == path }
                    .map { SelectItem(path: Array($0.path.dropFirst(path.count)), position: $0.position) }
                if !inner.isEmpty { options.select = inner }
            }
            var nested = try make(options.expand, on: current, schema: schema, select: options.select)
            options.expand = nil
            // Build from the innermost navigation outwards.
            var item = Item(link: chain[chain.count - 1], options: options, nested: nested)
            for link in chain.dropLast().reversed() {
                nested = ExpandPlan(items: [item])
                item = Item(link: link, options: QueryOptions(), nested: nested)
            }
            if let i = items.firstIndex(where: { $0.link.name == item.link.name }) {
                // "A,A/B" (V2): merge the nested expansions.
                let merged = ExpandPlan(items: items[i].nested.items + item.nested.items)
                items[i] = Item(link: items[i].link, options: items[i].options, nested: merged)
            } else {
                items.append(item)
            }
        }
        return ExpandPlan(items: items)
    }
}
