/// The JSON description of a parsed request, as printed by `odatastore parse` and returned by
/// `URLChecker` (shape documented in docs/cli.md).
public enum RequestJSON {
    public static func describe(_ r: ResourceRequest, version: ODataVersion?, checked: Bool) -> String {
        var members: [(String, String)] = [
            ("canonical", JSONText.string(RequestPrinter.canonicalURL(r, version: version))),
            ("version", version.map { JSONText.string($0.description) } ?? "null"),
            ("checked", checked ? "true" : "false"),
            ("path", JSONText.array(r.segments.map(segment))),
        ]
        members.append(("query", options(r.options, version)))
        return JSONText.object(members)
    }

    static func segment(_ s: PathSegment) -> String {
        var m: [(String, String)] = [("name", JSONText.string(s.name)), ("kind", JSONText.string(s.role.rawValue))]
        if let a = s.arguments { m.append(("arguments", arguments(a))) }
        m.append(("position", String(s.position)))
        return JSONText.object(m)
    }

    static func arguments(_ a: SegmentArguments) -> String {
        switch a {
        case .empty: return "[]"
        case .positional(let v): return JSONText.array([JSONText.object([("value", value(v))])])
        case .named(let pairs):
            return JSONText.array(pairs.map { JSONText.object([("name", JSONText.string($0.name)), ("value", value($0.value))]) })
        }
    }

    static func value(_ v: ArgumentValue) -> String {
        switch v {
        case .literal(let l): return literal(l)
        case .alias(let a): return JSONText.object([("alias", JSONText.string(a))])
        }
    }

    static func literal(_ l: Literal) -> String {
        var m: [(String, String)] = [("literal", JSONText.string(l.kindName))]
        switch l {
        case .null: m.append(("value", "null"))
        case .boolean(let b): m.append(("value", b ? "true" : "false"))
        case .string(let s), .integer(let s), .int64(let s), .fractional(let s), .decimal(let s), .double(let s),
             .single(let s), .guid(let s), .dateTime(let s), .dateTimeOffset(let s), .time(let s), .date(let s),
             .timeOfDay(let s), .duration(let s):
            m.append(("value", JSONText.string(s)))
        case .binary(let b): m.append(("value", JSONText.string(BinaryLiteral.base64URL(b))))
        case .enumMember(let type, let value):
            m.append(("enumType", JSONText.string(type)))
            m.append(("value", JSONText.string(value)))
        }
        return JSONText.object(m)
    }

    static func options(_ o: QueryOptions, _ v: ODataVersion?) -> String {
        var m: [(String, String)] = []
        if let f = o.filter { m.append(("$filter", expression(f))) }
        if let ob = o.orderBy {
            m.append(("$orderby", JSONText.array(ob.map {
                JSONText.object([("expression", expression($0.expression)), ("descending", $0.descending ? "true" : "false")])
            })))
        }
        if let t = o.top { m.append(("$top", String(t))) }
        if let s = o.skip { m.append(("$skip", String(s))) }
        if let s = o.select { m.append(("$select", JSONText.array(s.map { JSONText.string($0.path.joined(separator: "/")) }))) }
        if let e = o.expand { m.append(("$expand", JSONText.array(e.map { expandItem($0, v) }))) }
        if let c = o.count { m.append(("$count", c ? "true" : "false")) }
        if let s = o.skipToken { m.append(("$skiptoken", JSONText.string(s))) }
        if let f = o.format { m.append(("$format", JSONText.string(f))) }
        if let s = o.search { m.append(("$search", JSONText.string(s))) }
        if let l = o.levels {
            switch l {
            case .max: m.append(("$levels", JSONText.string("max")))
            case .count(let n): m.append(("$levels", String(n)))
            }
        }
        if !o.aliases.isEmpty {
            m.append(("aliases", JSONText.object(o.aliases.map { ("@" + $0.name, expression($0.value)) })))
        }
        if !o.otherSystemOptions.isEmpty {
            m.append(("otherSystemOptions", JSONText.array(o.otherSystemOptions.map {
                JSONText.object([("name", JSONText.string($0.name)), ("value", JSONText.string($0.value))])
            })))
        }
        if !o.customOptions.isEmpty {
            m.append(("customOptions", JSONText.array(o.customOptions.map {
                JSONText.object([("name", JSONText.string($0.name)), ("value", JSONText.string($0.value))])
            })))
        }
        return JSONText.object(m)
    }

    static func expandItem(_ e: ExpandItem, _ v: ODataVersion?) -> String {
        var m: [(String, String)] = [("path", JSONText.array(e.path.map(JSONText.string)))]
        if e.isRef { m.append(("ref", "true")) }
        if e.isCount { m.append(("count", "true")) }
        if !e.options.isEmpty { m.append(("options", options(e.options, v))) }
        return JSONText.object(m)
    }

    /// An expression node as nested objects: `{"op":"eq","left":…,"right":…}` and so on.
    /// Operator chains are written along their left spine in a loop (openings top-down, then
    /// the leftmost operand, then each node's right side bottom-up).
    public static func expression(_ e: FilterExpression) -> String {
        let spine = e.leftSpine
        guard spine.count > 1, let leaf = spine.last else { return node(e) }
        var out = ""
        for n in spine.dropLast() {
            switch n.kind {
            case .binary(let op, _, _): out += "{\"op\":" + JSONText.string(op.rawValue) + ",\"left\":"
            default: out += "{\"op\":\"in\",\"left\":"
            }
        }
        out += node(leaf)
        for n in spine.dropLast().reversed() {
            switch n.kind {
            case .binary(_, _, let r): out += ",\"right\":" + expression(r)
            case .inList(_, let items): out += ",\"list\":" + JSONText.array(items.map(expression))
            default: break
            }
            if let t = n.type { out += ",\"type\":" + JSONText.string("\(t)") }
            out += ",\"position\":" + String(n.position) + "}"
        }
        return out
    }

    static func node(_ e: FilterExpression) -> String {
        var m: [(String, String)]
        switch e.kind {
        case .literal(let l):
            return withType(literal(l), e)
        case .alias(let a):
            m = [("alias", JSONText.string(a))]
        case .member(let p):
            m = [("path", JSONText.array(memberSegments(p)))]
            if let l = p.lambda {
                var lm: [(String, String)] = [("kind", JSONText.string(l.kind.rawValue))]
                if let v = l.variable { lm.append(("variable", JSONText.string(v))) }
                if let pr = l.predicate { lm.append(("predicate", expression(pr))) }
                m.append(("lambda", JSONText.object(lm)))
            }
        case .unary(let op, let operand):
            m = [("op", JSONText.string(op == .negate ? "negate" : "not")), ("operand", expression(operand))]
        case .binary(let op, let l, let r):
            m = [("op", JSONText.string(op.rawValue)), ("left", expression(l)), ("right", expression(r))]
        case .inList(let l, let items):
            m = [("op", JSONText.string("in")), ("left", expression(l)), ("list", JSONText.array(items.map(expression)))]
        case .call(let name, let args):
            m = [("function", JSONText.string(name)), ("arguments", JSONText.array(args.map(expression)))]
        case .typeFunction(let fn, let operand, let typeName):
            m = [("function", JSONText.string(fn.rawValue))]
            if let operand { m.append(("operand", expression(operand))) }
            m.append(("type", JSONText.string(typeName)))
        }
        if let t = e.type { m.append(("type", JSONText.string("\(t)"))) }
        m.append(("position", String(e.position)))
        return JSONText.object(m)
    }

    static func withType(_ object: String, _ e: FilterExpression) -> String {
        var s = String(object.dropLast())
        if let t = e.type { s += "," + JSONText.string("type") + ":" + JSONText.string("\(t)") }
        s += "," + JSONText.string("position") + ":" + String(e.position) + "}"
        return s
    }

    static func memberSegments(_ p: MemberPath) -> [String] {
        var out: [String] = []
        switch p.root {
        case .implicit: break
        case .it: out.append(JSONText.string("$it"))
        case .root: out.append(JSONText.string("$root"))
        case .rangeVariable(let v): out.append(JSONText.object([("variable", JSONText.string(v))]))
        }
        for s in p.segments {
            switch s {
            case .property(let n): out.append(JSONText.string(n))
            case .typeCast(let n): out.append(JSONText.object([("cast", JSONText.string(n))]))
            case .count: out.append(JSONText.string("$count"))
            case .keyed(let n, let a): out.append(JSONText.object([("name", JSONText.string(n)), ("key", arguments(a))]))
            }
        }
        return out
    }
}
