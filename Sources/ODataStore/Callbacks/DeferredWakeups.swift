import Glibc

/// Lets a thread that produces a burst of callbacks wake their consumers once, after the
/// burst, instead of once per callback while it may still hold locks.
///
/// The transport thread completes every exchange libcurl finished in one round inside
/// `deferring`: the store queues each request's callbacks under its table lock, and waking
/// the callback thread there made it run (on a shared CPU it preempts the transport thread)
/// straight into that lock, then again for the next completion. Inside `deferring` a
/// `CallbackQueue` records that it has a sleeping consumer to wake instead of waking it;
/// `deferring` wakes every recorded queue when `body` returns, with no lock held. Nothing is
/// delivered later than the end of the burst, and nothing is reordered: callbacks are queued
/// at once, only the wake-up waits.
///
/// The producing thread may also name itself a `YieldingProducer`: the queues then note it
/// with the callbacks, and their consumer yields the CPU to them while it runs them.
///
/// A producer that says it may run callbacks (`runsCallbacks`, the transport thread) runs
/// the batch of a `.threadInline` queue itself at the end of the burst when that queue's
/// callback thread is idle, instead of waking it (`CallbackQueue.burstEnded`). Queues in
/// other modes are woken as before.
///
/// Threading: the state is per thread (a pthread key); other threads are not affected.
enum DeferredWakeups {
    /// The queues to wake when the current thread's `deferring` ends; nil outside it.
    final class Pending {
        var queues: [CallbackQueue] = []
        /// The thread deferring, when it yields to the consumers of its callbacks.
        let producer: YieldingProducer?
        /// The thread deferring may run the callbacks of `.threadInline` queues at the end.
        let runsCallbacks: Bool

        init(producer: YieldingProducer?, runsCallbacks: Bool) {
            self.producer = producer
            self.runsCallbacks = runsCallbacks
        }

        /// Records `queue` for waking when `deferring` ends.
        func add(_ queue: CallbackQueue) {
            if !queues.contains(where: { $0 === queue }) { queues.append(queue) }
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // A thread never exits inside `deferring`, so there is nothing to destroy.
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body`; wake-ups that callback queues would make meanwhile happen when it returns.
    /// Nested calls defer to the outermost one. `producer`: the calling thread, when its
    /// callbacks' consumers should let it yield to them (see `YieldingProducer`).
    /// `runsCallbacks`: the calling thread may run a `.threadInline` queue's callbacks when
    /// `body` returns (after the outermost `deferring` has ended, no lock held), so it must
    /// not hold locks or be inside anything the callbacks could wait for.
    static func deferring<R>(producer: YieldingProducer? = nil, runsCallbacks: Bool = false, _ body: () -> R) -> R {
        let key = Self.key
        if pthread_getspecific(key) != nil { return body() }
        let pending = Pending(producer: producer, runsCallbacks: runsCallbacks)
        let pointer = Unmanaged.passRetained(pending)
        pthread_setspecific(key, pointer.toOpaque())
        let result = body()
        pthread_setspecific(key, nil)
        pointer.release()
        for queue in pending.queues { queue.burstEnded(mayRun: pending.runsCallbacks) }
        return result
    }

    /// Records `queue` for waking at the end of the current `deferring`; false (the caller
    /// wakes now) when the calling thread is not deferring.
    static func record(_ queue: CallbackQueue) -> Bool {
        guard let pending = current else { return false }
        pending.add(queue)
        return true
    }

    /// The queues the calling thread ran inline batches of (`noteInlineRun`), retained until
    /// `threadEnding`; a pthread key of its own, outside `deferring`'s state.
    private static let inlineKey: pthread_key_t = {
        var key = pthread_key_t()
        // The producer calls `threadEnding` before it exits; a thread that does not leaks nothing
        // but the list (the key has no destructor: it would run after Swift's runtime state).
        pthread_key_create(&key, nil)
        return key
    }()

    private final class InlineQueues {
        var queues: [CallbackQueue] = []
    }

    /// Records that the calling thread runs a batch of `queue` (`CallbackQueue.burstEnded`).
    static func noteInlineRun(_ queue: CallbackQueue) {
        let list: InlineQueues
        if let raw = pthread_getspecific(inlineKey) {
            list = Unmanaged<InlineQueues>.fromOpaque(raw).takeUnretainedValue()
        } else {
            list = InlineQueues()
            pthread_setspecific(inlineKey, Unmanaged.passRetained(list).toOpaque())
        }
        if !list.queues.contains(where: { $0 === queue }) { list.queues.append(queue) }
    }

    /// The calling thread (a producer that may run callbacks) is about to end: each queue it ran
    /// batches of runs its thread-end handler here (`CallbackQueue.producerThreadEnding`).
    static func threadEnding() {
        guard let raw = pthread_getspecific(inlineKey) else { return }
        pthread_setspecific(inlineKey, nil)
        let list = Unmanaged<InlineQueues>.fromOpaque(raw).takeRetainedValue()
        for queue in list.queues { queue.producerThreadEnding() }
    }

    /// The calling thread's `deferring` state; nil outside it.
    static var current: Pending? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<Pending>.fromOpaque(raw).takeUnretainedValue()
    }
}
