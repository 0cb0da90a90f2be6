import Glibc

/// A pthread mutex with one condition variable, for producer/consumer hand-offs that
/// `Mutex` alone cannot express (waiting with a timeout). The clock is CLOCK_MONOTONIC.
///
/// Threading: all methods are thread-safe; `wait` must be called with the lock held.
final class ConditionLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        cond = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits for a signal; the lock must be held.
    func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits until `deadline` (a `MonotonicClock` reading in nanoseconds); returns false on timeout.
    func wait(untilNanoseconds deadline: UInt64) -> Bool {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(cond, mutex, &ts) != ETIMEDOUT
    }

    func signal() { pthread_cond_signal(cond) }
    func broadcast() { pthread_cond_broadcast(cond) }
}

/// CLOCK_MONOTONIC in nanoseconds.
enum MonotonicClock {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// `ms` from now; saturates (a caller's "wait forever" such as LONG_MAX milliseconds is
    /// the end of the clock, never an overflow trap).
    static func deadline(afterMilliseconds ms: Int) -> UInt64 {
        let (nanoseconds, o1) = UInt64(max(ms, 0)).multipliedReportingOverflow(by: 1_000_000)
        let (deadline, o2) = now().addingReportingOverflow(nanoseconds)
        return o1 || o2 ? UInt64.max : deadline
    }
}
