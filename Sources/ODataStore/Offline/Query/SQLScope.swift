/// What names in an expression refer to while it is translated to SQL: the table and SQL
/// alias of the current instance (`$it`), and the lambda range variables in scope.
struct SQLScope {
    /// What a lambda range variable stands for.
    enum Variable {
        /// An entity of a navigation collection: its table and alias.
        case entity(EntityTable, alias: String)
        /// An element of a primitive or complex collection held as JSON (`json_each` row
        /// `alias`): its element type.
        case jsonElement(alias: String, column: Column)
    }

    /// The table of `$it`.
    let table: EntityTable
    /// The SQL alias of `$it`'s table in the statement (`t0`).
    let alias: String
    /// Lambda range variables by name (innermost wins).
    var variables: [String: Variable] = [:]

    init(table: EntityTable, alias: String) {
        self.table = table
        self.alias = alias
    }
}

/// Fresh SQL aliases (`t1`, `t2`, ...) for one statement.
struct SQLAliases {
    private var next = 0
    init(startingAt n: Int = 0) { next = n }
    mutating func make(_ prefix: String = "t") -> String {
        defer { next += 1 }
        return "\(prefix)\(next)"
    }
}
