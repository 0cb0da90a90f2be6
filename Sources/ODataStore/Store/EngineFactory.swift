/// Creates the engine for a store's kind. `deliver` runs a closure through the store's
/// dispatch mode (engines report progress with it).
func makeEngine(for options: StoreOptions,
                deliver: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) throws(ODataStoreError) -> any RequestEngine {
    switch options.kind {
    case .online:
        return OnlineEngine(session: try ServiceSession.make(options: options))
    case .offline:
        let session = try ServiceSession.make(options: options)
        do {
            return try OfflineEngine(options: options, session: session, deliver: deliver)
        } catch {
            session.shutdown()
            throw error
        }
    case .mixed:
        throw ODataStoreError(.unsupported, "mixed stores are not available in this release")
    }
}
