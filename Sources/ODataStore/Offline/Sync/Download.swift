/// Downloads defining requests into the store file, page by page. A JSON page of a
/// collection is written while it arrives (`PageStream`: runs of complete entities, each in a
/// transaction of its own) and its resume point (`next_link`) and counts are written with its
/// last run, once it has ended; any other page (Atom, a single entity) is fetched whole,
/// decoded, and written with them in one transaction. Either way a failure or a kill loses at
/// most the page in flight (fetched again from its URL; the upserts of its runs written
/// before change nothing) and the next run resumes after the last page completed. Memory
/// holds a bounded part of a streamed page, or one whole page.
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
    /// The opening's first download of a store that holds nothing of the app's: its commits
    /// do not wait for the disk (`OfflineDatabase.setDurableCommits`), except the last one,
    /// which makes every earlier one durable with it. What a power cut can lose meanwhile is
    /// downloaded again (docs/reliability.md, "First download"). The caller makes commits
    /// durable again once the download has ended, whichever way.
    let relaxedCommits: Bool
    private let state = Locked(State())

    private struct State {
        var cancelled = false
        var transfer: UInt64?
        var finished = false
        var totalEntities: Int64 = 0
        var totalBytes: Int64 = 0
        var visited: Set<String> = []
        /// The page arriving now, when it is streamed.
        var stream: PageStream?
    }

    /// Upper bound on pages per defining request (a server that sends next links forever).
    static let maxPages = 1_000_000

    init(session: ServiceSession, store: OfflineDatabase, targets: [Target], pageSize: Int,
         progress: (@Sendable (DownloadProgress) -> Void)?, relaxedCommits: Bool = false) {
        self.session = session
        self.store = store
        self.targets = targets
        self.pageSize = pageSize
        self.progress = progress
        self.relaxedCommits = relaxedCommits
    }

    func start(_ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        let finish: @Sendable (Result<Void, ODataStoreError>) -> Void = { [self] result in
            let first: Bool = state.withLock { s in
                defer { s.finished = true }
                return !s.finished
            }
            if first { completion(result) }
        }
        store.queue.async { [self] in
            // A failure leaves commits durable (FULL), as the file was opened: only slower.
            if relaxedCommits { try? store.setDurableCommits(false) }
            next(index: 0, finish)
        }
    }

    /// Stops the download: the page in flight is dropped, what was written stays.
    func cancel() {
        let (transfer, stream): (UInt64?, PageStream?) = state.withLock { s in
            s.cancelled = true
            return (s.transfer, s.stream)
        }
        stream?.stop()
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
        // A JSON collection page is written while it arrives (PageStream); the sink declines
        // any other body, which then arrives whole.
        let stream: PageStream? = target.definition.resolved.result == .collection
            ? PageStream(store: store, target: target, service: service, serviceRoot: session.serviceRoot,
                         maxHeldBytes: session.options.limits.maxResponseBytes,
                         cancelTransfer: { [weak self] in  // weak: the download holds the stream
                             guard let self else { return }
                             if let id = state.withLock({ $0.transfer }) { session.transport.cancel(id) }
                         })
            : nil
        state.withLock { $0.stream = stream }
        let request = HTTPRequest(method: "GET", url: url, headers: headers,
                                  timeoutMilliseconds: session.options.requestTimeoutMilliseconds, bodySink: stream)
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
                guard let stream else { return finish(.failure(ResponseErrors.error(for: error, what: what))) }
                // After the runs queued before (none writes once the completion has run).
                stream.stop()
                let failed: @Sendable () -> Void = {
                    finish(.failure(stream.failure ?? ResponseErrors.error(for: error, what: what)))
                }
                if !store.queue.async(failed) { failed() }
            case .success(let response):
                guard (200..<300).contains(response.status) else {
                    stream?.stop()
                    return finish(.failure(ResponseErrors.error(for: response, what: what)))
                }
                if let stream, let streamed = response.streamedBytes {
                    let queued = store.queue.async { [self] in
                        streamedPage(stream, bytes: streamed, target, index: index, pages: pages + 1, finish)
                    }
                    if !queued { finish(.failure(ODataStoreError(.closed, "the store was closed during the download"))) }
                    return
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
        store.notePageBytes(response.body.count)
        let definition = target.definition
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
        complete([payload], earlier: 0, count: payload.count, nextLink: payload.nextLink, deltaLink: payload.deltaLink,
                 bytes: response.body.count, target, index: index, pages: pages, finish)
    }

    /// A streamed page whose body has ended: its last run and annotations (`PageStream.finish`).
    private func streamedPage(_ stream: PageStream, bytes: Int, _ target: Target, index: Int, pages: Int,
                              _ finish: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        if isCancelled { return finish(.failure(ODataStoreError(.cancelled, "the download was cancelled"))) }
        let parts: [DecodedPayload]
        do {
            parts = try stream.finish()
        } catch {
            return finish(.failure(error))
        }
        store.notePageBytes(stream.peakHeldBytes)
        let envelope = parts[parts.count - 1]
        Log.debug(.download, "\(target.definition.path): page \(pages) streamed, \(bytes) bytes, at most \(stream.peakHeldBytes) held")
        complete(parts, earlier: stream.written, count: envelope.count, nextLink: envelope.nextLink, deltaLink: envelope.deltaLink,
                 bytes: bytes, target, index: index, pages: pages, finish)
    }

    /// Writes a page's last part(s) with its counts and resume point, then fetches the next
    /// page or goes to the next defining request.
    private func complete(_ payloads: [DecodedPayload], earlier: Int, count: Int64?, nextLink link: String?, deltaLink delta: String?,
                          bytes: Int, _ target: Target, index: Int, pages: Int,
                          _ finish: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        let definition = target.definition
        let isCollection = definition.resolved.result == .collection
        var nextLink: String? = nil
        if isCollection, let link {
            let absolute = absoluteLink(link)
            let repeated = state.withLock { !$0.visited.insert(absolute).inserted }
            if repeated {
                return finish(.failure(ODataStoreError(.protocol, "downloading \(definition.path): the service sent the same next link twice (\(ResponseErrors.printable(absolute, limit: 300)))")))
            }
            if pages >= Self.maxPages {
                return finish(.failure(ODataStoreError(.protocol, "downloading \(definition.path): more than \(Self.maxPages) pages")))
            }
            nextLink = absolute
        }
        let deltaLink = nextLink == nil && isCollection ? delta.map(absoluteLink) : nil
        let row: DefiningRequestRow
        do {
            // The download's last transaction waits for the disk, and with it every earlier one.
            if relaxedCommits, nextLink == nil, index == targets.count - 1 { try store.setDurableCommits(true) }
            row = try store.writePage(payloads, earlierEntities: earlier, count: count, bytes: Int64(bytes), target: target,
                                      nextLink: nextLink, deltaLink: deltaLink, isCollection: isCollection,
                                      serviceRoot: session.serviceRoot)
        } catch {
            return finish(.failure(error))
        }
        state.withLock { s in
            s.totalEntities += Int64(row.lastPageEntities)
            s.totalBytes += Int64(bytes)
        }
        Log.info(.download, "\(definition.path): page \(pages), \(row.lastPageEntities) entities, \(bytes) bytes\(nextLink != nil ? ", more to come" : deltaLink != nil ? ", delta link kept" : "")")
        report(target, index: index, row: row, finished: nextLink == nil)
        if let nextLink {
            let url: String
            do {
                url = try RequestURL.make(serviceRoot: session.serviceRoot, path: nextLink)
            } catch {
                // The service's link, not the app's input: a protocol failure (never followed).
                return finish(.failure(ODataStoreError(.protocol, "downloading \(definition.path): the service's next link cannot be followed: \(error.message)")))
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
