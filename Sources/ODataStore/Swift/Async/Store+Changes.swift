extension Store {
    /// The changes of `entitySet`'s local data as an async sequence (`observe` underneath):
    /// one element per committed batch (docs/observers.md). The observer is removed when the
    /// iteration ends (the consuming task is cancelled or the stream dropped); the stream
    /// finishes when the store closes. Elements wait in the stream until read. Throws like
    /// `observe`.
    public func changes(of entitySet: String) throws(ODataStoreError) -> AsyncStream<StoreChanges> {
        let (stream, continuation) = AsyncStream<StoreChanges>.makeStream(bufferingPolicy: .unbounded)
        let observer = try observe(entitySet) { _, changes in continuation.yield(changes) }
        // The stream ends when the store closes, so a `for await` over it does not outlive it.
        let registry = observers
        let token = registry.whenClosed { continuation.finish() }
        continuation.onTermination = { _ in
            observer.remove()
            registry.cancelWhenClosed(token)
        }
        return stream
    }
}
