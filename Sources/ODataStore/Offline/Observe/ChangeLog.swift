/// Records the changes of observed entity tables and hands them out after they are committed
/// (docs/observers.md).
///
/// How: for each entity set an observer watches, the connection gets TEMP triggers (they live
/// in the connection's temp schema, never in the store file) on the set's table that append
/// the kind of change and the key columns' old and new values to a TEMP log table of that set.
/// Whatever changes the table (a local write, a download page or transaction, an upload's key
/// mapping and refresh, an archived error marking the row, a revert) is recorded, with no
/// call in the code that changes data; a rolled-back transaction takes its log rows with it.
/// After every batch of jobs on the database queue, when no transaction is open, `drain`
/// reads and empties the log tables. Sets nobody observes have no triggers and cost nothing.
///
/// Threading: `want` from any thread; everything else on the database queue.
final class ChangeLog: @unchecked Sendable {
    /// At most this many changes of one set in one drained batch are listed one by one; a
    /// larger batch is reported as a summary (counts by kind, no keys).
    static let maxListed = 1000
    /// `maxListed`, lowered by tests.
    let listLimit = Locked(ChangeLog.maxListed)

    /// Entity sets observers want (any thread), and whether the triggers must be synced.
    private let wanted = Locked<(sets: [String: Int], dirty: Bool)>(([:], false))
    /// Installed triggers by entity set (database queue only).
    private var installed: [String: EntityTable] = [:]
    private let sinkLock = Locked<(@Sendable ([StoreChanges]) -> Void)?>(nil)

    /// Where drained changes go (set once by the store, before any observer exists).
    func connect(_ sink: @escaping @Sendable ([StoreChanges]) -> Void) { sinkLock.withLock { $0 = sink } }

    /// Drops the sink (the engine shuts down): it refers to the store's observers, which
    /// refer to this log.
    func disconnect() { sinkLock.withLock { $0 = nil } }

    /// Installs the triggers now (set by the engine: runs `syncNow` on the database queue).
    private let install = Locked<(@Sendable () -> Void)?>(nil)
    func setInstall(_ f: @escaping @Sendable () -> Void) { install.withLock { $0 = f } }

    /// Counts an observer of `entitySet` in (`delta` 1) or out (-1). A new observer's
    /// triggers are installed before this returns (when the store file is open), so every
    /// change committed afterwards reaches it; triggers of sets nobody observes any more go
    /// after the next batch.
    func want(_ entitySet: String, _ delta: Int) {
        wanted.withLock { w in
            let n = (w.sets[entitySet] ?? 0) + delta
            w.sets[entitySet] = n > 0 ? n : nil
            w.dirty = true
        }
        if delta > 0, let f = install.withLock({ $0 }) { f() }
    }

    /// Syncs the triggers with the observed sets (database queue, outside transactions).
    func syncNow(file: StoreFile?) {
        guard let file, file.connection.transactionDepth == 0, file.connection.isAutocommit else { return }
        let (sets, dirty): ([String: Int], Bool) = wanted.withLock { w in
            let r = (w.sets, w.dirty)
            w.dirty = false
            return r
        }
        if dirty { sync(Set(sets.keys), file: file) }
    }

    /// After a batch of jobs (database queue): syncs the triggers with the observed sets and
    /// hands out what was committed.
    func afterBatch(file: StoreFile?, version: ODataVersion?) {
        guard let file, file.connection.transactionDepth == 0, file.connection.isAutocommit else { return }
        syncNow(file: file)
        guard !installed.isEmpty, let sink = sinkLock.withLock({ $0 }) else { return }
        let batches = drain(file: file, version: version)
        if !batches.isEmpty { sink(batches) }
    }

    private static func logName(_ table: EntityTable) -> String { "ods_changes:" + table.sqlName }

    /// Creates the triggers of newly observed sets and drops those nobody observes any more.
    private func sync(_ sets: Set<String>, file: StoreFile) {
        let c = file.connection
        for (set, table) in installed where !sets.contains(set) {
            let log = Self.logName(table)
            try? c.execute("DROP TRIGGER IF EXISTS temp.\(SQLName.quote(log + ":i")); DROP TRIGGER IF EXISTS temp.\(SQLName.quote(log + ":u")); DROP TRIGGER IF EXISTS temp.\(SQLName.quote(log + ":d")); DROP TABLE IF EXISTS temp.\(SQLName.quote(log))")
            installed[set] = nil
        }
        for set in sets where installed[set] == nil {
            guard let table = file.schema.tables[set] else { continue }
            let log = Self.logName(table)
            let n = table.keyColumns.count
            let olds = (0..<n).map { "o\($0)" }, news = (0..<n).map { "n\($0)" }
            let cols = (["seq INTEGER PRIMARY KEY", "kind INTEGER NOT NULL"] + olds + news).joined(separator: ", ")
            func values(_ prefix: String) -> [String] { table.keyColumns.map { "\(prefix).\($0.quoted)" } }
            let nullKey = [String](repeating: "NULL", count: n)
            let keyChanged = n == 0 ? "0" : zip(values("OLD"), values("NEW")).map { "\($0.0) IS NOT \($0.1)" }.joined(separator: " OR ")
            func insert(_ kind: String, _ old: [String], _ new: [String]) -> String {
                "INSERT INTO \(SQLName.quote(log)) (kind\((olds + news).map { ", " + $0 }.joined())) VALUES (\(([kind] + old + new).joined(separator: ", ")));"
            }
            let on = "ON main.\(table.quoted) FOR EACH ROW BEGIN "
            let sql = """
                CREATE TEMP TABLE IF NOT EXISTS \(SQLName.quote(log)) (\(cols));
                CREATE TEMP TRIGGER IF NOT EXISTS \(SQLName.quote(log + ":i")) AFTER INSERT \(on)\(insert("\(ChangeKind.created.rawValue)", nullKey, values("NEW"))) END;
                CREATE TEMP TRIGGER IF NOT EXISTS \(SQLName.quote(log + ":u")) AFTER UPDATE \(on)\(insert("CASE WHEN \(keyChanged) THEN \(ChangeKind.keyChanged.rawValue) ELSE \(ChangeKind.updated.rawValue) END", values("OLD"), values("NEW"))) END;
                CREATE TEMP TRIGGER IF NOT EXISTS \(SQLName.quote(log + ":d")) AFTER DELETE \(on)\(insert("\(ChangeKind.deleted.rawValue)", values("OLD"), nullKey)) END;
                """
            do {
                try c.execute(sql)
                installed[set] = table
            } catch {
                // Left uninstalled: the set's observers are not called (never a failed write).
            }
        }
    }

    /// Reads and empties the log tables: one `StoreChanges` per set that changed.
    private func drain(file: StoreFile, version: ODataVersion?) -> [StoreChanges] {
        let c = file.connection
        var out: [StoreChanges] = []
        for (set, table) in installed.sorted(by: { $0.key < $1.key }) {
            let log = "temp." + SQLName.quote(Self.logName(table))
            do throws(SQLiteError) {
                var counts: [ChangeKind: Int] = [:]
                var total = 0
                for row in try c.rows("SELECT kind, count(*) FROM \(log) GROUP BY kind") {
                    guard case .integer(let k) = row[0], case .integer(let n) = row[1],
                          let kind = ChangeKind(rawValue: Int32(truncatingIfNeeded: k)) else { continue }
                    counts[kind] = Int(n)
                    total += Int(n)
                }
                guard total > 0 else { continue }
                var listed: [EntityChange] = []
                var last: [String: Int] = [:]
                let limit = listLimit.withLock { $0 }
                if total <= limit {
                    let n = table.keyColumns.count
                    for row in try c.rows("SELECT * FROM \(log) ORDER BY seq") {
                        guard row.count == 2 + 2 * n, case .integer(let k) = row[1],
                              let kind = ChangeKind(rawValue: Int32(truncatingIfNeeded: k)) else { continue }
                        let old = Array(row[2..<(2 + n)]), new = Array(row[(2 + n)...])
                        func path(_ key: [SQLValue]) -> String {
                            table.isSingleton ? table.entitySet : KeyPredicate.path(table, key, version: version)
                        }
                        let change: EntityChange
                        switch kind {
                        case .created, .updated: change = EntityChange(kind: kind, path: path(new), oldPath: nil)
                        case .deleted: change = EntityChange(kind: kind, path: path(old), oldPath: nil)
                        case .keyChanged: change = EntityChange(kind: kind, path: path(new), oldPath: path(old))
                        }
                        // One write may change a row more than once (values, then its
                        // state): an update of an entity already listed as created,
                        // updated or re-keyed in this batch adds nothing.
                        if change.kind == .updated, let i = last[change.path], listed[i].kind != .deleted { continue }
                        last[change.path] = listed.count
                        listed.append(change)
                    }
                    counts = [:]
                    for c in listed { counts[c.kind, default: 0] += 1 }
                    total = listed.count
                }
                try c.run("DELETE FROM \(log)")
                out.append(StoreChanges(entitySet: set, count: total, counts: counts, changes: listed, isSummary: listed.isEmpty))
            } catch {
                try? c.run("DELETE FROM \(log)")
            }
        }
        return out
    }
}
