import CSQLite
import Glibc

/// One SQLite connection. Not thread-safe: it lives on its `SerialQueue`'s thread (`OfflineDatabase.queue`) and is
/// used only there (GRDB's model: one connection, one serial queue).
///
/// Statements are prepared once and cached by their SQL text; every value is bound, never
/// pasted into SQL.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    private var cache: [String: SQLiteStatement] = [:]
    private(set) var transactionDepth = 0

    /// Opens (or, with `create`, creates) the database file.
    init(path: String, create: Bool, readOnly: Bool = false) throws(SQLiteError) {
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE | SQLITE_OPEN_EXRESCODE
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message, sql: nil)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        // Defensive settings: no loading of extensions, no double-quoted string literals
        // (a misspelt identifier must fail, not become a string), foreign keys enforced.
        var ignored: Int32 = 0
        _ = ods_sqlite3_db_config_int(db, SQLITE_DBCONFIG_DQS_DML, 0, &ignored)
        _ = ods_sqlite3_db_config_int(db, SQLITE_DBCONFIG_DQS_DDL, 0, &ignored)
        _ = ods_sqlite3_db_config_int(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &ignored)
        sqlite3_busy_timeout(db, 5000)
    }

    deinit {
        cache.removeAll()
        beginStatement = nil
        commitStatement = nil
        sqlite3_close_v2(handle)
    }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    var changes: Int { Int(sqlite3_changes64(handle)) }
    /// False while a transaction is open.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Runs SQL text with no parameters (DDL, pragmas); several statements are allowed.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        guard rc == SQLITE_OK else {
            let osError = errno
            let text = message.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(message)
            throw SQLiteError(lastOf: handle, osError: osError, message: text, sql: sql)
        }
    }

    /// The cached prepared statement for `sql` (reset, bindings cleared). `slot` keeps
    /// separate statements for the same SQL used at once (a nested query of the same shape
    /// while an outer one is still stepping: expansions several levels deep).
    func statement(_ sql: String, slot: Int = 0) throws(SQLiteError) -> SQLiteStatement {
        let key = slot == 0 ? sql : "\(slot)|" + sql
        if let s = cache[key] {
            s.reset()
            return s
        }
        let s = try SQLiteStatement(connection: self, sql: sql)
        if cache.count > 512 { cache.removeAll() }
        cache[key] = s
        return s
    }

    /// A statement that is not cached (one-off queries).
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// Runs one statement with `values` bound, returning no rows.
    func run(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) {
        try statement(sql).execute(values)
    }

    /// The first column of the first row, or nil when there is no row.
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> SQLValue? {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        return try s.step() ? s.value(at: 0) : nil
    }

    /// Every row, each as its values.
    func rows(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> [[SQLValue]] {
        let s = try statement(sql)
        defer { s.reset() }
        try s.bind(values)
        var out: [[SQLValue]] = []
        while try s.step() {
            out.append((0..<s.columnCount).map { s.value(at: $0) })
        }
        return out
    }

    // BEGIN and COMMIT prepared once (every local write is a transaction of its own: parsing
    // both again each time was a few percent of a create).
    private var beginStatement: SQLiteStatement?
    private var commitStatement: SQLiteStatement?

    private func prepared(_ slot: inout SQLiteStatement?, _ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let s = slot { return s }
        let s = try SQLiteStatement(connection: self, sql: sql)
        slot = s
        return s
    }

    /// Runs `body` in a transaction (a savepoint when one is already open): committed when
    /// `body` returns, rolled back when it throws or when the commit itself fails (a full
    /// disk, an I/O error: SQLite may leave the transaction open then, and the next one could
    /// not begin). Either way the depth is what it was before the call.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        let name = "ods_sp\(depth)"
        if depth == 0 {
            try prepared(&beginStatement, "BEGIN IMMEDIATE").execute()
        } else {
            try execute("SAVEPOINT \(name)")
        }
        transactionDepth = depth + 1
        defer { transactionDepth = depth }
        let result: T
        do {
            result = try body()
            if depth == 0 {
                try prepared(&commitStatement, "COMMIT").execute()
            } else {
                try execute("RELEASE \(name)")
            }
        } catch {
            rollBack(to: depth == 0 ? nil : name)
            throw error
        }
        return result
    }

    /// Undoes the open transaction (`savepoint` nil) or savepoint. SQLite has already rolled
    /// back the whole transaction after some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM:
    /// "may or may not"): then there is nothing left to undo, and a savepoint is gone too.
    private func rollBack(to savepoint: String?) {
        guard !isAutocommit else { return }
        if let savepoint {
            try? execute("ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
        } else {
            try? execute("ROLLBACK")
        }
    }

    /// `transaction`, with every failure as the store error an app sees.
    func storeTransaction<T>(_ what: String, _ body: () throws -> T) throws(ODataStoreError) -> T {
        do {
            return try transaction(body)
        } catch let e as ODataStoreError {
            throw e
        } catch let e as SQLiteError {
            throw e.storeError(what)
        } catch {
            throw ODataStoreError(.error, "\(what): \(error)")
        }
    }

    /// Makes a running statement of this connection stop with SQLITE_INTERRUPT (any thread).
    func interrupt() { sqlite3_interrupt(handle) }

    /// Drops cached statements (after schema changes).
    func clearCache() { cache.removeAll() }
}
