import Foundation
import Testing
@testable import ODataStore

/// Which defining request holds which rows (`ods_members` and, from store format 2,
/// `ods_member_ranges`), against the real V4 service: a first download records its rows as
/// runs of row ids, rows two requests share stay until neither needs them, a row id SQLite
/// hands out again never inherits the membership of the removed row, and a format-1 file
/// (per-row memberships only) opens, reads and evicts as before.
@Suite("Offline store: memberships", .serialized, .timeLimit(.minutes(3)))
struct MembershipTests {
    static func options(_ server: TestServer, _ name: String, _ definitions: [String]) -> StoreOptions {
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath(name)
        options.definingRequests = definitions
        return options
    }

    /// The rows of a query on the store file, read through a connection of its own.
    static func rows(_ path: String, _ sql: String) throws -> [[SQLValue]] {
        let c = try SQLiteConnection(path: path, create: false, readOnly: true)
        return try c.rows(sql)
    }

    static func ids(_ store: Store, _ path: String) async throws -> [Int64] {
        let v = try await DownloadRefreshTests.read(store, path)
        return (v["value"]?.arrayValue ?? []).compactMap { $0["ID"]?.int64Value }.sorted()
    }

    @Test func aFirstDownloadRecordsItsRowsAsRanges() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = Self.options(server, "ranges.store", ["Products"])
        options.downloadPageSize = 70
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        #expect(try await DownloadRefreshTests.count(store, "Products") == 300)
        let path = try #require(options.storePath)
        // Five pages, one range: each page extends the run the page before ended.
        let ranges = try Self.rows(path, "SELECT request, lo, hi FROM ods_member_ranges")
        #expect(ranges.count == 1, "\(ranges)")
        #expect(ranges.first.map { [$0[1], $0[2]] } == [.integer(1), .integer(300)])
        #expect(try Self.rows(path, "SELECT count(*) FROM ods_members")[0][0] == .integer(0))
        #expect(try Self.rows(path, "PRAGMA user_version")[0][0] == .integer(Int64(SystemTables.formatVersion)))
    }

    @Test func rowsTwoRequestsShareStayUntilNeitherNeedsThem() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let options = Self.options(server, "shared.store", ["Products?$filter=ID le 20"])
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        // 15...20 were there already (rows of the first request, `ods_members` rows for the
        // second); 21...30 are new (a range of the second).
        try store.addDefiningRequest("Products?$filter=ID ge 15 and ID le 30")
        try await DownloadRefreshTests.download(store, ["Products?$filter=ID ge 15 and ID le 30"]).0.get()
        #expect(try await DownloadRefreshTests.count(store, "Products") == 30)
        let path = try #require(options.storePath)
        #expect(try Self.rows(path, "SELECT count(*) FROM ods_members WHERE request = 2")[0][0] == .integer(6))

        try store.removeDefiningRequest("Products?$filter=ID le 20")
        #expect(try await Self.ids(store, "Products?$select=ID") == Array(15...30))
        try store.addDefiningRequest("Products?$filter=ID le 3")
        try await DownloadRefreshTests.download(store, ["Products?$filter=ID le 3"]).0.get()
        try store.removeDefiningRequest("Products?$filter=ID ge 15 and ID le 30")
        #expect(try await Self.ids(store, "Products?$select=ID") == [1, 2, 3])
        #expect(try Self.rows(path, "SELECT count(*) FROM ods_member_ranges WHERE request = 2")[0][0] == .integer(0))
    }

    /// SQLite gives a new row the table's largest row id plus one, so the id of a removed last
    /// row comes back: the new row must not inherit the removed row's range.
    @Test func aReusedRowIDDoesNotInheritAMembership() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let first = "Products?$filter=ID ge 290"
        let options = Self.options(server, "reuse.store", [first])
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        let path = try #require(options.storePath)
        let last = try #require(try Self.rows(path, "SELECT max(\"@rid\") FROM \"e:Products\"").first?.first)

        // Product 300 (the last row) removed by the service, then by a delta.
        _ = try await LocalWriteTests.run(online, .delete, "Products(300)") { try $0.setETag("*") }.get()
        try await DownloadRefreshTests.download(store, [first]).0.get()
        #expect(try await LocalWriteTests.run(store, .read, "Products(300)").failureCode == .notFound)

        // Another request's first row gets the freed row id.
        let second = "Products?$filter=ID le 2"
        try store.addDefiningRequest(second)
        try await DownloadRefreshTests.download(store, [second]).0.get()
        #expect(try Self.rows(path, "SELECT ID FROM \"e:Products\" WHERE \"@rid\" = \(last)").first?.first == .integer(1))

        // Removing the second request removes its rows: none belongs to the first.
        try store.removeDefiningRequest(second)
        #expect(try await Self.ids(store, "Products?$select=ID") == Array(290...299))
        try store.addDefiningRequest(second)
        try store.removeDefiningRequest(first)
        #expect(try await Self.ids(store, "Products?$select=ID") == [])
    }

    /// A file of format 1 (memberships one row each, no `ods_member_ranges`) opens without the
    /// network, gains the table, reads as before, and a removed defining request takes its
    /// rows (only those) with it.
    @Test func aFormatOneFileOpensReadsAndEvicts() async throws {
        let server = try TestServer.start(.v4)
        let options = Self.options(server, "format1.store", ["Products?$filter=ID le 20", "Products?$filter=ID ge 11 and ID le 40"])
        do {
            let (store, state, error) = try await OfflineStoreTests.opened(options)
            #expect(state == .open, "\(String(describing: error))")
            #expect(try await DownloadRefreshTests.count(store, "Products") == 40)
            await store.close()
        }
        server.stop()
        let path = try #require(options.storePath)
        // Back to format 1: the ranges as the per-row memberships format 1 wrote, the table gone.
        do {
            let c = try SQLiteConnection(path: path, create: false)
            try c.execute("""
                INSERT OR IGNORE INTO ods_members (request, tbl, rid)
                    SELECT g.request, g.tbl, p."@rid" FROM ods_member_ranges g JOIN "e:Products" p ON p."@rid" BETWEEN g.lo AND g.hi
                """)
            try c.execute("DROP TABLE ods_member_ranges")
            try c.execute("PRAGMA user_version = 1")
            try c.execute("UPDATE ods_store SET value = 1 WHERE name = 'format'")
            #expect(try c.scalar("SELECT count(*) FROM ods_members") == .integer(50))
        }

        var again = options
        again.definingRequests = []
        let (store, state, error) = try await OfflineStoreTests.opened(again)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        #expect(try await DownloadRefreshTests.count(store, "Products") == 40)
        #expect(try await DownloadRefreshTests.read(store, "Products(13)")["ID"] == .number("13"))
        #expect(try Self.rows(path, "PRAGMA user_version")[0][0] == .integer(2))
        #expect(try Self.rows(path, "SELECT value FROM ods_store WHERE name = 'format'")[0][0] == .integer(2))
        #expect(try Self.rows(path, "SELECT count(*) FROM ods_member_ranges")[0][0] == .integer(0))
        try store.removeDefiningRequest("Products?$filter=ID le 20")
        #expect(try await Self.ids(store, "Products?$select=ID") == Array(11...40))
    }
}
