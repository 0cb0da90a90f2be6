/// The error archive (`ods_errors`): changes the service refused, each with the request that
/// was sent and the service's answer, kept until the app resolves it (retry or revert). The
/// archived change keeps what is needed to queue it again. Database thread only.
struct ErrorArchive {
    let connection: SQLiteConnection

    static let columns = "id, queue_id, created, mode, tbl, rid, method, path, body, http_status, odata_code, message, properties, entity_key, parent_tbl, parent_rid, parent_nav, etag"

    /// Archives a refused change (the caller removes it from the queue in the same transaction).
    func add(_ change: QueuedChange, method: String, body: String?, status: Int, code: String?, message: String) throws(SQLiteError) {
        let properties: SQLValue = change.properties.map { .text(JSONValue.array($0.map { .string($0) }).serialized()) } ?? .null
        try connection.run("""
            INSERT INTO ods_errors (queue_id, created, mode, tbl, rid, method, path, body, http_status, odata_code, message,
                                    properties, entity_key, parent_tbl, parent_rid, parent_nav, etag)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
            """, [.integer(change.id), .text(Timestamp.now()), .integer(change.operation.rawValue), .integer(change.table),
                  .integer(change.rid), .text(method), .text(change.path), body.map { .text($0) } ?? .null,
                  .integer(Int64(status)), code.map { .text($0) } ?? .null, .text(message), properties,
                  change.entityKey.map { .text($0) } ?? .null, change.parentTable.map { .integer($0) } ?? .null,
                  change.parentRID.map { .integer($0) } ?? .null, change.parentNavigation.map { .text($0) } ?? .null,
                  change.etag.map { .text($0) } ?? .null])
    }

    /// One archived change and its table id / row.
    struct Entry: Sendable {
        var error: ArchivedError
        var change: QueuedChange
    }

    func all() throws(SQLiteError) -> [Entry] {
        try connection.rows("SELECT \(Self.columns) FROM ods_errors ORDER BY id").compactMap(Self.entry)
    }

    func entry(id: Int64) throws(SQLiteError) -> Entry? {
        try connection.rows("SELECT \(Self.columns) FROM ods_errors WHERE id = ?1", [.integer(id)]).first.flatMap(Self.entry)
    }

    func remove(id: Int64) throws(SQLiteError) {
        try connection.run("DELETE FROM ods_errors WHERE id = ?1", [.integer(id)])
    }

    func count() throws(SQLiteError) -> Int64 {
        guard case .integer(let n)? = try connection.scalar("SELECT count(*) FROM ods_errors") else { return 0 }
        return n
    }

    private static func entry(_ r: [SQLValue]) -> Entry? {
        func int(_ i: Int) -> Int64? { if case .integer(let v) = r[i] { return v }; return nil }
        func text(_ i: Int) -> String? { if case .text(let v) = r[i] { return v }; return nil }
        guard r.count >= 18, let id = int(0), let op = int(3).flatMap(QueuedChange.Operation.init(rawValue:)),
              let tbl = int(4), let rid = int(5) else { return nil }
        let change = QueuedChange(id: int(1) ?? 0, operation: op, table: tbl, rid: rid, path: text(7) ?? "",
                                  properties: text(12).flatMap { try? JSONValue.parse($0).arrayValue?.compactMap(\.stringValue) },
                                  entityKey: text(13), parentTable: int(14), parentRID: int(15), parentNavigation: text(16),
                                  etag: text(17), repeatabilityID: RandomUUID.make())
        let error = ArchivedError(id: id, created: text(2) ?? "", method: text(6) ?? "", path: text(7) ?? "", body: text(8),
                                  httpStatus: Int(int(9) ?? 0), odataCode: text(10), message: text(11) ?? "", entitySet: "")
        return Entry(error: error, change: change)
    }
}
