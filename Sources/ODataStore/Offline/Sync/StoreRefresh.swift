/// What a download does to rows already in the store, beyond writing the page:
///
/// - A **full refresh** of a defining request first moves its memberships aside (`ods_members`
///   and `ods_member_ranges` request `-id`); each row the new download brings down is a member again; when the last
///   page is written, the rows it did not bring down lose that membership, and a row left with
///   no membership at all, and no local change waiting, leaves the store (with its links).
///   All in the transaction of the last page: a kill before it leaves the old rows readable
///   and the download resumes.
/// - A **delta** (a page of the service's changes since the last download) removes the
///   entities the service reports as removed (`@odata.removed`), unless changed locally.
/// - **Local changes stay on top**: a row with local changes is not overwritten by downloaded
///   data (`EntityWriter` skips it), and an entity deleted locally whose delete was not
///   uploaded yet stays deleted although the service still sends it.
///
/// Database thread only, inside the page's transaction.
struct StoreRefresh {
    let file: StoreFile

    /// Starts a refresh of defining request `id`: a delta from `deltaLink` when given, else a
    /// full download that replaces what the request brought down.
    func begin(request id: Int64, deltaLink: String?) throws(SQLiteError) {
        let c = file.connection
        if let deltaLink {
            try c.run("""
                UPDATE ods_defining_requests SET state = 'downloading', next_link = ?2, refresh = 'delta',
                    entities = 0, bytes = 0, expected = NULL WHERE id = ?1
                """, [.integer(id), .text(deltaLink)])
            return
        }
        // A full refresh interrupted earlier left rows aside already: keep them aside.
        try c.run("""
            INSERT OR IGNORE INTO ods_members (request, tbl, rid) SELECT -request, tbl, rid FROM ods_members WHERE request = ?1
            """, [.integer(id)])
        try c.run("DELETE FROM ods_members WHERE request = ?1", [.integer(id)])
        try MemberRanges(file: file).move(request: id, to: -id)
        try c.run("""
            UPDATE ods_defining_requests SET state = 'pending', next_link = NULL, delta_link = NULL, refresh = 'full',
                entities = 0, bytes = 0, expected = NULL WHERE id = ?1
            """, [.integer(id)])
    }

    /// The end of a full refresh of `request`: rows it did not bring down again lose its
    /// membership; those no request needs any more, with no local change, are removed.
    /// Rows the store wrote itself (request 0) that the refresh brought down become the
    /// request's, so they follow it from now on.
    func evictUnseen(request id: Int64) throws(SQLiteError) {
        let c = file.connection
        let ranges = MemberRanges(file: file)
        try c.run("""
            DELETE FROM ods_members WHERE request IN (0, -?1) AND (EXISTS
                (SELECT 1 FROM ods_members m WHERE m.request = ?1 AND m.tbl = ods_members.tbl AND m.rid = ods_members.rid)
                OR \(MemberRanges.covering(request: "?1", tbl: "ods_members.tbl", rid: "ods_members.rid")))
            """, [.integer(id)])
        var unseen = try c.rows("SELECT tbl, rid FROM ods_members WHERE request = -?1", [.integer(id)]).compactMap(Self.row)
        unseen += try ranges.rows(of: [-id], except: id)
        try c.run("DELETE FROM ods_members WHERE request = -?1", [.integer(id)])
        try ranges.delete(requests: [-id])
        try removeIfUnneeded(unseen)
    }

    /// Forgets defining request `id` (removed from the store): its rows no other request
    /// needs, with no local change, are removed.
    func forget(request id: Int64) throws(SQLiteError) {
        let c = file.connection
        let ranges = MemberRanges(file: file)
        var rows = try c.rows("SELECT tbl, rid FROM ods_members WHERE request IN (?1, -?1)", [.integer(id)]).compactMap(Self.row)
        rows += try ranges.rows(of: [id, -id])
        try c.run("DELETE FROM ods_members WHERE request IN (?1, -?1)", [.integer(id)])
        try ranges.delete(requests: [id, -id])
        try c.run("DELETE FROM ods_defining_requests WHERE id = ?1", [.integer(id)])
        try removeIfUnneeded(rows)
    }

    private static func row(_ values: [SQLValue]) -> (tbl: Int64, rid: Int64)? {
        guard case .integer(let tbl) = values[0], case .integer(let rid) = values[1] else { return nil }
        return (tbl, rid)
    }

    /// Removes each row (once) that no request needs any more and has no local change.
    private func removeIfUnneeded(_ rows: [(tbl: Int64, rid: Int64)]) throws(SQLiteError) {
        var seen: Set<[Int64]> = []
        for row in rows where seen.insert([row.tbl, row.rid]).inserted {
            guard let table = file.table(id: row.tbl) else { continue }
            try removeIfUnneeded(table, tableID: row.tbl, rid: row.rid)
        }
    }

    /// Removes the entities a delta reported as removed (`@odata.id` of each), unless changed
    /// locally. Ids of entities the store does not have are ignored.
    func applyRemovals(_ ids: [String], serviceRoot: String) throws(SQLiteError) {
        for id in ids {
            let path = DefiningRequest.relative(id, serviceRoot: serviceRoot)
            guard let request = try? ResolvedPath.parse(path, model: file.model, serviceRoot: serviceRoot),
                  let resolved = try? ResolvedPath.resolve(request, schema: file.schema),
                  resolved.result == .entity, resolved.steps.count == 1, let key = resolved.steps[0].key,
                  let row = try LocalWrite.row(resolved.table, key: key, connection: file.connection),
                  row.state == .synced else { continue }
            try LocalWrite.removeRow(resolved.table, rid: row.rid, file: file)
        }
    }

    /// Deletes again the rows of entities deleted locally whose delete waits for upload (a
    /// download that brought them back must not undo the app's delete).
    func reapplyQueuedDeletes() throws(SQLiteError) {
        let c = file.connection
        let deletes = try c.rows("SELECT tbl, entity_key FROM ods_queue WHERE mode = ?1 AND entity_key IS NOT NULL",
                                 [.integer(QueuedChange.Operation.delete.rawValue)])
        for d in deletes {
            guard case .integer(let tableID) = d[0], case .text(let keyText) = d[1], let table = file.table(id: tableID),
                  case .object(let o)? = try? JSONValue.parse(keyText) else { continue }
            var key: [SQLValue] = []
            for column in table.keyColumns {
                guard let v = try? LocalWrite.sqlKey(o[column.pathText], column) else { break }
                key.append(v)
            }
            guard key.count == table.keyColumns.count,
                  let row = try LocalWrite.row(table, key: key, connection: c) else { continue }
            try LocalWrite.removeRow(table, rid: row.rid, file: file)
        }
    }

    private func removeIfUnneeded(_ table: EntityTable, tableID: Int64, rid: Int64) throws(SQLiteError) {
        let c = file.connection
        if case .integer? = try c.scalar("SELECT 1 FROM ods_members WHERE tbl = ?1 AND rid = ?2 LIMIT 1",
                                         [.integer(tableID), .integer(rid)]) { return }
        if try MemberRanges(file: file).covers(tbl: tableID, rid: rid) { return }
        let state = try c.scalar("SELECT \(SQLName.quote(EntityTable.stateColumn)) FROM \(table.quoted) WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                                 [.integer(rid)])
        guard case .integer(let s)? = state, s == RowState.synced.rawValue else { return }
        try LocalWrite.removeRow(table, rid: rid, file: file)
    }
}
