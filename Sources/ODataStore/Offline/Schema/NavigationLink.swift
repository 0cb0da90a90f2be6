/// How the entities of a navigation property are found locally.
///
/// Where the model gives a referential constraint (`Product.CategoryID` = `Category.ID`),
/// the join compares columns, so the relationship holds for any rows present however they
/// were downloaded. Otherwise a link table records the pairs seen in expanded downloads:
/// `src` (the `@rid` of the table the pair was declared from) and `dst`. A navigation and
/// its partner share one link table, read in opposite directions.
struct NavigationLink: Sendable {
    enum Join: Sendable {
        /// source column = target column, for each pair (a compound constraint has several).
        case columns([(source: Column, target: Column)])
        /// Rows of `table` pair source and target `@rid`s; `reversed` when the source is the
        /// table's `dst` side.
        case linkTable(table: String, reversed: Bool)
    }

    /// The navigation property's name.
    let name: String
    let source: EntityTable
    let target: EntityTable
    let isCollection: Bool
    let join: Join

    /// The SQL condition that relates a source row (alias `s`) and a target row (alias `t`).
    func condition(source s: String, target t: String) -> String {
        switch join {
        case .columns(let pairs):
            return pairs.map { "\(s).\($0.source.quoted) = \(t).\($0.target.quoted)" }.joined(separator: " AND ")
        case .linkTable(let table, let reversed):
            let (from, to) = reversed ? ("dst", "src") : ("src", "dst")
            let rid = SQLName.quote(EntityTable.ridColumn)
            return "EXISTS (SELECT 1 FROM \(SQLName.quote(table)) ods_l WHERE ods_l.\(from) = \(s).\(rid) AND ods_l.\(to) = \(t).\(rid))"
        }
    }

    /// DDL of a link table.
    static func linkTableDDL(_ name: String) -> [String] {
        ["CREATE TABLE IF NOT EXISTS \(SQLName.quote(name)) (src INTEGER NOT NULL, dst INTEGER NOT NULL, PRIMARY KEY (src, dst)) WITHOUT ROWID",
         "CREATE INDEX IF NOT EXISTS \(SQLName.quote(name + "@dst")) ON \(SQLName.quote(name)) (dst, src)"]
    }
}
