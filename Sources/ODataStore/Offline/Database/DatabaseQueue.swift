import CSQLite

/// One SQLite connection on its own serial thread: every use of the connection is a job run
/// there, one at a time, in order (GRDB's `DatabaseQueue` model, on a pthread instead of a
/// dispatch queue).
///
/// Threading: `async` and `sync` may be called from any thread. `sync` called from a job of
/// the same queue runs the work at once (no deadlock). `close` runs what is queued, closes
/// the connection on the queue's thread and joins it; later jobs are refused.
final class DatabaseQueue: @unchecked Sendable {
    typealias Job = (SQLiteConnection) -> Void

    private let cond = ConditionLock()
    // Guarded by `cond`.
    private var jobs: [Job] = []
    private var head = 0
    private var accepting = true
    private var thread: JoinableThread?
    /// Set once on the queue's thread before any job runs; read only there.
    private var connection: SQLiteConnection?
    private let interruptible: Locked<OpaquePointer?> = Locked(nil)

    /// Opens the connection on a new thread; throws what opening threw.
    init(open: @escaping @Sendable () throws(SQLiteError) -> SQLiteConnection) throws(ODataStoreError) {
        let opened = Locked<Result<Void, SQLiteError>?>(nil)
        let ready = ConditionLock()
        do {
            thread = try JoinableThread { [unowned self] in
                let result: Result<Void, SQLiteError>
                do throws(SQLiteError) {
                    let c = try open()
                    self.connection = c
                    self.interruptible.withLock { $0 = c.handle }
                    result = .success(())
                } catch {
                    result = .failure(error)
                }
                ready.withLock {
                    opened.withLock { $0 = result }
                    ready.broadcast()
                }
                if case .success = result { self.runLoop() }
            }
        } catch {
            throw ODataStoreError(.noMemory, "cannot start the database thread: \(error)")
        }
        let result: Result<Void, SQLiteError> = ready.withLock {
            while true {
                if let r = opened.withLock({ $0 }) { return r }
                ready.wait()
            }
        }
        if case .failure(let error) = result {
            thread?.join()
            thread = nil
            accepting = false
            throw error.storeError("cannot open the store file")
        }
    }

    deinit {
        close()
    }

    private func runLoop() {
        while true {
            cond.lock()
            while head == jobs.count && accepting { cond.wait() }
            if head == jobs.count {
                cond.unlock()
                break
            }
            let batch = Array(jobs[head...])
            jobs.removeAll(keepingCapacity: true)
            head = 0
            cond.unlock()
            for job in batch {
                guard let c = connection else { break }
                job(c)
            }
        }
        interruptible.withLock { $0 = nil }
        connection = nil  // closes the database on this thread
    }

    /// True on the queue's own thread.
    var isCurrent: Bool { thread?.isCurrent ?? false }

    /// Queues `job`; false when the queue is closed (the job is dropped).
    @discardableResult
    func async(_ job: @escaping Job) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        guard accepting else { return false }
        jobs.append(job)
        cond.signal()
        return true
    }

    /// Runs `body` on the queue and waits for its result.
    func sync<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        if isCurrent, let c = connection { return try body(c) }
        return try withoutActuallyEscaping(body) { escapable in
            let done = ConditionLock()
            var result: Result<T, any Error>?
            let box = UncheckedBox(escapable)
            let queued = async { c in
                let r = Result { try box.value(c) }
                done.withLock {
                    result = r
                    done.broadcast()
                }
            }
            guard queued else { throw ODataStoreError(.closed, "the store is closed") }
            return try done.withLock { () throws -> T in
                while result == nil { done.wait() }
                return try result!.get()
            }
        }
    }

    /// Makes the statement running now fail with SQLITE_INTERRUPT (from any thread).
    func interrupt() {
        interruptible.withLock { h in
            if let h { sqlite3_interrupt(h) }
        }
    }

    /// Runs what is queued, closes the connection and joins the thread. Idempotent.
    func close() {
        cond.withLock {
            accepting = false
            cond.signal()
        }
        thread?.join()
    }
}

private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
