import CSQLite
import Glibc

/// A failed SQLite call: its result code and message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    var code: Int32
    var message: String
    /// The statement being run, if any (never contains values: those are bound).
    var sql: String?
    /// The operating system's error behind an I/O failure (`sqlite3_system_errno`: ENOSPC,
    /// EFBIG, EACCES...), 0 when none: SQLite's own "disk I/O error" does not say which.
    var systemErrno: Int32 = 0

    init(code: Int32, message: String, sql: String?, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// The last failure of `connection`, with the OS error when it was an I/O one: SQLite's
    /// record of it, else `osError`, the thread's `errno` read by the caller right after the
    /// failed call (SQLite 3.40 records none for a failed write: its unix layer keeps the
    /// errno per file, out of reach for the log's file).
    init(lastOf connection: OpaquePointer, osError: Int32, message: String? = nil, sql: String?) {
        let code = sqlite3_extended_errcode(connection)
        let primary = code & 0xFF
        let io = primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN
        self.init(code: code, message: message ?? String(cString: sqlite3_errmsg(connection)), sql: sql,
                  systemErrno: io ? (sqlite3_system_errno(connection) != 0 ? sqlite3_system_errno(connection) : osError) : 0)
    }

    /// The message, the code and the OS error, without the statement.
    var summary: String {
        var text = "\(message) (SQLite \(code)"
        if systemErrno != 0 { text += ": " + String(cString: strerror(systemErrno)) }
        return text + ")"
    }

    var description: String { sql.map { summary + " in: \($0)" } ?? summary }

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
            return ODataStoreError(.io, "\(what): cannot open the file or its -wal and -shm files (the directory must exist and be writable): \(summary)")
        }
        if code & 0xFF == SQLITE_READONLY {
            // Whatever was being written (a download, a local change, an upload's answer):
            // the file, its directory or its -wal/-shm files cannot be written.
            // `what` is left out: it names the writer, which misleads here (a local change
            // is written by the download's entity writer).
            return ODataStoreError(.io, "the store file cannot be written (a read-only file, directory or file system): \(summary)")
        }
        return ODataStoreError(isIO ? .io : .error, "\(what): \(description)")
    }
}
