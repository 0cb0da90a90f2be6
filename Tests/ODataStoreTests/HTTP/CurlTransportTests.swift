#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import ODataStore
import ODataProtocol

/// `CurlTransport` against the real test servers (Tests/servers): odatapy V4, pyslet V2 and
/// the fault proxy in front of them.
@Suite("CurlTransport", .timeLimit(.minutes(2)))
struct CurlTransportTests {
    private let json: [(name: String, value: String)] = [("Accept", "application/json")]

    // MARK: - Reading

    @Test func getsMetadataAndAnEntitySetFromV4() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }

        let metadata = await get(transport, server.serviceRoot + "$metadata")
        let doc = try #require(metadata.response, "\(metadata)")
        #expect(doc.status == 200)
        #expect(doc.header("content-type")?.hasPrefix("application/xml") == true)
        #expect(doc.text.contains("<EntitySet Name=\"Products\""))

        let products = await get(transport, server.serviceRoot + "Products?$top=3&$orderby=ID", headers: json)
        let page = try #require(products.response, "\(products)")
        #expect(page.status == 200)
        #expect(page.header("OData-Version") == "4.01")
        #expect(page.text.contains("\"ID\":3,\"Name\":\"Product 003\""))
        #expect(!page.text.contains("\"ID\":4,"))

        let head = await perform(transport, HTTPRequest(method: "HEAD", url: server.serviceRoot + "$metadata"))
        let headResponse = try #require(head.response, "\(head)")
        #expect(headResponse.status == 200)
        #expect(headResponse.body.isEmpty)
    }

    @Test func getsMetadataAndAnEntitySetFromV2() async throws {
        let server = try TestServer.start(.v2)
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }

        let metadata = await get(transport, server.serviceRoot + "$metadata")
        let doc = try #require(metadata.response, "\(metadata)")
        #expect(doc.status == 200)
        #expect(doc.text.contains("ODataStoreTestV2"))

        let products = await get(transport, server.serviceRoot + "Products?$top=2", headers: json)
        let page = try #require(products.response, "\(products)")
        #expect(page.status == 200)
        #expect(page.text.hasPrefix("{\"d\":{\"results\":["))
        #expect(page.text.contains("\"Price\":\"37.37\""))
        #expect(page.header("ETag") == nil)  // collections carry ETags inside __metadata
    }

    /// With `batchScheduling` the transport thread is the `YieldingProducer` of what it
    /// queues, an ordinary thread outside callback batches (see CallbackQueueTests for the
    /// yielding itself); without it, none. Both work.
    @Test(arguments: [true, false])
    func transportThreadYieldsToCallbacksWhenConfigured(batch: Bool) async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport(configuration: CurlTransportConfiguration(batchScheduling: batch))
        defer { transport.shutdown() }

        let result = await get(transport, server.serviceRoot + "Products(7)", headers: json)
        let response = try #require(result.response, "\(result)")
        #expect(response.status == 200)
        #expect(response.text.contains("\"ID\":7,"))
        #if os(Linux)
        if batch && sched_getscheduler(0) == 0 {
            let producer = try #require(transport.yieldingProducer)
            #expect(producer.currentPolicy == 0)  // SCHED_OTHER outside callback batches
        } else {
            #expect(transport.yieldingProducer == nil)
        }
        #else
        #expect(transport.yieldingProducer == nil)
        #endif
    }

    @Test func manyConcurrentGetsShareAFewKeepAliveConnections() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport(configuration: CurlTransportConfiguration(maxConnectionsPerHost: 8))
        defer { transport.shutdown() }

        let count = 200
        let statuses = await withTaskGroup(of: (Int, Int, Bool).self) { group in
            for i in 0..<count {
                let id = i % 300 + 1
                group.addTask {
                    let result = await get(transport, server.serviceRoot + "Products(\(id))", headers: self.json)
                    let response = result.response
                    return (i, response?.status ?? -1, response?.text.contains("\"ID\":\(id),") ?? false)
                }
            }
            var all: [(Int, Int, Bool)] = []
            for await item in group { all.append(item) }
            return all
        }
        #expect(statuses.count == count)
        #expect(statuses.allSatisfy { $0.1 == 200 && $0.2 })
        let stats = transport.statistics
        #expect(stats.requestsStarted == count)
        #expect(stats.requestsCompleted == count)
        // Keep-alive: at most one new connection per allowed connection, not one per request.
        #expect(stats.connectionsOpened >= 1)
        #expect(stats.connectionsOpened <= 8, "connections opened: \(stats.connectionsOpened)")
    }

    /// The worker sleeps in poll() on libcurl's sockets and its wake-up pipe: a send to an idle
    /// transport (past its 1 s poll limit, no socket watched) wakes it, the kept connection is
    /// reused, and a send with a delay (a retry's backoff) starts once the delay is over.
    @Test func anIdleTransportWakesForSendsAndDelayedSends() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }

        let first = await get(transport, server.serviceRoot + "Products(1)", headers: json)
        #expect(first.response?.status == 200, "\(first)")
        // Idle: the worker's next sleep runs out (its 1 s limit; nothing else to wait for).
        var timeouts = transport.pollTimeouts
        #expect(transport.waitForPollTimeouts(timeouts + 1, milliseconds: 10_000), "the idle transport never slept 1 s")
        let second = await get(transport, server.serviceRoot + "Products(2)", headers: json)
        #expect(second.response?.status == 200, "\(second)")
        #expect(second.response?.text.contains("\"ID\":2,") == true)

        // Idle again before the delayed send.
        timeouts = transport.pollTimeouts
        #expect(transport.waitForPollTimeouts(timeouts + 1, milliseconds: 10_000), "the idle transport never slept 1 s")
        let delayed = await withCheckedContinuation { continuation in
            transport.send(HTTPRequest(method: "GET", url: server.serviceRoot + "Products(3)", headers: json),
                           delayMilliseconds: 150) { continuation.resume(returning: $0) }
        }
        #expect(delayed.response?.status == 200, "\(delayed)")
        let stats = transport.statistics
        #expect(stats.requestsStarted == 3)
        #expect(stats.requestsCompleted == 3)
        #expect(stats.connectionsOpened == 1, "connections opened: \(stats.connectionsOpened)")
    }

    // MARK: - Writing

    @Test func postPatchDeleteRoundTripOnV4() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let root = server.serviceRoot
        let jsonBody: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Accept", "application/json")]

        let created = await perform(transport, HTTPRequest(
            method: "POST", url: root + "Products", headers: jsonBody,
            body: Array(#"{"ID":5001,"Name":"Transport test","Price":"12.50","Stock":7,"Discontinued":false,"CategoryID":2}"#.utf8)))
        let post = try #require(created.response, "\(created)")
        #expect(post.status == 201)
        #expect(post.header("Location")?.hasSuffix("Products(5001)") == true)
        let etag = try #require(post.header("ETag"))

        let noPrecondition = await perform(transport, HTTPRequest(
            method: "PATCH", url: root + "Products(5001)", headers: jsonBody, body: Array(#"{"Price":"1.00"}"#.utf8)))
        #expect(noPrecondition.response?.status == 428)

        let stale = await perform(transport, HTTPRequest(
            method: "PATCH", url: root + "Products(5001)", headers: jsonBody + [("If-Match", #"W/"99""#)],
            body: Array(#"{"Price":"1.00"}"#.utf8)))
        #expect(stale.response?.status == 412)

        let patched = await perform(transport, HTTPRequest(
            method: "PATCH", url: root + "Products(5001)", headers: jsonBody + [("If-Match", etag)],
            body: Array(#"{"Price":"13.75"}"#.utf8)))
        let patch = try #require(patched.response, "\(patched)")
        #expect(patch.status == 204)
        #expect(patch.body.isEmpty)
        let newETag = try #require(patch.header("ETag"))
        #expect(newETag != etag)

        let read = await get(transport, root + "Products(5001)?$select=Price", headers: json)
        #expect(read.response?.text.contains("\"Price\":13.75") == true)

        let deleted = await perform(transport, HTTPRequest(
            method: "DELETE", url: root + "Products(5001)", headers: [("If-Match", newETag)]))
        #expect(deleted.response?.status == 204)
        let gone = await get(transport, root + "Products(5001)", headers: json)
        #expect(gone.response?.status == 404)
    }

    /// One pooled easy handle carries every exchange: a GET after HEAD, POST, DELETE or PATCH
    /// must be a GET again (no NOBODY, custom method or body left over), and changed headers
    /// and timeouts must be the ones sent.
    @Test func methodsSwitchOnOneReusedHandle() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var configuration = CurlTransportConfiguration()
        configuration.easyHandlePoolSize = 1
        let transport = try CurlTransport(configuration: configuration)
        defer { transport.shutdown() }
        let root = server.serviceRoot
        let jsonBody: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Accept", "application/json")]

        func expectProduct(_ id: Int, _ note: Comment) async {
            let read = await get(transport, root + "Products(\(id))", headers: json)
            #expect(read.response?.status == 200, note)
            let padded = String(repeating: "0", count: max(0, 3 - String(id).count)) + String(id)
            #expect(read.response?.text.contains(#""Name":"Product \#(padded)""#) == true, note)
        }

        await expectProduct(1, "first GET")
        let head = await perform(transport, HTTPRequest(method: "HEAD", url: root + "Products(1)", headers: json))
        #expect(head.response?.status == 200)
        #expect(head.response?.body.isEmpty == true)
        await expectProduct(1, "GET after HEAD")

        let created = await perform(transport, HTTPRequest(
            method: "POST", url: root + "Products", headers: jsonBody,
            body: Array(#"{"ID":5101,"Name":"Reuse test","Price":"1.50","Stock":1,"Discontinued":false,"CategoryID":2}"#.utf8)))
        #expect(created.response?.status == 201, "\(created)")
        await expectProduct(2, "GET after POST")

        let etag = try #require(created.response?.header("ETag"))
        let patched = await perform(transport, HTTPRequest(
            method: "PATCH", url: root + "Products(5101)", headers: jsonBody + [("If-Match", etag)],
            body: Array(#"{"Price":"2.50"}"#.utf8)))
        #expect(patched.response?.status == 204, "\(patched)")
        await expectProduct(3, "GET after PATCH")

        let deleted = await perform(transport, HTTPRequest(method: "DELETE", url: root + "Products(5101)", headers: [("If-Match", "*")]))
        #expect(deleted.response?.status == 204, "\(deleted)")
        await expectProduct(4, "GET after DELETE")
        await expectProduct(4, "the same entity is still there: the GET did not delete it")

        // Other headers on the same handle: XML instead of JSON.
        let xml = await get(transport, root + "$metadata", headers: [("Accept", "application/xml")])
        #expect(xml.response?.header("Content-Type")?.contains("xml") == true)
        await expectProduct(5, "GET with the JSON headers again")

        // A per-request timeout, then the default again.
        let quick = await get(transport, root + "Products(6)", headers: json, timeoutMilliseconds: 30_000)
        #expect(quick.response?.status == 200)
        await expectProduct(6, "GET with the default timeout")

        let stats = transport.statistics
        #expect(stats.requestsCompleted == 14)
    }

    @Test func largeRequestBodyIsSentWhole() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let description = String(repeating: "0123456789abcdef", count: 20_000)  // 320 kB
        let body = #"{"CustomerID":"BIG","CompanyName":"\#(description)","City":"Oslo"}"#
        let created = await perform(transport, HTTPRequest(
            method: "POST", url: server.serviceRoot + "Customers",
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")], body: Array(body.utf8)))
        #expect(created.response?.status == 201, "\(created)")
        let read = await get(transport, server.serviceRoot + "Customers('BIG')/CompanyName/$value")
        #expect(read.response?.text == description)
    }

    @Test func mergeOnV2() async throws {
        let server = try TestServer.start(.v2)
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let merged = await perform(transport, HTTPRequest(
            method: "MERGE", url: server.serviceRoot + "Products(5)",
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
            body: Array(#"{"Price":"12.34"}"#.utf8)))
        let merge = try #require(merged.response, "\(merged)")
        #expect(merge.status == 204)
        let read = await get(transport, server.serviceRoot + "Products(5)?$select=Price,Name", headers: json)
        let text = try #require(read.response?.text)
        #expect(text.contains("\"Price\":\"12.34\""))
        #expect(text.contains("\"Name\":\"Product 005\""))  // MERGE kept what it did not send
    }

    // MARK: - Failures

    @Test func unreachableHost() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let result = await get(transport, "http://127.0.0.1:\(closedLocalPort())/odata/$metadata")
        guard case .failure(.unreachable(let message)) = result else {
            Issue.record("expected .unreachable, got \(result)")
            return
        }
        #expect(message.contains("curl error 7"))
    }

    @Test func tlsHandshakeWithAPlainHTTPServerIsATLSError() async throws {
        // The proxy answers a TLS ClientHello at once with a plain-HTTP 400 (waitress would
        // sit on it until the connect timeout).
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let result = await get(transport, "https://127.0.0.1:\(proxy.port)/odata/$metadata")
        guard case .failure(.tls) = result else {
            Issue.record("expected .tls, got \(result)")
            return
        }
    }

    @Test func timeoutsPerRequestAndByDefault() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("slow", count: -1, delayMilliseconds: 3000)

        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let perRequest = await get(transport, proxy.serviceRoot + "Categories", timeoutMilliseconds: 300)
        guard case .failure(.timeout) = perRequest else {
            Issue.record("expected .timeout, got \(perRequest)")
            return
        }

        let short = try CurlTransport(configuration: CurlTransportConfiguration(defaultTimeoutMilliseconds: 300))
        defer { short.shutdown() }
        let byDefault = await get(short, proxy.serviceRoot + "Categories")
        guard case .failure(.timeout) = byDefault else {
            Issue.record("expected .timeout, got \(byDefault)")
            return
        }
    }

    @Test func brokenConnectionsAndGarbageAreIOErrors() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }

        for mode in ["reset", "close", "garbage", "truncate"] {
            try proxy.setFault(mode, count: 1)
            let result = await get(transport, proxy.serviceRoot + "Products", headers: json)
            #expect(result.isIOError, "\(mode): \(result)")
        }
        // The transport is still fine afterwards.
        let after = await get(transport, proxy.serviceRoot + "Categories(1)", headers: json)
        #expect(after.response?.status == 200, "\(after)")
    }

    /// Response headers are bounded whatever a server sends (libcurl's limits: 100 KB for one
    /// line, 300 KB in all), and the error says which, not only "Out of memory".
    @Test func oversizedResponseHeadersAreIOErrorsThatSaySo() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }

        try proxy.setFault("respond", count: 1, status: 200,
                           headers: [("Content-Type", "application/json"), ("X-Long", String(repeating: "a", count: 150_000))],
                           body: "{}")
        let long = await get(transport, proxy.serviceRoot + "Products", headers: json)
        guard case .failure(.io(let longMessage)) = long else { Issue.record("\(long)"); return }
        #expect(longMessage.contains("header line longer than libcurl's limit of 100 KB"), "\(longMessage)")

        let many = (0..<4_000).map { ("X-Filler-\($0)", String(repeating: "b", count: 90)) }
        try proxy.setFault("respond", count: 1, status: 200, headers: [("Content-Type", "application/json")] + many, body: "{}")
        let lots = await get(transport, proxy.serviceRoot + "Products", headers: json)
        guard case .failure(.io(let lotsMessage)) = lots else { Issue.record("\(lots)"); return }
        #expect(lotsMessage.contains("Too large response headers"), "\(lotsMessage)")

        // The transport is still fine afterwards.
        let after = await get(transport, proxy.serviceRoot + "Categories(1)", headers: json)
        #expect(after.response?.status == 200, "\(after)")
    }

    @Test func serverErrorsAreResponses() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }

        try proxy.setFault("http500", count: 1)
        let failed = await get(transport, proxy.serviceRoot + "Products", headers: json)
        let error = try #require(failed.response, "\(failed)")
        #expect(error.status == 500)
        #expect(error.header("Content-Type") == "text/html; charset=utf-8")
        #expect(error.text.contains("<h1>Internal Server Error</h1>"))

        try proxy.setFault("http503", count: 1)
        let unavailable = await get(transport, proxy.serviceRoot + "Products", headers: json)
        #expect(unavailable.response?.status == 503)
        #expect(unavailable.response?.header("Retry-After") == "1")

        try proxy.setFault("badjson", count: 1)
        let garbled = await get(transport, proxy.serviceRoot + "Products", headers: json)
        #expect(garbled.response?.status == 200)
        #expect(garbled.response?.text.hasPrefix("{\"@odata.context\"") == true)
    }

    @Test func unauthorizedThenAcceptedAfterLogin() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let credentials = "Basic dXNlcjpzZWNyZXQ="
        try proxy.setFault("auth", authorization: credentials)

        let anonymous = await get(transport, proxy.serviceRoot + "Categories(1)", headers: json)
        let challenge = try #require(anonymous.response, "\(anonymous)")
        #expect(challenge.status == 401)
        #expect(challenge.header("WWW-Authenticate")?.hasPrefix("Basic ") == true)

        let loggedIn = await get(transport, proxy.serviceRoot + "Categories(1)",
                                 headers: json + [("Authorization", credentials)])
        #expect(loggedIn.response?.status == 200, "\(loggedIn)")
    }

    @Test func invalidRequestsFailWithoutReachingTheWire() async throws {
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let url = "http://127.0.0.1:\(closedLocalPort())/"
        let injected = await get(transport, url, headers: [("X-Test", "a\r\nX-Injected: 1")])
        #expect(injected.isIOError)
        let badMethod = await perform(transport, HTTPRequest(method: "GET /x", url: url))
        #expect(badMethod.isIOError)
        let badURL = await get(transport, "http://127.0.0.1/a b")
        #expect(badURL.isIOError)
        let notHTTP = await get(transport, "file:///etc/passwd")
        #expect(notHTTP.isIOError, "\(notHTTP)")
    }

    // MARK: - Cancellation and shutdown

    @Test func cancelInFlight() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("slow", count: -1, delayMilliseconds: 60_000, match: "Categories")
        let transport = try CurlTransport()
        defer { transport.shutdown() }

        let recorder = CompletionRecorder()
        // Cancelled right away (possibly before the transport thread picked it up) ...
        let first = transport.send(HTTPRequest(method: "GET", url: proxy.serviceRoot + "Categories")) {
            recorder.record(1, $0)
        }
        transport.cancel(first)
        // ... and while the server is sitting on it.
        let second = transport.send(HTTPRequest(method: "GET", url: proxy.serviceRoot + "Categories")) {
            recorder.record(2, $0)
        }
        await sleepMilliseconds(300)
        transport.cancel(second)
        // A request that is not cancelled still completes normally.
        let other = await get(transport, proxy.serviceRoot + "Products(1)", headers: json)
        #expect(other.response?.status == 200)
        transport.cancel(second)  // again: no second completion
        transport.cancel(999_999)  // unknown: ignored

        var results = recorder.snapshot()
        for _ in 0..<100 where results.count < 2 {
            await sleepMilliseconds(20)
            results = recorder.snapshot()
        }
        #expect(results[1]?.count == 1)
        #expect(results[2]?.count == 1)
        #expect(results[1]?.first?.error == .cancelled)
        #expect(results[2]?.first?.error == .cancelled, "\(String(describing: results[2]))")
        #expect(first != second)
    }

    @Test func shutdownCompletesEveryRequestInFlightExactlyOnce() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("slow", count: -1, delayMilliseconds: 60_000)
        let transport = try CurlTransport()

        let recorder = CompletionRecorder()
        var ids: [UInt64] = []
        for i in 0..<100 {
            ids.append(transport.send(HTTPRequest(method: "GET", url: proxy.serviceRoot + "Products(\(i + 1))")) {
                recorder.record(i, $0)
            })
        }
        #expect(Set(ids).count == 100)
        await sleepMilliseconds(200)
        transport.shutdown()

        // shutdown() has joined the thread: every completion has already run.
        let results = recorder.snapshot()
        #expect(results.count == 100)
        for i in 0..<100 {
            let got = results[i] ?? []
            #expect(got.count == 1, "request \(i): \(got.count) completions")
            #expect(got.first?.error == .closed || got.first?.error == .cancelled, "request \(i): \(got)")
        }

        // After shutdown: .closed, delivered before send returns.
        let late = CompletionRecorder()
        transport.send(HTTPRequest(method: "GET", url: proxy.serviceRoot + "Products(1)")) { late.record(0, $0) }
        #expect(late.snapshot()[0]?.first?.error == .closed)
        transport.cancel(ids[0])  // harmless
        transport.shutdown()  // idempotent

        await sleepMilliseconds(100)
        #expect(recorder.snapshot().values.allSatisfy { $0.count == 1 })
    }

    @Test func releasingTheTransportClosesWhatIsInFlight() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        try proxy.setFault("slow", count: -1, delayMilliseconds: 60_000)
        let recorder = CompletionRecorder()
        do {
            let transport = try CurlTransport()
            transport.send(HTTPRequest(method: "GET", url: proxy.serviceRoot + "Categories")) { recorder.record(0, $0) }
            await sleepMilliseconds(100)
        }  // the last reference goes: deinit shuts down and joins the thread
        #expect(recorder.snapshot()[0]?.count == 1)
        #expect(recorder.snapshot()[0]?.first?.error == .closed)
    }

    @Test func completionsMaySendAndShutDown() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport()
        let root = server.serviceRoot

        // A completion that sends the next request, and a last one that shuts the transport
        // down from its own thread (it must not deadlock joining itself).
        let chained: Result<HTTPResponse, HTTPTransportError> = await withCheckedContinuation { continuation in
            transport.send(HTTPRequest(method: "GET", url: root + "Categories(1)")) { _ in
                transport.send(HTTPRequest(method: "GET", url: root + "Categories(2)")) { second in
                    transport.shutdown()
                    continuation.resume(returning: second)
                }
            }
        }
        #expect(chained.response?.status == 200)
        let after = await get(transport, root + "Categories(3)")
        #expect(after.error == .closed)
        transport.shutdown()
    }

    // MARK: - What goes on the wire

    /// User-Agent and Accept-Encoding travel in the header list (CurlWorker.standardHeaders),
    /// not through libcurl's own options: each must still go out exactly once, a request's
    /// own value must replace ours (never a second line), a body request gets them too, and
    /// a compressed answer is still decoded.
    @Test func userAgentAndAcceptEncodingGoOutOnceAndYieldToTheRequest() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        let transport = try CurlTransport(configuration: CurlTransportConfiguration(userAgent: "ua-test/1"))
        defer { transport.shutdown() }
        let root = proxy.serviceRoot

        #expect(await get(transport, root + "Categories(1)", headers: json).response?.status == 200)
        #expect(await get(transport, root + "Categories(2)",
                          headers: json + [("user-agent", "mine/2"), ("Accept-Encoding", "identity")]).response?.status == 200)
        let post = await perform(transport, HTTPRequest(method: "POST", url: root + "Categories",
                                                         headers: json + [("Content-Type", "application/json")],
                                                         body: Array("{\"ID\":901,\"Name\":\"Wire\"}".utf8)))
        #expect(post.response?.status == 201, "\(post)")

        let heads = try #require(JSONValue.parse(proxy.faultState())["headers"]?.arrayValue)
        try #require(heads.count == 3)
        func values(_ request: Int, _ name: String) -> [String] {
            (heads[request].arrayValue ?? []).compactMap { pair -> String? in
                guard pair[0]?.stringValue?.lowercased() == name.lowercased() else { return nil }
                return pair[1]?.stringValue
            }
        }
        let encodings = CurlWorker.decodableEncodings()
        #expect(values(0, "User-Agent") == ["ua-test/1"])
        #expect(values(0, "Accept-Encoding") == [encodings])
        #expect(values(0, "Expect").isEmpty && values(0, "Content-Type").isEmpty)
        #expect(values(1, "User-Agent") == ["mine/2"])
        #expect(values(1, "Accept-Encoding") == ["identity"])
        #expect(values(2, "User-Agent") == ["ua-test/1"])
        #expect(values(2, "Accept-Encoding") == [encodings])
        #expect(values(2, "Content-Type") == ["application/json"])
        #expect(values(2, "Expect").isEmpty)

        // A gzip answer is inflated (decoding stays on): the proxy's gzip of spaces.
        try proxy.setFault("gzipbomb", match: "Categories(3)", inflatedBytes: 4096)
        let inflated = await get(transport, root + "Categories(3)", headers: json)
        #expect(inflated.response?.body == Array(repeating: UInt8(ascii: " "), count: 4096), "\(inflated)")
    }

    /// Through a forward proxy the User-Agent is also set for libcurl's own proxy requests
    /// (CONNECT); the request itself must still carry exactly one. The fault proxy stands in
    /// for the forward proxy: it records the request as libcurl sent it (absolute-form target,
    /// which it passes on as is: the upstream answers 404, which does not matter here).
    @Test func throughAForwardProxyTheUserAgentGoesOutOnce() async throws {
        let (server, proxy) = try Self.proxied(.v4)
        defer { proxy.stop(); server.stop() }
        let transport = try CurlTransport(configuration: CurlTransportConfiguration(userAgent: "ua-test/2", proxy: proxy.origin))
        defer { transport.shutdown() }
        let answer = await get(transport, server.serviceRoot + "Categories(1)", headers: json)
        #expect(answer.response != nil, "\(answer)")
        let state = try JSONValue.parse(proxy.faultState())
        #expect(state["log"]?[0]?.stringValue == "GET " + server.serviceRoot + "Categories(1)")
        let heads = try #require(state["headers"]?.arrayValue)
        try #require(heads.count == 1)
        let agents = (heads[0].arrayValue ?? []).filter { $0[0]?.stringValue?.lowercased() == "user-agent" }
        #expect(agents.compactMap { $0[1]?.stringValue } == ["ua-test/2"])
    }

    @Test func aUserAgentWithALineBreakIsRefused() {
        #expect(CurlTransportConfiguration(userAgent: "a\r\nX-Injected: 1").validationProblem() != nil)
        #expect(CurlTransportConfiguration(userAgent: "a\nb").validationProblem() != nil)
        #expect(CurlTransportConfiguration(userAgent: "ok/1 (x)").validationProblem() == nil)
    }

    // MARK: - Helpers

    /// A real server with the fault proxy in front of it.
    private static func proxied(_ kind: TestServer.Kind) throws -> (TestServer, TestServer) {
        let server = try TestServer.start(kind)
        do {
            return (server, try TestServer.faultProxy(upstream: server.serviceRoot))
        } catch {
            server.stop()
            throw error
        }
    }
}
