import Glibc

/// Sends the upload queue to the service, in order: in `$batch` requests of up to
/// `uploadBatchSize` changes where the service has `$batch` (UploadBatch.swift), one request
/// per change where it has not (a 404, 405 or 501 to `$batch`, remembered in the file for a
/// day) or when `uploadBatchSize` is 1.
///
/// Each change is built when it is sent, from its row as it is then (so keys the service gave
/// earlier creates are in place), with the store's headers, authentication and CSRF token and
/// `Repeatability-Request-ID` / `Repeatability-First-Sent` (OData 4.01): the first attempt's
/// time is recorded in the file before the request leaves, and every later attempt of that
/// change carries the same id.
///
/// - Confirmed: the change leaves the queue, in one transaction with what the service
///   answered (a created entity's values and the key it gave, which replaces the local key
///   in the row, in foreign keys pointing at it and in queued deletes; the new ETag, which
///   later queued changes of the entity made before it was known take over). A `$batch`'s
///   answers are recorded in one transaction.
/// - Refused (a 4xx): the change moves to the error archive (`ods_errors`) and its row is
///   marked `error`; later changes of the same entity wait (they stay queued) until the app
///   resolves the archived one, and so do creates under it and changes whose foreign keys
///   need its key while that key is still a local one; the other changes go on.
/// - Not acted on (429, 503, 408): sent again after `Retry-After` (at most `max_retries`
///   times); then the upload stops and the change stays queued as if never sent.
/// - The service unreachable or refusing the credentials: the upload stops; nothing is lost.
/// - No answer, or an answer that does not say (a broken connection, a 5xx, a `$batch` answer
///   cut short), a cancel: the upload stops; the change stays queued with its first attempt
///   recorded and is sent again by the next upload.
/// - Exactly once: a change sent before whose answer never came is sent again with the same
///   Repeatability-Request-ID. Where a service ignores that, it is checked instead: a create
///   with the app's key refused (409, or any 4xx) and an update answered 412 are read back (the service's
///   entity has what the change sent: confirmed; otherwise archived), a delete answered 404
///   is done; a create of an entity the service keys is NOT sent again (the service may have
///   made it already; one that ignores Repeatability would make a second): it goes to the
///   error archive as "uncertain" for the app to check and resolve.
///
/// Threading: `start` and `cancel` from any thread; the work hops between the transport's
/// thread and the database queue; the completion runs once, on the database queue.
final class Upload: Sendable {
    let session: ServiceSession
    /// For read-backs (GETs of entities whose change was sent again).
    let online: OnlineEngine
    let store: OfflineDatabase
    let progress: (@Sendable (UploadProgress) -> Void)?
    let state = Locked(State())

    typealias Finish = @Sendable (Result<Void, ODataStoreError>) -> Void

    struct State {
        var cancelled = false
        /// The transfer in flight and a read-back in flight, for `cancel`.
        var transfer: UInt64?
        var task: (any EngineTask)?
        var finished = false
        var sent = 0
        var failed = 0
        var confirmed = 0
        var total = 0
        /// Rows whose change was refused, or waits, in this upload: their later changes wait.
        var blocked: Set<UploadRowKey> = []
        /// The queue as it was when the upload started, and how far the upload got in it.
        var ids: [Int64] = []
        var cursor = 0
        /// Changes to send again before the rest (rolled back with the refused change of their
        /// changeset, or not answered), in queue order.
        var again: [Int64] = []
        /// Changes to send one request each (a refused changeset that did not say which change failed).
        var alone: Set<Int64> = []
        /// Send `$batch` requests.
        var batches = false
        /// Rounds in which the service deferred changes inside a `$batch` (429, 503).
        var deferredRounds = 0
        /// Wait before the next request (the service deferred changes and said how long).
        var pauseMilliseconds = 0
        /// The next `$batch`, planned while the one before it is on its way (UploadBatch.swift,
        /// `planAhead`); not marked as sent.
        var ahead: PlannedAhead?
    }

    init(session: ServiceSession, online: OnlineEngine, store: OfflineDatabase, progress: (@Sendable (UploadProgress) -> Void)?) {
        self.session = session
        self.online = online
        self.store = store
        self.progress = progress
    }

    static let cancelled = ODataStoreError(.cancelled, "the upload was cancelled")

    func start(_ completion: @escaping @Sendable (Result<UploadResult, ODataStoreError>) -> Void) {
        let finish: Finish = { [self] outcome in
            let (first, result) = state.withLock { s -> (Bool, UploadResult) in
                defer { s.finished = true }
                // A read-back's task keeps its completion, which keeps this upload: a cycle
                // that leaked both (and what they hold) once the upload was over.
                s.task = nil
                return (!s.finished, UploadResult(confirmed: s.confirmed, failed: s.failed, remaining: 0))
            }
            guard first else { return }
            Log.info(.upload, Log.uploadFinished(outcome.map { _ in result }))
            switch outcome {
            case .failure(let e): completion(.failure(e))
            case .success:
                var r = result
                r.remaining = Int((try? store.requireFile()).flatMap { try? ChangeQueue(connection: $0.connection).count() } ?? 0)
                completion(.success(r))
            }
        }
        let queued = store.queue.async { [self] in
            do throws(ODataStoreError) {
                let file = try store.requireFile()
                let ids = try sql { () throws(SQLiteError) in try ChangeQueue(connection: file.connection).ids() }
                var batches = session.options.uploadBatchSize > 1
                if batches { batches = try batchSupported(file) }
                state.withLock { s in
                    s.ids = ids
                    s.total = ids.count
                    s.batches = batches
                }
                Log.info(.upload, "upload of \(ids.count) queued change(s)\(batches ? " in $batch requests of up to \(session.options.uploadBatchSize)" : ", one request each")")
                run(finish)
            } catch {
                finish(.failure(error))
            }
        }
        if !queued { finish(.failure(ODataStoreError(.closed, "the store is closed"))) }
    }

    func cancel() {
        let (transfer, task): (UInt64?, (any EngineTask)?) = state.withLock { s in
            s.cancelled = true
            return (s.transfer, s.task)
        }
        if let transfer { session.transport.cancel(transfer) }
        task?.cancel()
    }

    // MARK: - The loop (database queue)

    /// Sends the next request: a `$batch`, or one change. Changes that are skipped (resolved
    /// meanwhile, waiting, archived as uncertain) are passed over in this loop, never by
    /// recursion, so a long run of them costs no stack. `ready`: a `$batch` planned while the
    /// one before it was on its way, marked as sent with that one's answers: sent as it is.
    func run(_ finish: @escaping Finish, ready: BatchPlan? = nil) {
        if let ready {
            guard !state.withLock({ $0.cancelled }) else {
                // Marked as sent with the answers before it, never sent: as if never marked.
                if let file = try? store.requireFile() { _ = try? record([], restore: ready.requests, file) }
                return finish(.failure(Self.cancelled))
            }
            Log.debug(.upload, "sending a $batch of \(ready.requests.count) change(s), planned while the one before it was on its way")
            sendBatch(ready, finish)
            if let file = try? store.requireFile() { planAhead(after: ready, file) }
            return
        }
        do throws(ODataStoreError) {
            while true {
                if state.withLock({ $0.cancelled }) { return finish(.failure(Self.cancelled)) }
                guard let id = peek() else { return finish(.success(())) }
                let file = try store.requireFile()
                let (batches, alone) = state.withLock { ($0.batches, $0.alone.contains(id)) }
                if batches && !alone {
                    let plan = try plan(file)
                    if plan.isEmpty { continue }
                    try markSent(plan.requests, file)
                    Log.debug(.upload, "sending a $batch of \(plan.requests.count) change(s)")
                    sendBatch(plan, finish)
                    return planAhead(after: plan, file)
                }
                take()
                guard case .send(let change, let table, let localKey, _) = try prepare(id, file) else { continue }
                let request = try builder(file).build(change, table: table, localKey: localKey, firstSent: change.firstSent ?? HTTPDate.now())
                try markSent([request], file)
                return sendSingle(request, finish)
            }
        } catch {
            finish(.failure(error))
        }
    }

    /// The next change to consider: one to send again first, else the next of the queue.
    func peek() -> Int64? {
        state.withLock { s in s.again.first ?? (s.cursor < s.ids.count ? s.ids[s.cursor] : nil) }
    }

    func take() {
        state.withLock { s in
            if !s.again.isEmpty { s.again.removeFirst() } else { s.cursor += 1 }
        }
    }

    /// Puts changes back to be sent again before the rest (`alone`: one request each).
    func again(_ requests: [ChangeRequest], alone: Bool = false) {
        guard !requests.isEmpty else { return }
        let ids = requests.map(\.change.id)
        state.withLock { s in
            s.again = (s.again + ids).sorted()
            if alone { s.alone.formUnion(ids) }
        }
    }

    func builder(_ file: StoreFile) -> ChangeRequestBuilder {
        let service = session.state
        return ChangeRequestBuilder(file: file, version: service.version ?? .v4, model: service.model, serviceRoot: session.serviceRoot,
                                    schema: service.schema)
    }

    // MARK: - What to do with a change (database queue)

    /// An entity a change needs: the parent a create goes under, or the target of a foreign key
    /// it sends.
    struct Reference {
        var row: UploadRowKey
        var isParent: Bool
        /// Its key is still a local one (its create is not confirmed yet).
        var localKey: Bool
        /// A foreign key: the navigation property it is the constraint of, and its properties.
        var navigation: String? = nil
        var properties: [String] = []
    }

    enum Preparation {
        /// Resolved meanwhile, waiting behind a refused change, or archived as uncertain.
        case skip
        case send(QueuedChange, EntityTable, localKey: Bool, references: [Reference])
    }

    func prepare(_ id: Int64, _ file: StoreFile) throws(ODataStoreError) -> Preparation {
        let queue = ChangeQueue(connection: file.connection)
        guard let change = try sql({ () throws(SQLiteError) in try queue.change(id: id) }) else {
            return .skip  // resolved meanwhile (a delete cancelled it)
        }
        guard let table = file.table(id: change.table) else {
            throw ODataStoreError(.error, "queued change \(change.id) names an unknown table")
        }
        let row = UploadRowKey(table: change.table, rid: change.rid)
        if try waits(row, table: table, file) {
            // Waits behind a refused change of the same entity.
            state.withLock { _ = $0.blocked.insert(row) }
            return .skip
        }
        let references = try references(of: change, table: table, file: file)
        for r in references where r.localKey {
            guard let t = file.table(id: r.row.table), try waits(r.row, table: t, file) else { continue }
            // Its parent's create, or the entity whose key it needs, was refused: that key is
            // not known. It waits (and so do the later changes of its entity).
            state.withLock { _ = $0.blocked.insert(row) }
            return .skip
        }
        let localKey = try hasLocalKey(row, file)
        if change.operation == .create, localKey, change.firstSent != nil {
            let request = try builder(file).build(change, table: table, localKey: true, firstSent: change.firstSent ?? "")
            try record([(request, .refused(ODataStoreError(.error, "this create was sent before and its answer never arrived: the service may have created the entity already (it gives the key, so sending it again could create a second one). Check the service, then retry or revert this change.")))],
                       restore: [], file)
            return .skip
        }
        return .send(change, table, localKey: localKey, references: references)
    }

    private func waits(_ row: UploadRowKey, table: EntityTable, _ file: StoreFile) throws(ODataStoreError) -> Bool {
        if state.withLock({ $0.blocked.contains(row) }) { return true }
        return try rowState(file, table, row.rid) == .error
    }

    private func hasLocalKey(_ row: UploadRowKey, _ file: StoreFile) throws(ODataStoreError) -> Bool {
        try sql { () throws(SQLiteError) in
            try file.connection.scalar("SELECT 1 FROM ods_local_keys WHERE tbl = ?1 AND rid = ?2 AND server_key IS NULL",
                                       [.integer(row.table), .integer(row.rid)]) != nil
        }
    }

    /// The entities a change's request names or carries the key of: the parent of a create
    /// through a navigation, and the targets of the foreign keys it sends.
    private func references(of change: QueuedChange, table: EntityTable, file: StoreFile) throws(ODataStoreError) -> [Reference] {
        var out: [Reference] = []
        if change.operation == .create, let parentTable = change.parentTable, let parentRID = change.parentRID {
            let row = UploadRowKey(table: parentTable, rid: parentRID)
            out.append(Reference(row: row, isParent: true, localKey: try hasLocalKey(row, file)))
        }
        guard change.operation != .delete else { return out }
        for (navigation, target, pairs) in file.schema.foreignKeys(from: table) {
            if change.operation == .merge, let sent = change.properties,
               !pairs.contains(where: { sent.contains($0.foreign.path.first ?? "") }) { continue }
            let columns = target.keyColumns.compactMap { k in pairs.first { $0.key == k }?.foreign }
            guard columns.count == target.keyColumns.count else { continue }
            let found: Int64? = try sql { () throws(SQLiteError) -> Int64? in
                let values = try file.connection.rows(
                    "SELECT " + columns.map(\.quoted).joined(separator: ", ") + " FROM \(table.quoted) WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                    [.integer(change.rid)]).first ?? []
                guard values.count == columns.count, !values.contains(.null) else { return nil }
                return try LocalWrite.row(target, key: values, connection: file.connection)?.rid
            }
            guard let rid = found else { continue }
            let row = UploadRowKey(table: file.tableID(target), rid: rid)
            out.append(Reference(row: row, isParent: false, localKey: try hasLocalKey(row, file), navigation: navigation,
                                 properties: columns.map(\.pathText)))
        }
        return out
    }

    /// Records the first attempt of changes about to be sent (one transaction).
    func markSent(_ requests: [ChangeRequest], _ file: StoreFile) throws(ODataStoreError) {
        let unsent = requests.filter { $0.change.firstSent == nil }
        guard !unsent.isEmpty else { return }
        let c = file.connection
        try c.storeTransaction("cannot record the upload's start") {
            let queue = ChangeQueue(connection: c)
            for r in unsent { try queue.markSent(id: r.change.id, at: r.firstSent) }
        }
    }

    // MARK: - One change, one request

    private func sendSingle(_ request: ChangeRequest, _ finish: @escaping Finish) {
        let service = session.state
        let url: String
        do {
            url = try RequestURL.make(serviceRoot: session.serviceRoot, path: request.path)
        } catch {
            // Never sent.
            if let file = try? store.requireFile() { _ = try? record([], restore: [request], file) }
            return finish(.failure(error))
        }
        let headers = session.merged(session.baseHeaders(version: service.version ?? .v4) + request.headers, [])
        let http = HTTPRequest(method: request.method, url: url, headers: headers, body: request.body,
                               timeoutMilliseconds: session.timeout(0))
        sendSingle(request, http, attempt: 0, delay: takePause(), finish)
    }

    private func sendSingle(_ request: ChangeRequest, _ http: HTTPRequest, attempt: Int, delay: Int, _ finish: @escaping Finish) {
        exchange(http, delay: delay) { [self] result in
            let answer: ChangeAnswer
            switch result {
            case .success(let r):
                answer = ChangeAnswer.from(status: r.status, headerFields: r.headerFields, body: r.body, request: request,
                                           service: session.state, maxErrorText: session.options.limits.maxErrorMessageBytes)
            case .failure(let e):
                answer = ChangeAnswer.from(e, request: request.what)
            }
            onQueue(finish) { [self] () throws(ODataStoreError) in
                let file = try store.requireFile()
                switch answer {
                case .confirmed, .refused:
                    let readBacks = try record([(request, answer)], restore: [], file)
                    readBack(readBacks, finish) { [self] in run(finish) }
                case .deferred(let e, let retryAfter):
                    if !state.withLock({ $0.cancelled }),
                       let d = session.retryPolicy.delayAfterRefusal(status: e.httpStatus, retryAfter: retryAfter, retry: attempt) {
                        return sendSingle(request, http, attempt: attempt + 1, delay: d, finish)
                    }
                    _ = try record([], restore: [request], file)
                    finish(.failure(e))
                case .notDone(let e):
                    _ = try record([], restore: [request], file)
                    finish(.failure(e))
                case .unknown(let e):
                    finish(.failure(e))
                }
            }
        }
    }

    /// One HTTP exchange of the upload (any thread), cancellable through `cancel`.
    func exchange(_ request: HTTPRequest, delay: Int, _ done: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) {
        session.sendChange(request, delayMilliseconds: delay, record: { [self] id in
            let cancelled: Bool = state.withLock { s in
                s.transfer = id
                return s.cancelled
            }
            if cancelled { session.transport.cancel(id) }
        }) { [self] result in
            state.withLock { $0.transfer = nil }
            done(result)
        }
    }

    /// Runs `body` on the database queue; a failure (or a closed store) finishes the upload.
    func onQueue(_ finish: @escaping Finish, _ body: @escaping @Sendable () throws(ODataStoreError) -> Void) {
        let queued = store.queue.async {
            do throws(ODataStoreError) { try body() } catch { finish(.failure(error)) }
        }
        if !queued { finish(.failure(ODataStoreError(.closed, "the store was closed during the upload"))) }
    }

    func takePause() -> Int {
        state.withLock { s in
            defer { s.pauseMilliseconds = 0 }
            return s.pauseMilliseconds
        }
    }

    // MARK: - Answers (database queue)

    /// Records confirmed and refused changes in one transaction and puts the first-attempt
    /// mark of `restore` back as it was (the service did not act on them). Returns the refused
    /// changes that are read back before they are archived (a repeat whose first attempt may
    /// have worked). Progress is reported after the commit, one change at a time.
    /// `marking`: the first attempt of the next `$batch` (planned ahead), recorded in the same
    /// transaction before it leaves.
    @discardableResult
    func record(_ answered: [(ChangeRequest, ChangeAnswer)], restore: [ChangeRequest], _ file: StoreFile,
                readBack: Bool = true, marking: [ChangeRequest] = []) throws(ODataStoreError) -> [(ChangeRequest, ODataStoreError)] {
        var readBacks: [(ChangeRequest, ODataStoreError)] = []
        var outcomes: [(failed: Bool, row: UploadRowKey)] = []
        let c = file.connection
        // One writer for the transaction: it prepares its statements once.
        let writer = EntityWriter(file: file, requestID: 0)
        try c.storeTransaction("cannot record the service's answers") {
            for (r, answer) in answered {
                switch answer {
                case .confirmed(let response):
                    try confirm(r, response, file, writer)
                    outcomes.append((false, r.rowKey))
                case .refused(let e):
                    if r.change.operation == .delete && e.httpStatus == 404 {
                        // Gone already (or deleted by the first attempt): what the change wanted.
                        try confirm(r, Response(status: 204), file, writer)
                        outcomes.append((false, r.rowKey))
                    } else if readBack, Self.needsReadBack(r, e) {
                        readBacks.append((r, e))
                    } else {
                        try archive(r, e, file)
                        outcomes.append((true, r.rowKey))
                    }
                default:
                    break
                }
            }
            let queue = ChangeQueue(connection: c)
            for r in restore where r.change.firstSent == nil { try queue.clearSent(id: r.change.id) }
            for r in marking where r.change.firstSent == nil { try queue.markSent(id: r.change.id, at: r.firstSent) }
        }
        Log.info(.upload, Log.recorded(outcomes.map(\.failed), readBack: readBacks.count))
        for o in outcomes {
            state.withLock { s in
                s.sent += 1
                if o.failed {
                    s.failed += 1
                    s.blocked.insert(o.row)
                } else {
                    s.confirmed += 1
                }
            }
            report()
        }
        return readBacks
    }

    /// A repeat refused in a way its own first attempt would cause: a create with the app's
    /// key refused with any 4xx (it exists: made by that attempt? Services say so in several
    /// ways: 409, pyslet 403 "ConstraintError", others 400), an update answered 412 (the ETag
    /// moved on: by that attempt?). The read-back decides; a refusal that was not caused by
    /// the first attempt finds the service without what was sent and is archived as before.
    static func needsReadBack(_ r: ChangeRequest, _ e: ODataStoreError) -> Bool {
        guard r.repeated else { return false }
        switch r.change.operation {
        case .create: return !r.localKey && (400..<500).contains(e.httpStatus)
        case .merge, .replace: return e.httpStatus == 412
        case .delete: return false
        }
    }

    /// Reads back, one after the other, entities whose repeated change was refused: the
    /// service's entity has what the change sent: confirmed with it; it has not (or is gone):
    /// archived with the service's refusal. Then `then`.
    func readBack(_ items: [(ChangeRequest, ODataStoreError)], _ finish: @escaping Finish, then: @escaping @Sendable () -> Void) {
        guard let first = items.first else { return then() }
        let (r, refusal) = first
        let rest = Array(items.dropFirst())
        let path: String
        let url: String
        do throws(ODataStoreError) {
            let file = try store.requireFile()
            let key = try sql { () throws(SQLiteError) in try LocalWrite.keyValues(of: r.change.rid, table: r.table, connection: file.connection) }
            path = KeyPredicate.path(r.table, key, version: session.state.version)
            url = try RequestURL.make(serviceRoot: session.serviceRoot, path: path)
        } catch {
            return finish(.failure(error))
        }
        let job = RequestJob(id: 0, mode: .read, path: path, url: url, body: nil, headers: [], etag: nil, paging: .none, timeoutMilliseconds: 0)
        let task = online.execute(job) { [self] result in
            onQueue(finish) { [self] () throws(ODataStoreError) in
                let file = try store.requireFile()
                switch result {
                case .success(let response):
                    if let sent = r.entity, case .object(let server)? = try? JSONValue.parse(response.json), ReadBack.matches(sent: sent, server: server) {
                        var confirmed = response
                        if r.change.operation != .create { confirmed.json = "" }  // keep the row: only its ETag changes
                        try record([(r, .confirmed(confirmed))], restore: [], file)
                    } else {
                        var e = refusal
                        e.message += " (this change was sent again after an answer that never came; read back, the service's entity does not have what it sent)"
                        try record([(r, .refused(e))], restore: [], file, readBack: false)
                    }
                case .failure(let f):
                    guard f.error.httpStatus == 404 else { return finish(.failure(f.error)) }
                    try record([(r, .refused(refusal))], restore: [], file, readBack: false)
                }
                readBack(rest, finish, then: then)
            }
        }
        let cancelled: Bool = state.withLock { s in
            if !s.finished { s.task = task }  // a finished upload keeps no task (see `start`)
            return s.cancelled
        }
        if cancelled { task?.cancel() }
    }

    /// A change the service confirmed leaves the queue with what the service answered (inside
    /// the caller's transaction).
    private func confirm(_ r: ChangeRequest, _ response: Response, _ file: StoreFile, _ writer: EntityWriter) throws {
        let c = file.connection
        let change = r.change
        let table = r.table
        var etag = response.etag
        if change.operation == .create, !response.json.isEmpty, case .object(var entity)? = try? JSONValue.parse(response.json) {
            // The row's queued changes and its key, read once (replacing the key changes
            // neither which changes are queued nor whether the row exists).
            let queued = try ChangeQueue(connection: c).changes(table: change.table, rid: change.rid)
            let key = try LocalWrite.keyValues(of: change.rid, table: table, connection: c)
            // A local key is replaced by the service's; so is a key the app gave when the
            // service made the entity under another (it ignored the key sent): else the row
            // kept the app's key and the service's entity came down beside it as a second row.
            if r.localKey || Self.keyDiffers(key, serverEntity: entity, table: table) {
                try replaceLocalKey(table: table, rid: change.rid, old: key, queued: queued, serverEntity: entity, file: file)
            }
            if etag == nil, case .string(let e)? = entity["@odata.etag"] { etag = e }
            if let etag { entity["@odata.etag"] = .string(etag) }
            // The app may have changed the entity while the create was on its way: what its
            // queued changes set stays (they send it next); a local delete stays deleted.
            let later = queued.filter { $0.id != change.id }
            let exists = !key.isEmpty
            if exists && !later.contains(where: { $0.operation == .delete }) {
                if later.contains(where: { $0.operation == .replace }) {
                    entity = JSONObject(entity.filter { m in m.key.hasPrefix("@") || table.keyColumns.contains { $0.pathText == m.key } })
                } else {
                    let kept = Set(later.flatMap { $0.properties ?? [] })
                    entity = JSONObject(entity.filter { !kept.contains($0.key) })
                }
                _ = try writer.writePage(JSONValue.object(entity).serialized(), table: table, expand: .none, isCollection: false)
            }
        } else if change.operation != .delete, let etag {
            try c.run("UPDATE \(table.quoted) SET \(SQLName.quote(EntityTable.etagColumn)) = ?2 WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                      [.integer(change.rid), .text(etag)])
        }
        if change.operation != .delete, let etag {
            // Changes of the entity queued while this one was on its way were made on the
            // version this one replaced: they go with the version the service answered (those
            // sent with If-Match: * keep it).
            try c.run("UPDATE ods_queue SET etag = ?3 WHERE tbl = ?1 AND rid = ?2 AND id > ?4 AND etag IS ?5 AND etag IS NOT '*'",
                      [.integer(change.table), .integer(change.rid), .text(etag), .integer(change.id), change.etag.map { .text($0) } ?? .null])
        }
        try ChangeQueue(connection: c).remove(id: change.id)
        try Self.refreshState(table: table, tableID: change.table, rid: change.rid, file: file)
    }

    /// Puts the service's key in place of a local one: the row, foreign keys that point at
    /// it, queued deletes, and the mapping the app can read. `old`: the row's key values
    /// (none when it was deleted locally); `queued`: the row's queued changes.
    /// The service's entity names every key property, with another value than `key`.
    static func keyDiffers(_ key: [SQLValue], serverEntity: JSONObject, table: EntityTable) -> Bool {
        guard key.count == table.keyColumns.count else { return false }
        var differs = false
        for (col, old) in zip(table.keyColumns, key) {
            guard let v = try? LocalWrite.sqlKey(serverEntity[col.pathText], col) else { return false }
            if v != old { differs = true }
        }
        return differs
    }

    private func replaceLocalKey(table: EntityTable, rid: Int64, old: [SQLValue], queued: [QueuedChange], serverEntity: JSONObject,
                                 file: StoreFile) throws(SQLiteError) {
        let c = file.connection
        var new: [SQLValue] = []
        var keyJSON = JSONObject()
        for col in table.keyColumns {
            guard let v = try? LocalWrite.sqlKey(serverEntity[col.pathText], col) else { return }
            new.append(v)
            keyJSON[col.pathText] = LocalWrite.json(v, column: col)
        }
        let tableID = file.tableID(table)
        try c.run("UPDATE ods_local_keys SET server_key = ?3 WHERE tbl = ?1 AND rid = ?2",
                  [.integer(tableID), .integer(rid), .text(JSONValue.object(keyJSON).serialized())])
        for change in queued where change.operation == .delete {
            try ChangeQueue(connection: c).setEntityKey(id: change.id, JSONValue.object(keyJSON).serialized())
        }
        // Deleted locally while its create was on its way: the queued delete has the key now.
        guard old.count == new.count else { return }
        let sets = table.keyColumns.enumerated().map { "\($0.element.quoted) = ?\($0.offset + 2)" }.joined(separator: ", ")
        try c.run("UPDATE \(table.quoted) SET \(sets) WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1", [.integer(rid)] + new)
        for (dependent, pairs) in file.schema.foreignKeys(to: table) {
            var assignments: [String] = []
            var conditions: [String] = []
            var values: [SQLValue] = []
            for (i, pair) in pairs.enumerated() {
                guard let k = table.keyColumns.firstIndex(of: pair.key) else { continue }
                assignments.append("\(pair.foreign.quoted) = ?\(2 * i + 1)")
                conditions.append("\(pair.foreign.quoted) = ?\(2 * i + 2)")
                values += [new[k], old[k]]
            }
            guard !assignments.isEmpty else { continue }
            try c.run("UPDATE \(dependent.quoted) SET \(assignments.joined(separator: ", ")) WHERE \(conditions.joined(separator: " AND "))", values)
        }
    }

    /// Moves a refused change to the error archive; its row is marked `error` (inside the
    /// caller's transaction).
    /// A refusal without an HTTP status is a create archived as uncertain (never sent again).
    private func archive(_ r: ChangeRequest, _ e: ODataStoreError, _ file: StoreFile) throws(SQLiteError) {
        let c = file.connection
        let change = r.change
        let uncertain = e.httpStatus == 0
        try ErrorArchive(connection: c).add(change, method: r.method, body: r.bodyText,
                                            status: e.httpStatus, code: uncertain ? "uncertain" : e.odataCode,
                                            message: e.message)
        try ChangeQueue(connection: c).remove(id: change.id)
        if change.operation != .delete {
            try c.run("UPDATE \(r.table.quoted) SET \(SQLName.quote(EntityTable.stateColumn)) = ?2 WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                      [.integer(change.rid), .integer(RowState.error.rawValue)])
        }
    }

    /// `@state` of a row after its queue changed: pending while changes wait, error while one
    /// is archived, else synced.
    static func refreshState(table: EntityTable, tableID: Int64, rid: Int64, file: StoreFile) throws(SQLiteError) {
        let c = file.connection
        var state = RowState.synced
        if try c.scalar("SELECT 1 FROM ods_errors WHERE tbl = ?1 AND rid = ?2 LIMIT 1", [.integer(tableID), .integer(rid)]) != nil {
            state = .error
        } else if try c.scalar("SELECT 1 FROM ods_queue WHERE tbl = ?1 AND rid = ?2 LIMIT 1", [.integer(tableID), .integer(rid)]) != nil {
            state = .pending
        }
        try c.run("UPDATE \(table.quoted) SET \(SQLName.quote(EntityTable.stateColumn)) = ?2 WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                  [.integer(rid), .integer(state.rawValue)])
    }

    private func rowState(_ file: StoreFile, _ table: EntityTable, _ rid: Int64) throws(ODataStoreError) -> RowState? {
        try sql { () throws(SQLiteError) -> RowState? in
            guard case .integer(let s)? = try file.connection.scalar(
                "SELECT \(SQLName.quote(EntityTable.stateColumn)) FROM \(table.quoted) WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                [.integer(rid)]) else { return nil }
            return RowState(rawValue: s)
        }
    }

    private func report() {
        guard let progress else { return }
        let p = state.withLock { UploadProgress(sent: $0.sent, total: $0.total, failed: $0.failed) }
        progress(p)
    }

    func sql<T>(_ body: () throws(SQLiteError) -> T) throws(ODataStoreError) -> T {
        do { return try body() } catch { throw error.storeError("cannot update the store during the upload") }
    }
}

/// RFC 7231 IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), as Repeatability-First-Sent takes it.
enum HTTPDate {
    static func now() -> String {
        var t = time_t(time(nil))
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
