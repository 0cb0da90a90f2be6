/// The table of one entity set (or singleton): a column per structural property of the
/// set's entity type and of every type derived from it (complex properties flattened), plus
/// the store's own columns, whose names start with `@` so no OData name can clash:
///
/// | column | |
/// |---|---|
/// | `@rid` | INTEGER PRIMARY KEY: the row's stable id (links, membership, local keys) |
/// | `@type` | the entity's type when it is a derived one, else NULL |
/// | `@etag` | the entity's ETag |
/// | `@extra` | JSON object of members the schema has no column for (open types' dynamic properties, media links, stream annotations) |
/// | `@state` | `RowState`: 0 in step with the service, 1 local changes not uploaded yet, 2 a change the service refused |
///
/// The key columns have a UNIQUE index.
/// The `@state` of a row.
enum RowState: Int64, Sendable {
    /// As the service has it.
    case synced = 0
    /// Local changes wait in the upload queue.
    case pending = 1
    /// A change of this entity is in the error archive.
    case error = 2
}

final class EntityTable: Sendable {
    /// The entity set's (or singleton's) URL name.
    let entitySet: String
    let isSingleton: Bool
    /// The set's declared entity type (qualified).
    let entityType: String
    /// The SQL table name (unquoted).
    let sqlName: String
    /// Every column, base-type properties first, in declaration order.
    let columns: [Column]
    /// The key columns in key order (names as used in key predicates).
    let keyColumns: [Column]
    /// The key property names as used in key predicates (a V4 key alias, or the name).
    let keyNames: [String]
    /// Column by path text (`Name`, `Address/City`).
    let columnsByPath: [String: Column]
    /// Derived entity types whose entities this table may hold (qualified names).
    let derivedTypes: [String]

    static let ridColumn = "@rid"
    static let typeColumn = "@type"
    static let etagColumn = "@etag"
    static let extraColumn = "@extra"
    static let stateColumn = "@state"

    init(entitySet: String, isSingleton: Bool, entityType: String, sqlName: String, columns: [Column],
         keyColumns: [Column], keyNames: [String], derivedTypes: [String]) {
        self.entitySet = entitySet
        self.isSingleton = isSingleton
        self.entityType = entityType
        self.sqlName = sqlName
        self.columns = columns
        self.keyColumns = keyColumns
        self.keyNames = keyNames
        self.derivedTypes = derivedTypes
        var byPath: [String: Column] = [:]
        for c in columns where byPath[c.pathText] == nil { byPath[c.pathText] = c }
        self.columnsByPath = byPath
    }

    var quoted: String { SQLName.quote(sqlName) }

    func column(_ path: String) -> Column? { columnsByPath[path] }

    /// The columns of the properties of the entity itself and of its complex members (not
    /// those of members below them): what a `$select` of `name` covers.
    func columns(under path: [String]) -> [Column] {
        columns.filter { $0.path.count >= path.count && Array($0.path.prefix(path.count)) == path }
    }

    /// CREATE TABLE and its indexes.
    var ddl: [String] {
        var defs = ["\(SQLName.quote(Self.ridColumn)) INTEGER PRIMARY KEY",
                    "\(SQLName.quote(Self.typeColumn)) TEXT",
                    "\(SQLName.quote(Self.etagColumn)) TEXT",
                    "\(SQLName.quote(Self.extraColumn)) TEXT",
                    "\(SQLName.quote(Self.stateColumn)) INTEGER NOT NULL DEFAULT 0"]
        for c in columns { defs.append("\(c.quoted) \(c.sqlType)") }
        var out = ["CREATE TABLE IF NOT EXISTS \(quoted) (\(defs.joined(separator: ", ")))"]
        if !keyColumns.isEmpty {
            out.append("CREATE UNIQUE INDEX IF NOT EXISTS \(SQLName.quote(sqlName + "@key")) ON \(quoted) (\(keyColumns.map(\.quoted).joined(separator: ", ")))")
        }
        return out
    }
}
