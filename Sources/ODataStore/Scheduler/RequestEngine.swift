/// What a store kind plugs into the scheduler: the online engine (HTTP), the offline engine
/// (SQLite) and the mixed engine that routes between them. The scheduler owns ordering, callbacks and the exactly-once
/// terminal rule; an engine only executes.
///
/// Threading: all methods may be called from any thread. Completions may run on any thread
/// (typically the engine's own) and must not be called while the caller of `execute` is
/// still inside `execute`... unless it is unavoidable; the scheduler copes with both.
protocol RequestEngine: Sendable {
    /// Prepares the engine (online: loads `$metadata`). Calls `completion` exactly once.
    func open(_ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void)
    /// Executes one request. Calls `completion` at most once; after `EngineTask.cancel` it
    /// may still be called (the scheduler ignores it).
    func execute(_ job: RequestJob,
                 completion: @escaping @Sendable (Result<Response, RequestFailure>) -> Void) -> EngineTask?
    /// Cancels all work and joins the engine's threads. Idempotent.
    func shutdown()
    /// The OData version in use, once known.
    var odataVersion: ODataVersion? { get }
    /// The service's schema, once loaded.
    var model: ServiceModel? { get }
}

/// Handle on one executing request.
protocol EngineTask: Sendable {
    func cancel()
}

/// A request's parameters frozen at start: engines never see the mutable `Request`.
struct RequestJob: Sendable {
    var id: UInt64
    var mode: RequestMode
    var path: String
    /// The absolute, percent-encoded URL of `path` (made when the request was created).
    var url: String
    var body: String?
    var headers: [(name: String, value: String)]
    var etag: String?
    var paging: Paging
    var timeoutMilliseconds: Int
    /// The side the request asked for (mixed stores; others only take `.automatic`).
    var route: RequestRoute = .automatic
}
