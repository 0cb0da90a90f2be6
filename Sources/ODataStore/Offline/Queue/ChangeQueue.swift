/// The upload queue (`ods_queue`) of a store file: local changes in the order they were made.
/// Every method runs on the database thread, inside the caller's transaction where it changes
/// anything (a local write changes its row and the queue in one transaction).
struct ChangeQueue {
    let connection: SQLiteConnection

    /// Appends a change and returns its id.
    func append(_ c: QueuedChange) throws(SQLiteError) -> Int64 {
        let properties: SQLValue = c.properties.map { .text(JSONValue.array($0.map { .string($0) }).serialized()) } ?? .null
        try connection.run("""
            INSERT INTO ods_queue (created, mode, tbl, rid, path, properties, entity_key, parent_tbl, parent_rid, parent_nav,
                                   etag, repeatability_id, first_sent)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, NULL)
            """, [.text(Timestamp.now()), .integer(c.operation.rawValue), .integer(c.table), .integer(c.rid), .text(c.path),
                  properties, c.entityKey.map { .text($0) } ?? .null, c.parentTable.map { .integer($0) } ?? .null,
                  c.parentRID.map { .integer($0) } ?? .null, c.parentNavigation.map { .text($0) } ?? .null,
                  c.etag.map { .text($0) } ?? .null, .text(c.repeatabilityID)])
        return connection.lastInsertRowID
    }

    /// Every queued change, oldest first.
    func all() throws(SQLiteError) -> [QueuedChange] {
        try connection.rows("SELECT \(QueuedChange.columns) FROM ods_queue ORDER BY id").compactMap(QueuedChange.init)
    }

    /// The queued changes of one row, oldest first.
    func changes(table: Int64, rid: Int64) throws(SQLiteError) -> [QueuedChange] {
        try connection.rows("SELECT \(QueuedChange.columns) FROM ods_queue WHERE tbl = ?1 AND rid = ?2 ORDER BY id",
                            [.integer(table), .integer(rid)]).compactMap(QueuedChange.init)
    }

    func change(id: Int64) throws(SQLiteError) -> QueuedChange? {
        try connection.rows("SELECT \(QueuedChange.columns) FROM ods_queue WHERE id = ?1", [.integer(id)]).first.flatMap(QueuedChange.init)
    }

    func count() throws(SQLiteError) -> Int64 {
        guard case .integer(let n)? = try connection.scalar("SELECT count(*) FROM ods_queue") else { return 0 }
        return n
    }

    func remove(id: Int64) throws(SQLiteError) {
        try connection.run("DELETE FROM ods_queue WHERE id = ?1", [.integer(id)])
    }

    /// Widens a merge not yet sent to more properties (or turns it into a replacement).
    func update(id: Int64, operation: QueuedChange.Operation, properties: [String]?) throws(SQLiteError) {
        let p: SQLValue = properties.map { .text(JSONValue.array($0.map { .string($0) }).serialized()) } ?? .null
        try connection.run("UPDATE ods_queue SET mode = ?2, properties = ?3 WHERE id = ?1", [.integer(id), .integer(operation.rawValue), p])
    }

    /// Records the first attempt to send a change (kept across restarts: Repeatability-First-Sent).
    func markSent(id: Int64, at time: String) throws(SQLiteError) {
        try connection.run("UPDATE ods_queue SET first_sent = coalesce(first_sent, ?2) WHERE id = ?1", [.integer(id), .text(time)])
    }

    /// Sets a deleted entity's key (after its create's local key was replaced).
    func setEntityKey(id: Int64, _ key: String) throws(SQLiteError) {
        try connection.run("UPDATE ods_queue SET entity_key = ?2 WHERE id = ?1", [.integer(id), .text(key)])
    }
}

/// Random identifiers (Repeatability-Request-ID, local GUID keys): version 4 UUIDs from the
/// system's random generator, without Foundation.
enum RandomUUID {
    static func make() -> String {
        var g = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { b -> String in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return hex[0..<4].joined() + "-" + hex[4..<6].joined() + "-" + hex[6..<8].joined() + "-" + hex[8..<10].joined() + "-" + hex[10..<16].joined()
    }
}
