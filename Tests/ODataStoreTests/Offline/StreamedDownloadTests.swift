import Foundation
import Testing
@testable import ODataStore

/// A JSON page is written while it arrives (`PageStream`), against the real services: a page
/// of megabytes is held in a small bounded part (measured inside: the store's high-water mark
/// of page bytes held), a body cut off mid-page and downloaded again gives the store an
/// uninterrupted download gives, and an over-limit answer fails with a clear status.
@Suite("Offline store: streamed download", .serialized, .timeLimit(.minutes(5)))
struct StreamedDownloadTests {
    static func peak(_ store: Store) throws -> Int {
        let engine = try #require(store.engine as? OfflineEngine)
        return engine.database.peakPageBytes.load(ordering: .relaxed)
    }

    static func offline(_ root: String, _ name: String, _ paths: [String], pageSize: Int = 0) -> StoreOptions {
        var options = StoreOptions(serviceRoot: root)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath(name)
        options.definingRequests = paths
        options.downloadPageSize = pageSize  // 0: no odata.maxpagesize, the service's own paging
        return options
    }

    /// Every product as the store answers it, in key order.
    static func products(_ store: Store) async throws -> [JSONValue] {
        let page = try await DownloadRefreshTests.read(store, "Products?$orderby=ID")
        guard case .array(let rows)? = page["value"] else { return [] }
        return rows
    }

    @Test func aLargeV4PageIsHeldInABoundedPart() async throws {
        let n = 20_000
        let server = try TestServer.start(.v4, products: n, timeoutSeconds: 120)
        defer { server.stop() }
        let (store, state, error) = try await OfflineStoreTests.opened(Self.offline(server.serviceRoot, "big.store", ["Products"]))
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        let row = try await store.offlineDatabaseRow("Products")
        #expect(row.entities == Int64(n) && row.state == .complete, "\(row)")
        #expect(row.bytes > 5_000_000, "the page had \(row.bytes) bytes")
        let held = try Self.peak(store)
        // The queue (1 MiB) + a run (512 KiB) + the splitter's piece: about 2 MB at most,
        // whatever the page's size (the page was one body of row.bytes).
        #expect(held > 0 && held < 3 << 20 && Int64(held) * 2 < row.bytes, "held \(held) of a \(row.bytes)-byte page")
        print("streamed download: held at most \(held) bytes of a \(row.bytes)-byte page")
        #expect(try await DownloadRefreshTests.count(store, "Products") == Int64(n))
        // The entities are those of the service (first, middle, last).
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        for id in [1, n / 2, n] {
            let local = try await DownloadRefreshTests.read(store, "Products(\(id))")
            let remote = try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Products(\(id))").get().json)
            for field in ["ID", "Name", "Price", "Stock", "ReleaseDate", "UUID", "CategoryID"] {
                #expect(local[field] == remote[field], "Products(\(id)).\(field)")
            }
        }
    }

    @Test func aLargeV2PageIsStreamedToo() async throws {
        let n = 4_000
        let server = try TestServer.start(.v2, products: n, timeoutSeconds: 120)
        defer { server.stop() }
        let (store, state, error) = try await OfflineStoreTests.opened(Self.offline(server.serviceRoot, "big2.store", ["Products"]))
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        let row = try await store.offlineDatabaseRow("Products")
        #expect(row.entities == Int64(n) && row.state == .complete, "\(row)")
        let held = try Self.peak(store)
        #expect(held > 0 && Int64(held) < row.bytes, "held \(held) of a \(row.bytes)-byte page")
        #expect(try await DownloadRefreshTests.count(store, "Products") == Int64(n))
    }

    @Test func aPageCutOffMidwayIsFetchedAgainAndGivesTheSameStore() async throws {
        // Half the page (~4.4 MB) is several times what the queue holds (1 MiB): runs are
        // written before the cut (on a local connection, a cut in the first megabytes can
        // arrive before the database queue has written a run; then nothing is written).
        let n = 30_000
        let server = try TestServer.start(.v4, products: n, timeoutSeconds: 120)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }

        // Uninterrupted, for comparison.
        let (reference, s1, e1) = try await OfflineStoreTests.opened(Self.offline(server.serviceRoot, "ref.store", ["Products", "Categories"]))
        #expect(s1 == .open, "\(String(describing: e1))")
        defer { try? reference.close() }

        // The products page arrives half (its Content-Length says more) and the connection drops.
        try proxy.setFault("truncate", count: 1, match: "Products")
        let (store, s2, e2) = try await OfflineStoreTests.opened(Self.offline(proxy.serviceRoot, "cut.store", ["Products", "Categories"]))
        #expect(s2 != .open, "the first download should have failed")
        #expect(e2 != nil)
        await store.close()
        // Runs of the page were written before the cut; the page is not counted, its URL stays the resume point.
        let file = try SQLiteConnection(path: Self.pathOf(store), create: false, readOnly: true)
        let request = try file.rows("SELECT state, entities, next_link FROM ods_defining_requests WHERE path = 'Products'")
        #expect(request.count == 1 && request[0][1] == .integer(0) && request[0][2] == .null, "\(request)")
        let tableName = try #require(try file.scalar("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%Products%' AND name NOT LIKE 'ods%'"))
        guard case .text(let productsTable) = tableName else { throw ODataStoreError(.error, "no products table") }
        guard case .integer(let written)? = try file.scalar("SELECT count(*) FROM \"\(productsTable)\"") else { throw ODataStoreError(.error, "no count") }
        #expect(written > 0 && written < n, "\(written) products written before the cut; \(String(describing: e2)); \(productsTable))")
        let options = { () -> StoreOptions in
            var o = Self.offline(proxy.serviceRoot, "cut.store", ["Products", "Categories"])
            o.storePath = Self.pathOf(store)
            return o
        }()
        let (again, s3, e3) = try await OfflineStoreTests.opened(options)
        defer { try? again.close() }
        #expect(s3 == .open, "\(String(describing: e3))")
        let row = try await again.offlineDatabaseRow("Products")
        #expect(row.entities == Int64(n) && row.state == .complete, "counted once: \(row)")
        #expect(try await Self.products(again) == (try await Self.products(reference)))
        #expect(try await DownloadRefreshTests.count(again, "Categories") == (try await DownloadRefreshTests.count(reference, "Categories")))
        let memberships = try await again.offlineMemberCount("Products")
        #expect(memberships == n, "each product a member of the request once: \(memberships)")
    }

    @Test func anAnswerOverTheLimitFailsClearly() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = Self.offline(server.serviceRoot, "limit.store", ["Products"])
        options.limits.maxResponseBytes = 20_000
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        defer { try? store.close() }
        #expect(state != .open)
        #expect(error?.code == .limit && error?.message.contains("max_response_bytes") == true, "\(String(describing: error))")
    }

    /// The splitter runs on the transport thread while the page arrives: a page that breaks
    /// its bracket structure after a run was queued fails the download there (the transfer is
    /// cancelled, the runs already written stay as upserts, the page is not counted), and the
    /// next opening downloads the page whole again and gives the store an uninterrupted
    /// download gives.
    @Test func aPageThatBreaksAfterARunFailsAndIsFetchedAgain() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        // Entity 1, 600 KB of JSON whitespace, entity 2 and its comma: a run (more than
        // `PageStream.chunkBytes`) is queued; then a `]` where the page's `}` belongs.
        let body = #"{"@odata.context":"$metadata#Products","value":[{"ID":1,"Name":"one"},"#
            + String(repeating: " ", count: 600_000) + #"{"ID":2,"Name":"two"},{"ID":3,"Name":"three"}]]}"#
        try proxy.setFault("respond", count: 1, match: "Products", status: 200,
                           headers: [("Content-Type", "application/json;odata.metadata=minimal")], body: body)
        let options = Self.offline(proxy.serviceRoot, "broken.store", ["Products"])
        let (store, s1, e1) = try await OfflineStoreTests.opened(options)
        #expect(s1 != .open, "the first download should have failed")
        #expect(e1?.code == .protocol && e1?.message.contains("unbalanced") == true, "\(String(describing: e1))")
        await store.close()
        let file = try SQLiteConnection(path: Self.pathOf(store), create: false, readOnly: true)
        let request = try file.rows("SELECT state, entities, next_link FROM ods_defining_requests WHERE path = 'Products'")
        #expect(request.count == 1 && request[0][0] != .text("complete") && request[0][1] == .integer(0), "\(request)")

        var again = options
        again.storePath = Self.pathOf(store)
        let (reopened, s2, e2) = try await OfflineStoreTests.opened(again)
        defer { try? reopened.close() }
        #expect(s2 == .open, "\(String(describing: e2))")
        let (reference, s3, e3) = try await OfflineStoreTests.opened(Self.offline(server.serviceRoot, "unbroken.store", ["Products"]))
        defer { try? reference.close() }
        #expect(s3 == .open, "\(String(describing: e3))")
        let products = try await Self.products(reopened)
        let referenceProducts = try await Self.products(reference)
        #expect(!products.isEmpty && products == referenceProducts)
        let row = try await reopened.offlineDatabaseRow("Products")
        #expect(row.entities == Int64(products.count) && row.state == .complete, "\(row)")
        let members = try await reopened.offlineMemberCount("Products")
        #expect(members == products.count)
    }

    /// The batch upserts bind text that is not in the page as it arrived (values with escapes,
    /// unescaped into the writer's arena; the escaped `@odata.etag`) without a copy: every row
    /// of several batches and runs gets its own values, byte for byte what the service sends.
    @Test func escapedValuesOfEveryRowAreStoredExactly() async throws {
        let server = try TestServer.start(.v4, products: 400)
        defer { server.stop() }
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        // Names with quotes, backslashes, control characters and \u escapes, each different,
        // on most rows (so consecutive rows of a batch all take the arena path, of lengths
        // that make the arena grow while rows wait).
        for id in 1...400 where id % 5 != 0 {
            let name = "q\\\"\(id)\\\" b\\\\s \\t\\n \\u00e9\(String(repeating: "x", count: id % 37))"
            _ = try await LocalWriteTests.run(online, .update, "Products(\(id))", body: #"{"Name":""# + name + #""}"#) {
                try $0.setETag("W/\"1\"")
            }.get()
        }
        let (store, state, error) = try await OfflineStoreTests.opened(Self.offline(server.serviceRoot, "escaped.store", ["Products"], pageSize: 150))
        defer { try? store.close() }
        #expect(state == .open, "\(String(describing: error))")
        let remote = try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Products?$orderby=ID").get().json)
        guard case .array(let expected)? = remote["value"] else { throw ODataStoreError(.error, "no products online") }
        let local = try await Self.products(store)
        #expect(local.count == 400 && expected.count == 400)
        var checked = 0
        for (l, r) in zip(local, expected) {
            #expect(l["Name"] == r["Name"] && l["@odata.etag"] == r["@odata.etag"] && l["Description"] == r["Description"],
                    "\(String(describing: l["ID"])): \(String(describing: l["Name"])) vs \(String(describing: r["Name"]))")
            if case .string(let n)? = l["Name"], n.hasPrefix("q\"") { checked += 1 }
        }
        #expect(checked == 320, "\(checked) rows with escaped names")
    }

    static func pathOf(_ store: Store) -> String {
        store.options.storePath ?? ""
    }
}

extension Store {
    /// The defining request row of `path` (database queue).
    func offlineDatabaseRow(_ path: String) async throws -> DefiningRequestRow {
        let engine = try #require(self.engine as? OfflineEngine)
        return try engine.database.queue.sync { () throws(ODataStoreError) in
            guard let row = try engine.database.definingRequests().first(where: { $0.path == path }) else {
                throw ODataStoreError(.notFound, path)
            }
            return row
        }
    }

    /// Distinct rows of `path`'s table that its defining request holds (ranges and rows).
    func offlineMemberCount(_ path: String) async throws -> Int {
        let engine = try #require(self.engine as? OfflineEngine)
        let row = try await offlineDatabaseRow(path)
        return try engine.database.queue.sync { () throws(ODataStoreError) in
            let file = try engine.database.requireFile()
            guard let table = file.schema.tables.values.first(where: { $0.entitySet == row.entitySet }) else {
                throw ODataStoreError(.notFound, row.entitySet)
            }
            let tid = String(file.tableID(table))
            let sql = "SELECT count(*) FROM \(table.quoted) t WHERE EXISTS (SELECT 1 FROM ods_members m WHERE m.request = ?1 AND m.tbl = \(tid) AND m.rid = t.rowid) OR "
                + MemberRanges.covering(request: "?1", tbl: tid, rid: "t.rowid")
            do {
                if case .integer(let n)? = try file.connection.scalar(sql, [.integer(row.id)]) { return Int(n) }
            } catch {
                throw ODataStoreError(.error, "\(error)")
            }
            return -1
        }
    }
}
