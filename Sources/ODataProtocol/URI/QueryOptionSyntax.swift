/// `$select`, `$expand` (with nested options) and the small option values, parsed with the
/// expression tokenizer so that nested `$filter`/`$orderby` share one grammar.
extension ExpressionParser {
    /// Where nested options stand, which decides the options allowed (ABNF `expandOption`,
    /// `expandRefOption`, `expandCountOption`, `selectOption`).
    enum NestedContext {
        case expand, expandRef, expandCount, expandStar, select

        var allowed: Set<String> {
            let countOptions: Set<String> = ["$filter", "$search"]
            let refOptions = countOptions.union(["$orderby", "$skip", "$top", "$count"])
            switch self {
            case .expandCount: return countOptions
            case .expandRef: return refOptions
            case .expandStar: return ["$levels"]
            case .expand: return refOptions.union(["$select", "$expand", "$compute", "$levels", "$apply"])
            case .select: return refOptions.union(["$select", "$compute"])
            }
        }

        var allowsAliases: Bool { self == .expand || self == .select }

        var name: String {
            switch self {
            case .expandCount: return "after $count in $expand"
            case .expandRef: return "after $ref in $expand"
            case .expandStar: return "after * in $expand"
            case .expand: return "in $expand"
            case .select: return "in $select"
            }
        }
    }

    /// Raw text from `start` up to (not including) the first unbalanced `)` or literal `;`
    /// outside quotes, or the end; a percent-encoded `;` (`%3B`) does not end it. Used for
    /// `$search` inside nested options, whose words are not expression tokens.
    func rawOptionEnd(from start: Int) -> Int {
        var i = start
        var depth = 0
        var quote: UInt8? = nil
        let bytes = lexer.bytes
        while i < lexer.end {
            let c = bytes[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == UInt8(ascii: "\"") || (c == UInt8(ascii: "'") && i == start) {
                quote = c
            } else if c == UInt8(ascii: "(") {
                depth += 1
            } else if c == UInt8(ascii: ")") {
                if depth == 0 { break }
                depth -= 1
            } else if c == UInt8(ascii: ";") && depth == 0 && !(encoded.map { i < $0.count && $0[i] } ?? false) {
                break
            }
            i += 1
        }
        return i
    }

    /// A `$search` value starting right after the `=` token (the current token): parsed from
    /// the raw text, then the parser continues after it.
    mutating func parseNestedSearch() throws(URLParseError) -> SearchExpression {
        let start = current.end
        let end = rawOptionEnd(from: start)
        var p = SearchParser(lexer.bytes, from: start, to: end, encoded: encoded, limits: limits)
        p.nesting = nesting
        let s = try p.parseAll()
        lexer.reposition(to: end)
        try advance()
        return s
    }

    /// A non-negative integer literal token.
    mutating func parseNonNegativeInteger(_ option: String) throws(URLParseError) -> Int {
        guard case .literal(.integer(let t)) = current.kind, let v = ResourceRequestParser.saturatingCount(t.utf8) else {
            throw error("a non-negative integer for \(option)")
        }
        try advance()
        return v
    }

    mutating func parseBoolean(_ option: String) throws(URLParseError) -> Bool {
        switch current.identifier {
        case "true": try advance(); return true
        case "false": try advance(); return false
        default: throw error("true or false for \(option)")
        }
    }

    /// `item (, item)*`: `*`, `NS.*`, a path of names (properties, type casts, annotations)
    /// optionally followed by `(P1,P2)` (an operation's parameter names) or, in V4, by nested
    /// options `(…;…)`.
    mutating func parseSelectItems() throws(URLParseError) -> [SelectItem] {
        var items: [SelectItem] = []
        repeat {
            if !items.isEmpty { try advance() }
            let start = current.start
            var item = SelectItem(path: [], position: mapped(start))
            while true {
                switch current.kind {
                case .star:
                    item.path.append("*")
                    try advance()
                case .identifier(let n) where n.hasPrefix("@"):
                    guard allowsV4, n.count > 1 else { throw error("a property name or '*'") }
                    item.path.append(n)
                    try advance()
                case .identifier(let n) where !n.hasPrefix("$") || n == "$value":
                    item.path.append(n)
                    try advance()
                default:
                    throw error(item.path.isEmpty ? "a property name or '*'" : "a property name after '/'")
                }
                if item.path.last == "*" || item.path.last?.hasSuffix(".*") == true { break }
                guard current.kind == .slash else { break }
                try advance()
            }
            if current.kind == .lparen {
                guard allowsV4, item.path.last != "*", item.path.last?.hasSuffix(".*") != true else {
                    throw URLParseError("options on $select items are V4 only", at: current.start)
                }
                let open = current.start
                let after = try lexer.peek()
                if case .identifier(let n) = after.kind, !n.hasPrefix("$"), !n.hasPrefix("@"), !isNamedOption(n) {
                    item.parameters = try parseParameterNames()
                } else {
                    try advance()
                    try enter(at: open)
                    item.options = try parseNestedOptions(.select)
                    leave()
                    try expect(.rparen, "';' or ')'")
                }
            }
            items.append(item)
        } while current.kind == .comma
        return items
    }

    /// A bare name followed by `=`: an option without `$` (4.01), not a parameter name.
    func isNamedOption(_ n: String) -> Bool {
        var probe = lexer
        _ = try? probe.next()
        return (try? probe.next().kind) == .equals
    }

    /// `(P1,P2,…)` after an operation in `$select`.
    mutating func parseParameterNames() throws(URLParseError) -> [String] {
        try advance()  // (
        var names: [String] = []
        repeat {
            if !names.isEmpty { try advance() }
            guard case .identifier(let n) = current.kind, Self.isPlainIdentifier(n) else { throw error("a parameter name") }
            names.append(n)
            try advance()
        } while current.kind == .comma
        try expect(.rparen, "',' or ')'")
        return names
    }

    /// `item (, item)*`; an item is `$value`, or a path ending in a navigation property (or
    /// an annotation), `*` or a stream property, optionally followed by `/$ref` or `/$count`
    /// and by `(options)`.
    mutating func parseExpandItems() throws(URLParseError) -> [ExpandItem] {
        var items: [ExpandItem] = []
        repeat {
            if !items.isEmpty { try advance() }
            let start = current.start
            var item = ExpandItem(path: [], position: mapped(start))
            while true {
                switch current.kind {
                case .star:
                    item.path.append("*")
                    try advance()
                case .identifier("$ref") where !item.path.isEmpty && allowsV4:
                    item.isRef = true
                    try advance()
                case .identifier("$count") where !item.path.isEmpty && allowsV4 && item.path.last != "*":
                    item.isCount = true
                    try advance()
                case .identifier("$value") where item.path.isEmpty && allowsV4:
                    item.path.append("$value")
                    try advance()
                case .identifier(let n) where n.hasPrefix("@") && allowsV4 && n.count > 1 && item.path.last != "*":
                    item.path.append(n)
                    try advance()
                case .identifier(let n) where !n.hasPrefix("@") && !n.hasPrefix("$") && !n.hasSuffix(".*") && item.path.last != "*":
                    item.path.append(n)
                    try advance()
                default:
                    throw error(item.path.isEmpty ? "a navigation property name or '*'" : "a navigation property name after '/'")
                }
                if item.isRef || item.isCount || item.path.last == "$value" { break }
                guard current.kind == .slash else { break }
                try advance()
            }
            if current.kind == .lparen {
                guard allowsV4 else { throw URLParseError("V2 $expand has no nested options", at: current.start) }
                let context: NestedContext = item.isRef ? .expandRef : item.isCount ? .expandCount
                    : item.path.last == "*" ? .expandStar : .expand
                if item.path.last == "$value" || (item.path.last == "*" && item.isRef) {
                    throw URLParseError("no options are allowed here", at: current.start)
                }
                let open = current.start
                try advance()
                try enter(at: open)
                item.options = try parseNestedOptions(context)
                leave()
                try expect(.rparen, "';' or ')'")
            }
            items.append(item)
        } while current.kind == .comma
        return items
    }

    /// `$name=value (; $name=value)*` inside `$expand`/`$select` parentheses (the `$` may be
    /// left out and names compare without case: 4.01), plus `@alias=value`.
    mutating func parseNestedOptions(_ context: NestedContext) throws(URLParseError) -> QueryOptions {
        var options = QueryOptions()
        var seen: Set<String> = []
        repeat {
            if !seen.isEmpty { try advance() }
            let nameToken = current
            guard case .identifier(let raw) = nameToken.kind else {
                throw error("a system query option such as $select")
            }
            if raw.hasPrefix("@") {
                guard context.allowsAliases, Self.isPlainIdentifier(String(raw.dropFirst())) else {
                    throw URLParseError("a parameter alias is not allowed \(context.name)", at: nameToken.start)
                }
                guard seen.insert(raw).inserted else { throw URLParseError("duplicate option \(raw)", at: nameToken.start) }
                try advance()
                try expect(.equals, "'=' after \(raw)")
                options.aliases.append(ParameterAlias(name: String(raw.dropFirst()), value: try parseExpression()))
                continue
            }
            let name = Self.systemOptionName(raw, version: version)
            guard context.allowed.contains(name) else {
                throw URLParseError("\(raw) is not allowed \(context.name)", at: nameToken.start)
            }
            guard seen.insert(name).inserted else {
                throw URLParseError("duplicate option \(name)", at: nameToken.start)
            }
            try advance()
            guard current.kind == .equals else { throw error("'=' after \(raw)") }
            if name == "$search" {
                options.search = try parseNestedSearch()
                continue
            }
            try advance()
            switch name {
            case "$filter": options.filter = try parseExpression()
            case "$orderby": options.orderBy = try parseOrderByItems()
            case "$select": options.select = try parseSelectItems()
            case "$expand": options.expand = try parseExpandItems()
            case "$top": options.top = try parseNonNegativeInteger(name)
            case "$skip": options.skip = try parseNonNegativeInteger(name)
            case "$count": options.count = try parseBoolean(name)
            case "$compute": options.compute = try parseComputeItems()
            case "$apply": options.apply = try parseApply()
            case "$levels":
                if current.identifier == "max" {
                    try advance()
                    options.levels = .max
                } else {
                    // oneToNine *DIGIT
                    guard case .literal(.integer(let t)) = current.kind, let f = t.utf8.first, f >= 0x31 && f <= 0x39 else {
                        throw error("a positive integer without leading zeros, or max, for $levels")
                    }
                    options.levels = .count(try parseNonNegativeInteger(name))
                }
            default:
                throw URLParseError("unsupported option \(raw) \(context.name)", at: nameToken.start)
            }
        } while current.kind == .semicolon
        return options
    }
}

extension Lexer {
    mutating func reposition(to offset: Int) { self.offset = min(offset, end) }
}
