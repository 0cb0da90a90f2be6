/// A thread that runs jobs one at a time, in the order they were queued (the offline store
/// keeps its SQLite connection on one: GRDB's model of one connection per serial queue).
///
/// Threading: `async` and `sync` may be called from any thread; `sync` from a job of the same
/// queue runs the body at once (no deadlock). `close` lets the queued jobs run, refuses new
/// ones and joins the thread; called from a job of the queue it cannot join and returns after
/// refusing new jobs (the thread ends after the current job).
final class SerialQueue: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    private let cond = ConditionLock()
    // Guarded by `cond` (never accessed concurrently).
    @exclusivity(unchecked) private var jobs: [Job] = []
    @exclusivity(unchecked) private var accepting = true
    private var thread: JoinableThread?
    /// Runs after each batch of jobs (`setAfterBatch`).
    private let afterBatch = Locked<Job?>(nil)

    init(name: String) throws(ODataStoreError) {
        do {
            thread = try JoinableThread { [unowned self] in self.runLoop() }
        } catch {
            throw ODataStoreError(.noMemory, "cannot start the \(name) thread: \(error)")
        }
    }

    deinit {
        close()
    }

    private func runLoop() {
        while true {
            cond.lock()
            while jobs.isEmpty && accepting { cond.wait() }
            if jobs.isEmpty {
                cond.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            cond.unlock()
            for job in batch { job() }
            if let hook = afterBatch.withLock({ $0 }) { hook() }
        }
    }

    /// Sets a job run on the queue's thread after every batch of jobs (the offline store's
    /// change observers: `ChangeLog`).
    func setAfterBatch(_ job: Job?) { afterBatch.withLock { $0 = job } }

    /// True on the queue's own thread.
    var isCurrent: Bool { thread?.isCurrent ?? false }

    /// Queues `job`; false (and the job is dropped) once the queue is closed.
    @discardableResult
    func async(_ job: @escaping Job) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        guard accepting else { return false }
        jobs.append(job)
        cond.signal()
        return true
    }

    /// Runs `body` on the queue and returns its result; throws `.closed` when the queue is closed.
    func sync<T>(_ body: @escaping () throws(ODataStoreError) -> T) throws(ODataStoreError) -> T {
        if isCurrent { return try body() }
        let done = ConditionLock()
        let box = UncheckedSendable(body)
        let result = UncheckedSendable<Result<T, ODataStoreError>?>(nil)
        let queued = async {
            let r: Result<T, ODataStoreError>
            do throws(ODataStoreError) { r = .success(try box.value()) } catch { r = .failure(error) }
            done.withLock {
                result.value = r
                done.broadcast()
            }
        }
        guard queued else { throw ODataStoreError(.closed, "the store is closed") }
        let r: Result<T, ODataStoreError> = done.withLock {
            while result.value == nil { done.wait() }
            return result.value!
        }
        return try r.get()
    }

    /// Lets queued jobs run, refuses new ones and joins the thread. Idempotent.
    func close() {
        cond.withLock {
            accepting = false
            cond.signal()
        }
        thread?.join()
    }
}

/// A value moved between threads whose safety the code around it guarantees (it is only
/// touched on one thread at a time, as the comment at each use says).
final class UncheckedSendable<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}
