import Synchronization

/// A store: the app's handle on one OData service. Requests made through it are executed by
/// its engine (online: HTTP) and their callbacks delivered through its dispatch mode.
///
/// Life cycle: `init` starts opening in the background (online: loading `$metadata`);
/// requests started before the store is open are held and run when it is; `close` cancels
/// what is in flight, delivers every terminal callback and joins the store's threads.
///
/// Threading: every method is thread-safe. `close` and `dispatch` must not be called from a
/// callback of the same store (they throw `.invalidState`).
public final class Store: Sendable {
    public typealias StateHandler = @Sendable (Store, StoreState, ODataStoreError?) -> Void

    public let options: StoreOptions
    let engine: any RequestEngine
    let callbacks: CallbackQueue
    private let stateHandler: StateHandler?
    private let table = Locked(Table())
    private let nextID = Atomic<UInt64>(1)
    private let extras = Locked(Extras())
    /// A weak reference to this store for callbacks made by the engine.
    private let owner = Locked(WeakStoreReference())
    /// State changes and download progress for the async API (Swift/Async/StoreEvents.swift).
    let events = StoreEvents()
    /// Change observers of an offline or mixed store's entity sets (Offline/Observe).
    let observers: ChangeObservers
    /// Where `Request.wait` sleeps until its request is delivered; broadcast by
    /// `Request.markDelivered` only while a thread waits on that request.
    let deliveries = ConditionLock()

    struct WeakStoreReference {
        weak var store: Store?
    }

    struct Table {
        var state: StoreState = .opening
        var openError: ODataStoreError?
        var accepting = true
        /// Started requests whose last callback has not run yet.
        var inFlight: [UInt64: Request] = [:]
        /// Started before the store was open, in start order.
        var held: [(Request, RequestJob)] = []
    }

    private struct Extras {
        var context: (any Sendable)?
        var defaultDelegate: (any RequestDelegate)?
    }

    /// Creates the store and starts opening it. `stateHandler` receives every state change
    /// through the dispatch mode (never synchronously from `init`). Throws for invalid options.
    /// `willOpen` runs on the calling thread once the store is made and before it starts
    /// opening (before its first state callback): the C layer registers the store's handle
    /// there, so that a callback arriving before `ods_store_open` returns can use it.
    public init(options: StoreOptions, context: (any Sendable)? = nil,
                stateHandler: StateHandler? = nil, willOpen: (Store) -> Void = { _ in }) throws(ODataStoreError) {
        try Store.validate(options)
        self.options = options
        self.stateHandler = stateHandler
        self.extras.withLock { $0.context = context }
        self.callbacks = try CallbackQueue(mode: options.dispatch, name: "ods-callbacks")
        // Progress reaches the app through the dispatch mode, with the store (set below,
        // before the engine starts opening, so no report can come earlier).
        let queue = callbacks
        let owner = self.owner
        var progress: (@Sendable (DownloadProgress) -> Void)? = nil
        let events = self.events
        let handler = options.downloadProgress
        if handler != nil || options.kind != .online {
            progress = { p in
                events.publish(p)
                guard let handler else { return }
                queue.enqueue {
                    if let store = owner.withLock({ $0.store }) { handler(store, p) }
                }
            }
        }
        do {
            self.engine = try makeEngine(for: options, progress: progress)
        } catch {
            callbacks.shutdown()
            throw error
        }
        let changeLog = ((engine as? OfflineEngine) ?? (engine as? MixedEngine)?.offline)?.changeLog
        let observers = ChangeObservers(log: changeLog)
        self.observers = observers
        changeLog?.connect { batches in
            observers.publish(batches, queue: queue) { owner.withLock { $0.store } }
        }
        if let handler = options.logonHandler, let session = (engine as? ServiceSessionOwner)?.session {
            // The prompt reaches the app through the dispatch mode, never under a lock. If it
            // cannot be delivered any more (closing), close gives the waiting exchanges up.
            session.logon.connect { challenge in
                queue.enqueue { if let store = owner.withLock({ $0.store }) { handler(store, challenge) } }
            }
        }
        Log.info(.store, Log.opening(options))
        willOpen(self)
        notifyState(.opening, nil)
        owner.withLock { $0.store = self }
        engine.open { [weak self] result in self?.opened(result) }
    }

    deinit {
        // A store dropped without close: stop its threads (never joins the calling thread).
        engine.shutdown()
        callbacks.shutdown()
    }

    private static func validate(_ o: StoreOptions) throws(ODataStoreError) {
        switch o.kind {
        case .online: break
        case .offline:
            try validateOffline(o)
        case .mixed:
            try validateOffline(o)
        }
        try ServiceRootRules.check(o.serviceRoot)
        if let problem = o.limits.validationProblem() { throw .invalid(problem) }
        guard o.maxLogonAttempts >= 1, o.maxLogonAttempts <= 10 else {
            throw .invalid("max_logon_attempts must be between 1 and 10")
        }
        guard isValidFieldValue(o.userAgent) else {
            throw .invalid("user_agent must not contain CR, LF, NUL or another control character")
        }
        guard o.connectTimeoutMilliseconds >= 0, o.requestTimeoutMilliseconds >= 0 else {
            throw .invalid("timeouts must not be negative")
        }
        guard o.maxConnections >= 0, o.maxConnections <= 1024 else {
            throw .invalid("max_connections must be between 0 (default) and 1024")
        }
        for h in o.headers {
            guard isValidHeaderName(h.name) else { throw .invalid("options->headers: invalid header name \"\(h.name)\"") }
            guard isValidFieldValue(h.value) else {
                throw .invalid("options->headers: header value for \(h.name) contains CR, LF, NUL or another control character (only tab may appear)")
            }
            if let reason = reservedHeaderReason(h.name) { throw .invalid("options->headers: " + reason) }
        }
        if case .basic(let user, let password) = o.authentication {
            guard isValidHeaderValue(user), !user.contains(":") else {
                throw .invalid("basic-auth username must not contain ':', CR, LF or NUL")
            }
            guard isValidHeaderValue(password) else {
                throw .invalid("basic-auth password must not contain CR, LF or NUL")
            }
        }
        if case .bearer(let token) = o.authentication {
            guard !token.isEmpty, isValidFieldValue(token) else { throw .invalid("bearer token is empty or has control characters") }
        }
    }

    /// The offline options: a store path, and defining requests that parse (their schema
    /// check needs `$metadata` and happens while the store opens).
    private static func validateOffline(_ o: StoreOptions) throws(ODataStoreError) {
        guard let path = o.storePath, !path.isEmpty else {
            throw .invalid("an offline store needs store_path (the store file)")
        }
        guard !path.utf8.contains(0) else { throw .invalid("store_path contains a NUL byte") }
        guard o.downloadPageSize >= 0 else { throw .invalid("download_page_size must not be negative") }
        guard o.definingRequests.count <= 10_000 else { throw .invalid("more than 10,000 defining requests") }
        for d in o.definingRequests {
            let relative = DefiningRequest.relative(d, serviceRoot: o.serviceRoot)
            guard !relative.isEmpty else { throw .invalid("a defining request is empty") }
            let (text, escaped) = RequestURL.escapingStrayPercents(relative)
            do {
                _ = try ResourceRequestParser(version: o.odataVersion).parse(text)
            } catch {
                throw ODataStoreError(.syntax, "defining request \"\(d)\": \(error.message)",
                                      position: RequestURL.originalPosition(error.position, escaped: escaped) + (d.count - relative.count))
            }
        }
    }

    // MARK: - Public API

    public var state: StoreState { table.withLock { $0.state } }

    /// The OData version in use, once known (at the latest when the store is open).
    public var odataVersion: ODataVersion? { engine.odataVersion }

    /// The service's schema, once loaded.
    public var model: ServiceModel? { engine.model }

    /// The value given to `init` (the C layer keeps its `void *` here).
    public var context: (any Sendable)? { extras.withLock { $0.context } }

    /// The delegate of requests that have none of their own; applies to requests started later.
    public var defaultDelegate: (any RequestDelegate)? {
        get { extras.withLock { $0.defaultDelegate } }
        set { extras.withLock { $0.defaultDelegate = newValue } }
    }

    /// Creates an unstarted request. The body, when given, must be a JSON object or array.
    public func makeRequest(_ mode: RequestMode, path: String, body: String? = nil) throws(ODataStoreError) -> Request {
        try RequestValidation.check(mode: mode, path: path, body: body)
        let url = try RequestURL.make(serviceRoot: options.serviceRoot, path: path)  // full URLs: same host only
        if state == .closed || state == .closing { throw ODataStoreError(.closed, "the store is closed") }
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        return Request(store: self, id: id, mode: mode, path: path, url: url, body: body)
    }

    /// Creates and starts a request whose outcome goes to `completion` (and to the default
    /// delegate, if any). Returns the started request.
    @discardableResult
    public func schedule(_ mode: RequestMode, path: String, body: String? = nil,
                         context: (any Sendable)? = nil,
                         completion: RequestCompletion?) throws(ODataStoreError) -> Request {
        let request = try makeRequest(mode, path: path, body: body)
        request.context = context
        try request.setCompletion(completion)
        try request.start()
        return request
    }

    /// Cancels the started request with this id; `.notFound` when unknown or already done.
    public func cancel(id: UInt64) throws(ODataStoreError) {
        guard let request = table.withLock({ $0.inFlight[id] }), !request.state.isTerminal else {
            throw ODataStoreError(.notFound, "no request \(id) is in flight")
        }
        do {
            try cancel(request)
        } catch where error.code == .invalidState {
            // It reached its terminal callback meanwhile (its last callbacks may still run).
            throw ODataStoreError(.notFound, "no request \(id) is in flight")
        }
    }

    // MARK: - Mixed stores

    /// The offline engine of an offline store, or a mixed store's offline part (the store
    /// file's calls delegate to it).
    private var offlinePart: OfflineEngine? {
        (engine as? OfflineEngine) ?? (engine as? MixedEngine)?.offline
    }

    /// A mixed store's working mode (docs/mixed.md); `.online`/`.offline` for the other kinds.
    public var workingMode: WorkingMode {
        switch engine {
        case let mixed as MixedEngine: mixed.workingMode
        case is OfflineEngine: .offline
        default: .online
        }
    }

    /// Switches a mixed store's working mode, at any time: requests that start executing
    /// afterwards (also those held while the store opens) go where the new mode says; those
    /// executing finish where they started. Throws `.unsupported` for other store kinds.
    public func setWorkingMode(_ mode: WorkingMode) throws(ODataStoreError) {
        guard let mixed = engine as? MixedEngine else {
            throw ODataStoreError(.unsupported, "only mixed stores have a working mode (this store is \(options.kind))")
        }
        if state == .closed || state == .closing { throw ODataStoreError(.closed, "the store is closed") }
        mixed.workingMode = mode
    }

    // MARK: - Logon

    /// Answers the logon prompt `id` (`LogonChallenge.id`), from any thread, at once (also
    /// from inside the handler) or later: with credentials, the held requests are sent again
    /// with them; with `.refuse`, they fail with `.unauthorized`. Throws `.invalidState` when
    /// no prompt `id` waits (answered already), `.closed` after close, `.invalidArgument`
    /// for credentials that cannot be sent (the prompt stays open), `.unsupported` when the
    /// store has no logon handler. Credentials are kept in memory only (never in the store
    /// file, logs or error text).
    public func logon(_ id: UInt64, reply: LogonReply) throws(ODataStoreError) {
        guard options.logonHandler != nil, let session = (engine as? ServiceSessionOwner)?.session else {
            throw ODataStoreError(.unsupported, "the store has no logon handler")
        }
        if state == .closed || state == .closing {
            throw ODataStoreError(.closed, "the store is closing or closed; logon \(id) was given up")
        }
        try session.logon.reply(id: id, reply)
    }

    // MARK: - Offline stores

    /// An offline store's file, defining requests and download state. Throws `.unsupported`
    /// for other kinds and `.invalidState` while the store file is not open yet.
    public func offlineInfo() throws(ODataStoreError) -> OfflineStoreInfo {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores have a store file")
        }
        return try offline.info()
    }

    /// The service root an existing offline store file was made for (read without changing
    /// the file), so a store can be reopened knowing only its path. Throws when the file is
    /// missing or not a store.
    public static func serviceRoot(ofStoreAt path: String) throws(ODataStoreError) -> String {
        guard let facts = try StoreFile.inspect(path: path) else {
            throw ODataStoreError(.notFound, "there is no offline store at \(path)")
        }
        return facts.serviceRoot
    }

    /// Sends an offline store's local changes to the service, in order (docs/offline.md,
    /// "Upload"). `progress` and `completion` come through the dispatch mode; `completion`
    /// exactly once, also when the upload is cancelled or the store closed. Throws (and calls
    /// neither) when an upload or a download already runs, or for other store kinds.
    public func upload(progress: (@Sendable (Store, UploadProgress) -> Void)? = nil,
                       completion: @escaping @Sendable (Store, Result<UploadResult, ODataStoreError>) -> Void) throws(ODataStoreError) {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores upload")
        }
        guard state == .open else { throw .state("the store is not open") }
        let queue = callbacks
        let owner = self.owner
        var report: (@Sendable (UploadProgress) -> Void)? = nil
        if let progress {
            report = { p in queue.enqueue { if let s = owner.withLock({ $0.store }) { progress(s, p) } } }
        }
        try offline.upload(progress: report) { result in
            let delivered = queue.enqueue { if let s = owner.withLock({ $0.store }) { completion(s, result) } }
            if !delivered, let s = owner.withLock({ $0.store }) { completion(s, result) }
        }
    }

    /// Downloads fresh data for the defining requests at `paths` (all when nil) into an open
    /// offline store (docs/offline.md, "Download"): the service's changes through a delta
    /// link where it gave one, else a full download that replaces what each request brought
    /// down (rows the service no longer sends are removed). Local changes not uploaded yet
    /// stay on top. Reads and writes go on meanwhile. `progress` (nil: the options' download
    /// progress) and `completion` come through the dispatch mode; `completion` exactly once,
    /// also on cancel (`cancelDownload`) or close. Throws, calling neither, when a download or
    /// an upload runs, or for other store kinds.
    public func download(_ paths: [String]? = nil, progress: (@Sendable (Store, DownloadProgress) -> Void)? = nil,
                         completion: @escaping @Sendable (Store, Result<Void, ODataStoreError>) -> Void) throws(ODataStoreError) {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores download")
        }
        guard state == .open else { throw .state("the store is not open") }
        let queue = callbacks
        let owner = self.owner
        var report: (@Sendable (DownloadProgress) -> Void)? = nil
        if let progress {
            report = { p in queue.enqueue { if let s = owner.withLock({ $0.store }) { progress(s, p) } } }
        }
        try offline.download(paths: paths, progress: report) { result in
            let delivered = queue.enqueue { if let s = owner.withLock({ $0.store }) { completion(s, result) } }
            if !delivered, let s = owner.withLock({ $0.store }) { completion(s, result) }
        }
    }

    /// Adds a defining request to an open offline store (checked against `$metadata` like
    /// those in the options); `download` brings its data. Adding one the store has is no error.
    public func addDefiningRequest(_ path: String) throws(ODataStoreError) {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores have defining requests")
        }
        guard state == .open else { throw .state("the store is not open") }
        try offline.addDefiningRequest(path)
    }

    /// Removes a defining request from an open offline store: the entities only it brought
    /// down leave the file (those with local changes stay until uploaded). `.notFound` when
    /// the store has no such request, `.invalidArgument` for its last one, `.invalidState`
    /// while a download runs.
    public func removeDefiningRequest(_ path: String) throws(ODataStoreError) {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores have defining requests")
        }
        guard state == .open else { throw .state("the store is not open") }
        try offline.removeDefiningRequest(path)
    }

    /// Stops the upload in progress (its completion reports `.cancelled`); `.invalidState`
    /// when none runs.
    public func cancelUpload() throws(ODataStoreError) {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores upload")
        }
        guard offline.cancelUpload() else { throw .state("no upload is running") }
    }

    /// The number of local changes of an offline store waiting for upload.
    public func pendingChangeCount() throws(ODataStoreError) -> Int64 {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores queue changes")
        }
        return try offline.pendingCount()
    }

    /// The keys made locally for entities created offline whose key the service assigns,
    /// each with the service's key once uploaded (the app's map from old to new).
    public func keyMappings() throws(ODataStoreError) -> [KeyMapping] {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores make local keys")
        }
        return try offline.keyMappings()
    }

    /// The local changes the service refused, oldest first (docs/offline.md, "Error
    /// archive"). Also readable as the `ErrorArchive` collection of an offline store.
    public func errorArchive() throws(ODataStoreError) -> [ArchivedError] {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores keep an error archive")
        }
        return try offline.errorArchive()
    }

    /// Queues the refused change `id` again; it leaves the archive and goes with the next
    /// upload. `body` (JSON object), when given, is first merged into the local entity (the
    /// app's correction, also sent); `etag`, when given, replaces the If-Match the change
    /// carries (`*`: whatever the service's version). `.notFound` for an unknown id.
    public func retryError(id: Int64, body: String? = nil, etag: String? = nil) throws(ODataStoreError) {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores keep an error archive")
        }
        guard state == .open else { throw .state("the store is not open") }
        try offline.retryError(id: id, body: body, etag: etag)
    }

    /// Gives up the refused change `id` and every queued change of its entity; the entity
    /// goes back to the service's version (read from the service; an entity created offline
    /// is removed; one the service no longer has is removed). `completion` comes through the
    /// dispatch mode exactly once.
    public func revertError(id: Int64, completion: @escaping @Sendable (Store, Result<Void, ODataStoreError>) -> Void) throws(ODataStoreError) {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores keep an error archive")
        }
        guard state == .open else { throw .state("the store is not open") }
        let queue = callbacks
        let owner = self.owner
        offline.revertError(id: id) { result in
            let delivered = queue.enqueue { if let s = owner.withLock({ $0.store }) { completion(s, result) } }
            if !delivered, let s = owner.withLock({ $0.store }) { completion(s, result) }
        }
    }

    /// Stops the download of defining requests in progress. While the store is opening this
    /// fails the opening with `.cancelled` (requests held meanwhile fail with it); the file
    /// keeps every page written and the next open resumes. `.invalidState` when no download
    /// runs, `.unsupported` for other kinds.
    public func cancelDownload() throws(ODataStoreError) {
        guard let offline = offlinePart else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores download")
        }
        guard offline.cancelDownload() else { throw .state("no download is running") }
    }

    /// Queue mode: the descriptor that is readable while callbacks wait; nil in thread mode.
    public var eventFileDescriptor: Int32? { callbacks.fileDescriptor }

    /// Queue mode: delivers waiting callbacks on the calling thread (see `ods_store_dispatch`).
    public func dispatch(timeoutMilliseconds: Int) throws(ODataStoreError) -> Int {
        try callbacks.dispatch(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Queue mode: like `dispatch`, but returns as soon as `done` is true (checked whenever a
    /// batch of callbacks has been delivered, by this thread or another).
    func dispatch(timeoutMilliseconds: Int, until done: () -> Bool) throws(ODataStoreError) -> Int {
        try callbacks.dispatch(timeoutMilliseconds: timeoutMilliseconds, until: done)
    }

    /// `.threadInline`: `handler` runs on each thread of the store other than its callback
    /// thread that ran its callbacks (the transport thread), once, just before that thread
    /// ends (in `close`, before it returns), never at the same time as a callback; nil removes
    /// it. For per-thread state attached by callbacks (`ods_store_set_thread_end`).
    public func setThreadEndHandler(_ handler: (@Sendable () -> Void)?) {
        callbacks.setThreadEndHandler(handler)
    }

    /// True while the calling thread runs one of this store's callbacks.
    public var isInCallback: Bool { callbacks.isDeliveringOnCurrentThread }

    /// Cancels everything in flight, delivers the terminal callbacks, reports closing and
    /// closed, and joins the store's threads. Idempotent. Throws `.invalidState` from a callback.
    public func close() throws(ODataStoreError) {
        if callbacks.isDeliveringOnCurrentThread {
            throw .state("the store cannot be closed from one of its own callbacks; close it after the callback returns")
        }
        Log.info(.store, "store closing")
        let cancelled: [(any EngineTask)?] = table.withLock { t in
            guard t.accepting else { return [] }
            t.accepting = false
            t.state = .closing
            enqueueStateLocked(.closing, nil)
            var tasks: [(any EngineTask)?] = []
            for request in t.inFlight.values.sorted(by: { $0.id < $1.id }) {
                if let claimed = terminateLocked(&t, request, .failure(RequestFailure(error: .cancelledByClose))) {
                    tasks.append(claimed)
                }
            }
            t.held.removeAll()
            return tasks
        }
        for task in cancelled { task?.cancel() }
        engine.shutdown()
        table.withLock { t in
            if t.state != .closed {
                t.state = .closed
                enqueueStateLocked(.closed, nil)
            }
        }
        callbacks.shutdown()
        observers.storeClosed()
        Log.info(.store, "store closed")
    }

    // MARK: - Scheduling (lock order: table -> request -> callback queue)

    func submit(_ request: Request, _ job: RequestJob) throws(ODataStoreError) {
        enum Next { case hold, run, fail(ODataStoreError) }
        let next: Next = try table.withLock { (t) throws(ODataStoreError) -> Next in
            guard t.accepting else { throw ODataStoreError(.closed, "the store is closing or closed") }
            guard t.inFlight.count < options.limits.maxPendingRequests else {
                throw ODataStoreError(.limit, "\(t.inFlight.count) requests are pending in this store (max_pending_requests is \(options.limits.maxPendingRequests))")
            }
            if t.state == .opening, t.held.count >= options.limits.maxHeldRequests {
                throw ODataStoreError(.limit, "too many held requests: \(t.held.count) requests wait for the store to open (max_held_requests is \(options.limits.maxHeldRequests))")
            }
            t.inFlight[request.id] = request
            switch t.state {
            case .opening:
                t.held.append((request, job))
                return .hold
            case .open:
                return .run
            default:
                return .fail(t.openError ?? ODataStoreError(.closed, "the store is not open"))
            }
        }
        switch next {
        case .hold: break
        case .run: run(request, job)
        case .fail(let error): complete(request, .failure(RequestFailure(error: error)))
        }
    }

    private func run(_ request: Request, _ job: RequestJob) {
        let started: Bool = table.withLock { _ in
            guard request.markRunning() else { return false }
            let delegate = request.currentDelegate() ?? defaultDelegate
            if let delegate {
                callbacks.enqueue { delegate.requestStarted(request) }
            }
            return true
        }
        guard started else { return }
        let task = engine.execute(job) { [weak self] result in
            self?.complete(request, result)
        }
        if let task, !request.attach(task) { task.cancel() }
    }

    func complete(_ request: Request, _ outcome: Result<Response, RequestFailure>) {
        table.withLock { t in _ = terminateLocked(&t, request, outcome) }
    }

    func cancel(_ request: Request) throws(ODataStoreError) {
        let result: Result<(any EngineTask)?, ODataStoreError> = table.withLock { t in
            switch request.state {
            case .new: return .failure(.state("the request was not started"))
            case .finished, .failed, .cancelled: return .failure(.state("the request already finished"))
            default: break
            }
            guard let task = terminateLocked(&t, request, .failure(RequestFailure(error: .cancelled))) else {
                return .failure(.state("the request already finished"))
            }
            return .success(task)
        }
        switch result {
        case .success(let task): task?.cancel()
        case .failure(let error): throw error
        }
    }

    /// Claims the request's terminal transition and queues its last callbacks. Returns the
    /// engine task to cancel (wrapped: `.some(nil)` when there is none), or nil when the
    /// request had already ended. Table lock held.
    private func terminateLocked(_ t: inout Table, _ request: Request,
                                 _ outcome: Result<Response, RequestFailure>) -> (any EngineTask)?? {
        let state: RequestState
        switch outcome {
        case .success: state = .finished
        case .failure(let f): state = f.error.code == .cancelled ? .cancelled : .failed
        }
        guard let claimed = request.claimTerminal(state) else { return nil }
        let delegate = claimed.delegate ?? defaultDelegate
        let completion = claimed.completion
        // A request that ends before it ran (closed or cancelled between submit and run, held
        // while the store opened and then failed, refused by a failed store) still gets its
        // started callback first: every started request sees started, then one terminal.
        let neverRan = claimed.wasWaiting
        let queued = callbacks.enqueue {
            if neverRan { delegate?.requestStarted(request) }
            switch outcome {
            case .success(let response):
                delegate?.request(request, didReceive: response)
                delegate?.requestFinished(request)
            case .failure(let failure):
                delegate?.request(request, didFailWith: failure.error, response: failure.response)
            }
            completion?(request, outcome)
            request.releaseCallbacks()
            self.retire(request)
            request.markDelivered(outcome)
        }
        if !queued {
            request.releaseCallbacks()
            t.inFlight[request.id] = nil
            request.markDelivered(outcome)
        }
        return .some(claimed.task)
    }

    private func retire(_ request: Request) {
        table.withLock { t in _ = t.inFlight.removeValue(forKey: request.id) }
    }

    private func opened(_ result: Result<Void, ODataStoreError>) {
        let held: [(Request, RequestJob)]? = table.withLock { t in
            guard t.state == .opening else { return nil }
            switch result {
            case .success:
                t.state = .open
                enqueueStateLocked(.open, nil)
            case .failure(let error):
                t.state = .failed
                t.openError = error
                enqueueStateLocked(.failed, error)
            }
            let held = t.held
            t.held.removeAll()
            return held
        }
        guard let held else { return }
        Log.info(.store, Log.opened(result, held: held.count))
        for (request, job) in held {
            switch result {
            case .success: run(request, job)
            case .failure(let error): complete(request, .failure(RequestFailure(error: error)))
            }
        }
    }

    private func notifyState(_ state: StoreState, _ error: ODataStoreError?) {
        table.withLock { _ in enqueueStateLocked(state, error) }
    }

    private func enqueueStateLocked(_ state: StoreState, _ error: ODataStoreError?) {
        events.publish(state, error)
        guard let handler = stateHandler else { return }
        callbacks.enqueue { handler(self, state, error) }
    }
}

extension ODataStoreError {
    static let cancelledByClose = ODataStoreError(.cancelled, "the request was cancelled because the store was closed")
}
