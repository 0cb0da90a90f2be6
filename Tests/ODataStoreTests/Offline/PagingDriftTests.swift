import Foundation
import Synchronization
import Testing
@testable import ODataStore

/// A service whose paging drifts (an entity comes again on a later page, or twice on one), as
/// the fault proxy answers a page in the service's own words: the store keeps one row per key,
/// the later copy, every row a member of the request, the key index as `EntityTable.ddl`
/// makes it, a sound file; across a failure and a resume too.
@Suite("Offline store: paging drift", .serialized, .timeLimit(.minutes(3)))
struct PagingDriftTests {
    static let keyIndex = "e:Products@key"

    /// The checks every finished download passes: the key index as `EntityTable.ddl` makes it,
    /// no key twice, every row a member of a request, a sound file.
    static func expectSound(_ path: String, rows: Int64) throws {
        let sql = try MembershipTests.rows(path, "SELECT sql FROM sqlite_master WHERE name = '\(keyIndex)'")
        #expect(sql.first?[0] == .text("CREATE UNIQUE INDEX \"e:Products@key\" ON \"e:Products\" (\"ID\")"), "\(sql)")
        #expect(try MembershipTests.rows(path, "SELECT count(*), count(DISTINCT ID) FROM \"e:Products\"")[0] == [.integer(rows), .integer(rows)])
        let orphans = try MembershipTests.rows(path, """
            SELECT count(*) FROM "e:Products" t WHERE NOT EXISTS (SELECT 1 FROM ods_members m WHERE m.rid = t."@rid")
                AND NOT EXISTS (SELECT 1 FROM ods_member_ranges r WHERE r.lo <= t."@rid" AND r.hi >= t."@rid")
            """)
        #expect(orphans[0][0] == .integer(0))
        #expect(try MembershipTests.rows(path, "PRAGMA integrity_check")[0][0] == .text("ok"))
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

        // Page 3 fails the first opening: the pages before are in the file, each key once.
        try proxy.setFault("reset", count: 2, match: "skiptoken=200")
        var options = Self.proxied(proxy, "drift-twice.store", ["Products"])
        let path = try #require(options.storePath)
        let (failing, s1, _) = try await OfflineStoreTests.opened(options)
        #expect(s1 == .failed)
        await failing.close()
        #expect(try MembershipTests.rows(path, "SELECT count(*), count(DISTINCT ID) FROM \"e:Products\"")[0] == [.integer(200), .integer(200)])
        #expect(try MembershipTests.rows(path, "SELECT Name FROM \"e:Products\" WHERE ID = 3")[0][0] == .text("Drifted 3"))

        // The next opening resumes. A read started while it opens (the store holds it until it
        // is open) sees the store as it opens.
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
        // Its other properties are the service's.
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
}
