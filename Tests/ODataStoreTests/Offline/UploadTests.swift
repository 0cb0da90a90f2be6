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
}
