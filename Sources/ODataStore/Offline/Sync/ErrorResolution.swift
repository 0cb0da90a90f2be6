/// Reading and resolving the error archive of an offline store: one entry at a time, either
/// retried (queued again, optionally after the app edited the entity) or reverted (the local
/// entity goes back to the service's version).
extension OfflineEngine {
    /// The archive, oldest first.
    func errorArchive() throws(ODataStoreError) -> [ArchivedError] {
        try database.queue.sync { [self] () throws(ODataStoreError) -> [ArchivedError] in
            try Self.archived(file: try database.requireFile())
        }
    }

    /// The archive of `file` (on the database queue).
    static func archived(file: StoreFile) throws(ODataStoreError) -> [ArchivedError] {
        do throws(SQLiteError) {
            return try ErrorArchive(connection: file.connection).all().map { e in
                var error = e.error
                error.entitySet = file.table(id: e.change.table)?.entitySet ?? ""
                return error
            }
        } catch {
            throw error.storeError("cannot read the error archive")
        }
    }

    /// The archive as the `ErrorArchive` collection (a READ of `ErrorArchive` or
    /// `ErrorArchive(id)` on an offline store whose service has no set of that name).
    /// Runs on the database queue.
    func errorArchiveResponse(file: StoreFile, path: String) throws(ODataStoreError) -> Response {
        let all = try Self.archived(file: file)
        let rest = path.dropFirst(ErrorArchiveName.name.count)
        var json: String
        var count: Int
        if rest.hasPrefix("("), rest.hasSuffix(")") {
            let inner = rest.dropFirst().dropLast().filter { $0 != "'" }
            guard let id = Int64(inner), let e = all.first(where: { $0.id == id }) else {
                throw ODataStoreError(.notFound, "\(path) is not in the error archive", httpStatus: 404)
            }
            json = e.json.serialized()
            count = 1
        } else if rest.isEmpty || rest.hasPrefix("?") {
            guard rest.isEmpty || rest == "?" else {
                throw ODataStoreError(.unsupported, "query options on the error archive cannot be evaluated (read it whole)")
            }
            var o = JSONObject()
            o["value"] = .array(all.map(\.json))
            json = JSONValue.object(o).serialized()
            count = all.count
        } else {
            throw ODataStoreError(.syntax, "\(path): read ErrorArchive or ErrorArchive(id)", position: ErrorArchiveName.name.count)
        }
        var r = Response(status: 200, headers: [(name: "Content-Type", value: "application/json")], body: Array(json.utf8), json: json,
                         entityCount: count)
        r.isLocal = true
        return r
    }

    /// Queues an archived change again (it leaves the archive). `body`, when given, is applied
    /// to the entity first as a local merge (the app's corrected data); `etag`, when given,
    /// replaces the If-Match the change carries (`*` sends it whatever the service's version).
    func retryError(id: Int64, body: String?, etag: String?) throws(ODataStoreError) {
        try database.queue.sync { [self] () throws(ODataStoreError) in
            let file = try database.requireFile()
            let c = file.connection
            try c.storeTransaction("cannot retry the change") {
                let archive = ErrorArchive(connection: c)
                guard let entry = try archive.entry(id: id) else {
                    throw ODataStoreError(.notFound, "there is no error \(id) in the archive")
                }
                guard let table = file.table(id: entry.change.table) else { throw ODataStoreError(.error, "unknown table") }
                var change = entry.change
                if let body {
                    guard change.operation != .delete else {
                        throw ODataStoreError(.invalidArgument, "a refused delete is retried without a body")
                    }
                    let o = try LocalWrite.object(body)
                    var values = try LocalWrite.properties(o, table: table, model: file.model)
                    let key = try LocalWrite.keyValues(of: change.rid, table: table, connection: c)
                    guard !key.isEmpty else { throw ODataStoreError(.notFound, "the entity of error \(id) is no longer in the store") }
                    for (col, k) in zip(table.keyColumns, key) { values[col.pathText] = LocalWrite.json(k, column: col) }
                    try EntityWriter.upsert(JSONValue.object(values).serialized(), table: table, file: file)
                    if change.operation == .merge {
                        change.properties = Array(Set((change.properties ?? []) + values.keys.filter { k in
                            !table.keyColumns.contains { $0.pathText == k } })).sorted()
                    }
                }
                if let etag { change.etag = etag }
                try archive.remove(id: id)
                _ = try ChangeQueue(connection: c).append(change)
                try Upload.refreshState(table: table, tableID: change.table, rid: change.rid, file: file)
            }
        }
    }

    /// Reverts an archived change: it leaves the archive and the entity goes back to the
    /// service's version (read from the service; a create made offline is simply removed).
    /// Other queued changes of the entity are dropped with it. `completion` runs once, on the
    /// database queue.
    func revertError(id: Int64, completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        let queued = database.queue.async { [self] in
            do throws(ODataStoreError) {
                let file = try database.requireFile()
                guard let entry = try sqlResult({ () throws(SQLiteError) in try ErrorArchive(connection: file.connection).entry(id: id) }) else {
                    throw ODataStoreError(.notFound, "there is no error \(id) in the archive")
                }
                guard let table = file.table(id: entry.change.table) else { throw ODataStoreError(.error, "unknown table") }
                if entry.change.operation == .create {
                    try file.connection.storeTransaction("cannot revert the change") {
                        try discardChanges(entry, table: table, file: file)
                        try LocalWrite.removeRow(table, rid: entry.change.rid, file: file)
                        try file.connection.run("DELETE FROM ods_local_keys WHERE tbl = ?1 AND rid = ?2",
                                                [.integer(entry.change.table), .integer(entry.change.rid)])
                    }
                    return completion(.success(()))
                }
                // The service's version of the entity.
                let path: String
                if entry.change.operation == .delete, let keyText = entry.change.entityKey,
                   case .object(let key)? = try? JSONValue.parse(keyText) {
                    path = KeyPredicate.path(table, table.keyColumns.map { (try? LocalWrite.sqlKey(key[$0.pathText], $0)) ?? .null },
                                             version: session.odataVersion)
                } else {
                    let key = try sqlResult { () throws(SQLiteError) in try LocalWrite.keyValues(of: entry.change.rid, table: table, connection: file.connection) }
                    path = KeyPredicate.path(table, key, version: session.odataVersion)
                }
                let url = try RequestURL.make(serviceRoot: session.serviceRoot, path: path)
                let job = RequestJob(id: 0, mode: .read, path: path, url: url, body: nil, headers: [], etag: nil, paging: .none,
                                     timeoutMilliseconds: 0)
                _ = OnlineEngine(session: session).execute(job) { [self] result in
                    let hop = database.queue.async { [self] in
                        do throws(ODataStoreError) {
                            let file = try database.requireFile()
                            try file.connection.storeTransaction("cannot revert the change") {
                                try discardChanges(entry, table: table, file: file)
                                switch result {
                                case .success(let response):
                                    var json = response.json
                                    if let etag = response.etag, case .object(var o)? = try? JSONValue.parse(json) {
                                        o["@odata.etag"] = .string(etag)
                                        json = JSONValue.object(o).serialized()
                                    }
                                    let rid = try EntityWriter.upsert(json, table: table, file: file)
                                    try Upload.refreshState(table: table, tableID: entry.change.table, rid: rid, file: file)
                                case .failure(let f) where f.error.httpStatus == 404:
                                    // Gone from the service too.
                                    try LocalWrite.removeRow(table, rid: entry.change.rid, file: file)
                                case .failure(let f):
                                    throw f.error
                                }
                            }
                            completion(.success(()))
                        } catch {
                            completion(.failure(error))
                        }
                    }
                    if !hop { completion(.failure(ODataStoreError(.closed, "the store was closed"))) }
                }
            } catch {
                completion(.failure(error))
            }
        }
        if !queued { completion(.failure(ODataStoreError(.closed, "the store is closed"))) }
    }

    /// Removes the archived entry and every queued change of its entity.
    private func discardChanges(_ entry: ErrorArchive.Entry, table: EntityTable, file: StoreFile) throws {
        let c = file.connection
        try ErrorArchive(connection: c).remove(id: entry.error.id)
        let queue = ChangeQueue(connection: c)
        for q in try queue.changes(table: entry.change.table, rid: entry.change.rid) { try queue.remove(id: q.id) }
        try c.run("DELETE FROM ods_errors WHERE tbl = ?1 AND rid = ?2", [.integer(entry.change.table), .integer(entry.change.rid)])
    }

    private func sqlResult<T>(_ body: () throws(SQLiteError) -> T) throws(ODataStoreError) -> T {
        do { return try body() } catch { throw error.storeError("cannot read the store") }
    }
}

/// The reserved name of the error archive collection.
enum ErrorArchiveName {
    static let name = "ErrorArchive"

    /// True when `path` reads the archive on a store whose service has no `ErrorArchive` set.
    static func matches(_ path: String, serviceRoot: String, model: ServiceModel?) -> Bool {
        let relative = DefiningRequest.relative(path, serviceRoot: serviceRoot)
        guard relative == name || relative.hasPrefix(name + "(") || relative.hasPrefix(name + "?") else { return false }
        return model?.entitySets[name] == nil
    }
}
