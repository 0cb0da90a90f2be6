/// Recursive-descent parser for the common expression syntax (`$filter`, `$orderby`, lambda
/// predicates, `$expand` options), working on decoded UTF-8 text with byte offsets.
///
/// Precedence follows the OData URL Conventions table (highest first): grouping, primary
/// (member paths, method calls, `has`, `in`), unary (`-`, `not`), multiplicative, additive,
/// relational, equality, `and`, `or`. Binary operators are left-associative.
struct ExpressionParser {
    var lexer: Lexer
    var current: Token
    let version: ODataVersion?
    let limits: ParserLimits
    var nesting = 0
    var rangeVariables: [String] = []
    /// Maps a byte offset of the parsed text to the position stored in nodes and items
    /// (a character offset in the caller's text); identity when nil.
    var positionMap: ((Int) -> Int)? = nil

    func mapped(_ offset: Int) -> Int { positionMap?(offset) ?? offset }

    init(bytes: [UInt8], from start: Int = 0, to end: Int? = nil, version: ODataVersion?, limits: ParserLimits) throws(URLParseError) {
        lexer = Lexer(bytes, from: start, to: end, version: version)
        self.version = version
        self.limits = limits
        current = Token(kind: .eof, start: start, end: start)
        current = try lexer.next()
    }

    // MARK: - Token helpers

    mutating func advance() throws(URLParseError) { current = try lexer.next() }

    func isIdentifier(_ s: String) -> Bool { current.identifier == s }

    func error(_ expected: String, _ token: Token? = nil) -> URLParseError {
        let t = token ?? current
        return URLParseError("expected \(expected), found \(t.display)", at: t.start)
    }

    mutating func expect(_ kind: Token.Kind, _ what: String) throws(URLParseError) {
        guard current.kind == kind else { throw error(what) }
        try advance()
    }

    mutating func expectEnd() throws(URLParseError) {
        guard current.kind == .eof else { throw error("end of expression") }
    }

    mutating func enter(at position: Int) throws(URLParseError) {
        nesting += 1
        if nesting > limits.maxNesting {
            throw URLParseError("expression nested too deeply (limit \(limits.maxNesting))", at: position)
        }
    }

    mutating func leave() { nesting -= 1 }

    func make(_ kind: FilterExpression.Kind, at position: Int) throws(URLParseError) -> FilterExpression {
        let e = FilterExpression(kind, position: mapped(position))
        if e.height > limits.maxTreeHeight {
            throw URLParseError("expression nested too deeply (tree height limit \(limits.maxTreeHeight))", at: position)
        }
        return e
    }

    // MARK: - Expressions

    /// Parses one expression and stops at the first token that cannot continue it.
    mutating func parseExpression() throws(URLParseError) -> FilterExpression {
        try parseBinary(minPrecedence: 1)
    }

    func binaryOperator() -> BinaryOperator? {
        guard let name = current.identifier, let op = BinaryOperator(rawValue: name), op != .has else { return nil }
        if op == .divby && version == .v2 { return nil }
        return op
    }

    mutating func parseBinary(minPrecedence: Int) throws(URLParseError) -> FilterExpression {
        let leftStart = current.start
        var left = try parseUnary()
        while let op = binaryOperator(), op.precedence >= minPrecedence {
            try advance()
            let right = try parseBinary(minPrecedence: op.precedence + 1)
            left = try make(.binary(op, left, right), at: leftStart)
        }
        return left
    }

    /// True when the current token can start an operand (used to tell the `not` operator from
    /// a property that happens to be called `not`).
    func startsOperand(_ t: Token) -> Bool {
        switch t.kind {
        case .identifier(let s): return BinaryOperator(rawValue: s) == nil && s != "in" && s != "asc" && s != "desc"
        case .literal, .lparen, .minus: return true
        default: return false
        }
    }

    /// Prefix operators (`-`, `not`) are collected in a loop and applied innermost-first, so a
    /// run of them costs no recursion; each still counts towards the nesting limit.
    mutating func parseUnary() throws(URLParseError) -> FilterExpression {
        var prefixes: [(UnaryOperator, Int)] = []
        while let op = try prefixOperator() {
            try enter(at: current.start)
            prefixes.append((op, current.start))
            try advance()
        }
        var operand = try parsePostfix()
        for (op, start) in prefixes.reversed() {
            operand = try make(.unary(op, operand), at: start)
            leave()
        }
        return operand
    }

    @inline(never)
    func prefixOperator() throws(URLParseError) -> UnaryOperator? {
        if current.kind == .minus { return .negate }
        if isIdentifier("not"), startsOperand(try lexer.peek()) { return .not }
        return nil
    }

    /// A primary expression followed by any number of `has`/`in` (primary-level operators).
    mutating func parsePostfix() throws(URLParseError) -> FilterExpression {
        let leftStart = current.start
        var left = try parsePrimary()
        while version != .v2 {
            if isIdentifier("has") {
                try advance()
                let right = try parsePrimary()
                left = try make(.binary(.has, left, right), at: leftStart)
            } else if isIdentifier("in") {
                left = try make(.inList(left, try parseInList()), at: leftStart)
            } else {
                break
            }
        }
        return left
    }

    /// `in (a, b, …)` after the left operand (kept out of `parsePostfix` so that the
    /// recursive path stays small on the stack).
    @inline(never)
    mutating func parseInList() throws(URLParseError) -> [FilterExpression] {
        try advance()
        let open = current.start
        try expect(.lparen, "'(' after 'in'")
        try enter(at: open)
        var items: [FilterExpression] = []
        if current.kind != .rparen {
            items.append(try parseExpression())
            while current.kind == .comma {
                try advance()
                items.append(try parseExpression())
            }
        }
        try expect(.rparen, "')'")
        leave()
        return items
    }

    mutating func parsePrimary() throws(URLParseError) -> FilterExpression {
        let token = current
        switch token.kind {
        case .literal(let l):
            try advance()
            return try make(.literal(l), at: token.start)
        case .lparen:
            try advance()
            try enter(at: token.start)
            let inner = try parseExpression()
            try expect(.rparen, "')'")
            leave()
            return inner
        case .identifier(let name):
            return try parseIdentifierExpression(name, token)
        default:
            throw error("an expression")
        }
    }

    mutating func parseIdentifierExpression(_ name: String, _ token: Token) throws(URLParseError) -> FilterExpression {
        if let leaf = try parseNamedLeaf(name, token) { return leaf }
        if try isCall(name) {
            return try parseCall(name, token)
        }
        return try parseMember(token)
    }

    @inline(never)
    func isCall(_ name: String) throws(URLParseError) -> Bool {
        try lexer.peek().kind == .lparen && !rangeVariables.contains(name) && name != "$it" && name != "$root"
    }

    /// `null`, `true`, `false`, `INF`, `NaN` and parameter aliases; nil for anything else.
    @inline(never)
    mutating func parseNamedLeaf(_ name: String, _ token: Token) throws(URLParseError) -> FilterExpression? {
        var kind: FilterExpression.Kind? = nil
        switch name.lowercased() {
        case "null": kind = .literal(.null)
        case "true": kind = .literal(.boolean(true))
        case "false": kind = .literal(.boolean(false))
        default:
            if version != .v2, name == "INF" || name == "NaN" {
                kind = .literal(.double(name))
            } else if name.hasPrefix("@") {
                guard name.count > 1, !name.contains(".") || version != .v2 else { throw error("a parameter alias name", token) }
                kind = .alias(String(name.dropFirst()))
            }
        }
        guard let kind else { return nil }
        try advance()
        return try make(kind, at: token.start)
    }

    mutating func parseCall(_ name: String, _ token: Token) throws(URLParseError) -> FilterExpression {
        try advance()  // name
        let open = current.start
        try advance()  // (
        try enter(at: open)
        defer { leave() }
        if name == "cast" || name == "isof" { return try parseTypeFunction(name, token) }
        return try parseFunctionArguments(name, token)
    }

    @inline(never)
    mutating func parseTypeFunction(_ name: String, _ token: Token) throws(URLParseError) -> FilterExpression {
        do {
            let fn: TypeFunction = name == "cast" ? .cast : .isof
            var args: [(FilterExpression?, String?, Int)] = []
            repeat {
                if !args.isEmpty { try advance() }
                let at = current.start
                if case .identifier(let n) = current.kind, n.contains("."), !n.hasPrefix("@") {
                    let after = try lexer.peek()
                    if after.kind == .comma || after.kind == .rparen {
                        try advance()
                        args.append((nil, n, at))
                        continue
                    }
                }
                if case .literal(.string(let s)) = current.kind, version != .v4 {
                    let after = try lexer.peek()
                    if after.kind == .rparen {
                        try advance()
                        args.append((nil, s, at))
                        continue
                    }
                }
                args.append((try parseExpression(), nil, at))
            } while current.kind == .comma
            try expect(.rparen, "')'")
            guard args.count == 1 || args.count == 2, let typeName = args.last?.1 else {
                throw URLParseError("\(name) expects an optional expression and a type name", at: token.start)
            }
            var operand: FilterExpression? = nil
            if args.count == 2 {
                guard let e = args[0].0 else {
                    throw URLParseError("\(name) expects an expression as its first argument", at: args[0].2)
                }
                operand = e
            }
            return try make(.typeFunction(fn, operand, typeName), at: token.start)
        }
    }

    @inline(never)
    mutating func parseFunctionArguments(_ name: String, _ token: Token) throws(URLParseError) -> FilterExpression {
        guard let fn = CanonicalFunction.named(name), fn.available(in: version) else {
            throw URLParseError("unknown function '\(name)'", at: token.start)
        }
        var args: [FilterExpression] = []
        if current.kind != .rparen {
            args.append(try parseExpression())
            while current.kind == .comma {
                try advance()
                args.append(try parseExpression())
            }
        }
        guard args.count >= fn.minArguments && args.count <= fn.maxArguments else {
            let want = fn.minArguments == fn.maxArguments ? "\(fn.minArguments)" : "\(fn.minArguments) to \(fn.maxArguments)"
            throw URLParseError("\(name) expects \(want) argument\(fn.maxArguments == 1 ? "" : "s"), found \(args.count)", at: token.start)
        }
        try expect(.rparen, "')'")
        return try make(.call(name, args), at: token.start)
    }

    /// A member path: `A/B`, `$it/A`, `v/A` (range variable), `NS.T/A`, `A/$count`,
    /// `A/any(v:…)`, `$root/Set(key)/A`.
    mutating func parseMember(_ token: Token) throws(URLParseError) -> FilterExpression {
        var path = try parseMemberHead(token)
        while current.kind == .slash {
            if let kind = try lambdaAfterSlash() {
                path.lambda = try parseLambda(kind)
                break
            }
            if try parseMemberSegment(&path) { break }
        }
        if path.root == .root && path.segments.isEmpty && path.lambda == nil { throw error("a path after $root") }
        return try make(.member(path), at: token.start)
    }

    /// The root (`$it`, `$root`, a range variable) or first segment of a member path.
    @inline(never)
    mutating func parseMemberHead(_ token: Token) throws(URLParseError) -> MemberPath {
        guard case .identifier(let first) = token.kind else { throw error("a property path") }
        var path = MemberPath(segments: [])
        try advance()
        if first == "$it" {
            path.root = .it
        } else if first == "$root" {
            path.root = .root
        } else if rangeVariables.contains(first) {
            path.root = .rangeVariable(first)
        } else {
            path.segments.append(try memberSegment(first, token))
        }
        if path.root == .root && current.kind != .slash { throw error("'/' after $root") }
        return path
    }

    /// At `/any(` or `/all(` (V4): consumes the slash and returns the lambda kind.
    @inline(never)
    mutating func lambdaAfterSlash() throws(URLParseError) -> Lambda.Kind? {
        guard version != .v2 else { return nil }
        var probe = lexer
        let name = try probe.next()
        guard let n = name.identifier, n == "any" || n == "all", try probe.peek().kind == .lparen else { return nil }
        try advance()  // '/'
        return n == "any" ? .any : .all
    }

    /// One `/segment` of a member path; true when the path must end here (`$count`).
    @inline(never)
    mutating func parseMemberSegment(_ path: inout MemberPath) throws(URLParseError) -> Bool {
        try advance()  // '/'
        let segToken = current
        guard case .identifier(let name) = segToken.kind else { throw error("a property name after '/'") }
        if name == "$count" && version != .v2 {
            try advance()
            path.segments.append(.count)
            return true
        }
        try advance()
        if path.root == .root && current.kind == .lparen {
            path.segments.append(.keyed(name, try parseArguments()))
            return false
        }
        path.segments.append(try memberSegment(name, segToken))
        return false
    }

    func memberSegment(_ name: String, _ token: Token) throws(URLParseError) -> MemberPath.Segment {
        if name.hasPrefix("$") || name.hasPrefix("@") || name.hasSuffix(".*") {
            throw URLParseError("unexpected \(token.display) in a property path", at: token.start)
        }
        return name.contains(".") ? .typeCast(name) : .property(name)
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

    // MARK: - Key predicates and function parameters

    /// `(…)`: empty, one positional value, or `name=value` pairs. Values are literals or
    /// parameter aliases. Used for key predicates and function parameters in paths.
    mutating func parseArguments() throws(URLParseError) -> SegmentArguments {
        try expect(.lparen, "'('")
        if current.kind == .rparen {
            try advance()
            return .empty
        }
        if case .identifier(let name) = current.kind, !name.hasPrefix("@"), try lexer.peek().kind == .equals {
            var pairs: [NamedArgument] = []
            var seen: Set<String> = []
            while true {
                guard case .identifier(let n) = current.kind, !n.hasPrefix("@"), !n.hasPrefix("$") else {
                    throw error("a parameter or key property name")
                }
                guard seen.insert(n).inserted else { throw URLParseError("'\(n)' given twice", at: current.start) }
                try advance()
                try expect(.equals, "'='")
                pairs.append(NamedArgument(name: n, value: try parseArgumentValue()))
                if current.kind == .comma { try advance(); continue }
                break
            }
            try expect(.rparen, "',' or ')'")
            return .named(pairs)
        }
        let value = try parseArgumentValue()
        try expect(.rparen, "')'")
        return .positional(value)
    }

    mutating func parseArgumentValue() throws(URLParseError) -> ArgumentValue {
        let t = current
        switch t.kind {
        case .literal(let l):
            try advance()
            return .literal(l)
        case .identifier(let name):
            if name.hasPrefix("@"), name.count > 1 { try advance(); return .alias(String(name.dropFirst())) }
            switch name.lowercased() {
            case "null": try advance(); return .literal(.null)
            case "true": try advance(); return .literal(.boolean(true))
            case "false": try advance(); return .literal(.boolean(false))
            default: break
            }
            if version != .v2, name == "INF" || name == "NaN" { try advance(); return .literal(.double(name)) }
            throw error("a literal value")
        default:
            throw error("a literal value")
        }
    }
}
