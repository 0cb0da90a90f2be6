import Foundation
import Synchronization
import Testing
@testable import ODataStore

/// The bulk load of a first download (`BulkLoad`), against the real V4 service behind the
/// fault proxy: a first download into an empty table inserts without the key index and ends
/// with one row per key (the later copy), the key index under the name `EntityTable.ddl`
/// gives it and a sound file; a failure, and a reopen that will not resume, never leave a key
/// twice or the index missing in an open store; a table that is not empty and a request with
/// `$expand` keep the upsert.
@Suite("Offline store: bulk first load", .serialized, .timeLimit(.minutes(3)))
struct BulkLoadTests {
    static let keyIndex = "e:Products@key"

    /// What the store file says about the bulk load of `e:Products`, read through a
    /// connection of its own (from a progress callback: between two pages).
    struct FileState: Equatable {
        var keyIndex: Bool
        var bulkRow: Bool
    }

    static func fileState(_ path: String, table: String = "e:Products") throws -> FileState {
        let indexes = try MembershipTests.rows(path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '\(table)'")
        let bulk = try MembershipTests.rows(path, "SELECT 1 FROM ods_store WHERE name = 'bulk_load:\(table)'")
        return FileState(keyIndex: indexes.contains { $0[0] == .text(table + "@key") }, bulkRow: !bulk.isEmpty)
    }

    /// The checks every finished load passes: the key index as `EntityTable.ddl` makes it, no
    /// key twice, no bulk load left, every row a member of a request, a sound file.
    static func expectSound(_ path: String, rows: Int64, file: StaticString = #filePath, line: UInt = #line) throws {
        let sql = try MembershipTests.rows(path, "SELECT sql FROM sqlite_master WHERE name = '\(keyIndex)'")
        #expect(sql.first?[0] == .text("CREATE UNIQUE INDEX \"e:Products@key\" ON \"e:Products\" (\"ID\")"), "\(sql)")
        #expect(try MembershipTests.rows(path, "SELECT count(*), count(DISTINCT ID) FROM \"e:Products\"")[0] == [.integer(rows), .integer(rows)])
        #expect(try MembershipTests.rows(path, "SELECT count(*) FROM ods_store WHERE name LIKE 'bulk_load:%'")[0][0] == .integer(0))
        let orphans = try MembershipTests.rows(path, """
            SELECT count(*) FROM "e:Products" t WHERE NOT EXISTS (SELECT 1 FROM ods_members m WHERE m.rid = t."@rid")
                AND NOT EXISTS (SELECT 1 FROM ods_member_ranges r WHERE r.lo <= t."@rid" AND r.hi >= t."@rid")
            """)
        #expect(orphans[0][0] == .integer(0))
        #expect(try MembershipTests.rows(path, "PRAGMA integrity_check")[0][0] == .text("ok"))
        #expect(try MembershipTests.rows(path, "PRAGMA user_version")[0][0] == .integer(Int64(SystemTables.formatVersion)))
    }

    static func proxied(_ proxy: TestServer, _ name: String, _ definitions: [String]) -> StoreOptions {
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath(name)
        options.definingRequests = definitions
        options.downloadPageSize = 100
        options.limits.maxRetries = 0
        return options
    }

    /// One GET straight to the service (not through the proxy): the JSON answer.
    static func get(_ server: TestServer, _ url: String) throws -> JSONValue {
        var target = url
        if let u = URL(string: url), u.scheme != nil {
            target = u.path + (u.query.map { "?" + $0 } ?? "")
        }
        let (status, body) = try server.rawRequest("GET", target, headers: [("Prefer", "odata.maxpagesize=100"),
                                                                             ("Accept", "application/json")])
        #expect(status == 200)
        return try JSONValue.parse(String(decoding: body, as: UTF8.self))
    }

    static func named(_ entity: JSONValue, _ name: String) -> JSONValue {
        guard case .object(var o) = entity else { return entity }
        o["Name"] = .string(name)
        return .object(o)
    }

    /// A service whose paging drifts: page 2 (answered by the proxy in the service's own
    /// words, once) brings two entities of page 1 again with new names, and one of its own
    /// twice. The store keeps one row per key, the later copy, exactly what the upsert kept;
    /// a read started while the store opens (held until it is open) sees that too.
    @Test func keysThatComeTwiceKeepTheLaterCopy() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        let root = try #require(URL(string: server.serviceRoot)).path
        let first = try Self.get(server, root + (root.hasSuffix("/") ? "" : "/") + "Products")
        let nextLink = try #require(first["@odata.nextLink"]?.stringValue)
        var second = try Self.get(server, nextLink)
        let page1 = try #require(first["value"]?.arrayValue)
        var page2 = try #require(second["value"]?.arrayValue)
        #expect(page1.count == 100 && page2.count == 100)
        #expect(page2[9]["ID"]?.int64Value == 110)
        page2.append(Self.named(page2[9], "Twice 110"))
        page2.insert(Self.named(page1[2], "Drifted 3"), at: 0)
        page2.insert(Self.named(page1[98], "Drifted 99"), at: 50)
        guard case .object(var o) = second else { Issue.record("page 2 is not an object"); return }
        o["value"] = .array(page2)
        // The next link as the proxy's answer would carry it (the service's own names its host).
        if let link = o["@odata.nextLink"]?.stringValue {
            o["@odata.nextLink"] = .string(link.replacingOccurrences(of: server.serviceRoot, with: proxy.serviceRoot))
        }
        second = .object(o)
        let skiptoken = try #require(nextLink.range(of: "skiptoken=")).lowerBound
        try proxy.setFault("respond", count: 1, match: String(nextLink[skiptoken...].prefix(40)),
                           headers: [("Content-Type", "application/json;odata.metadata=minimal"), ("OData-Version", "4.0")],
                           body: second.serialized())

        // Page 3 fails the first opening: the pages before are in the file as the bulk load
        // wrote them, each copy a row of its own, the table without its key index.
        try proxy.setFault("reset", count: 2, match: "skiptoken=200")
        var options = Self.proxied(proxy, "bulk-twice.store", ["Products"])
        let path = try #require(options.storePath)
        let (failing, s1, _) = try await OfflineStoreTests.opened(options)
        #expect(s1 == .failed)
        await failing.close()
        #expect(try Self.fileState(path) == FileState(keyIndex: false, bulkRow: true))
        #expect(try MembershipTests.rows(path, "SELECT count(*), count(DISTINCT ID) FROM \"e:Products\"")[0] == [.integer(203), .integer(200)])

        // The next opening resumes and ends the load. A read started while it opens (the store
        // holds it until it is open) sees the store as it opens.
        try proxy.clearFaults()
        let heldRead = Mutex<Task<JSONValue, Error>?>(nil)
        options.downloadProgress = { store, _ in
            heldRead.withLock { t in
                if t == nil { t = Task { try await DownloadRefreshTests.read(store, "Products?$select=ID,Name&$orderby=ID") } }
            }
        }
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        try Self.expectSound(path, rows: 300)
        #expect(try MembershipTests.rows(path, "SELECT count(*) FROM ods_member_ranges")[0][0] == .integer(1))
        #expect(try await DownloadRefreshTests.count(store, "Products") == 300)
        #expect(try await MembershipTests.ids(store, "Products?$select=ID") == (1...300).map(Int64.init))
        for (id, name) in [(3, "Drifted 3"), (99, "Drifted 99"), (110, "Twice 110")] {
            let row = try await DownloadRefreshTests.read(store, "Products(\(id))")
            #expect(row["Name"]?.stringValue == name, "\(row)")
        }
        // The later copy whole: its other properties are the service's.
        let service = try Self.get(server, root + (root.hasSuffix("/") ? "" : "/") + "Products(3)")
        let local = try await DownloadRefreshTests.read(store, "Products(3)")
        for member in ["Description", "UUID", "CategoryID", "ReleaseDate"] {
            #expect(local[member] == service[member], "\(member): \(local) \(service)")
        }
        // The read started while the store was opening saw the store as it opened.
        let task = try #require(heldRead.withLock { $0 })
        let held = try await task.value["value"]?.arrayValue ?? []
        #expect(held.compactMap { $0["ID"]?.int64Value } == (1...300).map(Int64.init))
        #expect(held.first { $0["ID"]?.int64Value == 3 }?["Name"]?.stringValue == "Drifted 3")
        // The next download (a delta) finds the rows by key.
        try await DownloadRefreshTests.download(store, ["Products"]).0.get()
        #expect(try await DownloadRefreshTests.count(store, "Products") == 300)
        try Self.expectSound(path, rows: 300)
    }

    /// A failure after two pages fails the opening and leaves the load recorded with its
    /// pages; the next opening resumes it in bulk mode and ends it with the key index.
    @Test func aFailedLoadResumesInBulkModeAndEnds() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        try proxy.setFault("reset", count: 2, match: "skiptoken=100")
        var options = Self.proxied(proxy, "bulk-resume.store", ["Products"])
        options.downloadPageSize = 50
        let path = try #require(options.storePath)
        let (failing, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .failed, "\(String(describing: error))")
        await failing.close()
        #expect(try Self.fileState(path) == FileState(keyIndex: false, bulkRow: true))
        #expect(try MembershipTests.rows(path, "SELECT count(*) FROM \"e:Products\"")[0][0] == .integer(100))
        #expect(try MembershipTests.rows(path, "PRAGMA integrity_check")[0][0] == .text("ok"))

        // Resumed and failed again two pages later: still a bulk load (an upsert would have
        // ended it), the secondary index still out (the opening does not make it meanwhile).
        try proxy.clearFaults()
        try proxy.setFault("reset", count: 2, match: "skiptoken=200")
        let (again, s2, _) = try await OfflineStoreTests.opened(options)
        #expect(s2 == .failed)
        await again.close()
        #expect(try Self.fileState(path) == FileState(keyIndex: false, bulkRow: true))
        #expect(try !LateIndexTests.indexes(path).contains(LateIndexTests.index))
        #expect(try MembershipTests.rows(path, "SELECT count(*), count(DISTINCT ID) FROM \"e:Products\"")[0] == [.integer(200), .integer(200)])

        try proxy.clearFaults()
        let (store, s3, e3) = try await OfflineStoreTests.opened(options)
        #expect(s3 == .open, "\(String(describing: e3))")
        defer { try? store.close() }
        try Self.expectSound(path, rows: 300)
        #expect(try LateIndexTests.indexes(path).contains(LateIndexTests.index))
        #expect(try await MembershipTests.ids(store, "Products?$select=ID") == (1...300).map(Int64.init))
    }

    /// A load stopped after two pages (as a kill leaves it: the pages committed, the load
    /// recorded) whose request the next opening does not download: the opening ends the load
    /// first, so the open store has its key index and every key once, without the network.
    @Test func anOpeningThatWillNotResumeEndsTheLoad() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        var options = Self.proxied(proxy, "bulk-noresume.store", ["Categories"])
        let path = try #require(options.storePath)
        let (first, s1, e1) = try await OfflineStoreTests.opened(options)
        #expect(s1 == .open, "\(String(describing: e1))")
        await first.close()

        // Named now and never downloaded: the opening loads Products in bulk, and stops.
        try proxy.setFault("reset", count: 2, match: "skiptoken=200")
        options.definingRequests = ["Categories", "Products"]
        let (failing, s2, _) = try await OfflineStoreTests.opened(options)
        #expect(s2 == .failed)
        await failing.close()
        #expect(try Self.fileState(path) == FileState(keyIndex: false, bulkRow: true))

        // Not named: not downloaded by this opening, which has no network either.
        try proxy.clearFaults()
        try proxy.setFault("reset", count: -1)
        options.definingRequests = ["Categories"]
        let (store, s3, e3) = try await OfflineStoreTests.opened(options)
        #expect(s3 == .open, "\(String(describing: e3))")
        defer { try? store.close() }
        try Self.expectSound(path, rows: 200)
        #expect(try LateIndexTests.indexes(path).contains(LateIndexTests.index))
        #expect(try await MembershipTests.ids(store, "Products?$select=ID") == (1...200).map(Int64.init))
        let info = try #require(try store.offlineInfo().definingRequests.first { $0.path == "Products" })
        #expect(!info.isComplete)

        // Back online, the next download finishes Products with upserts.
        try proxy.clearFaults()
        try await DownloadRefreshTests.download(store, ["Products"]).0.get()
        try Self.expectSound(path, rows: 300)
        #expect(try MembershipTests.rows(path, "SELECT count(*) FROM ods_store WHERE name LIKE 'bulk_load:%'")[0][0] == .integer(0))
    }

    /// A table that is not empty when a first download starts (another request filled part
    /// of it) and a request with `$expand` keep the upsert: the key indexes stay throughout.
    @Test func aTableNotEmptyAndAnExpandUpsert() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        var options = Self.proxied(proxy, "bulk-upsert.store", ["Products?$filter=ID le 20"])
        let path = try #require(options.storePath)
        let (first, s1, e1) = try await OfflineStoreTests.opened(options)
        #expect(s1 == .open, "\(String(describing: e1))")
        await first.close()
        try Self.expectSound(path, rows: 20)

        options.definingRequests = ["Products?$filter=ID le 20", "Products"]
        // Stopped after two pages: written by upserts, the key index there throughout.
        try proxy.setFault("reset", count: 2, match: "skiptoken=200")
        let (failing, sf, _) = try await OfflineStoreTests.opened(options)
        #expect(sf == .failed)
        await failing.close()
        #expect(try Self.fileState(path) == FileState(keyIndex: true, bulkRow: false))
        #expect(try MembershipTests.rows(path, "SELECT count(*) FROM \"e:Products\"")[0][0] == .integer(200))
        try proxy.clearFaults()
        let (second, s2, e2) = try await OfflineStoreTests.opened(options)
        #expect(s2 == .open, "\(String(describing: e2))")
        // The 20 rows there already are `ods_members` rows of the second request.
        #expect(try MembershipTests.rows(path, "SELECT count(*) FROM ods_members WHERE request = 2")[0][0] == .integer(20))
        try Self.expectSound(path, rows: 300)
        await second.close()

        // $expand: the products and the categories upserted with their key indexes there.
        var expand = Self.proxied(proxy, "bulk-expand.store", ["Products?$expand=Category"])
        let expandPath = try #require(expand.storePath)
        try proxy.setFault("reset", count: 2, match: "skiptoken=200")
        let (stopped, sx, _) = try await OfflineStoreTests.opened(expand)
        #expect(sx == .failed)
        await stopped.close()
        #expect(try Self.fileState(expandPath) == FileState(keyIndex: true, bulkRow: false))
        #expect(try Self.fileState(expandPath, table: "e:Categories") == FileState(keyIndex: true, bulkRow: false))
        try proxy.clearFaults()
        let (third, s3, e3) = try await OfflineStoreTests.opened(expand)
        #expect(s3 == .open, "\(String(describing: e3))")
        defer { try? third.close() }
        try Self.expectSound(expandPath, rows: 300)
        #expect(try await DownloadRefreshTests.count(third, "Categories") == 10)
    }

    /// A new store file made from the V4 service's metadata and its `Products` table.
    static func products(_ name: String) throws -> (StoreFile, EntityTable) {
        let metadata = try OfflineFixtures.bytes("servers/v4_metadata.xml")
        let model = try MetadataParser.parse(metadata)
        let file = try StoreFile.open(path: OfflineStoreTests.temporaryPath(name), serviceRoot: "http://localhost/service/",
                                      model: model, metadata: metadata, create: true)
        return (file, try #require(file.schema.tables.values.first { $0.sqlName == "e:Products" }))
    }

    /// Pages whose keys come again (in later pages and twice in one page), written by the
    /// bulk load's plain inserts and ended by `BulkLoad.finish`, hold exactly the rows (by
    /// key) the upserts leave; every row stays a member of the request.
    @Test func theBulkLoadEndsWithTheRowsTheUpsertWrites() throws {
        var random = SeededRandom(seed: 7)
        var pages: [[UInt8]] = []
        for p in 0..<6 {
            var items: [String] = []
            for _ in 0..<(40 + Int(random.below(30))) {
                items.append(BatchWriterTests.product(1 + Int(random.below(150)), p, &random, full: true))
            }
            pages.append(BatchWriterTests.page(items))
        }
        var dumps: [[String]] = []
        for bulk in [false, true] {
            let (file, table) = try Self.products("bulk-vs-upsert-\(bulk).store")
            defer { file.writerShared.finalize() }
            let d = try DefiningRequest.make("Products", model: file.model, schema: file.schema, serviceRoot: "http://localhost/service/")
            if bulk { try file.connection.transaction { try BulkLoad(file: file).begin(table, request: 1) } }
            for page in pages {
                let payload = try PayloadDecoder.decode(page, contentType: "application/json", version: .v4, model: file.model,
                                                        entitySet: nil, entityType: table.entityType, target: .entities, spans: true)
                let writer = EntityWriter(file: file, requestID: 1)
                writer.bulk = bulk
                _ = try file.connection.transaction { try writer.writePage(payload, table: d.table, expand: d.expand, isCollection: true) }
            }
            if bulk { try file.connection.transaction { try BulkLoad(file: file).finish(table) } }
            let c = file.connection
            #expect(try c.scalar("SELECT count(*) FROM sqlite_master WHERE name = '\(table.keyIndexName)'") == .integer(1))
            #expect(try c.scalar("PRAGMA integrity_check") == .text("ok"))
            #expect(try c.scalar("""
                SELECT count(*) FROM "e:Products" t WHERE NOT EXISTS
                    (SELECT 1 FROM ods_member_ranges r WHERE r.request = 1 AND r.lo <= t."@rid" AND r.hi >= t."@rid")
                    AND NOT EXISTS (SELECT 1 FROM ods_members m WHERE m.request = 1 AND m.rid = t."@rid")
                """) == .integer(0))
            let columns = table.columns.map(\.quoted).joined(separator: ", ")
            dumps.append(try c.rows("SELECT \(columns), \"@etag\", \"@type\", \"@extra\", \"@state\" FROM \(table.quoted) ORDER BY ID").map { "\($0)" })
        }
        #expect(dumps[0].count > 100)
        #expect(BatchWriterTests.difference(dumps[0], dumps[1]) == nil)
    }

    /// The dedupe alone: among rows of one key the largest row id stays; rows with a NULL
    /// key column stay (the UNIQUE index, like the upsert's conflict, never matches NULLs).
    @Test func removeEarlierCopiesKeepsTheLargestRowID() throws {
        let (file, table) = try Self.products("bulk-dedupe.store")
        defer { file.writerShared.finalize() }
        let c = file.connection
        try BulkLoad(file: file).begin(table, request: 1)
        for (rid, id, name) in [(1, 7, "a"), (2, 8, "b"), (3, 7, "c"), (4, 9, "d"), (5, 8, "e"), (6, 7, "f")] as [(Int64, Int64, String)] {
            try c.run("INSERT INTO \(table.quoted) (\"@rid\", ID, Name) VALUES (?1, ?2, ?3)", [.integer(rid), .integer(id), .text(name)])
        }
        try c.run("INSERT INTO \(table.quoted) (\"@rid\", ID, Name) VALUES (7, NULL, 'n1'), (8, NULL, 'n2')")
        #expect(try BulkLoad(file: file).inProgress().map(\.request) == [1])
        try BulkLoad(file: file).finish(table)
        let rows = try c.rows("SELECT \"@rid\", ID, Name FROM \(table.quoted) ORDER BY \"@rid\"")
        #expect(rows.map { $0[2] } == [.text("d"), .text("e"), .text("f"), .text("n1"), .text("n2")])
        #expect(try BulkLoad(file: file).inProgress().isEmpty)
        #expect(try c.scalar("SELECT count(*) FROM sqlite_master WHERE name = '\(table.keyIndexName)'") == .integer(1))
        #expect(try c.scalar("PRAGMA integrity_check") == .text("ok"))
    }
}
