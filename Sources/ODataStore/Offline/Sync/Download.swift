/// Downloads defining requests into the store file, page by page: each page is fetched,
/// decoded, and written with the defining request's resume point (`next_link`) and counts in
/// one transaction, so a failure or a kill loses at most the page in flight and the next run
/// resumes after the last page written. Memory holds one page at a time.
///
/// Threading: `start` and `cancel` may be called from any thread. The work hops between the
/// transport's thread (HTTP) and the store's database queue (decoding and writing); the
/// completion runs on the database queue, exactly once.
final class Download: Sendable {
    struct Target: Sendable {
        let id: Int64
        let definition: DefiningRequest
    }

    let session: ServiceSession
    let store: OfflineDatabase
    let targets: [Target]
    let pageSize: Int
    let progress: (@Sendable (DownloadProgress) -> Void)?
    private let state = Locked(State())

    private struct State {
        var cancelled = false
        var transfer: UInt64?
        var finished = false
        var totalEntities: Int64 = 0
        var totalBytes: Int64 = 0
        var visited: Set<String> = []
    }

    /// Upper bound on pages per defining request (a server that sends next links forever).
    static let maxPages = 1_000_000

    init(session: ServiceSession, store: OfflineDatabase, targets: [Target], pageSize: Int,
         progress: (@Sendable (DownloadProgress) -> Void)?) {
        self.session = session
        self.store = store
        self.targets = targets
        self.pageSize = pageSize
        self.progress = progress
    }

    func start(_ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        let finish: @Sendable (Result<Void, ODataStoreError>) -> Void = { [self] result in
            let first: Bool = state.withLock { s in
                defer { s.finished = true }
                return !s.finished
            }
            if first { completion(result) }
        }
        store.queue.async { [self] in next(index: 0, finish) }
    }

    /// Stops the download: the page in flight is dropped, what was written stays.
    func cancel() {
        let transfer: UInt64? = state.withLock { s in
            s.cancelled = true
            return s.transfer
        }
        if let transfer { session.transport.cancel(transfer) }
    }

    private var isCancelled: Bool { state.withLock { $0.cancelled } }

    // MARK: - Steps (on the database queue unless said otherwise)

    private func next(index: Int, _ finish: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        guard index < targets.count else {
            finish(.success(()))
            return
        }
        if isCancelled { return finish(.failure(ODataStoreError(.cancelled, "the download was cancelled"))) }
        let target = targets[index]
        let row: DefiningRequestRow
        do {
            row = try store.definingRequest(id: target.id)
        } catch {
            return finish(.failure(error))
        }
        state.withLock { s in
            s.totalEntities += row.entities
            s.totalBytes += row.bytes
        }
        if row.state == .complete {
            Log.debug(.download, "\(target.definition.path): complete already")
            report(target, index: index, row: row, finished: true)
            return next(index: index + 1, finish)
        }
        let version = session.odataVersion ?? .v4
        let path = row.nextLink ?? target.definition.downloadPath(version: version)
        let url: String
        do {
            url = try RequestURL.make(serviceRoot: session.serviceRoot, path: path)
        } catch {
            return finish(.failure(error))
        }
        Log.info(.download, Log.downloadStarts(target.definition.path, row, index: index, count: targets.count))
        fetch(target, index: index, url: url, pages: 0, finish)
    }

    /// Sends the GET of one page (any thread); handling continues on the database queue.
    private func fetch(_ target: Target, index: Int, url: String, pages: Int,
                       _ finish: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        let service = session.state
        let version = service.version ?? .v4
        var headers = service.readHeaders
        if version == .v4 {
            // Ask for a delta link (the next download fetches only the changes) where the
            // store can apply one: defining requests without $expand (a delta of expanded
            // entities needs nested deltas this store does not apply yet).
            var prefer: [String] = []
            if target.definition.expand.items.isEmpty { prefer.append("odata.track-changes") }
            if pageSize > 0 { prefer.append("odata.maxpagesize=\(pageSize)") }
            if !prefer.isEmpty {
                headers = ServiceSession.applying([("Prefer", prefer.joined(separator: ", "))], to: headers)
            }
        }
        let request = HTTPRequest(method: "GET", url: url, headers: headers,
                                  timeoutMilliseconds: session.options.requestTimeoutMilliseconds)
        let what = "downloading \(target.definition.path)"
        // Through the session for its credentials and logon (docs/logon.md); `retry: .max`
        // keeps downloads unrepeated by the retry policy, as they were.
        session.send(request, retry: .max, record: { [self] id in
            let cancelled: Bool = state.withLock { s in
                s.transfer = id
                return s.cancelled
            }
            if cancelled { session.transport.cancel(id) }
        }) { [self] result in
            switch result {
            case .failure(let error):
                finish(.failure(ResponseErrors.error(for: error, what: what)))
            case .success(let response):
                guard (200..<300).contains(response.status) else {
                    return finish(.failure(ResponseErrors.error(for: response, what: what)))
                }
                let queued = store.queue.async { [self] in
                    page(response, target, index: index, pages: pages + 1, service: service, finish)
                }
                if !queued { finish(.failure(ODataStoreError(.closed, "the store was closed during the download"))) }
            }
        }
    }

    private func page(_ response: HTTPResponse, _ target: Target, index: Int, pages: Int,
                      service: ServiceSession.ServiceState, _ finish: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        if isCancelled { return finish(.failure(ODataStoreError(.cancelled, "the download was cancelled"))) }
        let definition = target.definition
        let isCollection = definition.resolved.result == .collection
        let payload: DecodedPayload
        do {
            let contentType = response.header("Content-Type")
            payload = try PayloadDecoder.decode(response.body, contentType: contentType, version: service.version ?? .v4,
                                                model: service.model, entitySet: nil, entityType: definition.table.entityType,
                                                target: .entities, schema: service.schema, spans: true)
        } catch {
            return finish(.failure(ODataStoreError(.protocol, "downloading \(definition.path): the service's answer is not valid OData: \(error)",
                                                   httpStatus: response.status)))
        }
        var nextLink: String? = nil
        if isCollection, let link = payload.nextLink {
            let absolute = absoluteLink(link)
            let repeated = state.withLock { !$0.visited.insert(absolute).inserted }
            if repeated {
                return finish(.failure(ODataStoreError(.protocol, "downloading \(definition.path): the service sent the same next link twice (\(absolute))")))
            }
            if pages >= Self.maxPages {
                return finish(.failure(ODataStoreError(.protocol, "downloading \(definition.path): more than \(Self.maxPages) pages")))
            }
            nextLink = absolute
        }
        let deltaLink = nextLink == nil && isCollection ? payload.deltaLink.map(absoluteLink) : nil
        let row: DefiningRequestRow
        do {
            row = try store.writePage(payload, bytes: Int64(response.body.count), target: target, nextLink: nextLink,
                                      deltaLink: deltaLink, isCollection: isCollection, serviceRoot: session.serviceRoot)
        } catch {
            return finish(.failure(error))
        }
        state.withLock { s in
            s.totalEntities += Int64(row.lastPageEntities)
            s.totalBytes += Int64(response.body.count)
        }
        Log.info(.download, "\(definition.path): page \(pages), \(row.lastPageEntities) entities, \(response.body.count) bytes\(nextLink != nil ? ", more to come" : deltaLink != nil ? ", delta link kept" : "")")
        report(target, index: index, row: row, finished: nextLink == nil)
        if let nextLink {
            let url: String
            do {
                url = try RequestURL.make(serviceRoot: session.serviceRoot, path: nextLink)
            } catch {
                return finish(.failure(error))
            }
            fetch(target, index: index, url: url, pages: pages, finish)
        } else {
            next(index: index + 1, finish)
        }
    }

    private func report(_ target: Target, index: Int, row: DefiningRequestRow, finished: Bool) {
        guard let progress else { return }
        let totals = state.withLock { ($0.totalEntities, $0.totalBytes) }
        progress(DownloadProgress(definingRequest: target.definition.path, requestIndex: index, requestCount: targets.count,
                                  entities: row.entities, bytes: row.bytes, expectedEntities: row.expected,
                                  totalEntities: totals.0, totalBytes: totals.1, requestFinished: finished))
    }

    private func absoluteLink(_ link: String) -> String {
        if link.hasPrefix("http://") || link.hasPrefix("https://") { return link }
        if link.hasPrefix("/") { return (RequestURL.origin(of: session.serviceRoot) ?? "") + link }
        return session.serviceRoot + link
    }
}
