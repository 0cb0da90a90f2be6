import CSQLite

/// A failed SQLite call: its result code and message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    var code: Int32
    var message: String
    /// The statement being run, if any (never contains values: those are bound).
    var sql: String?

    var description: String {
        sql.map { "\(message) (SQLite \(code)) in: \($0)" } ?? "\(message) (SQLite \(code))"
    }

    /// SQLITE_BUSY, SQLITE_LOCKED.
    var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
    /// SQLITE_NOTADB: the file is not a database (or is encrypted).
    var isNotADatabase: Bool { code & 0xFF == SQLITE_NOTADB }
    /// SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_CORRUPT...: the file, not the query.
    var isIO: Bool {
        let c = code & 0xFF
        return c == SQLITE_FULL || c == SQLITE_IOERR || c == SQLITE_CANTOPEN || c == SQLITE_READONLY
            || c == SQLITE_CORRUPT || c == SQLITE_PERM || c == SQLITE_NOTADB
    }

    /// The store error an app sees. An OData evaluation error raised by the store's SQL
    /// functions (integer overflow, division by zero) is the request's fault: reported as the
    /// service reports a request it cannot evaluate, HTTP 400 (`ODS_EHTTP`); one the store
    /// refuses (a `matchesPattern` beyond its step budget) is `.unsupported`.
    func storeError(_ what: String) -> ODataStoreError {
        if message.hasPrefix(SQLFunctions.errorPrefix) {
            return SQLFunctions.failure(message.dropFirst(SQLFunctions.errorPrefix.count))
        }
        if message.hasPrefix(SQLFunctions.refusalPrefix) {
            return SQLFunctions.refusal(message.dropFirst(SQLFunctions.refusalPrefix.count))
        }
        if code & 0xFF == SQLITE_NOMEM { return ODataStoreError(.noMemory, "\(what): \(message)") }
        if code & 0xFF == SQLITE_INTERRUPT { return ODataStoreError(.cancelled, "\(what): cancelled") }
        if code & 0xFF == SQLITE_CANTOPEN {
            // A WAL store needs its -wal and -shm files beside it, also to be read.
            return ODataStoreError(.io, "\(what): cannot open the file or its -wal and -shm files (the directory must exist and be writable): \(message) (SQLite \(code))")
        }
        if code & 0xFF == SQLITE_READONLY {
            // Whatever was being written (a download, a local change, an upload's answer):
            // the file, its directory or its -wal/-shm files cannot be written.
            // `what` is left out: it names the writer, which misleads here (a local change
            // is written by the download's entity writer).
            return ODataStoreError(.io, "the store file cannot be written (a read-only file, directory or file system): \(message) (SQLite \(code))")
        }
        return ODataStoreError(isIO ? .io : .error, "\(what): \(description)")
    }
}
