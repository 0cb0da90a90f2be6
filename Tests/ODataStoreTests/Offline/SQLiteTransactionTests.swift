import CSQLite
import Testing
@testable import ODataStore

/// `SQLiteConnection.transaction` when the commit itself fails. A deferred foreign key makes
/// COMMIT fail with the transaction still open (as SQLITE_FULL and SQLITE_BUSY may): the
/// depth once went to -1 there, so the next transaction ran `SAVEPOINT ods_sp-1` (a syntax
/// error) and every later write of the store failed (found by Tests/python/test_disk_full.py).
@Suite("Offline: SQLite transactions")
struct SQLiteTransactionTests {
    private func connection() throws -> SQLiteConnection {
        let c = try SQLiteConnection(path: ":memory:", create: true)
        try c.execute("""
            PRAGMA foreign_keys = ON;
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (id INTEGER PRIMARY KEY,
                                parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            INSERT INTO parent (id) VALUES (1);
            """)
        return c
    }

    private func count(_ c: SQLiteConnection, _ table: String) throws -> SQLValue? {
        try c.scalar("SELECT count(*) FROM \(table)")
    }

    @Test func aFailedCommitRollsBackAndTheNextTransactionWorks() throws {
        let c = try connection()
        #expect(throws: SQLiteError.self) {
            try c.transaction { try c.run("INSERT INTO child (id, parent) VALUES (1, 99)") }
        }
        #expect(c.transactionDepth == 0)
        #expect(c.isAutocommit)  // rolled back, not left open
        #expect(try count(c, "child") == .integer(0))
        try c.transaction { try c.run("INSERT INTO child (id, parent) VALUES (2, 1)") }
        #expect(try count(c, "child") == .integer(1))
        #expect(c.transactionDepth == 0 && c.isAutocommit)
    }

    @Test func nestedFailuresRestoreEachLevel() throws {
        let c = try connection()
        try c.transaction {
            try c.run("INSERT INTO child (id, parent) VALUES (1, 1)")
            #expect(c.transactionDepth == 1)
            #expect(throws: SQLiteError.self) {
                try c.transaction {
                    try c.run("INSERT INTO child (id, parent) VALUES (2, 1)")
                    try c.run("INSERT INTO child (id, parent) VALUES (2, 1)")  // duplicate key
                }
            }
            #expect(c.transactionDepth == 1)
            #expect(try count(c, "child") == .integer(1))  // the savepoint's insert undone, the outer one kept
            try c.transaction { try c.run("INSERT INTO child (id, parent) VALUES (3, 1)") }
            #expect(c.transactionDepth == 1)
        }
        #expect(c.transactionDepth == 0)
        #expect(try count(c, "child") == .integer(2))
    }

    @Test func aBodyThatFailsLeavesNothing() throws {
        struct Stop: Error {}
        let c = try connection()
        #expect(throws: Stop.self) {
            try c.transaction {
                try c.run("INSERT INTO child (id, parent) VALUES (1, 1)")
                throw Stop()
            }
        }
        #expect(c.transactionDepth == 0 && c.isAutocommit)
        #expect(try count(c, "child") == .integer(0))
    }
}
