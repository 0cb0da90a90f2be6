#if canImport(Glibc)
import Glibc
#endif
import CCurl
import Synchronization

/// The online store's HTTP engine: libcurl's multi interface driven by one thread.
///
/// Many exchanges run at once over a pool of keep-alive connections (at most
/// `maxConnectionsPerHost` per host; further requests wait for a free connection). Easy
/// handles are reused. Response bodies are buffered, unless the request's `HTTPBodySink`
/// takes a 2xx body as it arrives (the exchange paused while the sink is full).
///
/// Threading: a `CurlTransport` is `Sendable`; `send`, `cancel` and `shutdown` may be called
/// from any thread, including from inside a completion. Completions run on the transport's
/// own thread, one at a time, never while the transport holds a lock; they must return
/// quickly. Each `send` gets exactly one completion:
/// - a response (any status, 4xx/5xx included: those are responses, not errors), or
/// - `.cancelled` after `cancel(id)`, or `.closed` when `shutdown()` ended it in flight, or
/// - another `HTTPTransportError` (`unreachable`, `timeout`, `tls`, `io`).
///
/// After `shutdown()` has begun, `send` calls its completion with `.closed` synchronously, on
/// the calling thread, before it returns (there is no transport thread any more). A caller
/// must therefore not hold a lock in `send` that its completion takes.
///
/// `shutdown()` called from inside a completion cannot wait for its own thread: it stops the
/// transport and returns at once; the thread completes everything in flight with `.closed`
/// and exits when the completion returns. Releasing the last reference shuts down the same
/// way. `curl_global_init` is done once per process and never undone (`curl_global_cleanup`
/// is not safe while other libcurl users may exist in the host process).
public final class CurlTransport: HTTPTransport {
    public let configuration: CurlTransportConfiguration
    private let shared: CurlShared
    private let thread: JoinableThread

    /// Creates the transport and starts its thread.
    /// - Throws: `CurlTransportSetupError` when the configuration is invalid or libcurl or
    ///   the thread cannot be set up.
    public init(configuration: CurlTransportConfiguration = CurlTransportConfiguration()) throws(CurlTransportSetupError) {
        if let problem = configuration.validationProblem() {
            throw CurlTransportSetupError(message: "invalid CurlTransportConfiguration: \(problem)")
        }
        guard curlGlobalInitResult == CURLE_OK.rawValue else {
            throw CurlTransportSetupError(message: "curl_global_init failed (curl error \(curlGlobalInitResult))")
        }
        guard let multi = curl_multi_init() else {
            throw CurlTransportSetupError(message: "curl_multi_init failed")
        }
        _ = ods_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_NOTHING))
        _ = ods_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        _ = ods_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxTotalConnections)
        _ = ods_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxTotalConnections)

        // The worker's wake-up: a non-blocking pipe (its read end is in the worker's poll set).
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            curl_multi_cleanup(multi)
            throw CurlTransportSetupError(message: "pipe failed (errno \(errno))")
        }
        for fd in pipeFDs {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        let shared = CurlShared(wakeFD: pipeFDs[1])
        guard let worker = CurlWorker(multi: multi, wakeFDs: (read: pipeFDs[0], write: pipeFDs[1]),
                                      shared: shared, configuration: configuration) else {
            curl_multi_cleanup(multi)
            pipeFDs.forEach { _ = close($0) }
            throw CurlTransportSetupError(message: "libcurl refused the socket callbacks")
        }
        do {
            thread = try JoinableThread { worker.run() }
        } catch {
            curl_multi_cleanup(multi)
            pipeFDs.forEach { _ = close($0) }
            throw CurlTransportSetupError(message: "cannot start the transport thread: \(error)")
        }
        self.configuration = configuration
        self.shared = shared
    }

    deinit {
        shutdown()
    }

    @discardableResult
    public func send(_ request: HTTPRequest,
                     completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) -> UInt64 {
        send(request, delayMilliseconds: 0, completion: completion)
    }

    @discardableResult
    public func send(_ request: HTTPRequest, delayMilliseconds: Int,
                     completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) -> UInt64 {
        let notBefore: UInt64 = delayMilliseconds > 0 ? MonotonicClock.deadline(afterMilliseconds: delayMilliseconds) : 0
        let (id, accepted, wake) = shared.inbox.withLock { inbox -> (UInt64, Bool, Bool) in
            let id = inbox.nextID
            inbox.nextID &+= 1
            if inbox.shutdownRequested { return (id, false, false) }
            inbox.starts.append(CurlPendingSend(id: id, request: request, notBefore: notBefore, completion: completion))
            return (id, true, inbox.claimWakeup())
        }
        if wake { shared.wakeWorker() }
        if !accepted {
            completion(.failure(.closed))
        }
        return id
    }

    public func cancel(_ id: UInt64) {
        let wake = shared.inbox.withLock { inbox -> Bool in
            if inbox.shutdownRequested { return false }  // everything in flight ends with .closed
            inbox.cancels.append(id)
            return inbox.claimWakeup()
        }
        if wake { shared.wakeWorker() }
    }

    public func shutdown() {
        let wake = shared.inbox.withLock { inbox -> Bool in
            if inbox.shutdownRequested { return false }
            inbox.shutdownRequested = true
            return inbox.claimWakeup()
        }
        if wake { shared.wakeWorker() }
        thread.join()
    }

    /// The transport thread as the `YieldingProducer` of the callbacks it queues
    /// (`CurlTransportConfiguration.batchScheduling`); nil before the thread has started, when
    /// off, and off Linux. For tests.
    var yieldingProducer: YieldingProducer? { shared.producer.withLock { $0 } }

    /// The transport thread's sleeps in poll() that ended by their time limit so far, and a
    /// bounded wait for more (the thread was idle that long). For tests.
    var pollTimeouts: Int { shared.pollTimeoutsSoFar }
    func waitForPollTimeouts(_ count: Int, milliseconds: Int) -> Bool {
        shared.waitForPollTimeouts(count, milliseconds: milliseconds)
    }

    /// Counters since the transport was created.
    public var statistics: CurlTransportStatistics {
        CurlTransportStatistics(
            requestsStarted: shared.requestsStarted.load(ordering: .relaxed),
            requestsCompleted: shared.requestsCompleted.load(ordering: .relaxed),
            connectionsOpened: shared.connectionsOpened.load(ordering: .relaxed))
    }
}

/// What a `CurlTransport` has done so far (monotonic counters).
public struct CurlTransportStatistics: Sendable, Equatable {
    /// Exchanges handed to libcurl.
    public var requestsStarted: Int
    /// Exchanges that libcurl finished, with a response or an error (not cancelled/closed).
    public var requestsCompleted: Int
    /// New connections libcurl had to open (sum of CURLINFO_NUM_CONNECTS); with keep-alive
    /// working this stays far below `requestsCompleted`.
    public var connectionsOpened: Int
}

/// `curl_global_init`, done once per process (a Swift global is initialised exactly once,
/// thread-safely) before the first transport is created.
private let curlGlobalInitResult: UInt32 = ods_curl_global_init_default().rawValue

/// A `send` waiting for the transport thread to pick it up.
struct CurlPendingSend: Sendable {
    let id: UInt64
    let request: HTTPRequest
    /// `MonotonicClock` time before which it must not start (0: at once); a retry's backoff.
    let notBefore: UInt64
    let completion: @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void
}

/// What the callers of a transport hand to its thread (under the mutex), plus counters.
struct CurlInbox {
    var starts: [CurlPendingSend] = []
    var cancels: [UInt64] = []
    /// Transfers their body sink asks to unpause.
    var resumes: [UInt64] = []
    var shutdownRequested = false
    var nextID: UInt64 = 1
    /// The worker found the inbox empty and is in (or about to enter) poll().
    /// While it is not, it looks at the inbox before it sleeps again, so new work needs no
    /// wake-up (a wake-up is a write on the worker's pipe, and a read to drain it).
    var workerSleeping = false
    /// A wake-up was sent since the worker went to sleep: one is enough.
    var wakeupSent = false

    var isEmpty: Bool { starts.isEmpty && cancels.isEmpty && resumes.isEmpty && !shutdownRequested }

    /// True when the caller must wake the worker (`CurlShared.wakeWorker`, after releasing
    /// the inbox lock): it sleeps in poll(), or is about to (then the wake-up makes
    /// that poll return at once), and nobody has woken it yet.
    mutating func claimWakeup() -> Bool {
        guard workerSleeping, !wakeupSent else { return false }
        wakeupSent = true
        return true
    }
}

/// The write end of the worker's wake-up pipe as other threads see it: written only while `alive`.
struct CurlWakeDescriptor: Sendable {
    let fd: Int32
    /// False once the worker is about to close it.
    var alive = true
    /// The worker as the `YieldingProducer` of its callbacks, told of every wake-up.
    var producer: YieldingProducer?
}

final class CurlShared: Sendable {
    let inbox: Locked<CurlInbox>
    /// Separate from the inbox lock, so that a thread woken by the pipe (it may
    /// preempt the caller on a shared CPU) never finds the inbox locked by its waker.
    private let wakeup: Locked<CurlWakeDescriptor>
    let requestsStarted = Atomic<Int>(0)
    let requestsCompleted = Atomic<Int>(0)
    let connectionsOpened = Atomic<Int>(0)
    /// The transport thread as a `YieldingProducer` (`CurlTransportConfiguration.batchScheduling`),
    /// set when the thread starts; nil before, when off, and off Linux. For tests.
    let producer = Locked<YieldingProducer?>(nil)
    /// How many of the worker's sleeps in poll() ended by their time limit (nothing happened
    /// meanwhile), with a condition that tests wait on for the worker to have been idle.
    private let pollTimeouts = ConditionLock()
    private nonisolated(unsafe) var pollTimeoutCount = 0  // guarded by `pollTimeouts`

    /// The worker: a sleep ended by its time limit.
    func notePollTimeout() {
        pollTimeouts.withLock {
            pollTimeoutCount += 1
            pollTimeouts.broadcast()
        }
    }

    /// Waits up to `milliseconds` until the worker's sleeps that ended by their time limit
    /// number at least `count`; returns whether they do. For tests.
    func waitForPollTimeouts(_ count: Int, milliseconds: Int) -> Bool {
        let deadline = MonotonicClock.deadline(afterMilliseconds: milliseconds)
        return pollTimeouts.withLock {
            while pollTimeoutCount < count {
                if !pollTimeouts.wait(untilNanoseconds: deadline) { return pollTimeoutCount >= count }
            }
            return true
        }
    }

    /// The sleeps that ended by their time limit so far. For tests.
    var pollTimeoutsSoFar: Int { pollTimeouts.withLock { pollTimeoutCount } }

    init(wakeFD: Int32) {
        inbox = Locked(CurlInbox())
        wakeup = Locked(CurlWakeDescriptor(fd: wakeFD))
    }

    /// Makes the worker's poll() return, unless the worker has begun to shut down.
    func wakeWorker() {
        wakeup.withLock { descriptor in
            guard descriptor.alive else { return }
            var byte: UInt8 = 1
            _ = write(descriptor.fd, &byte, 1)
            descriptor.producer?.noteWoken()
        }
    }

    /// The worker, when it starts: the yielding producer it is (nil: none).
    func setProducer(_ producer: YieldingProducer?) {
        self.producer.withLock { $0 = producer }
        wakeup.withLock { $0.producer = producer }
    }

    /// A body sink's `resume` (any thread): the worker unpauses the transfer.
    func requestResume(_ id: UInt64) {
        let wake = inbox.withLock { inbox -> Bool in
            if inbox.shutdownRequested { return false }
            inbox.resumes.append(id)
            return inbox.claimWakeup()
        }
        if wake { wakeWorker() }
    }

    /// The worker, before it closes the pipe: no wake-up runs or starts after this returns.
    func retireMultiHandle() {
        wakeup.withLock { $0.alive = false }
    }
}
