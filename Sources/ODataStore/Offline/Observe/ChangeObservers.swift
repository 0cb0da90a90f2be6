/// A registered change observer (`Store.observe`). `remove()` unregisters it: from any
/// thread, also from inside its own handler, any number of times. When `remove()` returns,
/// the handler is not running on another thread and is never called again; called from
/// inside the handler, it returns at once and the current call is the last.
public final class ChangeObserver: Sendable {
    public typealias Handler = @Sendable (Store, StoreChanges) -> Void

    /// The observed entity set.
    public let entitySet: String
    private let handler: Handler
    private let cond = ConditionLock()
    private let state = Locked(State())
    private let registry: ChangeObservers

    private struct State {
        var removed = false
        /// The thread running the handler now (0: none).
        var caller: UInt = 0
    }

    init(entitySet: String, handler: @escaping Handler, registry: ChangeObservers) {
        self.entitySet = entitySet
        self.handler = handler
        self.registry = registry
    }

    /// True until `remove()` has been called.
    public var isActive: Bool { cond.withLock { !state.withLock { $0.removed } } }

    /// Unregisters the observer (see the type's comment). Idempotent.
    public func remove() {
        let me = currentThreadID()
        let first: Bool = cond.withLock {
            let wasActive = state.withLock { s -> Bool in
                let was = !s.removed
                s.removed = true
                return was
            }
            // Wait for a call running on another thread; never for our own.
            while true {
                let caller = state.withLock { $0.caller }
                if caller == 0 || caller == me { break }
                cond.wait()
            }
            return wasActive
        }
        if first { registry.remove(self) }
    }

    /// Runs the handler unless removed (callback thread or dispatching thread).
    func deliver(_ store: Store, _ changes: StoreChanges) {
        let me = currentThreadID()
        let go: Bool = cond.withLock {
            state.withLock { s in
                guard !s.removed else { return false }
                s.caller = me
                return true
            }
        }
        guard go else { return }
        handler(store, changes)
        cond.withLock {
            state.withLock { $0.caller = 0 }
            cond.broadcast()
        }
    }
}

/// A store's change observers by entity set, fed by its offline engine's `ChangeLog`.
final class ChangeObservers: Sendable {
    private let observers = Locked<[String: [ChangeObserver]]>([:])
    private let log: ChangeLog?
    /// What runs when the store closes (the end of `Store.changes(of:)` streams), by token.
    private let closing = Locked(Closing())

    private struct Closing {
        var closed = false
        var next: UInt64 = 0
        var handlers: [UInt64: @Sendable () -> Void] = [:]
    }

    init(log: ChangeLog?) {
        self.log = log
    }

    func add(_ observer: ChangeObserver) {
        observers.withLock { $0[observer.entitySet, default: []].append(observer) }
        log?.want(observer.entitySet, 1)
    }

    func remove(_ observer: ChangeObserver) {
        let found: Bool = observers.withLock { o in
            guard var list = o[observer.entitySet], let i = list.firstIndex(where: { $0 === observer }) else { return false }
            list.remove(at: i)
            o[observer.entitySet] = list.isEmpty ? nil : list
            return true
        }
        if found { log?.want(observer.entitySet, -1) }
    }

    /// Runs `body` once when the store closes (at once when it is closed already); the token
    /// cancels it (`cancelWhenClosed`).
    @discardableResult
    func whenClosed(_ body: @escaping @Sendable () -> Void) -> UInt64? {
        let token: UInt64? = closing.withLock { c in
            guard !c.closed else { return nil }
            c.next += 1
            c.handlers[c.next] = body
            return c.next
        }
        if token == nil { body() }
        return token
    }

    func cancelWhenClosed(_ token: UInt64?) {
        guard let token else { return }
        _ = closing.withLock { $0.handlers.removeValue(forKey: token) }
    }

    /// The store closed: runs what waits for that (outside the lock), once.
    func storeClosed() {
        let handlers: [@Sendable () -> Void] = closing.withLock { c in
            c.closed = true
            defer { c.handlers = [:] }
            return c.handlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for h in handlers { h() }
    }

    /// Queues one call per observer of each changed set, through the store's dispatch mode.
    func publish(_ batches: [StoreChanges], queue: CallbackQueue, store: @escaping @Sendable () -> Store?) {
        for changes in batches {
            let targets = observers.withLock { $0[changes.entitySet] ?? [] }
            for observer in targets {
                queue.enqueue {
                    if let s = store() { observer.deliver(s, changes) }
                }
            }
        }
    }
}
