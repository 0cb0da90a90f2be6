extension Store {
    /// Registers `handler` for changes of `entitySet`'s local data in an offline or mixed
    /// store (docs/observers.md): after a local write, a download, an upload's effects or a
    /// revert has committed changes of the set, `handler` is called through the store's
    /// dispatch mode with what changed. Only changes committed after `observe` returns are
    /// reported. `entitySet` is an entity set (or singleton) name, not a resource path.
    ///
    /// Throws `.unsupported` for online stores, `.invalidArgument` for a name that is not an
    /// entity set name, `.notFound` when the store's model (once known) has no such set,
    /// `.closed` after close. Keep the returned observer and call `remove()` when done; a
    /// closed store calls no observer again.
    public func observe(_ entitySet: String, handler: @escaping ChangeObserver.Handler) throws(ODataStoreError) -> ChangeObserver {
        guard options.kind != .online else {
            throw ODataStoreError(.unsupported, "only offline and mixed stores have local data to observe")
        }
        guard !entitySet.isEmpty, !entitySet.contains(where: { "/()?$#&=' ".contains($0) }),
              !entitySet.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            throw ODataStoreError(.invalidArgument, "\"\(entitySet)\" is not an entity set name (observe takes a name such as \"Products\", not a resource path)")
        }
        if state == .closed || state == .closing { throw ODataStoreError(.closed, "the store is closed") }
        if let model, model.entitySet(entitySet) == nil {
            throw ODataStoreError(.notFound, "the service has no entity set \(entitySet)")
        }
        let observer = ChangeObserver(entitySet: entitySet, handler: handler, registry: observers)
        observers.add(observer)
        return observer
    }
}
