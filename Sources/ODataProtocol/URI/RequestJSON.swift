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
        if let k = s.key { m.append(("key", arguments(k))) }
        if let f = s.filter { m.append(("filter", expression(f))) }
        if let sets = s.crossjoin { m.append(("sets", JSONText.array(sets.map(JSONText.string)))) }
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
             .timeOfDay(let s), .duration(let s), .geography(let s), .geometry(let s):
            m.append(("value", JSONText.string(s)))
        case .binary(let b): m.append(("value", JSONText.string(Base64.encode(b, urlSafe: true, padded: false))))
        case .enumMember(let type, let value):
            m.append(("enumType", JSONText.string(type)))
            m.append(("value", JSONText.string(value)))
        }
        return JSONText.object(m)
    }

    static func options(_ o: QueryOptions, _ v: ODataVersion?) -> String {
        var m: [(String, String)] = []
        if let a = o.apply { m.append(("$apply", JSONText.array(a.map(transformation)))) }
        if let c = o.compute { m.append(("$compute", compute(c))) }
        if let f = o.filter { m.append(("$filter", expression(f))) }
        if let ob = o.orderBy {
            m.append(("$orderby", JSONText.array(ob.map {
                JSONText.object([("expression", expression($0.expression)), ("descending", $0.descending ? "true" : "false")])
            })))
        }
        if let t = o.top { m.append(("$top", String(t))) }
        if let s = o.skip { m.append(("$skip", String(s))) }
        if let s = o.select { m.append(("$select", JSONText.array(s.map { selectItem($0, v) }))) }
        if let e = o.expand { m.append(("$expand", JSONText.array(e.map { expandItem($0, v) }))) }
        if let c = o.count { m.append(("$count", c ? "true" : "false")) }
        if let s = o.skipToken { m.append(("$skiptoken", JSONText.string(s))) }
        if let f = o.format { m.append(("$format", JSONText.string(f))) }
        if let s = o.search { m.append(("$search", search(s))) }
        if let i = o.index { m.append(("$index", String(i))) }
        if let i = o.id { m.append(("$id", JSONText.string(i))) }
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

    /// A `$select` item: its path as a string, or an object when it has nested options or
    /// parameter names (`{"path": "Addresses", "options": {…}}`).
    static func selectItem(_ s: SelectItem, _ v: ODataVersion?) -> String {
        let path = JSONText.string(s.path.joined(separator: "/"))
        guard s.parameters != nil || !s.options.isEmpty else { return path }
        var m: [(String, String)] = [("path", path)]
        if let p = s.parameters { m.append(("parameters", JSONText.array(p.map(JSONText.string)))) }
        if !s.options.isEmpty { m.append(("options", options(s.options, v))) }
        return JSONText.object(m)
    }

    static func compute(_ items: [ComputeItem]) -> String {
        JSONText.array(items.map { JSONText.object([("expression", expression($0.expression)), ("as", JSONText.string($0.alias))]) })
    }

    /// `{"word": "blue"}`, `{"phrase": "blue green"}`, `{"incomplete": "…"}`, `{"not": …}`,
    /// `{"and": [ … ]}`, `{"or": [ … ]}`.
    public static func search(_ s: SearchExpression) -> String {
        switch s {
        case .word(let w): return JSONText.object([("word", JSONText.string(w))])
        case .phrase(let p): return JSONText.object([("phrase", JSONText.string(p))])
        case .incomplete(let t): return JSONText.object([("incomplete", JSONText.string(t))])
        case .not(let e): return JSONText.object([("not", search(e))])
        case .and(let terms): return JSONText.object([("and", JSONText.array(terms.map(search)))])
        case .or(let terms): return JSONText.object([("or", JSONText.array(terms.map(search)))])
        }
    }

    static func transformation(_ t: ApplyTransformation) -> String {
        func named(_ name: String, _ rest: [(String, String)]) -> String {
            JSONText.object([("transformation", JSONText.string(name))] + rest)
        }
        switch t {
        case .aggregate(let items):
            return named("aggregate", [("items", JSONText.array(items.map { a in
                var m: [(String, String)] = []
                m.append(("expression", a.expression.map(expression) ?? JSONText.string("$count")))
                if let w = a.method { m.append(("with", JSONText.string(w))) }
                if let alias = a.alias { m.append(("as", JSONText.string(alias))) }
                return JSONText.object(m)
            }))])
        case .groupBy(let paths, let nested):
            var rest: [(String, String)] = [("properties", JSONText.array(paths.map(expression)))]
            if let nested { rest.append(("apply", JSONText.array(nested.map(transformation)))) }
            return named("groupby", rest)
        case .filter(let e): return named("filter", [("expression", expression(e))])
        case .search(let s): return named("search", [("search", search(s))])
        case .orderBy(let items):
            return named("orderby", [("items", JSONText.array(items.map {
                JSONText.object([("expression", expression($0.expression)), ("descending", $0.descending ? "true" : "false")])
            }))])
        case .top(let n): return named("top", [("count", String(n))])
        case .skip(let n): return named("skip", [("count", String(n))])
        case .identity: return named("identity", [])
        case .compute(let items): return named("compute", [("items", compute(items))])
        case .concat(let seqs): return named("concat", [("sequences", JSONText.array(seqs.map { JSONText.array($0.map(transformation)) }))])
        case .function(let name, let args):
            return named("function", [("name", JSONText.string(name)), ("arguments", functionArguments(args))])
        }
    }

    static func functionArguments(_ args: [FunctionArgument]) -> String {
        JSONText.array(args.map { JSONText.object([("name", JSONText.string($0.name)), ("value", expression($0.value))]) })
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
        case .array(let items):
            m = [("array", JSONText.array(items.map(expression)))]
        case .object(let members):
            m = [("object", JSONText.array(members.map { JSONText.object([("name", JSONText.string($0.name)), ("value", expression($0.value))]) }))]
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
        case .this: out.append(JSONText.string("$this"))
        case .alias(let a): out.append(JSONText.object([("alias", JSONText.string(a))]))
        }
        for s in p.segments {
            switch s {
            case .property(let n): out.append(JSONText.string(n))
            case .typeCast(let n): out.append(JSONText.object([("cast", JSONText.string(n))]))
            case .count: out.append(JSONText.string("$count"))
            case .keyed(let n, let a): out.append(JSONText.object([("name", JSONText.string(n)), ("key", arguments(a))]))
            case .function(let n, let args):
                out.append(JSONText.object([("function", JSONText.string(n)), ("arguments", functionArguments(args))]))
            case .annotation(let t): out.append(JSONText.object([("annotation", JSONText.string(t))]))
            case .filter(let e): out.append(JSONText.object([("filter", expression(e))]))
            case .key(let a): out.append(JSONText.object([("key", arguments(a))]))
            }
        }
        return out
    }
}
