import Glibc
import Synchronization
import Testing
@testable import ODataStore

@Suite("Callback delivery", .timeLimit(.minutes(1)))
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

    /// Producers on several threads, half of them inside `DeferredWakeups.deferring` (as the
    /// transport thread is), while the consumer keeps going to sleep: every callback arrives
    /// exactly once and nothing waits for a wake-up that never comes (a lost wake-up hangs
    /// the consumer until the suite's time limit).
    @Test(arguments: [DispatchMode.thread, .queue])
    func burstsFromManyThreadsAllArrive(mode: DispatchMode) throws {
        let queue = try CallbackQueue(mode: mode, name: "test")
        let producers = 4, bursts = 200, perBurst = 5
        let total = producers * bursts * perBurst
        let counts = Mutex([Int](repeating: 0, count: total))
        let delivered = DeliveryCounter(producers: producers)
        let timedOut = Mutex(false)
        var threads: [JoinableThread] = []
        for p in 0..<producers {
            threads.append(try JoinableThread {
                for b in 0..<bursts {
                    let enqueueBurst = {
                        for k in 0..<perBurst {
                            let index = (p * bursts + b) * perBurst + k
                            queue.enqueue {
                                counts.withLock { $0[index] += 1 }
                                delivered.record(producer: p)
                            }
                        }
                    }
                    if p % 2 == 0 { DeferredWakeups.deferring(enqueueBurst) } else { enqueueBurst() }
                    // Now and then wait until the consumer has run everything this producer
                    // queued, so it goes back to sleep and the next burst must wake it.
                    if b % 16 == 0, !delivered.wait(producer: p, count: (b + 1) * perBurst, milliseconds: 10_000) {
                        timedOut.withLock { $0 = true }
                    }
                }
            })
        }
        if mode == .queue {
            var done = 0
            while done < total { done += try queue.dispatch(timeoutMilliseconds: -1) }
        }
        for thread in threads { thread.join() }
        queue.shutdown()
        #expect(!timedOut.withLock { $0 }, "a burst was not delivered within 10 s")
        #expect(counts.withLock { $0 }.allSatisfy { $0 == 1 })
    }

    /// A producer that yields (`YieldingProducer`, as the transport thread does) is in
    /// SCHED_BATCH while the callback thread runs its callbacks; a callback that blocks until
    /// the producer does more work (as one waiting for the request it just started) still
    /// gets it (nothing waits for the batch); a batch that ends while the producer sleeps and
    /// nobody woke it makes it an ordinary thread again.
    @Test func producerYieldsWhileItsCallbacksRun() throws {
        #if os(Linux)
        guard sched_getscheduler(0) == 0 else { return }  // the test itself runs in another class
        let queue = try CallbackQueue(mode: .thread, name: "test")
        let seen = Mutex<[Int32?]>([])
        let started = DeliveryCounter(producers: 1)
        let answered = DeliveryCounter(producers: 1)
        let done = DeliveryCounter(producers: 1)
        let marker = DeliveryCounter(producers: 1)
        let timedOut = Mutex(false)
        let after = Mutex<Int32?>(nil)
        let retired = Mutex<Int32?>(7)
        let producerThread = try JoinableThread {
            guard let producer = YieldingProducer.forCurrentThread() else { return }
            DeferredWakeups.deferring(producer: producer) {
                queue.enqueue { seen.withLock { $0.append(producer.currentPolicy) } }
                queue.enqueue {
                    started.record(producer: 0)
                    // Blocks until the producer has run again (SCHED_BATCH does not stop it).
                    if !answered.wait(producer: 0, count: 1, milliseconds: 10_000) { timedOut.withLock { $0 = true } }
                    seen.withLock { $0.append(producer.currentPolicy) }
                }
            }
            if !started.wait(producer: 0, count: 1, milliseconds: 10_000) { timedOut.withLock { $0 = true } }
            answered.record(producer: 0)
            // As the transport before poll(): asleep, and nobody wakes it.
            producer.willSleep()
            DeferredWakeups.deferring(producer: producer) {
                queue.enqueue {
                    seen.withLock { $0.append(producer.currentPolicy) }
                    done.record(producer: 0)
                }
            }
            if !done.wait(producer: 0, count: 1, milliseconds: 10_000) { timedOut.withLock { $0 = true } }
            // The batch's end (just after that callback) restores SCHED_OTHER. A callback queued
            // now, outside `deferring`, runs in the next batch, so once it has run the batch
            // before it has ended.
            queue.enqueue { marker.record(producer: 0) }
            if !marker.wait(producer: 0, count: 1, milliseconds: 10_000) { timedOut.withLock { $0 = true } }
            after.withLock { $0 = producer.currentPolicy }
            producer.didWake()
            producer.retire()
            retired.withLock { $0 = producer.currentPolicy }
        }
        producerThread.join()
        queue.shutdown()
        #expect(!timedOut.withLock { $0 }, "a callback or the producer waited 10 s")
        #expect(seen.withLock { $0 } == [3, 3, 3])  // SCHED_BATCH during its callbacks
        #expect(after.withLock { $0 } == 0)  // SCHED_OTHER after them
        #expect(retired.withLock { $0 } == nil)
        #endif
    }

    private func readable(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 0) == 1
    }
}

/// Callbacks delivered per producer, with a bounded wait for a producer's count.
private final class DeliveryCounter: @unchecked Sendable {
    private let cond = ConditionLock()
    private var counts: [Int]  // guarded by `cond`

    init(producers: Int) { counts = Array(repeating: 0, count: producers) }

    func record(producer: Int) {
        cond.withLock {
            counts[producer] += 1
            cond.broadcast()
        }
    }

    /// Waits until `producer` has `count` callbacks delivered; false after `milliseconds`.
    func wait(producer: Int, count: Int, milliseconds: Int) -> Bool {
        let deadline = MonotonicClock.deadline(afterMilliseconds: milliseconds)
        return cond.withLock {
            while counts[producer] < count {
                if !cond.wait(untilNanoseconds: deadline) { return counts[producer] >= count }
            }
            return true
        }
    }
}
