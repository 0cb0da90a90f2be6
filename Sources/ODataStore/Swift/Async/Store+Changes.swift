extension Store {
    /// The changes of `entitySet`'s local data as an async sequence (`observe` underneath):
    /// one element per committed batch (docs/observers.md). The observer is removed when the
    /// iteration ends (the consuming task is cancelled or the stream dropped). Elements wait
    /// in the stream until read. Throws like `observe`.
    public func changes(of entitySet: String) throws(ODataStoreError) -> AsyncStream<StoreChanges> {
        let (stream, continuation) = AsyncStream<StoreChanges>.makeStream(bufferingPolicy: .unbounded)
        let observer = try observe(entitySet) { _, changes in continuation.yield(changes) }
        continuation.onTermination = { _ in observer.remove() }
        return stream
    }
}
