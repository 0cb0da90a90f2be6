import Foundation
import Synchronization
import Testing
@testable import ODataStore

/// Upload of local changes to the real V4 service: confirmed changes leave the queue with
/// what the service answered (keys it gave replace local keys, also in foreign keys), a change
/// the service refuses goes to the error archive while the rest goes on, and the service's
/// data afterwards is what the app did offline.
@Suite("Offline store: upload", .serialized, .timeLimit(.minutes(3)))
struct UploadTests {
    static func upload(_ store: Store) async throws -> (Result<UploadResult, ODataStoreError>, [UploadProgress]) {
        let reports = Mutex<[UploadProgress]>([])
        let result = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Result<UploadResult, ODataStoreError>, Error>) in
            do {
                try store.upload(progress: { _, p in reports.withLock { $0.append(p) } }) { _, r in c.resume(returning: r) }
            } catch {
                c.resume(throwing: error)
            }
        }
        return (result, reports.withLock { $0 })
    }

    @Test func uploadsInOrderMapsKeysAndArchivesARefusedChange() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("upload.store")
        options.definingRequests = ["Products", "Categories", "Customers"]
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }

        // Someone else changes Products(9) on the service meanwhile: our change of it is stale.
        _ = try await LocalWriteTests.run(online, .update, "Products(9)", body: #"{"Name":"Changed online"}"#) { try $0.setETag("W/\"1\"") }.get()

        // Offline: a category the service will key, a product in it, other changes.
        let category = try await LocalWriteTests.run(store, .create, "Categories", body: #"{"Name":"Made offline"}"#).get()
        let localCategory = try #require(try JSONValue.parse(category.json)["ID"]?.int64Value)
        #expect(localCategory < 0)
        #expect(try store.keyMappings() == [KeyMapping(entitySet: "Categories", localPath: "Categories(\(localCategory))", serverPath: nil)])
        _ = try await LocalWriteTests.run(store, .create, "Products",
            body: #"{"Name":"In the new category","Price":"2.50","Stock":"7","Discontinued":false,"CategoryID":\#(localCategory)}"#).get()
        _ = try await LocalWriteTests.run(store, .create, "Customers", body: #"{"CustomerID":"UPL1","CompanyName":"Uploaded","City":"Zug"}"#).get()
        _ = try await LocalWriteTests.run(store, .update, "Products(7)", body: #"{"Price":"70.70"}"#).get()
        _ = try await LocalWriteTests.run(store, .update, "Products(9)", body: #"{"Name":"Changed offline"}"#).get()
        _ = try await LocalWriteTests.run(store, .delete, "Products(8)").get()
        #expect(try store.pendingChangeCount() == 6)

        let (result, reports) = try await Self.upload(store)
        let r = try result.get()
        #expect(r == UploadResult(confirmed: 5, failed: 1, remaining: 0), "\(r)")
        #expect(reports.map(\.sent) == [1, 2, 3, 4, 5, 6])
        #expect(reports.last == UploadProgress(sent: 6, total: 6, failed: 1))
        #expect(try store.pendingChangeCount() == 0)

        // The service has what was done offline, the new category under the key it gave.
        let categories = try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Categories?$filter=Name eq 'Made offline'&$expand=Products").get().json)
        let created = try #require(categories["value"]?.arrayValue?.first)
        let serverCategory = try #require(created["ID"]?.int64Value)
        #expect(serverCategory == 11)
        // Both creates had local keys; each now maps to the service's key.
        let mappings = try store.keyMappings()
        #expect(mappings.count == 2)
        #expect(mappings.first == KeyMapping(entitySet: "Categories", localPath: "Categories(\(localCategory))",
                                             serverPath: "Categories(\(serverCategory))"))
        #expect(mappings.last?.entitySet == "Products")
        #expect(mappings.last?.serverPath?.hasPrefix("Products(") == true && mappings.last?.localPath.hasPrefix("Products(-") == true)
        // odatapy keeps navigation links apart from foreign keys (a product created with
        // CategoryID is not in the category's $expand): check the foreign key instead.
        let inCategory = try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Products?$filter=CategoryID eq \(serverCategory)").get().json)
        #expect(inCategory["value"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["In the new category"])
        #expect(try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Customers('UPL1')").get().json)["City"] == .string("Zug"))
        #expect(try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Products(7)").get().json)["Price"] == .string("70.70"))
        #expect(try await LocalWriteTests.run(online, .read, "Products(8)").failureCode == .notFound)
        #expect(try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Products(9)").get().json)["Name"] == .string("Changed online"))

        // Locally: the service's key replaced the local one, in the product's foreign key too.
        #expect(try await LocalWriteTests.run(store, .read, "Categories(\(localCategory))").failureCode == .notFound)
        let local = try JSONValue.parse(try await LocalWriteTests.run(store, .read, "Categories(\(serverCategory))?$expand=Products").get().json)
        #expect(local["Products"]?.arrayValue?.count == 1)
        #expect(local["@odatastore.pending"] == nil)
        // The refused change: the entity says so.
        let nine = try JSONValue.parse(try await LocalWriteTests.run(store, .read, "Products(9)").get().json)
        #expect(nine["@odatastore.error"] == .bool(true))
        #expect(nine["Name"] == .string("Changed offline"))
        // A second upload has nothing to send.
        let (again, _) = try await Self.upload(store)
        #expect(try again.get() == UploadResult(confirmed: 0, failed: 0, remaining: 0))
    }

    static func revert(_ store: Store, _ id: Int64) async throws -> Result<Void, ODataStoreError> {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Result<Void, ODataStoreError>, Error>) in
            do {
                try store.revertError(id: id) { _, r in c.resume(returning: r) }
            } catch {
                c.resume(throwing: error)
            }
        }
    }

    /// The archive is readable (API and `ErrorArchive` collection); an entry retried with a
    /// new If-Match reaches the service; an entry reverted puts the service's version back.
    @Test func archivedChangesAreReadRetriedAndReverted() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("archive.store")
        options.definingRequests = ["Products"]
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }

        // Both products change online after the download: our changes of them are stale.
        _ = try await LocalWriteTests.run(online, .update, "Products(3)", body: #"{"Name":"Three online"}"#) { try $0.setETag("*") }.get()
        _ = try await LocalWriteTests.run(online, .update, "Products(4)", body: #"{"Name":"Four online"}"#) { try $0.setETag("*") }.get()
        _ = try await LocalWriteTests.run(store, .update, "Products(3)", body: #"{"Name":"Three offline"}"#).get()
        _ = try await LocalWriteTests.run(store, .update, "Products(4)", body: #"{"Name":"Four offline"}"#).get()
        let (first, _) = try await Self.upload(store)
        #expect(try first.get() == UploadResult(confirmed: 0, failed: 2, remaining: 0))

        let archive = try store.errorArchive()
        #expect(archive.count == 2)
        #expect(archive.map(\.httpStatus) == [412, 412])
        #expect(archive.map(\.path) == ["Products(3)", "Products(4)"])
        #expect(archive.allSatisfy { $0.entitySet == "Products" && $0.method == "PATCH" })
        #expect(archive.first?.body?.contains("Three offline") == true)
        // The same as a collection.
        let read = try JSONValue.parse(try await LocalWriteTests.run(store, .read, "ErrorArchive").get().json)
        #expect(read["value"]?.arrayValue?.count == 2)
        #expect(read["value"]?.arrayValue?.first?["HTTPStatusCode"] == .number("412"))
        let one = try JSONValue.parse(try await LocalWriteTests.run(store, .read, "ErrorArchive(\(archive[1].id))").get().json)
        #expect(one["RequestURL"] == .string("Products(4)"))
        #expect(try await LocalWriteTests.run(store, .read, "ErrorArchive(999999)").failureCode == .notFound)
        #expect(throws: ODataStoreError.self) { try store.retryError(id: 999999) }

        // Retry the first with If-Match * and a correction: the service takes it.
        try store.retryError(id: archive[0].id, body: #"{"Stock":"33"}"#, etag: "*")
        #expect(try store.pendingChangeCount() == 1)
        #expect(try store.errorArchive().map(\.id) == [archive[1].id])
        let (second, _) = try await Self.upload(store)
        #expect(try second.get() == UploadResult(confirmed: 1, failed: 0, remaining: 0))
        let three = try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Products(3)").get().json)
        #expect(three["Name"] == .string("Three offline"))
        #expect(three["Stock"] == .string("33") || three["Stock"] == .number("33"))

        // Revert the second: the local entity is the service's again, nothing pending.
        try await Self.revert(store, archive[1].id).get()
        #expect(try store.errorArchive().isEmpty)
        #expect(try store.pendingChangeCount() == 0)
        let four = try JSONValue.parse(try await LocalWriteTests.run(store, .read, "Products(4)").get().json)
        #expect(four["Name"] == .string("Four online"))
        #expect(four["@odatastore.error"] == nil)
        #expect(four["@odatastore.pending"] == nil)
        if case .failure(let e) = try await Self.revert(store, archive[1].id) { #expect(e.code == .notFound) } else { Issue.record("a second revert of the same entry succeeded") }
    }

    /// The service applied a change but its answer was lost (the connection reset after the
    /// service acted): the next upload sends it again, the service refuses the repeat (412:
    /// the ETag moved; 409: the key exists), and reading the entity back shows the change is
    /// there, so it counts as done: nothing doubled, nothing archived.
    @Test func changesWhoseAnswerWasLostAreConfirmedByReadingBack() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("lost.store")
        // One request per change, so the proxy can fault the one change by its URL (the same
        // cases through $batch: UploadFaultTests).
        options.uploadBatchSize = 1
        options.definingRequests = ["Products", "Customers"]
        options.limits.maxRetries = 0
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }

        _ = try await LocalWriteTests.run(store, .update, "Products(12)", body: #"{"Price":"12.50","Name":"Twelve"}"#).get()
        _ = try await LocalWriteTests.run(store, .create, "Customers", body: #"{"CustomerID":"LOST1","CompanyName":"Lost answer"}"#).get()
        // Upload 1: the update's answer is lost (the upload stops). Upload 2: the update is
        // refused (412), read back, confirmed; the create's answer is lost. Upload 3: the
        // create is refused (409), read back, confirmed.
        try proxy.setFault("reset_after", count: 1, match: "Products(12)")
        let (first, _) = try await Self.upload(store)
        #expect(throws: ODataStoreError.self) { try first.get() }
        try proxy.setFault("reset_after", count: 1, match: "Customers")
        let (second, reports) = try await Self.upload(store)
        #expect(throws: ODataStoreError.self) { try second.get() }
        #expect(reports.last == UploadProgress(sent: 1, total: 2, failed: 0))
        let (result, _) = try await Self.upload(store)
        let archived = try store.errorArchive()
        #expect(try result.get() == UploadResult(confirmed: 1, failed: 0, remaining: 0), "\(archived)")
        #expect(try store.pendingChangeCount() == 0)
        #expect(try store.errorArchive().isEmpty)
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        let twelve = try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Products(12)").get().json)
        #expect(twelve["Name"] == .string("Twelve"))
        let lost = try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Customers?$filter=CustomerID eq 'LOST1'").get().json)
        #expect(lost["value"]?.arrayValue?.count == 1)
        // The local row carries the service's current ETag: a further change goes through.
        _ = try await LocalWriteTests.run(store, .update, "Products(12)", body: #"{"Stock":"3"}"#).get()
        let (after, _) = try await Self.upload(store)
        #expect(try after.get() == UploadResult(confirmed: 1, failed: 0, remaining: 0))
    }

    /// A create of an entity the service keys whose answer was lost is not sent again (a
    /// service that ignores Repeatability-Request-ID would make a second one): it goes to the
    /// archive as uncertain, with the request, and the app decides.
    @Test func aServerKeyedCreateWhoseAnswerWasLostIsArchivedAsUncertain() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("uncertain.store")
        // One request per change, so the proxy can fault the one change by its URL (the same
        // cases through $batch: UploadFaultTests).
        options.uploadBatchSize = 1
        options.definingRequests = ["Categories"]
        options.limits.maxRetries = 0
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        let created = try JSONValue.parse(try await LocalWriteTests.run(store, .create, "Categories", body: #"{"Name":"Uncertain"}"#).get().json)
        let local = try #require(created["ID"]?.int64Value)
        try proxy.setFault("reset_after", count: 1, match: "Categories")
        let (first, _) = try await Self.upload(store)
        #expect(throws: ODataStoreError.self) { try first.get() }
        let (second, _) = try await Self.upload(store)
        #expect(try second.get() == UploadResult(confirmed: 0, failed: 1, remaining: 0))
        let archive = try store.errorArchive()
        #expect(archive.count == 1)
        #expect(archive.first?.httpStatus == 0 && archive.first?.method == "POST")
        #expect(archive.first?.body?.contains("Uncertain") == true)
        #expect(archive.first?.message.contains("answer never arrived") == true)
        // The service made it once; the app reverts the local copy and downloads instead.
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        let there = try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Categories?$filter=Name eq 'Uncertain'").get().json)
        #expect(there["value"]?.arrayValue?.count == 1)
        try await Self.revert(store, try #require(archive.first?.id)).get()
        #expect(try await LocalWriteTests.run(store, .read, "Categories(\(local))").failureCode == .notFound)
        #expect(try store.pendingChangeCount() == 0)
        let (_, _) = try await DownloadRefreshTests.download(store)
        let local2 = try JSONValue.parse(try await LocalWriteTests.run(store, .read, "Categories?$filter=Name eq 'Uncertain'").get().json)
        #expect(local2["value"]?.arrayValue?.count == 1)
    }

    /// Deep inserts and bindings offline: a category with its products, a product bound to an
    /// existing category, a product with a new category; each entity a queued create, sent
    /// in an order the service can follow, the keys it gives put in place.
    @Test func deepInsertsAndBindingsAreUploaded() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("deep.store")
        options.definingRequests = ["Categories", "Products"]
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        func product(_ name: String) -> String { #""Name":"\#(name)","Price":"1.00","Stock":"1","Discontinued":false"# }

        let deep = try JSONValue.parse(try await LocalWriteTests.run(store, .create, "Categories",
            body: #"{"Name":"Deep","Products":[{\#(product("D1"))},{\#(product("D2"))}]}"#).get().json)
        let deepID = try #require(deep["ID"]?.int64Value)
        let local = try JSONValue.parse(try await LocalWriteTests.run(store, .read, "Categories(\(deepID))?$expand=Products").get().json)
        #expect(local["Products"]?.arrayValue?.compactMap { $0["Name"]?.stringValue }.sorted() == ["D1", "D2"])
        let bound = try JSONValue.parse(try await LocalWriteTests.run(store, .create, "Products",
            body: #"{\#(product("Bound")),"Category@odata.bind":"Categories(3)"}"#).get().json)
        #expect(bound["CategoryID"] == .number("3"))
        let nested = try JSONValue.parse(try await LocalWriteTests.run(store, .create, "Products",
            body: #"{\#(product("WithNewCategory")),"Category":{"Name":"Nested category"}}"#).get().json)
        let nestedCategory = try #require(nested["CategoryID"]?.int64Value)
        #expect(nestedCategory < 0)
        #expect(try await LocalWriteTests.run(store, .read, "Categories(\(nestedCategory))").get().json.contains("Nested category"))
        #expect(try store.pendingChangeCount() == 6)
        // Refused as the service would, or as the store cannot apply.
        #expect(try await LocalWriteTests.run(store, .create, "Products",
            body: #"{\#(product("X")),"Category@odata.bind":"Products(1)"}"#).failureCode == .http)
        #expect(try await LocalWriteTests.run(store, .create, "Categories",
            body: #"{"Name":"X","Products":5}"#).failureCode == .http)
        #expect(try store.pendingChangeCount() == 6)

        let (result, _) = try await Self.upload(store)
        #expect(try result.get() == UploadResult(confirmed: 6, failed: 0, remaining: 0))
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        func one(_ path: String) async throws -> JSONValue {
            try #require(try JSONValue.parse(try await LocalWriteTests.run(online, .read, path).get().json)["value"]?.arrayValue?.first)
        }
        let deepOnline = try #require(try await one("Categories?$filter=Name eq 'Deep'")["ID"]?.int64Value)
        let children = try JSONValue.parse(try await LocalWriteTests.run(online, .read, "Products?$filter=CategoryID eq \(deepOnline)").get().json)
        #expect(children["value"]?.arrayValue?.compactMap { $0["Name"]?.stringValue }.sorted() == ["D1", "D2"])
        #expect(try await one("Products?$filter=Name eq 'Bound'")["CategoryID"] == .number("3"))
        let nestedOnline = try #require(try await one("Categories?$filter=Name eq 'Nested category'")["ID"]?.int64Value)
        #expect(try await one("Products?$filter=Name eq 'WithNewCategory'")["CategoryID"] == .number(String(nestedOnline)))
    }
}
