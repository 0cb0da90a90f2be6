import Synchronization
import Testing
@testable import ODataStore

/// The Swift API of the store against the real V4 test service.
@Suite("Store (Swift API)", .timeLimit(.minutes(5)))  // a hang, not the wait for the CI machine (CallbackQueueTests)
struct StoreTests {
    /// Records what a delegate receives, in order.
    final class Recorder: RequestDelegate, Sendable {
        let events = Mutex<[String]>([])
        let closeError = Mutex<ODataStoreError?>(nil)
        func requestStarted(_ request: Request) { events.withLock { $0.append("started") } }
        func request(_ request: Request, didReceive response: Response) {
            events.withLock { $0.append("response \(response.status) \(response.entityCount)") }
        }
        func request(_ request: Request, didFailWith error: ODataStoreError, response: Response?) {
            events.withLock { $0.append("failed \(error.code)") }
        }
        func requestFinished(_ request: Request) {
            do { try request.store.close() } catch { closeError.withLock { $0 = error } }
            events.withLock { $0.append("finished") }
        }
    }

    private func run(_ store: Store, _ mode: RequestMode, _ path: String, body: String? = nil,
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

    @Test func opensReadsFollowsPagesAndCloses() async throws {
        let server = try TestServer.start(.v4, pageSize: 100)
        defer { server.stop() }
        let states = Mutex<[StoreState]>([])
        let store = try Store(options: StoreOptions(serviceRoot: server.serviceRoot)) { _, state, _ in
            states.withLock { $0.append(state) }
        }

        let one = try await run(store, .read, "Products(7)").get()
        #expect(one.status == 200)
        #expect(one.entityCount == 1)
        #expect(one.etag == "W/\"1\"")
        #expect(one.json.contains("\"Name\":\"Product 007\""))
        #expect(store.odataVersion == .v4)
        #expect(store.model?.entitySets["Products"] != nil)

        let page = try await run(store, .read, "Products").get()
        #expect(page.entityCount == 100)
        #expect(page.nextLink != nil)

        let all = try await run(store, .read, "Products?$count=true") { try $0.setPaging(.follow) }.get()
        #expect(all.entityCount == 300)
        #expect(all.count == 300)
        #expect(all.nextLink == nil)
        let ids = try JSONValue.parse(all.json)["value"]?.arrayValue?.compactMap { $0["ID"]?.int64Value }
        #expect(ids == (1...300).map(Int64.init))

        await store.close()
        #expect(states.withLock { $0 } == [.opening, .open, .closing, .closed])
        #expect(store.state == .closed)
        #expect(throws: ODataStoreError.self) { _ = try store.makeRequest(.read, path: "Products") }
    }

    @Test func delegateCallbacksArriveInOrderAndCloseIsRefusedInside() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let store = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        let recorder = Recorder()
        _ = try await run(store, .read, "Categories") { try $0.setDelegate(recorder) }
        #expect(recorder.events.withLock { $0 } == ["started", "response 200 10", "finished"])
        #expect(recorder.closeError.withLock { $0 }?.code == .invalidState)

        let failing = Recorder()
        let outcome = try await run(store, .read, "Categories(99)") { try $0.setDelegate(failing) }
        guard case .failure(let failure) = outcome else { Issue.record("expected a failure"); return }
        #expect(failure.error.code == .notFound)
        #expect(failure.error.httpStatus == 404)
        #expect(failure.response?.status == 404)
        #expect(failing.events.withLock { $0 } == ["started", "failed notFound"])
        await store.close()
    }

    /// A request held while the store opens, then failed because the open failed, never ran:
    /// its delegate still sees started, then failed (the header's promise for every request).
    @Test func aHeldRequestWhoseStoreFailsToOpenGetsStartedThenFailed() async throws {
        let store = try Store(options: StoreOptions(serviceRoot: "http://127.0.0.1:9/service/"))  // nothing listens
        defer { try? store.close() }
        let recorder = Recorder()
        let outcome = try await run(store, .read, "Products(1)") { try $0.setDelegate(recorder) }
        guard case .failure = outcome else { Issue.record("a store that cannot open answered"); return }
        #expect(recorder.events.withLock { $0 } == ["started", "failed offline"])  // connection refused: offline
    }

    /// A request held while the store opens (its $metadata held back by the fault proxy),
    /// then given up by close(): started, then failed, nothing else.
    @Test func aHeldRequestGivenUpByCloseGetsStartedThenFailed() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        try proxy.setFault("slow", delayMilliseconds: 5000, match: "$metadata")
        let store = try Store(options: StoreOptions(serviceRoot: proxy.serviceRoot))
        let recorder = Recorder()
        let request = try store.makeRequest(.read, path: "Products(1)")
        try request.setDelegate(recorder)
        let outcome = Mutex<Result<Response, RequestFailure>?>(nil)
        try request.setCompletion { _, result in outcome.withLock { $0 = result } }
        try request.start()
        #expect(store.state == .opening)
        await store.close()
        guard case .failure(let failure)? = outcome.withLock({ $0 }) else {
            Issue.record("close() returned before the held request's outcome, or it succeeded"); return
        }
        #expect(recorder.events.withLock { $0 } == ["started", "failed \(failure.error.code)"])
    }

    @Test func createUpdateDeleteWithETags() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let store = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        defer { try? store.close() }
        let created = try await run(store, .create, "Categories", body: "{\"ID\":77,\"Name\":\"Swift\"}").get()
        #expect(created.status == 201)
        let etag = try #require(created.etag)

        let stale = try await run(store, .update, "Categories(77)", body: "{\"Name\":\"Old\"}") { try $0.setETag("W/\"0\"") }
        guard case .failure(let conflict) = stale else { Issue.record("stale ETag accepted"); return }
        #expect(conflict.error.code == .conflict)

        let updated = try await run(store, .update, "Categories(77)", body: "{\"Name\":\"New\"}") { try $0.setETag(etag) }
        #expect(try updated.get().status == 204)
        let deleted = try await run(store, .delete, "Categories(77)") { try $0.setETag("*") }
        #expect(try deleted.get().status == 204)
    }

    @Test func rejectsUnsupportedKindsAndBadRoots() {
        var options = StoreOptions(serviceRoot: "http://127.0.0.1:9/")
        // Mixed stores take the offline options (docs/mixed.md).
        options.kind = .mixed
        #expect(throws: ODataStoreError(.invalidArgument, "an offline store needs store_path (the store file)")) {
            _ = try Store(options: options)
        }
        options.kind = .offline
        #expect(throws: ODataStoreError(.invalidArgument, "an offline store needs store_path (the store file)")) {
            _ = try Store(options: options)
        }
        #expect(throws: ODataStoreError.self) { _ = try Store(options: StoreOptions(serviceRoot: "file:///etc/passwd")) }
    }
}
