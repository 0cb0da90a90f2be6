/// Query options against the model: `$apply`, `$compute`, `$filter`, `$orderby`, `$select`,
/// `$expand` and nested options (where `$this` is the selected or expanded item and `$it` the
/// resource the path addresses).
extension ResourceRequestChecker {
    typealias Context = FilterTypeChecker.Context

    func checkOptions(_ o: QueryOptions, cursor: Cursor, _ typer: FilterTypeChecker, it: ExpressionType?,
                      topLevel: Bool) throws(URLParseError) -> QueryOptions {
        guard cursor != .unchecked else { return o }
        var o = o
        let this = contextType(cursor)
        var typer = typer
        if !topLevel {
            // Nested aliases (`@a=$this`) are typed where they stand and visible inside.
            var typed: [ParameterAlias] = []
            for a in o.aliases {
                typer.aliases[a.name] = a.value
                typed.append(ParameterAlias(name: a.name, value: try typer.check(a.value, in: Context(it: it, this: this))))
            }
            o.aliases = typed
        }
        var computed: [String: ExpressionType] = [:]
        if let apply = o.apply {
            guard this != nil else { throw URLParseError("$apply needs a collection of entities or complex values", at: 0) }
            o.apply = try checkApply(apply, it: it, this: this, &computed, typer)
        }
        if let items = o.compute {
            guard this != nil else { throw URLParseError("$compute needs entities or complex values", at: items.first?.expression.position ?? 0) }
            o.compute = try checkCompute(items, it: it, this: this, &computed, typer)
        }
        let context = Context(it: it, this: this, computed: computed)
        if let f = o.filter {
            guard this != nil else { throw URLParseError("$filter needs a collection of entities or complex values", at: f.position) }
            o.filter = try typer.checkPredicate(f, in: context)
        }
        if let items = o.orderBy {
            var typed: [OrderByItem] = []
            for item in items {
                guard this != nil else {
                    throw URLParseError("$orderby needs a collection of entities or complex values", at: item.expression.position)
                }
                let e = try typer.check(item.expression, in: context)
                switch e.type {
                case .primitive?, .enumeration?, .null?: break
                default: throw URLParseError("cannot order by a value of type \(e.type.map { "\($0)" } ?? "?")", at: e.position)
                }
                typed.append(OrderByItem(expression: e, descending: item.descending))
            }
            o.orderBy = typed
        }
        if let select = o.select {
            var typed: [SelectItem] = []
            for item in select { typed.append(try checkSelect(item, this, computed, typer, it: it)) }
            o.select = typed
        }
        if let expand = o.expand {
            var typed: [ExpandItem] = []
            for item in expand { typed.append(try checkExpand(item, this, typer, it: it)) }
            o.expand = typed
        }
        return o
    }

    func checkCompute(_ items: [ComputeItem], it: ExpressionType?, this: ExpressionType?, _ computed: inout [String: ExpressionType],
                      _ typer: FilterTypeChecker) throws(URLParseError) -> [ComputeItem] {
        var typed: [ComputeItem] = []
        for item in items {
            let e = try typer.check(item.expression, in: Context(it: it, this: this, computed: computed))
            computed[item.alias] = e.type ?? .null
            typed.append(ComputeItem(expression: e, alias: item.alias))
        }
        return typed
    }

    // MARK: - $apply

    func checkApply(_ ts: [ApplyTransformation], it: ExpressionType?, this: ExpressionType?, _ computed: inout [String: ExpressionType],
                    _ typer: FilterTypeChecker) throws(URLParseError) -> [ApplyTransformation] {
        var out: [ApplyTransformation] = []
        for t in ts {
            let context = Context(it: it, this: this, computed: computed)
            switch t {
            case .filter(let e):
                out.append(.filter(try typer.checkPredicate(e, in: context)))
            case .orderBy(let items):
                var typed: [OrderByItem] = []
                for item in items { typed.append(OrderByItem(expression: try typer.check(item.expression, in: context), descending: item.descending)) }
                out.append(.orderBy(typed))
            case .compute(let items):
                out.append(.compute(try checkCompute(items, it: it, this: this, &computed, typer)))
            case .aggregate(let items):
                var typed: [AggregateItem] = []
                for item in items { typed.append(try checkAggregate(item, context, &computed, typer)) }
                out.append(.aggregate(typed))
            case .groupBy(let paths, let nested):
                var typed: [FilterExpression] = []
                for p in paths {
                    let e = try typer.check(p, in: context)
                    switch e.type {
                    case .collection?: throw URLParseError("cannot group by a collection", at: e.position)
                    default: break
                    }
                    typed.append(e)
                }
                var inner = computed
                let n = try nested.map { (ts) throws(URLParseError) in try checkApply(ts, it: it, this: this, &inner, typer) }
                for (k, v) in inner { computed[k] = v }
                out.append(.groupBy(typed, n))
            case .concat(let seqs):
                var typedSeqs: [[ApplyTransformation]] = []
                var merged = computed
                for seq in seqs {
                    var inner = computed
                    typedSeqs.append(try checkApply(seq, it: it, this: this, &inner, typer))
                    for (k, v) in inner { merged[k] = v }
                }
                computed = merged
                out.append(.concat(typedSeqs))
            case .search, .top, .skip, .identity, .function:
                out.append(t)
            }
        }
        return out
    }

    func checkAggregate(_ item: AggregateItem, _ context: Context, _ computed: inout [String: ExpressionType],
                        _ typer: FilterTypeChecker) throws(URLParseError) -> AggregateItem {
        var out = item
        var result: ExpressionType = .primitive(.int64)
        if let e = item.expression {
            let typed = try typer.check(e, in: context)
            out.expression = typed
            switch item.method {
            case nil:
                // Path/$count, or a custom aggregate: custom aggregates are declared by
                // annotations this library does not load.
                if case .member(let m) = typed.kind, m.segments.last == .count {
                    result = .primitive(.int64)
                } else {
                    throw URLParseError("'\(FilterPrinter.print(e, version: model.version))' is not a custom aggregate known from $metadata; aggregate a property with 'with sum', 'with min', …", at: e.position)
                }
            case "countdistinct"?:
                result = .primitive(.int64)
            case "sum"?, "average"?:
                guard typed.type == .null || TypeCompatibility.isNumeric(typed.type ?? .null) else {
                    throw URLParseError("\(item.method ?? "") needs a number, found \(typed.type.map { "\($0)" } ?? "?")", at: typed.position)
                }
                result = item.method == "average" ? .primitive(.double) : (typed.type ?? .null)
            case "min"?, "max"?:
                switch typed.type {
                case .primitive?, .enumeration?, .null?: result = typed.type ?? .null
                default: throw URLParseError("\(item.method ?? "") needs a value that orders, found \(typed.type.map { "\($0)" } ?? "?")", at: typed.position)
                }
            default:
                result = .null
            }
        }
        if let alias = item.alias { computed[alias] = result }
        return out
    }

    // MARK: - $select

    func checkSelect(_ item: SelectItem, _ context: ExpressionType?, _ computed: [String: ExpressionType], _ typer: FilterTypeChecker,
                     it: ExpressionType?) throws(URLParseError) -> SelectItem {
        guard case .structured(var typeName) = context else {
            throw URLParseError("$select needs entities or complex values", at: item.position)
        }
        var target: Cursor? = nil
        var navigation = false
        for (i, seg) in item.path.enumerated() {
            let last = i == item.path.count - 1
            if seg == "*" || seg.hasSuffix(".*") || seg.hasPrefix("@") || seg == "$value" { return item }
            if i == 0, computed[seg] != nil { return item }
            guard let type = model.structuredType(typeName) else { return item }
            if seg.contains(".") {
                if let n = model.qualifiedStructuredTypeName(seg) {
                    typeName = n
                    continue
                }
                try checkSelectedOperation(seg, item, typeName)
                return item
            }
            if let p = model.property(seg, of: type) {
                let c = cursor(for: p.type)
                switch c {
                case .complex(let t), .complexCollection(let t):
                    typeName = t
                    target = c
                    continue
                default:
                    if !last { throw URLParseError("'\(seg)' has no properties to select", at: item.position) }
                    target = c
                }
                continue
            }
            if let n = model.navigationProperty(seg, of: type) {
                typeName = model.resolve(n.targetType)
                navigation = true
                target = nil
                continue
            }
            if let n = model.qualifiedStructuredTypeName(seg), let derived = model.types[n],
               model.lineage(of: derived).contains(where: { $0.qualifiedName == typeName }) {
                typeName = n
                continue
            }
            if model.boundOperation(named: seg, binding: .structured(typeName)) != nil {
                try checkSelectedOperation(seg, item, typeName)
                return item
            }
            if model.lineage(of: type).contains(where: \.isOpen) { return item }
            throw URLParseError("type \(typeName) has no property '\(seg)' (in $select)", at: item.position)
        }
        guard !item.options.isEmpty else { return item }
        var out = item
        switch target {
        case .primitiveCollection?:
            let pcOnly: Set<String> = ["$filter", "$search", "$count", "$orderby", "$skip", "$top"]
            if item.options.select != nil || item.options.compute != nil || !item.options.aliases.isEmpty {
                _ = pcOnly
                throw URLParseError("only $filter, $search, $count, $orderby, $skip and $top apply to a collection of primitive values", at: item.position)
            }
        case .complex?, .complexCollection?:
            break
        default:
            throw URLParseError(navigation ? "options on a navigation property go in $expand, not $select"
                                           : "options in $select need a collection-valued or complex property", at: item.position)
        }
        out.options = try checkOptions(item.options, cursor: target ?? .unchecked, typer, it: it, topLevel: false)
        return out
    }

    /// `NS.Op` or `Op(P1,P2)` in `$select`: an operation bound to the type, with those
    /// parameter names.
    func checkSelectedOperation(_ name: String, _ item: SelectItem, _ typeName: String) throws(URLParseError) {
        let ops = model.operations(named: name).filter { model.bindingAccepts($0, .structured(typeName)) || model.bindingAccepts($0, .collection(.structured(typeName))) }
        guard !ops.isEmpty else { throw URLParseError("unknown type or operation '\(name)' in $select", at: item.position) }
        if let names = item.parameters {
            guard ops.contains(where: { op in Set(op.parameters.dropFirst().map(\.name)) == Set(names) }) else {
                throw URLParseError("no overload of \(name) has the parameters (\(names.joined(separator: ",")))", at: item.position)
            }
        }
    }

    // MARK: - $expand

    func checkExpand(_ item: ExpandItem, _ context: ExpressionType?, _ typer: FilterTypeChecker, it: ExpressionType?) throws(URLParseError) -> ExpandItem {
        guard case .structured(var typeName) = context else { throw URLParseError("$expand needs entities", at: item.position) }
        var isCollection = false
        var sawNavigation = false
        var checkedAll = false
        for seg in item.path {
            if seg == "*" || seg.hasPrefix("@") { checkedAll = true; break }
            guard let type = model.structuredType(typeName) else { return item }
            if seg == "$value" {
                guard model.lineage(of: type).contains(where: \.hasStream) else {
                    throw URLParseError("$expand=$value needs a media entity; \(typeName) has no stream", at: item.position)
                }
                checkedAll = true
                break
            }
            if seg.contains(".") {
                guard let n = model.qualifiedStructuredTypeName(seg) else { throw URLParseError("unknown type '\(seg)' in $expand", at: item.position) }
                typeName = n
                continue
            }
            if let n = model.navigationProperty(seg, of: type) {
                typeName = model.resolve(n.targetType)
                isCollection = n.isCollection
                sawNavigation = true
                continue
            }
            if model.version != .v2, !sawNavigation, let p = model.property(seg, of: type), model.structuredType(p.type.name) != nil {
                typeName = model.resolve(p.type.name)
                continue
            }
            if let p = model.property(seg, of: type), model.primitiveKind(of: p.type.name) == .stream { checkedAll = true; break }
            if model.version != .v2, let n = model.qualifiedStructuredTypeName(seg), let derived = model.types[n],
               model.lineage(of: derived).contains(where: { $0.qualifiedName == typeName }) {
                typeName = n
                continue
            }
            throw URLParseError("type \(typeName) has no navigation property '\(seg)' (in $expand)", at: item.position)
        }
        if !checkedAll && !sawNavigation {
            throw URLParseError("$expand path must end in a navigation property", at: item.position)
        }
        var out = item
        if !item.options.isEmpty {
            let cursor: Cursor = checkedAll ? .unchecked : (isCollection || item.isRef ? .entityCollection(typeName) : .entity(typeName))
            out.options = try checkOptions(item.options, cursor: cursor, typer, it: it, topLevel: false)
        }
        return out
    }
}
