import CSQLite
import Glibc

/// The `$batch` side of the upload: up to `uploadBatchSize` queued changes in one request, in
/// queue order, one changeset per dependent group.
///
/// - Changes that depend on each other go in one changeset, which the service applies all or
///   nothing: the changes of one entity, a create under a parent created in the same batch
///   (its URL is `$<Content-ID>/<navigation>` when the service gives the parent's key), a
///   change whose foreign key names an entity created in the same batch with a key of the
///   app's, a change of an entity created in the same changeset (`$<Content-ID>` when the
///   service gives its key; `If-Match: *` when it has no ETag yet: inside the atomic changeset
///   only that create's entity can match). Groups that would cross other changes are merged
///   with what lies between, so the order of the queue is kept. Every other change stands
///   alone: a request of its own outside changesets in V4, a changeset of its own in V2
///   (`batchItems`); a refusal stops nothing else (V4: `Prefer: odata.continue-on-error`).
/// - A change whose foreign key needs the key the service gives an entity created in the same
///   batch ends the batch: it is built in the next one, when that key is known.
/// - Each part carries the change's own headers (Repeatability-Request-ID and -First-Sent,
///   If-Match, Prefer); the `$batch` request carries the store's (version, authentication,
///   CSRF token, the app's headers).
/// - A changeset the service refuses as a whole is answered by one error response: the change
///   whose Content-ID it names is archived, the others of the group were rolled back and are
///   sent again in the next batch (changes of the same entity, or depending on its key, then
///   wait behind it). An error response that names no change of the group: each of its changes
///   is sent again in a request of its own, which says which one the service refuses.
/// - Changesets the answer leaves out (a service that stops at the first failure) are sent again.
/// - Planned ahead: while a `$batch` is on its way, the next one is planned (`planAhead`) from
///   the changes after it that touch none of its entities and need none of them (no change of
///   the same entity, no parent or foreign key target among them, and none of them needs one
///   of these): nothing its answer records can change those requests. When that answer comes
///   and everything in it was confirmed or archived (nothing to send again, no read-back, no
///   stop) and nothing was written to the file meanwhile (the app's local writes can change a
///   change not yet sent), the planned batch's first attempt is recorded in the answer's
///   transaction (one durable commit instead of two) and it leaves at once. Otherwise it is
///   dropped (its changes go back ahead of the rest, in queue order) and planned again. One
///   `$batch` is in flight at a time, as before: the order of sending and of recording is the
///   queue's.
extension Upload {
    struct BatchPlan {
        var changesets: [[ChangeRequest]] = []
        /// The entities its changes touch or need (their rows, parents and foreign key targets).
        var rows: Set<UploadRowKey> = []
        var requests: [ChangeRequest] { changesets.flatMap { $0 } }
        var isEmpty: Bool { changesets.isEmpty }
    }

    /// A batch planned while the one before it is on its way, and the file's change count then
    /// (`sqlite3_total_changes64`: any write since, the app's included, moves it).
    struct PlannedAhead {
        var plan: BatchPlan
        var stamp: Int64
    }

    /// Plans the next batch while `inFlight` is on its way (database queue). Not marked as
    /// sent: that is done with `inFlight`'s answers, if the plan still holds then.
    func planAhead(after inFlight: BatchPlan, _ file: StoreFile) {
        let saved = state.withLock { s -> (cursor: Int, again: [Int64])? in
            s.cancelled || s.ahead != nil ? nil : (s.cursor, s.again)
        }
        guard let saved else { return }
        do throws(ODataStoreError) {
            let ahead = try plan(file, excluding: inFlight.rows)
            guard !ahead.isEmpty else { return }
            let stamp = sqlite3_total_changes64(file.connection.handle)
            state.withLock { $0.ahead = PlannedAhead(plan: ahead, stamp: stamp) }
        } catch {
            // Planned again after the answer, where the error shows.
            state.withLock { s in
                s.cursor = saved.cursor
                s.again = saved.again
            }
        }
    }

    /// Takes the batch planned ahead, if any.
    func takeAhead() -> PlannedAhead? {
        state.withLock { s in
            defer { s.ahead = nil }
            return s.ahead
        }
    }

    /// A batch planned ahead that is not sent: its changes go back ahead of the rest.
    func drop(_ ahead: PlannedAhead?) {
        guard let ahead else { return }
        Log.debug(.upload, "the $batch planned ahead (\(ahead.plan.requests.count) change(s)) is planned again")
        again(ahead.plan.requests)
    }

    /// The next batch, taken from the queue (database queue). `excluding`: entities of a batch
    /// on its way; the batch ends before the first change that touches or needs one of them.
    func plan(_ file: StoreFile, excluding: Set<UploadRowKey> = []) throws(ODataStoreError) -> BatchPlan {
        let size = max(session.options.uploadBatchSize, 1)
        let builder = builder(file)
        let version = builder.version
        var requests: [ChangeRequest] = []
        // The changeset (group) of each request; groups are runs of consecutive requests.
        var groupOf: [Int] = []
        // Index of the first request of each row in this batch, and of a row's create.
        var firstOfRow: [UploadRowKey: Int] = [:]
        var createOf: [UploadRowKey: Int] = [:]
        var rows: Set<UploadRowKey> = []
        while requests.count < size, let id = peek() {
            if state.withLock({ $0.alone.contains(id) }) { break }
            guard case .send(let change, let table, let localKey, let references) = try prepare(id, file) else {
                take()
                continue
            }
            let row = UploadRowKey(table: change.table, rid: change.rid)
            if !excluding.isEmpty, excluding.contains(row) || references.contains(where: { excluding.contains($0.row) }) { break }
            var joined: [Int] = []
            var reference = ChangeRequestBuilder.Reference.none
            var unsent: Set<String> = []
            var binds: [(navigation: String, contentID: String)] = []
            var later = false
            for r in references {
                guard let i = createOf[r.row] else { continue }
                joined.append(groupOf[i])
                let contentID = requests[i].contentID ?? ""
                guard r.localKey else { continue }
                if r.isParent {
                    reference = .parent(contentID)
                } else if references.contains(where: { $0.isParent && $0.row == r.row }) {
                    unsent.formUnion(r.properties)  // the navigation in the URL relates them
                } else if change.operation == .create, version == .v4, let navigation = r.navigation {
                    unsent.formUnion(r.properties)
                    binds.append((navigation, contentID))
                } else {
                    later = true  // its foreign key needs the key the service gives: next batch
                }
            }
            if later { break }
            if let i = firstOfRow[row] { joined.append(groupOf[i]) }
            var createdHere = false
            if let i = createOf[row] {
                createdHere = true
                if requests[i].localKey { reference = .entity(requests[i].contentID ?? "") }
            }
            take()
            var request = try builder.build(change, table: table, localKey: localKey, firstSent: change.firstSent ?? HTTPDate.now(),
                                            reference: reference, createdInChangeset: createdHere, unsent: unsent, binds: binds)
            let index = requests.count
            request.contentID = String(index + 1)
            requests.append(request)
            rows.insert(row)
            for r in references { rows.insert(r.row) }
            if let g = joined.min() {
                // One changeset from the earliest group it depends on to here (groups are
                // runs: the ones to merge are at the end).
                var j = groupOf.count - 1
                while j >= 0, groupOf[j] > g {
                    groupOf[j] = g
                    j -= 1
                }
                groupOf.append(g)
            } else {
                groupOf.append((groupOf.last ?? -1) + 1)
            }
            if firstOfRow[row] == nil { firstOfRow[row] = index }
            if change.operation == .create { createOf[row] = index }
        }
        var plan = BatchPlan(rows: rows)
        for (i, r) in requests.enumerated() {
            if i > 0, groupOf[i] == groupOf[i - 1] {
                plan.changesets[plan.changesets.count - 1].append(r)
            } else {
                plan.changesets.append([r])
            }
        }
        return plan
    }

    /// Whether to send `$batch` requests: yes, unless the service answered one with 404, 405
    /// or 501 in the last day (`ods_store` keeps when).
    func batchSupported(_ file: StoreFile) throws(ODataStoreError) -> Bool {
        let value = try sql { () throws(SQLiteError) in
            try file.connection.scalar("SELECT value FROM ods_store WHERE name = 'upload_without_batch'")
        }
        guard case .text(let when)? = value, let then = Timestamp.seconds(when) else { return true }
        return Int64(time(nil)) - then > 86_400
    }

    private func rememberNoBatch(_ file: StoreFile) throws(ODataStoreError) {
        try sql { () throws(SQLiteError) in
            try file.connection.run("INSERT OR REPLACE INTO ods_store (name, value) VALUES ('upload_without_batch', ?1)",
                                    [.text(Timestamp.now())])
        }
    }

    // MARK: - Sending

    /// The items of the `$batch` body: a group of several changes is a changeset; a change on
    /// its own is a changeset of one in V2 (where only retrievals may stand outside changesets)
    /// and, in V4, a request of its own at the top level. V4 lets a data modification request
    /// stand there (OData 4.0 Part 1, 11.7: "an individual request ... is a ... Data
    /// Modification Request"; change sets group them only where they must be atomic): it is
    /// its own unit, run in order, answered by one response (a refusal names only it), and
    /// with `Prefer: odata.continue-on-error` the requests after it still run: what a
    /// changeset of one gives, without the changeset the service must open, parse and commit
    /// (a transaction per change on many services). Its Content-ID is left out: nothing in the
    /// batch refers to it (a change that does shares its changeset), its answer is matched by
    /// position, and OData 4.0 defines Content-ID only inside changesets.
    static func batchItems(_ plan: BatchPlan, version: ODataVersion) -> [BatchRequestItem] {
        plan.changesets.map { changeset in
            if version == .v4, changeset.count == 1, let r = changeset.first {
                return .request(BatchRequestPart(method: r.method, url: r.path, headers: BatchHeaders(r.headers), body: r.body))
            }
            return .changeset(changeset.map {
                BatchRequestPart(method: $0.method, url: $0.path, headers: BatchHeaders($0.headers), body: $0.body, contentID: $0.contentID)
            })
        }
    }

    func sendBatch(_ plan: BatchPlan, _ finish: @escaping Finish) {
        let version = session.state.version ?? .v4
        let items = Self.batchItems(plan, version: version)
        let encoded: (body: [UInt8], contentType: String)
        do {
            encoded = try BatchRequest(items: items).encoded()
        } catch {
            return finish(.failure(ODataStoreError(.error, "cannot write the $batch request: \(error)")))
        }
        var headers = session.baseHeaders(version: version)
        headers.append(("Content-Type", encoded.contentType))
        headers.append(("Accept", "multipart/mixed"))
        if version == .v4 { headers.append(("Prefer", "odata.continue-on-error")) }
        let http = HTTPRequest(method: "POST", url: session.serviceRoot + "$batch", headers: session.merged(headers, []),
                               body: encoded.body, timeoutMilliseconds: session.timeout(0))
        sendBatch(plan, http, attempt: 0, delay: takePause(), finish)
    }

    private func sendBatch(_ plan: BatchPlan, _ http: HTTPRequest, attempt: Int, delay: Int, _ finish: @escaping Finish) {
        exchange(http, delay: delay) { [self] result in
            onQueue(finish) { [self] () throws(ODataStoreError) in
                try answered(plan, http, result, attempt: attempt, finish)
            }
        }
    }

    /// What the service answered to a `$batch` (database queue).
    private func answered(_ plan: BatchPlan, _ http: HTTPRequest, _ result: Result<HTTPResponse, HTTPTransportError>,
                          attempt: Int, _ finish: @escaping Finish) throws(ODataStoreError) {
        let file = try store.requireFile()
        let requests = plan.requests
        // The batch planned while this one was on its way: sent next only when this answer is
        // recorded as a whole (`apply`).
        let ahead = takeAhead()
        if !(200..<300).contains((try? result.get())?.status ?? 0) { drop(ahead) }
        let response: HTTPResponse
        switch result {
        case .failure(let error):
            let answer = ChangeAnswer.from(error, request: "POST $batch")
            if case .notDone = answer { try record([], restore: requests, file) }
            return finish(.failure(answer.error ?? ODataStoreError(.error, "POST $batch failed")))
        case .success(let r):
            response = r
        }
        let status = response.status
        if (200..<300).contains(status) {
            let parsed: BatchResponse
            do {
                parsed = try BatchResponse.parse(response.body, contentType: response.header("Content-Type"))
            } catch {
                drop(ahead)
                // Whatever the service did, its answer does not say: like a lost connection.
                return finish(.failure(ODataStoreError(.protocol,
                    "the answer to POST $batch (HTTP \(status)) cannot be read: \(error); its \(requests.count) changes stay queued and are sent again with their Repeatability-Request-IDs",
                    httpStatus: status)))
            }
            return try apply(parsed, to: plan, file, ahead: ahead, finish)
        }
        if status == 404 || status == 405 || status == 501 {
            // The service has no $batch (nothing was done): one request per change from now on.
            try record([], restore: requests, file)
            try rememberNoBatch(file)
            state.withLock { $0.batches = false }
            again(requests)
            return run(finish)
        }
        if !state.withLock({ $0.cancelled }),
           let d = session.retryPolicy.delayAfterRefusal(status: status, retryAfter: response.header("Retry-After"), retry: attempt) {
            return sendBatch(plan, http, attempt: attempt + 1, delay: d, finish)
        }
        let error = ResponseErrors.error(for: response, what: "POST $batch", maxText: session.options.limits.maxErrorMessageBytes)
        switch status {
        case 401, 408, 429, 503:
            // Not acted on: as if never sent.
            try record([], restore: requests, file)
            finish(.failure(error))
        case 400..<500:
            // The service refused the $batch request as a whole and did nothing (too large, a
            // part it cannot read): each of these changes goes in a request of its own.
            try record([], restore: requests, file)
            again(requests, alone: true)
            run(finish)
        default:
            // A 5xx: some of it may have been done.
            finish(.failure(error))
        }
    }

    /// Matches the answer's parts to the changes and records them in one transaction.
    private func apply(_ answer: BatchResponse, to plan: BatchPlan, _ file: StoreFile, ahead: PlannedAhead?,
                       _ finish: @escaping Finish) throws(ODataStoreError) {
        let service = session.state
        let maxText = session.options.limits.maxErrorMessageBytes
        let groups: [[BatchResponsePart]] = answer.items.map {
            switch $0 {
            case .response(let r): [r]
            case .changeset(let rs): rs
            }
        }
        func answerOf(_ part: BatchResponsePart, _ r: ChangeRequest) -> ChangeAnswer {
            ChangeAnswer.from(status: part.status, headerFields: HTTPHeaderFields(part.headers.fields), body: part.body,
                              request: r, service: service, maxErrorText: maxText)
        }
        var answered: [(ChangeRequest, ChangeAnswer)] = []
        var again: [ChangeRequest] = []
        var alone: [ChangeRequest] = []
        var stop: ODataStoreError? = nil
        for (i, changeset) in plan.changesets.enumerated() {
            guard i < groups.count else {
                again += changeset  // not answered: the service stopped before it
                continue
            }
            let parts = groups[i]
            if parts.count == changeset.count {
                // By Content-ID when the parts name ours, else in order.
                var byID: [String: BatchResponsePart] = [:]
                for p in parts { if let id = p.contentID, byID[id] == nil { byID[id] = p } }
                let named = byID.count == changeset.count && changeset.allSatisfy { $0.contentID.flatMap { byID[$0] } != nil }
                for (j, r) in changeset.enumerated() {
                    let part = named ? byID[r.contentID ?? ""] ?? parts[j] : parts[j]
                    answered.append((r, answerOf(part, r)))
                }
            } else if parts.count == 1, parts[0].status >= 400 {
                // The changeset refused as a whole, rolled back.
                if let id = parts[0].contentID, let failing = changeset.first(where: { $0.contentID == id }) {
                    answered.append((failing, answerOf(parts[0], failing)))
                    again += changeset.filter { $0.contentID != id }
                } else {
                    alone += changeset
                }
            } else {
                stop = stop ?? ODataStoreError(.protocol, "the answer to POST $batch has \(parts.count) responses for a changeset of \(changeset.count) changes")
            }
        }
        var recorded: [(ChangeRequest, ChangeAnswer)] = []
        var restore = again + alone
        var deferred: (ODataStoreError, String?)? = nil
        for (r, a) in answered {
            switch a {
            case .confirmed, .refused:
                recorded.append((r, a))
            case .deferred(let e, let retryAfter):
                again.append(r)
                restore.append(r)
                deferred = (e, retryAfter)
            case .notDone(let e):
                restore.append(r)
                stop = stop ?? e
            case .unknown(let e):
                stop = stop ?? e
            }
        }
        if recorded.isEmpty && alone.isEmpty && stop == nil && deferred == nil {
            // Nothing answered at all: one request per change says what happens to each.
            alone = again
            again = []
        }
        // The batch planned ahead still holds when this answer needs nothing sent again and
        // nothing was written to the file since it was planned.
        var next: BatchPlan? = nil
        if let ahead {
            let whole = again.isEmpty && alone.isEmpty && restore.isEmpty && stop == nil && deferred == nil
                && !recorded.contains { r, a in
                    if case .refused(let e) = a { return Self.needsReadBack(r, e) }
                    return false
                }
            if whole, !state.withLock({ $0.cancelled }), sqlite3_total_changes64(file.connection.handle) == ahead.stamp {
                next = ahead.plan
            } else {
                drop(ahead)
            }
        }
        let readBacks = try record(recorded, restore: restore, file, marking: next?.requests ?? [])
        if stop == nil {
            self.again(again.sorted { $0.change.id < $1.change.id })
            self.again(alone, alone: true)
        }
        if let deferred, stop == nil {
            let (e, retryAfter) = deferred
            let rounds: Int = state.withLock { s in
                s.deferredRounds += 1
                return s.deferredRounds
            }
            if let d = session.retryPolicy.delayAfterRefusal(status: e.httpStatus, retryAfter: retryAfter, retry: rounds - 1) {
                state.withLock { $0.pauseMilliseconds = d }
            } else {
                stop = e
            }
        }
        let stopped = stop
        let ready = next
        readBack(readBacks, finish) { [self] in
            if let stopped { return finish(.failure(stopped)) }
            run(finish, ready: ready)
        }
    }
}
