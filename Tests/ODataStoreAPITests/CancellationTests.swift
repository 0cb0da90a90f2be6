import ODataStore
import Testing

/// Task cancellation reaches the store at every point: before a request starts, while it is
/// in flight, while the store opens. The fault proxy holds requests (`slow` for a minute) so
/// a cancellation provably lands while the service has not answered: no sleeping.
@Suite("Swift API, cancellation", .serialized, .timeLimit(.minutes(3)))
struct CancellationTests {
    @Test func aTaskCancelledBeforeTheRequestStartsSendsNothing() async throws {
        let server = try Server.start(.v4)
        let proxy = try Server.proxy(server.root)
        let store = try await Store.open(serviceRoot: proxy.root)
        let before = try proxy.faultCounters()["requests"] as? Int ?? -1
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.read("Products(1)")
        }
        await #expect {
            _ = try await task.value
        } throws: { error in
            (error as? ODataStoreError)?.code == .cancelled
        }
        #expect(try proxy.faultCounters()["requests"] as? Int == before)
        await store.close()
    }

    @Test func aTaskCancelledInFlightEndsAtOnce() async throws {
        let server = try Server.start(.v4)
        let proxy = try Server.proxy(server.root)
        let store = try await Store.open(serviceRoot: proxy.root)
        try proxy.addFault(["mode": "slow", "delay_ms": 60_000, "match": "Products(2)"])
        let clock = ContinuousClock()
        let started = clock.now
        let task = Task { try await store.read(Product.self, from: "Products", key: 2) }
        try await proxy.waitForFaults(1)  // the request is at the proxy, held
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the held request finished")
        } catch let error as ODataStoreError {
            #expect(error.code == .cancelled)
        }
        #expect(clock.now - started < .seconds(30))
        // The store goes on: the next request is answered.
        #expect(try await store.read(Product.self, from: "Products", key: 3).id == 3)
        await store.close()
    }

    @Test func closingTheStoreEndsEveryAwait() async throws {
        let server = try Server.start(.v4)
        let proxy = try Server.proxy(server.root)
        let store = try await Store.open(serviceRoot: proxy.root)
        try proxy.addFault(["mode": "slow", "delay_ms": 60_000, "match": "Categories", "count": 2])
        let reads = (0..<2).map { _ in Task { try await store.read("Categories") } }
        try await proxy.waitForFaults(2)
        await store.close()
        for r in reads {
            do {
                _ = try await r.value
                Issue.record("a held read finished")
            } catch let error as ODataStoreError {
                #expect(error.code == .cancelled)
            }
        }
    }

    @Test func openingCanBeCancelled() async throws {
        let server = try Server.start(.v4)
        let proxy = try Server.proxy(server.root)
        try proxy.addFault(["mode": "slow", "delay_ms": 60_000, "match": "$metadata"])
        let task = Task { try await Store.open(serviceRoot: proxy.root) }
        try await proxy.waitForFaults(1)
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the store opened")
        } catch let error as ODataStoreError {
            #expect(error.code == .cancelled)
        }
    }

    @Test func aRequestTimeoutIsADuration() async throws {
        let server = try Server.start(.v4)
        let proxy = try Server.proxy(server.root)
        let store = try await Store.open(serviceRoot: proxy.root)
        try proxy.addFault(["mode": "slow", "delay_ms": 60_000, "match": "Products(4)"])
        var request = ODataRequest.read(ResourcePath(entitySet: "Products", key: 4))
        request.timeout = .milliseconds(300)
        do {
            _ = try await store.send(request)
            Issue.record("the held request finished")
        } catch {
            #expect(error.code == .timeout)
        }
        await store.close()
    }
}
