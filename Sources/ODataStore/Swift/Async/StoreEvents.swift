/// Fans a store's state changes and download progress out to async observers (the
/// `AsyncSequence`s of the Swift API and `waitUntilOpen`), next to the callbacks of the
/// dispatch mode. The store publishes here directly, not through its callback queue, so the
/// async API works the same in thread and queue mode.
///
/// Threading: `publish` may be called with the store's table lock held (it never calls back
/// into the store); streams are fed and finished outside this hub's own lock, because
/// finishing a stream runs its termination handler, which takes the lock.
final class StoreEvents: Sendable {
    private struct State {
        var state: StoreState = .opening
        var error: ODataStoreError?
        var nextID = 0
        var stateStreams: [Int: AsyncStream<StoreState>.Continuation] = [:]
        var waiters: [Int: CheckedContinuation<Result<Void, ODataStoreError>, Never>] = [:]
        /// Reports of the download that runs while the store opens, kept for late subscribers.
        var openingProgress: [DownloadProgress] = []
        var progressStreams: [Int: AsyncStream<DownloadProgress>.Continuation] = [:]
    }
    private let locked = Locked(State())

    func publish(_ state: StoreState, _ error: ODataStoreError?) {
        // Yielding never calls back into the hub, so it happens under the lock (keeping the
        // order of reports and of a new subscriber's first value); finishing runs termination
        // handlers, which take the lock, and resuming waiters runs their tasks: both outside.
        let (finished, waiters, result) = locked.withLock { s -> ([AsyncStream<StoreState>.Continuation], [CheckedContinuation<Result<Void, ODataStoreError>, Never>], Result<Void, ODataStoreError>?) in
            s.state = state
            if error != nil { s.error = error }
            for c in s.stateStreams.values { c.yield(state) }
            var finished: [AsyncStream<StoreState>.Continuation] = []
            if state == .closed {
                finished = Array(s.stateStreams.values)
                s.stateStreams.removeAll()
            }
            guard state != .opening else { return (finished, [], nil) }
            let waiters = Array(s.waiters.values)
            s.waiters.removeAll()
            return (finished, waiters, Self.openResult(s))
        }
        for c in finished { c.finish() }
        finishProgress()
        if let result { for w in waiters { w.resume(returning: result) } }
    }

    private func finishProgress() {
        let progress = locked.withLock { s -> [AsyncStream<DownloadProgress>.Continuation] in
            guard s.state != .opening else { return [] }
            defer { s.progressStreams.removeAll() }
            return Array(s.progressStreams.values)
        }
        for c in progress { c.finish() }
    }

    func publish(_ progress: DownloadProgress) {
        locked.withLock { s in
            guard s.state == .opening else { return }
            s.openingProgress.append(progress)
            for c in s.progressStreams.values { c.yield(progress) }
        }
    }

    private static func openResult(_ s: State) -> Result<Void, ODataStoreError> {
        switch s.state {
        case .opening: .success(())  // not used
        case .open: .success(())
        case .failed: .failure(s.error ?? ODataStoreError(.error, "the store could not be opened"))
        case .closing, .closed: .failure(ODataStoreError(.closed, "the store is closed"))
        }
    }

    private func newID() -> Int {
        locked.withLock { s in
            s.nextID += 1
            return s.nextID
        }
    }

    var current: (StoreState, ODataStoreError?) { locked.withLock { ($0.state, $0.error) } }

    /// The current state, then every change; finishes after `.closed`.
    func states() -> AsyncStream<StoreState> {
        let (stream, continuation) = AsyncStream<StoreState>.makeStream(bufferingPolicy: .unbounded)
        let id = newID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.locked.withLock { $0.stateStreams.removeValue(forKey: id) }
        }
        let registered = locked.withLock { s -> Bool in
            continuation.yield(s.state)
            guard s.state != .closed else { return false }
            s.stateStreams[id] = continuation
            return true
        }
        if !registered { continuation.finish() }
        return stream
    }

    /// The download progress of the opening: the reports so far, then the rest; finishes when
    /// the store leaves `.opening`.
    func openingProgress() -> AsyncStream<DownloadProgress> {
        let (stream, continuation) = AsyncStream<DownloadProgress>.makeStream(bufferingPolicy: .unbounded)
        let id = newID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.locked.withLock { $0.progressStreams.removeValue(forKey: id) }
        }
        let registered = locked.withLock { s -> Bool in
            for p in s.openingProgress { continuation.yield(p) }
            guard s.state == .opening else { return false }
            s.progressStreams[id] = continuation
            return true
        }
        if !registered { continuation.finish() }
        return stream
    }

    /// Waits until the store is open; throws its open error, `.closed`, or `.cancelled` when
    /// the task is cancelled (the store goes on opening).
    func waitUntilOpen() async throws(ODataStoreError) {
        let id = newID()
        let result: Result<Void, ODataStoreError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Result<Void, ODataStoreError>, Never>) in
                let immediate = locked.withLock { s -> Result<Void, ODataStoreError>? in
                    if s.state != .opening { return Self.openResult(s) }
                    if Task.isCancelled { return .failure(.cancelledByTask) }
                    s.waiters[id] = c
                    return nil
                }
                if let immediate { c.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = locked.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: .failure(.cancelledByTask))
        }
        try result.get()
    }
}

extension ODataStoreError {
    /// What the async API throws when its task is cancelled.
    static let cancelledByTask = ODataStoreError(.cancelled, "the task was cancelled")
}
