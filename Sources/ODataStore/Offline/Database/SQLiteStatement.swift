import CSQLite
import Glibc

/// A prepared statement. Used only on its connection's thread.
///
/// Parameters are numbered from 1 as in SQLite; columns from 0. Text is bound as a copy
/// (`SQLITE_TRANSIENT`), so the caller's buffers need not outlive the call, unless the
/// statement's owner set `bindsTextInPlace`.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: SQLiteConnection
    /// `bindText` binds without a copy (as `bindTextNoCopy`): for a statement whose owner keeps
    /// every buffer it binds valid and unchanged until the step that reads it has returned, and
    /// binds every parameter again before each step (the download's multi-row upserts, whose
    /// unescaped values and made text are in the writer's arena: copying them cost SQLite a
    /// malloc, a copy and a free per value, about 480 instructions per entity with an escaped
    /// `@odata.etag`).
    var bindsTextInPlace = false

    init(connection: SQLiteConnection, sql: String) throws(SQLiteError) {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteError(code: rc, message: connection.lastMessage, sql: sql)
        }
        self.handle = stmt
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }
    var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// Resets the statement and clears its bindings (ready for new values).
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets the statement and leaves its bindings as they are, for a statement whose every
    /// parameter is bound again before each step (the download's multi-row upserts:
    /// `sqlite3_clear_bindings` walked every parameter of a batch, about 180 instructions
    /// per entity, and each later bind walked it again). A value bound without a copy
    /// (`bindTextNoCopy`) may then point at memory freed since: SQLite reads a binding only
    /// when stepping, and the next bind of that parameter replaces it unread.
    func resetKeepingBindings() {
        sqlite3_reset(handle)
    }

    // MARK: - Binding

    func bind(_ value: SQLValue, at index: Int) throws(SQLiteError) {
        let i = Int32(index)
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, i)
        case .integer(let v): rc = sqlite3_bind_int64(handle, i, v)
        case .real(let v): rc = sqlite3_bind_double(handle, i, v)
        case .text(let s):
            var s = s
            rc = s.withUTF8 { b in Self.bindText(handle, i, b) }
        case .blob(let b):
            rc = b.withUnsafeBytes { ods_sqlite3_bind_blob_transient(handle, i, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count)) }
        }
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: connection.lastMessage, sql: sql) }
    }

    /// Binds UTF-8 bytes as text without making a String (a copy unless `bindsTextInPlace`).
    func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) throws(SQLiteError) {
        if bindsTextInPlace { return try bindTextNoCopy(bytes, at: index) }
        let rc = Self.bindText(handle, Int32(index), bytes)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: connection.lastMessage, sql: sql) }
    }

    /// Binds UTF-8 bytes as text without copying them (SQLITE_STATIC): they must stay valid
    /// and unchanged until the statement is reset (`reset` clears the bindings) or the
    /// parameter bound again (after `resetKeepingBindings`, until bound again or finalized;
    /// nothing reads it meanwhile). For values taken from a page buffer that outlives the step.
    func bindTextNoCopy(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) throws(SQLiteError) {
        let base = UnsafeRawPointer(bytes.baseAddress ?? Self.empty.utf8Start).assumingMemoryBound(to: CChar.self)
        let rc = sqlite3_bind_text(handle, Int32(index), base, Int32(bytes.count), nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: connection.lastMessage, sql: sql) }
    }

    private static let empty: StaticString = ""

    private static func bindText(_ handle: OpaquePointer, _ i: Int32, _ b: UnsafeBufferPointer<UInt8>) -> Int32 {
        let base = UnsafeRawPointer(b.baseAddress ?? empty.utf8Start).assumingMemoryBound(to: CChar.self)
        return ods_sqlite3_bind_text_transient(handle, i, base, Int32(b.count))
    }

    func bind(_ values: [SQLValue]) throws(SQLiteError) {
        for (i, v) in values.enumerated() { try bind(v, at: i + 1) }
    }

    // MARK: - Stepping

    /// Steps once: true when a row is available, false when done.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let error = SQLiteError(lastOf: connection.handle, osError: errno, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs a statement that returns no rows (binds `values` first), then resets it.
    func execute(_ values: [SQLValue] = []) throws(SQLiteError) {
        defer { reset() }
        try bind(values)
        while try step() {}
    }

    // MARK: - Columns

    func type(at column: Int) -> Int32 { sqlite3_column_type(handle, Int32(column)) }
    func isNull(at column: Int) -> Bool { type(at: column) == SQLITE_NULL }
    func int64(at column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }
    func double(at column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }

    /// The column as UTF-8 bytes (borrowed until the next step/reset), nil for NULL.
    func withText<T>(at column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T? {
        guard let p = sqlite3_column_text(handle, Int32(column)) else { return nil }
        let n = Int(sqlite3_column_bytes(handle, Int32(column)))
        return try body(UnsafeBufferPointer(start: p, count: n))
    }

    func text(at column: Int) -> String? {
        withText(at: column) { String(decoding: $0, as: UTF8.self) }
    }

    func blob(at column: Int) -> [UInt8]? {
        guard type(at: column) != SQLITE_NULL else { return nil }
        let n = Int(sqlite3_column_bytes(handle, Int32(column)))
        guard n > 0, let p = sqlite3_column_blob(handle, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    func value(at column: Int) -> SQLValue {
        switch type(at: column) {
        case SQLITE_INTEGER: .integer(int64(at: column))
        case SQLITE_FLOAT: .real(double(at: column))
        case SQLITE_TEXT: .text(text(at: column) ?? "")
        case SQLITE_BLOB: .blob(blob(at: column) ?? [])
        default: .null
        }
    }
}
