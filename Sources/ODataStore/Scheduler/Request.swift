import Synchronization

/// One OData request: created unstarted, configured, then started; results arrive through
/// its delegate and/or completion.
///
/// Ownership: the store keeps a started request alive until its last callback has returned,
/// so an app may drop its own reference at any time. Threading: all methods are thread-safe;
/// the setters succeed only before `start`.
public final class Request: Sendable {
    /// Unique within the store, never 0.
    public let id: UInt64
    public let mode: RequestMode
    /// The resource path as given (relative to the service root, or a full URL under it).
    public let path: String
    /// The entity body in the canonical JSON shape, for create/update/function calls.
    public let body: String?
    /// The store the request belongs to.
    public let store: Store
    /// The absolute URL of `path`, made and checked when the request was created.
    let url: String

    private struct Mutable {
        var state: RequestState = .new
        var delegate: (any RequestDelegate)?
        var completion: RequestCompletion?
        var headers: [(name: String, value: String)] = []
        var etag: String?
        var paging: Paging = .none
        var timeoutMilliseconds = 0
        var route: RequestRoute = .automatic
        var context: (any Sendable)?
        var task: (any EngineTask)?
        /// What the request delivered, once its last callback has returned.
        var outcome: Result<Response, RequestFailure>?
    }
    private let mutable = Locked(Mutable())
    /// Set once every callback of the request has returned.
    private let delivered = Atomic<Bool>(false)
    /// Threads in `wait` on this request (they sleep on the store's `deliveries` condition,
    /// shared by its requests: a request makes no lock of its own for the rare waiter).
    private let waiters = Atomic<Int>(0)

    init(store: Store, id: UInt64, mode: RequestMode, path: String, url: String, body: String?) {
        self.store = store
        self.url = url
        self.id = id
        self.mode = mode
        self.path = path
        self.body = body
    }

    public var state: RequestState { mutable.withLock { $0.state } }

    /// An app value carried with the request (the C layer keeps its `void *` context here).
    /// May be set at any time.
    public var context: (any Sendable)? {
        get { mutable.withLock { $0.context } }
        set { mutable.withLock { $0.context = newValue } }
    }

    /// The delegate, if set (nil once the request's last callback has run).
    public var delegate: (any RequestDelegate)? { mutable.withLock { $0.delegate } }

    public func setDelegate(_ delegate: (any RequestDelegate)?) throws(ODataStoreError) {
        try configure { $0.delegate = delegate }
    }

    public func setCompletion(_ completion: RequestCompletion?) throws(ODataStoreError) {
        try configure { $0.completion = completion }
    }

    /// Adds a header (replacing one with the same name, case-insensitively); nil removes it.
    public func setHeader(_ name: String, _ value: String?) throws(ODataStoreError) {
        guard isValidHeaderName(name) else { throw .invalid("invalid header name \"\(name)\"") }
        if let reason = reservedHeaderReason(name) { throw .invalid(reason) }
        if let value, !isValidFieldValue(value) {
            throw .invalid("header value for \(name) contains CR, LF, NUL or another control character (only tab may appear)")
        }
        try configure { m in
            m.headers.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
            if let value { m.headers.append((name, value)) }
        }
    }

    /// The ETag sent as If-Match on update/delete; nil falls back to the body's `@odata.etag`.
    public func setETag(_ etag: String?) throws(ODataStoreError) {
        if let etag, !isValidFieldValue(etag) { throw .invalid("ETag contains CR, LF, NUL or another control character") }
        try configure { $0.etag = etag }
    }

    public func setPaging(_ paging: Paging) throws(ODataStoreError) {
        try configure { $0.paging = paging }
    }

    /// Time limit per HTTP exchange in milliseconds; 0 uses the store's.
    public func setTimeout(milliseconds: Int) throws(ODataStoreError) {
        guard milliseconds >= 0 else { throw .invalid("timeout must not be negative") }
        try configure { $0.timeoutMilliseconds = milliseconds }
    }

    /// Sends the request to one side of a mixed store whatever its working mode: `.online`
    /// to the service, `.offline` to the store file; `.automatic` (the default) leaves it to
    /// the working mode. Throws `.unsupported` for another side on other store kinds.
    public func setRoute(_ route: RequestRoute) throws(ODataStoreError) {
        if route != .automatic, store.options.kind != .mixed {
            throw ODataStoreError(.unsupported, "only mixed stores route requests (this store is \(store.options.kind))")
        }
        try configure { $0.route = route }
    }

    /// The side the request asked for (`setRoute`).
    public var route: RequestRoute { mutable.withLock { $0.route } }

    /// Starts the request. Throws `.invalidState` when already started and `.closed` when
    /// the store is closing; in both cases no callback will come.
    public func start() throws(ODataStoreError) {
        let job: RequestJob = try mutable.withLock { (m) throws(ODataStoreError) -> RequestJob in
            guard m.state == .new else { throw .state("the request was already started") }
            m.state = .waiting
            return RequestJob(id: id, mode: mode, path: path, url: url, body: body, headers: m.headers,
                              etag: m.etag, paging: m.paging, timeoutMilliseconds: m.timeoutMilliseconds, route: m.route)
        }
        do {
            try store.submit(self, job)
        } catch {
            mutable.withLock { $0.state = .new }
            throw error
        }
    }

    /// What the request delivered (its response, or its error and the service's error
    /// response), once its last callback has returned; nil before.
    public var outcome: Result<Response, RequestFailure>? { mutable.withLock { $0.outcome } }

    /// True once the request's last callback has returned.
    public var isDelivered: Bool { delivered.load(ordering: .acquiring) }

    /// Blocks until the request's last callback has returned, or `timeoutMilliseconds` have
    /// passed (negative: no limit). In queue mode the waiting thread delivers the store's
    /// callbacks meanwhile (those of other requests too), as `Store.dispatch` does. Returns
    /// false on timeout (the request goes on). Throws `.invalidState` when the request was not
    /// started, or when called from a callback of its store (it would wait for itself).
    public func wait(timeoutMilliseconds: Int) throws(ODataStoreError) -> Bool {
        if state == .new { throw .state("the request was not started") }
        // Refused from a callback whether or not the request has ended by then: the same
        // call must not succeed or fail with the timing.
        if store.isInCallback {
            throw .state("a request cannot be waited for from a callback of its store (the callback would wait for itself)")
        }
        if isDelivered { return true }
        let deadline = timeoutMilliseconds >= 0 ? MonotonicClock.deadline(afterMilliseconds: timeoutMilliseconds) : nil
        if store.options.dispatch == .queue {
            while !isDelivered {
                var remaining = -1
                if let deadline {
                    let now = MonotonicClock.now()
                    if now >= deadline { return false }
                    remaining = Int((deadline - now) / 1_000_000) + 1  // rounded up; at most ~1.8e13
                }
                do {
                    _ = try store.dispatch(timeoutMilliseconds: remaining, until: { self.isDelivered })
                } catch {
                    // Closed or closing: ods_store_close delivers every terminal callback
                    // itself, so wait for that as in thread mode.
                    break
                }
            }
            if isDelivered { return true }
        }
        // `waiters` up, then `delivered` read; `markDelivered` stores `delivered`, then reads
        // `waiters`: both sequentially consistent, so either this thread sees the request
        // delivered or `markDelivered` sees a waiter and broadcasts, under the lock this
        // thread holds until it sleeps.
        let signal = store.deliveries
        signal.lock()
        defer { signal.unlock() }
        waiters.add(1, ordering: .sequentiallyConsistent)
        defer { waiters.subtract(1, ordering: .sequentiallyConsistent) }
        while !delivered.load(ordering: .sequentiallyConsistent) {
            if let deadline {
                if !signal.wait(untilNanoseconds: deadline) { return isDelivered }
            } else {
                signal.wait()
            }
        }
        return true
    }

    /// Cancels a started request: it fails with `.cancelled`. Throws `.invalidState` when not
    /// started or already done.
    public func cancel() throws(ODataStoreError) {
        try store.cancel(self)
    }

    // MARK: - Scheduler interface (called with the store's table lock held, never the reverse)

    private func configure(_ change: (inout Mutable) -> Void) throws(ODataStoreError) {
        try mutable.withLock { (m) throws(ODataStoreError) in
            guard m.state == .new else { throw .state("a request can only be configured before it is started") }
            change(&m)
        }
    }

    /// Moves waiting -> running; false when the request already reached a terminal state.
    func markRunning() -> Bool {
        mutable.withLock { m in
            guard m.state == .waiting else { return false }
            m.state = .running
            return true
        }
    }

    /// Claims the single terminal transition. Returns the callbacks to call and whether the
    /// request was still waiting (it never ran, so its started callback was never queued), or
    /// nil when the request is already terminal (or was never started).
    func claimTerminal(_ state: RequestState) -> (delegate: (any RequestDelegate)?, completion: RequestCompletion?, task: (any EngineTask)?, wasWaiting: Bool)? {
        // The closures leave through a captured variable rather than as withLock's generic
        // result, which would box the completion in a reabstraction thunk.
        var claimed: (delegate: (any RequestDelegate)?, completion: RequestCompletion?, task: (any EngineTask)?, wasWaiting: Bool)?
        mutable.withLock { m in
            guard m.state == .waiting || m.state == .running else { return }
            let wasWaiting = m.state == .waiting
            m.state = state
            claimed = (m.delegate, m.completion, m.task, wasWaiting)
            m.task = nil
        }
        return claimed
    }

    /// Records the engine task; returns false (and the caller cancels it) when the request
    /// already ended.
    func attach(_ task: any EngineTask) -> Bool {
        mutable.withLock { m in
            guard !m.state.isTerminal else { return false }
            m.task = task
            return true
        }
    }

    /// Records the outcome and wakes `wait`ers; after the last callback (or instead of the
    /// callbacks when the store could no longer deliver them).
    func markDelivered(_ outcome: Result<Response, RequestFailure>) {
        mutable.withLock { $0.outcome = outcome }
        delivered.store(true, ordering: .sequentiallyConsistent)
        if waiters.load(ordering: .sequentiallyConsistent) > 0 {  // see `wait`
            let signal = store.deliveries
            signal.withLock { signal.broadcast() }
        }
        // Queue mode: a thread waiting in `dispatch(until:)` re-checks when it wakes; the
        // batch that ran this callback ends with a broadcast of the queue's own condition.
    }

    /// Drops delegate and completion after the last callback, breaking reference cycles.
    func releaseCallbacks() {
        mutable.withLock { m in
            m.delegate = nil
            m.completion = nil
        }
    }

    func currentDelegate() -> (any RequestDelegate)? { mutable.withLock { $0.delegate } }
}

func isValidHeaderName(_ name: String) -> Bool {
    guard !name.isEmpty else { return false }
    // RFC 9110 token characters.
    for c in name.utf8 {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            continue
        default:
            if !"!#$%&'*+-.^_`|~".utf8.contains(c) { return false }
        }
    }
    return true
}

/// Why an app may not set this header, or nil. The message framing and connection headers
/// belong to the HTTP layer: a `Content-Length` on a GET made the service wait for a body
/// that never came (the request hung until its timeout), a `Transfer-Encoding` or
/// `Connection` the app set would contradict what libcurl sends.
func reservedHeaderReason(_ name: String) -> String? {
    for reserved in ["Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Proxy-Connection", "Upgrade", "TE", "Trailer"]
    where asciiCaseInsensitiveEquals(name, reserved) {
        return "the \(reserved) header is the HTTP layer's (it frames the message or manages the connection); it cannot be set"
    }
    return nil
}

/// No CR, LF or NUL: what may go into a header through an encoding (Basic credentials are
/// base64, so other control characters are fine there).
func isValidHeaderValue(_ value: String) -> Bool {
    !value.utf8.contains { $0 == 10 || $0 == 13 || $0 == 0 }
}

/// A header value as RFC 9110 (5.5) allows it verbatim: no control character but HTAB (NUL,
/// CR and LF would split or cut the header; ESC, DEL and the others are refused by servers).
func isValidFieldValue(_ value: String) -> Bool {
    !value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
}
