import Foundation
import Testing
@testable import ODataStore

/// Local changes on an offline store (V4 service for the first download, then no service):
/// written to the file and queued in one transaction, visible to reads at once, combined in
/// the queue where equivalent, refused as the service would refuse them.
@Suite("Offline store: local writes", .serialized, .timeLimit(.minutes(3)))
struct LocalWriteTests {
    static func run(_ store: Store, _ mode: RequestMode, _ path: String, body: String? = nil,
                    configure: (Request) throws -> Void = { _ in }) async throws -> Result<Response, RequestFailure> {
        let request = try store.makeRequest(mode, path: path, body: body)
        try configure(request)
        return try await withCheckedThrowingContinuation { continuation in
            do {
                try request.setCompletion { _, outcome in continuation.resume(returning: outcome) }
                try request.start()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    static func json(_ r: Response) throws -> JSONValue { try JSONValue.parse(r.json) }

    @Test func writesAreLocalImmediateQueuedAndDurable() async throws {
        let server = try TestServer.start(.v4)
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("writes.store")
        options.definingRequests = ["Products", "Categories", "Customers"]
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        server.stop()  // everything below is offline

        // Create with a key: 201, the entity as stored, pending.
        let created = try await Self.run(store, .create, "Customers", body: #"{"CustomerID":"NEW1","CompanyName":"New One","City":"Bern"}"#).get()
        #expect(created.status == 201 && created.isLocal)
        #expect(try Self.json(created)["@odatastore.pending"] == .bool(true))
        #expect(created.header("Location")?.hasSuffix("Customers('NEW1')") == true)
        #expect(try store.pendingChangeCount() == 1)
        // An update of an entity created offline changes nothing in the queue.
        #expect(try await Self.run(store, .update, "Customers('NEW1')", body: #"{"City":"Basel"}"#).get().status == 204)
        #expect(try store.pendingChangeCount() == 1)
        let newOne = try await Self.run(store, .read, "Customers('NEW1')").get()
        #expect(try Self.json(newOne)["City"] == .string("Basel"))

        // Create without the key the service generates: a local key, usable at once.
        let product = try await Self.run(store, .create, "Products",
            body: #"{"Name":"Offline","Price":"1.50","Stock":"9007199254740999","Discontinued":false,"CategoryID":2}"#).get()
        let localID = try #require(try Self.json(product)["ID"]?.int64Value)
        #expect(localID < 0)
        #expect(try await Self.run(store, .read, "Products(\(localID))").get().status == 200)
        let inCategory = try await Self.run(store, .read, "Categories(2)/Products?$filter=ID lt 0").get()
        #expect(inCategory.entityCount == 1)
        #expect(try store.pendingChangeCount() == 2)

        // Updates of a downloaded entity: one queued merge, widened; reads see the change.
        #expect(try await Self.run(store, .update, "Products(7)", body: #"{"Price":"10.10"}"#).get().status == 204)
        #expect(try await Self.run(store, .update, "Products(7)", body: #"{"Name":"Seven"}"#).get().status == 204)
        #expect(try store.pendingChangeCount() == 3)
        let seven = try Self.json(try await Self.run(store, .read, "Products(7)").get())
        #expect(seven["Price"] == .string("10.10") && seven["Name"] == .string("Seven") && seven["@odatastore.pending"] == .bool(true))
        let cheap = try await Self.run(store, .read, "Products?$filter=Price eq 10.1").get()
        #expect(cheap.entityCount == 1)

        // A stale If-Match is the service's 412; a matching one passes.
        let stale = try await Self.run(store, .update, "Products(9)", body: #"{"Name":"x"}"#) { try $0.setETag("W/\"0\"") }
        guard case .failure(let f) = stale else { Issue.record("stale ETag accepted"); return }
        #expect(f.error.code == .conflict && f.error.httpStatus == 412)
        #expect(try await Self.run(store, .update, "Products(9)", body: #"{"Name":"Nine"}"#) { try $0.setETag("W/\"1\"") }.get().status == 204)

        // What the service would refuse.
        for (mode, path, body, status) in [(RequestMode.update, "Products(9)", #"{"Nope":1}"#, 400),
                                           (.update, "Products(9)", #"{"Stock":"many"}"#, 400),
                                           (.update, "Products(9)", #"{"ID":10}"#, 400),
                                           (.update, "Products(999)", #"{"Name":"x"}"#, 404),
                                           (.create, "Customers", #"{"CustomerID":"ALFKI","CompanyName":"dup"}"#, 409),
                                           (.delete, "Products(999)", nil, 404)] as [(RequestMode, String, String?, Int)] {
            let r = try await Self.run(store, mode, path, body: body)
            guard case .failure(let e) = r else { Issue.record("\(path) \(body ?? "") accepted"); continue }
            #expect(e.error.httpStatus == status, "\(path) \(body ?? ""): \(e.error)")
        }

        // Delete: gone locally and queued; deleting what was created offline cancels its create.
        #expect(try await Self.run(store, .delete, "Products(8)").get().status == 204)
        #expect(try await Self.run(store, .read, "Products(8)").failureCode == .notFound)
        #expect(try store.pendingChangeCount() == 5)
        #expect(try await Self.run(store, .delete, "Customers('NEW1')").get().status == 204)
        #expect(try store.pendingChangeCount() == 4)

        // PUT replaces: what the body leaves out becomes null.
        #expect(try await Self.run(store, .updatePut, "Customers('ALFKI')", body: #"{"CustomerID":"ALFKI","CompanyName":"Replaced"}"#).get().status == 204)
        let alfki = try Self.json(try await Self.run(store, .read, "Customers('ALFKI')").get())
        #expect(alfki["City"] == .null && alfki["CompanyName"] == .string("Replaced"))
        #expect(try store.pendingChangeCount() == 5)
        await store.close()

        // Reopen: every acknowledged change is there.
        var reopen = options
        reopen.definingRequests = []
        let (again, state2, _) = try await OfflineStoreTests.opened(reopen)
        #expect(state2 == .open)
        #expect(try again.pendingChangeCount() == 5)
        let reread = try Self.json(try await Self.run(again, .read, "Products(7)").get())
        #expect(reread["Name"] == .string("Seven"))
        #expect(try await Self.run(again, .read, "Products(8)").failureCode == .notFound)
        #expect(try await Self.run(again, .read, "Products(\(localID))").get().status == 200)
        await again.close()
    }

    @Test func writesOutsideTheDefiningRequestsAreRefused() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("scope.store")
        options.definingRequests = ["Categories"]
        let (store, _, _) = try await OfflineStoreTests.opened(options)
        defer { try? store.close() }
        #expect(try await Self.run(store, .create, "Customers", body: #"{"CustomerID":"X","CompanyName":"x"}"#).failureCode == .notInScope)
        #expect(try await Self.run(store, .update, "Products(1)", body: #"{"Name":"x"}"#).failureCode == .notInScope)
        #expect(try await Self.run(store, .function, "TotalStock()").failureCode == .unsupported)
        #expect(try store.pendingChangeCount() == 0)
    }
}
