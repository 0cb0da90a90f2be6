import Synchronization
/// The store file and the serial queue it lives on. Every method except `close` must run on
/// `queue` (inside a job): the SQLite connection is used from that thread only.
final class OfflineDatabase: Sendable {
    let queue: SerialQueue
    /// Set once opened; touched on `queue` only.
    private let box = UncheckedSendable<StoreFile?>(nil)
    /// The most bytes of one page's body its downloads held at once (`Download`: a streamed
    /// page's queue and splitter, an upper bound; a page fetched whole: its body). Streaming
    /// keeps it far below the page size; tests and the download benchmark read it.
    let peakPageBytes = Atomic<Int>(0)

    /// Raises `peakPageBytes` to `bytes` (any thread).
    func notePageBytes(_ bytes: Int) {
        var current = peakPageBytes.load(ordering: .relaxed)
        while bytes > current {
            let (done, now) = peakPageBytes.compareExchange(expected: current, desired: bytes, ordering: .relaxed)
            if done { break }
            current = now
        }
    }

    init() throws(ODataStoreError) {
        queue = try SerialQueue(name: "offline store")
    }

    /// The open store file (on the queue).
    var file: StoreFile? { box.value }

    func install(_ file: StoreFile) { box.value = file }

    /// Closes the file (the store's open failed): on the queue, at once when called there,
    /// else before any job queued after this call (the queue runs jobs in order).
    func release() {
        if queue.isCurrent {
            box.value = nil
        } else {
            _ = queue.async { [box] in box.value = nil }
        }
    }

    /// Runs `body` with the open file (or nil) on the queue after every batch of jobs.
    func afterBatch(_ body: @escaping @Sendable (StoreFile?) -> Void) {
        queue.setAfterBatch { [box] in body(box.value) }
    }

    func requireFile() throws(ODataStoreError) -> StoreFile {
        guard let f = box.value else {
            throw ODataStoreError(.invalidState, "the store file is not open (the store is still opening, or opening failed)")
        }
        return f
    }

    /// Closes the file on its thread and joins the thread.
    func close() {
        queue.async { [box] in box.value = nil }
        queue.close()
    }

    // MARK: - Durability

    /// Commits wait for the disk (`PRAGMA synchronous = FULL`, how every store file is
    /// opened) or, with `false`, only checkpoints do (`NORMAL`): in WAL mode the file stays
    /// consistent across a power cut either way, but with `NORMAL` the last commits before the
    /// cut can be lost. Only the opening's first download of a store that holds nothing of the
    /// app's runs with `NORMAL` (`OfflineEngine.finishOpening`, docs/reliability.md, "First
    /// download"); per connection, never stored in the file. Outside a transaction.
    func setDurableCommits(_ durable: Bool) throws(ODataStoreError) {
        let f = try requireFile()
        do {
            try f.connection.execute(durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        } catch {
            throw error.storeError("cannot set the store's durability")
        }
    }

    /// Whether commits wait for the disk (`PRAGMA synchronous` is FULL or EXTRA).
    func durableCommits() throws(ODataStoreError) -> Bool {
        let f = try requireFile()
        do {
            guard case .integer(let level)? = try f.connection.scalar("PRAGMA synchronous") else { return false }
            return level >= 2
        } catch {
            throw error.storeError("cannot read the store's durability")
        }
    }

    // MARK: - Defining requests

    /// Adds the defining requests not yet in the file (in order) and returns every stored one's id by path.
    func register(_ definitions: [DefiningRequest]) throws(ODataStoreError) -> [String: Int64] {
        let f = try requireFile()
        do {
            try f.connection.transaction {
                for d in definitions {
                    try f.connection.run("INSERT OR IGNORE INTO ods_defining_requests (path, entity_set, added) VALUES (?1, ?2, ?3)",
                                         [.text(d.path), .text(d.table.entitySet), .text(Timestamp.now())])
                }
            }
            var ids: [String: Int64] = [:]
            for row in try f.connection.rows("SELECT id, path FROM ods_defining_requests") {
                if case .integer(let id) = row[0], case .text(let path) = row[1] { ids[path] = id }
            }
            return ids
        } catch let e as SQLiteError {
            throw e.storeError("cannot record the defining requests")
        } catch {
            throw ODataStoreError(.error, "cannot record the defining requests: \(error)")
        }
    }

    /// Every stored defining request, in the order they were added.
    func definingRequests() throws(ODataStoreError) -> [DefiningRequestRow] {
        let f = try requireFile()
        do {
            return try f.connection.rows("SELECT \(DefiningRequestRow.columns) FROM ods_defining_requests ORDER BY id").map(DefiningRequestRow.init)
        } catch {
            throw error.storeError("cannot read the defining requests")
        }
    }

    func definingRequest(id: Int64) throws(ODataStoreError) -> DefiningRequestRow {
        let f = try requireFile()
        do {
            guard let row = try f.connection.rows("SELECT \(DefiningRequestRow.columns) FROM ods_defining_requests WHERE id = ?1", [.integer(id)]).first else {
                throw ODataStoreError(.notFound, "defining request \(id) is not in the store")
            }
            return DefiningRequestRow(row)
        } catch let e as SQLiteError {
            throw e.storeError("cannot read the defining requests")
        } catch let e as ODataStoreError {
            throw e
        } catch {
            throw ODataStoreError(.error, "\(error)")
        }
    }

    /// Writes one downloaded page and the defining request's progress in one transaction.
    /// `deltaLink` (absolute) is kept with the last page for the next refresh.
    func writePage(_ payload: DecodedPayload, bytes: Int64, target: Download.Target, nextLink: String?, deltaLink: String?,
                   isCollection: Bool, serviceRoot: String) throws(ODataStoreError) -> DefiningRequestRow {
        try writePage([payload], earlierEntities: 0, count: payload.count, bytes: bytes, target: target, nextLink: nextLink,
                      deltaLink: deltaLink, isCollection: isCollection, serviceRoot: serviceRoot)
    }

    /// Writes the entities of a run of a page that is still arriving (`PageStream`), in a
    /// transaction of its own, and returns how many it held. The defining request's counts
    /// and resume point stay as they were: the page's last `writePage` counts them.
    func writeEntities(_ payload: DecodedPayload, target: Download.Target, serviceRoot: String) throws(ODataStoreError) -> Int {
        let f = try requireFile()
        let writer = EntityWriter(file: f, requestID: target.id)
        do {
            var written = 0
            try f.connection.transaction {
                written = try writeEntities(payload, writer: writer, file: f, target: target, isCollection: true,
                                            serviceRoot: serviceRoot)
            }
            return written
        } catch let e as ODataStoreError {
            throw e
        } catch let e as SQLiteError {
            throw e.storeError("cannot store the downloaded entities")
        } catch {
            throw ODataStoreError(.error, "cannot store the downloaded entities: \(error)")
        }
    }

    /// Writes the last part(s) of a page (`payloads`: the whole page, or a streamed page's last
    /// run and its annotations) and the defining request's progress in one transaction:
    /// `earlierEntities` were written by earlier runs of the page and are counted now, with the
    /// page's resume point. `deltaLink` (absolute) is kept with the last page for the next refresh.
    func writePage(_ payloads: [DecodedPayload], earlierEntities: Int, count: Int64?, bytes: Int64, target: Download.Target,
                   nextLink: String?, deltaLink: String?, isCollection: Bool,
                   serviceRoot: String) throws(ODataStoreError) -> DefiningRequestRow {
        let f = try requireFile()
        let writer = EntityWriter(file: f, requestID: target.id)
        do {
            var written = earlierEntities
            try f.connection.transaction {
                let before = try definingRequest(id: target.id)
                for payload in payloads {
                    written += try writeEntities(payload, writer: writer, file: f, target: target, isCollection: isCollection,
                                                 serviceRoot: serviceRoot)
                }
                let refresh = StoreRefresh(file: f)
                let done = nextLink == nil
                if done, before.refresh == .full { try refresh.evictUnseen(request: target.id) }
                if done, isCollection { try makeSecondaryIndexes(of: target.definition.table, file: f) }
                try f.connection.run("""
                    UPDATE ods_defining_requests SET state = ?2, next_link = ?3, entities = entities + ?4, bytes = bytes + ?5,
                        expected = coalesce(?6, expected), last_download = CASE WHEN ?7 THEN ?8 ELSE last_download END,
                        delta_link = CASE WHEN ?7 THEN ?9 ELSE delta_link END,
                        refresh = CASE WHEN ?7 THEN NULL ELSE refresh END
                    WHERE id = ?1
                    """, [.integer(target.id), .text(done ? "complete" : "downloading"), nextLink.map { .text($0) } ?? .null,
                          .integer(Int64(written)), .integer(bytes), count.map { .integer($0) } ?? .null,
                          .integer(done ? 1 : 0), .text(Timestamp.now()), deltaLink.map { .text($0) } ?? .null])
            }
            var row = try definingRequest(id: target.id)
            row.lastPageEntities = written
            return row
        } catch let e as ODataStoreError {
            throw e
        } catch let e as SQLiteError {
            throw e.storeError("cannot store the downloaded page")
        } catch {
            throw ODataStoreError(.error, "cannot store the downloaded page: \(error)")
        }
    }

    /// Makes the secondary indexes of `table` a first download dropped (`CREATE INDEX IF NOT
    /// EXISTS`: those still there cost nothing), inside the caller's transaction.
    /// CREATE INDEX sorts its keys in memory up to the page cache's size and spills sorted
    /// runs to a temporary file beyond it, to merge them after: 100,000 (CategoryID, row id)
    /// keys take about 2.4 MB, just over SQLite's default of 2,000 KiB, and the spill and
    /// merge cost about 390 instructions per entity of a 100,000-entity first download
    /// (docs/benchmarks.md, "V4, fifth pass"). The cache is 4 MiB while the indexes are made
    /// (at most that much more memory, given back after), then the default again.
    private func makeSecondaryIndexes(of table: EntityTable, file f: StoreFile) throws {
        let indexes = f.schema.secondaryIndexes.filter { $0.table === table }
        guard !indexes.isEmpty else { return }
        try f.connection.execute("PRAGMA cache_size = -\(Self.indexBuildCacheKiB)")
        defer { try? f.connection.execute("PRAGMA cache_size = -\(Self.defaultCacheKiB)") }
        for index in indexes { try f.connection.execute(index.sql) }
    }

    /// SQLite's default page cache (`PRAGMA cache_size = -2000`), which every store connection keeps.
    static let defaultCacheKiB = 2000
    /// The page cache while a first download makes its secondary indexes.
    static let indexBuildCacheKiB = 4096

    /// The entities of one decoded page or run, inside the caller's transaction.
    private func writeEntities(_ payload: DecodedPayload, writer: EntityWriter, file f: StoreFile, target: Download.Target,
                               isCollection: Bool, serviceRoot: String) throws -> Int {
        let table = target.definition.table
        // A first download into an empty table loads it without its secondary indexes
        // and makes them once after its last page (CREATE INDEX sorts once instead of
        // one B-tree insert per row: about 2,000 fewer instructions per row). Only
        // speed depends on them: an interrupted download leaves them missing until
        // its last page or the next opening of the file, which makes missing ones.
        let indexes = isCollection ? f.schema.secondaryIndexes.filter { $0.table === table } : []
        if !indexes.isEmpty, try f.connection.scalar("SELECT 1 FROM \(table.quoted) LIMIT 1") == nil {
            for index in indexes { try f.connection.execute("DROP INDEX IF EXISTS \(SQLName.quote(index.name))") }
        }
        let before = writer.removedIDs.count
        let written = try writer.writePage(payload, table: table, expand: target.definition.expand,
                                           isCollection: isCollection)
        // Local changes stay on top: what the service removed goes (unless changed
        // locally), what was deleted locally and not uploaded stays deleted.
        let refresh = StoreRefresh(file: f)
        try refresh.applyRemovals(Array(writer.removedIDs[before...]), serviceRoot: serviceRoot)
        try refresh.reapplyQueuedDeletes()
        return written
    }
}

/// A row of `ods_defining_requests`.
struct DefiningRequestRow: Sendable {
    enum State: String, Sendable { case pending, downloading, complete }

    enum Refresh: String, Sendable { case full, delta }

    static let columns = "id, path, entity_set, state, next_link, delta_link, entities, bytes, expected, last_download, refresh"

    var id: Int64
    var path: String
    var entitySet: String
    var state: State
    var nextLink: String?
    var deltaLink: String?
    var entities: Int64
    var bytes: Int64
    var expected: Int64?
    /// ISO 8601 UTC of the last completed download, nil when never completed.
    var lastDownload: String?
    /// The refresh in progress, nil for a first download or none.
    var refresh: Refresh?
    /// Entities of the page just written (set by `writePage`).
    var lastPageEntities = 0

    init(_ row: [SQLValue]) {
        func int(_ i: Int) -> Int64? { if case .integer(let v) = row[i] { return v }; return nil }
        func text(_ i: Int) -> String? { if case .text(let v) = row[i] { return v }; return nil }
        id = int(0) ?? 0
        path = text(1) ?? ""
        entitySet = text(2) ?? ""
        state = State(rawValue: text(3) ?? "") ?? .pending
        nextLink = text(4)
        deltaLink = text(5)
        entities = int(6) ?? 0
        bytes = int(7) ?? 0
        expected = int(8)
        lastDownload = text(9)
        refresh = text(10).flatMap(Refresh.init)
    }
}
