import Glibc
import Synchronization
import Testing
@testable import ODataStore

/// Logon and held requests (docs/logon.md) against the real V4 service behind the fault
/// proxy, whose `auth` mode answers 401 unless the Authorization header matches.
@Suite("Logon", .serialized, .timeLimit(.minutes(3)))
struct LogonTests {
    static let userPassword = "Basic dXNlcjpwYXNzd29yZA=="  // user:password

    /// Records prompts and answers them as `answer` says, later, from another task.
    final class App: Sendable {
        let prompts = Mutex<[LogonChallenge]>([])
        let answer: @Sendable (LogonChallenge) -> LogonReply
        init(_ answer: @escaping @Sendable (LogonChallenge) -> LogonReply) { self.answer = answer }

        var handler: LogonHandler {
            { store, challenge in
                self.prompts.withLock { $0.append(challenge) }
                let reply = self.answer(challenge)
                Task.detached {
                    try? await Task.sleep(for: .milliseconds(30))
                    try? store.logon(challenge.id, reply: reply)
                }
            }
        }
        var count: Int { prompts.withLock { $0.count } }
    }

    private func start(_ store: Store, _ path: String, mode: RequestMode = .read, body: String? = nil) throws -> Request {
        let request = try store.makeRequest(mode, path: path, body: body)
        try request.start()
        return request
    }

    private func outcome(_ request: Request) async throws -> Result<Response, RequestFailure> {
        for _ in 0..<3000 where !request.isDelivered { try await Task.sleep(for: .milliseconds(10)) }
        return try #require(request.outcome)
    }

    private func servers() throws -> (TestServer, TestServer) {
        let server = try TestServer.start(.v4)
        do {
            return (server, try TestServer.faultProxy(upstream: server.serviceRoot))
        } catch {
            server.stop()
            throw error
        }
    }

    @Test func requestsHeldWhileOpeningRunAfterOneLogon() async throws {
        let (server, proxy) = try servers()
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("auth", authorization: Self.userPassword)
        let app = App { _ in .basic(username: "user", password: "password") }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.logonHandler = app.handler
        let store = try Store(options: options)
        defer { try? store.close() }
        let requests = try (1...20).map { try start(store, "Products(\($0))") }
        for (i, request) in requests.enumerated() {
            let response = try await outcome(request).get()
            #expect(response.json.contains("\"ID\":\(i + 1),"))
        }
        #expect(app.count == 1)
        #expect(app.prompts.withLock { $0.first?.reason } == .required)
        #expect(app.prompts.withLock { $0.first?.authenticate }?.contains("Basic") == true)
    }

    @Test func anExpiredSessionPromptsOnceAndRestartsEveryRequest() async throws {
        let (server, proxy) = try servers()
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("auth", authorization: Self.userPassword)
        let app = App { _ in .bearer(token: "fresh") }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.authentication = .basic(username: "user", password: "password")
        options.logonHandler = app.handler
        let store = try Store(options: options)
        defer { try? store.close() }
        _ = try await outcome(try start(store, "Products(1)")).get()
        // The session expires: only the new token is accepted now.
        try proxy.clearFaults()
        try proxy.setFault("auth", authorization: "Bearer fresh")
        let requests = try (1...30).map { try start(store, "Products(\($0))") }
        // A write restarted after the 401 too (the service refused it before acting).
        let create = try start(store, "Customers", mode: .create,
                               body: #"{"CustomerID":"LOGON1","CompanyName":"Logon","City":"Kiel"}"#)
        for (i, request) in requests.enumerated() {
            let response = try await outcome(request).get()
            #expect(response.json.contains("\"ID\":\(i + 1),"))
        }
        #expect(try await outcome(create).get().status == 201)
        #expect(app.count == 1)
        #expect(app.prompts.withLock { $0.first?.reason } == .expired)
    }

    /// A mixed store's two parts share one session: one prompt serves the download of the
    /// file and the requests routed to the service, which go on after the session expires.
    @Test func aMixedStoreLogsOnOnceForBothSides() async throws {
        let (server, proxy) = try servers()
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("auth", count: -1, authorization: Self.userPassword)
        let app = App { challenge in
            challenge.reason == .required ? .basic(username: "user", password: "password") : .bearer(token: "fresh")
        }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.kind = .mixed
        options.storePath = OfflineStoreTests.temporaryPath("logon-mixed.store")
        options.definingRequests = ["Categories"]
        options.logonHandler = app.handler
        let store = try Store(options: options)
        defer { try? store.close() }
        let covered = try await outcome(try start(store, "Categories(1)")).get()
        #expect(covered.source == .offline)
        let online = try await outcome(try start(store, "Products(2)")).get()
        #expect(online.source == .online && online.json.contains("\"ID\":2,"))
        #expect(app.count == 1)
        try proxy.clearFaults()
        try proxy.setFault("auth", count: -1, authorization: "Bearer fresh")
        let again = try (3...8).map { try start(store, "Products(\($0))") }
        for request in again { #expect(try await outcome(request).get().source == .online) }
        #expect(app.prompts.withLock { $0.map(\.reason) } == [.required, .expired])
    }

    @Test func aRefusedLogonFailsTheOpenAndTheHeldRequests() async throws {
        let (server, proxy) = try servers()
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("auth", authorization: Self.userPassword)
        let app = App { _ in .refuse }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.logonHandler = app.handler
        let store = try Store(options: options)
        defer { try? store.close() }
        let request = try start(store, "Products(1)")
        guard case .failure(let failure) = try await outcome(request) else {
            Issue.record("a refused logon must fail the request")
            return
        }
        #expect(failure.error.code == .unauthorized)
        #expect(failure.error.message.contains("refused"))
        #expect(store.state == .failed)
        #expect(app.count == 1)
    }

    @Test func credentialsTheServiceRefusesAreAskedForAgainABoundedNumberOfTimes() async throws {
        let (server, proxy) = try servers()
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("auth", authorization: Self.userPassword)
        let app = App { _ in .basic(username: "user", password: "wrong") }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.logonHandler = app.handler
        options.maxLogonAttempts = 2
        let store = try Store(options: options)
        defer { try? store.close() }
        let request = try start(store, "Products(1)")
        guard case .failure(let failure) = try await outcome(request) else {
            Issue.record("wrong credentials must fail the request")
            return
        }
        #expect(failure.error.code == .unauthorized)
        #expect(!failure.error.message.contains("wrong"))
        #expect(app.prompts.withLock { $0.map(\.reason) } == [.required, .rejected])
        #expect(app.prompts.withLock { $0.map(\.attempt) } == [1, 2])
    }

    @Test func aLoginPageMeansTheSessionExpiredWhenAskedFor() async throws {
        let (server, proxy) = try servers()
        defer { proxy.stop(); server.stop() }
        let app = App { _ in .headers([("Cookie", "SSO=abc")]) }
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.logonHandler = app.handler
        options.sessionExpiredOnLoginPage = true
        let store = try Store(options: options)
        defer { try? store.close() }
        _ = try await outcome(try start(store, "Products(2)")).get()
        let rule = #"{"mode":"respond","status":200,"count":1,"match":"Products(1)","headers":[["Content-Type","text/html"]],"body":"<html>login</html>"}"#
        #expect(try proxy.rawRequest("POST", "/__fault", body: Array(rule.utf8)).status == 200)
        let response = try await outcome(try start(store, "Products(1)")).get()
        #expect(response.json.contains("\"ID\":1,"))
        #expect(app.count == 1)
        #expect(app.prompts.withLock { $0.first?.httpStatus } == 200)
    }

    @Test func anOfflineStoreDownloadsThroughTheLogonAndItsFileHoldsNoSecret() async throws {
        let (server, proxy) = try servers()
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("auth", authorization: "Bearer s3cret-one")
        let app = App { $0.reason == .required ? .bearer(token: "s3cret-one") : .bearer(token: "s3cret-two") }
        let path = OfflineStoreTests.temporaryPath("logon.store")
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.kind = .offline
        options.storePath = path
        options.definingRequests = ["Categories"]
        options.logonHandler = app.handler
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        #expect(app.count == 1)
        // The session expires before a download: it asks again and the download goes through.
        try proxy.clearFaults()
        try proxy.setFault("auth", authorization: "Bearer s3cret-two")
        let done = AsyncStream<Result<Void, ODataStoreError>>.makeStream()
        try store.download { _, result in done.continuation.yield(result) }
        for await result in done.stream {
            try result.get()
            break
        }
        #expect(app.prompts.withLock { $0.map(\.reason) } == [.required, .expired])
        await store.close()
        var bytes: [UInt8] = []
        for file in [path, path + "-wal", path + "-journal"] {
            let fd = open(file, O_RDONLY)
            if fd < 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                bytes.append(contentsOf: chunk[0..<n])
            }
            close(fd)
        }
        #expect(bytes.count > 0)
        let needle = Array("s3cret".utf8)
        let found = bytes.count >= needle.count && (0...(bytes.count - needle.count)).contains { i in
            bytes[i..<(i + needle.count)].elementsEqual(needle)
        }
        #expect(!found)
    }

    @Test func repliesAreCheckedAndSecretsNeverShown() throws {
        var options = StoreOptions(serviceRoot: "http://127.0.0.1:9/")
        options.connectTimeoutMilliseconds = 200
        #expect(throws: ODataStoreError.self) { try Store(options: options).logon(1, reply: .refuse) }
        options.logonHandler = { _, _ in }
        let store = try Store(options: options)
        #expect { try store.logon(12345, reply: .refuse) } throws: { ($0 as? ODataStoreError)?.code == .invalidState }
        try store.close()
        #expect { try store.logon(12345, reply: .refuse) } throws: { ($0 as? ODataStoreError)?.code == .closed }
        #expect(!"\(LogonReply.basic(username: "u", password: "s3cret"))".contains("s3cret"))
        #expect(!"\(LogonReply.bearer(token: "s3cret"))".contains("s3cret"))
        #expect(!"\(LogonReply.headers([("Cookie", "s3cret")]))".contains("s3cret"))
        #expect(!"\(Authentication.basic(username: "u", password: "s3cret"))".contains("s3cret"))
        #expect(throws: ODataStoreError.self) { try LogonReply.headers([("Cookie", "a\r\nb")]).headerLines() }
        #expect(throws: ODataStoreError.self) { try LogonReply.basic(username: "a:b", password: "").headerLines() }
    }
}
