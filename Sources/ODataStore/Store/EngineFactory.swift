/// Creates the engine for a store's kind. `progress` receives download progress (the store
/// routes it through its dispatch mode).
func makeEngine(for options: StoreOptions,
                progress: (@Sendable (DownloadProgress) -> Void)?) throws(ODataStoreError) -> any RequestEngine {
    switch options.kind {
    case .online:
        return OnlineEngine(session: try ServiceSession.make(options: options))
    case .offline:
        let session = try ServiceSession.make(options: options)
        do {
            return try OfflineEngine(options: options, session: session, progress: progress)
        } catch {
            session.shutdown()
            throw error
        }
    case .mixed:
        return try MixedEngine(options: options, progress: progress)
    }
}
