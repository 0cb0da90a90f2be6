import Glibc

/// Sends the upload queue to the service, one change at a time, in order.
///
/// Each change is built when it is sent, from its row as it is then (so keys the service gave
/// earlier creates are in place), and goes through the online engine (the store's headers,
/// authentication, CSRF tokens, retries of what is safe to repeat, error bodies) with
/// `Repeatability-Request-ID` / `Repeatability-First-Sent` (OData 4.01): the first attempt's
/// time is recorded in the file before the request leaves, and every later attempt of that
/// change carries the same id.
///
/// - Confirmed: the change leaves the queue, in one transaction with what the service
///   answered (a created entity's values and the key it gave, which replaces the local key
///   in the row, in foreign keys pointing at it and in queued deletes; the new ETag).
/// - Refused (a 4xx): the change moves to the error archive (`ods_errors`) and its row is
///   marked `error`; later changes of the same entity wait (they stay queued) until the app
///   resolves the archived one; the other changes go on.
/// - The service unreachable, a 5xx after the transport's retries, a cancel: the upload stops;
///   nothing is lost, and the next upload resumes with the same change.
/// - Exactly once: a change sent before whose answer never came (a kill, a lost connection) is
///   sent again with the same Repeatability-Request-ID. Where that is not enough, it is
///   checked instead: a create with the app's key that gets 409, a change that gets 412 and a
///   delete that gets 404 are read back; a create of an entity the service keys is NOT sent
///   again (the service may have made it already; one that ignores Repeatability would make a
///   second): it goes to the error archive as "uncertain" for the app to check and resolve.
///
/// Threading: `start` and `cancel` from any thread; the work hops between the transport's
/// thread and the database queue; the completion runs once, on the database queue.
final class Upload: Sendable {
    let session: ServiceSession
    let online: OnlineEngine
    let store: OfflineDatabase
    let progress: (@Sendable (UploadProgress) -> Void)?
    private let state = Locked(State())

    private struct State {
        var cancelled = false
        var task: (any EngineTask)?
        var finished = false
        var sent = 0
        var failed = 0
        var confirmed = 0
        var total = 0
        /// Rows whose change was refused in this upload: their later changes wait.
        var blocked: Set<String> = []
    }

    init(session: ServiceSession, online: OnlineEngine, store: OfflineDatabase, progress: (@Sendable (UploadProgress) -> Void)?) {
        self.session = session
        self.online = online
        self.store = store
        self.progress = progress
    }

    func start(_ completion: @escaping @Sendable (Result<UploadResult, ODataStoreError>) -> Void) {
        let finish: @Sendable (Result<Void, ODataStoreError>) -> Void = { [self] outcome in
            let (first, result) = state.withLock { s -> (Bool, UploadResult) in
                defer { s.finished = true }
                return (!s.finished, UploadResult(confirmed: s.confirmed, failed: s.failed, remaining: 0))
            }
            guard first else { return }
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
                let changes: [QueuedChange]
                do throws(SQLiteError) { changes = try ChangeQueue(connection: file.connection).all() } catch {
                    throw error.storeError("cannot read the upload queue")
                }
                state.withLock { $0.total = changes.count }
                next(changes.map(\.id), 0, finish)
            } catch {
                finish(.failure(error))
            }
        }
        if !queued { finish(.failure(ODataStoreError(.closed, "the store is closed"))) }
    }

    func cancel() {
        let task: (any EngineTask)? = state.withLock { s in
            s.cancelled = true
            return s.task
        }
        task?.cancel()
    }

    // MARK: - One change (on the database queue)

    private func next(_ ids: [Int64], _ index: Int, _ finish: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        guard index < ids.count else { return finish(.success(())) }
        if state.withLock({ $0.cancelled }) { return finish(.failure(ODataStoreError(.cancelled, "the upload was cancelled"))) }
        do throws(ODataStoreError) {
            let file = try store.requireFile()
            let queue = ChangeQueue(connection: file.connection)
            guard let change = try sql({ () throws(SQLiteError) in try queue.change(id: ids[index]) }) else {
                return next(ids, index + 1, finish)  // resolved meanwhile (a delete cancelled it)
            }
            guard let table = file.table(id: change.table) else {
                throw ODataStoreError(.error, "queued change \(change.id) names an unknown table")
            }
            let rowKey = "\(change.table)|\(change.rid)"
            let currentState = try rowState(file, table, change.rid)
            if state.withLock({ $0.blocked.contains(rowKey) }) || currentState == .error {
                // Waits behind a refused change of the same entity.
                state.withLock { $0.blocked.insert(rowKey) }
                return next(ids, index + 1, finish)
            }
            let hasLocalKey = try sql { () throws(SQLiteError) in
                try file.connection.scalar("SELECT 1 FROM ods_local_keys WHERE tbl = ?1 AND rid = ?2 AND server_key IS NULL",
                                           [.integer(change.table), .integer(change.rid)]) != nil
            }
            if change.operation == .create, hasLocalKey, change.firstSent != nil {
                try archive(change, table: table, file: file, method: "POST", body: nil, status: 0, code: "uncertain",
                            message: "this create was sent before and its answer never arrived: the service may have created the entity already (it gives the key, so sending it again could create a second one). Check the service, then retry or revert this change.")
                return next(ids, index + 1, finish)
            }
            let request = try build(change, table: table, file: file, localKey: hasLocalKey)
            let sentAt = change.firstSent ?? HTTPDate.now()
            try sql { () throws(SQLiteError) in try queue.markSent(id: change.id, at: sentAt) }
            send(change, request, table: table, repeated: change.firstSent != nil, firstSent: sentAt) { [self] outcome in
                let queued = store.queue.async { [self] in
                    do throws(ODataStoreError) {
                        switch try answered(change, request, table: table, outcome: outcome, repeated: change.firstSent != nil) {
                        case .proceed:
                            next(ids, index + 1, finish)
                        case .stop:
                            finish(.failure(outcome.failureError ?? ODataStoreError(.error, "upload stopped")))
                        case .verify(let path, let refusal):
                            verify(change, request, table: table, path: path, refusal: refusal) { [self] go in
                                if go { next(ids, index + 1, finish) } else {
                                    finish(.failure(ODataStoreError(.error, "upload stopped")))
                                }
                            }
                        }
                    } catch {
                        finish(.failure(error))
                    }
                }
                if !queued { finish(.failure(ODataStoreError(.closed, "the store was closed during the upload"))) }
            }
        } catch {
            finish(.failure(error))
        }
    }

    /// The HTTP side of a change.
    struct Outgoing: Sendable {
        var mode: RequestMode
        var method: String
        var path: String
        var body: String?
        /// A created entity's local key properties (left out of the body: the service keys it).
        var localKey: Bool
    }

    private func build(_ change: QueuedChange, table: EntityTable, file: StoreFile, localKey: Bool) throws(ODataStoreError) -> Outgoing {
        let version = session.odataVersion ?? .v4
        switch change.operation {
        case .delete:
            guard let keyText = change.entityKey, case .object(let key)? = try? JSONValue.parse(keyText) else {
                throw ODataStoreError(.error, "queued delete \(change.id) has no key")
            }
            let values = table.keyColumns.map { c -> SQLValue in
                (try? LocalWrite.sqlKey(key[c.pathText], c)) ?? .null
            }
            return Outgoing(mode: .delete, method: "DELETE", path: KeyPredicate.path(table, values, version: version), body: nil, localKey: false)
        case .create, .merge, .replace:
            let json = try sql { () throws(SQLiteError) in try LocalWrite.entityJSON(table, rid: change.rid, file: file, serviceRoot: session.serviceRoot) }
            guard case .object(let row)? = try? JSONValue.parse(json) else {
                throw ODataStoreError(.error, "queued change \(change.id): its entity is no longer in the store")
            }
            var body = JSONObject()
            for m in row where !m.key.hasPrefix("@") {
                if change.operation == .create, localKey, table.keyColumns.contains(where: { $0.pathText == m.key }) { continue }
                if change.operation == .create, m.value == .null { continue }
                if change.operation == .merge, let p = change.properties, !p.contains(m.key) { continue }
                body[m.key] = m.value
            }
            if let type = row["@odata.type"] { body["@odata.type"] = type }
            if change.operation == .create {
                var path = table.entitySet
                if let parentTable = change.parentTable, let parentRID = change.parentRID, let nav = change.parentNavigation,
                   let parent = file.table(id: parentTable) {
                    let key = try sql { () throws(SQLiteError) in try LocalWrite.keyValues(of: parentRID, table: parent, connection: file.connection) }
                    path = KeyPredicate.path(parent, key, version: version) + "/" + nav
                }
                return Outgoing(mode: .create, method: "POST", path: path, body: JSONValue.object(body).serialized(), localKey: localKey)
            }
            let key = try sql { () throws(SQLiteError) in try LocalWrite.keyValues(of: change.rid, table: table, connection: file.connection) }
            let mode: RequestMode = change.operation == .replace ? .updatePut : .updateMerge
            return Outgoing(mode: mode, method: change.operation == .replace ? "PUT" : (version == .v2 ? "MERGE" : "PATCH"),
                            path: KeyPredicate.path(table, key, version: version), body: JSONValue.object(body).serialized(), localKey: false)
        }
    }

    enum Outcome: Sendable {
        case success(Response)
        case failure(RequestFailure)

        var failureError: ODataStoreError? {
            if case .failure(let f) = self { return f.error }
            return nil
        }
    }

    /// Sends one change through the online engine (any thread).
    private func send(_ change: QueuedChange, _ out: Outgoing, table: EntityTable, repeated: Bool, firstSent: String,
                      _ done: @escaping @Sendable (Outcome) -> Void) {
        let url: String
        do {
            url = try RequestURL.make(serviceRoot: session.serviceRoot, path: out.path)
        } catch {
            return done(.failure(RequestFailure(error: error)))
        }
        var headers: [(name: String, value: String)] = [("Repeatability-Request-ID", change.repeatabilityID),
                                                         ("Repeatability-First-Sent", firstSent)]
        if out.mode == .create { headers.append(("Prefer", "return=representation")) }
        let job = RequestJob(id: 0, mode: out.mode, path: out.path, url: url, body: out.body, headers: headers,
                             etag: out.mode == .create ? nil : change.etag, paging: .none, timeoutMilliseconds: 0)
        let task = online.execute(job) { result in
            switch result {
            case .success(let r): done(.success(r))
            case .failure(let f): done(.failure(f))
            }
        }
        let cancelled: Bool = state.withLock { s in
            s.task = task
            return s.cancelled
        }
        if cancelled { task?.cancel() }
    }

    /// What follows the service's answer to a change.
    enum Next: Sendable {
        /// On to the next change.
        case proceed
        /// The upload stops here (the service unreachable, a 5xx, a cancel).
        case stop
        /// The refusal may mean an earlier attempt worked: read the entity at `path` back.
        case verify(path: String, refusal: ODataStoreError)
    }

    /// Applies the service's answer to a change (database queue).
    private func answered(_ change: QueuedChange, _ out: Outgoing, table: EntityTable, outcome: Outcome,
                          repeated: Bool) throws(ODataStoreError) -> Next {
        let file = try store.requireFile()
        switch outcome {
        case .success(let response):
            try confirm(change, out, table: table, response: response, file: file)
            return .proceed
        case .failure(let f):
            let status = f.error.httpStatus
            guard (400..<500).contains(status) else { return .stop }
            // An earlier attempt (a previous upload, or a retry of this one after a lost
            // answer) may have been applied: a delete that finds nothing is done; an update
            // refused for its ETag and a create with the app's key refused as existing are
            // read back and count as done when the service has what was sent.
            switch (change.operation, status) {
            case (.delete, 404):
                try confirm(change, out, table: table, response: Response(status: 204), file: file)
                return .proceed
            case (.merge, 412), (.replace, 412):
                return .verify(path: out.path, refusal: f.error)
            case (.create, 409) where !out.localKey:
                let key = try sql { () throws(SQLiteError) in try LocalWrite.keyValues(of: change.rid, table: table, connection: file.connection) }
                return .verify(path: KeyPredicate.path(table, key, version: session.odataVersion ?? .v4), refusal: f.error)
            default:
                break
            }
            try archive(change, table: table, file: file, method: out.method, body: out.body, status: status,
                        code: f.error.odataCode, message: f.error.message)
            return .proceed
        }
    }

    /// A change the service confirmed leaves the queue with what the service answered.
    func confirm(_ change: QueuedChange, _ out: Outgoing, table: EntityTable, response: Response, file: StoreFile) throws(ODataStoreError) {
        let c = file.connection
        try c.storeTransaction("cannot record the service's answer") {
                let queue = ChangeQueue(connection: c)
                if change.operation == .create, !response.json.isEmpty,
                   case .object(var entity)? = try? JSONValue.parse(response.json) {
                    if out.localKey {
                        try replaceLocalKey(table: table, rid: change.rid, serverEntity: entity, file: file)
                    }
                    entity["@odata.etag"] = response.etag.map { .string($0) } ?? entity["@odata.etag"]
                    try EntityWriter.upsert(JSONValue.object(entity).serialized(), table: table, file: file)
                } else if change.operation != .delete, let etag = response.etag {
                    try c.run("UPDATE \(table.quoted) SET \(SQLName.quote(EntityTable.etagColumn)) = ?2 WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                              [.integer(change.rid), .text(etag)])
                }
                try queue.remove(id: change.id)
                try Self.refreshState(table: table, tableID: change.table, rid: change.rid, file: file)
        }
        state.withLock { s in
            s.sent += 1
            s.confirmed += 1
        }
        report()
    }

    /// Puts the service's key in place of a local one: the row, foreign keys that point at
    /// it, queued deletes, and the mapping the app can read.
    private func replaceLocalKey(table: EntityTable, rid: Int64, serverEntity: JSONObject, file: StoreFile) throws(SQLiteError) {
        let c = file.connection
        let old = try LocalWrite.keyValues(of: rid, table: table, connection: c)
        var new: [SQLValue] = []
        var keyJSON = JSONObject()
        for col in table.keyColumns {
            guard let v = try? LocalWrite.sqlKey(serverEntity[col.pathText], col) else { return }
            new.append(v)
            keyJSON[col.pathText] = LocalWrite.json(v, column: col)
        }
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
        let tableID = file.tableID(table)
        try c.run("UPDATE ods_local_keys SET server_key = ?3 WHERE tbl = ?1 AND rid = ?2",
                  [.integer(tableID), .integer(rid), .text(JSONValue.object(keyJSON).serialized())])
        for queued in try ChangeQueue(connection: c).changes(table: tableID, rid: rid) where queued.operation == .delete {
            try ChangeQueue(connection: c).setEntityKey(id: queued.id, JSONValue.object(keyJSON).serialized())
        }
    }

    /// Moves a refused change to the error archive; its row is marked `error`.
    func archive(_ change: QueuedChange, table: EntityTable, file: StoreFile, method: String, body: String?,
                         status: Int, code: String?, message: String) throws(ODataStoreError) {
        let c = file.connection
        try c.storeTransaction("cannot move the change to the error archive") {
                try ErrorArchive(connection: c).add(change, method: method, body: body, status: status, code: code, message: message)
                try ChangeQueue(connection: c).remove(id: change.id)
                if change.operation != .delete {
                    try c.run("UPDATE \(table.quoted) SET \(SQLName.quote(EntityTable.stateColumn)) = ?2 WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                              [.integer(change.rid), .integer(RowState.error.rawValue)])
                }
        }
        state.withLock { s in
            s.sent += 1
            s.failed += 1
            s.blocked.insert("\(change.table)|\(change.rid)")
        }
        report()
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
