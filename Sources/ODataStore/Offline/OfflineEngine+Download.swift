/// Downloads after opening (fresh data for all or some defining requests) and changing the
/// set of defining requests of an open store.
extension OfflineEngine {
    /// Downloads the defining requests at `paths` (all when nil): a delta where the service
    /// gave a delta link, else a full download that replaces what the request brought down;
    /// an interrupted download resumes. Local changes stay on top (`StoreRefresh`). One
    /// download or upload at a time (`.invalidState`). `completion` runs once, on the database
    /// queue; `progress` (nil: the store's download progress) on the database queue too.
    func download(paths: [String]?, progress: (@Sendable (DownloadProgress) -> Void)?,
                  completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) throws(ODataStoreError) {
        try state.withLock { (s) throws(ODataStoreError) in
            guard !s.closed else { throw ODataStoreError(.closed, "the store is closed") }
            guard s.download == nil, !s.refreshing else { throw ODataStoreError(.invalidState, "a download is already running") }
            guard s.upload == nil else { throw ODataStoreError(.invalidState, "an upload is running") }
            s.refreshing = true
            s.cancelledDownload = false
        }
        let finish: @Sendable (Result<Void, ODataStoreError>) -> Void = { [self] result in
            state.withLock { s in
                s.download = nil
                s.refreshing = false
            }
            completion(result)
        }
        let queued = database.queue.async { [self] in
            do throws(ODataStoreError) {
                let targets = try refreshTargets(paths)
                let download = Download(session: session, store: database, targets: targets, pageSize: options.downloadPageSize,
                                        progress: progress ?? self.progress)
                let go: Bool = state.withLock { s in
                    guard !s.closed, !s.cancelledDownload else { return false }
                    s.download = download
                    return true
                }
                guard go else { throw ODataStoreError(.cancelled, "the download was cancelled") }
                download.start(finish)
            } catch {
                finish(.failure(error))
            }
        }
        if !queued { finish(.failure(ODataStoreError(.closed, "the store is closed"))) }
    }

    /// Marks the chosen defining requests for download (database queue).
    private func refreshTargets(_ paths: [String]?) throws(ODataStoreError) -> [Download.Target] {
        let file = try database.requireFile()
        let rows = try database.definingRequests()
        let definitions = state.withLock { $0.definitions }
        var chosen: [DefiningRequestRow] = []
        if let paths {
            guard !paths.isEmpty else { throw ODataStoreError(.invalidArgument, "name at least one defining request to download") }
            for p in paths {
                let normalized = try DefiningRequest.make(p, model: file.model, schema: file.schema, serviceRoot: session.serviceRoot).path
                guard let row = rows.first(where: { $0.path == normalized }) else {
                    throw ODataStoreError(.notFound, "\(p) is not a defining request of this store (add it first)")
                }
                if !chosen.contains(where: { $0.id == row.id }) { chosen.append(row) }
            }
        } else {
            chosen = rows
        }
        var targets: [Download.Target] = []
        try file.connection.storeTransaction("cannot start the download") {
            for row in chosen {
                if row.state == .complete {
                    try StoreRefresh(file: file).begin(request: row.id, deltaLink: row.deltaLink)
                }
                let definition = try definitions.first(where: { $0.path == row.path })
                    ?? DefiningRequest.make(row.path, model: file.model, schema: file.schema, serviceRoot: session.serviceRoot)
                targets.append(Download.Target(id: row.id, definition: definition))
            }
        }
        return targets
    }

    /// Adds a defining request to an open store; the next download brings its data. Checked
    /// against the service model like those given when opening. Adding one the store has is
    /// no error.
    func addDefiningRequest(_ path: String) throws(ODataStoreError) {
        try database.queue.sync { [self] () throws(ODataStoreError) in
            let file = try database.requireFile()
            let definition = try DefiningRequest.make(path, model: file.model, schema: file.schema, serviceRoot: session.serviceRoot)
            _ = try database.register([definition])
            state.withLock { s in
                if !s.definitions.contains(where: { $0.path == definition.path }) {
                    s.definitions.append(definition)
                    s.scope = OfflineScope(s.definitions)
                }
            }
        }
    }

    /// Removes a defining request from an open store: the rows only it brought down go (rows
    /// with local changes stay until uploaded); what it covered is no longer in scope. The
    /// last defining request cannot be removed; nor one while a download runs.
    func removeDefiningRequest(_ path: String) throws(ODataStoreError) {
        try database.queue.sync { [self] () throws(ODataStoreError) in
            let file = try database.requireFile()
            let normalized = try DefiningRequest.make(path, model: file.model, schema: file.schema, serviceRoot: session.serviceRoot).path
            let rows = try database.definingRequests()
            guard let row = rows.first(where: { $0.path == normalized }) else {
                throw ODataStoreError(.notFound, "\(path) is not a defining request of this store")
            }
            guard rows.count > 1 else {
                throw ODataStoreError(.invalidArgument, "\(path) is the store's only defining request; an offline store keeps at least one")
            }
            try state.withLock { (s) throws(ODataStoreError) in
                guard s.download == nil, !s.refreshing else {
                    throw ODataStoreError(.invalidState, "a download is running; remove defining requests when it has finished")
                }
            }
            try file.connection.storeTransaction("cannot remove the defining request") {
                try StoreRefresh(file: file).forget(request: row.id)
            }
            state.withLock { s in
                s.definitions.removeAll { $0.path == normalized }
                s.scope = OfflineScope(s.definitions)
            }
        }
    }
}
