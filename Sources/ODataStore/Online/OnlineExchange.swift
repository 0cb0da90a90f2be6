
/// One request's life on the network: build the HTTP request, send it, fetch a CSRF token
/// and retry once when the service demands one, follow next links when asked, decode the
/// payload into the canonical JSON shape, and complete exactly once.
///
/// Threading: `start` runs on the caller's thread; everything after runs on the
/// transport's thread. `cancel` may be called from any thread.
final class OnlineExchange: EngineTask {
    private let engine: OnlineEngine
    private let job: RequestJob
    private let completion: @Sendable (Result<Response, RequestFailure>) -> Void
    private let progress = Locked(Progress())

    private struct Progress {
        var cancelled = false
        var completed = false
        var transfer: UInt64?
        var csrfRetried = false
        var pages: [DecodedPage] = []
        var visited: Set<String> = []
        /// Bytes held for the pages read so far (raw bodies and their canonical JSON).
        var bytes = 0
    }

    /// A page decoded while following next links.
    private struct DecodedPage {
        var response: HTTPResponse
        var payload: DecodedPayload
    }

    /// What `prepare` works out once per request.
    private struct Plan: Sendable {
        var version: ODataVersion
        var method: String
        var url: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        var entitySet: String?
        /// The entity type of a navigation result (when `entitySet` is nil).
        var entityType: String? = nil
        var target: PayloadTarget
        var modifying: Bool
        /// `/$value` or `/$count`: the answer is raw text or media, not an OData payload.
        var raw: Bool
        /// A GET of `/$count`: the answer is a non-negative integer (text/plain).
        var isCount = false
        /// The engine's knowledge of the service when the request was prepared.
        var service: ServiceSession.ServiceState
    }

    init(engine: OnlineEngine, job: RequestJob,
         completion: @escaping @Sendable (Result<Response, RequestFailure>) -> Void) {
        self.engine = engine
        self.job = job
        self.completion = completion
    }

    func start() {
        let plan: Plan
        do {
            plan = try prepare()
        } catch {
            finish(.failure(RequestFailure(error: error)))
            return
        }
        send(plan, url: plan.url, first: true)
    }

    func cancel() {
        let transfer: UInt64? = progress.withLock { p in
            p.cancelled = true
            return p.transfer
        }
        if let transfer { engine.transport.cancel(transfer) }
        finish(.failure(RequestFailure(error: .cancelled)))
    }

    // MARK: - Building

    private func prepare() throws(ODataStoreError) -> Plan {
        let service = engine.state
        let version = service.version ?? .v4
        let model = service.model
        let url = job.url  // made (and checked) when the request was created
        let target = ResourceTarget(path: job.path, serviceRoot: engine.serviceRoot)
        let operation = job.mode == .function ? target.firstSegment.flatMap { model?.operationImports[$0] } : nil
        if job.mode == .function, model != nil, operation == nil {
            throw ODataStoreError(.invalidArgument, "\"\(target.firstSegment ?? job.path)\" is not a function or action import of this service")
        }
        let method = HTTPMethodChoice.method(for: job.mode, version: version, operation: operation, hasBody: job.body != nil)
        var entitySet = target.entitySet(in: model)
        var entityType: String? = nil
        var payloadTarget = PayloadTarget.automatic
        if entitySet == nil, target.hasMoreSegments, !target.isRawValue, job.mode == .read, let model {
            switch ResourceTarget.pathType(path: job.path, serviceRoot: engine.serviceRoot, model: model) {
            case .entities(let type)?: entityType = type
            case .value(let type)?: payloadTarget = .value(type)
            case nil: break
            }
        }
        if let operation, let returns = operation.returnType, let model {
            // An operation's result is typed by its declaration: entities of its set, or a value.
            if model.structuredType(returns.name)?.kind == .entity {
                payloadTarget = .entities
                entitySet = operation.entitySet ?? entitySet
            } else {
                payloadTarget = .value(returns)
            }
        }

        if method == "GET", job.mode == .read, ResourceTarget.isMetadata(job.path, serviceRoot: engine.serviceRoot) {
            // The CSDL document as the service has it now: XML, given back as received (the
            // OData JSON Accept of a read got 406 from pyslet and odatapy).
            let headers = ServiceSession.applying([("Accept", "application/xml")] + job.headers, to: service.rawReadHeaders)
            return Plan(version: version, method: method, url: url, headers: headers, body: [], entitySet: nil, entityType: nil,
                        target: payloadTarget, modifying: false, raw: true, service: service)
        }
        if method == "GET" {
            // No body and no If-Match: the store's read headers, made once, plus the request's own.
            let headers = ServiceSession.applying(job.headers, to: target.isRawValue ? service.rawReadHeaders : service.readHeaders)
            return Plan(version: version, method: method, url: url, headers: headers, body: [], entitySet: entitySet, entityType: entityType,
                        target: payloadTarget, modifying: false, raw: target.isRawValue, isCount: target.isCount, service: service)
        }
        var headers = engine.baseHeaders(version: version)
        headers.append(("Accept", target.isRawValue ? ProtocolHeaders.rawAccept : ProtocolHeaders.accept(version)))
        var body: [UInt8] = []
        if let text = job.body, method != "GET", method != "DELETE" {
            if job.mode.requiresBody {
                do {
                    let encoded = try PayloadEncoder.encodeEntity(text, version: version, model: model, entitySet: entitySet)
                    body = encoded.body
                    headers.append(("Content-Type", encoded.contentType))
                } catch {
                    throw ODataStoreError(.invalidArgument, "the request body cannot be sent: \(error)")
                }
            } else {
                body = Array(text.utf8)
                headers.append(("Content-Type", "application/json"))
            }
        }
        let modifying = method != "GET"
        if modifying, job.mode != .create, job.mode != .function, let etag = job.etag ?? bodyETag() {
            headers.append(("If-Match", etag))
        }
        return Plan(version: version, method: method, url: url, headers: engine.merged(headers, job.headers),
                    body: body, entitySet: entitySet, target: payloadTarget, modifying: modifying, raw: target.isRawValue,
                    service: service)
    }

    /// The `@odata.etag` of the JSON body, used as If-Match when the app set none.
    private func bodyETag() -> String? {
        guard let body = job.body, case .object(let o)? = try? JSONValue.parse(body),
              case .string(let etag)? = o["@odata.etag"] else { return nil }
        return Self.usableETag(etag)
    }

    /// An ETag that can go back into an If-Match header: none with CR, LF or NUL (a server
    /// that sends one gets no If-Match from it, rather than a request that cannot be sent).
    static func usableETag(_ etag: String?) -> String? {
        guard let etag, !etag.isEmpty, isValidFieldValue(etag) else { return nil }
        return etag
    }

    // MARK: - Sending

    private func send(_ plan: Plan, url: String, first: Bool) {
        var headers = plan.headers
        if plan.modifying, engine.options.csrfProtection, let token = engine.csrf.current {
            headers.append(("X-CSRF-Token", token))
        }
        let request = HTTPRequest(method: first ? plan.method : "GET", url: url, headers: headers,
                                  body: first ? plan.body : [], timeoutMilliseconds: engine.timeout(job.timeoutMilliseconds))
        // One closure for the transport (not a continuation wrapped in another).
        let method = request.method
        engine.session.send(request, cancelled: { [self] in isCancelled }, record: { [self] id in record(id) }) { [self] result in
            switch result {
            case .success(let response): handle(response, plan: plan, url: url, first: first)
            case .failure(let error): transportFailed(error, method: method)
            }
        }
    }

    private func transportFailed(_ error: HTTPTransportError, method: String) {
        finish(.failure(RequestFailure(error: ResponseErrors.error(for: error, what: "\(method) \(job.path)"))))
    }

    private var isCancelled: Bool { progress.withLock { $0.cancelled } }

    /// Remembers the transfer in flight; cancels it when the request was cancelled meanwhile.
    private func record(_ id: UInt64) {
        let cancelled: Bool = progress.withLock { p in
            // Ids grow: a retry started on the transport thread before its first attempt's id
            // was recorded here must not be replaced by that older id.
            p.transfer = max(p.transfer ?? 0, id)
            return p.cancelled
        }
        if cancelled { engine.transport.cancel(id) }
    }

    /// Sends one HTTP request unless cancelled; transport failures finish the request.
    private func transmit(_ request: HTTPRequest, then: @escaping @Sendable (HTTPResponse) -> Void) {
        let method = request.method
        engine.session.send(request, cancelled: { [self] in isCancelled }, record: { [self] id in record(id) }) { [self] result in
            switch result {
            case .success(let response): then(response)
            case .failure(let error): transportFailed(error, method: method)
            }
        }
    }

    private func handle(_ response: HTTPResponse, plan: Plan, url: String, first: Bool) {
        engine.csrf.update(from: response)
        if first, plan.modifying, engine.options.csrfProtection, CSRFToken.isRequired(response),
           progress.withLock({ p in defer { p.csrfRetried = true }; return !p.csrfRetried }) {
            refetchToken { [self] in send(plan, url: url, first: true) }
            return
        }
        guard (200..<300).contains(response.status) else {
            finish(.failure(failure(for: response, method: first ? plan.method : "GET")))
            return
        }
        let payload: DecodedPayload
        do {
            payload = try decode(response, plan: plan)
        } catch {
            finish(.failure(RequestFailure(error: error, response: Response(raw: response))))
            return
        }
        if job.paging == .follow, let next = payload.nextLink {
            let absolute = absoluteLink(next, relativeTo: url)
            let limits = engine.options.limits
            enum Next { case follow, repeated, tooManyPages(Int), tooLarge(Int) }
            let next: Next = progress.withLock { p in
                p.pages.append(DecodedPage(response: response, payload: payload))
                p.bytes += response.body.count + payload.utf8.count
                if p.pages.count >= limits.maxPages { return .tooManyPages(p.pages.count) }
                if p.bytes > limits.maxResponseBytes { return .tooLarge(p.bytes) }
                return p.visited.insert(absolute).inserted ? .follow : .repeated
            }
            switch next {
            case .follow:
                break
            case .repeated:
                finish(.failure(RequestFailure(error: ODataStoreError(.protocol, "the service sent the same next link twice: \(ResponseErrors.printable(absolute, limit: 300))"))))
                return
            case .tooManyPages(let n):
                finish(.failure(RequestFailure(error: ODataStoreError(.limit,
                    "GET \(job.path): \(n) pages read and the service sends another next link (max_pages is \(limits.maxPages))"))))
                return
            case .tooLarge(let n):
                finish(.failure(RequestFailure(error: ODataStoreError(.limit,
                    "GET \(job.path): the pages read so far hold \(n) bytes, more than max_response_bytes (\(limits.maxResponseBytes))"))))
                return
            }
            do {
                let nextURL = try RequestURL.make(serviceRoot: engine.serviceRoot, path: absolute)
                send(plan, url: nextURL, first: false)
            } catch {
                // The service's link, not the app's input: a protocol failure (never followed).
                finish(.failure(RequestFailure(error: ODataStoreError(.protocol, "GET \(job.path): the service's next link cannot be followed: \(error.message)"))))
            }
            return
        }
        let earlier: [DecodedPage] = job.paging == .follow ? progress.withLock { $0.pages } : []
        if earlier.isEmpty {
            finish(.success(single(response, payload)))
        } else {
            finish(.success(assemble(earlier + [DecodedPage(response: response, payload: payload)])))
        }
    }

    private func refetchToken(then retry: @escaping @Sendable () -> Void) {
        engine.csrf.invalidate()
        var headers = engine.merged(engine.baseHeaders(version: engine.odataVersion ?? .v4), [])
        headers.append(("X-CSRF-Token", "Fetch"))
        let request = HTTPRequest(method: "GET", url: engine.serviceRoot, headers: headers,
                                  timeoutMilliseconds: engine.timeout(job.timeoutMilliseconds))
        transmit(request) { [self] response in
            engine.csrf.update(from: response)
            retry()
        }
    }

    // MARK: - Results

    private func decode(_ response: HTTPResponse, plan: Plan) throws(ODataStoreError) -> DecodedPayload {
        if plan.isCount, response.status == 200 {
            // What the service counted: a non-negative 64-bit integer, as @odata.count must be.
            let text = String(decoding: response.body.prefix(64), as: UTF8.self).trimmingWhitespace()
            guard response.body.count <= 64, let n = Int64(text), n >= 0, text.first != "+" else {
                throw ODataStoreError(.protocol, "the service answered GET \(job.path) with \(response.body.isEmpty ? "an empty body" : "\"\(ResponseErrors.printable(text, limit: 40))\""), not a non-negative 64-bit integer count",
                                      httpStatus: response.status)
            }
            return DecodedPayload(json: "{\"value\":\(n)}", count: n)
        }
        if response.body.isEmpty || response.status == 204 {
            if response.status == 200, plan.method == "GET", !plan.raw,
               plan.target.expectsEntities(declaredEntityType: plan.entitySet != nil || plan.entityType != nil) {
                // A read of entities answered 200 with nothing: not "no entity" (that is a 204
                // or a 404), and not an empty collection (that is {"value":[]}).
                throw ODataStoreError(.protocol, "the service answered GET \(job.path) with HTTP 200 and an empty body, not OData JSON",
                                      httpStatus: response.status)
            }
            return DecodedPayload.empty
        }
        let contentType = response.header("Content-Type") ?? ""
        if ASCIIMatch.hasPrefix(contentType, lowercased: "text/plain") {
            return DecodedPayload.plainText(response.body)
        }
        // A raw answer in XML ($metadata, an XML media resource) is a document, not an Atom
        // payload: its bytes only.
        if plan.raw, !ASCIIMatch.contains(contentType, lowercased: "json") { return DecodedPayload.empty }
        guard ASCIIMatch.contains(contentType, lowercased: "json") || ASCIIMatch.contains(contentType, lowercased: "xml") else {
            // Media ($value of a stream, images...): raw bytes only. Anything else that is not
            // OData (an SSO login page, a proxy's HTML, a body without a type) is not an
            // empty success.
            if plan.raw { return DecodedPayload.empty }
            let shown = contentType.isEmpty ? "no Content-Type" : "Content-Type \"\(ResponseErrors.printable(contentType, limit: 100))\""
            throw ODataStoreError(.protocol, "the service answered \(plan.method) \(job.path) with HTTP \(response.status) and \(shown), not OData JSON or XML (a login page?)",
                                  httpStatus: response.status)
        }
        do {
            return try PayloadDecoder.decode(response.body, contentType: contentType, version: plan.version,
                                             model: plan.service.model, entitySet: plan.entitySet, entityType: plan.entityType, target: plan.target,
                                             schema: plan.service.schema)
        } catch {
            throw ODataStoreError(.protocol, "the service's response to \(plan.method) \(job.path) is not valid OData: \(error)",
                                  httpStatus: response.status)
        }
    }

    private func failure(for response: HTTPResponse, method: String) -> RequestFailure {
        let error = ResponseErrors.error(for: response, what: "\(method) \(job.path)",
                                         maxText: engine.options.limits.maxErrorMessageBytes)
        var r = Response(raw: response)
        if error.odataCode != nil || error.odataMessage != nil {
            var inner = JSONObject()
            inner["code"] = .string(error.odataCode ?? "")
            inner["message"] = .string(error.odataMessage ?? "")
            var outer = JSONObject()
            outer["error"] = .object(inner)
            r.json = JSONValue.object(outer).serialized()
        }
        return RequestFailure(error: error, response: r)
    }

    /// The response of a request answered by one page.
    private func single(_ raw: HTTPResponse, _ payload: DecodedPayload) -> Response {
        var response = Response(raw: raw)
        response.etag = Self.usableETag(payload.etag ?? raw.header("ETag"))
        response.count = payload.count
        response.deltaLink = payload.deltaLink
        response.json = payload.json
        response.nextLink = payload.nextLink
        response.entityCount = payload.entityCount
        response.entityRanges = payload.entityRanges
        return response
    }

    private func assemble(_ pages: [DecodedPage]) -> Response {
        guard let last = pages.last else { return Response(status: 0) }
        let etag = Self.usableETag(last.payload.etag ?? last.response.header("ETag"))
        var response = Response(raw: last.response)
        response.etag = etag
        response.count = pages.first?.payload.count
        response.deltaLink = last.payload.deltaLink
        if pages.count == 1 {
            response.json = last.payload.json
            response.nextLink = last.payload.nextLink
            response.entityCount = last.payload.entityCount
            return response
        }
        // Several pages: one collection holding every page's entities.
        var items: [JSONValue] = []
        var top = JSONObject()
        for (i, page) in pages.enumerated() {
            guard case .object(let o)? = try? JSONValue.parse(page.payload.json) else { continue }
            if i == 0 { top = o }
            if case .array(let values)? = o["value"] { items.append(contentsOf: values) }
        }
        top["value"] = .array(items)
        top["@odata.nextLink"] = nil
        if let delta = last.payload.deltaLink { top["@odata.deltaLink"] = .string(delta) }
        response.json = JSONValue.object(top).serialized()
        response.nextLink = nil
        response.entityCount = items.count
        return response
    }

    private func absoluteLink(_ link: String, relativeTo url: String) -> String {
        if link.hasPrefix("http://") || link.hasPrefix("https://") { return link }
        if link.hasPrefix("/") {
            return (RequestURL.origin(of: url) ?? "") + link
        }
        return engine.serviceRoot + link
    }

    private func finish(_ outcome: Result<Response, RequestFailure>) {
        let first: Bool = progress.withLock { p in
            defer { p.completed = true }
            return !p.completed
        }
        if first { completion(outcome) }
    }
}

extension Response {
    /// A response carrying only what the transport received.
    init(raw: HTTPResponse) {
        self.init(status: raw.status, headerFields: raw.headerFields, body: raw.body)
    }
}

extension DecodedPayload {
    static var empty: DecodedPayload {
        DecodedPayload(json: "")
    }

    /// `$count` and other plain-text values, as `{"value": ...}`.
    static func plainText(_ body: [UInt8]) -> DecodedPayload {
        let text = String(decoding: body, as: UTF8.self).trimmingWhitespace()
        if let n = Int64(text) {
            return DecodedPayload(json: "{\"value\":\(n)}", count: n)
        }
        var o = JSONObject()
        o["value"] = .string(text)
        return DecodedPayload(json: JSONValue.object(o).serialized())
    }
}

extension String {
    func trimmingWhitespace() -> String {
        // "\r\n" is one Character (a grapheme), equal to neither "\r" nor "\n".
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\r\n" }
        return String(self.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
