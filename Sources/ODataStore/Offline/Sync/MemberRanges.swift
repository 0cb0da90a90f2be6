/// Memberships of rows in defining requests kept as runs of row ids (`ods_member_ranges`,
/// store format 2), next to the per-row `ods_members`: a row is a member of a request when
/// either table says so (`SystemTables` describes both). A download records the rows it
/// inserts as ranges (a first download inserts every row, with consecutive row ids: one range
/// per table instead of one `ods_members` row per entity, which cost about a sixth of a
/// download's instructions); rows it finds already in the table get `ods_members` rows.
///
/// Invariant kept by `EntityWriter`: a range never covers the id of a row inserted after the
/// range was written. Removing a row does not cut ranges (a removed row's id only matters if
/// SQLite hands it out again, which it does for the table's largest id); before recording a
/// new row whose id is not above every range of its table, the writer cuts that id out
/// (`cut`). So any range covering an existing row's id is a true membership.
///
/// Database thread only, inside the caller's transaction.
struct MemberRanges {
    let file: StoreFile

    private var c: SQLiteConnection { file.connection }

    /// Records rows `lo`...`hi` of table `tbl` as members of `request`: extends the range
    /// that ends at `lo - 1`, else adds a range.
    func add(request: Int64, tbl: Int64, lo: Int64, hi: Int64) throws(SQLiteError) {
        try c.run("UPDATE ods_member_ranges SET hi = ?4 WHERE request = ?1 AND tbl = ?2 AND hi = ?3 - 1",
                  [.integer(request), .integer(tbl), .integer(lo), .integer(hi)])
        if c.changes > 0 { return }
        try c.run("INSERT INTO ods_member_ranges (request, tbl, lo, hi) VALUES (?1, ?2, ?3, ?4)",
                  [.integer(request), .integer(tbl), .integer(lo), .integer(hi)])
    }

    /// The largest row id any range of `tbl` covers (0 when none).
    func maxCovered(tbl: Int64) throws(SQLiteError) -> Int64 {
        if case .integer(let v)? = try c.scalar("SELECT coalesce(max(hi), 0) FROM ods_member_ranges WHERE tbl = ?1", [.integer(tbl)]) {
            return v
        }
        return 0
    }

    /// Cuts `rid` out of every range of `tbl` (a new row got an id that ranges of removed
    /// rows still cover).
    func cut(tbl: Int64, rid: Int64) throws(SQLiteError) {
        let args: [SQLValue] = [.integer(tbl), .integer(rid)]
        try c.run("""
            INSERT INTO ods_member_ranges (request, tbl, lo, hi)
                SELECT request, tbl, ?2 + 1, hi FROM ods_member_ranges WHERE tbl = ?1 AND lo <= ?2 AND hi > ?2
            """, args)
        try c.run("UPDATE ods_member_ranges SET hi = ?2 - 1 WHERE tbl = ?1 AND lo <= ?2 AND hi >= ?2", args)
        try c.run("DELETE FROM ods_member_ranges WHERE tbl = ?1 AND hi < lo", [.integer(tbl)])
    }

    /// Whether a range of any request covers row `rid` of `tbl`.
    func covers(tbl: Int64, rid: Int64) throws(SQLiteError) -> Bool {
        if case .integer? = try c.scalar("SELECT 1 FROM ods_member_ranges WHERE tbl = ?1 AND lo <= ?2 AND hi >= ?2 LIMIT 1",
                                         [.integer(tbl), .integer(rid)]) { return true }
        return false
    }

    /// SQL true when a range of request `request` (an expression) covers the row `tbl`, `rid`
    /// (expressions).
    static func covering(request: String, tbl: String, rid: String) -> String {
        "EXISTS (SELECT 1 FROM ods_member_ranges r WHERE r.request = \(request) AND r.tbl = \(tbl) AND r.lo <= \(rid) AND r.hi >= \(rid))"
    }

    /// Moves the ranges of `request` to request `to` (a full refresh sets them aside).
    func move(request: Int64, to: Int64) throws(SQLiteError) {
        try c.run("INSERT INTO ods_member_ranges (request, tbl, lo, hi) SELECT ?2, tbl, lo, hi FROM ods_member_ranges WHERE request = ?1",
                  [.integer(request), .integer(to)])
        try c.run("DELETE FROM ods_member_ranges WHERE request = ?1", [.integer(request)])
    }

    /// Deletes the ranges of `requests`.
    func delete(requests: [Int64]) throws(SQLiteError) {
        for r in requests { try c.run("DELETE FROM ods_member_ranges WHERE request = ?1", [.integer(r)]) }
    }

    /// The existing rows the ranges of `requests` cover (each once, by table id and row id, in
    /// order), leaving out the rows that are members of `except` (per row or by range).
    func rows(of requests: [Int64], except: Int64? = nil) throws(SQLiteError) -> [(tbl: Int64, rid: Int64)] {
        var out: [(tbl: Int64, rid: Int64)] = []
        for request in requests {
            for t in try c.rows("SELECT DISTINCT tbl FROM ods_member_ranges WHERE request = ?1 ORDER BY tbl", [.integer(request)]) {
                guard case .integer(let tbl) = t[0], let table = file.table(id: tbl) else { continue }
                let rid = "t.\(SQLName.quote(EntityTable.ridColumn))"
                var sql = """
                    SELECT DISTINCT \(rid) FROM ods_member_ranges g JOIN \(table.quoted) t ON \(rid) BETWEEN g.lo AND g.hi
                    WHERE g.request = ?1 AND g.tbl = ?2
                    """
                var args: [SQLValue] = [.integer(request), .integer(tbl)]
                if let except {
                    sql += " AND NOT EXISTS (SELECT 1 FROM ods_members m WHERE m.request = ?3 AND m.tbl = ?2 AND m.rid = \(rid))"
                        + " AND NOT " + Self.covering(request: "?3", tbl: "?2", rid: rid)
                    args.append(.integer(except))
                }
                sql += " ORDER BY \(rid)"
                for row in try c.rows(sql, args) {
                    if case .integer(let r) = row[0] { out.append((tbl, r)) }
                }
            }
        }
        return out
    }
}
