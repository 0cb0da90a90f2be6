import Glibc
import Synchronization
import Testing
@testable import ODataStore

/// (The time limits only catch a hang: Swift Testing counts them from a test's start, which on a
/// 2-core CI machine includes waiting behind the run's other tests; see MetadataFuzzTests.)
@Suite("Callback delivery", .timeLimit(.minutes(5)))
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
    @Test(arguments: [DispatchMode.thread, .queue, .threadInline])
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

/// `.threadInline`: a producer that may run callbacks (`DeferredWakeups.deferring(runsCallbacks:)`,
/// as the transport thread) runs the burst itself while the callback thread is idle, never
/// at the same time as the callback thread, in order.
@Suite("Inline callback delivery", .timeLimit(.minutes(5)))
struct InlineCallbackQueueTests {
    /// Waits (bounded) until the callback thread waits for work.
    private func waitUntilIdle(_ queue: CallbackQueue) -> Bool {
        let deadline = MonotonicClock.deadline(afterMilliseconds: 10_000)
        while queue.idleConsumers == 0 {
            if MonotonicClock.now() > deadline { return false }
            usleep(1000)
        }
        return true
    }

    private struct Seen: Sendable {
        var order: [Int] = []
        var threads: Set<UInt> = []
        var delivering: [Bool] = []
    }

    /// With the callback thread idle the burst runs on the producer before `deferring`
    /// returns, in order, marked as a delivery; without `runsCallbacks`, or in `.thread` mode,
    /// it runs on the callback thread.
    @Test(arguments: [(DispatchMode.threadInline, true), (.threadInline, false), (.thread, true)])
    func burstRunsOnTheProducerOnlyWhenAllowed(mode: DispatchMode, runsCallbacks: Bool) throws {
        let queue = try CallbackQueue(mode: mode, name: "test")
        #expect(waitUntilIdle(queue))
        let seen = Mutex(Seen())
        let ranBeforeReturn = Mutex(0)
        let deliveringAfter = Mutex(true)
        let producerThread = Mutex<UInt>(0)
        let delivered = DeliveryCounter(producers: 1)
        let producer = try JoinableThread {
            producerThread.withLock { $0 = currentThreadID() }
            DeferredWakeups.deferring(runsCallbacks: runsCallbacks) {
                for i in 0..<3 {
                    queue.enqueue {
                        seen.withLock {
                            $0.order.append(i)
                            $0.threads.insert(currentThreadID())
                            $0.delivering.append(queue.isDeliveringOnCurrentThread)
                        }
                        delivered.record(producer: 0)
                    }
                }
            }
            ranBeforeReturn.withLock { $0 = seen.withLock { $0.order.count } }
            deliveringAfter.withLock { $0 = queue.isDeliveringOnCurrentThread }
        }
        producer.join()
        #expect(delivered.wait(producer: 0, count: 3, milliseconds: 10_000))
        queue.shutdown()
        let s = seen.withLock { $0 }
        #expect(s.order == [0, 1, 2])
        #expect(s.delivering == [true, true, true])
        #expect(!deliveringAfter.withLock { $0 })
        #expect(s.threads.count == 1)
        let inline = mode == .threadInline && runsCallbacks
        #expect(s.threads.contains(producerThread.withLock { $0 }) == inline)
        if inline { #expect(ranBeforeReturn.withLock { $0 } == 3) }
    }

    /// Producers that run callbacks, producers that do not, and callbacks that queue more, all
    /// at once: never two callbacks at the same time, each producer's callbacks in order,
    /// every one exactly once, and some ran on producers and some on the callback thread.
    @Test func neverTwoAtOnceAndInOrder() throws {
        let queue = try CallbackQueue(mode: .threadInline, name: "test")
        let producers = 4, bursts = 300, perBurst = 3
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let last = Mutex([Int](repeating: -1, count: producers))
        let outOfOrder = Atomic<Int>(0)
        let followUps = Atomic<Int>(0)
        let delivered = DeliveryCounter(producers: producers + 1)
        var threads: [JoinableThread] = []
        for p in 0..<producers {
            threads.append(try JoinableThread {
                for b in 0..<bursts {
                    DeferredWakeups.deferring(runsCallbacks: p % 2 == 0) {
                        for k in 0..<perBurst {
                            let n = b * perBurst + k
                            queue.enqueue {
                                if inside.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                                    overlaps.add(1, ordering: .relaxed)
                                }
                                last.withLock {
                                    if $0[p] != n - 1 { outOfOrder.add(1, ordering: .relaxed) }
                                    $0[p] = n
                                }
                                if k == 0 {
                                    // As a callback that starts work whose callback comes later.
                                    queue.enqueue {
                                        followUps.add(1, ordering: .relaxed)
                                        delivered.record(producer: producers)
                                    }
                                }
                                inside.subtract(1, ordering: .sequentiallyConsistent)
                                delivered.record(producer: p)
                            }
                        }
                    }
                    if b % 32 == 0 { usleep(200) }  // lets the callback thread go idle now and then
                }
            })
        }
        for thread in threads { thread.join() }
        for p in 0..<producers { #expect(delivered.wait(producer: p, count: bursts * perBurst, milliseconds: 20_000)) }
        #expect(delivered.wait(producer: producers, count: producers * bursts, milliseconds: 20_000))
        queue.shutdown()
        #expect(overlaps.load(ordering: .relaxed) == 0)
        #expect(outOfOrder.load(ordering: .relaxed) == 0)
        #expect(followUps.load(ordering: .relaxed) == producers * bursts)
        #expect(!queue.enqueue {})
    }

    /// The thread-end handler runs on a producer that ran batches, once, when it calls
    /// `DeferredWakeups.threadEnding`, as a callback, and waits for a batch the callback thread
    /// is running; a thread that ran no batch does not run it.
    @Test func threadEndHandlerRunsOnceOnTheProducerAfterTheRunningBatch() throws {
        let queue = try CallbackQueue(mode: .threadInline, name: "test")
        #expect(waitUntilIdle(queue))
        let events = Mutex<[String]>([])
        let handlerThreads = Mutex<[UInt]>([])
        let handlerDelivering = Mutex(false)
        queue.setThreadEndHandler {
            events.withLock { $0.append("thread end") }
            handlerThreads.withLock { $0.append(currentThreadID()) }
            handlerDelivering.withLock { $0 = queue.isDeliveringOnCurrentThread }
        }
        let gate = DeliveryCounter(producers: 1)
        let blocking = DeliveryCounter(producers: 1)
        let producerThread = Mutex<UInt>(0)
        let ranInline = Mutex(false)
        let producer = try JoinableThread {
            producerThread.withLock { $0 = currentThreadID() }
            DeferredWakeups.deferring(runsCallbacks: true) {
                _ = queue.enqueue { events.withLock { $0.append("inline") } }
            }
            ranInline.withLock { $0 = events.withLock { $0 } == ["inline"] }
            // The callback thread now runs a callback that blocks until the gate opens.
            _ = queue.enqueue {
                blocking.record(producer: 0)
                _ = gate.wait(producer: 0, count: 1, milliseconds: 20_000)
                events.withLock { $0.append("blocking callback") }
            }
            _ = blocking.wait(producer: 0, count: 1, milliseconds: 10_000)
            DeferredWakeups.threadEnding()  // waits for the blocking callback
            DeferredWakeups.threadEnding()  // once only
        }
        let bystander = try JoinableThread { DeferredWakeups.threadEnding() }  // ran no batch
        bystander.join()
        #expect(blocking.wait(producer: 0, count: 1, milliseconds: 10_000))
        gate.record(producer: 0)
        producer.join()
        queue.shutdown()
        #expect(ranInline.withLock { $0 })
        #expect(events.withLock { $0 } == ["inline", "blocking callback", "thread end"])  // "thread end" only after the blocking callback returned
        #expect(handlerThreads.withLock { $0 } == [producerThread.withLock { $0 }])
        #expect(handlerDelivering.withLock { $0 })
    }

    /// A store dropped inside a callback the producer runs shuts its queue down there: that
    /// returns without waiting (it cannot join the callback thread, which waits for this
    /// batch), and the callback thread delivers what was queued after the batch ends.
    @Test func shutdownFromAnInlineCallbackDoesNotWait() throws {
        let queue = try CallbackQueue(mode: .threadInline, name: "test")
        #expect(waitUntilIdle(queue))
        let order = Mutex<[String]>([])
        let delivered = DeliveryCounter(producers: 1)
        let refusedAfter = Mutex<Bool?>(nil)
        let producer = try JoinableThread {
            DeferredWakeups.deferring(runsCallbacks: true) {
                _ = queue.enqueue {
                    order.withLock { $0.append("inline") }
                    queue.enqueue {
                        order.withLock { $0.append("queued in the batch") }
                        delivered.record(producer: 0)
                    }
                    queue.shutdown()
                    refusedAfter.withLock { $0 = !queue.enqueue {} }
                    order.withLock { $0.append("after shutdown") }
                }
            }
        }
        producer.join()
        #expect(delivered.wait(producer: 0, count: 1, milliseconds: 10_000))
        #expect(order.withLock { $0 } == ["inline", "after shutdown", "queued in the batch"])
        #expect(refusedAfter.withLock { $0 } == true)
        queue.shutdown()  // again, from outside: returns at once
    }
}
