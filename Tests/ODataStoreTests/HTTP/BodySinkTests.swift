import Synchronization
import Testing
@testable import ODataStore

/// `HTTPRequest.bodySink` on `CurlTransport`, against the real test servers: a 2xx body goes
/// to the sink as it arrives (the response's body stays empty), paused while the sink is full
/// and resumed from another thread; other answers stay buffered; the limits still apply.
@Suite("HTTPBodySink", .timeLimit(.minutes(2)))
struct BodySinkTests {
    private let json: [(name: String, value: String)] = [("Accept", "application/json")]

    /// Takes bytes while it holds fewer than `bound`; a drain thread empties it and resumes.
    final class BoundedSink: HTTPBodySink, @unchecked Sendable {
        struct State {
            var held = 0
            var received: [UInt8] = []
            var refusals = 0
            var peak = 0
            var resume: (@Sendable () -> Void)?
            var status = 0
        }
        let state = Mutex(State())
        let bound: Int
        let accept: Bool

        init(bound: Int, accept: Bool = true) {
            self.bound = bound
            self.accept = accept
        }

        func begin(status: Int, headers: HTTPHeaderFields, resume: @escaping @Sendable () -> Void) -> Bool {
            state.withLock {
                $0.resume = resume
                $0.status = status
            }
            return accept
        }

        func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
            let taken = state.withLock { s -> Bool in
                if s.held > 0 && s.held + bytes.count > bound {
                    s.refusals += 1
                    return false
                }
                s.held += bytes.count
                s.peak = max(s.peak, s.held)
                s.received.append(contentsOf: bytes)
                return true
            }
            if !taken {
                // Drained later, from another thread, then the transfer resumes.
                Task.detached { [self] in
                    try? await Task.sleep(nanoseconds: 2_000_000)
                    let resume = state.withLock { s -> (@Sendable () -> Void)? in
                        s.held = 0
                        return s.resume
                    }
                    resume?()
                }
            }
            return taken
        }
    }

    @Test func aBodyArrivesInTheSinkWithPausesAndResumes() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let url = server.serviceRoot + "Products?$orderby=ID"
        let buffered = try #require(await get(transport, url, headers: json).response)
        #expect(buffered.body.count > 50_000)

        let sink = BoundedSink(bound: 4_096)
        let streamed = try #require(await perform(transport, HTTPRequest(method: "GET", url: url, headers: json, bodySink: sink)).response)
        #expect(streamed.status == 200)
        #expect(streamed.body.isEmpty)
        #expect(streamed.streamedBytes == buffered.body.count)
        let s = sink.state.withLock { $0 }
        #expect(s.received == buffered.body)
        #expect(s.refusals > 0, "the sink never refused: no pause was tried")
        #expect(s.peak <= max(4_096, 16_384 + 1), "held \(s.peak) bytes")
        #expect(s.status == 200)
        // The transport goes on as before.
        #expect(await get(transport, server.serviceRoot + "Categories(1)", headers: json).response?.status == 200)
    }

    @Test func otherAnswersAndDeclinedBodiesAreBuffered() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let missing = BoundedSink(bound: 1 << 20)
        let notFound = try #require(await perform(transport, HTTPRequest(method: "GET", url: server.serviceRoot + "Products(99999)",
                                                                         headers: json, bodySink: missing)).response)
        #expect(notFound.status == 404 && !notFound.body.isEmpty && notFound.streamedBytes == nil)
        #expect(missing.state.withLock { $0.received.isEmpty && $0.resume == nil })

        let declining = BoundedSink(bound: 1 << 20, accept: false)
        let page = try #require(await perform(transport, HTTPRequest(method: "GET", url: server.serviceRoot + "Products?$top=2",
                                                                     headers: json, bodySink: declining)).response)
        #expect(page.status == 200 && page.text.contains("\"ID\":2") && page.streamedBytes == nil)
        #expect(declining.state.withLock { $0.received.isEmpty && $0.status == 200 })
    }

    @Test func theResponseLimitAppliesToAStreamedBody() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport(configuration: CurlTransportConfiguration(maxResponseBodyBytes: 10_000))
        defer { transport.shutdown() }
        let sink = BoundedSink(bound: 1 << 20)
        let result = await perform(transport, HTTPRequest(method: "GET", url: server.serviceRoot + "Products", headers: json,
                                                          bodySink: sink))
        guard case .failure(.limit(.responseBytes, _)) = result else {
            Issue.record("expected the response-size limit, got \(result)")
            return
        }
        #expect(sink.state.withLock { $0.received.count } <= 10_000)
    }

    @Test func cancellingAPausedTransferEndsIt() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        /// Never resumes: the transfer stays paused until cancelled.
        final class Stuck: HTTPBodySink, @unchecked Sendable {
            let refused = Atomic<Int>(0)
            func begin(status: Int, headers: HTTPHeaderFields, resume: @escaping @Sendable () -> Void) -> Bool { true }
            func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
                refused.add(1, ordering: .relaxed)
                return false
            }
        }
        let sink = Stuck()
        let id = Locked<UInt64>(0)
        let result: Result<HTTPResponse, HTTPTransportError> = await withCheckedContinuation { continuation in
            let sent = transport.send(HTTPRequest(method: "GET", url: server.serviceRoot + "Products", headers: json, bodySink: sink)) {
                continuation.resume(returning: $0)
            }
            id.withLock { $0 = sent }
            Task.detached {
                while sink.refused.load(ordering: .relaxed) == 0 { try? await Task.sleep(nanoseconds: 1_000_000) }
                transport.cancel(id.withLock { $0 })
            }
        }
        guard case .failure(.cancelled) = result else {
            Issue.record("expected .cancelled, got \(result)")
            return
        }
        #expect(await get(transport, server.serviceRoot + "Categories(1)", headers: json).response?.status == 200)
    }
}
