import Foundation
import Synchronization
import Testing
@testable import ODataStore

/// Downloads after opening, against the real V4 service: a delta (odatapy answers
/// `Prefer: odata.track-changes` with a delta link) brings the service's changes and removals;
/// a full download of a defining request with `$expand` (no delta) replaces what it brought
/// down; local changes not uploaded stay on top of both; defining requests are added and
/// removed on an open store.
@Suite("Offline store: download after opening", .serialized, .timeLimit(.minutes(3)))
struct DownloadRefreshTests {
    static func download(_ store: Store, _ paths: [String]? = nil) async throws -> (Result<Void, ODataStoreError>, [DownloadProgress]) {
        let reports = Mutex<[DownloadProgress]>([])
        let result = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Result<Void, ODataStoreError>, Error>) in
            do {
                try store.download(paths, progress: { _, p in reports.withLock { $0.append(p) } }) { _, r in c.resume(returning: r) }
            } catch {
                c.resume(throwing: error)
            }
        }
        return (result, reports.withLock { $0 })
    }

    static func read(_ store: Store, _ path: String) async throws -> JSONValue {
        try JSONValue.parse(try await LocalWriteTests.run(store, .read, path).get().json)
    }

    static func count(_ store: Store, _ set: String) async throws -> Int64 {
        try #require(try await Self.read(store, "\(set)/$count")["value"]?.int64Value)
    }

    @Test func deltaBringsChangesAndRemovalsUnderLocalChanges() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("delta.store")
        options.definingRequests = ["Products", "Customers"]
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }

        // Local changes first: an update of 5, a delete of 6.
        _ = try await LocalWriteTests.run(store, .update, "Products(5)", body: #"{"Name":"Five local"}"#).get()
        _ = try await LocalWriteTests.run(store, .delete, "Products(6)").get()
        // The service changes meanwhile, also the entities changed locally.
        _ = try await LocalWriteTests.run(online, .update, "Products(3)", body: #"{"Name":"Three fresh"}"#) { try $0.setETag("*") }.get()
        _ = try await LocalWriteTests.run(online, .delete, "Products(4)") { try $0.setETag("*") }.get()
        _ = try await LocalWriteTests.run(online, .update, "Products(5)", body: #"{"Name":"Five online"}"#) { try $0.setETag("*") }.get()
        _ = try await LocalWriteTests.run(online, .update, "Products(6)", body: #"{"Name":"Six online"}"#) { try $0.setETag("*") }.get()
        _ = try await LocalWriteTests.run(online, .create, "Customers", body: #"{"CustomerID":"DELTA","CompanyName":"New online","City":"Bern"}"#).get()

        let (result, reports) = try await Self.download(store)
        try result.get()
        // A delta: only the changes came down, not the 300 products again.
        let products = try #require(reports.last { $0.definingRequest == "Products" })
        #expect(products.requestFinished)
        #expect(products.entities == 4, "\(products)")
        #expect(try #require(reports.last { $0.definingRequest == "Customers" }).entities == 1)

        #expect(try await Self.read(store, "Products(3)")["Name"] == .string("Three fresh"))
        #expect(try await LocalWriteTests.run(store, .read, "Products(4)").failureCode == .notFound)
        #expect(try await Self.read(store, "Customers('DELTA')")["City"] == .string("Bern"))
        // Local changes on top.
        let five = try await Self.read(store, "Products(5)")
        #expect(five["Name"] == .string("Five local"))
        #expect(five["@odatastore.pending"] == .bool(true))
        #expect(try await LocalWriteTests.run(store, .read, "Products(6)").failureCode == .notFound)
        #expect(try store.pendingChangeCount() == 2)
        #expect(try await Self.count(store, "Products") == 298)

        // Nothing changed since: the next delta is empty.
        let (again, quiet) = try await Self.download(store, ["Products"])
        try again.get()
        #expect(quiet.last?.entities == 0)
        #expect(try await Self.read(store, "Products(3)")["Name"] == .string("Three fresh"))
    }

    @Test func fullDownloadReplacesWhatTheRequestBroughtDown() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("full.store")
        options.definingRequests = ["Categories?$expand=Products"]
        options.downloadPageSize = 3
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        #expect(try await Self.count(store, "Products") == 300)

        // Product 20 changed locally, then deleted on the service; 10 and 30 deleted there too.
        _ = try await LocalWriteTests.run(store, .update, "Products(20)", body: #"{"Stock":"1"}"#).get()
        for id in [10, 20, 30] {
            // odatapy keeps a deleted entity in the navigation links that pointed at it (its
            // category's $expand still lists it, then 404s): unlink it first, as a service
            // that keeps its links consistent would. All three are in category 10.
            _ = try await LocalWriteTests.run(online, .delete, "Categories(10)/Products/$ref?$id=\(server.serviceRoot)Products(\(id))").get()
            _ = try await LocalWriteTests.run(online, .delete, "Products(\(id))") { try $0.setETag("*") }.get()
        }
        _ = try await LocalWriteTests.run(online, .update, "Categories(2)", body: #"{"Name":"Renamed online"}"#) { try $0.setETag("*") }.get()

        // Interrupted after its first page: the old rows stay readable meanwhile.
        let cancelled = Mutex(false)
        let first = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Result<Void, ODataStoreError>, Error>) in
            do {
                try store.download(progress: { s, _ in
                    if !cancelled.withLock({ let was = $0; $0 = true; return was }) { try? s.cancelDownload() }
                }) { _, r in c.resume(returning: r) }
            } catch {
                c.resume(throwing: error)
            }
        }
        if case .failure(let e) = first { #expect(e.code == .cancelled) } else { Issue.record("the cancelled download succeeded") }
        #expect(try await Self.read(store, "Products(10)")["ID"] == .number("10"))

        // Resumed: the rows the service no longer sends are gone, the one changed locally stays.
        let (result, reports) = try await Self.download(store)
        try result.get()
        #expect(reports.last?.requestFinished == true)
        #expect(try await LocalWriteTests.run(store, .read, "Products(10)").failureCode == .notFound)
        #expect(try await LocalWriteTests.run(store, .read, "Products(30)").failureCode == .notFound)
        let twenty = try await Self.read(store, "Products(20)")
        #expect(twenty["@odatastore.pending"] == .bool(true))
        #expect(try await Self.count(store, "Products") == 298)
        #expect(try await Self.read(store, "Categories(2)")["Name"] == .string("Renamed online"))
        let category1 = try await Self.read(store, "Categories(1)?$expand=Products($select=ID)")
        #expect(category1["Products"]?.arrayValue?.count == 30)
    }

    @Test func definingRequestsAreAddedAndRemoved() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("add.store")
        options.definingRequests = ["Products?$filter=ID le 20"]
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }

        #expect(try await LocalWriteTests.run(store, .read, "Customers").failureCode == .notInScope)
        try store.addDefiningRequest("Customers")
        try store.addDefiningRequest("Products?$filter=ID gt 290")
        try store.addDefiningRequest("Customers")   // again: no error
        #expect(try store.offlineInfo().definingRequests.map(\.path) == ["Products?$filter=ID le 20", "Customers", "Products?$filter=ID gt 290"])
        let (result, _) = try await Self.download(store, ["Customers", "Products?$filter=ID gt 290"])
        try result.get()
        #expect(try await Self.count(store, "Customers") > 0)
        #expect(try await Self.count(store, "Products") == 30)

        // A local change in what is removed stays until uploaded.
        _ = try await LocalWriteTests.run(store, .update, "Products(295)", body: #"{"Stock":"2"}"#).get()
        try store.removeDefiningRequest("Products?$filter=ID gt 290")
        #expect(try await Self.count(store, "Products") == 21)
        #expect(try await Self.read(store, "Products(295)")["@odatastore.pending"] == .bool(true))
        try store.removeDefiningRequest("Customers")
        #expect(try await LocalWriteTests.run(store, .read, "Customers").failureCode == .notInScope)
        #expect(try store.offlineInfo().definingRequests.map(\.path) == ["Products?$filter=ID le 20"])

        // Errors: unknown, last one, bad path.
        #expect(throws: ODataStoreError.self) { try store.removeDefiningRequest("Customers") }
        do {
            try store.removeDefiningRequest("Products?$filter=ID le 20")
            Issue.record("the last defining request was removed")
        } catch {
            #expect(error.code == .invalidArgument)
        }
        #expect(throws: ODataStoreError.self) { try store.addDefiningRequest("NoSuchSet") }
        if case .failure(let e) = try await Self.download(store, ["Customers"]).0 { #expect(e.code == .notFound) } else {
            Issue.record("a removed defining request was downloaded")
        }
        // Reopened: the same defining requests.
        await store.close()
        var again = options
        again.definingRequests = []
        let (reopened, s2, e2) = try await OfflineStoreTests.opened(again)
        #expect(s2 == .open, "\(String(describing: e2))")
        defer { try? reopened.close() }
        #expect(try reopened.offlineInfo().definingRequests.map(\.path) == ["Products?$filter=ID le 20"])
    }

    /// A store that was open once reopens from its file without the network, even when a
    /// refresh was interrupted and a defining request was added but never downloaded: they
    /// wait for the next download (which resumes the refresh). A defining request named in
    /// the options that never came down is downloaded by the open.
    @Test func reopeningNeedsNoNetworkForRefreshesAndAddedRequests() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("reopen-refresh.store")
        options.definingRequests = ["Products", "Categories"]
        options.downloadPageSize = 100
        options.limits.maxRetries = 0
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        try store.addDefiningRequest("Customers")
        // A refresh of Products (a delta: odatapy gives delta links) that the service fails.
        try proxy.setFault("http500", count: -1, match: "Products")
        let (interrupted, _) = try await Self.download(store, ["Products"])
        #expect(throws: ODataStoreError.self) { try interrupted.get() }
        await store.close()

        // The service gone: the store opens from its file, everything it had is there.
        try proxy.clearFaults()
        try proxy.setFault("reset", count: -1)
        let (reopened, s2, e2) = try await OfflineStoreTests.opened(options)
        #expect(s2 == .open, "\(String(describing: e2))")
        #expect(try await Self.count(reopened, "Products") == 300)
        #expect(try await Self.count(reopened, "Customers") == 0)
        let info = try reopened.offlineInfo().definingRequests
        #expect(info.map(\.path) == ["Products", "Categories", "Customers"])
        #expect(info.map(\.isComplete) == [false, true, false])
        // Back online: the next download finishes both.
        try proxy.clearFaults()
        let (finished, _) = try await Self.download(reopened)
        try finished.get()
        #expect(try reopened.offlineInfo().definingRequests.allSatisfy(\.isComplete))
        #expect(try await Self.count(reopened, "Customers") > 0)
        await reopened.close()

        // Named in the options but never downloaded: the open brings it.
        var named = options
        named.definingRequests = ["Products", "Products?$filter=ID le 5"]
        let (third, s3, e3) = try await OfflineStoreTests.opened(named)
        #expect(s3 == .open, "\(String(describing: e3))")
        defer { try? third.close() }
        let added = try #require(try third.offlineInfo().definingRequests.first { $0.path == "Products?$filter=ID le 5" })
        #expect(added.isComplete && added.entities == 5)
    }
}

/// The whole round against the real V2 service (pyslet: no $batch, no delta, MERGE): changes
/// made while the service cannot be reached, the store reopened, the upload once it can be,
/// the service's data checked over HTTP, then a full download with the service's own changes.
@Suite("Offline store: V2 round trip", .serialized, .timeLimit(.minutes(3)))
struct OfflineRoundTripV2Tests {
    @Test func writesWhileUnreachableUploadThenDownload() async throws {
        let server = try TestServer.start(.v2)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("v2round.store")
        options.definingRequests = ["Products", "Customers"]
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        let total = try await DownloadRefreshTests.count(store, "Products")

        // The service is out of reach from now on: every connection is reset.
        try proxy.setFault("reset", count: 1_000_000)
        _ = try await LocalWriteTests.run(store, .create, "Customers", body: #"{"CustomerID":"V2NEW","CompanyName":"Made offline"}"#).get()
        _ = try await LocalWriteTests.run(store, .update, "Products(3)", body: #"{"Name":"Three offline"}"#).get()
        _ = try await LocalWriteTests.run(store, .delete, "Products(4)").get()
        await store.close()

        var again = options
        again.definingRequests = []
        let (reopened, s2, e2) = try await OfflineStoreTests.opened(again)
        #expect(s2 == .open, "\(String(describing: e2))")
        defer { try? reopened.close() }
        #expect(try reopened.pendingChangeCount() == 3)
        let (failed, _) = try await UploadTests.upload(reopened)
        if case .success(let r) = failed { #expect(r.confirmed == 0 && r.remaining == 3, "\(r)") }
        #expect(try reopened.pendingChangeCount() == 3)
        #expect(try reopened.errorArchive().isEmpty)

        try proxy.clearFaults()
        let (result, _) = try await UploadTests.upload(reopened)
        #expect(try result.get() == UploadResult(confirmed: 3, failed: 0, remaining: 0))
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        #expect(try await DownloadRefreshTests.read(online, "Customers('V2NEW')")["CompanyName"] == .string("Made offline"))
        #expect(try await DownloadRefreshTests.read(online, "Products(3)")["Name"] == .string("Three offline"))
        #expect(try await LocalWriteTests.run(online, .read, "Products(4)").failureCode == .notFound)

        // The service's own changes; then a full download (no delta links in V2).
        _ = try await LocalWriteTests.run(online, .updateMerge, "Products(5)", body: #"{"Name":"Five online"}"#).get()
        _ = try await LocalWriteTests.run(online, .delete, "Products(6)").get()
        let (downloaded, reports) = try await DownloadRefreshTests.download(reopened)
        try downloaded.get()
        #expect(reports.last { $0.definingRequest == "Products" }?.entities == total - 2)
        #expect(try await DownloadRefreshTests.read(reopened, "Products(5)")["Name"] == .string("Five online"))
        #expect(try await LocalWriteTests.run(reopened, .read, "Products(6)").failureCode == .notFound)
        #expect(try await DownloadRefreshTests.count(reopened, "Products") == total - 2)
        #expect(try await DownloadRefreshTests.read(reopened, "Products(3)")["@odatastore.pending"] == nil)
    }
}
