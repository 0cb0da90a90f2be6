/// Checks a `$filter`/`$orderby` tree against a `ServiceModel` and returns the same tree with
/// every node's `type` set.
///
/// It resolves property paths through complex types, navigation properties and type casts,
/// binds lambda range variables, checks canonical-function argument types, and checks that
/// comparisons and arithmetic have compatible operands (with numeric promotion). Errors name
/// the node's position (as stored in the tree) and what was expected.
///
/// Properties of open types that the model does not declare are dynamic: they type as
/// `.null`, which is compatible with everything.
public struct FilterTypeChecker: Sendable {
    public let model: ServiceModel
    /// Parameter alias values by name (without `@`), as given in the request's query options.
    public var aliases: [String: FilterExpression]

    public init(model: ServiceModel, aliases: [String: FilterExpression] = [:]) {
        self.model = model
        self.aliases = aliases
    }

    /// Types `e` with `$it` of type `context` (a qualified structured type name).
    public func check(_ e: FilterExpression, context: String) throws(URLParseError) -> FilterExpression {
        var scope = Scope(it: .structured(model.resolve(context)))
        return try check(e, &scope)
    }

    /// As `check`, and requires a Boolean result (for `$filter` and lambda predicates).
    public func checkPredicate(_ e: FilterExpression, context: String) throws(URLParseError) -> FilterExpression {
        let typed = try check(e, context: context)
        try requireBoolean(typed, "a Boolean expression")
        return typed
    }

    /// Types an expression that has no `$it` (parameter alias values, function arguments).
    public func checkFree(_ e: FilterExpression) throws(URLParseError) -> FilterExpression {
        var scope = Scope(it: nil)
        return try check(e, &scope)
    }

    struct Scope {
        var it: ExpressionType?
        var variables: [(String, ExpressionType)] = []
        var aliasDepth = 0
        func variable(_ name: String) -> ExpressionType? { variables.last { $0.0 == name }?.1 }
    }

    // MARK: - Helpers

    func fail(_ message: String, _ e: FilterExpression) -> URLParseError { URLParseError(message, at: e.position) }

    func requireBoolean(_ e: FilterExpression, _ what: String) throws(URLParseError) {
        switch e.type {
        case .primitive(.boolean)?, .null?: return
        default: throw fail("expected \(what), found \(describe(e.type))", e)
        }
    }

    func describe(_ t: ExpressionType?) -> String { t.map { "\($0)" } ?? "untyped expression" }

    func typeOf(_ ref: TypeReference) -> ExpressionType {
        let element: ExpressionType
        let name = model.resolve(ref.name)
        if let k = model.primitiveKind(of: name) {
            element = .primitive(k)
        } else if model.enumTypes[name] != nil {
            element = .enumeration(name)
        } else {
            element = .structured(name)
        }
        return ref.isCollection ? .collection(element) : element
    }

    func primitive(_ t: ExpressionType?) -> EdmPrimitiveKind? {
        if case .primitive(let k)? = t { return k }
        return nil
    }

    // MARK: - Nodes

    func check(_ e: FilterExpression, _ scope: inout Scope) throws(URLParseError) -> FilterExpression {
        switch e.kind {
        case .literal(let l):
            return FilterExpression(e.kind, position: e.position, type: try literalType(l, e))
        case .alias(let name):
            guard let value = aliases[name] else { throw fail("parameter alias @\(name) has no value in the query", e) }
            guard scope.aliasDepth < 8 else { throw fail("parameter alias @\(name) refers to itself", e) }
            scope.aliasDepth += 1
            defer { scope.aliasDepth -= 1 }
            let typed = try check(value, &scope)
            return FilterExpression(e.kind, position: e.position, type: typed.type)
        case .member(let m):
            let (typedPath, type) = try checkMember(m, e, &scope)
            return FilterExpression(.member(typedPath), position: e.position, type: type)
        case .unary(let op, let operand):
            let o = try check(operand, &scope)
            if op == .not {
                try requireBoolean(o, "a Boolean operand of 'not'")
                return FilterExpression(.unary(op, o), position: e.position, type: .primitive(.boolean))
            }
            if o.type == .null { return FilterExpression(.unary(op, o), position: e.position, type: .null) }
            guard TypeCompatibility.isNumeric(o.type ?? .null) || primitive(o.type) == .duration else {
                throw fail("expected a numeric operand of '-', found \(describe(o.type))", o)
            }
            return FilterExpression(.unary(op, o), position: e.position, type: o.type)
        case .binary, .inList:
            return try checkChain(e, &scope)
        case .call(let name, let args):
            var typed: [FilterExpression] = []
            for a in args { typed.append(try check(a, &scope)) }
            let t = try callType(name, typed, e)
            return FilterExpression(.call(name, typed), position: e.position, type: t)
        case .typeFunction(let fn, let operand, let typeName):
            let typedOperand: FilterExpression?
            if let operand { typedOperand = try check(operand, &scope) } else { typedOperand = nil }
            let target = try namedType(typeName, e)
            if typedOperand == nil && scope.it == nil { throw fail("\(fn.rawValue) without an operand needs $it", e) }
            let t: ExpressionType = fn == .isof ? .primitive(.boolean) : target
            return FilterExpression(.typeFunction(fn, typedOperand, typeName), position: e.position, type: t)
        }
    }

    /// Binary operators and `in` along the left spine, bottom-up in a loop.
    func checkChain(_ e: FilterExpression, _ scope: inout Scope) throws(URLParseError) -> FilterExpression {
        let spine = e.leftSpine
        guard let leaf = spine.last else { return e }
        var left = try check(leaf, &scope)
        for node in spine.dropLast().reversed() {
            switch node.kind {
            case .binary(let op, _, let r):
                let tr = try check(r, &scope)
                let t = try binaryType(op, left, tr, node)
                left = FilterExpression(.binary(op, left, tr), position: node.position, type: t)
            case .inList(_, let items):
                var typedItems: [FilterExpression] = []
                for item in items {
                    let ti = try check(item, &scope)
                    guard TypeCompatibility.comparable(left.type ?? .null, ti.type ?? .null, ordered: false) else {
                        throw fail("cannot compare \(describe(left.type)) with \(describe(ti.type)) in 'in'", ti)
                    }
                    typedItems.append(ti)
                }
                left = FilterExpression(.inList(left, typedItems), position: node.position, type: .primitive(.boolean))
            default:
                break
            }
        }
        return left
    }

    func namedType(_ name: String, _ e: FilterExpression) throws(URLParseError) -> ExpressionType {
        let n = model.resolve(name)
        if let k = EdmPrimitiveKind(qualifiedName: n) { return .primitive(k) }
        if model.typeDefinitions[n] != nil, let k = model.primitiveKind(of: n) { return .primitive(k) }
        if model.enumTypes[n] != nil { return .enumeration(n) }
        if model.types[n] != nil { return .structured(n) }
        throw fail("unknown type '\(name)'", e)
    }

    func literalType(_ l: Literal, _ e: FilterExpression) throws(URLParseError) -> ExpressionType {
        if case .enumMember(let type, let value) = l {
            let n = model.resolve(type)
            guard let enumType = model.enumTypes[n] else { throw fail("unknown enumeration type '\(type)'", e) }
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                let member = part.trimmingCharacters()
                if Int64(member) != nil { continue }
                guard enumType.members.contains(where: { $0.name == member }) else {
                    throw fail("'\(member)' is not a member of \(n)", e)
                }
            }
            return .enumeration(n)
        }
        guard let k = l.edmKind else { return .null }
        return .primitive(k)
    }

    // MARK: - Member paths

    func checkMember(_ m: MemberPath, _ e: FilterExpression, _ scope: inout Scope) throws(URLParseError) -> (MemberPath, ExpressionType) {
        var current: ExpressionType
        var segments = m.segments[...]
        switch m.root {
        case .implicit, .it:
            guard let it = scope.it else { throw fail("a property path needs an entity or complex type here", e) }
            current = it
        case .rangeVariable(let v):
            guard let t = scope.variable(v) else { throw fail("unknown lambda variable '\(v)'", e) }
            current = t
        case .root:
            guard case .keyed(let setName, _)? = segments.first else {
                throw fail("expected an entity set with a key after $root", e)
            }
            guard let set = model.entitySets[setName] else { throw fail("unknown entity set '\(setName)'", e) }
            current = .structured(model.resolve(set.entityType))
            segments = segments.dropFirst()
        }
        for segment in segments {
            switch segment {
            case .property(let name):
                guard case .structured(let typeName) = current, let type = model.structuredType(typeName) else {
                    if case .collection = current {
                        throw fail("'\(name)' follows a collection; use any/all or $count", e)
                    }
                    throw fail("'\(name)' follows a value of type \(current) that has no properties", e)
                }
                if let p = model.property(name, of: type) {
                    current = typeOf(p.type)
                } else if let n = model.navigationProperty(name, of: type) {
                    let target = ExpressionType.structured(model.resolve(n.targetType))
                    current = n.isCollection ? .collection(target) : target
                } else if model.lineage(of: type).contains(where: \.isOpen) {
                    current = .null
                } else {
                    throw fail("type \(typeName) has no property '\(name)'", e)
                }
            case .typeCast(let name):
                let n = model.resolve(name)
                guard let derived = model.structuredType(n) else { throw fail("unknown type '\(name)'", e) }
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
                current = isCollection ? .collection(.structured(n)) : .structured(n)
            case .count:
                guard case .collection = current else { throw fail("$count needs a collection", e) }
                current = .primitive(.int64)
            case .keyed(let name, _):
                throw fail("key predicate on '\(name)' is only supported right after $root", e)
            }
        }
        guard let lambda = m.lambda else { return (m, current) }
        guard case .collection(let element) = current else {
            throw fail("\(lambda.kind.rawValue) needs a collection, found \(current)", e)
        }
        var typedLambda = lambda
        if let v = lambda.variable, let p = lambda.predicate {
            scope.variables.append((v, element))
            let typed = try check(p, &scope)
            scope.variables.removeLast()
            try requireBoolean(typed, "a Boolean lambda predicate")
            typedLambda.predicate = typed
        }
        return (MemberPath(root: m.root, segments: m.segments, lambda: typedLambda), .primitive(.boolean))
    }

    // MARK: - Operators

    func binaryType(_ op: BinaryOperator, _ l: FilterExpression, _ r: FilterExpression, _ e: FilterExpression) throws(URLParseError) -> ExpressionType {
        let lt = l.type ?? .null, rt = r.type ?? .null
        switch op {
        case .and, .or:
            try requireBoolean(l, "a Boolean operand of '\(op.rawValue)'")
            try requireBoolean(r, "a Boolean operand of '\(op.rawValue)'")
            return .primitive(.boolean)
        case .eq, .ne, .gt, .ge, .lt, .le:
            let ordered = op != .eq && op != .ne
            guard TypeCompatibility.comparable(lt, rt, ordered: ordered) else {
                throw fail("cannot compare \(lt) with \(rt) using '\(op.rawValue)'", r)
            }
            if case .collection = lt { throw fail("cannot compare a collection using '\(op.rawValue)'", l) }
            return .primitive(.boolean)
        case .has:
            guard case .enumeration(let a) = lt else {
                if lt == .null { return .primitive(.boolean) }
                throw fail("'has' needs an enumeration on its left, found \(lt)", l)
            }
            guard rt == .null || rt == .enumeration(a) else {
                throw fail("expected a member of \(a) after 'has', found \(rt)", r)
            }
            return .primitive(.boolean)
        case .add, .sub, .mul, .div, .divby, .mod:
            if lt == .null || rt == .null { return .null }
            if case .primitive(let a) = lt, case .primitive(let b) = rt {
                if let p = TypeCompatibility.promoted(a, b) {
                    return .primitive(op == .divby ? .decimal : p)
                }
                if op == .add || op == .sub {
                    switch (a, b) {
                    case (.dateTimeOffset, .duration), (.dateTime, .duration), (.dateTime, .time), (.date, .duration):
                        return .primitive(a)
                    case (.duration, .duration): return .primitive(.duration)
                    case (.dateTimeOffset, .dateTimeOffset) where op == .sub, (.date, .date) where op == .sub:
                        return .primitive(.duration)
                    default: break
                    }
                }
                if (op == .mul || op == .div) && a == .duration && TypeCompatibility.numericRank(b) != nil {
                    return .primitive(.duration)
                }
            }
            throw fail("'\(op.rawValue)' cannot combine \(lt) and \(rt)", e)
        }
    }

    // MARK: - Functions

    func callType(_ name: String, _ args: [FilterExpression], _ e: FilterExpression) throws(URLParseError) -> ExpressionType {
        func arg(_ i: Int, _ allowed: Set<EdmPrimitiveKind>, _ what: String) throws(URLParseError) -> EdmPrimitiveKind? {
            guard i < args.count else { return nil }
            let t = args[i].type ?? .null
            if t == .null { return nil }
            if case .primitive(let k) = t, allowed.contains(k) || k == .other { return k }
            throw fail("\(name) expects \(what) as argument \(i + 1), found \(t)", args[i])
        }
        let string: Set<EdmPrimitiveKind> = [.string]
        let integer: Set<EdmPrimitiveKind> = [.byte, .sbyte, .int16, .int32, .int64]
        let numeric: Set<EdmPrimitiveKind> = integer.union([.decimal, .single, .double])
        let dates: Set<EdmPrimitiveKind> = [.date, .dateTime, .dateTimeOffset]
        let times: Set<EdmPrimitiveKind> = [.dateTime, .dateTimeOffset, .timeOfDay, .time, .duration]
        let geo: Set<EdmPrimitiveKind> = [.geography, .geometry]
        let bool = ExpressionType.primitive(.boolean)
        switch name {
        case "substringof", "contains", "startswith", "endswith", "matchespattern":
            if name == "contains" || name == "startswith" || name == "endswith",
               case .collection = args[0].type ?? .null {
                return bool
            }
            _ = try arg(0, string, "a string")
            _ = try arg(1, string, "a string")
            return bool
        case "length":
            if case .collection = args[0].type ?? .null { return .primitive(.int32) }
            _ = try arg(0, string, "a string")
            return .primitive(.int32)
        case "indexof":
            _ = try arg(0, string, "a string"); _ = try arg(1, string, "a string")
            return .primitive(.int32)
        case "replace":
            for i in 0..<3 { _ = try arg(i, string, "a string") }
            return .primitive(.string)
        case "substring":
            _ = try arg(0, string, "a string"); _ = try arg(1, integer, "an integer"); _ = try arg(2, integer, "an integer")
            return .primitive(.string)
        case "tolower", "toupper", "trim":
            _ = try arg(0, string, "a string")
            return .primitive(.string)
        case "concat":
            _ = try arg(0, string, "a string"); _ = try arg(1, string, "a string")
            return .primitive(.string)
        case "year", "month", "day":
            _ = try arg(0, dates, "a date or date-time")
            return .primitive(.int32)
        case "hour", "minute", "second":
            _ = try arg(0, times, "a date-time or time of day")
            return .primitive(.int32)
        case "fractionalseconds":
            _ = try arg(0, times, "a date-time or time of day")
            return .primitive(.decimal)
        case "totalseconds":
            _ = try arg(0, [.duration, .time], "a duration")
            return .primitive(.decimal)
        case "date":
            _ = try arg(0, [.dateTimeOffset, .dateTime], "a date-time")
            return .primitive(.date)
        case "time":
            _ = try arg(0, [.dateTimeOffset, .dateTime], "a date-time")
            return .primitive(.timeOfDay)
        case "totaloffsetminutes":
            _ = try arg(0, [.dateTimeOffset], "a date-time offset")
            return .primitive(.int32)
        case "now", "maxdatetime", "mindatetime":
            return .primitive(.dateTimeOffset)
        case "round", "floor", "ceiling":
            let k = try arg(0, numeric, "a number")
            return k.map { .primitive($0) } ?? .null
        case "geo.distance", "geo.length":
            for i in 0..<args.count { _ = try arg(i, geo, "a geo value") }
            return .primitive(.double)
        case "geo.intersects":
            for i in 0..<args.count { _ = try arg(i, geo, "a geo value") }
            return bool
        case "hassubset", "hassubsequence":
            return bool
        default:
            throw fail("unknown function '\(name)'", e)
        }
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var s = self[...]
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
