import Foundation
import Synchronization
import Testing
@testable import ODataStore

/// The mixed store against the real V4 service (odatapy), faults through the fault proxy:
/// routing by what the defining requests cover (paths with keys, navigation, full URLs,
/// `$expand` and `$filter` reaching other sets, function imports, writes), forced routes, the
/// working mode switched while requests are in flight, delegation of the offline calls, and
/// the service stopped (covered sets answer from the file, the rest fails with `.offline`).
@Suite("Mixed store (V4)", .serialized, .timeLimit(.minutes(3)))
struct MixedStoreTests {
    /// Products and Customers are covered; Categories (reached from Products by `Category`)
    /// and OrderLines are not.
    static let definitions = ["Products", "Customers"]

    static func options(_ root: String, path: String) -> StoreOptions {
        var options = StoreOptions(serviceRoot: root)
        options.kind = .mixed
        options.storePath = path
        options.definingRequests = definitions
        options.downloadPageSize = 100
        return options
    }

    static func run(_ store: Store, _ path: String, route: RequestRoute = .automatic) async throws -> Result<Response, RequestFailure> {
        try await run(store, .read, path, route: route)
    }

    static func source(_ store: Store, _ path: String) async throws -> ResponseSource {
        try await source(store, .read, path)
    }

    static func run(_ store: Store, _ mode: RequestMode, _ path: String, body: String? = nil,
                    route: RequestRoute = .automatic) async throws -> Result<Response, RequestFailure> {
        try await LocalWriteTests.run(store, mode, path, body: body) { try $0.setRoute(route) }
    }

    static func source(_ store: Store, _ mode: RequestMode, _ path: String, body: String? = nil,
                       route: RequestRoute = .automatic) async throws -> ResponseSource {
        let outcome = try await run(store, mode, path, body: body, route: route)
        switch outcome {
        case .success(let r): return r.source
        case .failure(let f): throw f.error
        }
    }

    @Test func routesByWhatTheDefiningRequestsCover() async throws {
        let server = try TestServer.start(.v4)
        let (store, state, error) = try await OfflineStoreTests.opened(Self.options(server.serviceRoot, path: OfflineStoreTests.temporaryPath("mixed.store")))
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        #expect(store.workingMode == .mixed)

        // Covered: keys, full URLs, $filter/$orderby/$select on the covered set, $count.
        for path in ["Products", "Products(7)", "Products(7)/Name", "Products/$count", "Customers('ALFKI')",
                     "Products?$filter=Price gt 100&$orderby=Name&$select=Name,Price&$top=3",
                     server.serviceRoot + "Products(3)", server.serviceRoot + "Customers?$top=2"] {
            #expect(try await Self.source(store, path) == .offline, "\(path)")
        }
        // Not covered: another set, a navigation into it, $expand or $filter reaching it,
        // a path starting in it, a function import.
        for path in ["OrderLines?$top=2", "OrderLines(OrderID=1002,LineNo=3)", "Categories(1)/Products?$top=2",
                     "Products(1)/Category", "Products?$expand=Category&$top=2",
                     "Products?$filter=Category/Name eq 'Books'&$top=2", server.serviceRoot + "Categories"] {
            #expect(try await Self.source(store, path) == .online, "\(path)")
        }
        #expect(try await Self.source(store, .function, "TotalStock()") == .online)
        // The service's answer and the file's agree where both answer.
        let online = try await Self.run(store, "Products(7)", route: .online).get()
        let local = try await Self.run(store, "Products(7)").get()
        #expect(online.source == .online && local.source == .offline)
        var forced = ODataRequest(.read, ResourcePath("Products(7)"))   // the async API's form
        forced.route = .online
        #expect(try await store.send(forced).source == .online)
        #expect(try JSONValue.parse(online.json) == JSONValue.parse(local.json))

        // Forced sides: offline on what the file does not cover fails as an offline store does.
        #expect(try await Self.run(store, "OrderLines", route: .offline).failureCode == .notInScope)
        #expect(try await Self.run(store, .function, "TotalStock()", route: .offline).failureCode == .unsupported)

        // Writes to covered sets go to the local queue; others to the service.
        let created = try await Self.run(store, .create, "Customers", body: #"{"CustomerID":"MIX1","CompanyName":"Mixed"}"#).get()
        #expect(created.source == .offline)
        #expect(try store.pendingChangeCount() == 1)
        #expect(try await Self.source(store, .update, "Products(7)", body: #"{"Name":"Seven"}"#) == .offline)
        #expect(try store.pendingChangeCount() == 2)
        // A change to a covered set with query options: refused by the file, not sent online.
        #expect(try await Self.run(store, .update, "Products(7)?$select=Name", body: #"{"Name":"x"}"#).failureCode == .unsupported)
        // The service answers (its 428: no If-Match); the file would have said "not in scope".
        #expect(try await Self.run(store, .update, "Categories(1)", body: #"{"Name":"Renamed"}"#).failureCode == .preconditionRequired)
        #expect(try store.pendingChangeCount() == 2)
        #expect(try await Self.run(store, "Customers('MIX1')", route: .online).failureCode == .notFound)

        // The offline calls act on the store file: upload sends the queue.
        let uploaded = try await withCheckedThrowingContinuation { (c: CheckedContinuation<UploadResult, Error>) in
            do { try store.upload { _, result in c.resume(with: result.mapError { $0 as Error }) } } catch { c.resume(throwing: error) }
        }
        #expect(uploaded.confirmed == 2)
        #expect(try store.pendingChangeCount() == 0)
        #expect(try await Self.run(store, "Customers('MIX1')", route: .online).get().source == .online)
        #expect(try store.offlineInfo().definingRequests.map(\.path) == Self.definitions)

        // Working modes: everything to one side.
        try store.setWorkingMode(.online)
        #expect(try await Self.source(store, "Products(7)") == .online)
        try store.setWorkingMode(.offline)
        #expect(try await Self.run(store, "OrderLines").failureCode == .notInScope)
        #expect(try await Self.run(store, "OrderLines", route: .online).get().source == .online)
        try store.setWorkingMode(.mixed)
        #expect(try await Self.source(store, "OrderLines") == .online)
    }

    @Test func switchingModeWhileRequestsRun() async throws {
        let server = try TestServer.start(.v4)
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        let (store, state, error) = try await OfflineStoreTests.opened(Self.options(proxy.serviceRoot, path: OfflineStoreTests.temporaryPath("mixed.store")))
        #expect(state == .open, "\(String(describing: error))")
        defer { try? store.close() }
        // Requests to the service are slow: three start online, then the mode switches.
        try proxy.setFault("slow", count: -1, delayMilliseconds: 2500, match: "OrderLines")
        let outcomes = Mutex<[Result<Response, RequestFailure>]>([])
        let done = AsyncStream<Void>.makeStream()
        for _ in 0..<3 {
            try store.schedule(.read, path: "OrderLines?$top=2") { _, outcome in
                outcomes.withLock { $0.append(outcome) }
                done.continuation.yield()
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(outcomes.withLock { $0.count } == 0, "the slow requests are in flight when the mode switches")
        try store.setWorkingMode(.offline)
        // Started after the switch: the file answers (and does not cover OrderLines).
        #expect(try await Self.run(store, "OrderLines?$top=2").failureCode == .notInScope)
        #expect(try await Self.source(store, "Products(2)") == .offline)
        var finished = 0
        for await _ in done.stream {
            finished += 1
            if finished == 3 { break }
        }
        // In flight before the switch: finished where they started.
        for outcome in outcomes.withLock({ $0 }) {
            let response = try outcome.get()
            #expect(response.source == .online)
            #expect(response.entityCount == 2)
        }
    }

    @Test func serviceStoppedCoveredSetsAnswerOthersFailOffline() async throws {
        let server = try TestServer.start(.v4)
        let path = OfflineStoreTests.temporaryPath("mixed.store")
        do {
            let (store, state, error) = try await OfflineStoreTests.opened(Self.options(server.serviceRoot, path: path))
            #expect(state == .open, "\(String(describing: error))")
            await store.close()
        }
        let root = server.serviceRoot
        server.stop()
        // Reopened with the service gone: the file opens, requests made while it opens are held.
        let store = try Store(options: Self.options(root, path: path))
        defer { try? store.close() }
        let held = AsyncStream<Result<Response, RequestFailure>>.makeStream()
        try store.schedule(.read, path: "Products?$top=3") { _, outcome in held.continuation.yield(outcome) }
        for await outcome in held.stream {
            #expect(try outcome.get().source == .offline)
            #expect(try outcome.get().entityCount == 3)
            break
        }
        #expect(try await Self.run(store, "Customers('ALFKI')").get().source == .offline)
        #expect(try await Self.run(store, "Products(7)/Name").get().source == .offline)
        #expect(try await Self.source(store, .update, "Products(7)", body: #"{"Name":"Offline"}"#) == .offline)
        #expect(try store.pendingChangeCount() == 1)
        #expect(try await Self.run(store, "OrderLines").failureCode == .offline)
        #expect(try await Self.run(store, "Products?$expand=Category").failureCode == .offline)
        #expect(try await Self.run(store, .function, "TotalStock()").failureCode == .offline)
        #expect(try await Self.run(store, .update, "Categories(1)", body: #"{"Name":"x"}"#).failureCode == .offline)
    }

    @Test func otherKindsRefuseModesAndRoutes() async throws {
        let store = try Store(options: StoreOptions(serviceRoot: "http://127.0.0.1:9/odata/"))
        defer { try? store.close() }
        #expect(store.workingMode == .online)
        #expect(throws: ODataStoreError.self) { try store.setWorkingMode(.offline) }
        let request = try store.makeRequest(.read, path: "Products")
        #expect(throws: ODataStoreError.self) { try request.setRoute(.offline) }
        try request.setRoute(.automatic)
    }
}
