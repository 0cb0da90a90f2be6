import CSQLite

/// Entities of a collection page's top level, upserted `batchRows` at a time with one
/// statement (`INSERT ... VALUES (...), (...), ... ON CONFLICT ... DO UPDATE`): SQLite's cost
/// per statement run (opening the table's cursors, the statement's journal, halting and
/// resetting) is paid once per batch instead of once per entity (about 4,000 of the 13,000
/// instructions of an upsert in bench/download/sqlite_insert.c). Only entities without
/// expanded navigations wait (their links need the row id at once); any other write, a
/// change of table or of the set of columns present, and the end of the page write what
/// waits first, so rows are written in the page's order.
///
/// The row ids: SQLite gives a new row the largest row id plus one, so when the batch's last
/// insert has the table's largest row id before the batch plus the number of rows, every row
/// was inserted, with consecutive ids in the batch's order (the common case: a first
/// download). Otherwise (a row was there: a refresh, a key twice in a page, a row with local
/// changes left alone) each row's id is looked up by key, as the one-row upsert does on its
/// update path: a row is new when its id is above that largest id and no earlier row of the
/// batch had it. Memberships are then recorded row by row exactly as the one-row path records
/// them. Database thread only, inside the writer's transaction.
struct PendingRows {
    /// The page's top-level entities may wait (a collection page of a download).
    private(set) var batching = false
    var table: EntityTable?
    var present: [Int] = []
    var drafts: [EntityDraft] = []
    /// The largest row id of `table` after the last batch that inserted every row (nil: read it).
    var largest: (table: ObjectIdentifier, rid: Int64)?

    mutating func reset(batching: Bool) {
        self.batching = batching
        table = nil
        present = []
        drafts.removeAll(keepingCapacity: true)
        largest = nil
    }
}

extension EntityWriter {
    /// Rows per batch statement (fewer when a row has so many columns that SQLite's limit on
    /// parameters would be passed).
    func batchRows(_ columns: Int) -> Int {
        let limit = Int(sqlite3_limit(file.connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        return max(1, min(maxBatchRows, limit / max(1, columns)))
    }

    /// Keeps the entity to be written with the next ones; its cells stay with it (`d` is left
    /// without cells: nothing for the caller to give back to the pool).
    func hold(_ table: EntityTable, _ d: inout EntityDraft, page: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        if pending.table !== table || !Self.matches(pending.present, d.cells) {
            try flushPending(page: page)
            pending.table = table
            pending.present = Self.present(d.cells)
        }
        // Moved in, not copied (a copy retains and later releases every member of the draft):
        // `d` is left an empty draft.
        var held = EntityDraft(cells: [])
        swap(&held, &d)
        pending.drafts.append(consume held)
        if pending.drafts.count >= batchRows(3 + pending.present.count) { try flushPending(page: page) }
    }

    /// Writes the entities that wait, and their memberships: full batches, and the rest in
    /// batches of 16, 8, 4, 2 and 1 rows (each statement prepared once per store file).
    func flushPending(page: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        guard let table = pending.table, !pending.drafts.isEmpty else { return }
        defer {
            // Each draft's cells go back to the pool, moved out of the draft (iterating
            // `pending.drafts` would copy every draft, retaining and releasing its members).
            while var d = pending.drafts.popLast() { giveBack(&d) }
        }
        let full = batchRows(3 + pending.present.count)
        let count = pending.drafts.count
        var start = 0
        while start < count {
            var rows = count - start
            if rows < full { rows = 1 << (Int.bitWidth - 1 - rows.leadingZeroBitCount) }
            try writeRows(table, start..<start + rows, page: page)
            start += rows
        }
    }

    /// Upserts `pending.drafts[range]` with one statement and records their memberships.
    private func writeRows(_ table: EntityTable, _ range: Range<Int>, page: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        let rows = range.count
        let present = pending.present
        let id = ObjectIdentifier(table)
        let largest: Int64
        if let l = pending.largest, l.table == id {
            largest = l.rid
        } else {
            let s = try file.connection.statement("SELECT max(\(SQLName.quote(EntityTable.ridColumn))) FROM \(table.quoted)")
            defer { s.reset() }
            largest = try s.step() ? s.int64(at: 0) : 0
        }
        pending.largest = nil
        guard rows > 1, largest >= 0, largest < Int64.max / 2 else {
            for j in range {
                let written = try upsert(table, pending.drafts[j], page: page)
                try recordMembership(table, rid: written.rid, inserted: written.inserted)
            }
            return
        }
        let st = try batchStatement(table, present, rows: rows)
        // Every parameter (rows x columns) is bound below before the step: no clearing.
        defer { st.resetKeepingBindings() }
        let columns = 3 + present.count
        // Bound from the drafts where they are, through pointers (an element read out of
        // `pending`, or a pointer's subscript passed on, is a copy of the draft). The text of
        // the arena and of the drafts' `extra` is bound in place (`bindsTextInPlace`): the
        // step runs inside these closures, before anything changes the arena or the drafts.
        try pending.drafts.withUnsafeBufferPointer { (drafts) throws(SQLiteError) in
            try arena.withUnsafeBufferPointer { (arena) throws(SQLiteError) in
                let first = drafts.baseAddress!
                for j in range { try bindRow(st, present, first + j, page: page, arena: arena, base: (j - range.lowerBound) * columns) }
                sqlite3_set_last_insert_rowid(file.connection.handle, 0)
                _ = try st.step()
            }
        }
        if file.connection.lastInsertRowID == largest + Int64(rows) {
            for j in 1...rows { try recordMembership(table, rid: largest + Int64(j), inserted: true) }
            pending.largest = (id, largest + Int64(rows))
            return
        }
        var seen = Set<Int64>()
        for j in range {
            let rid = try rowID(table, pending.drafts[j].cells, page: page)
            try recordMembership(table, rid: rid, inserted: rid > largest && seen.insert(rid).inserted)
        }
    }

    /// The upsert of `rows` rows, prepared once per store file.
    private func batchStatement(_ table: EntityTable, _ present: [Int], rows: Int) throws(SQLiteError) -> SQLiteStatement {
        let key = Shared.BatchKey(upsert: UpsertKey(table: ObjectIdentifier(table), present: present, protects: requestID != 0), rows: rows)
        if let st = shared.batchStatements[key] { return st }
        let st = try file.connection.prepare(upsertSQL(table, present, rows: rows))
        st.bindsTextInPlace = true  // `writeRows` steps while what it bound is there
        shared.batchStatements[key] = st
        return st
    }
}
