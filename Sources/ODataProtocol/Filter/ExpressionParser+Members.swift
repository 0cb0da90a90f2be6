/// Member paths in expressions (4.01 Part 2, 5.1.1.15 and the ABNF's `firstMemberExpr`):
/// `Address/City`, `$it/Name`, `$this`, `d/Price` (a lambda variable), `@a/Street` (an alias),
/// `NS.Derived/Extra`, `Items(1)/Name`, `Products/$filter(Price gt 5)/$count`,
/// `Products/$count($filter=Price gt 5)`, `Model.BestProduct()/Name`, `Price/@Measures.Currency`,
/// `Tags/any(t:t eq 'x')`, `$root/Employees('A1245')/Name`.
extension ExpressionParser {
    /// One argument of a call in an expression, before it is classified as a key predicate
    /// or function parameters.
    struct CallArgument {
        var name: String?
        var value: FilterExpression
        var at: Int
    }

    mutating func parseMember(_ token: Token) throws(URLParseError) -> FilterExpression {
        var path = try parseMemberHead(token)
        var ended = false
        while !ended && current.kind == .slash {
            if let kind = try lambdaAfterSlash() {
                path.lambda = try parseLambda(kind)
                break
            }
            ended = try parseMemberSegment(&path, first: false)
        }
        try validateMember(path)
        return try make(.member(path), at: token.start)
    }

    @inline(never)
    func validateMember(_ path: MemberPath) throws(URLParseError) {
        if path.root == .root && path.segments.isEmpty && path.lambda == nil { throw error("a path after $root") }
        // memberExpr: a leading type cast is followed by "/" and a member.
        if path.root == .implicit, path.segments.count == 1, path.lambda == nil, case .typeCast(let name) = path.segments[0] {
            throw error("'/' and a property after the type cast \(name) (or '(' to call a function)")
        }
    }

    /// The root (`$it`, `$this`, `$root`, a range variable, an alias) or first segment of a
    /// member path.
    @inline(never)
    mutating func parseMemberHead(_ token: Token) throws(URLParseError) -> MemberPath {
        guard case .identifier(let first) = token.kind else { throw error("a property path") }
        var path = MemberPath(segments: [])
        if first == "$it" && allowsV4 {
            path.root = .it
        } else if first == "$root" && allowsV4 {
            path.root = .root
        } else if first == "$this" && allowsV4 {
            path.root = .this
        } else if rangeVariables.contains(first) {
            path.root = .rangeVariable(first)
        } else if first.hasPrefix("@") && !Self.isAnnotation(first) {
            path.root = .alias(String(first.dropFirst()))
        } else {
            _ = try parseMemberSegment(&path, first: true)
            return path
        }
        try advance()
        if path.root == .root && current.kind != .slash { throw error("'/' after $root") }
        return path
    }

    /// At `/any(` or `/all(` (V4): consumes the slash and returns the lambda kind.
    @inline(never)
    mutating func lambdaAfterSlash() throws(URLParseError) -> Lambda.Kind? {
        guard allowsV4 else { return nil }
        var probe = lexer
        let name = try probe.next()
        guard let n = keyword(name), n == "any" || n == "all", try probe.peek().kind == .lparen else { return nil }
        try advance()  // '/'
        return n == "any" ? .any : .all
    }

    /// One segment of a member path (after its `/` unless `first`); true when the path must
    /// end here (`$count`).
    @inline(never)
    mutating func parseMemberSegment(_ path: inout MemberPath, first: Bool) throws(URLParseError) -> Bool {
        if !first { try advance() }  // '/'
        let segToken = current
        guard case .identifier(let name) = segToken.kind else { throw error("a property name after '/'") }
        if name.hasPrefix("@") {
            guard allowsV4, name.count > 1 else { throw URLParseError("unexpected \(segToken.display) in a property path", at: segToken.start) }
            try advance()
            path.segments.append(.annotation(String(name.dropFirst())))
            return false
        }
        if name.hasPrefix("$") {
            if !first && allowsV4 && name == "$count" {
                try advance()
                if current.kind == .lparen { try parseCountOptions(&path) }
                path.segments.append(.count)
                return true
            }
            if !first && allowsV4 && name == "$filter", try lexer.peek().kind == .lparen {
                try advance()
                try parseFilterSegment(&path)
                return false
            }
            throw URLParseError("unexpected \(segToken.display) in a property path", at: segToken.start)
        }
        if name.hasSuffix(".*") {
            throw URLParseError("unexpected \(segToken.display) in a property path", at: segToken.start)
        }
        try advance()
        if current.kind == .lparen && allowsV4 {
            try parseCallSegment(name, segToken, &path, first: first)
            return false
        }
        path.segments.append(name.contains(".") ? .typeCast(name) : .property(name))
        return false
    }

    /// `Name(…)` in a path: a function call (qualified names, `()`, named parameters with
    /// values other than literals and aliases) or a key predicate (a single literal or alias,
    /// or named literals: `Items(1)`, `Items(OrderID=1,ItemID=2)`); a function call may be
    /// followed by a key predicate.
    @inline(never)
    mutating func parseCallSegment(_ name: String, _ token: Token, _ path: inout MemberPath, first: Bool) throws(URLParseError) {
        let open = current.start
        let args = try parseCallArguments()
        let named = args.allSatisfy { $0.name != nil }
        func keyValue(_ e: FilterExpression) -> ArgumentValue? {
            switch e.kind {
            case .literal(let l): return .literal(l)
            case .alias(let a): return .alias(a)
            default: return nil
            }
        }
        if name.contains(".") {
            guard named else { throw URLParseError("parameters of \(name) must be named (name=value)", at: open) }
            path.segments.append(.function(name, args.map { FunctionArgument(name: $0.name ?? "", value: $0.value) }))
        } else if first, ["any", "all"].contains(keyword(token) ?? "") {
            throw URLParseError("\(name)(…) needs a collection path before it (Items/\(name)(…))", at: token.start)
        } else if args.isEmpty {
            path.segments.append(.function(name, []))
        } else if named {
            let values = args.compactMap { keyValue($0.value) }
            if values.count == args.count {
                path.segments.append(.keyed(name, .named(zip(args, values).map { NamedArgument(name: $0.0.name ?? "", value: $0.1) })))
            } else {
                path.segments.append(.function(name, args.map { FunctionArgument(name: $0.name ?? "", value: $0.value) }))
            }
        } else if args.count == 1, args[0].name == nil, let v = keyValue(args[0].value) {
            path.segments.append(.keyed(name, .positional(v)))
        } else {
            if first { throw URLParseError("unknown function '\(name)'", at: token.start) }
            throw URLParseError("expected a key value or name=value parameters after '\(name)'", at: open)
        }
        if current.kind == .lparen, case .function = path.segments.last {
            path.segments.append(.key(try parseArguments()))
        }
    }

    /// `( [name=value, …] )` of a call in an expression: values are any expressions.
    @inline(never)
    mutating func parseCallArguments() throws(URLParseError) -> [CallArgument] {
        let open = current.start
        try advance()  // (
        try enter(at: open)
        defer { leave() }
        var out: [CallArgument] = []
        if current.kind == .rparen {
            try advance()
            return out
        }
        repeat {
            if !out.isEmpty { try advance() }
            let at = current.start
            var name: String? = nil
            if case .identifier(let n) = current.kind, !n.hasPrefix("@"), !n.hasPrefix("$"), try lexer.peek().kind == .equals {
                if out.contains(where: { $0.name == n }) { throw URLParseError("'\(n)' given twice", at: at) }
                name = n
                try advance()
                try advance()
            }
            let value = try parseExpression()
            out.append(CallArgument(name: name, value: value, at: at))
        } while current.kind == .comma
        try expect(.rparen, "',' or ')'")
        if out.contains(where: { $0.name == nil }) && out.contains(where: { $0.name != nil }) {
            throw URLParseError("mixed named and unnamed arguments", at: open)
        }
        return out
    }

    /// `$filter(expr)` after a collection, optionally followed by a key predicate.
    @inline(never)
    mutating func parseFilterSegment(_ path: inout MemberPath) throws(URLParseError) {
        let open = current.start
        try advance()  // (
        try enter(at: open)
        let e = try parseExpression()
        try expect(.rparen, "')'")
        leave()
        path.segments.append(.filter(e))
        if current.kind == .lparen { path.segments.append(.key(try parseArguments())) }
    }

    /// `$count( $filter=expr )` (`expandCountOption`): the filter becomes a filter segment
    /// before the count.
    @inline(never)
    mutating func parseCountOptions(_ path: inout MemberPath) throws(URLParseError) {
        let open = current.start
        try advance()  // (
        try enter(at: open)
        defer { leave() }
        var seen = false
        repeat {
            if seen { try advance() }
            let nameToken = current
            guard let raw = current.identifier else { throw error("$filter=… inside $count(…)") }
            let name = Self.systemOptionName(raw, version: version)
            try advance()
            try expect(.equals, "'=' after \(raw)")
            switch name {
            case "$filter":
                guard !seen else { throw URLParseError("duplicate option $filter", at: nameToken.start) }
                path.segments.append(.filter(try parseExpression()))
            case "$search":
                throw URLParseError("$search inside $count(…) in an expression is not supported", at: nameToken.start)
            default:
                throw URLParseError("only $filter is allowed inside $count(…), found \(raw)", at: nameToken.start)
            }
            seen = true
        } while current.kind == .semicolon
        try expect(.rparen, "';' or ')'")
    }

    mutating func parseLambda(_ kind: Lambda.Kind) throws(URLParseError) -> Lambda {
        try advance()  // any/all
        let open = current.start
        try advance()  // (
        try enter(at: open)
        defer { leave() }
        if current.kind == .rparen {
            guard kind == .any else { throw error("a lambda variable (all requires a predicate)") }
            try advance()
            return Lambda(kind: kind, variable: nil, predicate: nil)
        }
        guard case .identifier(let v) = current.kind, !v.contains("."), !v.hasPrefix("$"), !v.hasPrefix("@") else {
            throw error("a lambda variable name")
        }
        try advance()
        try expect(.colon, "':' after the lambda variable")
        rangeVariables.append(v)
        let predicate = try parseExpression()
        rangeVariables.removeLast()
        try expect(.rparen, "')'")
        return Lambda(kind: kind, variable: v, predicate: predicate)
    }

    /// A system query option's canonical name: V4 names compare without case and may omit
    /// the `$` (4.01 Part 2, 5: `filter=`, `$OrderBy=`); V2 names are as written.
    static func systemOptionName(_ raw: String, version: ODataVersion?) -> String {
        guard version != .v2 else { return raw }
        let lower = raw.lowercased()
        return lower.hasPrefix("$") ? lower : "$" + lower
    }
}
