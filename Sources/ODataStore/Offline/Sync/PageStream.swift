import ODataProtocol

/// One page of a download written while it arrives (docs/reliability.md, "Streaming"): the
/// transport hands the body's bytes to this sink; they wait in a bounded queue for the
/// store's database queue, where `PageSplitter` cuts them into runs of complete entities that
/// are decoded and written, each run in a transaction of its own (no transaction stays open
/// across queue tasks: the app reads and writes the store meanwhile). The page's counts and
/// resume point are written by `Download` with the last run, in one transaction, once the
/// body has ended: until then the resume point stays the page's URL, so a failure or a kill
/// mid-page fetches the page again and the upserts of the runs written before change nothing.
///
/// Back-pressure: `receive` runs on the transport thread and never waits: while
/// `queueBound` bytes wait for the database queue it refuses more, the transport pauses the
/// exchange, and the database queue resumes it once it has taken them. What a page holds is
/// then bounded by the queue, a run of `chunkBytes` and the entity being received, whatever
/// the page's size.
///
/// Threading: `begin`/`receive` on the transport thread; `drain`, `finish` and the splitter
/// on the database queue only (`@unchecked Sendable` for that confinement); the shared part
/// under `state`'s lock.
final class PageStream: HTTPBodySink, @unchecked Sendable {
    /// Bytes received and not yet taken by the database queue before the transfer pauses.
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
        var chunks: [[UInt8]] = []
        var queued = 0
        var peakQueued = 0
        var paused = false
        var drainScheduled = false
        var resume: (@Sendable () -> Void)?
        var stopped = false
        var failure: ODataStoreError?
    }
    private let state = Locked(Shared())

    // Database queue only.
    private var splitter: PageSplitter
    private var peakSplitter = 0
    /// Entities of this page written by earlier runs (counted when the page completes).
    private(set) var written = 0
    /// The run being decoded: one buffer for the page's runs (no fresh memory for each).
    private var run: [UInt8] = []

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
    /// The most bytes of the page held at once (queue and splitter; an upper bound).
    var peakHeldBytes: Int { state.withLock { $0.peakQueued } + peakSplitter }

    /// Drops what waits and writes nothing more (cancel, or the exchange failed).
    func stop() {
        state.withLock { s in
            s.stopped = true
            s.chunks = []
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
        let (taken, schedule): (Bool, Bool) = state.withLock { s in
            if s.stopped { return (true, false) }  // dropped: the exchange is being cancelled
            if s.queued > 0, s.queued + bytes.count > Self.queueBound {
                s.paused = true
                return (false, false)
            }
            s.chunks.append(Array(bytes))
            s.queued += bytes.count
            s.peakQueued = max(s.peakQueued, s.queued)
            if s.drainScheduled { return (true, false) }
            s.drainScheduled = true
            return (true, true)
        }
        if schedule, !store.queue.async({ [self] in drain() }) {
            fail(ODataStoreError(.closed, "the store was closed during the download"))
        }
        return taken
    }

    // MARK: - Database queue

    /// Takes what waits, feeds the splitter and writes each run of `chunkBytes`.
    private func drain() {
        do throws(ODataStoreError) {
            try drainQueued(final: false)
        } catch {
            fail(error)
        }
    }

    private func drainQueued(final: Bool) throws(ODataStoreError) {
        while true {
            let (chunks, resume): ([[UInt8]], (@Sendable () -> Void)?) = state.withLock { s in
                if s.stopped || s.chunks.isEmpty {
                    if !final { s.drainScheduled = false }
                    return ([], nil)
                }
                let taken = s.chunks
                s.chunks = []
                s.queued = 0
                let resume = s.paused ? s.resume : nil
                s.paused = false
                return (taken, resume)
            }
            if chunks.isEmpty { return }
            resume?()  // the transport goes on receiving while these are written
            for chunk in chunks {
                do {
                    try chunk.withUnsafeBytes { try splitter.feed($0) }
                } catch let e as PayloadError {
                    throw splitFailure(e)
                } catch {
                    throw ODataStoreError(.error, "\(error)")
                }
                peakSplitter = max(peakSplitter, splitter.heldBytes)
                if splitter.readyBytes >= Self.chunkBytes { try writeRun() }
                if state.withLock({ $0.stopped }) { return }
            }
        }
    }

    /// Decodes and writes the complete entities the splitter holds, in a transaction.
    private func writeRun() throws(ODataStoreError) {
        guard splitter.takeChunk(into: &run) != nil else { return }
        let payload = try decode(run)
        written += try store.writeEntities(payload, target: target, serviceRoot: serviceRoot)
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
            s.chunks = []
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
