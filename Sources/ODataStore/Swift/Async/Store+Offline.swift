/// The offline store's synchronisation as async calls: upload, download and resolving the
/// error archive, with their progress as an `AsyncSequence` (docs/offline.md, docs/swift.md).
extension Store {
    /// Sends the local changes to the service, in order, and returns what happened. Task
    /// cancellation stops the upload (`cancelUpload`): it throws `.cancelled`, nothing queued
    /// is lost. `uploading()` gives the progress too.
    public func upload() async throws(ODataStoreError) -> UploadResult {
        try await uploading().value()
    }

    /// Starts an upload: `transfer.progress` reports each change the service answered,
    /// `try await transfer.value()` its result.
    public func uploading() throws(ODataStoreError) -> StoreTransfer<UploadProgress, UploadResult> {
        let transfer = StoreTransfer<UploadProgress, UploadResult>(cancel: { [weak self] in try? self?.cancelUpload() })
        try upload(progress: { _, p in transfer.report(p) }) { _, result in transfer.finish(result) }
        return transfer
    }

    /// Downloads fresh data for the defining requests at `paths` (all when nil) into the open
    /// store: deltas where the service gave a delta link, else full downloads; local changes
    /// stay on top. Task cancellation stops it (`cancelDownload`).
    public func download(_ paths: [String]? = nil) async throws(ODataStoreError) {
        try await downloading(paths).value()
    }

    /// Starts a download: `transfer.progress` reports each page written.
    public func downloading(_ paths: [String]? = nil) throws(ODataStoreError) -> StoreTransfer<DownloadProgress, Void> {
        let transfer = StoreTransfer<DownloadProgress, Void>(cancel: { [weak self] in try? self?.cancelDownload() })
        try download(paths, progress: { _, p in transfer.report(p) }) { _, result in transfer.finish(result) }
        return transfer
    }

    /// Gives up the refused change `id` (and its entity's queued changes); the entity goes
    /// back to the service's version.
    public func revertError(id: Int64) async throws(ODataStoreError) {
        let done = OneShot<Void>()
        try revertError(id: id) { _, result in done.fulfil(result) }
        try await done.value(onCancel: nil)
    }
}

/// An upload or download under way: its progress as an `AsyncSequence` (from the first
/// report, whenever you start reading; it ends with the transfer) and its outcome.
public final class StoreTransfer<Progress: Sendable, Value: Sendable>: Sendable {
    private let outcome = OneShot<Value>()
    private let reports = Locked<(history: [Progress], streams: [Int: AsyncStream<Progress>.Continuation], nextID: Int, ended: Bool)>(([], [:], 0, false))
    private let cancelTransfer: @Sendable () -> Void

    init(cancel: @escaping @Sendable () -> Void) {
        cancelTransfer = cancel
    }

    /// The reports so far, then the rest; ends when the transfer does.
    public var progress: AsyncStream<Progress> {
        let (stream, continuation) = AsyncStream<Progress>.makeStream(bufferingPolicy: .unbounded)
        let id = reports.withLock { r -> Int in
            r.nextID += 1
            return r.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.reports.withLock { $0.streams.removeValue(forKey: id) }
        }
        let live = reports.withLock { r -> Bool in
            for p in r.history { continuation.yield(p) }
            if r.ended { return false }
            r.streams[id] = continuation
            return true
        }
        if !live { continuation.finish() }
        return stream
    }

    /// Waits for the outcome. Cancelling the waiting task stops the transfer.
    public func value() async throws(ODataStoreError) -> Value {
        try await outcome.value(onCancel: cancelTransfer)
    }

    /// Stops the transfer; `value()` then throws `.cancelled`.
    public func cancel() { cancelTransfer() }

    func report(_ p: Progress) {
        reports.withLock { r in
            r.history.append(p)
            for c in r.streams.values { c.yield(p) }
        }
    }

    func finish(_ result: Result<Value, ODataStoreError>) {
        let streams = reports.withLock { r -> [AsyncStream<Progress>.Continuation] in
            r.ended = true
            defer { r.streams.removeAll() }
            return Array(r.streams.values)
        }
        for c in streams { c.finish() }
        outcome.fulfil(result)
    }
}

/// A result delivered once, awaited by any number of tasks.
final class OneShot<Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Result<Value, ODataStoreError>, Never>
    private let state = Locked<(result: Result<Value, ODataStoreError>?, waiters: [Int: Waiter], nextID: Int)>((nil, [:], 0))

    func fulfil(_ result: Result<Value, ODataStoreError>) {
        let waiters = state.withLock { s -> [Waiter] in
            guard s.result == nil else { return [] }
            s.result = result
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume(returning: result) }
    }

    /// The result; `onCancel` runs when the waiting task is cancelled (nil: wait anyway).
    func value(onCancel: (@Sendable () -> Void)?) async throws(ODataStoreError) -> Value {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        let result: Result<Value, ODataStoreError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: Waiter) in
                let ready = state.withLock { s -> Result<Value, ODataStoreError>? in
                    if let r = s.result { return r }
                    s.waiters[id] = c
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            onCancel?()
        }
        return try result.get()
    }
}
