/// The bulk load of a table a first download fills from empty: its rows are written with
/// plain `INSERT`s into the table without its key's UNIQUE index (and its secondary indexes),
/// and when the defining request's last page is written, in that page's transaction, the keys
/// that came twice are reduced to their later copy and the indexes are made (SQLite's upsert
/// per row, `INSERT ... ON CONFLICT DO UPDATE` with the key index kept up to date, cost about
/// a fifth more per row than the plain insert with the index made once at the end:
/// bench/download/sqlite_insert.c).
///
/// When: a download the store's opening runs (`Download.Target.firstLoad`: the app's requests
/// are held until the store is open, so nothing reads the table or writes into it meanwhile),
/// a collection without `$expand`, whose table has key columns, is empty, and has no local
/// change queued, and the defining request is not being refreshed. Everything else upserts.
///
/// The state "table T is being bulk loaded by defining request R" is a row of `ods_store`
/// (`bulk_load:<table>` = R), written in the transaction of the first run of rows, so a kill
/// or a failure leaves it with the rows: the next opening resumes the download in bulk mode
/// (`StoreFile.open` leaves the table's secondary indexes out meanwhile), or, when it will not
/// resume that request, finishes the load before the store opens
/// (`OfflineEngine.finishOpening`). Any write into a table by another path finishes its load
/// first (`OfflineDatabase.writeEntities`). So an open store never has a table without its key
/// index or with a key twice.
///
/// Keys that came twice (a service whose paging drifted, or a page fetched again after a
/// failure): the copy with the largest row id stays, the later one, as the upsert keeps the
/// later copy's values. Row ids are never reused: the largest row id of the table is the
/// largest of its key and stays. The memberships of the removed copies are runs of row ids
/// (`MemberRanges`: every row of a bulk load is a new row) that now cover ids of removed rows,
/// which mean nothing (`MemberRanges`' invariant); no other table refers to them (no links
/// without `$expand`, no local changes). One difference from the upsert: the upsert changes
/// only the properties the later copy carries, the dedupe keeps the later row whole; the
/// copies come from the same defining request, so they carry the same properties.
///
/// Database thread only, inside the caller's transaction.
struct BulkLoad {
    let file: StoreFile

    /// `ods_store.name` of a bulk load: this prefix and the table's SQL name.
    static let prefix = "bulk_load:"

    private var c: SQLiteConnection { file.connection }

    /// The page cache (KiB) while the indexes are made (`finish`).
    static let sortKiB = 65536

    /// The bulk loads in progress: each table and the defining request loading it.
    func inProgress() throws(SQLiteError) -> [(table: EntityTable, request: Int64)] {
        try Self.inProgress(c, schema: file.schema)
    }

    /// `inProgress` on a connection being opened (`StoreFile.open`).
    static func inProgress(_ c: SQLiteConnection, schema: StoreSchema) throws(SQLiteError) -> [(table: EntityTable, request: Int64)] {
        var out: [(table: EntityTable, request: Int64)] = []
        // The range of names starting with the prefix (';' follows ':').
        for row in try c.rows("SELECT name, value FROM ods_store WHERE name >= 'bulk_load:' AND name < 'bulk_load;' ORDER BY name") {
            guard case .text(let name) = row[0], case .integer(let request) = row[1] else { continue }
            let sqlName = String(name.dropFirst(prefix.count))
            guard let table = schema.tables.values.first(where: { $0.sqlName == sqlName }) else { continue }
            out.append((table, request))
        }
        return out
    }

    /// Whether a page of `target` may start a bulk load of its table, before any row of it is
    /// written: see the type's comment.
    func mayBegin(_ target: Download.Target, isCollection: Bool, tableIsEmpty: Bool) throws(SQLiteError) -> Bool {
        let table = target.definition.table
        guard target.firstLoad, isCollection, tableIsEmpty, target.definition.expand.items.isEmpty,
              !table.keyColumns.isEmpty, !table.isSingleton else { return false }
        if try c.scalar("SELECT 1 FROM ods_queue WHERE tbl = ?1 LIMIT 1", [.integer(file.tableID(table))]) != nil { return false }
        guard case .null? = try c.scalar("SELECT refresh FROM ods_defining_requests WHERE id = ?1", [.integer(target.id)]) else {
            return false
        }
        return true
    }

    /// Starts the bulk load of `table` (empty) by defining request `request`: records it and
    /// drops the table's key index and secondary indexes.
    func begin(_ table: EntityTable, request: Int64) throws(SQLiteError) {
        try c.run("INSERT OR REPLACE INTO ods_store (name, value) VALUES (?1, ?2)",
                  [.text(Self.prefix + table.sqlName), .integer(request)])
        try c.execute("DROP INDEX IF EXISTS \(SQLName.quote(table.keyIndexName))")
        for index in file.schema.secondaryIndexes where index.table === table {
            try c.execute("DROP INDEX IF EXISTS \(SQLName.quote(index.name))")
        }
        Log.debug(.download, "\(table.entitySet): bulk load begins")
    }

    /// Ends the bulk load of `table`: keys that are there twice keep their row with the
    /// largest row id, the key index and the secondary indexes are made, the record goes.
    func finish(_ table: EntityTable) throws(SQLiteError) {
        // CREATE INDEX sorts the table's keys in memory up to the page cache's size and in
        // temporary files beyond (2 MB by default: about 60,000 rows); a larger cache while
        // the indexes are made keeps the sort in memory (the cache shrinks back after).
        let cacheSize = try c.scalar("PRAGMA cache_size")
        try c.execute("PRAGMA cache_size = -\(Self.sortKiB)")
        defer { if case .integer(let n)? = cacheSize { try? c.execute("PRAGMA cache_size = \(n)") } }
        if let keyIndex = table.keyIndexSQL {
            do throws(SQLiteError) {
                // The common case, no key twice: the index alone (a failed statement changes nothing).
                try c.execute(keyIndex)
            } catch where error.code & 0xFF == 19 /* SQLITE_CONSTRAINT */ {
                let removed = try removeEarlierCopies(table)
                Log.info(.download, "\(table.entitySet): \(removed) entities came twice; their later copies are kept")
                try c.execute(keyIndex)
            }
        }
        for index in file.schema.secondaryIndexes where index.table === table { try c.execute(index.sql) }
        try c.run("DELETE FROM ods_store WHERE name = ?1", [.text(Self.prefix + table.sqlName)])
        Log.debug(.download, "\(table.entitySet): bulk load finished")
    }

    /// Ends every bulk load of defining request `request`.
    func finish(request: Int64) throws(SQLiteError) {
        for load in try inProgress() where load.request == request { try finish(load.table) }
    }

    /// Ends every bulk load except those of the defining requests in `except`.
    func finishAll(except: Set<Int64> = []) throws(SQLiteError) {
        for load in try inProgress() where !except.contains(load.request) { try finish(load.table) }
    }

    /// Deletes each row whose key (no key column NULL: the UNIQUE index, like the upsert's
    /// conflict, never matches NULLs) another row with a larger row id has. Returns how many.
    @discardableResult
    func removeEarlierCopies(_ table: EntityTable) throws(SQLiteError) -> Int {
        let rid = SQLName.quote(EntityTable.ridColumn)
        let keys = table.keyColumns.map(\.quoted)
        let notNull = keys.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
        try c.run("""
            DELETE FROM \(table.quoted) WHERE \(notNull) AND \(rid) NOT IN
                (SELECT max(\(rid)) FROM \(table.quoted) WHERE \(notNull) GROUP BY \(keys.joined(separator: ", ")))
            """)
        return c.changes
    }
}
