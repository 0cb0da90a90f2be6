import Glibc
import Synchronization

/// Delivers a store's callbacks one at a time, in the order they were enqueued, either on
/// its own thread (`.thread`), or on whichever thread calls `dispatch` (`.queue`), or on its
/// own thread and on the producer that ends a burst while that thread is idle (`.threadInline`,
/// see `burstEnded`).
///
/// Threading: `enqueue` may be called from any thread and never runs the callback itself.
/// Callbacks run without any internal lock held. A sleeping consumer is woken once per burst
/// of callbacks, after the queue's lock is released (inside `DeferredWakeups.deferring`:
/// when the burst ends), so it never wakes up only to block on a lock the producer holds. `shutdown` delivers what is still queued
/// and then refuses further work; it must not be called from a callback (check
/// `isDeliveringOnCurrentThread` first), except when a store is dropped inside one (it then
/// does not wait: see `shutdown`).
final class CallbackQueue: @unchecked Sendable {
    typealias Callback = @Sendable () -> Void

    let mode: DispatchMode
    private let cond = ConditionLock()
    // Guarded by `cond` (so never accessed concurrently: no dynamic exclusivity checks).
    @exclusivity(unchecked) private var items: [Callback] = []
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var accepting = true
    /// A thread is running a batch: a `dispatch` caller (queue mode), or in `.threadInline` mode
    /// the callback thread or a producer in `burstEnded`. Whoever set it owns `spare`.
    @exclusivity(unchecked) private var dispatcherActive = false
    /// The buffer a producer runs an inline batch from (`.threadInline`), swapped with `items`
    /// so that batches reuse their capacity. Owned by whoever set `dispatcherActive`.
    @exclusivity(unchecked) private var spare: [Callback] = []
    /// Producers waiting for `dispatcherActive` to clear (`producerThreadEnding`).
    @exclusivity(unchecked) private var exclusiveWaiters = 0
    /// `.threadInline`: run on a producer thread that ran batches of this queue, just before
    /// that thread ends (`producerThreadEnding`).
    @exclusivity(unchecked) private var threadEnd: Callback?
    /// Threads waiting in `cond` for callbacks (the callback thread, `dispatch` callers).
    @exclusivity(unchecked) private var waiting = 0
    /// A wake-up was sent (or deferred) since a waiter last woke: further enqueues need none.
    @exclusivity(unchecked) private var wakePending = false
    /// The producer (the transport thread) of callbacks queued since the callback thread last
    /// took a batch, when it yields to their consumer (`YieldingProducer`; thread mode).
    @exclusivity(unchecked) private var producer: YieldingProducer?
    private var thread: JoinableThread?
    private let event: ReadinessPipe?
    /// The thread currently running callbacks (0 when none); the callback thread in `.thread` mode.
    private let deliveringThread = Atomic<UInt>(0)

    init(mode: DispatchMode, name: String) throws(ODataStoreError) {
        self.mode = mode
        if mode == .queue {
            event = try ReadinessPipe()
        } else {
            event = nil
            // The thread holds the queue until its loop ends, so the queue can be released
            // from one of its own callbacks.
            do {
                thread = try JoinableThread { self.runLoop() }
            } catch {
                throw ODataStoreError(.noMemory, "cannot start the callback thread: \(error)")
            }
        }
    }

    /// The descriptor that is readable while callbacks wait (queue mode only).
    var fileDescriptor: Int32? { event?.readEnd }

    /// How many threads wait for callbacks now (for tests: the callback thread is idle).
    var idleConsumers: Int { cond.withLock { waiting } }

    /// True when the calling thread is running one of this queue's callbacks.
    var isDeliveringOnCurrentThread: Bool {
        deliveringThread.load(ordering: .acquiring) == currentThreadID()
    }

    /// Appends a callback. Returns false (and drops it) after `shutdown`.
    @discardableResult
    func enqueue(_ callback: @escaping Callback) -> Bool {
        let deferring = DeferredWakeups.current
        cond.lock()
        guard accepting else {
            cond.unlock()
            return false
        }
        let wasEmpty = head == items.count
        items.append(callback)
        if wasEmpty { event?.raise() }
        if mode == .thread, let yielding = deferring?.producer { producer = yielding }
        // `.threadInline`: while a producer runs a batch (`burstEnded`) the callback thread
        // waits for it to end, and the producer wakes it then if callbacks are left.
        let wake = waiting > 0 && !wakePending && !(mode == .threadInline && dispatcherActive)
        if wake { wakePending = true }
        cond.unlock()
        if wake {
            if let deferring { deferring.add(self) } else { wakeConsumers() }
        }
        return true
    }

    /// Wakes the threads waiting for callbacks (no lock needed: each waiter registered under
    /// the lock before it began to wait, so it cannot miss this).
    func wakeConsumers() {
        cond.broadcast()
    }

    /// Called by a producer at the end of a burst (`DeferredWakeups.deferring`) for a queue
    /// whose consumer it would wake. In `.threadInline` mode, with `mayRun` and the callback
    /// thread idle, the producer runs the queued callbacks itself (the callback thread stays
    /// asleep); otherwise this wakes the consumers.
    ///
    /// Why: when an answer's callback starts the next request, waking the callback thread
    /// costs the transport thread's wake-up for the answer, the callback thread's, and the
    /// transport's again for the send. Run on the transport, the callback's request lands in
    /// the transport's inbox while it is awake (no wake-up), and it is sent before the
    /// transport sleeps: one wake-up per answer.
    ///
    /// Serialization holds as on the callback thread: the batch is taken under the lock with
    /// `dispatcherActive` set, which keeps the callback thread waiting until it ends, and it
    /// runs with no lock held and `isDeliveringOnCurrentThread` true. Callbacks queued meanwhile
    /// stay queued, and the callback thread is woken for them when the batch ends.
    func burstEnded(mayRun: Bool) {
        guard mayRun, mode == .threadInline else {
            wakeConsumers()
            return
        }
        cond.lock()
        guard accepting, !dispatcherActive, head < items.count else {
            // The callback thread is running (it takes these when its batch ends), or the
            // queue is shutting down (the callback thread delivers what is left).
            cond.unlock()
            wakeConsumers()
            return
        }
        dispatcherActive = true
        wakePending = false  // consumed here: the next enqueue wakes the callback thread again
        if head == 0 {
            swap(&spare, &items)
        } else {
            spare = takeAllLocked()
        }
        cond.unlock()
        DeferredWakeups.noteInlineRun(self)
        run(spare)
        spare.removeAll(keepingCapacity: true)  // the callbacks are released here, unlocked
        endExclusiveRun()
    }

    /// Ends a producer's exclusive run (`burstEnded`, `producerThreadEnding`): the callback
    /// thread is woken when callbacks wait or the queue is shutting down.
    private func endExclusiveRun() {
        cond.lock()
        dispatcherActive = false
        if exclusiveWaiters > 0 { cond.broadcast() }
        let wake = waiting > 0 && (head < items.count || !accepting)
        if wake { wakePending = true }
        cond.unlock()
        if wake { wakeConsumers() }
    }

    /// `.threadInline`: sets what runs on a producer thread that ran batches of this queue, just
    /// before it ends (`ods_store_set_thread_end`); nil removes it.
    func setThreadEndHandler(_ handler: Callback?) {
        cond.withLock { threadEnd = handler }
    }

    /// Called (through `DeferredWakeups.threadEnding`) by a producer thread that ran batches of
    /// this queue, just before it ends: runs the thread-end handler there, as a callback (never
    /// at the same time as one: it waits for a batch the callback thread is running to end).
    func producerThreadEnding() {
        cond.lock()
        guard mode == .threadInline, let handler = threadEnd else {
            cond.unlock()
            return
        }
        exclusiveWaiters += 1
        while dispatcherActive { cond.wait() }
        exclusiveWaiters -= 1
        dispatcherActive = true
        cond.unlock()
        run([handler])
        endExclusiveRun()
    }

    /// Waits for a wake-up; lock held. `deadline` nil waits without a time limit. Returns false
    /// on timeout.
    private func waitLocked(until deadline: UInt64?) -> Bool {
        waiting += 1
        let woken: Bool
        if let deadline {
            woken = cond.wait(untilNanoseconds: deadline)
        } else {
            cond.wait()
            woken = true
        }
        waiting -= 1
        wakePending = false
        return woken
    }

    /// Queue mode: waits up to `timeoutMilliseconds` (negative: forever) for a callback, then
    /// runs everything queued at that moment on the calling thread. Returns how many ran.
    func dispatch(timeoutMilliseconds: Int) throws(ODataStoreError) -> Int {
        try dispatch(timeoutMilliseconds: timeoutMilliseconds, until: { false })
    }

    /// `dispatch`, returning early (0) once `done` holds; `done` is checked under the lock
    /// each time the waiter wakes (a batch ended on another thread, or callbacks arrived).
    func dispatch(timeoutMilliseconds: Int, until done: () -> Bool) throws(ODataStoreError) -> Int {
        guard mode == .queue else {
            throw .state("ods_store_dispatch is for stores opened with ODS_DISPATCH_QUEUE")
        }
        if isDeliveringOnCurrentThread {
            throw .state("ods_store_dispatch called from a callback of the same store")
        }
        let deadline = timeoutMilliseconds >= 0 ? MonotonicClock.deadline(afterMilliseconds: timeoutMilliseconds) : nil
        cond.lock()
        while accepting && (dispatcherActive || head == items.count) {
            if done() { break }
            if !waitLocked(until: deadline) { break }
        }
        guard accepting else {
            cond.unlock()
            throw ODataStoreError(.closed, "the store is closed")
        }
        if dispatcherActive || head == items.count {
            cond.unlock()
            return 0
        }
        dispatcherActive = true
        let batch = takeAllLocked()
        cond.unlock()
        run(batch)
        cond.withLock {
            dispatcherActive = false
            cond.broadcast()
        }
        return batch.count
    }

    /// Stops accepting callbacks, delivers those still queued (on the callback thread, or on
    /// the calling thread in queue mode) and, in thread modes, joins the callback thread.
    func shutdown() {
        cond.lock()
        accepting = false
        cond.broadcast()
        if mode != .queue {
            cond.unlock()
            if mode == .threadInline, isDeliveringOnCurrentThread {
                // A producer's inline batch (a store dropped in its callback): the callback
                // thread waits for this batch to end before it delivers the rest, so it
                // cannot be joined here. It ends on its own once the queue is empty.
                thread?.detach()
                return
            }
            // From one of its own callbacks this detaches: the loop ends after this batch.
            thread?.join()
            return
        }
        while dispatcherActive { cond.wait() }
        dispatcherActive = true
        cond.unlock()
        while true {
            let batch = cond.withLock { takeAllLocked() }
            if batch.isEmpty { break }
            run(batch)
        }
        cond.withLock {
            dispatcherActive = false
            cond.broadcast()
        }
    }

    private func runLoop() {
        // Two buffers swapped under the lock, so that queueing reuses the capacity of the
        // previous batch instead of allocating a new array for every batch.
        var batch: [Callback] = []
        let inline = mode == .threadInline
        while true {
            cond.lock()
            // `.threadInline`: the batch this thread ran has ended; a producer may run the next.
            if inline && dispatcherActive {
                dispatcherActive = false
                if exclusiveWaiters > 0 { cond.broadcast() }
            }
            // `dispatcherActive` (`.threadInline` only): a producer runs a batch; wait for its end
            // (also when shutting down: what it leaves is delivered after it).
            while dispatcherActive || (accepting && head == items.count) { _ = waitLocked(until: nil) }
            if head == 0 {
                swap(&batch, &items)
                event?.lower()
            } else {
                batch = takeAllLocked()
            }
            let done = !accepting && batch.isEmpty
            let yieldingProducer = producer
            producer = nil
            if inline && !done { dispatcherActive = true }  // producers wake this thread instead of running
            cond.unlock()
            if done { return }
            // The transport that queued these yields the CPU to them (`YieldingProducer`).
            yieldingProducer?.beginYielding()
            run(batch)
            yieldingProducer?.endYielding()
            batch.removeAll(keepingCapacity: true)  // the callbacks are released here, unlocked
        }
    }

    private func run(_ batch: [Callback]) {
        deliveringThread.store(currentThreadID(), ordering: .releasing)
        for callback in batch { callback() }
        deliveringThread.store(0, ordering: .releasing)
    }

    /// Removes and returns every queued callback; lowers the event. Lock held.
    private func takeAllLocked() -> [Callback] {
        guard head < items.count else { return [] }
        let batch = Array(items[head...])
        items.removeAll(keepingCapacity: true)
        head = 0
        event?.lower()
        return batch
    }
}

/// The calling thread's pthread id as a number, for "am I on that thread" checks.
func currentThreadID() -> UInt { UInt(pthread_self()) }
