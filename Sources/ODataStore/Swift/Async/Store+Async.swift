#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The async/await API of a store (docs/swift.md). Every call honours Task cancellation,
/// also before its request starts, and throws one error type, `ODataStoreError`.
///
/// Results are delivered through the store's dispatch mode: in the default thread mode
/// nothing more is needed; in queue mode an `await` resumes only when the host dispatches.
extension Store {
    // MARK: Opening and closing

    /// Opens a store and waits until it is open: `$metadata` loaded; for an offline store, its
    /// first download of the defining requests done. Throws the reason it could not open (the
    /// store is then closed), or `.cancelled` when the task is cancelled meanwhile.
    public static func open(_ options: StoreOptions) async throws(ODataStoreError) -> Store {
        try await opening(options).opened()
    }

    /// An online store for `serviceRoot` with the default options.
    public static func open(serviceRoot: String) async throws(ODataStoreError) -> Store {
        try await open(StoreOptions(serviceRoot: serviceRoot))
    }

    /// Starts opening a store without waiting, to watch its download progress:
    ///
    /// ```swift
    /// let opening = try Store.opening(options)
    /// for await p in opening.progress { print(p) }      // ends when the download does
    /// let store = try await opening.opened()
    /// ```
    public static func opening(_ options: StoreOptions) throws(ODataStoreError) -> StoreOpening {
        StoreOpening(store: try Store(options: options))
    }

    /// Waits until the store is open. Throws its open error, `.closed`, or `.cancelled` when
    /// the task is cancelled (the store itself goes on opening).
    public func waitUntilOpen() async throws(ODataStoreError) {
        try await events.waitUntilOpen()
    }

    /// The store's state now, then each change (`.opening`, `.open`, `.closing`, `.closed`,
    /// `.failed`); the sequence ends after `.closed`.
    public var states: AsyncStream<StoreState> { events.states() }

    /// Cancels what is in flight (each request's `await` throws `.cancelled`), closes the
    /// store and waits for its threads, without blocking the caller's thread. Idempotent.
    public func close() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // close() joins the store's threads: it runs on a thread of its own, never on
            // one of the concurrency pool's few threads.
            if !DetachedThread.start({
                try? self.close()
                done.resume()
            }) {
                try? self.close()
                done.resume()
            }
        }
    }

    // MARK: Requests

    /// Sends a request and returns the service's answer (for an offline store, the store
    /// file's: `response.isLocal`). A failed request throws `ODataStoreError` with the HTTP
    /// status and the service's OData error code and message.
    public func send(_ request: ODataRequest) async throws(ODataStoreError) -> Response {
        if Task.isCancelled { throw .cancelledByTask }
        let prepared = try await prepare(request)
        return try await execute(prepared)
    }

    /// Reads a path: `try await store.read("Products?$top=3")`.
    public func read(_ path: ResourcePath, paging: Paging = .none) async throws(ODataStoreError) -> Response {
        try await send(ODataRequest(.read, path, paging: paging))
    }

    /// Reads and decodes: `try await store.read([Product].self, from: "Products")` (a
    /// collection), `store.read(Product.self, from: "Products(7)")` (an entity),
    /// `store.read(Int64.self, from: "Products/$count")` (a value). `ODataEntity` and
    /// `ODataValue` are typed by the service's model.
    public func read<T: Decodable>(_ type: T.Type, from path: ResourcePath, paging: Paging = .none) async throws(ODataStoreError) -> T {
        let prepared = try await prepare(ODataRequest(.read, path, paging: paging))
        let response = try await execute(prepared)
        return try decode(T.self, response, path: prepared.path)
    }

    /// Reads one entity by its key: `try await store.read(Customer.self, from: "Customers", key: "O'NEIL")`.
    public func read<T: Decodable>(_ type: T.Type, from entitySet: String, key: EntityKey) async throws(ODataStoreError) -> T {
        try await read(T.self, from: ResourcePath(entitySet: entitySet, key: key))
    }

    /// Creates an entity; the response holds the created entity as the service returns it
    /// (`try response.decode(Product.self)`: server-made keys, ETag).
    @discardableResult
    public func create<T: Encodable & Sendable>(_ entity: T, in entitySet: String) async throws(ODataStoreError) -> Response {
        try await send(.create(entity, in: entitySet))
    }

    /// Changes an entity: the properties `changes` encodes (MERGE on V2, PATCH on V4). Without
    /// `key`, the key is read from `changes` (the model names the key properties). `etag` is
    /// sent as If-Match (else the body's `@odata.etag`, if it encodes one).
    @discardableResult
    public func update<T: Encodable & Sendable>(_ changes: T, in entitySet: String, key: EntityKey? = nil,
                                                etag: String? = nil) async throws(ODataStoreError) -> Response {
        try await send(.update(changes, in: entitySet, key: key, etag: etag))
    }

    /// Replaces an entity (PUT): properties `entity` leaves out are reset by the service.
    @discardableResult
    public func replace<T: Encodable & Sendable>(_ entity: T, in entitySet: String, key: EntityKey? = nil,
                                                 etag: String? = nil) async throws(ODataStoreError) -> Response {
        try await send(.update(entity, in: entitySet, key: key, etag: etag, mode: .updatePut))
    }

    /// Deletes an entity; `etag` is sent as If-Match.
    public func delete(from entitySet: String, key: EntityKey, etag: String? = nil) async throws(ODataStoreError) {
        _ = try await send(.delete(from: entitySet, key: key, etag: etag))
    }

    /// Calls a function or action import: `try await store.call("TotalStock()")`.
    @discardableResult
    public func call(_ operation: ResourcePath, parameters: (any Encodable & Sendable)? = nil) async throws(ODataStoreError) -> Response {
        try await send(.call(operation, parameters: parameters))
    }

    /// Calls a function or action import and decodes its result.
    public func call<T: Decodable>(_ operation: ResourcePath, parameters: (any Encodable & Sendable)? = nil,
                                   returning type: T.Type) async throws(ODataStoreError) -> T {
        let prepared = try await prepare(.call(operation, parameters: parameters))
        let response = try await execute(prepared)
        return try decode(T.self, response, path: prepared.path)
    }

    /// The pages of a collection, one request per page, following the service's next links
    /// (`for try await page in store.pages(of: "Products") { ... }`).
    public func pages(_ request: ODataRequest) -> ResponsePages {
        ResponsePages(store: self, first: request)
    }

    public func pages(of path: ResourcePath) -> ResponsePages { pages(.read(path)) }

    /// Decodes a response as `store.read` does: `ODataEntity`/`ODataValue` typed by the model
    /// for the path the response answers.
    public func decode<T: Decodable>(_ type: T.Type, from response: Response, path: ResourcePath) throws(ODataStoreError) -> T {
        let text = (try? path.text(model: model, version: odataVersion)) ?? path.description
        return try decode(T.self, response, path: text)
    }

    // MARK: - Plumbing

    struct PreparedRequest: Sendable {
        var mode: RequestMode
        var path: String
        var body: String?
        var etag: String?
        var paging: Paging
        var headers: RequestHeaders
        var timeout: Duration?
        var route: RequestRoute = .automatic
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: Response, path: String) throws(ODataStoreError) -> T {
        let root = try ODataDecoder.parse(response.json)
        var resultType = ValueType.unknown
        if let model {
            resultType = ResultTyping.type(ofPath: path, serviceRoot: options.serviceRoot, model: model)
        }
        return try ODataDecoder(model: model).decode(T.self, from: root, resultType: resultType)
    }

    /// Turns the value request into the callback API's terms: path text with typed keys,
    /// body as canonical JSON typed by the model. Waits for `$metadata` when needed.
    func prepare(_ request: ODataRequest) async throws(ODataStoreError) -> PreparedRequest {
        var needsModel = request.path.needsModel || request.keyFromBody
        if case .encodable? = request.body { needsModel = true }
        if case .entity? = request.body { needsModel = true }
        if needsModel && model == nil { try await waitUntilOpen() }
        let model = self.model
        let version = odataVersion ?? model?.version
        var path = request.path
        var body: String? = nil
        var bodyJSON: JSONValue? = nil
        switch request.body {
        case nil: break
        case .json(let bytes): body = String(decoding: bytes, as: UTF8.self)
        case .entity(let e): bodyJSON = e.canonicalJSON
        case .encodable(let value): bodyJSON = try ODataEncoder(model: model).encode(value)
        }
        if var json = bodyJSON {
            if let set = request.path.entitySet, let model, let es = model.entitySet(set) {
                json = BodyTyping.typed(json, .structured(model.resolve(es.entityType)), model: model)
                if request.keyFromBody {
                    path = try Self.keyed(path, set: set, body: json, type: model.resolve(es.entityType), model: model)
                }
            } else if request.keyFromBody {
                throw .invalid("the update of \(request.path) needs a key: the service has no entity set \(request.path.entitySet ?? "")")
            }
            body = json.serialized()
        }
        return PreparedRequest(mode: request.mode, path: try path.text(model: model, version: version), body: body,
                               etag: request.etag, paging: request.paging, headers: request.headers, timeout: request.timeout,
                               route: request.route)
    }

    /// `Set(key)` with the key properties read from an entity body.
    private static func keyed(_ path: ResourcePath, set: String, body: JSONValue, type: String, model: ServiceModel) throws(ODataStoreError) -> ResourcePath {
        guard let t = model.structuredType(type), case .object(let o) = body else {
            throw .invalid("the update of \(set) needs a key")
        }
        var key = JSONObject()
        for k in model.keyProperties(of: t) {
            guard let v = o[k.name], !v.isNull else {
                throw .invalid("the update of \(set) needs a key: give key: or set \(k.name) in the value")
            }
            key[k.name] = v
        }
        var keyed = path
        keyed.segments[0] = .entitySet(set, key: EntityKey(canonicalJSON: .object(key)))
        return keyed
    }

    /// Runs a prepared request through the callback API, with Task cancellation forwarded.
    func execute(_ p: PreparedRequest) async throws(ODataStoreError) -> Response {
        if Task.isCancelled { throw .cancelledByTask }
        let request = try makeRequest(p.mode, path: p.path, body: p.body)
        if let etag = p.etag { try request.setETag(etag) }
        if p.paging != .none { try request.setPaging(p.paging) }
        if p.route != .automatic { try request.setRoute(p.route) }
        for h in p.headers { try request.setHeader(h.name, h.value) }
        if let timeout = p.timeout {
            let ms = StoreOptions.milliseconds(timeout)
            guard ms >= 0 else { throw .invalid("timeout must not be negative") }
            try request.setTimeout(milliseconds: max(ms, 1))
        }
        let cancellation = CancellationLatch()
        let result: Result<Response, ODataStoreError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Result<Response, ODataStoreError>, Never>) in
                do throws(ODataStoreError) {
                    try request.setCompletion { _, outcome in
                        c.resume(returning: outcome.mapError { failure in
                            failure.error.code == .cancelled && cancellation.isCancelled ? .cancelledByTask : failure.error
                        })
                    }
                    try request.start()
                } catch {
                    // A call that fails never calls the completion.
                    c.resume(returning: .failure(error))
                    return
                }
                if cancellation.started(request) { try? request.cancel() }
            }
        } onCancel: {
            // Before start: `started` sees the flag and cancels; after: cancel now.
            if let started = cancellation.cancel() { try? started.cancel() }
        }
        return try result.get()
    }
}

/// Task cancellation that may come before the request has started: the latch remembers it,
/// and `started` reports it so the request is cancelled as soon as it can be.
final class CancellationLatch: Sendable {
    private let state = Locked<(cancelled: Bool, request: Request?)>((false, nil))

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Records the started request; true when it must be cancelled at once.
    func started(_ request: Request) -> Bool {
        state.withLock { s in
            s.request = request
            return s.cancelled
        }
    }

    /// Records the cancellation; returns the request to cancel when it has started.
    func cancel() -> Request? {
        state.withLock { s in
            s.cancelled = true
            return s.request
        }
    }
}

/// A thread that runs one closure and is never joined (its resources go when it exits).
/// Signals are blocked on it, as on the store's own threads.
enum DetachedThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// False when no thread could be started.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread = pthread_t()
        #endif
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
            var signals = sigset_t()
            sigfillset(&signals)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            body.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return false
        }
        #if canImport(Darwin)
        if let thread { pthread_detach(thread) }
        #else
        pthread_detach(thread)
        #endif
        return true
    }
}

/// A store being opened: the store (usable at once: requests wait until it is open), the
/// progress of its first download, and `opened()` to wait for the end.
public struct StoreOpening: Sendable {
    public let store: Store

    /// Download progress while the store opens (offline stores), from the first report on,
    /// whenever you start reading; the sequence ends when the store is open (or failed).
    public var progress: AsyncStream<DownloadProgress> { store.events.openingProgress() }

    /// Waits until the store is open and returns it. When it cannot open, or the task is
    /// cancelled, the store is closed (an interrupted download resumes on the next open)
    /// and the error thrown.
    public func opened() async throws(ODataStoreError) -> Store {
        do {
            try await store.waitUntilOpen()
            return store
        } catch {
            await store.close()
            throw error
        }
    }
}
