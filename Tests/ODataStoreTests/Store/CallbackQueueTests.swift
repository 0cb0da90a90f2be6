import Glibc
import Synchronization
import Testing
@testable import ODataStore

@Suite("Callback delivery")
struct CallbackQueueTests {
    @Test func threadModeRunsCallbacksInOrderOnItsOwnThread() throws {
        let queue = try CallbackQueue(mode: .thread, name: "test")
        let seen = Mutex<[Int]>([])
        let threads = Mutex<Set<UInt>>([])
        for i in 0..<500 {
            queue.enqueue {
                seen.withLock { $0.append(i) }
                threads.withLock { _ = $0.insert(currentThreadID()) }
            }
        }
        queue.shutdown()  // delivers what is queued, then joins
        #expect(seen.withLock { $0 } == Array(0..<500))
        #expect(threads.withLock { $0.count } == 1)
        #expect(!threads.withLock { $0.contains(currentThreadID()) })
        #expect(!queue.enqueue {})  // refused after shutdown
    }

    @Test func queueModeWaitsForTheHostAndSignalsItsDescriptor() throws {
        let queue = try CallbackQueue(mode: .queue, name: "test")
        let fd = try #require(queue.fileDescriptor)
        #expect(!readable(fd))
        let ran = Mutex(0)
        queue.enqueue { ran.withLock { $0 += 1 } }
        queue.enqueue { ran.withLock { $0 += 1 } }
        #expect(readable(fd))
        #expect(ran.withLock { $0 } == 0)
        #expect(try queue.dispatch(timeoutMilliseconds: 0) == 2)
        #expect(ran.withLock { $0 } == 2)
        #expect(!readable(fd))
        #expect(try queue.dispatch(timeoutMilliseconds: 0) == 0)

        // A callback that dispatches again is refused instead of re-entering.
        let nested = Mutex<ODataStoreError?>(nil)
        queue.enqueue {
            do { _ = try queue.dispatch(timeoutMilliseconds: 0) } catch { nested.withLock { $0 = error as? ODataStoreError } }
        }
        _ = try queue.dispatch(timeoutMilliseconds: 0)
        #expect(nested.withLock { $0 }?.code == .invalidState)

        queue.enqueue { ran.withLock { $0 += 10 } }
        queue.shutdown()  // runs what is left on this thread
        #expect(ran.withLock { $0 } == 12)
        #expect(throws: ODataStoreError.self) { _ = try queue.dispatch(timeoutMilliseconds: 0) }
    }

    @Test func threadModeRefusesDispatch() throws {
        let queue = try CallbackQueue(mode: .thread, name: "test")
        defer { queue.shutdown() }
        #expect(queue.fileDescriptor == nil)
        #expect(throws: ODataStoreError.self) { _ = try queue.dispatch(timeoutMilliseconds: 0) }
    }

    private func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }
}
