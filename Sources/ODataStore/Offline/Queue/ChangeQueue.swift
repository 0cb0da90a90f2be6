/// The upload queue (`ods_queue`) of a store file: local changes in the order they were made.
/// Every method runs on the database thread, inside the caller's transaction where it changes
/// anything (a local write changes its row and the queue in one transaction).
struct ChangeQueue {
    let connection: SQLiteConnection

    /// Appends a change and returns its id. `place`: the id it had before (a change of the
    /// error archive queued again goes back to its place in the order, ahead of the changes
    /// that waited behind it), when that id is free.
    func append(_ c: QueuedChange, place: Int64? = nil) throws(SQLiteError) -> Int64 {
        let properties: SQLValue = c.properties.map { .text(JSONValue.array($0.map { .string($0) }).serialized()) } ?? .null
        var id: SQLValue = .null
        if let place, place > 0, try connection.scalar("SELECT 1 FROM ods_queue WHERE id = ?1", [.integer(place)]) == nil {
            id = .integer(place)
        }
        try connection.run("""
            INSERT INTO ods_queue (id, created, mode, tbl, rid, path, properties, entity_key, parent_tbl, parent_rid, parent_nav,
                                   etag, repeatability_id, first_sent)
            VALUES (?13, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, NULL)
            """, [.text(Timestamp.now()), .integer(c.operation.rawValue), .integer(c.table), .integer(c.rid), .text(c.path),
                  properties, c.entityKey.map { .text($0) } ?? .null, c.parentTable.map { .integer($0) } ?? .null,
                  c.parentRID.map { .integer($0) } ?? .null, c.parentNavigation.map { .text($0) } ?? .null,
                  c.etag.map { .text($0) } ?? .null, .text(c.repeatabilityID), id])
        return connection.lastInsertRowID
    }

    /// Every queued change, oldest first.
    func all() throws(SQLiteError) -> [QueuedChange] {
        try connection.rows("SELECT \(QueuedChange.columns) FROM ods_queue ORDER BY id").compactMap(QueuedChange.init)
    }

    /// The ids of every queued change, oldest first.
    func ids() throws(SQLiteError) -> [Int64] {
        try connection.rows("SELECT id FROM ods_queue ORDER BY id").compactMap { r in
            if case .integer(let id) = r[0] { return id }
            return nil
        }
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

    /// Sets the If-Match a change is sent with (`*` when the app asked for any version).
    func setETag(id: Int64, _ etag: String) throws(SQLiteError) {
        try connection.run("UPDATE ods_queue SET etag = ?2 WHERE id = ?1", [.integer(id), .text(etag)])
    }

    /// Records the first attempt to send a change (kept across restarts: Repeatability-First-Sent).
    func markSent(id: Int64, at time: String) throws(SQLiteError) {
        try connection.run("UPDATE ods_queue SET first_sent = coalesce(first_sent, ?2) WHERE id = ?1", [.integer(id), .text(time)])
    }

    /// Forgets an attempt the service did not act on (it refused it before doing anything, or
    /// it was never sent): the change is as if it had never been sent.
    func clearSent(id: Int64) throws(SQLiteError) {
        try connection.run("UPDATE ods_queue SET first_sent = NULL WHERE id = ?1", [.integer(id)])
    }

    /// Sets a deleted entity's key (after its create's local key was replaced).
    func setEntityKey(id: Int64, _ key: String) throws(SQLiteError) {
        try connection.run("UPDATE ods_queue SET entity_key = ?2 WHERE id = ?1", [.integer(id), .text(key)])
    }
}

/// Random identifiers (Repeatability-Request-ID, local GUID keys): version 4 UUIDs from the
/// system's random generator, without Foundation.
enum RandomUUID {
    /// Written into 36 bytes directly: the version with a `String` per byte and `joined`
    /// cost a local create about as much as SQLite's insert of its queue row (bench/localwrite).
    static func make() -> String {
        var g = SystemRandomNumberGenerator()
        let a = g.next() as UInt64
        let b = g.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { out in
            var j = 0
            for (i, byte) in bytes.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 {
                    out[j] = UInt8(ascii: "-")
                    j += 1
                }
                out[j] = digits.utf8Start[Int(byte >> 4)]
                out[j + 1] = digits.utf8Start[Int(byte & 0x0F)]
                j += 2
            }
            return j
        }
    }
}
