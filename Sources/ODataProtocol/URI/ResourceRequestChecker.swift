/// The schema-checked parse: validates a syntactically parsed `ResourceRequest` against a
/// `ServiceModel` and returns it with every path segment's `role` resolved and the `$filter`,
/// `$orderby` and parameter-alias expressions typed.
///
/// Checks: the first segment names an entity set, singleton or operation import; key
/// predicates have the key's arity, names and literal types; navigation, property, type-cast,
/// `$count`, `$value`, `$links` (V2) and `$ref` (V4) segments fit what precedes them; V4
/// function parameters match the operation (aliases must have values); V2 function-import
/// parameters are taken from the query string (they move from `customOptions` into the
/// segment's `arguments`); `$select` and `$expand` paths exist (nested options checked against
/// the expanded type). Errors carry the position stored in the request (characters in the URL).
public struct ResourceRequestChecker: Sendable {
    public let model: ServiceModel

    public init(model: ServiceModel) { self.model = model }

    /// What the path addresses after each segment.
    enum Cursor: Equatable {
        case entityCollection(String)
        case entity(String)
        case complex(String)
        case complexCollection(String)
        case primitive(EdmPrimitiveKind)
        case primitiveCollection(EdmPrimitiveKind)
        /// Nothing may follow (`$count`, `$value`, `$ref`, `$metadata`, `$batch`).
        case terminal
        /// Unknown type (`$1`, `$all`, an operation without return type): not checked further.
        case unchecked
    }

    func fail(_ message: String, _ segment: PathSegment) -> URLParseError { URLParseError(message, at: segment.position) }

    func cursor(for ref: TypeReference) -> Cursor {
        let name = model.resolve(ref.name)
        if let k = model.primitiveKind(of: name) { return ref.isCollection ? .primitiveCollection(k) : .primitive(k) }
        if model.enumTypes[name] != nil { return ref.isCollection ? .primitiveCollection(.other) : .primitive(.other) }
        guard let t = model.types[name] else { return .unchecked }
        switch t.kind {
        case .entity: return ref.isCollection ? .entityCollection(name) : .entity(name)
        case .complex: return ref.isCollection ? .complexCollection(name) : .complex(name)
        }
    }

    public func check(_ request: ResourceRequest) throws(URLParseError) -> ResourceRequest {
        var r = request
        var cursor: Cursor = .unchecked
        var options = r.options
        let aliases = Dictionary(options.aliases.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let typer = FilterTypeChecker(model: model, aliases: aliases)
        // What query options apply to: the resource before a closing `$count`/`$ref`, the
        // navigation target after `$links/`.
        var optionsCursor: Cursor = .terminal
        var i = 0
        while i < r.segments.count {
            var s = r.segments[i]
            if i == 0 {
                cursor = try first(&s, &options, typer)
            } else {
                cursor = try next(&s, after: cursor, previous: r.segments[i - 1], typer)
                if r.segments[i - 1].role == .links {
                    optionsCursor = cursor
                    cursor = .terminal
                }
            }
            if cursor != .terminal { optionsCursor = cursor }
            r.segments[i] = s
            i += 1
        }
        if r.segments.last?.role == .value { optionsCursor = .terminal }
        cursor = optionsCursor
        var typedAliases: [ParameterAlias] = []
        for a in options.aliases {
            let typed: FilterExpression
            if let context = contextType(cursor) {
                typed = try typer.check(a.value, context: context)
            } else {
                typed = try typer.checkFree(a.value)
            }
            typedAliases.append(ParameterAlias(name: a.name, value: typed))
        }
        options.aliases = typedAliases
        r.options = try checkOptions(options, cursor: cursor, typer, topLevel: true)
        return r
    }

    /// The structured type that `$it` refers to for query options on this resource.
    func contextType(_ c: Cursor) -> String? {
        switch c {
        case .entityCollection(let t), .entity(let t), .complex(let t), .complexCollection(let t): return t
        default: return nil
        }
    }

    // MARK: - Path

    func first(_ s: inout PathSegment, _ options: inout QueryOptions, _ typer: FilterTypeChecker) throws(URLParseError) -> Cursor {
        switch s.role {
        case .metadata, .batch: return .terminal
        case .contentID, .all, .entity: return .unchecked
        case .unresolved: break
        default: throw fail("'\(s.name)' cannot start a resource path", s)
        }
        if let set = model.entitySets[s.name] {
            let typeName = model.resolve(set.entityType)
            guard model.types[typeName] != nil else { throw fail("entity type \(typeName) of '\(s.name)' is not in the model", s) }
            if set.isSingleton {
                s.role = .singleton
                if s.arguments != nil { throw fail("singleton '\(s.name)' takes no key", s) }
                return .entity(typeName)
            }
            s.role = .entitySet
            guard let args = s.arguments else { return .entityCollection(typeName) }
            try checkKey(args, of: typeName, s, typer)
            return .entity(typeName)
        }
        if let op = model.operationImports[s.name] {
            s.role = .operationImport
            try checkParameters(&s, op, &options, typer)
            return op.returnType.map { cursor(for: $0) } ?? .terminal
        }
        throw fail("no entity set, singleton or operation import named '\(s.name)'", s)
    }

    func next(_ s: inout PathSegment, after c: Cursor, previous: PathSegment, _ typer: FilterTypeChecker) throws(URLParseError) -> Cursor {
        if c == .unchecked { return .unchecked }
        if c == .terminal { throw fail("nothing may follow '\(previous.name)'", s) }
        switch s.role {
        case .count:
            switch c {
            case .entityCollection, .complexCollection, .primitiveCollection: return .terminal
            default: throw fail("$count needs a collection", s)
            }
        case .value:
            switch c {
            case .primitive: return .terminal
            case .entity(let t):
                guard let type = model.types[t], model.lineage(of: type).contains(where: \.hasStream) else {
                    throw fail("$value needs a media entity or a primitive property; \(t) has no stream", s)
                }
                return .terminal
            default: throw fail("$value needs a media entity or a primitive property", s)
            }
        case .ref:
            guard model.version != .v2 else { throw fail("$ref is V4; V2 uses $links", s) }
            switch c {
            case .entity, .entityCollection: return .terminal
            default: throw fail("$ref needs an entity or a collection of entities", s)
            }
        case .links:
            guard model.version != .v4 else { throw fail("$links is V2; V4 uses $ref", s) }
            guard case .entity = c else { throw fail("$links needs a single entity", s) }
            return c
        case .unresolved:
            break
        default:
            throw fail("'\(s.name)' is not allowed here", s)
        }
        if s.name.contains(".") { return try qualified(&s, after: c, typer) }
        let typeName: String
        switch c {
        case .entity(let t), .complex(let t): typeName = t
        case .entityCollection:
            throw fail("'\(s.name)' follows a collection; address one entity with a key first", s)
        default:
            throw fail("'\(s.name)' follows a value that has no properties", s)
        }
        guard let type = model.types[typeName] else { return .unchecked }
        let linksBefore = previous.role == .links
        if let nav = model.navigationProperty(s.name, of: type) {
            s.role = .navigation
            let target = model.resolve(nav.targetType)
            if let args = s.arguments {
                guard nav.isCollection else { throw fail("'\(s.name)' is single-valued and takes no key", s) }
                try checkKey(args, of: target, s, typer)
                return .entity(target)
            }
            return nav.isCollection ? .entityCollection(target) : .entity(target)
        }
        if linksBefore { throw fail("$links must be followed by a navigation property of \(typeName)", s) }
        if let p = model.property(s.name, of: type) {
            s.role = .property
            if s.arguments != nil { throw fail("property '\(s.name)' takes no parentheses", s) }
            return cursor(for: p.type)
        }
        if model.lineage(of: type).contains(where: \.isOpen) {
            s.role = .property
            return .unchecked
        }
        throw fail("type \(typeName) has no property or navigation property '\(s.name)'", s)
    }

    /// A qualified name after an entity, collection or complex value: a type cast or a bound
    /// operation.
    func qualified(_ s: inout PathSegment, after c: Cursor, _ typer: FilterTypeChecker) throws(URLParseError) -> Cursor {
        let name = model.resolve(s.name)
        if let derived = model.types[name], s.arguments == nil {
            s.role = .typeCast
            let base: String
            switch c {
            case .entity(let t), .entityCollection(let t), .complex(let t), .complexCollection(let t): base = t
            default: throw fail("type cast '\(s.name)' needs an entity or complex value", s)
            }
            guard model.lineage(of: derived).contains(where: { $0.qualifiedName == base }) else {
                throw fail("\(name) does not derive from \(base)", s)
            }
            switch c {
            case .entity: return .entity(name)
            case .entityCollection: return .entityCollection(name)
            case .complex: return .complex(name)
            default: return .complexCollection(name)
            }
        }
        if let overloads = model.operations[name], let op = overloads.first(where: \.isBound) {
            s.role = .boundOperation
            if let args = s.arguments, let pairs = args.namedArguments {
                let declared = Set(op.parameters.dropFirst().map(\.name))
                for p in pairs where !declared.contains(p.name) {
                    throw fail("\(name) has no parameter '\(p.name)'", s)
                }
            } else if s.arguments != nil {
                throw fail("parameters of \(name) must be named", s)
            }
            return op.returnType.map { cursor(for: $0) } ?? .terminal
        }
        throw fail("no type or bound operation named '\(s.name)'", s)
    }

    // MARK: - Keys and parameters

    func checkKey(_ args: SegmentArguments, of typeName: String, _ s: PathSegment, _ typer: FilterTypeChecker) throws(URLParseError) {
        guard let type = model.types[typeName] else { return }
        let key = model.keyProperties(of: type)
        let names = key.map(\.name)
        func fits(_ v: ArgumentValue, _ entry: (name: String, property: StructuralProperty)) throws(URLParseError) {
            guard case .literal(let l) = v, let k = model.primitiveKind(of: entry.property.type.name) else { return }
            if l == .null { throw fail("key property '\(entry.name)' cannot be null", s) }
            guard TypeCompatibility.literal(l, fits: k) else {
                throw fail("key property '\(entry.name)' is \(k.rawValue); \(l.withArticle) literal does not fit", s)
            }
        }
        switch args {
        case .empty:
            throw fail("empty key predicate for \(typeName)", s)
        case .positional(let v):
            guard key.count == 1 else {
                throw fail("\(typeName) has a key of \(key.count) properties (\(names.joined(separator: ", "))); name them", s)
            }
            try fits(v, key[0])
        case .named(let pairs):
            let given = pairs.map(\.name)
            guard Set(given) == Set(names), given.count == names.count else {
                throw fail("key of \(typeName) is (\(names.joined(separator: ","))), found (\(given.joined(separator: ",")))", s)
            }
            for p in pairs {
                if let entry = key.first(where: { $0.name == p.name }) { try fits(p.value, entry) }
            }
        }
    }

    func checkParameters(_ s: inout PathSegment, _ op: Operation, _ options: inout QueryOptions, _ typer: FilterTypeChecker) throws(URLParseError) {
        if op.kind == .functionImportV2 {
            if let args = s.arguments, args != .empty { throw fail("V2 function import parameters go in the query string", s) }
            var pairs: [NamedArgument] = []
            for p in op.parameters {
                guard let index = options.customOptions.firstIndex(where: { $0.name == p.name }) else {
                    if !p.type.nullable { throw fail("missing parameter '\(p.name)' of \(op.name)", s) }
                    continue
                }
                let text = options.customOptions[index].value
                options.customOptions.remove(at: index)
                let literal: Literal
                do throws(URLParseError) {
                    var parser = try ExpressionParser(bytes: Array(text.utf8), version: .v2, limits: .default)
                    guard case .literal(let l) = try parser.parseArgumentValue() else { throw parser.error("a literal") }
                    try parser.expectEnd()
                    literal = l
                } catch {
                    throw fail("parameter '\(p.name)' of \(op.name): \(error.message)", s)
                }
                if let k = model.primitiveKind(of: p.type.name), !TypeCompatibility.literal(literal, fits: k) {
                    throw fail("parameter '\(p.name)' is \(k.rawValue); \(literal.withArticle) literal does not fit", s)
                }
                pairs.append(NamedArgument(name: p.name, value: .literal(literal)))
            }
            s.arguments = .named(pairs)
            return
        }
        guard op.kind == .function || s.arguments == nil || s.arguments == .empty else {
            throw fail("action import '\(op.name)' takes its parameters in the request body", s)
        }
        guard op.kind == .function else { return }
        let given = s.arguments?.namedArguments ?? []
        if case .positional? = s.arguments { throw fail("parameters of \(op.name) must be named", s) }
        let params = op.isBound ? Array(op.parameters.dropFirst()) : op.parameters
        for a in given {
            guard let p = params.first(where: { $0.name == a.name }) else {
                throw fail("\(op.name) has no parameter '\(a.name)'", s)
            }
            let k = model.primitiveKind(of: p.type.name)
            switch a.value {
            case .literal(let l):
                if let k, !TypeCompatibility.literal(l, fits: k) {
                    throw fail("parameter '\(a.name)' is \(k.rawValue); \(l.withArticle) literal does not fit", s)
                }
            case .alias(let name):
                guard options.aliases.contains(where: { $0.name == name }) else {
                    throw fail("parameter alias @\(name) has no value in the query", s)
                }
            }
        }
        for p in params where !p.type.nullable && !given.contains(where: { $0.name == p.name }) {
            throw fail("missing parameter '\(p.name)' of \(op.name)", s)
        }
    }

    // MARK: - Query options

    func checkOptions(_ o: QueryOptions, cursor: Cursor, _ typer: FilterTypeChecker, topLevel: Bool) throws(URLParseError) -> QueryOptions {
        var o = o
        let context = contextType(cursor)
        if let f = o.filter {
            guard let context else { throw URLParseError("$filter needs a collection of entities or complex values", at: f.position) }
            o.filter = try typer.checkPredicate(f, context: context)
        }
        if let items = o.orderBy {
            var typed: [OrderByItem] = []
            for item in items {
                guard let context else {
                    throw URLParseError("$orderby needs a collection of entities or complex values", at: item.expression.position)
                }
                let e = try typer.check(item.expression, context: context)
                switch e.type {
                case .primitive?, .enumeration?, .null?: break
                default: throw URLParseError("cannot order by a value of type \(e.type.map { "\($0)" } ?? "?")", at: e.position)
                }
                typed.append(OrderByItem(expression: e, descending: item.descending))
            }
            o.orderBy = typed
        }
        if let select = o.select {
            for item in select { try checkSelect(item, context) }
        }
        if let expand = o.expand {
            var typed: [ExpandItem] = []
            for item in expand { typed.append(try checkExpand(item, context, typer)) }
            o.expand = typed
        }
        return o
    }

    func checkSelect(_ item: SelectItem, _ context: String?) throws(URLParseError) {
        guard var typeName = context else { throw URLParseError("$select needs entities or complex values", at: item.position) }
        for (i, seg) in item.path.enumerated() {
            if seg == "*" || seg.hasSuffix(".*") { return }
            guard let type = model.structuredType(typeName) else { return }
            if seg.contains(".") {
                let n = model.resolve(seg)
                if model.types[n] != nil { typeName = n; continue }
                if model.operations[n] != nil { return }
                throw URLParseError("unknown type or operation '\(seg)' in $select", at: item.position)
            }
            if let p = model.property(seg, of: type) {
                if model.structuredType(p.type.name) != nil { typeName = model.resolve(p.type.name); continue }
                if i != item.path.count - 1 { throw URLParseError("'\(seg)' has no properties to select", at: item.position) }
                return
            }
            if let n = model.navigationProperty(seg, of: type) {
                typeName = model.resolve(n.targetType)
                continue
            }
            if model.lineage(of: type).contains(where: \.isOpen) { return }
            throw URLParseError("type \(typeName) has no property '\(seg)' (in $select)", at: item.position)
        }
    }

    func checkExpand(_ item: ExpandItem, _ context: String?, _ typer: FilterTypeChecker) throws(URLParseError) -> ExpandItem {
        guard var typeName = context else { throw URLParseError("$expand needs entities", at: item.position) }
        var isCollection = false
        var sawNavigation = false
        var checkedAll = false
        for seg in item.path {
            if seg == "*" || seg == "$value" { checkedAll = true; break }
            guard let type = model.structuredType(typeName) else { return item }
            if seg.contains(".") {
                let n = model.resolve(seg)
                guard model.types[n] != nil else { throw URLParseError("unknown type '\(seg)' in $expand", at: item.position) }
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
            throw URLParseError("type \(typeName) has no navigation property '\(seg)' (in $expand)", at: item.position)
        }
        if !checkedAll && !sawNavigation {
            throw URLParseError("$expand path must end in a navigation property", at: item.position)
        }
        var out = item
        if !item.options.isEmpty {
            let cursor: Cursor = checkedAll ? .unchecked : (isCollection ? .entityCollection(typeName) : .entity(typeName))
            out.options = try checkOptions(item.options, cursor: cursor, typer, topLevel: false)
        }
        return out
    }
}
