/// Checks a `$filter`/`$orderby` tree against a `ServiceModel` and returns the same tree with
/// every node's `type` set.
///
/// It resolves property paths through complex types, navigation properties, type casts (also
/// unqualified: 4.01), key predicates, filter segments, bound functions (qualified or not,
/// composed: `Products/Model.BestProduct()/Name`), annotations (typed as dynamic), binds
/// lambda range variables, `$it` (the resource the path addresses), `$this` (the instance the
/// option is evaluated on: in a nested `$filter` of `$expand`/`$select`, the expanded or
/// selected item), `$root`, parameter aliases, checks canonical-function argument types, and
/// checks that comparisons and arithmetic have compatible operands (with numeric promotion).
/// Errors name the node's position (as stored in the tree) and what was expected.
///
/// Properties of open types that the model does not declare, annotations and JSON objects
/// are dynamic: they type as `.null`, which is compatible with everything.
public struct FilterTypeChecker: Sendable {
    public let model: ServiceModel
    /// Parameter alias values by name (without `@`), as given in the request's query options.
    public var aliases: [String: FilterExpression]

    public init(model: ServiceModel, aliases: [String: FilterExpression] = [:]) {
        self.model = model
        self.aliases = aliases
    }

    /// What `$it`, `$this` and implicit paths refer to, and the properties `$compute` and
    /// `$apply` add to `$this`.
    public struct Context: Sendable {
        public var it: ExpressionType?
        public var this: ExpressionType?
        public var computed: [String: ExpressionType]
        public init(it: ExpressionType?, this: ExpressionType? = nil, computed: [String: ExpressionType] = [:]) {
            self.it = it
            self.this = this ?? it
            self.computed = computed
        }
    }

    /// Types `e` with `$it` of type `context` (a qualified structured type name).
    public func check(_ e: FilterExpression, context: String) throws(URLParseError) -> FilterExpression {
        try check(e, in: Context(it: .structured(model.resolve(context))))
    }

    public func check(_ e: FilterExpression, in context: Context) throws(URLParseError) -> FilterExpression {
        var scope = Scope(it: context.it, this: context.this, computed: context.computed)
        return try check(e, &scope)
    }

    /// As `check`, and requires a Boolean result (for `$filter` and lambda predicates).
    public func checkPredicate(_ e: FilterExpression, context: String) throws(URLParseError) -> FilterExpression {
        try checkPredicate(e, in: Context(it: .structured(model.resolve(context))))
    }

    public func checkPredicate(_ e: FilterExpression, in context: Context) throws(URLParseError) -> FilterExpression {
        let typed = try check(e, in: context)
        try requireBoolean(typed, "a Boolean expression")
        return typed
    }

    /// Types an expression that has no `$it` (parameter alias values, function arguments).
    public func checkFree(_ e: FilterExpression) throws(URLParseError) -> FilterExpression {
        var scope = Scope(it: nil, this: nil)
        return try check(e, &scope)
    }

    struct Scope {
        var it: ExpressionType?
        var this: ExpressionType?
        var computed: [String: ExpressionType] = [:]
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

    func typeOf(_ ref: TypeReference) -> ExpressionType { model.expressionType(ref) }

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
            let t = try aliasType(name, e, &scope)
            return FilterExpression(e.kind, position: e.position, type: t)
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
            if typedOperand == nil && scope.this == nil { throw fail("\(fn.rawValue) without an operand needs $it", e) }
            let t: ExpressionType = fn == .isof ? .primitive(.boolean) : target
            return FilterExpression(.typeFunction(fn, typedOperand, typeName), position: e.position, type: t)
        case .array(let items):
            var typed: [FilterExpression] = []
            var element: ExpressionType = .null
            for item in items {
                let t = try check(item, &scope)
                if element == .null, let it = t.type { element = it }
                typed.append(t)
            }
            return FilterExpression(.array(typed), position: e.position, type: .collection(element))
        case .object(let members):
            var typed: [ObjectMember] = []
            for m in members { typed.append(ObjectMember(name: m.name, value: try check(m.value, &scope))) }
            return FilterExpression(.object(typed), position: e.position, type: .null)
        }
    }

    func aliasType(_ name: String, _ e: FilterExpression, _ scope: inout Scope) throws(URLParseError) -> ExpressionType? {
        guard let value = aliases[name] else { throw fail("parameter alias @\(name) has no value in the query", e) }
        guard scope.aliasDepth < 8 else { throw fail("parameter alias @\(name) refers to itself", e) }
        scope.aliasDepth += 1
        defer { scope.aliasDepth -= 1 }
        return try check(value, &scope).type
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
                for item in items { typedItems.append(try check(item, &scope)) }
                let lt = left.type ?? .null
                if typedItems.count == 1, !ExpressionParser.isListLiteral(items[0]) {
                    // `x in Tags`: membership in a collection.
                    let it = typedItems[0].type ?? .null
                    switch it {
                    case .collection(let element):
                        guard TypeCompatibility.comparable(lt, element, ordered: false) else {
                            throw fail("cannot look for \(describe(left.type)) in \(it)", typedItems[0])
                        }
                    case .null: break
                    default:
                        throw fail("'in' needs a list or a collection on its right, found \(it)", typedItems[0])
                    }
                } else {
                    for ti in typedItems {
                        guard TypeCompatibility.comparable(lt, ti.type ?? .null, ordered: false) else {
                            throw fail("cannot compare \(describe(left.type)) with \(describe(ti.type)) in 'in'", ti)
                        }
                    }
                }
                left = FilterExpression(.inList(left, typedItems), position: node.position, type: .primitive(.boolean))
            default:
                break
            }
        }
        return left
    }

    /// A type named in `cast`/`isof`: primitive, type definition, enumeration, entity or
    /// complex type, qualified or (4.01) not, or `Collection(…)` of one.
    func namedType(_ name: String, _ e: FilterExpression) throws(URLParseError) -> ExpressionType {
        if name.hasPrefix("Collection("), name.hasSuffix(")") {
            return .collection(try namedType(String(name.dropFirst(11).dropLast()), e))
        }
        let n = model.resolve(name)
        if let k = EdmPrimitiveKind(qualifiedName: n) { return .primitive(k) }
        if model.typeDefinitions[n] != nil, let k = model.primitiveKind(of: n) { return .primitive(k) }
        if model.enumTypes[n] != nil { return .enumeration(n) }
        if let q = model.qualifiedStructuredTypeName(name) { return .structured(q) }
        if !name.contains(".") {
            for ns in model.namespaces {
                if model.enumTypes[ns + "." + name] != nil { return .enumeration(ns + "." + name) }
                if model.typeDefinitions[ns + "." + name] != nil, let k = model.primitiveKind(of: ns + "." + name) { return .primitive(k) }
            }
        }
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
}

extension Substring {
    func trimmingCharacters() -> String {
        var s = self[...]
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
