import CSQLite
import Glibc

/// A store file opened on its database thread: the connection (WAL, durable commits, the
/// store's SQL functions), the schema derived from the `$metadata` the file was made from,
/// and the ids of its tables.
///
/// Opening never changes a file that is not a store of this service and format: the checks
/// (SQLite header, `application_id`, format version, service root, metadata) run before
/// anything is written. Used only on its `SerialQueue`'s thread (`OfflineDatabase.queue`).
final class StoreFile {
    let connection: SQLiteConnection
    let model: ServiceModel
    let schema: StoreSchema
    /// The `$metadata` document the store was made from.
    let metadata: [UInt8]
    /// Entity table SQL name -> its id in `ods_tables`.
    let tableIDs: [String: Int64]
    /// True when this open created the file's tables.
    let created: Bool
    /// Prepared statements and lookup tables every `EntityWriter` of this file shares.
    let writerShared = EntityWriter.Shared()

    private init(connection: SQLiteConnection, model: ServiceModel, schema: StoreSchema, metadata: [UInt8],
                 tableIDs: [String: Int64], created: Bool) {
        self.connection = connection
        self.model = model
        self.schema = schema
        self.metadata = metadata
        self.tableIDs = tableIDs
        self.created = created
    }

    /// Per entity table: the statement reading one row by row id in `EntityJSON`'s column
    /// order (every local create and update answer, every change an upload sends).
    private var rowStatements: [ObjectIdentifier: SQLiteStatement] = [:]

    /// `SELECT <EntityJSON.selectList> FROM <table> t0 WHERE t0."@rid" = ?1`, prepared once
    /// per table (building its SQL text and finding it by that text in the connection's cache
    /// cost a local create more than SQLite's read of the row). Reset, ready to bind.
    func rowStatement(_ table: EntityTable) throws(SQLiteError) -> SQLiteStatement {
        let id = ObjectIdentifier(table)
        if let s = rowStatements[id] {
            s.reset()
            return s
        }
        let s = try connection.prepare("SELECT \(EntityJSON.selectList(table, alias: "t0")) FROM \(table.quoted) t0 WHERE t0.\(SQLName.quote(EntityTable.ridColumn)) = ?1")
        rowStatements[id] = s
        return s
    }

    deinit {
        // Statements held here are finalized before the connection closes (a close with
        // statements left open leaves the file open, and its WAL, until they are).
        writerShared.finalize()
        rowStatements.removeAll()
    }

    /// What an existing file says about itself, read without changing it.
    struct Facts {
        var serviceRoot: String
        var metadata: [UInt8]
    }

    /// Reads the facts of an existing store file; nil when there is no file (or an empty
    /// one). Throws when the file is not a store, is of a newer format, or cannot be read.
    static func inspect(path: String) throws(ODataStoreError) -> Facts? {
        var st = stat()
        if stat(path, &st) != 0 {
            if errno == ENOENT { return nil }
            throw ODataStoreError(.io, "cannot read the store file \(path): \(String(cString: strerror(errno)))")
        }
        if (st.st_mode & S_IFMT) != S_IFREG {
            throw ODataStoreError(.invalidArgument, "the store path \(path) is not a regular file")
        }
        if st.st_size == 0 { return nil }
        do {
            let c = try SQLiteConnection(path: path, create: false, readOnly: true)
            guard case .integer(let app)? = try c.scalar("PRAGMA application_id"),
                  case .integer(let format)? = try c.scalar("PRAGMA user_version") else {
                throw SQLiteError(code: SQLITE_NOTADB, message: "no header", sql: nil)
            }
            // No application id and no table yet: a file another store is creating right
            // now (its first pragmas are written, its tables not committed), or an empty
            // database: nothing to open, as for an empty file.
            if app == 0, case .integer(0)? = try c.scalar("SELECT count(*) FROM sqlite_master") { return nil }
            guard app == Int64(SystemTables.applicationID) else {
                throw ODataStoreError(.invalidArgument, "\(path) is not an offline store file (it is a SQLite database of another application)")
            }
            // Every store file has format 1 or later (`createTables`): 0 or below is a file
            // that claims our application id and no format (never an index into `migrations`).
            guard format >= 1 else {
                throw ODataStoreError(.invalidArgument, "\(path) is not an offline store file (its format number is \(format))")
            }
            guard format <= Int64(SystemTables.formatVersion) else {
                throw ODataStoreError(.unsupported, "\(path) is an offline store of a newer format (\(format)) than this library reads (\(SystemTables.formatVersion)); use a newer libodatastore")
            }
            guard case .text(let root)? = try c.scalar("SELECT value FROM ods_store WHERE name = 'service_root'"),
                  case .blob(let metadata)? = try c.scalar("SELECT value FROM ods_store WHERE name = 'metadata'") else {
                throw ODataStoreError(.invalidArgument, "\(path) is not a complete offline store file (its facts are missing)")
            }
            return Facts(serviceRoot: root, metadata: metadata)
        } catch let error as SQLiteError {
            if error.isNotADatabase { throw ODataStoreError(.invalidArgument, "\(path) is not an offline store file (not a SQLite database)") }
            throw error.storeError("cannot read the store file \(path)")
        } catch let error as ODataStoreError {
            throw error
        } catch {
            throw ODataStoreError(.io, "cannot read the store file \(path): \(error)")
        }
    }

    /// The page size of a new store file (bytes).
    static let pageSize = 8192

    /// Opens the store at `path` on the calling (database) thread, creating the file and its
    /// tables when `create` (the caller has checked with `inspect` that there is none).
    static func open(path: String, serviceRoot: String, model: ServiceModel, metadata: [UInt8],
                     create: Bool) throws(ODataStoreError) -> StoreFile {
        let schema = StoreSchema(model: model)
        do throws(SQLiteError) {
            let c = try SQLiteConnection(path: path, create: create)
            try SQLFunctions.register(on: c)
            // A new file gets pages of 8 KiB (SQLite's default is 4 KiB; a page size is fixed
            // when the first table is made, so files made before keep theirs). A store is
            // filled by downloads and mostly read: with 8 KiB pages a first download writes
            // half as many WAL frames (one `pwrite` each) and its B-trees split half as often:
            // the CLI's V2 download took 2.5-5% less CPU (docs/benchmarks.md); the closed file
            // is about the same size (3.05 to 3.10 MB for 20,000 V2 products). 16 KiB measured
            // slower than 4 KiB. A local change of one row writes one 8 KiB frame.
            if create { try c.execute("PRAGMA page_size = \(Self.pageSize)") }
            // WAL with FULL synchronous: a committed transaction survives a power cut (the
            // offline store's writes must be durable once acknowledged).
            // Another store making the same new file holds a lock a moment: SQLite answers
            // this pragma SQLITE_BUSY at once (no busy handler for a journal-mode change).
            try Self.retryingBusy { () throws(SQLiteError) in try c.execute("PRAGMA journal_mode = WAL") }
            try c.execute("PRAGMA synchronous = FULL")
            try c.execute("PRAGMA foreign_keys = ON")
            if create {
                try createTables(c, schema: schema, serviceRoot: serviceRoot, metadata: metadata)
            } else {
                try migrate(c)
            }
            for s in SystemTables.indexes { try c.execute(s) }
            // A first download interrupted before its last page left these out (it makes them
            // after the last page: `OfflineDatabase.writePage`).
            if !create { for index in schema.secondaryIndexes { try c.execute(index.sql) } }
            var ids: [String: Int64] = [:]
            for row in try c.rows("SELECT id, name FROM ods_tables") {
                if case .integer(let id) = row[0], case .text(let name) = row[1] { ids[name] = id }
            }
            // Tables the metadata has but the file lacks (never expected: same metadata).
            for name in schema.tables.values.map(\.sqlName) where ids[name] == nil {
                try c.run("INSERT INTO ods_tables (name) VALUES (?1)", [.text(name)])
                ids[name] = c.lastInsertRowID
            }
            return StoreFile(connection: c, model: model, schema: schema, metadata: metadata, tableIDs: ids, created: create)
        } catch {
            throw error.storeError("cannot open the store file \(path)")
        }
    }

    /// Runs `body` again while SQLite answers SQLITE_BUSY, for at most about 5 s (10 ms apart).
    private static func retryingBusy(_ body: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        var attempts = 0
        while true {
            do throws(SQLiteError) {
                try body()
                return
            } catch {
                attempts += 1
                guard error.code & 0xFF == SQLITE_BUSY, attempts < 500 else { throw error }
                usleep(10_000)
            }
        }
    }

    private static func createTables(_ c: SQLiteConnection, schema: StoreSchema, serviceRoot: String, metadata: [UInt8]) throws(SQLiteError) {
        do {
            try c.transaction {
                for s in SystemTables.current { try c.execute(s) }
                for s in schema.ddl { try c.execute(s) }
                for name in schema.tables.values.map(\.sqlName).sorted() {
                    try c.run("INSERT INTO ods_tables (name) VALUES (?1)", [.text(name)])
                }
                let facts: [(String, SQLValue)] = [
                    ("format", .integer(Int64(SystemTables.formatVersion))),
                    ("service_root", .text(serviceRoot)),
                    ("odata_version", .integer(Int64(schema.model.version.rawValue))),
                    ("metadata", .blob(metadata)),
                    ("created", .text(Timestamp.now())),
                    ("library_version", .text(LibraryVersion.string)),
                ]
                for (name, value) in facts {
                    try c.run("INSERT INTO ods_store (name, value) VALUES (?1, ?2)", [.text(name), value])
                }
                try c.execute("PRAGMA application_id = \(SystemTables.applicationID)")
                try c.execute("PRAGMA user_version = \(SystemTables.formatVersion)")
            }
        } catch let e as SQLiteError {
            throw e
        } catch {
            throw SQLiteError(code: SQLITE_ERROR, message: "\(error)", sql: nil)
        }
    }

    private static func migrate(_ c: SQLiteConnection) throws(SQLiteError) {
        guard case .integer(let format)? = try c.scalar("PRAGMA user_version") else { return }
        var version = Int(format)
        // `inspect` refused these already; the file may have changed in between.
        guard version >= 1 else {
            throw SQLiteError(code: SQLITE_CORRUPT, message: "the store's format number is \(version)", sql: nil)
        }
        while version < Int(SystemTables.formatVersion) {
            let steps = SystemTables.migrations[version - 1]
            do {
                try c.transaction {
                    for s in steps { try c.execute(s) }
                    try c.execute("PRAGMA user_version = \(version + 1)")
                }
            } catch let e as SQLiteError {
                throw e
            } catch {
                throw SQLiteError(code: SQLITE_ERROR, message: "\(error)", sql: nil)
            }
            version += 1
        }
    }

    /// The id of an entity table in `ods_tables`.
    func tableID(_ table: EntityTable) -> Int64 { tableIDs[table.sqlName] ?? 0 }

    /// The entity table with this `ods_tables` id.
    func table(id: Int64) -> EntityTable? {
        guard let name = tableIDs.first(where: { $0.value == id })?.key else { return nil }
        return schema.tables.values.first { $0.sqlName == name }
    }

    /// Size of the database file and its WAL, in bytes.
    func sizeInBytes() -> Int64 {
        var total: Int64 = 0
        for p in [connection.path, connection.path + "-wal"] {
            var st = stat()
            if stat(p, &st) == 0 { total += Int64(st.st_size) }
        }
        return total
    }
}

/// UTC timestamps as ISO 8601 text (`2026-11-24T01:56:35Z`), without Foundation.
enum Timestamp {
    static func now() -> String { format(seconds: Int64(time(nil))) }

    static func format(seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = Int(parts.tm_year) + 1900
        var y = String(year)
        while y.count < 4 { y = "0" + y }
        return "\(y)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Seconds since 1970 of a timestamp this type wrote; nil for anything else.
    static func seconds(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { b in OrderedText.instant(b)?.seconds }
    }
}
