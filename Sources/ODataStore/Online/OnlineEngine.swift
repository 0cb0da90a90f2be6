/// The online store's engine: every request goes to the service over HTTP.
///
/// Opening loads `$metadata` once (from the service, or from the options) to learn the
/// protocol version and the schema that types payloads; it is cached for the store's life.
/// The service access itself (transport, headers, CSRF, `$metadata`) is the
/// `ServiceSession`'s, shared with the offline store's download.
/// Threading: thread-safe; completions run on the transport's thread.
final class OnlineEngine: RequestEngine, ServiceSessionOwner {
    let session: ServiceSession

    init(session: ServiceSession) {
        self.session = session
    }

    var options: StoreOptions { session.options }
    var transport: any HTTPTransport { session.transport }
    var csrf: CSRFToken { session.csrf }
    var serviceRoot: String { session.serviceRoot }
    /// A consistent snapshot of what is known about the service.
    var state: ServiceSession.ServiceState { session.state }

    var odataVersion: ODataVersion? { session.odataVersion }
    var model: ServiceModel? { session.model }

    func baseHeaders(version: ODataVersion) -> [(name: String, value: String)] { session.baseHeaders(version: version) }

    func merged(_ base: [(name: String, value: String)], _ extra: [(name: String, value: String)]) -> [(name: String, value: String)] {
        session.merged(base, extra)
    }

    func timeout(_ requested: Int) -> Int { session.timeout(requested) }

    func open(_ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        session.loadMetadata(completion)
    }

    func execute(_ job: RequestJob, completion: @escaping @Sendable (Result<Response, RequestFailure>) -> Void) -> EngineTask? {
        let exchange = OnlineExchange(engine: self, job: job, completion: completion)
        exchange.start()
        return exchange
    }

    func shutdown() {
        session.shutdown()
    }
}
