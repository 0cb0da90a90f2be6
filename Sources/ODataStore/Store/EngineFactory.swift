/// Creates the engine for a store's kind.
func makeEngine(for options: StoreOptions) throws(ODataStoreError) -> any RequestEngine {
    switch options.kind {
    case .online:
        return OnlineEngine(session: try ServiceSession.make(options: options))
    case .offline, .mixed:
        throw ODataStoreError(.unsupported, "offline and mixed stores are not available in this release")
    }
}
