/// Member paths: properties, navigation, type casts (qualified or not), key predicates,
/// filter segments, bound functions, annotations, `$count`, lambdas, `$root`.
extension FilterTypeChecker {
    func checkMember(_ m: MemberPath, _ e: FilterExpression, _ scope: inout Scope) throws(URLParseError) -> (MemberPath, ExpressionType) {
        var current: ExpressionType
        var out: [MemberPath.Segment] = []
        var rest = m.segments[...]
        switch m.root {
        case .implicit, .this:
            guard let this = scope.this else {
                throw fail(m.root == .this ? "$this needs an instance to refer to here" : "a property path needs an entity or complex type here", e)
            }
            current = this
        case .it:
            guard let it = scope.it else { throw fail("$it needs a resource to refer to here", e) }
            current = it
        case .rangeVariable(let v):
            guard let t = scope.variable(v) else { throw fail("unknown lambda variable '\(v)'", e) }
            current = t
        case .alias(let name):
            current = try aliasType(name, e, &scope) ?? .null
        case .root:
            guard let first = rest.first else { throw fail("expected an entity set, singleton or function import after $root", e) }
            let (s, t) = try rootSegment(first, e, &scope)
            out.append(s)
            current = t
            rest = rest.dropFirst()
        }
        let relative = m.root == .implicit || m.root == .this
        for segment in rest {
            let (s, t) = try step(segment, from: current, first: relative && out.isEmpty, e, &scope)
            out.append(s)
            current = t
        }
        guard let lambda = m.lambda else { return (MemberPath(root: m.root, segments: out), current) }
        let element: ExpressionType
        switch current {
        case .collection(let el): element = el
        case .null: element = .null
        default: throw fail("\(lambda.kind.rawValue) needs a collection, found \(current)", e)
        }
        var typedLambda = lambda
        if let v = lambda.variable, let p = lambda.predicate {
            scope.variables.append((v, element))
            let typed = try check(p, &scope)
            scope.variables.removeLast()
            try requireBoolean(typed, "a Boolean lambda predicate")
            typedLambda.predicate = typed
        }
        return (MemberPath(root: m.root, segments: out, lambda: typedLambda), .primitive(.boolean))
    }

    /// The segment after `$root/`: an entity set (with or without key), a singleton or a
    /// function import.
    func rootSegment(_ s: MemberPath.Segment, _ e: FilterExpression, _ scope: inout Scope) throws(URLParseError) -> (MemberPath.Segment, ExpressionType) {
        switch s {
        case .keyed(let name, let args):
            if let set = model.entitySets[name], !set.isSingleton {
                let t = model.resolve(set.entityType)
                if let problem = model.keyProblem(args, of: t) { throw fail(problem, e) }
                return (s, .structured(t))
            }
            if model.operationImports[name] != nil {
                return try rootSegment(.function(name, functionArguments(args, e)), e, &scope)
            }
            throw fail("unknown entity set '\(name)'", e)
        case .property(let name):
            guard let set = model.entitySets[name] else {
                if model.operationImports[name] != nil { return try rootSegment(.function(name, []), e, &scope) }
                throw fail("unknown entity set '\(name)'", e)
            }
            let t = ExpressionType.structured(model.resolve(set.entityType))
            return (s, set.isSingleton ? t : .collection(t))
        case .function(let name, let args):
            guard let op = model.operationImports[name] else { throw fail("unknown function import '\(name)'", e) }
            return try callFunction(op, name, args, e, &scope)
        default:
            throw fail("expected an entity set, singleton or function import after $root", e)
        }
    }

    /// Key predicate values as function arguments (`F(p=1)` parsed as a key predicate).
    func functionArguments(_ args: SegmentArguments, _ e: FilterExpression) throws(URLParseError) -> [FunctionArgument] {
        guard let pairs = args.namedArguments else { throw fail("function parameters must be named (name=value)", e) }
        return pairs.map { p in
            switch p.value {
            case .literal(let l): return FunctionArgument(name: p.name, value: FilterExpression(.literal(l), position: e.position))
            case .alias(let a): return FunctionArgument(name: p.name, value: FilterExpression(.alias(a), position: e.position))
            }
        }
    }

    func step(_ segment: MemberPath.Segment, from current: ExpressionType, first: Bool, _ e: FilterExpression,
              _ scope: inout Scope) throws(URLParseError) -> (MemberPath.Segment, ExpressionType) {
        if current == .null {
            // Dynamic: nothing to check, but nested expressions are still typed.
            switch segment {
            case .filter(let f):
                var inner = scope
                inner.this = .null
                inner.computed = [:]
                return (.filter(try check(f, &inner)), .null)
            case .function(let name, let args):
                var typed: [FunctionArgument] = []
                for a in args { typed.append(FunctionArgument(name: a.name, value: try check(a.value, &scope))) }
                return (.function(name, typed), .null)
            default:
                return (segment, .null)
            }
        }
        switch segment {
        case .property(let name):
            if first, let c = scope.computed[name] { return (segment, c) }
            if let (q, t) = unqualifiedCast(name, current) { return (.typeCast(q), t) }
            return (segment, try property(name, of: current, e))
        case .typeCast(let name):
            return (segment, try cast(name, current, e))
        case .count:
            switch current {
            case .collection: return (segment, .primitive(.int64))
            default: throw fail("$count needs a collection", e)
            }
        case .keyed(let name, let args):
            if case .structured(let tn) = current, let type = model.structuredType(tn), let nav = model.navigationProperty(name, of: type) {
                guard nav.isCollection else { throw fail("'\(name)' is single-valued and takes no key", e) }
                let target = model.resolve(nav.targetType)
                if let problem = model.keyProblem(args, of: target) { throw fail(problem, e) }
                return (segment, .structured(target))
            }
            if model.boundOperation(named: name, binding: current) != nil {
                return try step(.function(name, try functionArguments(args, e)), from: current, first: first, e, &scope)
            }
            throw fail("\(current) has no collection-valued navigation property or bound function '\(name)'", e)
        case .function(let name, let args):
            let names = args.map(\.name)
            guard let op = model.boundOperation(named: name, binding: current, parameterNames: names) else {
                if model.operations(named: name).isEmpty { throw fail("unknown function '\(name)'", e) }
                throw fail("no function '\(name)' is bound to \(current)", e)
            }
            return try callFunction(op, name, args, e, &scope)
        case .annotation:
            return (segment, .null)
        case .filter(let f):
            guard case .collection(let element) = current else { throw fail("$filter(…) needs a collection, found \(current)", e) }
            var inner = scope
            inner.this = element
            inner.computed = [:]
            let typed = try check(f, &inner)
            try requireBoolean(typed, "a Boolean expression in $filter(…)")
            return (.filter(typed), current)
        case .key(let args):
            guard case .collection(.structured(let t)) = current else { throw fail("a key predicate needs a collection of entities, found \(current)", e) }
            if let problem = model.keyProblem(args, of: t) { throw fail(problem, e) }
            return (segment, .structured(t))
        }
    }

    /// `name` without a namespace as a type cast to a type derived from `current`'s (element)
    /// type, when `current` has no property of that name.
    func unqualifiedCast(_ name: String, _ current: ExpressionType) -> (String, ExpressionType)? {
        guard !name.contains(".") else { return nil }
        var isCollection = false
        guard case .structured(let base) = { () -> ExpressionType in
            if case .collection(let e) = current { isCollection = true; return e }
            return current
        }(), let baseType = model.structuredType(base) else { return nil }
        if model.property(name, of: baseType) != nil || model.navigationProperty(name, of: baseType) != nil { return nil }
        guard let q = model.qualifiedStructuredTypeName(name), let derived = model.structuredType(q),
              model.lineage(of: derived).contains(where: { $0.qualifiedName == base }) else { return nil }
        return (q, isCollection ? .collection(.structured(q)) : .structured(q))
    }

    func property(_ name: String, of current: ExpressionType, _ e: FilterExpression) throws(URLParseError) -> ExpressionType {
        guard case .structured(let typeName) = current, let type = model.structuredType(typeName) else {
            if case .collection = current {
                throw fail("'\(name)' follows a collection; use any/all or $count", e)
            }
            throw fail("'\(name)' follows a value of type \(current) that has no properties", e)
        }
        if let p = model.property(name, of: type) { return typeOf(p.type) }
        if let n = model.navigationProperty(name, of: type) {
            let target = ExpressionType.structured(model.resolve(n.targetType))
            return n.isCollection ? .collection(target) : target
        }
        if model.lineage(of: type).contains(where: \.isOpen) { return .null }
        throw fail("type \(typeName) has no property '\(name)'", e)
    }

    func cast(_ name: String, _ current: ExpressionType, _ e: FilterExpression) throws(URLParseError) -> ExpressionType {
        guard let n = model.qualifiedStructuredTypeName(name), let derived = model.structuredType(n) else {
            throw fail("unknown type '\(name)'", e)
        }
        let base: String
        var isCollection = false
        switch current {
        case .structured(let b): base = b
        case .collection(.structured(let b)): base = b; isCollection = true
        default: throw fail("type cast '\(name)' needs an entity or complex value", e)
        }
        guard model.lineage(of: derived).contains(where: { $0.qualifiedName == base }) else {
            throw fail("\(n) does not derive from \(base)", e)
        }
        return isCollection ? .collection(.structured(n)) : .structured(n)
    }

    /// A function call (bound: the binding parameter is the path so far; or a function
    /// import after `$root`): named parameters of the right types, required ones present.
    func callFunction(_ op: Operation, _ name: String, _ args: [FunctionArgument], _ e: FilterExpression,
                      _ scope: inout Scope) throws(URLParseError) -> (MemberPath.Segment, ExpressionType) {
        guard op.kind == .function else { throw fail("'\(name)' is an action: actions cannot be called in an expression", e) }
        let params = op.isBound ? Array(op.parameters.dropFirst()) : op.parameters
        var typed: [FunctionArgument] = []
        for a in args {
            guard let p = params.first(where: { $0.name == a.name }) else { throw fail("\(name) has no parameter '\(a.name)'", e) }
            let t = try check(a.value, &scope)
            let pt = typeOf(p.type)
            guard TypeCompatibility.comparable(t.type ?? .null, pt, ordered: false) else {
                throw fail("parameter '\(a.name)' of \(name) is \(pt); found \(describe(t.type))", t)
            }
            typed.append(FunctionArgument(name: a.name, value: t))
        }
        for p in params where !p.type.nullable && !args.contains(where: { $0.name == p.name }) {
            throw fail("missing parameter '\(p.name)' of \(name)", e)
        }
        return (.function(name, typed), op.returnType.map(typeOf) ?? .null)
    }
}
