/// V4 JSON arrays and objects in expressions and parameter values (4.01 Part 2, 5.1.1.14.2;
/// ABNF section 5 `arrayOrObject`): `["a","b"]`, `[1,2 add 3]`, `{"Street":"Main","City":City}`.
/// Values are JSON strings (`"…"`, kept as string literals) or any common expression; member
/// names are JSON strings.
extension ExpressionParser {
    @inline(never)
    mutating func parseArray() throws(URLParseError) -> FilterExpression {
        let start = current.start
        try advance()  // [
        try enter(at: start)
        defer { leave() }
        var items: [FilterExpression] = []
        if current.kind != .rbracket {
            repeat {
                if !items.isEmpty { try advance() }
                items.append(try parseJSONValue())
            } while current.kind == .comma
        }
        try expect(.rbracket, items.isEmpty ? "']'" : "',' or ']'")
        return try make(.array(items), at: start)
    }

    @inline(never)
    mutating func parseObject() throws(URLParseError) -> FilterExpression {
        let start = current.start
        try advance()  // {
        try enter(at: start)
        defer { leave() }
        var members: [ObjectMember] = []
        if current.kind != .rbrace {
            repeat {
                if !members.isEmpty { try advance() }
                guard case .jsonString(let name) = current.kind else { throw error("a member name in double quotes") }
                try advance()
                try expect(.colon, "':' after the member name")
                members.append(ObjectMember(name: name, value: try parseJSONValue()))
            } while current.kind == .comma
        }
        try expect(.rbrace, members.isEmpty ? "'}' or a member name" : "',' or '}'")
        return try make(.object(members), at: start)
    }

    /// A JSON string or any expression (`valueInUrl`).
    mutating func parseJSONValue() throws(URLParseError) -> FilterExpression {
        if case .jsonString(let s) = current.kind {
            let at = current.start
            try advance()
            return try make(.literal(.string(s)), at: at)
        }
        return try parseExpression()
    }
}
