import Foundation
import Synchronization
import Testing
@testable import ODataStore

/// Change observers of an offline store against the real V4 service (odatapy): a local
/// write, an upload's key mapping, a download, a summary for a large batch, removal from
/// inside the handler, and online stores refusing.
@Suite("Offline store: change observers", .serialized, .timeLimit(.minutes(3)))
struct ObserverTests {
    final class Recorder: Sendable {
        let batches = Mutex<[StoreChanges]>([])
        func record(_ c: StoreChanges) { batches.withLock { $0.append(c) } }
        var all: [EntityChange] { batches.withLock { $0.flatMap(\.changes) } }
        func waitFor(_ done: @escaping ([StoreChanges]) -> Bool) async throws {
            for _ in 0..<400 {
                if batches.withLock({ done($0) }) { return }
                try await Task.sleep(nanoseconds: 25_000_000)
            }
            Issue.record("timed out; got \(batches.withLock { $0 })")
        }
    }

    static func open(_ server: TestServer, _ name: String) async throws -> Store {
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath(name)
        options.definingRequests = ["Products", "Categories"]
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        return store
    }

    @Test func localWritesUploadAndDownloadAreObserved() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let store = try await Self.open(server, "observe.store")
        defer { try? store.close() }
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }

        let products = Recorder(), categories = Recorder()
        let p = try store.observe("Products") { _, c in products.record(c) }
        let c = try store.observe("Categories") { _, c in categories.record(c) }
        defer { p.remove(); c.remove() }

        // Local writes: one batch per write, with the key and the kind.
        _ = try await LocalWriteTests.run(store, .update, "Products(5)", body: #"{"Name":"Five local"}"#).get()
        _ = try await LocalWriteTests.run(store, .delete, "Products(6)").get()
        let created = try JSONValue.parse(try await LocalWriteTests.run(store, .create, "Categories", body: #"{"Name":"Observed"}"#).get().json)
        let local = try #require(created["ID"]?.int64Value)
        try await products.waitFor { $0.flatMap(\.changes).count >= 2 }
        #expect(products.all.prefix(2) == [EntityChange(kind: .updated, path: "Products(5)"), EntityChange(kind: .deleted, path: "Products(6)")])
        try await categories.waitFor { !$0.isEmpty }
        #expect(categories.all.first == EntityChange(kind: .created, path: "Categories(\(local))"))
        #expect(categories.batches.withLock { $0.allSatisfy { $0.entitySet == "Categories" && !$0.isSummary } })

        // Upload: the category created offline gets the service's key.
        let (result, _) = try await UploadTests.upload(store)
        _ = try result.get()
        let server_key = try #require(try store.keyMappings().first?.serverPath)
        try await categories.waitFor { $0.flatMap(\.changes).contains { $0.kind == .keyChanged } }
        #expect(categories.all.contains(EntityChange(kind: .keyChanged, path: server_key, oldPath: "Categories(\(local))")))

        // Download: changes made on the service come down and are reported.
        let before = products.batches.withLock { $0.count }
        _ = try await LocalWriteTests.run(online, .update, "Products(3)", body: #"{"Name":"Three fresh"}"#) { try $0.setETag("*") }.get()
        _ = try await LocalWriteTests.run(online, .delete, "Products(4)") { try $0.setETag("*") }.get()
        let (downloaded, _) = try await DownloadRefreshTests.download(store, ["Products"])
        try downloaded.get()
        try await products.waitFor { b in
            let later = b.dropFirst(before).flatMap(\.changes)
            return later.contains(EntityChange(kind: .deleted, path: "Products(4)")) && later.contains { $0.path == "Products(3)" }
        }
    }

    @Test func largeBatchesAreSummarisedAndRemovalIsFinal() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let store = try await Self.open(server, "observe-many.store")
        defer { try? store.close() }
        let engine = try #require(store.engine as? OfflineEngine)
        engine.changeLog.listLimit.withLock { $0 = 10 }

        let products = Recorder()
        let p = try store.observe("Products") { _, c in products.record(c) }
        // A full download of the 300 products (remove and add back the defining request).
        try store.addDefiningRequest("Products?$filter=ID lt 50")
        let (r, _) = try await DownloadRefreshTests.download(store, ["Products?$filter=ID lt 50"])
        try r.get()
        try await products.waitFor { !$0.isEmpty }
        let first = try #require(products.batches.withLock { $0.first })
        #expect(first.isSummary && first.changes.isEmpty && first.count > 10 && first.count == first.counts.values.reduce(0, +), "\(first)")
        p.remove()
        p.remove()   // twice: no effect
        #expect(!p.isActive)

        // Removal from inside the handler: that call is the last.
        let calls = Mutex(0)
        let once = Mutex<ChangeObserver?>(nil)
        let o = try store.observe("Products") { _, _ in
            calls.withLock { $0 += 1 }
            once.withLock { $0 }?.remove()
        }
        once.withLock { $0 = o }
        _ = try await LocalWriteTests.run(store, .update, "Products(7)", body: #"{"Name":"One"}"#).get()
        for _ in 0..<200 where calls.withLock({ $0 }) == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        _ = try await LocalWriteTests.run(store, .update, "Products(7)", body: #"{"Name":"Two"}"#).get()
        // A marker write, not a sleep: callbacks run one at a time in commit order, so a call
        // for "Two" would have run before the marker's.
        let marker = Recorder()
        let m = try store.observe("Categories") { _, c in marker.record(c) }
        _ = try await LocalWriteTests.run(store, .update, "Categories(2)", body: #"{"Name":"Marker"}"#).get()
        try await marker.waitFor { !$0.isEmpty }
        m.remove()
        #expect(calls.withLock { $0 } == 1)
        let after = products.batches.withLock { $0.count }
        #expect(after == products.batches.withLock { $0.count })

        // The async sequence.
        let stream = try store.changes(of: "Categories")
        _ = try await LocalWriteTests.run(store, .update, "Categories(1)", body: #"{"Name":"Streamed"}"#).get()
        var it = stream.makeAsyncIterator()
        let got = await it.next()
        #expect(got?.changes == [EntityChange(kind: .updated, path: "Categories(1)")])

        // The stream finishes when the store closes: a loop over it ends; one made after the
        // close is finished at once.
        let reader = Task { () -> Int in
            var n = 0
            for await _ in try store.changes(of: "Products") { n += 1 }
            return n
        }
        try await Task.sleep(for: .milliseconds(100))
        await store.close()
        #expect(try await reader.value == 0)
        var late = try? store.changes(of: "Products").makeAsyncIterator()
        #expect(await late?.next() == nil)
    }

    /// A write the store rolls back is never reported; reverting an archived change is (the
    /// row goes back to the service's version). "Never reported" is shown with a later write
    /// as a marker: callbacks run one at a time in commit order, so once the marker's batch
    /// has arrived, anything the rolled-back write could have caused would have arrived first.
    @Test func rolledBackWritesAreSilentAndRevertsAreObserved() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let store = try await Self.open(server, "observe-revert.store")
        defer { try? store.close() }
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        let products = Recorder(), categories = Recorder()
        let p = try store.observe("Products") { _, c in products.record(c) }
        let c = try store.observe("Categories") { _, c in categories.record(c) }
        defer { p.remove(); c.remove() }

        // A deep insert whose second child is refused: the category and the first product
        // were written inside the transaction, which is rolled back.
        let good = #"{"Name":"Kept?","Price":"1.00","Stock":"1","Discontinued":false}"#
        let bad = #"{"Name":"Bad","Price":"not a number","Stock":"1","Discontinued":false}"#
        let refused = try await LocalWriteTests.run(store, .create, "Categories", body: #"{"Name":"Rolled back","Products":[\#(good),\#(bad)]}"#)
        #expect(refused.failureCode != nil)
        #expect(try store.pendingChangeCount() == 0)
        _ = try await LocalWriteTests.run(store, .update, "Categories(1)", body: #"{"Name":"Marker"}"#).get()
        try await categories.waitFor { !$0.isEmpty }
        #expect(categories.all == [EntityChange(kind: .updated, path: "Categories(1)")])
        #expect(products.all.isEmpty)

        // A change archived by a 412, then reverted: reported as an update of that product.
        _ = try await LocalWriteTests.run(online, .update, "Products(4)", body: #"{"Name":"Four online"}"#) { try $0.setETag("*") }.get()
        _ = try await LocalWriteTests.run(store, .update, "Products(4)", body: #"{"Name":"Four offline"}"#).get()
        try await products.waitFor { !$0.isEmpty }
        let (uploaded, _) = try await UploadTests.upload(store)
        #expect(try uploaded.get() == UploadResult(confirmed: 1, failed: 1, remaining: 0))   // the marker and the stale change
        let entry = try #require(try store.errorArchive().first)
        let before = products.batches.withLock { $0.count }
        try await UploadTests.revert(store, entry.id).get()
        try await products.waitFor { $0.count > before }
        #expect(products.batches.withLock { Array($0.dropFirst(before)) }.flatMap(\.changes).contains(EntityChange(kind: .updated, path: "Products(4)")))
        let four = try JSONValue.parse(try await LocalWriteTests.run(store, .read, "Products(4)").get().json)
        #expect(four["Name"] == .string("Four online"))
    }

    @Test func mixedStoresReportWritesToCoveredSets() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let options = MixedStoreTests.options(server.serviceRoot, path: OfflineStoreTests.temporaryPath("observe-mixed.store"))
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        let customers = Recorder()
        let o = try store.observe("Customers") { _, c in customers.record(c) }
        defer { o.remove() }
        _ = try await MixedStoreTests.run(store, .update, "Customers('ALFKI')", body: #"{"City":"Basel"}"#).get()
        try await customers.waitFor { !$0.isEmpty }
        #expect(customers.all == [EntityChange(kind: .updated, path: "Customers('ALFKI')")])
    }

    @Test func onlineStoresAndBadNamesAreRefused() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? online.close() }
        #expect(throws: ODataStoreError.self) { try online.observe("Products") { _, _ in } }
        do { _ = try online.observe("Products") { _, _ in } } catch { #expect(error.code == .unsupported) }
        let store = try await Self.open(server, "observe-bad.store")
        defer { try? store.close() }
        do { _ = try store.observe("Products(1)") { _, _ in } } catch { #expect(error.code == .invalidArgument) }
        do { _ = try store.observe("Nope") { _, _ in } } catch { #expect(error.code == .notFound) }
    }
}
