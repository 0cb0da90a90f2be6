#if canImport(Glibc)
import Glibc
#endif

/// A value protected by a pthread mutex.
///
/// Why not `Synchronization.Mutex`: on Linux its futex-based lock is invisible to
/// ThreadSanitizer, so every TSan run reports races on correctly locked state (checked with
/// Swift 6.3.1: two threads appending under `Mutex.withLock` give "Swift access race" while
/// the result is right). pthread mutexes are intercepted by TSan, so code that uses `Locked`
/// can be checked with `--sanitize=thread`. The cost is one heap-allocated mutex per value.
///
/// Threading: `withLock` may be called from any thread; it is not reentrant (calling it again
/// from inside `body` on the same value deadlocks). Keep `body` short and never call out to
/// user code from it.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Accessed only under `mutex`, so never concurrently; a re-entrant `withLock` deadlocks
    /// on the mutex before any overlapping access could happen (no dynamic exclusivity checks).
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
