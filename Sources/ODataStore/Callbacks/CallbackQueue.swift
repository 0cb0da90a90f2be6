import Glibc
import Synchronization

/// Delivers a store's callbacks one at a time, in the order they were enqueued, either on
/// its own thread (`.thread`) or on whichever thread calls `dispatch` (`.queue`).
///
/// Threading: `enqueue` may be called from any thread and never runs the callback itself.
/// Callbacks run without any internal lock held. A sleeping consumer is woken once per burst
/// of callbacks, after the queue's lock is released (inside `DeferredWakeups.deferring`:
/// when the burst ends), so it never wakes up only to block on a lock the producer holds. `shutdown` delivers what is still queued
/// and then refuses further work; it must not be called from a callback (check
/// `isDeliveringOnCurrentThread` first).
final class CallbackQueue: @unchecked Sendable {
    typealias Callback = @Sendable () -> Void

    let mode: DispatchMode
    private let cond = ConditionLock()
    // Guarded by `cond` (so never accessed concurrently: no dynamic exclusivity checks).
    @exclusivity(unchecked) private var items: [Callback] = []
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var accepting = true
    @exclusivity(unchecked) private var dispatcherActive = false
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
        let wake = waiting > 0 && !wakePending
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
    /// the calling thread in queue mode) and, in thread mode, joins the callback thread.
    func shutdown() {
        cond.lock()
        accepting = false
        cond.broadcast()
        if mode == .thread {
            cond.unlock()
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
        while true {
            cond.lock()
            while accepting && head == items.count { _ = waitLocked(until: nil) }
            if head == 0 {
                swap(&batch, &items)
                event?.lower()
            } else {
                batch = takeAllLocked()
            }
            let done = !accepting && batch.isEmpty
            let yieldingProducer = producer
            producer = nil
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
