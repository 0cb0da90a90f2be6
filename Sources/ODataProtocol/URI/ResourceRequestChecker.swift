/// The schema-checked parse: validates a syntactically parsed `ResourceRequest` against a
/// `ServiceModel` and returns it with every path segment's `role` resolved and the `$filter`,
/// `$orderby`, `$compute`, `$apply` and parameter-alias expressions typed.
///
/// Checks: the first segment names an entity set, singleton, operation import or `$crossjoin`
/// sets; key predicates have the key's arity, names and literal types, and key-as-segment
/// values (`Customers/1`, `OrderItems/1/2`) are folded into the segment they key
/// (`Customers(1)`); navigation, property, type-cast (qualified or not, one at a time),
/// bound-operation (qualified or not, overloads told apart by binding type), filter-segment,
/// `$each`, `$count`, `$value`, `$links` (V2), `$ref` and `$query` (V4) segments fit what
/// precedes them; V4 function parameters match the operation (aliases must have values;
/// functions without parentheses take theirs from `@name` aliases or `name=` options); V2
/// function-import parameters are taken from the query string (they move from
/// `customOptions` into the segment's `arguments`); `$select` and `$expand` paths exist, with
/// their nested options checked against the selected or expanded item (`$this`), `$it` still
/// being the resource the path addresses. Errors carry the position stored in the request
/// (characters in the URL).
///
/// Not checked against the model: options after `$crossjoin`, `$all` without a type cast and
/// `$1` (left as parsed), custom aggregates and service-defined `$apply` transformations,
/// annotations (dynamic).
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
        /// Nothing may follow (`$count`, `$value`, `$ref`, `$metadata`, `$batch`, `$query`).
        case terminal
        /// Unknown type (`$1`, `$all`, `$crossjoin`, an open property): not checked further.
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

    /// The cursor as an expression type (what a bound operation binds to).
    func expressionType(_ c: Cursor) -> ExpressionType? {
        switch c {
        case .entityCollection(let t), .complexCollection(let t): return .collection(.structured(t))
        case .entity(let t), .complex(let t): return .structured(t)
        case .primitive(let k): return .primitive(k)
        case .primitiveCollection(let k): return .collection(.primitive(k))
        case .terminal, .unchecked: return nil
        }
    }

    public func check(_ request: ResourceRequest) throws(URLParseError) -> ResourceRequest {
        var r = request
        var options = r.options
        let aliases = Dictionary(options.aliases.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let typer = FilterTypeChecker(model: model, aliases: aliases)
        var out: [PathSegment] = []
        var cursor: Cursor = .unchecked
        // What query options apply to: the resource before a closing `$count`/`$ref`/`$query`,
        // the navigation target after `$links/`.
        var optionsCursor: Cursor = .terminal
        var i = 0
        var afterEach = false
        while i < r.segments.count {
            var s = r.segments[i]
            if i == 0 {
                cursor = try first(&s, &options, typer)
                out.append(s)
                optionsCursor = cursor
                i += 1
                continue
            }
            guard let previous = out.last else { break }
            if cursor == .terminal { throw fail("nothing may follow '\(previous.name)'", s) }
            if cursor != .unchecked, try isKeySegment(s, after: cursor) {
                cursor = try keySegments(&out, &i, r.segments, cursor)
                if cursor != .terminal { optionsCursor = cursor }
                continue
            }
            let linksBefore = previous.role == .links
            cursor = try next(&s, after: cursor, previous: previous, &options, typer)
            if afterEach && s.role != .boundOperation { throw fail("only a bound action or function may follow $each", s) }
            afterEach = s.role == .each
            if linksBefore {
                optionsCursor = cursor
                cursor = .terminal
            }
            if cursor != .terminal { optionsCursor = cursor }
            out.append(s)
            i += 1
        }
        if afterEach { optionsCursor = .unchecked }
        if out.last?.role == .value { optionsCursor = .terminal }
        r.segments = out
        var typedAliases: [ParameterAlias] = []
        let context = contextType(optionsCursor)
        for a in options.aliases {
            let typed: FilterExpression
            if context != nil {
                typed = try typer.check(a.value, in: FilterTypeChecker.Context(it: context))
            } else {
                typed = try typer.checkFree(a.value)
            }
            typedAliases.append(ParameterAlias(name: a.name, value: typed))
        }
        options.aliases = typedAliases
        r.options = try checkOptions(options, cursor: optionsCursor, typer, it: context, topLevel: true)
        return r
    }

    /// What `$it`/`$this` refers to for query options on this resource: the entity or complex
    /// type, or the primitive type of the members of a primitive collection.
    func contextType(_ c: Cursor) -> ExpressionType? {
        switch c {
        case .entityCollection(let t), .entity(let t), .complex(let t), .complexCollection(let t): return .structured(t)
        case .primitiveCollection(let k): return .primitive(k)
        default: return nil
        }
    }

    // MARK: - Path

    func first(_ s: inout PathSegment, _ options: inout QueryOptions, _ typer: FilterTypeChecker) throws(URLParseError) -> Cursor {
        switch s.role {
        case .metadata, .batch: return .terminal
        case .contentID: return .unchecked
        case .all, .entity: return .unchecked
        case .crossjoin:
            for name in s.crossjoin ?? [] {
                guard let set = model.entitySets[name], !set.isSingleton else { throw fail("no entity set named '\(name)' for $crossjoin", s) }
            }
            return .unchecked
        case .unresolved: break
        default: throw fail("'\(s.name)' cannot start a resource path", s)
        }
        if let set = model.entitySets[s.name] {
            let typeName = model.resolve(set.entityType)
            guard model.types[typeName] != nil else { throw fail("entity type \(typeName) of '\(s.name)' is not in the model", s) }
            if s.key != nil { throw fail("'\(s.name)' takes one key predicate", s) }
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
            return try afterOperation(&s, op)
        }
        throw fail("no entity set, singleton or operation import named '\(s.name)'", s)
    }

    /// The cursor after an operation: its return type, with the key predicate that may follow
    /// a function returning a collection of entities.
    func afterOperation(_ s: inout PathSegment, _ op: Operation) throws(URLParseError) -> Cursor {
        let c = op.returnType.map { cursor(for: $0) } ?? .terminal
        guard let key = s.key else { return c }
        guard case .entityCollection(let t) = c else { throw fail("'\(s.name)' does not return a collection of entities: no key predicate may follow", s) }
        if let problem = model.keyProblem(key, of: t) { throw fail(problem, s) }
        return .entity(t)
    }

    /// A segment that keys the collection before it (4.01 Part 2, 4.3.6) or indexes an ordered
    /// collection (4.10): a key segment, or a plain name after a collection of entities that
    /// is neither a bound operation nor a type cast.
    func isKeySegment(_ s: PathSegment, after c: Cursor) throws(URLParseError) -> Bool {
        if s.role == .key { return true }
        guard model.version != .v2, s.role == .unresolved, s.arguments == nil, s.key == nil, !s.name.contains("."),
              case .entityCollection = c else { return false }
        if let t = expressionType(c), model.boundOperation(named: s.name, binding: t) != nil { return false }
        if derivedTypeName(s.name, from: c) != nil { return false }
        return true
    }

    /// Folds key segments into the segment before them (`Customers/1` → `Customers(1)`,
    /// `OrderItems/1/2` → `OrderItems(OrderID=1,ItemID=2)` in key order), or makes an index.
    func keySegments(_ out: inout [PathSegment], _ i: inout Int, _ all: [PathSegment], _ c: Cursor) throws(URLParseError) -> Cursor {
        let s = all[i]
        switch c {
        case .entityCollection(let t):
            guard let type = model.structuredType(t) else { throw fail("unknown type \(t)", s) }
            let key = model.keyProperties(of: type)
            guard !key.isEmpty else { throw fail("\(t) has no key", s) }
            var values: [Literal] = []
            for (n, k) in key.enumerated() {
                guard i + n < all.count, all[i + n].role == .key || (all[i + n].role == .unresolved && all[i + n].arguments == nil
                    && all[i + n].key == nil && !all[i + n].name.contains(".")) else {
                    throw fail("the key of \(t) has \(key.count) parts (\(key.map(\.name).joined(separator: ", "))): give \(k.name) as the next segment", n == 0 ? s : all[min(i + n, all.count - 1)])
                }
                let part = all[i + n]
                guard let l = keyLiteral(part.name, k.property) else {
                    if part.role == .unresolved, model.property(part.name, of: type) != nil || model.navigationProperty(part.name, of: type) != nil {
                        throw fail("'\(part.name)' follows a collection; address one entity with a key first", part)
                    }
                    throw fail("'\(part.name)' is not a value of key property \(k.name) (\(k.property.type.name))", part)
                }
                values.append(l)
            }
            let args: SegmentArguments = key.count == 1 ? .positional(.literal(values[0]))
                : .named(zip(key, values).map { NamedArgument(name: $0.0.name, value: .literal($0.1)) })
            guard var target = out.popLast() else { throw fail("a key needs a collection before it", s) }
            switch target.role {
            case .entitySet, .navigation, .typeCast:
                guard target.arguments == nil else { throw fail("'\(target.name)' already has a key", s) }
                target.arguments = args
            case .operationImport, .boundOperation, .filter:
                guard target.key == nil else { throw fail("'\(target.name)' already has a key", s) }
                target.key = args
            default:
                throw fail("a key cannot follow '\(target.name)'", s)
            }
            out.append(target)
            i += key.count
            return .entity(t)
        case .primitiveCollection, .complexCollection:
            var digits = Substring(s.name)
            if digits.first == "-" { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else {
                throw fail("'\(s.name)' is not a member index (an integer) of the ordered collection", s)
            }
            var index = s
            index.role = .index
            out.append(index)
            i += 1
            if case .complexCollection(let t) = c { return .complex(t) }
            if case .primitiveCollection(let k) = c { return .primitive(k) }
            return .unchecked
        default:
            throw fail("'\(s.name)' follows a single value: it cannot be a key", s)
        }
    }

    /// A key-as-segment value as the literal of its key property's type (the text is the
    /// value itself: strings are not quoted).
    func keyLiteral(_ text: String, _ p: StructuralProperty) -> Literal? {
        guard let kind = model.primitiveKind(of: p.type.name) else { return .string(text) }
        if kind == .string { return .string(text) }
        var lexer = Lexer(Array(text.utf8), version: .v4)
        guard let token = try? lexer.next(), case .literal(let l) = token.kind, (try? lexer.next().kind) == .eof,
              TypeCompatibility.literal(l, fits: kind) else { return nil }
        return l
    }

    func next(_ s: inout PathSegment, after c: Cursor, previous: PathSegment, _ options: inout QueryOptions,
              _ typer: FilterTypeChecker) throws(URLParseError) -> Cursor {
        if c == .unchecked {
            if s.role == .unresolved && s.name.contains(".") && (previous.role == .all || previous.role == .entity) {
                return try castAfterAllOrEntity(&s, previous)
            }
            return .unchecked
        }
        switch s.role {
        case .count:
            switch c {
            case .entityCollection, .complexCollection, .primitiveCollection: return .terminal
            default: throw fail("$count needs a collection", s)
            }
        case .value:
            switch c {
            case .primitive(.stream): throw fail("$value does not apply to a stream property: the property's URL is the stream", s)
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
        case .query:
            return .terminal
        case .each:
            guard case .entityCollection(let t) = c else { throw fail("$each needs a collection of entities", s) }
            return .entity(t)
        case .filter:
            let element: ExpressionType
            switch c {
            case .entityCollection(let t), .complexCollection(let t): element = .structured(t)
            case .primitiveCollection(let k): element = .primitive(k)
            default: throw fail("$filter(…) needs a collection", s)
            }
            if let f = s.filter {
                s.filter = try typer.checkPredicate(f, in: FilterTypeChecker.Context(it: element))
            }
            guard let key = s.key else { return c }
            guard case .entityCollection(let t) = c else { throw fail("a key predicate needs a collection of entities", s) }
            if let problem = model.keyProblem(key, of: t) { throw fail(problem, s) }
            return .entity(t)
        case .unresolved:
            break
        default:
            throw fail("'\(s.name)' is not allowed here", s)
        }
        if s.name.contains(".") { return try qualified(&s, after: c, previous: previous, &options, typer) }
        let binding = expressionType(c)
        switch c {
        case .entity(let t), .complex(let t):
            guard let type = model.types[t] else { return .unchecked }
            let linksBefore = previous.role == .links
            if let nav = model.navigationProperty(s.name, of: type) {
                s.role = .navigation
                if s.key != nil { throw fail("'\(s.name)' takes one key predicate", s) }
                let target = model.resolve(nav.targetType)
                if let args = s.arguments {
                    guard nav.isCollection else { throw fail("'\(s.name)' is single-valued and takes no key", s) }
                    try checkKey(args, of: target, s, typer)
                    return .entity(target)
                }
                return nav.isCollection ? .entityCollection(target) : .entity(target)
            }
            if linksBefore { throw fail("$links must be followed by a navigation property of \(t)", s) }
            if let p = model.property(s.name, of: type) {
                s.role = .property
                if s.arguments != nil || s.key != nil { throw fail("property '\(s.name)' takes no parentheses", s) }
                return cursor(for: p.type)
            }
            if let binding, let op = model.boundOperation(named: s.name, binding: binding) {
                return try bound(&s, op, &options, typer)
            }
            if let cast = try unqualifiedCast(&s, after: c) { return cast }
            if model.lineage(of: type).contains(where: \.isOpen) {
                s.role = .property
                return .unchecked
            }
            throw fail("type \(t) has no property or navigation property '\(s.name)'", s)
        default:
            if let binding, let op = model.boundOperation(named: s.name, binding: binding) {
                return try bound(&s, op, &options, typer)
            }
            if let cast = try unqualifiedCast(&s, after: c) { return cast }
            if case .entityCollection = c {
                throw fail("'\(s.name)' follows a collection; address one entity with a key first", s)
            }
            throw fail("'\(s.name)' is not a bound operation or type cast, and follows a value that has no properties", s)
        }
    }

    /// `$all/NS.Type`, `$entity/NS.Type`: an entity type.
    func castAfterAllOrEntity(_ s: inout PathSegment, _ previous: PathSegment) throws(URLParseError) -> Cursor {
        guard let n = model.qualifiedStructuredTypeName(s.name), let t = model.types[n], t.kind == .entity else {
            throw fail("'\(s.name)' is not an entity type", s)
        }
        s.role = .typeCast
        return previous.role == .all ? .entityCollection(n) : .entity(n)
    }

    /// A type name without namespace (4.01) as a cast; nil when no type derived from the
    /// cursor's has the name.
    func unqualifiedCast(_ s: inout PathSegment, after c: Cursor) throws(URLParseError) -> Cursor? {
        guard let q = derivedTypeName(s.name, from: c) else { return nil }
        return try castSegment(&s, q, after: c)
    }

    /// The qualified name of the structured type `name` (qualified or not) when it derives
    /// from (or is) the cursor's entity or complex type.
    func derivedTypeName(_ name: String, from c: Cursor) -> String? {
        let base: String
        switch c {
        case .entity(let t), .entityCollection(let t), .complex(let t), .complexCollection(let t): base = t
        default: return nil
        }
        guard let q = model.qualifiedStructuredTypeName(name), let derived = model.types[q],
              model.lineage(of: derived).contains(where: { $0.qualifiedName == base }) else { return nil }
        return q
    }

    /// A qualified name after an entity, collection or complex value: a type cast or a bound
    /// operation.
    func qualified(_ s: inout PathSegment, after c: Cursor, previous: PathSegment, _ options: inout QueryOptions,
                   _ typer: FilterTypeChecker) throws(URLParseError) -> Cursor {
        if let n = model.qualifiedStructuredTypeName(s.name) {
            if previous.role == .typeCast { throw fail("only one type cast may follow '\(previous.name)'", s) }
            return try castSegment(&s, n, after: c)
        }
        if let binding = expressionType(c), let op = model.boundOperation(named: s.name, binding: binding,
                                                                             parameterNames: s.arguments?.namedArguments?.map(\.name)) {
            return try bound(&s, op, &options, typer)
        }
        if !model.operations(named: s.name).isEmpty {
            throw fail("\(s.name) cannot be bound to \(expressionType(c).map { "\($0)" } ?? "this resource")", s)
        }
        throw fail("no type or bound operation named '\(s.name)'", s)
    }

    func castSegment(_ s: inout PathSegment, _ name: String, after c: Cursor) throws(URLParseError) -> Cursor {
        guard let derived = model.types[name] else { throw fail("unknown type '\(s.name)'", s) }
        let base: String
        switch c {
        case .entity(let t), .entityCollection(let t), .complex(let t), .complexCollection(let t): base = t
        default: throw fail("type cast '\(s.name)' needs an entity or complex value", s)
        }
        guard model.lineage(of: derived).contains(where: { $0.qualifiedName == base }) else {
            throw fail("\(name) does not derive from \(base)", s)
        }
        s.role = .typeCast
        if s.key != nil { throw fail("type cast '\(s.name)' takes one key predicate", s) }
        if let args = s.arguments {
            guard case .entityCollection = c else { throw fail("type cast '\(s.name)' on a single value takes no key", s) }
            if let problem = model.keyProblem(args, of: name) { throw fail(problem, s) }
            return .entity(name)
        }
        switch c {
        case .entity: return .entity(name)
        case .entityCollection: return .entityCollection(name)
        case .complex: return .complex(name)
        default: return .complexCollection(name)
        }
    }

    /// A bound action or function: parameters (in parentheses, or for a function without
    /// parentheses from `@name` aliases or `name=` options), then its return type.
    func bound(_ s: inout PathSegment, _ op: Operation, _ options: inout QueryOptions, _ typer: FilterTypeChecker) throws(URLParseError) -> Cursor {
        s.role = .boundOperation
        try checkParameters(&s, op, &options, typer)
        return try afterOperation(&s, op)
    }

    // MARK: - Keys and parameters

    func checkKey(_ args: SegmentArguments, of typeName: String, _ s: PathSegment, _ typer: FilterTypeChecker) throws(URLParseError) {
        if let problem = model.keyProblem(args, of: typeName) { throw fail(problem, s) }
        let values: [ArgumentValue]
        switch args {
        case .empty: values = []
        case .positional(let v): values = [v]
        case .named(let pairs): values = pairs.map(\.value)
        }
        for case .alias(let name) in values where typer.aliases[name] == nil {
            throw fail("parameter alias @\(name) has no value in the query", s)
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
            throw fail("action '\(op.name)' takes its parameters in the request body", s)
        }
        guard op.kind == .function else {
            if s.arguments != nil { throw fail("action '\(op.name)' takes its parameters in the request body: leave out the parentheses", s) }
            return
        }
        let params = op.isBound ? Array(op.parameters.dropFirst()) : op.parameters
        guard let args = s.arguments else {
            // 4.01 Part 2, 4.5.2: without parentheses, parameters are implicit aliases
            // (`@name=value`) or `name=value` options.
            for p in params where !p.type.nullable {
                let given = options.aliases.contains { $0.name == p.name } || options.customOptions.contains { $0.name == p.name }
                if !given { throw fail("missing parameter '\(p.name)' of \(op.name) (give it as @\(p.name)=value)", s) }
            }
            return
        }
        if case .positional = args { throw fail("parameters of \(op.name) must be named", s) }
        let given = args.namedArguments ?? []
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
}
