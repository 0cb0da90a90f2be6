import Glibc

/// Everything a store needs to talk to the service, shared by the online engine (every
/// request), the offline store's download and, later, its upload: the HTTP transport, the
/// headers every request carries (protocol version, authentication, the app's own), the SAP
/// CSRF token, and what `$metadata` says once it is loaded.
///
/// Threading: thread-safe. Completions run on the transport's thread.
final class ServiceSession: Sendable {
    let options: StoreOptions
    let transport: any HTTPTransport
    let csrf = CSRFToken()
    /// The credentials a logon gave, and the logon prompt (`LogonGate`, docs/logon.md).
    let logon: LogonGate
    /// The service root with a trailing slash.
    let serviceRoot: String
    private let loaded: Locked<ServiceState>
    /// The thread reading `metadataPath` (never the caller's: `ods_store_open` returns at once).
    private let reader = Locked<JoinableThread?>(nil)

    /// What is known about the service, replaced as a whole when `$metadata` is loaded: a
    /// request takes one reference instead of copying the model under the lock.
    final class ServiceState: Sendable {
        let version: ODataVersion?
        let model: ServiceModel?
        /// The model's flattened payload types, shared by every response of the store.
        let schema: PayloadSchema?
        /// The `$metadata` document the model was read from (the offline store keeps it).
        let document: [UInt8]
        /// The headers of a GET that sets none of its own (protocol version, authentication,
        /// Accept, the store's headers), for data and for raw values (`$count`, `$value`).
        let readHeaders: [(name: String, value: String)]
        let rawReadHeaders: [(name: String, value: String)]

        init(version: ODataVersion?, model: ServiceModel?, schema: PayloadSchema?, document: [UInt8],
             options: StoreOptions) {
            self.version = version
            self.model = model
            self.schema = schema
            self.document = document
            let v = version ?? .v4
            readHeaders = ServiceSession.merged(ServiceSession.baseHeaders(version: v, options) + [("Accept", ProtocolHeaders.accept(v))],
                                                [], options)
            rawReadHeaders = ServiceSession.merged(ServiceSession.baseHeaders(version: v, options) + [("Accept", ProtocolHeaders.rawAccept)],
                                                   [], options)
        }
    }

    init(options: StoreOptions, transport: any HTTPTransport) {
        self.options = options
        self.transport = transport
        logon = LogonGate(options: options)
        serviceRoot = options.serviceRoot.hasSuffix("/") ? options.serviceRoot : options.serviceRoot + "/"
        loaded = Locked(ServiceState(version: options.odataVersion, model: nil, schema: nil, document: [], options: options))
    }

    /// A session over a new libcurl transport configured from the store's options.
    static func make(options: StoreOptions) throws(ODataStoreError) -> ServiceSession {
        if options.metadataDocument == nil, let path = options.metadataPath {
            // Checked here, on the caller's thread, with stat() (which never blocks: a FIFO
            // or a device is refused without being opened); read in the background.
            try LocalFile.check(path, limit: options.limits.maxResponseBytes)
        }
        let configuration = CurlTransportConfiguration(
            caBundlePath: options.caBundlePath,
            verifyTLS: !options.insecureSkipTLSVerify,
            connectTimeoutMilliseconds: options.connectTimeoutMilliseconds > 0 ? options.connectTimeoutMilliseconds : 10_000,
            defaultTimeoutMilliseconds: options.requestTimeoutMilliseconds,
            maxConnectionsPerHost: max(options.maxConnections, 1),
            maxTotalConnections: max(options.maxConnections, 1),
            userAgent: options.userAgent,
            maxResponseBodyBytes: options.limits.maxResponseBytes,
            maxCompressionRatio: options.limits.maxCompressionRatio,
            compressionRatioThreshold: StoreLimits.compressionRatioThreshold)
        let transport: CurlTransport
        do {
            transport = try CurlTransport(configuration: configuration)
        } catch {
            throw ODataStoreError(.invalidArgument, "cannot set up HTTP: \(error)")
        }
        return ServiceSession(options: options, transport: transport)
    }

    /// A consistent snapshot of what is known about the service.
    var state: ServiceState { loaded.withLock { $0 } }

    var odataVersion: ODataVersion? { state.version }
    var model: ServiceModel? { state.model }

    // MARK: - Headers

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
        applying(options.headers + extra, to: base)
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

    /// What is retried, and how often (the store's `max_retries`).
    var retryPolicy: RetryPolicy { RetryPolicy(maxRetries: options.limits.maxRetries) }

    /// Sends `request`, retrying as `retryPolicy` allows; `record` is told each attempt's
    /// transport id (for cancellation) and `completion` gets the last attempt's result.
    ///
    /// Logon (docs/logon.md): every attempt carries the session's current credentials. With
    /// a logon handler, an answer that asks for a logon (401, or a login page when
    /// `sessionExpiredOnLoginPage`) is not the result: the exchange waits for the app's
    /// reply (one prompt for every exchange that fails meanwhile) and is sent again with the
    /// new credentials, at most `maxLogonAttempts + 1` times. While a prompt is open, an
    /// exchange is held before its first attempt. A refused logon completes with a 401.
    /// `cancelled` is asked before an exchange held for a logon is sent (a request cancelled
    /// meanwhile, a write above all, must not go out); it then completes with `.cancelled`.
    func send(_ request: HTTPRequest, retry: Int = 0, delayMilliseconds: Int = 0,
              cancelled: @escaping @Sendable () -> Bool = { false },
              record: @escaping @Sendable (UInt64) -> Void = { _ in },
              completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) {
        guard logon.enabled else {
            attempt(request, retry: retry, delayMilliseconds: delayMilliseconds, logons: 0, cancelled: cancelled,
                    record: record, completion: completion)
            return
        }
        logon.whenReady { [self] next in
            resume(next, request, retry: retry, delayMilliseconds: delayMilliseconds, logons: 0, last: nil,
                   cancelled: cancelled, record: record, completion: completion)
        }
    }

    /// What a held exchange does once the logon gate lets it go (or gives it up).
    private func resume(_ next: LogonGate.Next, _ request: HTTPRequest, retry: Int, delayMilliseconds: Int, logons: Int,
                        last: HTTPResponse?, cancelled: @escaping @Sendable () -> Bool,
                        record: @escaping @Sendable (UInt64) -> Void,
                        completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) {
        switch next {
        case .send:
            if cancelled() { return completion(.failure(.cancelled)) }
            attempt(request, retry: retry, delayMilliseconds: delayMilliseconds, logons: logons, cancelled: cancelled,
                    record: record, completion: completion)
        case .refused(let why):
            // Never the credentials: only why the logon ended.
            completion(.success(HTTPResponse(status: 401, headers: [("Content-Type", "text/plain")],
                                             body: Array((why + (last == nil ? "" : " (the service answered \(last!.status))")).utf8))))
        case .tooManyHeld(let why):
            completion(.failure(.limit(.heldRequests, why)))
        case .closed:
            completion(.failure(.closed))
        }
    }

    private func attempt(_ request: HTTPRequest, retry: Int, delayMilliseconds: Int, logons: Int,
                         cancelled: @escaping @Sendable () -> Bool,
                         record: @escaping @Sendable (UInt64) -> Void,
                         completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) {
        let policy = retryPolicy
        var authorized = request
        let ticket = logon.authorize(&authorized)
        let started = Log.enabled(.info) ? Log.exchangeStarted(request, retry: retry) : 0
        let id = transport.send(authorized, delayMilliseconds: delayMilliseconds) { [self] result in
            if started != 0 { Log.exchangeFinished(request, result, since: started) }
            if logon.enabled, case .success(let response) = result {
                if let status = asksForLogon(response, request: request) {
                    guard logons <= logon.maxAttempts else { return completion(result) }
                    logon.challenged(ticket, status: status,
                                     authenticate: response.header("WWW-Authenticate")) { [self] next in
                        resume(next, request, retry: retry, delayMilliseconds: 0, logons: logons + 1, last: response,
                               cancelled: cancelled, record: record, completion: completion)
                    }
                    return
                }
                if response.status != 403 { logon.succeeded(generation: ticket.generation) }
            }
            let delay: Int?
            switch result {
            case .success(let response): delay = policy.delay(after: response, method: request.method, retry: retry)
            case .failure(let error): delay = policy.delay(after: error, method: request.method, retry: retry)
            }
            if let delay {
                Log.info(.retry, Log.retrying(request, result, retry: retry, delay: delay))
                attempt(request, retry: retry + 1, delayMilliseconds: delay, logons: logons, cancelled: cancelled,
                        record: record, completion: completion)
            } else {
                completion(result)
            }
        }
        record(id)
    }

    /// The status of an answer that asks for a logon (401; a 2xx HTML page when
    /// `sessionExpiredOnLoginPage` and the request did not accept HTML), or nil.
    private func asksForLogon(_ response: HTTPResponse, request: HTTPRequest) -> Int? {
        if response.status == 401 { return 401 }
        guard logon.loginPageExpires, (200..<300).contains(response.status),
              let type = response.header("Content-Type"), ASCIIMatch.contains(type, lowercased: "text/html") else { return nil }
        let accept = request.headers.first { asciiCaseInsensitiveEquals($0.name, "Accept") }?.value ?? ""
        // A request that accepts HTML (a `$value` read accepts any type) may get HTML as its answer.
        if ASCIIMatch.contains(accept, lowercased: "html") || ASCIIMatch.contains(accept, lowercased: "*/*") { return nil }
        return response.status
    }

    /// A request's time limit: its own when set, else the store's.
    func timeout(_ requested: Int) -> Int {
        requested > 0 ? requested : options.requestTimeoutMilliseconds
    }

    // MARK: - $metadata

    /// Loads `$metadata`: from the options (a document or a file) or from the service, once.
    /// Calls `completion` exactly once, on the transport's thread or the caller's.
    func loadMetadata(_ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        if let document = options.metadataDocument {
            completion(load(document))
            return
        }
        if let path = options.metadataPath {
            let limit = options.limits.maxResponseBytes
            do {
                let thread = try JoinableThread { [self] in
                    completion(LocalFile.read(path, limit: limit).flatMap { load($0) })
                }
                reader.withLock { $0 = thread }
            } catch {
                completion(.failure(ODataStoreError(.noMemory, "cannot start a thread to read metadata_path: \(error)")))
            }
            return
        }
        fetchMetadata { [self] result in completion(result.flatMap { load($0) }) }
    }

    /// Fetches the service's `$metadata` document (and, on SAP services, a CSRF token).
    func fetchMetadata(_ completion: @escaping @Sendable (Result<[UInt8], ODataStoreError>) -> Void) {
        var headers = merged(baseHeaders(version: options.odataVersion ?? .v4).filter {
            // Before the version is known, send neither version header set.
            options.odataVersion != nil || !$0.name.hasPrefix("OData") }, [("Accept", "application/xml")])
        if options.csrfProtection { headers.append(("X-CSRF-Token", "Fetch")) }
        if options.csrfProtection { Log.debug(.csrf, "fetching a CSRF token with $metadata") }
        let request = HTTPRequest(method: "GET", url: serviceRoot + "$metadata", headers: headers,
                                  timeoutMilliseconds: options.requestTimeoutMilliseconds)
        send(request) { [self] result in
            switch result {
            case .success(let response):
                csrf.update(from: response)
                guard (200..<300).contains(response.status) else {
                    completion(.failure(ResponseErrors.error(for: response, what: "loading $metadata",
                                                                maxText: options.limits.maxErrorMessageBytes)))
                    return
                }
                completion(.success(response.body))
            case .failure(let error):
                completion(.failure(ResponseErrors.error(for: error, what: "loading $metadata")))
            }
        }
    }

    /// Parses a `$metadata` document and makes it the session's.
    func load(_ document: [UInt8]) -> Result<Void, ODataStoreError> {
        do {
            let model = try MetadataParser.parse(document)
            if let mismatch = versionMismatch(model, of: "the service's $metadata") { return .failure(mismatch) }
            install(model, document: document)
            return .success(())
        } catch {
            return .failure(ODataStoreError(.protocol, "the service's $metadata could not be read: \(error)"))
        }
    }

    /// `.protocol` when the app asked for another OData version (`odata_version`) than
    /// `model`'s, else nil. Reading a V4 service as V2 (or the reverse) would decode every
    /// answer with the wrong reader and leak the other version's annotations into the shape.
    /// `what`: where the model came from, for the message.
    func versionMismatch(_ model: ServiceModel, of what: String) -> ODataStoreError? {
        guard let expected = options.odataVersion, expected != model.version else { return nil }
        return ODataStoreError(.protocol, "odata_version is \(expected.rawValue) but \(what) is OData \(model.version.rawValue)")
    }

    /// Makes an already parsed model the session's (the offline store reopening its file;
    /// the caller has checked `versionMismatch`).
    func install(_ model: ServiceModel, document: [UInt8]) {
        let schema = PayloadSchema(model)
        let version = options.odataVersion ?? model.version
        let loadedState = ServiceState(version: version, model: model, schema: schema, document: document, options: options)
        loaded.withLock { $0 = loadedState }
    }

    func shutdown() {
        logon.shutdown()  // first: held exchanges give up instead of reaching a closed transport
        transport.shutdown()
        reader.withLock { $0 }?.join()
    }
}

/// An engine that talks to the service through a session: the store connects the session's
/// logon prompt to its dispatch mode (`Store.init`) and answers it (`Store.logon`).
protocol ServiceSessionOwner {
    var session: ServiceSession { get }
}

/// Reads a local file (the `$metadata` given by path): a regular file only (a FIFO or a
/// device could block or never end), at most `limit` bytes.
enum LocalFile {
    /// Refuses a path that is missing, not a regular file, or larger than `limit`; never blocks.
    static func check(_ path: String, limit: Int) throws(ODataStoreError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw ODataStoreError(.io, "cannot open metadata_path \(path): \(String(cString: strerror(errno)))")
        }
        try checkStat(st, path, limit: limit)
    }

    private static func checkStat(_ st: stat, _ path: String, limit: Int) throws(ODataStoreError) {
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw ODataStoreError(.io, "metadata_path \(path) is not a regular file")
        }
        guard Int(st.st_size) <= limit else {
            throw ODataStoreError(.limit, "metadata_path \(path) has \(st.st_size) bytes, more than max_response_bytes (\(limit))")
        }
    }

    static func read(_ path: String, limit: Int) -> Result<[UInt8], ODataStoreError> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            return .failure(ODataStoreError(.io, "cannot open metadata_path \(path): \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            return .failure(ODataStoreError(.io, "cannot read metadata_path \(path): \(String(cString: strerror(errno)))"))
        }
        do {
            try checkStat(st, path, limit: limit)
        } catch {
            return .failure(error)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(st.st_size))
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(ODataStoreError(.io, "cannot read metadata_path \(path): \(String(cString: strerror(errno)))"))
            }
            if n == 0 { break }
            guard bytes.count + n <= limit else {
                return .failure(ODataStoreError(.limit, "metadata_path \(path) grew past max_response_bytes (\(limit))"))
            }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return .success(bytes)
    }
}
