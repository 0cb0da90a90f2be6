#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Why a thread could not be started.
public struct ThreadStartError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public var description: String { "pthread_create failed with error \(code)" }
}

/// A POSIX thread that runs one closure and is joined (or detached) exactly once.
///
/// The thread blocks all asynchronous signals, so that the host's signal handling (SIGINT,
/// SIGTERM, SIGCHLD, ...) stays on the host's own threads.
///
/// Threading: `join()` may be called from any thread and any number of times; the first
/// call joins and later calls return once that join has finished. Called on the thread
/// itself, `join()` cannot wait for it: it detaches the thread (its resources are freed when
/// the closure returns) and returns at once.
final class JoinableThread: Sendable {
    private let thread: pthread_t
    /// true once joined or detached. Held while joining, so a concurrent second `join()`
    /// waits for the first one.
    private let finished = Locked<Bool>(false)

    /// Starts a thread running `body`.
    init(body: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        let start = ThreadStart(body: body)
        let context = Unmanaged.passRetained(start).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let start = Unmanaged<ThreadStart>.fromOpaque(raw).takeRetainedValue()
            var signals = sigset_t()
            sigfillset(&signals)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            start.body()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(context).release()
            throw ThreadStartError(code: rc)
        }
        self.thread = thread
    }

    /// True when called on this thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Lets the thread end on its own without waiting for it (its resources are freed when
    /// the closure returns); later `join()` calls return at once.
    func detach() {
        finished.withLock { done in
            if done { return }
            done = true
            pthread_detach(thread)
        }
    }

    /// Waits until the thread has exited (see the type's comment for the rules).
    func join() {
        finished.withLock { done in
            if done { return }
            done = true
            if isCurrent {
                pthread_detach(thread)
            } else {
                pthread_join(thread, nil)
            }
        }
    }
}

private final class ThreadStart {
    let body: @Sendable () -> Void

    init(body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}
