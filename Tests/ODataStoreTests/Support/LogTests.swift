import Synchronization
import Testing
@testable import ODataStore

/// The process-wide log (docs/logging.md) against the real V4 service: store, HTTP, download
/// and upload steps of an offline store; a message is never built when its level is off; a
/// handler may replace itself. Serialized: the handler is one for the process.
@Suite("Log", .serialized, .timeLimit(.minutes(3)))
struct LogTests {
    final class Lines: Sendable {
        let records = Mutex<[LogRecord]>([])
        var handler: ODataStoreLog.Handler { { r in self.records.withLock { $0.append(r) } } }
        func has(_ category: LogCategory, _ text: String) -> Bool {
            records.withLock { $0.contains { $0.category == category && $0.message.contains(text) } }
        }
        var all: String { records.withLock { $0.map { "\($0.level.name) \($0.category.rawValue) \($0.message)" }.joined(separator: "\n") } }
    }

    @Test func offMeansTheMessageIsNeverBuilt() {
        ODataStoreLog.setHandler(level: .info, nil)
        #expect(ODataStoreLog.level == nil)
        let built = Atomic<Int>(0)
        func message() -> String { built.add(1, ordering: .relaxed); return "x" }
        Log.info(.http, message())
        Log.debug(.http, message())
        #expect(built.load(ordering: .relaxed) == 0)
        let lines = Lines()
        ODataStoreLog.setHandler(level: .info, lines.handler)
        Log.debug(.http, message())  // above the level: not built either
        Log.info(.http, message())
        ODataStoreLog.setHandler(level: .info, nil)
        #expect(built.load(ordering: .relaxed) == 1)
        #expect(lines.records.withLock { $0.count } == 1)
    }

    @Test func aHandlerMayReplaceItselfWithoutDeadlock() {
        let calls = Atomic<Int>(0)
        ODataStoreLog.setHandler(level: .debug) { _ in
            calls.add(1, ordering: .relaxed)
            ODataStoreLog.setHandler(level: .debug, nil)
        }
        ODataStoreLog.log(.info, .store, "one")
        ODataStoreLog.log(.info, .store, "two")
        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(ODataStoreLog.level == nil)
    }

    @Test func mixedStoresLogWhereEachRequestGoes() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let options = MixedStoreTests.options(server.serviceRoot, path: OfflineStoreTests.temporaryPath("log-mixed.store"))
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        let lines = Lines()
        ODataStoreLog.setHandler(level: .debug, lines.handler)
        defer { ODataStoreLog.setHandler(level: .debug, nil) }
        _ = try await MixedStoreTests.run(store, .read, "Customers?$top=1").get()
        _ = try await MixedStoreTests.run(store, .read, "Categories?$top=1").get()
        await store.close()
        let log = lines.all
        #expect(lines.has(.route, "READ Customers?$top=1 -> offline (covered by the defining requests)"), "\(log)")
        #expect(lines.has(.route, "READ Categories?$top=1 -> online (not covered by the defining requests)"), "\(log)")
        #expect(lines.has(.local, "READ Customers?$top=1 -> 200"), "\(log)")
        #expect(lines.has(.http, "Categories?$top=1 -> 200"), "\(log)")
    }

    @Test func offlineStoreLogsOpenDownloadUploadAndClose() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let lines = Lines()
        ODataStoreLog.setHandler(level: .debug, lines.handler)
        defer { ODataStoreLog.setHandler(level: .debug, nil) }
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("log.store")
        options.definingRequests = ["Categories"]
        options.authentication = .basic(username: "logger", password: "Very-Secret-1")
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        _ = try await LocalWriteTests.run(store, .create, "Categories", body: #"{"Name":"Logged"}"#).get()
        _ = try await OfflineStoreTests.run(store, "Categories?$top=2").get()
        _ = try await OfflineStoreTests.run(store, "Categories(987654)")
        _ = try await store.upload()
        try await store.download()  // the delta link of the first download: a delta
        await store.close()
        let log = lines.all
        #expect(lines.has(.store, "store opening: offline store"), "\(log)")
        #expect(lines.records.withLock { $0.contains { $0.message == "store open" || $0.message.hasPrefix("store open,") } }, "\(log)")
        #expect(lines.has(.download, "Categories: full download (1 of 1)"), "\(log)")
        #expect(lines.has(.download, "Categories: page 1, "), "\(log)")
        #expect(lines.has(.http, "GET \(server.serviceRoot)"), "\(log)")
        #expect(lines.has(.upload, "upload of 1 queued change(s)"), "\(log)")
        #expect(lines.has(.upload, "1 confirmed, 0 refused"), "\(log)")
        #expect(lines.has(.upload, "upload finished: 1 confirmed, 0 refused and archived"), "\(log)")
        #expect(lines.has(.download, "Categories: delta download (1 of 1)"), "\(log)")
        #expect(lines.has(.download, "delta link kept"), "\(log)")
        #expect(lines.has(.store, "store closed"), "\(log)")
        // Requests answered from the file: outcome and time, never through `http`.
        #expect(lines.has(.local, "CREATE Categories -> 201 in "), "\(log)")
        #expect(lines.has(.local, "READ Categories?$top=2 -> 200 in ") && lines.has(.local, ", 2 entities"), "\(log)")
        #expect(lines.has(.local, "READ Categories(987654) -> 404 in ") && lines.has(.local, ": not found"), "\(log)")
        #expect(!lines.has(.http, "Categories?$top=2"), "\(log)")
        #expect(!log.contains("Very-Secret-1") && !log.contains("bG9nZ2VyOlZlcnktU2VjcmV0LTE"), "\(log)")
    }
}
