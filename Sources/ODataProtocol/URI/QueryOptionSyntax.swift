/// `$select`, `$expand` (with nested options) and the small option values, parsed with the
/// expression tokenizer so that nested `$filter`/`$orderby` share one grammar.
extension ExpressionParser {
    /// Raw text from the current token up to (not including) the first `;` or unbalanced `)`
    /// outside quotes, or the end. Used for `$search` inside `$expand` options.
    mutating func scanRawOptionValue() throws(URLParseError) -> String {
        let start = current.start
        var i = start
        var depth = 0
        var quote: UInt8? = nil
        let bytes = lexer.bytes
        while i < lexer.end {
            let c = bytes[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: "(") {
                depth += 1
            } else if c == UInt8(ascii: ")") {
                if depth == 0 { break }
                depth -= 1
            } else if c == UInt8(ascii: ";") && depth == 0 {
                break
            }
            i += 1
        }
        lexer.reposition(to: i)
        current = try lexer.next()
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    /// A non-negative integer literal token.
    mutating func parseNonNegativeInteger(_ option: String) throws(URLParseError) -> Int {
        guard case .literal(.integer(let t)) = current.kind, !t.hasPrefix("-"), let v = Int(t) else {
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

    /// `item (, item)*` where an item is a path of names separated by `/`, `*`, or `NS.*`.
    mutating func parseSelectItems() throws(URLParseError) -> [SelectItem] {
        var items: [SelectItem] = []
        repeat {
            if !items.isEmpty { try advance() }
            let start = current.start
            var path: [String] = []
            while true {
                switch current.kind {
                case .star:
                    path.append("*")
                    try advance()
                case .identifier(let n) where !n.hasPrefix("@") && (!n.hasPrefix("$") || n == "$value"):
                    path.append(n)
                    try advance()
                default:
                    throw error(path.isEmpty ? "a property name or '*'" : "a property name after '/'")
                }
                if path.last == "*" || path.last?.hasSuffix(".*") == true { break }
                guard current.kind == .slash else { break }
                try advance()
            }
            if current.kind == .lparen {
                throw URLParseError("options on $select items are not supported", at: current.start)
            }
            items.append(SelectItem(path: path, position: mapped(start)))
        } while current.kind == .comma
        return items
    }

    /// `item (, item)*`; an item is a path ending in a navigation property, `*` or `$value`,
    /// optionally followed by `/$ref` or `/$count` and by `(options)`.
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
                case .identifier("$ref") where !item.path.isEmpty && version != .v2:
                    item.isRef = true
                    try advance()
                case .identifier("$count") where !item.path.isEmpty && version != .v2:
                    item.isCount = true
                    try advance()
                case .identifier("$value") where item.path.isEmpty && version != .v2:
                    item.path.append("$value")
                    try advance()
                case .identifier(let n) where !n.hasPrefix("@") && !n.hasPrefix("$") && !n.hasSuffix(".*"):
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
                guard version != .v2 else { throw URLParseError("V2 $expand has no nested options", at: current.start) }
                let open = current.start
                try advance()
                try enter(at: open)
                item.options = try parseNestedOptions()
                leave()
                try expect(.rparen, "';' or ')'")
            }
            items.append(item)
        } while current.kind == .comma
        return items
    }

    /// `$name=value (; $name=value)*` inside `$expand` parentheses.
    mutating func parseNestedOptions() throws(URLParseError) -> QueryOptions {
        var options = QueryOptions()
        var seen: Set<String> = []
        repeat {
            if !seen.isEmpty { try advance() }
            let nameToken = current
            guard case .identifier(let name) = nameToken.kind, name.hasPrefix("$") else {
                throw error("a system query option such as $select")
            }
            guard seen.insert(name).inserted else {
                throw URLParseError("duplicate option \(name)", at: nameToken.start)
            }
            try advance()
            try expect(.equals, "'=' after \(name)")
            switch name {
            case "$filter": options.filter = try parseExpression()
            case "$orderby": options.orderBy = try parseOrderByItems()
            case "$select": options.select = try parseSelectItems()
            case "$expand": options.expand = try parseExpandItems()
            case "$top": options.top = try parseNonNegativeInteger(name)
            case "$skip": options.skip = try parseNonNegativeInteger(name)
            case "$count": options.count = try parseBoolean(name)
            case "$search": options.search = try scanRawOptionValue()
            case "$levels":
                if current.identifier == "max" {
                    try advance()
                    options.levels = .max
                } else {
                    options.levels = .count(try parseNonNegativeInteger(name))
                }
            default:
                throw URLParseError("unsupported option \(name) in $expand", at: nameToken.start)
            }
        } while current.kind == .semicolon
        return options
    }
}

extension Lexer {
    mutating func reposition(to offset: Int) { self.offset = min(offset, end) }
}
