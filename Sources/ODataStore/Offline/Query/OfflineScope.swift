/// What the defining requests make visible: the entity sets whose rows they bring down
/// (their own and those of their expansions), and the navigations whose related rows the
/// store can find. Reads outside it fail with `.notInScope` rather than answer from data
/// that was never downloaded.
///
/// A navigation with a referential constraint joins on columns: it is covered when its
/// target set is. One without (a link table) is covered in the direction a defining request
/// expanded it, since only those downloads recorded its links, and in the partner's direction
/// too when that defining request read a whole entity set and expanded it completely (then
/// every link of the downloaded entities is recorded).
struct OfflineScope: Sendable {
    private(set) var sets: Set<String> = []
    /// Link tables whose links are known in a direction: "table|reversed".
    private(set) var linkDirections: Set<String> = []

    init(_ definitions: [DefiningRequest]) {
        for d in definitions {
            sets.insert(d.table.entitySet)
            // A whole entity set (no key, no $filter/$top/$skip) expanded completely records
            // every link of its entities: the partner direction is complete too.
            let o = d.request.options
            let wholeSet = d.resolved.steps.count == 1 && d.resolved.result == .collection
                && o.filter == nil && o.top == nil && o.skip == nil && o.search == nil
            add(d.expand, wholeSet: wholeSet)
        }
    }

    private mutating func add(_ plan: ExpandPlan, wholeSet: Bool) {
        for item in plan.items {
            sets.insert(item.link.target.entitySet)
            if case .linkTable(let table, let reversed) = item.link.join {
                linkDirections.insert("\(table)|\(reversed)")
                if wholeSet && item.isComplete { linkDirections.insert("\(table)|\(!reversed)") }
            }
            add(item.nested, wholeSet: false)
        }
    }

    func covers(_ table: EntityTable) -> Bool { sets.contains(table.entitySet) }

    func check(_ link: NavigationLink) throws(ODataStoreError) {
        guard covers(link.target) else {
            throw ODataStoreError(.notInScope, "\(link.target.entitySet) (through \(link.source.entitySet)/\(link.name)) is not in the offline store: no defining request brought it down")
        }
        if case .linkTable(let table, let reversed) = link.join, !linkDirections.contains("\(table)|\(reversed)") {
            throw ODataStoreError(.notInScope, "\(link.source.entitySet)/\(link.name) is not in the offline store: no defining request expanded it (and $metadata gives no referential constraint to join on)")
        }
    }

    func check(_ plan: ExpandPlan, schema: StoreSchema) throws(ODataStoreError) {
        for item in plan.items {
            try check(item.link)
            try checkFilterPaths(item.options.filter, table: item.link.target, schema: schema)
            for o in item.options.orderBy ?? [] {
                try checkFilterPaths(o.expression, table: item.link.target, schema: schema)
            }
            try check(item.nested, schema: schema)
        }
    }

    /// Checks the navigation paths of a `$filter`/`$orderby` expression evaluated on rows of `table`.
    func checkFilterPaths(_ e: FilterExpression?, table: EntityTable, schema: StoreSchema) throws(ODataStoreError) {
        guard let e else { return }
        try walk(e, table: table, variables: [:], schema: schema)
    }

    private func walk(_ e: FilterExpression, table: EntityTable, variables: [String: EntityTable], schema: StoreSchema) throws(ODataStoreError) {
        switch e.kind {
        case .literal, .alias: return
        case .unary(_, let x): try walk(x, table: table, variables: variables, schema: schema)
        case .binary:
            // Left spines can be long (a or b or c ...): walk them in a loop.
            let spine = e.leftSpine
            for node in spine {
                switch node.kind {
                case .binary(_, _, let r): try walk(r, table: table, variables: variables, schema: schema)
                case .inList(_, let items): for i in items { try walk(i, table: table, variables: variables, schema: schema) }
                default: try walk(node, table: table, variables: variables, schema: schema)
                }
            }
        case .inList(let x, let items):
            try walk(x, table: table, variables: variables, schema: schema)
            for i in items { try walk(i, table: table, variables: variables, schema: schema) }
        case .call(_, let args):
            for a in args { try walk(a, table: table, variables: variables, schema: schema) }
        case .typeFunction(_, let x, _):
            if let x { try walk(x, table: table, variables: variables, schema: schema) }
        case .array, .object:
            // JSON literals: the translator refuses them as unsupported.
            return
        case .member(let m):
            var current: EntityTable? = table
            if case .rangeVariable(let v) = m.root { current = variables[v] }
            for segment in m.segments {
                guard let t = current, case .property(let name) = segment else { continue }
                if t.column(name) != nil { current = nil; continue }
                if case .success(let link) = schema.link(from: t, navigation: name) {
                    try check(link)
                    current = link.target
                } else {
                    current = nil
                }
            }
            if let lambda = m.lambda, let predicate = lambda.predicate {
                var inner = variables
                if let v = lambda.variable, let t = current { inner[v] = t }
                try walk(predicate, table: table, variables: inner, schema: schema)
            }
        }
    }
}
