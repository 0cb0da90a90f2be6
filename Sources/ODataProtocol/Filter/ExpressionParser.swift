/// Recursive-descent parser for the common expression syntax (`$filter`, `$orderby`, lambda
/// predicates, `$expand`/`$select` options, `$compute`, `$apply`, parameter alias values),
/// working on decoded UTF-8 text with byte offsets.
///
/// Precedence follows the OData URL Conventions table (highest first): grouping, primary
/// (member paths, method calls, `has`, `in`), unary (`-`, `not`), multiplicative, additive,
/// relational, equality, `and`, `or`. Binary operators are left-associative and need
/// whitespace on both sides (`RWS "and" RWS` in the ABNF). In V4 (and with no version), the
/// names of operators and canonical functions compare without case (4.01 Part 2, 5.1.1:
/// `Name EQ 'Milk'`); V2 names are lower case.
///
/// Member paths, function calls and JSON literals are in `ExpressionParser+Members.swift`
/// and `ExpressionParser+JSON.swift`; the recursive path (`parseExpression` … `parsePrimary`)
/// keeps its frames small (helpers are `@inline(never)`), see `StackDepthTests`.
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
    /// Which bytes of the parsed text were percent-encoded in the URL (`$search` tells a
    /// literal `;` from `%3B`); nil when the text did not come from a URL.
    var encoded: [Bool]? = nil

    func mapped(_ offset: Int) -> Int { positionMap?(offset) ?? offset }

    init(bytes: [UInt8], from start: Int = 0, to end: Int? = nil, version: ODataVersion?, limits: ParserLimits) throws(URLParseError) {
        lexer = Lexer(bytes, from: start, to: end, version: version)
        self.version = version
        self.limits = limits
        current = Token(kind: .eof, start: start, end: start)
        current = try lexer.next()
    }

    /// V4 syntax is allowed (V4 or both dialects).
    var allowsV4: Bool { version != .v2 }

    // MARK: - Token helpers

    mutating func advance() throws(URLParseError) { current = try lexer.next() }

    func isIdentifier(_ s: String) -> Bool { current.identifier == s }

    /// The identifier's text as a keyword: lower-cased where names compare without case (V4).
    func keyword(_ t: Token) -> String? {
        guard case .identifier(let s) = t.kind else { return nil }
        return version == .v2 ? s : s.lowercased()
    }

    func isKeyword(_ k: String) -> Bool { keyword(current) == k }

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

    /// The token after a keyword operator must be separated from it by whitespace.
    func requireSpaceAfter(_ op: String) throws(URLParseError) {
        if current.kind != .eof && !current.spaceBefore {
            throw URLParseError("expected whitespace after '\(op)'", at: current.start)
        }
    }

    // MARK: - Expressions

    /// Parses one expression and stops at the first token that cannot continue it.
    mutating func parseExpression() throws(URLParseError) -> FilterExpression {
        try parseBinary(minPrecedence: 1)
    }

    /// The binary operator at the current token (`has` and `in` are primary-level, see
    /// `parsePostfix`). An operator name that touches the previous token is an error.
    @inline(never)
    func binaryOperator() throws(URLParseError) -> BinaryOperator? {
        guard let name = keyword(current), let op = BinaryOperator(rawValue: name), op != .has else { return nil }
        if op == .divby && version == .v2 { return nil }
        guard current.spaceBefore else {
            throw URLParseError("expected whitespace before '\(op.rawValue)'", at: current.start)
        }
        return op
    }

    mutating func parseBinary(minPrecedence: Int) throws(URLParseError) -> FilterExpression {
        let leftStart = current.start
        var left = try parseUnary()
        while let op = try binaryOperator(), op.precedence >= minPrecedence {
            try advance()
            try requireSpaceAfter(op.rawValue)
            let right = try parseBinary(minPrecedence: op.precedence + 1)
            left = try make(.binary(op, left, right), at: leftStart)
        }
        return left
    }

    /// True when the token can start an operand (used to tell the `not` operator from
    /// a property that happens to be called `not`).
    func startsOperand(_ t: Token) -> Bool {
        switch t.kind {
        case .identifier:
            guard let k = keyword(t) else { return false }
            return BinaryOperator(rawValue: k) == nil && k != "in" && k != "asc" && k != "desc"
        case .literal, .lparen, .minus, .lbracket, .lbrace: return true
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
        if isKeyword("not") {
            let next = try lexer.peek()
            guard startsOperand(next) else { return nil }
            guard next.spaceBefore else { throw URLParseError("expected whitespace after 'not'", at: next.start) }
            return .not
        }
        return nil
    }

    /// A primary expression followed by any number of `has`/`in` (primary-level operators).
    mutating func parsePostfix() throws(URLParseError) -> FilterExpression {
        let leftStart = current.start
        var left = try parsePrimary()
        while allowsV4 {
            if isKeyword("has") {
                guard current.spaceBefore else { throw URLParseError("expected whitespace before 'has'", at: current.start) }
                try advance()
                try requireSpaceAfter("has")
                let rightStart = current.start
                let right = try parsePrimary()
                // hasExpr = RWS "has" RWS enumLiteral (a string stands for the enumeration's
                // member names, as in comparisons); an alias stands for one.
                switch right.kind {
                case .literal(.enumMember), .literal(.string), .alias: break
                default: throw URLParseError("expected an enumeration literal after 'has'", at: rightStart)
                }
                left = try make(.binary(.has, left, right), at: leftStart)
            } else if isKeyword("in") {
                guard current.spaceBefore else { throw URLParseError("expected whitespace before 'in'", at: current.start) }
                left = try make(.inList(left, try parseInOperand()), at: leftStart)
            } else {
                break
            }
        }
        return left
    }

    /// The right side of `in`: `(literal, …)` (a parenthesized list of primitive literals;
    /// a single expression in parentheses is a collection-valued operand), a JSON array
    /// `[…]`, or a collection-valued expression (`Name in Tags`). Kept out of `parsePostfix`
    /// so that the recursive path stays small on the stack.
    @inline(never)
    mutating func parseInOperand() throws(URLParseError) -> [FilterExpression] {
        try advance()  // in
        try requireSpaceAfter("in")
        switch current.kind {
        case .lparen:
            let open = current.start
            try advance()
            try enter(at: open)
            var items: [FilterExpression] = []
            var starts: [Int] = []
            if current.kind != .rparen {
                repeat {
                    if !items.isEmpty { try advance() }
                    starts.append(current.start)
                    items.append(try parseExpression())
                } while current.kind == .comma
            }
            try expect(.rparen, items.isEmpty ? "')'" : "',' or ')'")
            leave()
            if items.count > 1 {
                for (i, item) in items.enumerated() where !Self.isListLiteral(item) {
                    throw URLParseError("expected a primitive literal in the list after 'in' (a JSON array [...] takes expressions)", at: starts[i])
                }
            }
            return items
        case .lbracket:
            guard case .array(let items) = try parseArray().kind else { return [] }
            return items
        default:
            return [try parsePrimary()]
        }
    }

    /// A primitive literal as `listExpr` allows it (numbers keep their sign in the literal).
    static func isListLiteral(_ e: FilterExpression) -> Bool {
        if case .literal = e.kind { return true }
        return false
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
        case .lbracket:
            return try parseArray()
        case .lbrace:
            return try parseObject()
        case .jsonString:
            throw URLParseError("a string in double quotes is only valid inside a JSON array or object; write 'single quotes' for a string literal", at: token.start)
        default:
            throw error("an expression")
        }
    }

    mutating func parseIdentifierExpression(_ name: String, _ token: Token) throws(URLParseError) -> FilterExpression {
        if let leaf = try parseNamedLeaf(name, token) { return leaf }
        if try isCall(name), let call = try parseBuiltinCall(name, token) { return call }
        return try parseMember(token)
    }

    @inline(never)
    func isCall(_ name: String) throws(URLParseError) -> Bool {
        guard try lexer.peek().kind == .lparen else { return false }
        return !rangeVariables.contains(name) && !name.hasPrefix("$") && !name.hasPrefix("@")
    }

    /// An annotation term (`@Core.Messages`, `@Measures.Currency#Reporting`), as opposed to a
    /// parameter alias (`@p`: an identifier without dots).
    static func isAnnotation(_ name: String) -> Bool {
        name.hasPrefix("@") && (name.contains(".") || name.contains("#"))
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
            if allowsV4, name == "INF" || name == "NaN" {
                kind = .literal(.double(name))
            } else if name.hasPrefix("@") {
                guard allowsV4 else { throw URLParseError("parameter aliases (@\(name.dropFirst())) are V4 only", at: token.start) }
                guard name.count > 1 else { throw error("a parameter alias name", token) }
                if Self.isAnnotation(name) { return nil }
                if try lexer.peek().kind == .slash { return nil }
                kind = .alias(String(name.dropFirst()))
            }
        }
        guard let kind else { return nil }
        try advance()
        return try make(kind, at: token.start)
    }

    /// Canonical functions, `cast`/`isof` and `case`; nil for anything else (a bound
    /// function call: a member path).
    @inline(never)
    mutating func parseBuiltinCall(_ name: String, _ token: Token) throws(URLParseError) -> FilterExpression? {
        let lower = allowsV4 ? name.lowercased() : name
        if lower == "cast" || lower == "isof" {
            try advance()  // name
            let open = current.start
            try advance()  // (
            try enter(at: open)
            defer { leave() }
            return try parseTypeFunction(lower, token)
        }
        if lower == "case" && allowsV4 { return try parseCase(token) }
        if let fn = CanonicalFunction.named(lower), fn.available(in: version) {
            try advance()  // name
            let open = current.start
            try advance()  // (
            try enter(at: open)
            defer { leave() }
            return try parseFunctionArguments(fn, token)
        }
        if !allowsV4 { throw URLParseError("unknown function '\(name)'", at: token.start) }
        return nil
    }

    @inline(never)
    mutating func parseTypeFunction(_ name: String, _ token: Token) throws(URLParseError) -> FilterExpression {
        let fn: TypeFunction = name == "cast" ? .cast : .isof
        var args: [(FilterExpression?, String?, Int)] = []
        repeat {
            if !args.isEmpty { try advance() }
            let at = current.start
            if let typeName = try typeNameArgument() {
                args.append((nil, typeName, at))
                continue
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

    /// A type name as the last argument of `cast`/`isof`: `NS.Type`, `Edm.Int32`, V4 `Type`
    /// (unqualified) and `Collection(NS.Type)`, V2 `'NS.Type'`; nil (nothing consumed) when the
    /// argument is an expression.
    @inline(never)
    mutating func typeNameArgument() throws(URLParseError) -> String? {
        let after = try lexer.peek()
        switch current.kind {
        case .identifier(let n) where !n.hasPrefix("@") && !n.hasPrefix("$") && !n.hasSuffix(".*"):
            if allowsV4, n == "Collection", after.kind == .lparen {
                var probe = lexer
                guard let inner = try probe.next().identifier, try probe.next().kind == .rparen else { return nil }
                let end = try probe.peek()
                guard end.kind == .comma || end.kind == .rparen else { return nil }
                try advance(); try advance(); try advance(); try advance()
                return "Collection(\(inner))"
            }
            let qualifies = n.contains(".") ? (after.kind == .comma || after.kind == .rparen)
                : (allowsV4 && after.kind == .rparen && !rangeVariables.contains(n))
            guard qualifies else { return nil }
            try advance()
            return n
        case .literal(.string(let s)) where version != .v4:
            guard after.kind == .rparen else { return nil }
            try advance()
            return s
        default:
            return nil
        }
    }

    /// `case(cond:value, …)` (4.01 Part 2, 5.1.1.12), kept as a call of `case` whose arguments
    /// are the conditions and values in turn.
    @inline(never)
    mutating func parseCase(_ token: Token) throws(URLParseError) -> FilterExpression {
        try advance()  // case
        let open = current.start
        try advance()  // (
        try enter(at: open)
        defer { leave() }
        var args: [FilterExpression] = []
        repeat {
            if !args.isEmpty { try advance() }
            args.append(try parseExpression())
            try expect(.colon, "':' after a condition of case")
            args.append(try parseExpression())
        } while current.kind == .comma
        try expect(.rparen, "',' or ')'")
        return try make(.call("case", args), at: token.start)
    }

    @inline(never)
    mutating func parseFunctionArguments(_ fn: CanonicalFunction, _ token: Token) throws(URLParseError) -> FilterExpression {
        var args: [FilterExpression] = []
        if current.kind != .rparen {
            args.append(try parseExpression())
            while current.kind == .comma {
                try advance()
                args.append(try parseExpression())
            }
        }
        let name = fn.name
        guard args.count >= fn.minArguments && args.count <= fn.maxArguments else {
            let want = fn.minArguments == fn.maxArguments ? "\(fn.minArguments)" : "\(fn.minArguments) to \(fn.maxArguments)"
            throw URLParseError("\(name) expects \(want) argument\(fn.maxArguments == 1 ? "" : "s"), found \(args.count)", at: token.start)
        }
        try expect(.rparen, "')'")
        return try make(.call(name, args), at: token.start)
    }

    // MARK: - Key predicates and function parameters in resource paths

    /// `(…)`: empty, one positional value, or `name=value` pairs. Values are literals or
    /// parameter aliases. Used for key predicates and function parameters in paths.
    mutating func parseArguments() throws(URLParseError) -> SegmentArguments {
        let open = current.start
        try expect(.lparen, "'('")
        try enter(at: open)
        defer { leave() }
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
            if name.hasPrefix("@"), name.count > 1, !name.contains("."), !name.contains("#") {
                guard allowsV4 else { throw URLParseError("parameter aliases (\(name)) are V4 only", at: t.start) }
                try advance()
                return .alias(String(name.dropFirst()))
            }
            switch name.lowercased() {
            case "null": try advance(); return .literal(.null)
            case "true": try advance(); return .literal(.boolean(true))
            case "false": try advance(); return .literal(.boolean(false))
            default: break
            }
            if allowsV4, name == "INF" || name == "NaN" { try advance(); return .literal(.double(name)) }
            throw error("a literal value")
        default:
            throw error("a literal value")
        }
    }
}
