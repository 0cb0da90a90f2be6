import Glibc

/// A thread that produces callbacks (the transport thread) and yields the CPU to the thread
/// that runs them: while a batch of its callbacks runs, the producer is in Linux's
/// SCHED_BATCH class, and it goes back to SCHED_OTHER once a batch ends while it sleeps and
/// nobody has woken it (the callbacks started no new work).
///
/// Why: a callback that starts the next request wakes the producer (a send). A woken
/// SCHED_OTHER thread preempts the running one at once, so with both threads on one busy CPU
/// every such callback was interrupted in its middle, and the producer slept twice per
/// request. A SCHED_BATCH thread keeps its fair share but its wake-ups do not preempt: it
/// runs when the consumer's batch ends, when the consumer blocks (a callback waiting for the
/// request it just started: the wake-up itself is never deferred, so nothing can deadlock),
/// on an idle CPU, or at the end of the time slice, and it then handles every send and every
/// answer of the meantime in one pass. While callbacks keep starting requests the producer
/// stays in SCHED_BATCH between batches too (that is where the passes get several answers);
/// when a batch ends with the producer asleep and not woken, it is an ordinary thread again,
/// so a thread that sends a request and waits for it (a synchronous read) is served as
/// promptly as before, even on a CPU shared with other processes.
///
/// The class changes only while the producer sleeps or when nothing waits for it: changing
/// it while the producer is runnable makes the kernel preempt the thread that changes it.
///
/// Threading: made on the producer's thread (it records that thread's id); `beginYielding`
/// and `endYielding` are called by consumers, `willSleep`, `didWake` and `retire` by the
/// producer (`retire` before it exits: the thread id may then be reused and is not touched
/// again), `noteWoken` by whoever wakes the producer. All under one lock.
final class YieldingProducer: @unchecked Sendable {
    private let tid: pid_t
    private let lock = ConditionLock()
    // Guarded by `lock`.
    @exclusivity(unchecked) private var alive = true
    @exclusivity(unchecked) private var yielding = 0
    @exclusivity(unchecked) private var batch = false
    /// The producer is about to sleep or sleeps (between `willSleep` and `didWake`).
    @exclusivity(unchecked) private var asleep = false
    /// Someone woke the producer since it last went to sleep.
    @exclusivity(unchecked) private var woken = false

    private static let schedOther: Int32 = 0
    private static let schedBatch: Int32 = 3  // SCHED_BATCH of <sched.h> (a _GNU_SOURCE name Swift does not import)

    /// For the calling thread; nil off Linux or when the thread is not in SCHED_OTHER (its
    /// class was chosen by someone else: it is left alone).
    static func forCurrentThread() -> YieldingProducer? {
        #if os(Linux)
        guard sched_getscheduler(0) == schedOther else { return nil }
        guard let tid = currentKernelThreadID() else { return nil }
        return YieldingProducer(tid: tid)
        #else
        return nil
        #endif
    }

    /// The calling thread's kernel id, gettid(2), read from the /proc/thread-self link
    /// ("<pid>/task/<tid>"): Swift imports neither gettid nor the variadic syscall().
    private static func currentKernelThreadID() -> pid_t? {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let last = link.split(separator: "/").last, let tid = pid_t(last), tid > 0 else { return nil }
        return tid
    }

    private init(tid: pid_t) {
        self.tid = tid
    }

    /// The consumer starts running callbacks of this producer.
    func beginYielding() {
        lock.withLock {
            yielding += 1
            if !batch && alive { setPolicy(Self.schedBatch) }
        }
    }

    /// The consumer has run them (balanced with `beginYielding`).
    func endYielding() {
        lock.withLock {
            yielding -= 1
            if yielding == 0, batch, alive, asleep, !woken { setPolicy(Self.schedOther) }
        }
    }

    /// The producer is about to sleep (poll); a batch that ends before anyone wakes it makes it
    /// an ordinary thread again.
    func willSleep() {
        lock.withLock {
            asleep = true
            woken = false
        }
    }

    /// The producer has woken up.
    func didWake() {
        lock.withLock { asleep = false }
    }

    /// Another thread has just woken the producer (or is about to).
    func noteWoken() {
        lock.withLock { woken = true }
    }

    /// The producer thread is about to exit: its id is not used again.
    func retire() {
        lock.withLock {
            if batch { setPolicy(Self.schedOther) }  // leaves the thread as it found it
            alive = false
        }
    }

    /// The producer's scheduling policy now (for tests): SCHED_OTHER 0, SCHED_BATCH 3; nil
    /// once retired.
    var currentPolicy: Int32? {
        lock.withLock { alive ? sched_getscheduler(tid) : nil }
    }

    /// Lock held.
    private func setPolicy(_ policy: Int32) {
        var parameters = sched_param()
        parameters.sched_priority = 0  // the only priority of SCHED_OTHER and SCHED_BATCH
        if sched_setscheduler(tid, policy, &parameters) == 0 {  // a failure leaves the thread as it was
            batch = policy == Self.schedBatch
        }
    }
}
