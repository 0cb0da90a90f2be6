/// A request's resource path resolved against the store's tables: which table its entities
/// are in, how the rows are narrowed down by the key predicates and navigation segments, and
/// what kind of result it is.
struct ResolvedPath: Sendable {
    enum Result: Sendable, Equatable {
        /// A collection of entities.
        case collection
        /// One entity (key, singleton, to-one navigation).
        case entity
        /// `/$count` of a collection.
        case count
        /// A property of one entity (`Products(1)/Name`), possibly a complex member path.
        case property([String])
        /// `/$value` of a primitive property.
        case rawValue([String])
        /// `/$count` of a collection property of one entity (`Bags(1)/Nums/$count`).
        case propertyCount([String])
    }

    /// The table of the result's entities (for properties: of the entity they belong to).
    let table: EntityTable
    let result: Result
    /// Steps from the first segment to the result, outermost first: each a table, its key
    /// values (if a key predicate was given) and the link to the next step.
    let steps: [Step]

    struct Step: Sendable {
        let table: EntityTable
        /// Key values bound for this step's key columns, in `table.keyColumns` order.
        let key: [SQLValue]?
        /// The navigation from this step to the next one.
        let link: NavigationLink?
    }

    /// The last step's key predicate narrowed the result to one entity.
    var isKeyed: Bool { steps.last?.key != nil }

    /// Parses and checks an app's path (relative, or a full URL under the service root) as the
    /// online store would send it (a stray `%` means itself). Errors carry positions in `path`.
    static func parse(_ path: String, model: ServiceModel, serviceRoot: String) throws(ODataStoreError) -> ResourceRequest {
        let relative = DefiningRequest.relative(path, serviceRoot: serviceRoot)
        let (text, escaped) = RequestURL.escapingStrayPercents(relative)
        do {
            return try ResourceRequestParser(version: model.version).parse(text, checkingAgainst: model)
        } catch {
            let position = RequestURL.originalPosition(error.position, escaped: escaped) + (path.count - relative.count)
            throw ODataStoreError(.syntax, "\(error.message) (in \"\(path)\")", position: position)
        }
    }

    /// Resolves the checked segments of `request`.
    static func resolve(_ request: ResourceRequest, schema: StoreSchema) throws(ODataStoreError) -> ResolvedPath {
        try refuseUnevaluated(request.options, nested: false)
        let segments = request.segments
        guard let first = segments.first else {
            throw ODataStoreError(.unsupported, "the service document is not available offline")
        }
        switch first.role {
        case .entitySet, .singleton: break
        case .operationImport:
            throw ODataStoreError(.unsupported, "\(first.name) is a function or action import: it is not available offline (send it to the service: use an online store)")
        case .metadata:
            throw ODataStoreError(.unsupported, "$metadata is not served by the offline store (ods_store_check_url and the model give it)")
        case .batch:
            throw ODataStoreError(.unsupported, "$batch is not available offline")
        default:
            throw ODataStoreError(.unsupported, "'\(first.name)' cannot start a request to the offline store")
        }
        guard let table = schema.table(forSet: first.name) else {
            throw ODataStoreError(.notInScope, "\(first.name) is not in the offline store")
        }
        var steps: [Step] = []
        var current = table
        var key = try keyValues(first.arguments, table: table, request: request)
        var single = first.role == .singleton || key != nil
        var result: Result = single ? .entity : .collection
        var propertyPath: [String] = []
        var i = 1
        while i < segments.count {
            let s = segments[i]
            switch s.role {
            case .navigation:
                guard propertyPath.isEmpty else {
                    throw ODataStoreError(.unsupported, "navigation through a complex property (\(s.name)) cannot be evaluated offline")
                }
                let link = try schema.link(from: current, navigation: s.name).get()
                steps.append(Step(table: current, key: key, link: link))
                current = link.target
                key = try keyValues(s.arguments, table: current, request: request)
                single = key != nil || !link.isCollection
                result = single ? .entity : .collection
            case .typeCast:
                // A cast to the table's own derived types narrows nothing we store apart; a
                // key after the cast (`Products/NS.Derived(1)`) is not evaluated here.
                if s.arguments != nil || s.key != nil {
                    throw ODataStoreError(.unsupported, "a key predicate after the type cast \(s.name) cannot be evaluated offline")
                }
                i += 1
                continue
            case .property:
                guard single else {
                    throw ODataStoreError(.unsupported, "'\(s.name)' after a collection cannot be evaluated offline")
                }
                propertyPath.append(s.name)
                result = .property(propertyPath)
            case .count:
                if case .property(let p) = result {
                    // A collection property (`Nums/$count`), kept as one JSON array column.
                    result = .propertyCount(p)
                    i += 1
                    continue
                }
                guard case .collection = result else {
                    throw ODataStoreError(.unsupported, "$count of a single entity cannot be evaluated offline")
                }
                result = .count
            case .value:
                guard case .property(let p) = result else {
                    throw ODataStoreError(.unsupported, "$value of an entity (media) is not available offline")
                }
                result = .rawValue(p)
            case .ref, .links:
                throw ODataStoreError(.unsupported, "\(s.name) (entity references) cannot be evaluated offline")
            case .boundOperation:
                throw ODataStoreError(.unsupported, "\(s.name) is a bound function or action: it is not available offline")
            default:
                throw ODataStoreError(.unsupported, "'\(s.name)' cannot be evaluated offline")
            }
            i += 1
        }
        steps.append(Step(table: current, key: key, link: nil))
        return ResolvedPath(table: current, result: result, steps: steps)
    }

    /// Query options the offline store does not evaluate, refused rather than ignored:
    /// `$apply`, `$compute`, `$index`, options and operations in `$select`, and, in nested
    /// `$expand` options, aliases and `$it` (which there names the resource the path
    /// addresses, not the expanded row).
    static func refuseUnevaluated(_ o: QueryOptions, nested: Bool) throws(ODataStoreError) {
        func refuse(_ what: String) -> ODataStoreError { ODataStoreError(.unsupported, "\(what) cannot be evaluated offline") }
        if o.apply != nil { throw refuse("$apply") }
        if o.compute != nil { throw refuse("$compute") }
        if o.index != nil { throw refuse("$index") }
        for item in o.select ?? [] where item.parameters != nil || !item.options.isEmpty {
            throw refuse("$select=\(item.path.joined(separator: "/"))(…)")
        }
        if nested {
            if !o.aliases.isEmpty { throw refuse("a parameter alias inside $expand") }
            if let f = o.filter, mentionsIt(f) { throw refuse("$it inside $expand") }
            for item in o.orderBy ?? [] where mentionsIt(item.expression) { throw refuse("$it inside $expand") }
        }
        for item in o.expand ?? [] { try refuseUnevaluated(item.options, nested: true) }
    }

    /// Whether `$it` appears in `e` (lambda predicates and function arguments included).
    static func mentionsIt(_ e: FilterExpression) -> Bool {
        var stack = [e]
        while let x = stack.popLast() {
            switch x.kind {
            case .literal, .alias: break
            case .member(let m):
                if m.root == .it { return true }
                if let p = m.lambda?.predicate { stack.append(p) }
                for s in m.segments {
                    switch s {
                    case .filter(let f): stack.append(f)
                    case .function(_, let args): stack += args.map(\.value)
                    default: break
                    }
                }
            case .unary(_, let a): stack.append(a)
            case .binary(_, let a, let b): stack += [a, b]
            case .inList(let a, let items): stack.append(a); stack += items
            case .call(_, let args): stack += args
            case .typeFunction(_, let a, _): if let a { stack.append(a) }
            case .array(let items): stack += items
            case .object(let members): stack += members.map(\.value)
            }
        }
        return false
    }

    /// The key predicate's values in key-column order, bound as the columns store them.
    static func keyValues(_ args: SegmentArguments?, table: EntityTable, request: ResourceRequest) throws(ODataStoreError) -> [SQLValue]? {
        guard let args else { return nil }
        var byName: [String: ArgumentValue] = [:]
        switch args {
        case .empty: return nil
        case .positional(let v):
            guard let name = table.keyNames.first, table.keyNames.count == 1 else {
                throw ODataStoreError(.invalidArgument, "\(table.entitySet) has a compound key: name its parts")
            }
            byName[name] = v
        case .named(let pairs):
            for p in pairs { byName[p.name] = p.value }
        }
        var out: [SQLValue] = []
        for (name, column) in zip(table.keyNames, table.keyColumns) {
            guard let v = byName[name] else { throw ODataStoreError(.invalidArgument, "key property \(name) of \(table.entitySet) is missing") }
            let literal: Literal
            switch v {
            case .literal(let l): literal = l
            case .alias(let a):
                guard let alias = request.options.aliases.first(where: { $0.name == a }), case .literal(let l) = alias.value.kind else {
                    throw ODataStoreError(.unsupported, "key alias @\(a) must be a literal to be evaluated offline")
                }
                literal = l
            }
            out.append(try LiteralValue.sqlValue(literal, for: column))
        }
        return out
    }
}
