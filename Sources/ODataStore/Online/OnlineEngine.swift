import Glibc

/// The online store's engine: every request goes to the service over HTTP.
///
/// Opening loads `$metadata` once (from the service, or from the options) to learn the
/// protocol version and the schema that types payloads; it is cached for the store's life.
/// Threading: thread-safe; completions run on the transport's thread.
final class OnlineEngine: RequestEngine {
    let options: StoreOptions
    let transport: any HTTPTransport
    let csrf = CSRFToken()
    /// The service root with a trailing slash.
    let serviceRoot: String
    private let loaded: Locked<ServiceState>

    /// What the engine knows about the service, replaced as a whole when `$metadata` is
    /// loaded: a request takes one reference instead of copying the model under the lock.
    final class ServiceState: Sendable {
        let version: ODataVersion?
        let model: ServiceModel?
        /// The model's flattened payload types, shared by every response of the store.
        let schema: PayloadSchema?
        /// The headers of a GET that sets none of its own (protocol version, authentication,
        /// Accept, the store's headers), for data and for raw values (`$count`, `$value`).
        let readHeaders: [(name: String, value: String)]
        let rawReadHeaders: [(name: String, value: String)]

        init(version: ODataVersion?, model: ServiceModel?, schema: PayloadSchema?, options: StoreOptions) {
            self.version = version
            self.model = model
            self.schema = schema
            let v = version ?? .v4
            readHeaders = OnlineEngine.merged(OnlineEngine.baseHeaders(version: v, options) + [("Accept", ProtocolHeaders.accept(v))],
                                              [], options)
            rawReadHeaders = OnlineEngine.merged(OnlineEngine.baseHeaders(version: v, options) + [("Accept", ProtocolHeaders.rawAccept)],
                                                 [], options)
        }
    }

    init(options: StoreOptions, transport: any HTTPTransport) {
        self.options = options
        self.transport = transport
        serviceRoot = options.serviceRoot.hasSuffix("/") ? options.serviceRoot : options.serviceRoot + "/"
        loaded = Locked(ServiceState(version: options.odataVersion, model: nil, schema: nil, options: options))
    }

    /// A consistent snapshot of what is known about the service.
    var state: ServiceState { loaded.withLock { $0 } }

    var odataVersion: ODataVersion? { state.version }
    var model: ServiceModel? { state.model }
    var schema: PayloadSchema? { state.schema }

    /// The headers every request carries: protocol version, authentication, the app's own.
    func baseHeaders(version: ODataVersion) -> [(name: String, value: String)] {
        Self.baseHeaders(version: version, options)
    }

    static func baseHeaders(version: ODataVersion, _ options: StoreOptions) -> [(name: String, value: String)] {
        var headers = ProtocolHeaders.version(version)
        if let auth = ProtocolHeaders.authorization(options.authentication) { headers.append(auth) }
        return headers
    }

    /// Applies the app's store-wide headers (replacing same-named ones) and then `extra`.
    func merged(_ base: [(name: String, value: String)], _ extra: [(name: String, value: String)]) -> [(name: String, value: String)] {
        Self.merged(base, extra, options)
    }

    static func merged(_ base: [(name: String, value: String)], _ extra: [(name: String, value: String)],
                       _ options: StoreOptions) -> [(name: String, value: String)] {
        var result = base
        for h in options.headers + extra {
            result.removeAll { asciiCaseInsensitiveEquals($0.name, h.name) }
            result.append(h)
        }
        return result
    }

    /// Applies `extra` (replacing same-named headers) to headers the store's own are already in.
    static func applying(_ extra: [(name: String, value: String)],
                         to base: [(name: String, value: String)]) -> [(name: String, value: String)] {
        guard !extra.isEmpty else { return base }
        var result = base
        for h in extra {
            result.removeAll { asciiCaseInsensitiveEquals($0.name, h.name) }
            result.append(h)
        }
        return result
    }

    func timeout(_ requested: Int) -> Int {
        requested > 0 ? requested : options.requestTimeoutMilliseconds
    }

    // MARK: - Open

    func open(_ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        if let document = options.metadataDocument {
            completion(load(document))
            return
        }
        if let path = options.metadataPath {
            completion(LocalFile.read(path).flatMap { load($0) })
            return
        }
        var headers = merged(baseHeaders(version: options.odataVersion ?? .v4).filter {
            // Before the version is known, send neither version header set.
            options.odataVersion != nil || !$0.name.hasPrefix("OData") }, [("Accept", "application/xml")])
        if options.csrfProtection { headers.append(("X-CSRF-Token", "Fetch")) }
        let request = HTTPRequest(method: "GET", url: serviceRoot + "$metadata", headers: headers,
                                  timeoutMilliseconds: options.requestTimeoutMilliseconds)
        transport.send(request) { [self] result in
            switch result {
            case .success(let response):
                csrf.update(from: response)
                guard (200..<300).contains(response.status) else {
                    completion(.failure(ResponseErrors.error(for: response, what: "loading $metadata")))
                    return
                }
                completion(load(response.body))
            case .failure(let error):
                completion(.failure(ResponseErrors.error(for: error, what: "loading $metadata")))
            }
        }
    }

    private func load(_ document: [UInt8]) -> Result<Void, ODataStoreError> {
        do {
            let model = try MetadataParser.parse(document)
            let schema = PayloadSchema(model)
            let version = options.odataVersion ?? model.version
            let loadedState = ServiceState(version: version, model: model, schema: schema, options: options)
            loaded.withLock { $0 = loadedState }
            return .success(())
        } catch {
            return .failure(ODataStoreError(.protocol, "the service's $metadata could not be read: \(error)"))
        }
    }

    // MARK: - Requests

    func execute(_ job: RequestJob, completion: @escaping @Sendable (Result<Response, RequestFailure>) -> Void) -> EngineTask? {
        let exchange = OnlineExchange(engine: self, job: job, completion: completion)
        exchange.start()
        return exchange
    }

    func shutdown() {
        transport.shutdown()
    }
}

/// Reads a local file (the `$metadata` given by path).
enum LocalFile {
    static func read(_ path: String) -> Result<[UInt8], ODataStoreError> {
        guard let f = fopen(path, "rb") else {
            return .failure(ODataStoreError(.io, "cannot open \(path): \(String(cString: strerror(errno)))"))
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 65536, f) }
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            if n < 65536 {
                if ferror(f) != 0 { return .failure(ODataStoreError(.io, "cannot read \(path)")) }
                break
            }
        }
        return .success(bytes)
    }
}
