import Testing
@testable import ODataStore

/// `SQLiteStatement.reset` against `resetKeepingBindings`: the download's multi-row upserts
/// keep their bindings between batches and bind every parameter again, so what a step writes
/// must be the new values only, even when the old ones were bound without a copy from a buffer
/// freed since.
@Suite("Offline: SQLite statements")
struct SQLiteStatementTests {
    @Test func rebindingEveryParameterAfterKeepingBindingsWritesOnlyTheNewValues() throws {
        let c = try SQLiteConnection(path: ":memory:", create: true)
        try c.execute("CREATE TABLE t (a, b)")
        let st = try c.prepare("INSERT INTO t (a, b) VALUES (?, ?), (?, ?)")
        do {
            // First batch: text bound without a copy from a buffer that dies after the step.
            var first: [UInt8] = Array("stale-value".utf8)
            try first.withUnsafeBufferPointer { b throws(SQLiteError) in
                for i in 1...4 { try st.bindTextNoCopy(b, at: i) }
            }
            #expect(try st.step() == false)
            st.resetKeepingBindings()
            for i in first.indices { first[i] = UInt8(ascii: "X") }  // overwritten, then freed
        }
        // Second batch: every parameter bound again, of other kinds and lengths.
        let second: [UInt8] = Array("new".utf8)
        try second.withUnsafeBufferPointer { b throws(SQLiteError) in
            try st.bindTextNoCopy(b, at: 1)
            try st.bind(.null, at: 2)
            try st.bind(.integer(42), at: 3)
            try st.bindText(UnsafeBufferPointer(rebasing: b[0..<2]), at: 4)
            #expect(try st.step() == false)
        }
        st.resetKeepingBindings()
        let rows = try c.rows("SELECT a, b FROM t ORDER BY rowid")
        #expect(rows.count == 4)
        #expect(rows[0] == [.text("stale-value"), .text("stale-value")])
        #expect(rows[1] == [.text("stale-value"), .text("stale-value")])
        #expect(rows[2] == [.text("new"), .null])
        #expect(rows[3] == [.integer(42), .text("ne")])
    }

    @Test func resetClearsBindingsAndKeepingThemDoesNot() throws {
        let c = try SQLiteConnection(path: ":memory:", create: true)
        try c.execute("CREATE TABLE t (a)")
        let st = try c.prepare("INSERT INTO t (a) VALUES (?)")
        try st.bind(.integer(7), at: 1)
        _ = try st.step()
        st.resetKeepingBindings()
        _ = try st.step()  // the kept binding: 7 again
        st.reset()
        _ = try st.step()  // cleared: NULL
        st.reset()
        #expect(try c.rows("SELECT a FROM t ORDER BY rowid") == [[.integer(7)], [.integer(7)], [.null]])
    }
}
