import ODataProtocol

/// One page of a download written while it arrives (docs/reliability.md, "Streaming"): the
/// transport hands the body's bytes to this sink, which cuts them with `PageSplitter` into runs
/// of complete entities as they arrive; each run waits in a bounded queue for the store's
/// database queue, where it is decoded and written in a transaction of its own (no
/// transaction stays open across queue tasks: the app reads and writes the store meanwhile).
/// The page's counts and resume point are written by `Download` with the last run, in one
/// transaction, once the body has ended: until then the resume point stays the page's URL, so
/// a failure or a kill mid-page fetches the page again and the upserts of the runs written
/// before change nothing.
///
/// The transport's pieces go straight into the splitter's buffer (one copy of each byte; a
/// run is the splitter's buffer handed over, not copied), and the database queue is woken
/// once per run of `chunkBytes`, not once per piece of 16 KiB.
///
/// Back-pressure: `receive` runs on the transport thread and never waits: while `queueBound`
/// bytes of runs wait for the database queue or are being written, it refuses more, the
/// transport pauses the exchange, and the database queue resumes it once a run is written.
/// What a page holds is then bounded by the queue (its bound and the run that passed it), the
/// splitter's run of `chunkBytes` and the entity being received, whatever the page's size.
///
/// Threading: `begin`/`receive` and the splitter on the transport thread while the body
/// arrives; `drain` on the database queue; `finish` (the splitter's last run and envelope) on
/// the database queue after the transfer has ended (the completion that schedules it runs after
/// the transport's last `receive`); the shared part under `state`'s lock
/// (`@unchecked Sendable` for that confinement).
final class PageStream: HTTPBodySink, @unchecked Sendable {
    /// Bytes of runs waiting for the database queue or being written before the transfer pauses.
    static let queueBound = 1 << 20
    /// Complete entities written per transaction (bytes of their JSON).
    static let chunkBytes = 512 << 10

    private let store: OfflineDatabase
    private let target: Download.Target
    private let service: ServiceSession.ServiceState
    private let serviceRoot: String
    private let maxHeldBytes: Int
    /// Stops the transfer (the page failed while it was arriving).
    private let cancelTransfer: @Sendable () -> Void

    private struct Shared {
        /// Runs of complete entities (documents of the page's shape) not taken yet.
        var runs: [[UInt8]] = []
        /// Bytes of `runs` and of the run being written.
        var queued = 0
        var peakQueued = 0
        var paused = false
        var drainScheduled = false
        var resume: (@Sendable () -> Void)?
        var stopped = false
        var failure: ODataStoreError?
        /// A written run's buffer, emptied, for the splitter's next run (its memory reused).
        var spare: [UInt8] = []
    }
    private let state = Locked(Shared())

    // Transport thread while the body arrives; database queue in `finish` (after the transfer).
    private var splitter: PageSplitter
    private var peakSplitter = 0
    // Database queue only.
    /// Entities of this page written by earlier runs (counted when the page completes).
    private(set) var written = 0

    init(store: OfflineDatabase, target: Download.Target, service: ServiceSession.ServiceState, serviceRoot: String,
         maxHeldBytes: Int, cancelTransfer: @escaping @Sendable () -> Void) {
        self.store = store
        self.target = target
        self.service = service
        self.serviceRoot = serviceRoot
        self.maxHeldBytes = maxHeldBytes
        self.cancelTransfer = cancelTransfer
        splitter = PageSplitter(version: service.version ?? .v4, maxHeldBytes: maxHeldBytes)
    }

    /// Why the page failed while it arrived, if it did.
    var failure: ODataStoreError? { state.withLock { $0.failure } }
    /// The most bytes of the page held at once (queue and splitter; an upper bound). Read after
    /// the transfer has ended.
    var peakHeldBytes: Int { state.withLock { $0.peakQueued } + peakSplitter }

    /// Drops what waits and writes nothing more (cancel, or the exchange failed).
    func stop() {
        state.withLock { s in
            s.stopped = true
            s.runs = []
            s.queued = 0
        }
    }

    // MARK: - Transport thread

    func begin(status: Int, headers: HTTPHeaderFields, resume: @escaping @Sendable () -> Void) -> Bool {
        // JSON only: an Atom page is decoded whole (docs/reliability.md).
        guard let type = headers.value(named: "Content-Type"), Self.isJSON(type) else { return false }
        return state.withLock { s in
            guard !s.stopped else { return false }
            s.resume = resume
            return true
        }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let refused: Bool? = state.withLock { s in
            if s.stopped { return nil }  // dropped: the exchange is being cancelled
            if s.queued >= Self.queueBound {
                s.paused = true
                return true
            }
            return false
        }
        guard let refused else { return true }
        if refused { return false }
        do {
            try splitter.feed(bytes)
        } catch {
            fail(splitFailure(error))
            return true  // the transfer is being cancelled
        }
        peakSplitter = max(peakSplitter, splitter.heldBytes)
        if splitter.readyBytes >= Self.chunkBytes { queueRun() }
        return true
    }

    /// Takes the splitter's complete entities as a run and queues it for the database queue.
    private func queueRun() {
        var run = state.withLock { s in
            var spare: [UInt8] = []
            swap(&spare, &s.spare)
            return spare
        }
        guard splitter.takeChunk(into: &run) != nil else { return }
        let schedule: Bool = state.withLock { s in
            if s.stopped { return false }
            s.queued += run.count
            s.peakQueued = max(s.peakQueued, s.queued)
            s.runs.append(run)
            if s.drainScheduled { return false }
            s.drainScheduled = true
            return true
        }
        if schedule, !store.queue.async({ [self] in drain() }) {
            fail(ODataStoreError(.closed, "the store was closed during the download"))
        }
    }

    // MARK: - Database queue

    /// Writes the runs that wait.
    private func drain() {
        do throws(ODataStoreError) {
            try drainQueued(final: false)
        } catch {
            fail(error)
        }
    }

    /// Decodes and writes each waiting run in a transaction; resumes a paused transfer once
    /// the runs left are under the bound.
    private func drainQueued(final: Bool) throws(ODataStoreError) {
        while true {
            let run: [UInt8]? = state.withLock { s in
                if s.stopped || s.runs.isEmpty {
                    if !final { s.drainScheduled = false }
                    return nil
                }
                return s.runs.removeFirst()
            }
            guard var run else { return }
            let payload = try decode(run)
            written += try store.writeEntities(payload, target: target, serviceRoot: serviceRoot)
            let count = run.count
            run.removeAll(keepingCapacity: true)
            let resume: (@Sendable () -> Void)? = state.withLock { s in
                if !s.stopped { s.queued -= count }
                if s.spare.capacity < run.capacity { swap(&s.spare, &run) }
                guard s.paused, s.queued < Self.queueBound else { return nil }
                s.paused = false
                return s.resume
            }
            resume?()  // the transport goes on receiving while the next run is written
        }
    }

    /// After the body has ended: the last run of entities and the page without its entities
    /// (its annotations), decoded, for `Download` to write with the page's counts.
    func finish() throws(ODataStoreError) -> [DecodedPayload] {
        if let failure { throw failure }
        try drainQueued(final: true)
        // Stopped meanwhile (cancelled): what waited was dropped, the page is not complete.
        if let failure { throw failure }
        if state.withLock({ $0.stopped }) { throw ODataStoreError(.cancelled, "the download was cancelled") }
        var parts: [DecodedPayload] = []
        if let run = splitter.takeChunk() { parts.append(try decode(run.document)) }
        let envelope: [UInt8]
        do {
            envelope = try splitter.finish()
        } catch {
            throw splitFailure(error)
        }
        parts.append(try decode(envelope))
        return parts
    }

    private func decode(_ document: [UInt8]) throws(ODataStoreError) -> DecodedPayload {
        do {
            return try PayloadDecoder.decode(document, contentType: "application/json", version: service.version ?? .v4,
                                             model: service.model, entitySet: nil, entityType: target.definition.table.entityType,
                                             target: .entities, schema: service.schema, spans: true)
        } catch {
            throw ODataStoreError(.protocol, "downloading \(target.definition.path): the service's answer is not valid OData: \(error)")
        }
    }

    private func splitFailure(_ error: PayloadError) -> ODataStoreError {
        if error.kind == .invalid {  // what PageSplitter says of a part over its limit
            return ODataStoreError(.limit, "downloading \(target.definition.path): \(error.message) (max_response_bytes)")
        }
        return ODataStoreError(.protocol, "downloading \(target.definition.path): the service's answer is not valid OData: \(error)")
    }

    /// Records why the page failed and stops the transfer.
    private func fail(_ error: ODataStoreError) {
        let first: Bool = state.withLock { s in
            guard s.failure == nil else { return false }
            s.failure = error
            s.stopped = true
            s.runs = []
            s.queued = 0
            return true
        }
        if first { cancelTransfer() }
    }

    /// A JSON media type (`application/json`, `...+json`), by its essence's ending.
    static func isJSON(_ contentType: String) -> Bool {
        var essence = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }[...]
        while let last = essence.last, last == 0x20 || last == 0x09 { essence = essence.dropLast() }
        let json = Array("json".utf8)
        guard essence.count >= 4 else { return false }
        return zip(essence.suffix(4), json).allSatisfy { ($0 | 0x20) == $1 }
    }
}
