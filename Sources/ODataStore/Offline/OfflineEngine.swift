/// The offline store's engine: a SQLite file filled by defining requests, answering READs
/// locally (`LocalReader`).
///
/// Opening: an existing file is checked (a store, of a format this library reads, made for
/// this service and, when the options give one, this `$metadata`) and reopened with the
/// metadata it keeps, without the network; defining requests given in the options that the
/// file does not have yet are added. A new file needs `$metadata` (from the options or the
/// service); every defining request is checked against it before the file is created.
/// Then every defining request whose download is not complete is downloaded (resuming an
/// interrupted one), and the store is open. Requests started meanwhile are held by the store.
///
/// Threading: thread-safe. The file lives on one serial queue (`OfflineDatabase`); reads run
/// there one at a time; completions run on it.
final class OfflineEngine: RequestEngine, ServiceSessionOwner {
    let options: StoreOptions
    let session: ServiceSession
    let database: OfflineDatabase
    let progress: (@Sendable (DownloadProgress) -> Void)?
    let state = Locked(State())
    /// What observers of the store's entity sets are told (Observe/ChangeLog).
    let changeLog = ChangeLog()

    struct State {
        var definitions: [DefiningRequest] = []
        var scope = OfflineScope([])
        /// The open file's model and tables (immutable once open): what the mixed store's
        /// router checks paths against without waiting for the database thread.
        var model: ServiceModel?
        var schema: StoreSchema?
        var download: Download?
        var upload: Upload?
        /// A download asked for after opening (`download(_:)`) is running or starting.
        var refreshing = false
        var cancelledDownload = false
        var closed = false
    }

    /// `progress` receives download progress (already routed through the store's dispatch mode).
    init(options: StoreOptions, session: ServiceSession, progress: (@Sendable (DownloadProgress) -> Void)?) throws(ODataStoreError) {
        self.options = options
        self.session = session
        self.database = try OfflineDatabase()
        self.progress = progress
        database.afterBatch { [changeLog, session] file in changeLog.afterBatch(file: file, version: session.odataVersion) }
        changeLog.setInstall { [weak database, weak changeLog] in
            _ = try? database?.queue.sync { [weak database] () throws(ODataStoreError) in changeLog?.syncNow(file: database?.file) }
        }
    }

    var odataVersion: ODataVersion? { session.odataVersion }
    var model: ServiceModel? { session.model }
    var storePath: String { options.storePath ?? "" }

    // MARK: - Open

    func open(_ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        // An open that fails after the file was opened (its first download failed or was
        // cancelled, a check after it) closes the file before the store says FAILED: the file
        // queries answer ODS_ESTATE as before it was open (whatever step failed), and the
        // file is free for the app to remove or open again.
        let completion: @Sendable (Result<Void, ODataStoreError>) -> Void = { [database] result in
            if case .failure = result { database.release() }
            completion(result)
        }
        let queued = database.queue.async { [self] in
            do throws(ODataStoreError) {
                try openOnQueue(completion)
            } catch {
                completion(.failure(error))
            }
        }
        if !queued { completion(.failure(ODataStoreError(.closed, "the store is closed"))) }
    }

    /// `retried`: the second pass after another store created the file this one was making.
    private func openOnQueue(_ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void,
                             retried: Bool = false) throws(ODataStoreError) {
        let path = storePath
        if let facts = try StoreFile.inspect(path: path) {
            guard Self.sameRoot(facts.serviceRoot, session.serviceRoot) else {
                throw ODataStoreError(.invalidArgument, "\(path) is an offline store of another service (\(facts.serviceRoot)), not of \(session.serviceRoot)")
            }
            if let given = try givenMetadata(), given != facts.metadata {
                throw ODataStoreError(.invalidArgument, "\(path) was made from other $metadata than the document given in the options; use a new store file for a changed service")
            }
            let model = try Self.parseModel(facts.metadata)
            if let mismatch = session.versionMismatch(model, of: "the $metadata of the store file \(path)") { throw mismatch }
            let file = try StoreFile.open(path: path, serviceRoot: facts.serviceRoot, model: model, metadata: facts.metadata, create: false)
            try finishOpening(file, completion)
            return
        }
        if let document = try givenMetadata() {
            try create(path: path, metadata: document, retried: retried, completion)
            return
        }
        session.fetchMetadata { [self] result in
            let queued = database.queue.async { [self] in
                do throws(ODataStoreError) {
                    try create(path: path, metadata: try result.get(), retried: retried, completion)
                } catch {
                    completion(.failure(error))
                }
            }
            if !queued { completion(.failure(ODataStoreError(.closed, "the store was closed while opening"))) }
        }
    }

    /// Creates a new store file after checking every defining request against the metadata.
    private func create(path: String, metadata: [UInt8], retried: Bool,
                        _ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) throws(ODataStoreError) {
        let model = try Self.parseModel(metadata)
        if let mismatch = session.versionMismatch(model, of: "the service's $metadata") { throw mismatch }
        let schema = StoreSchema(model: model)
        guard !options.definingRequests.isEmpty else {
            throw ODataStoreError(.invalidArgument, "a new offline store needs at least one defining request")
        }
        for d in options.definingRequests {
            _ = try DefiningRequest.make(d, model: model, schema: schema, serviceRoot: session.serviceRoot)
        }
        let file: StoreFile
        do {
            file = try StoreFile.open(path: path, serviceRoot: session.serviceRoot, model: model, metadata: metadata, create: true)
        } catch {
            // Another store (in this process or another) made the file since `inspect` found
            // none: open it as the existing store it now is (its checks apply).
            if !retried, let made = try? StoreFile.inspect(path: path), !made.serviceRoot.isEmpty {
                try openOnQueue(completion, retried: true)
                return
            }
            throw error
        }
        try finishOpening(file, completion)
    }

    private func finishOpening(_ file: StoreFile, _ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) throws(ODataStoreError) {
        database.install(file)
        session.install(file.model, document: file.metadata)
        var definitions: [DefiningRequest] = []
        for d in options.definingRequests {
            let def = try DefiningRequest.make(d, model: file.model, schema: file.schema, serviceRoot: session.serviceRoot)
            if !definitions.contains(where: { $0.path == def.path }) { definitions.append(def) }
        }
        let ids = try database.register(definitions)
        // Stored defining requests the options did not repeat stay part of the store.
        var all: [(Int64, DefiningRequest)] = []
        for row in try database.definingRequests() {
            let def: DefiningRequest
            if let given = definitions.first(where: { $0.path == row.path }) {
                def = given
            } else {
                def = try DefiningRequest.make(row.path, model: file.model, schema: file.schema, serviceRoot: session.serviceRoot)
            }
            all.append((ids[row.path] ?? row.id, def))
        }
        // What the open downloads before the store is open: the first download of the store
        // (resumed where it stopped), and defining requests named in the options that never
        // finished one. A refresh interrupted after the store was open (`download`) and a
        // request added with `addDefiningRequest` wait for the next `download`: the file
        // answers with what it has, so a reopen needs no network for them.
        let rows = try database.definingRequests()
        let firstDownloadDone = rows.contains { $0.state == .complete || $0.refresh != nil || $0.lastDownload != nil }
        let named = Set(definitions.map(\.path))
        let pending = rows.filter { row in
            guard row.state != .complete, row.refresh == nil else { return false }
            return !firstDownloadDone || named.contains(row.path)
        }.map(\.id)
        let targets = all.filter { pending.contains($0.0) }.map { Download.Target(id: $0.0, definition: $0.1) }
        // The store's first download, into a file that holds nothing of the app's (no local
        // change can be queued before the store has opened once; checked all the same):
        // its commits need not wait for the disk (docs/reliability.md, "First download").
        let nothingQueued: Bool
        do { nothingQueued = try file.connection.scalar("SELECT 1 FROM ods_queue LIMIT 1") == nil } catch { nothingQueued = false }
        let relaxed = !firstDownloadDone && !targets.isEmpty && nothingQueued
        let download = Download(session: session, store: database, targets: targets, pageSize: options.downloadPageSize,
                                progress: progress, relaxedCommits: relaxed)
        let proceed: Bool = state.withLock { s in
            s.definitions = all.map(\.1)
            s.scope = OfflineScope(s.definitions)
            s.model = file.model
            s.schema = file.schema
            guard !s.closed, !s.cancelledDownload else { return false }
            if !targets.isEmpty { s.download = download }
            return true
        }
        guard proceed else {
            throw ODataStoreError(.cancelled, "the download was cancelled")
        }
        if targets.isEmpty {
            completion(.success(()))
            return
        }
        download.start { [self] result in
            state.withLock { $0.download = nil }
            guard relaxed else { return completion(result) }
            // Commits wait for the disk again before the store opens (and accepts the app's
            // writes); the download's last commit did already when it completed.
            let restore: @Sendable () -> Void = { [self] in
                do throws(ODataStoreError) {
                    try database.setDurableCommits(true)
                    completion(result)
                } catch {
                    completion(result.flatMap { _ in .failure(error) })
                }
            }
            if database.queue.isCurrent {
                restore()
            } else if !database.queue.async(restore) {
                completion(result)  // closing: no connection is left to write with
            }
        }
    }

    /// A READ of `$metadata`: the document the file was made from (and works with), as the
    /// service sent it. Query options are not evaluated: the document has none to apply.
    static func metadataResponse(_ file: StoreFile) -> Response {
        var r = Response(status: 200, headers: [(name: "Content-Type", value: "application/xml"),
                                                (name: "OData-Version", value: file.model.version == .v2 ? "2.0" : "4.0")],
                         body: file.metadata)
        r.isLocal = true
        return r
    }

    private func givenMetadata() throws(ODataStoreError) -> [UInt8]? {
        if let d = options.metadataDocument { return d }
        if let p = options.metadataPath { return try LocalFile.read(p, limit: options.limits.maxResponseBytes).get() }
        return nil
    }

    private static func parseModel(_ document: [UInt8]) throws(ODataStoreError) -> ServiceModel {
        do {
            return try MetadataParser.parse(document)
        } catch {
            throw ODataStoreError(.protocol, "the service's $metadata could not be read: \(error)")
        }
    }

    static func sameRoot(_ a: String, _ b: String) -> Bool {
        func norm(_ s: String) -> String { s.hasSuffix("/") ? s : s + "/" }
        return norm(a) == norm(b)
    }

    // MARK: - Requests

    func execute(_ job: RequestJob, completion: @escaping @Sendable (Result<Response, RequestFailure>) -> Void) -> EngineTask? {
        if job.mode == .function {
            completion(.failure(RequestFailure(error: ODataStoreError(.unsupported,
                "function and action imports are not available offline: \(job.path) needs the service (use an online store)"))))
            return nil
        }
        let task = LocalTask()
        let queued = database.queue.async { [self] in
            guard !task.isCancelled else { return }
            let start = Log.enabled(.info) ? MonotonicClock.now() : 0
            let result: Result<Response, RequestFailure>
            do throws(ODataStoreError) {
                guard let file = database.file else { throw ODataStoreError(.closed, "the store is closed") }
                let scope = state.withLock { $0.scope }
                if job.mode == .read, ErrorArchiveName.matches(job.path, serviceRoot: session.serviceRoot, model: file.model) {
                    result = .success(try errorArchiveResponse(file: file, path: DefiningRequest.relative(job.path, serviceRoot: session.serviceRoot)))
                } else if job.mode == .read, ResourceTarget.isMetadata(job.path, serviceRoot: session.serviceRoot) {
                    result = .success(Self.metadataResponse(file))
                } else if job.mode == .read {
                    var reader = LocalReader(file: file, scope: scope, serviceRoot: session.serviceRoot)
                    // The store-wide headers, then the request's, as a request to the service
                    // gets them (`ServiceSession.merged`): a store-wide `Prefer:
                    // odata.maxpagesize` pages local reads too.
                    let headers = ServiceSession.applying(session.options.headers + job.headers, to: [])
                    result = .success(try reader.read(path: job.path, headers: headers, paging: job.paging))
                } else {
                    let writer = LocalWrite(file: file, scope: scope, serviceRoot: session.serviceRoot)
                    result = .success(try writer.execute(mode: job.mode, path: job.path, body: job.body, etag: job.etag))
                }
            } catch {
                result = .failure(RequestFailure(error: error))
            }
            if start != 0 { Log.localFinished(job, result, since: start) }
            completion(result)
        }
        if !queued { completion(.failure(RequestFailure(error: ODataStoreError(.closed, "the store is closed")))) }
        return task
    }

    /// Stops a download in progress (the first one fails opening with `.cancelled`; the file
    /// keeps what was written and the next open resumes). False when none is running.
    func cancelDownload() -> Bool {
        let download: Download? = state.withLock { s in
            s.cancelledDownload = true
            return s.download
        }
        download?.cancel()
        return download != nil
    }

    /// Sends the upload queue (one upload at a time: `.invalidState` while one runs).
    func upload(progress: (@Sendable (UploadProgress) -> Void)?,
                completion: @escaping @Sendable (Result<UploadResult, ODataStoreError>) -> Void) throws(ODataStoreError) {
        let upload = Upload(session: session, online: OnlineEngine(session: session), store: database, progress: progress)
        try state.withLock { (s) throws(ODataStoreError) in
            guard !s.closed else { throw ODataStoreError(.closed, "the store is closed") }
            guard s.upload == nil else { throw ODataStoreError(.invalidState, "an upload is already running") }
            guard s.download == nil, !s.refreshing else { throw ODataStoreError(.invalidState, "the store is downloading") }
            s.upload = upload
        }
        upload.start { [self] result in
            state.withLock { $0.upload = nil }
            completion(result)
        }
    }

    /// Stops the upload in progress; false when none runs.
    func cancelUpload() -> Bool {
        let upload = state.withLock { $0.upload }
        upload?.cancel()
        return upload != nil
    }

    /// Local keys and the service's keys that replaced them.
    func keyMappings() throws(ODataStoreError) -> [KeyMapping] {
        try database.queue.sync { [self] () throws(ODataStoreError) -> [KeyMapping] in
            try LocalKeys(file: try database.requireFile()).all(version: session.odataVersion)
        }
    }

    /// Local changes waiting for upload.
    func pendingCount() throws(ODataStoreError) -> Int64 {
        try database.queue.sync { [self] () throws(ODataStoreError) -> Int64 in
            let file = try database.requireFile()
            do throws(SQLiteError) {
                return try ChangeQueue(connection: file.connection).count()
            } catch {
                throw error.storeError("cannot read the upload queue")
            }
        }
    }

    /// The store's facts (runs on the database queue).
    func info() throws(ODataStoreError) -> OfflineStoreInfo {
        try database.queue.sync { [self] () throws(ODataStoreError) -> OfflineStoreInfo in
            let file = try database.requireFile()
            let rows = try database.definingRequests()
            let infos = rows.map {
                DefiningRequestInfo(path: $0.path, entitySet: $0.entitySet, isComplete: $0.state == .complete, entities: $0.entities,
                                    bytes: $0.bytes, expectedEntities: $0.expected, lastDownload: $0.lastDownload)
            }
            let last = rows.compactMap(\.lastDownload).max()
            return OfflineStoreInfo(path: storePath, sizeInBytes: file.sizeInBytes(), lastDownload: last, definingRequests: infos)
        }
    }

    func shutdown() {
        let (download, upload): (Download?, Upload?) = state.withLock { s in
            s.closed = true
            return (s.download, s.upload)
        }
        download?.cancel()
        upload?.cancel()
        changeLog.disconnect()
        session.shutdown()
        database.close()
    }
}

/// A local read's handle: cancelling it before it runs skips it.
final class LocalTask: EngineTask {
    private let cancelled = Locked(false)
    var isCancelled: Bool { cancelled.withLock { $0 } }
    func cancel() { cancelled.withLock { $0 = true } }
}
