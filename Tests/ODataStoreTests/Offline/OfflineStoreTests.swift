import Foundation
import Synchronization
import Testing
@testable import ODataStore

/// The offline store against the real V4 service (odatapy): defining requests downloaded page
/// by page, reads answered from the file exactly as the service answers them, reopened with
/// the service stopped.
@Suite("Offline store (V4)", .serialized, .timeLimit(.minutes(3)))
struct OfflineStoreTests {
    static func temporaryPath(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ods-offline-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    /// Waits for the store to leave `.opening`.
    static func opened(_ options: StoreOptions) async throws -> (Store, StoreState, ODataStoreError?) {
        let stream = AsyncStream<(StoreState, ODataStoreError?)>.makeStream()
        let store = try Store(options: options) { _, state, error in stream.continuation.yield((state, error)) }
        for await (state, error) in stream.stream where state != .opening {
            return (store, state, error)
        }
        return (store, store.state, nil)
    }

    static func run(_ store: Store, _ path: String, configure: (Request) throws -> Void = { _ in }) async throws -> Result<Response, RequestFailure> {
        let request = try store.makeRequest(.read, path: path)
        try configure(request)
        return try await withCheckedThrowingContinuation { continuation in
            do {
                try request.setCompletion { _, outcome in continuation.resume(returning: outcome) }
                try request.start()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// The JSON with the top-level `value` array sorted when order does not matter.
    static func normalized(_ json: String, _ ordered: Bool) throws -> JSONValue {
        let v = try JSONValue.parse(json)
        guard !ordered, case .object(var o) = v, case .array(let items)? = o["value"] else { return v }
        o["value"] = .array(items.sorted { $0.serialized() < $1.serialized() })
        return .object(o)
    }

    static let definitions = [
        "Products?$expand=Category",
        "Customers",
        "OrderLines?$filter=OrderID le 1010",
    ]

    /// Reads answered by both stores; the offline answer must equal the service's.
    static let comparedReads = [
        "Products(7)", "Products(1)?$expand=Category", "Products?$top=5&$skip=2", "Products?$count=true&$top=1",
        "Products?$select=Name,Price&$top=3", "Categories", "Categories(1)", "Categories(3)/Products?$top=4",
        "Products(5)/Category", "Products(7)/Name", "Products(7)/Price", "Products/$count",
        "Customers('O''NEIL')", "Customers('ZO%C3%8B')", "Customers('A%26B')", "Customers",
        "OrderLines(OrderID=1002,LineNo=3)", "OrderLines?$top=3&$skip=4",
        "Categories?$expand=Products($top=2;$select=Name)&$top=2",
    ]

    @Test func downloadsReadsLikeTheServiceAndReopensWithoutIt() async throws {
        let server = try TestServer.start(.v4, pageSize: 100)
        let path = Self.temporaryPath("v4.store")
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = path
        options.definingRequests = Self.definitions
        options.downloadPageSize = 40
        let reports = Mutex<[DownloadProgress]>([])
        options.downloadProgress = { _, p in reports.withLock { $0.append(p) } }
        let (store, state, error) = try await Self.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        let seen = reports.withLock { $0 }
        // Products: 300 in pages of 40 (8 pages), the others in one or more pages; counts grow.
        let products = seen.filter { $0.definingRequest == Self.definitions[0] }
        #expect(products.count == 8)
        #expect(products.map(\.entities) == [40, 80, 120, 160, 200, 240, 280, 300])
        #expect(products.last?.expectedEntities == 300)
        #expect(products.last?.requestFinished == true)
        let total = seen.last?.totalEntities ?? 0
        #expect(total == 300 + 20 + 44)
        #expect(seen.allSatisfy { $0.requestCount == 3 })

        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        var answers: [String: String] = [:]
        for read in Self.comparedReads {
            let expected = try await Self.run(online, read).get()
            let local = try await Self.run(store, read).get()
            #expect(local.isLocal)
            #expect(!expected.isLocal)
            #expect(local.status == expected.status, "\(read)")
            #expect(local.entityCount == expected.entityCount, "\(read)")
            #expect(local.count == expected.count, "\(read)")
            // Without $orderby the order is the service's choice (odatapy: insertion order; the
            // store: key order): compare those collections as sets.
            let ordered = read.contains("$orderby") || read.contains("$top")
            #expect(try Self.normalized(local.json, ordered) == Self.normalized(expected.json, ordered),
                    "\(read)\n local:   \(local.json.prefix(300))\n service: \(expected.json.prefix(300))")
            answers[read] = local.json
        }
        // A property's $value: the same text/plain body, json and count as the service's
        // (Int64 beyond 2^53, Decimal, a string with non-ASCII, dates, a Guid, a Boolean);
        // a null property is 204 No Content both ways. Not LastModified: odatapy writes a
        // DateTimeOffset's $value as Python's str() ("2024-01-01 07:00:00+00:00"), the store
        // as its OData literal ("2024-01-01T07:00:00Z").
        for read in ["Products(50)/Stock/$value", "Products(7)/Price/$value", "Products(13)/Description/$value",
                     "Products(7)/ReleaseDate/$value", "Products(7)/UUID/$value",
                     "Products(5)/Discontinued/$value", "Products(7)/Description/$value"] {
            let expected = try await Self.run(online, read).get()
            let local = try await Self.run(store, read).get()
            #expect(local.isLocal && local.status == expected.status, "\(read): \(local.status) vs \(expected.status)")
            #expect(local.body == expected.body, "\(read): \(String(decoding: local.body, as: UTF8.self)) vs \(String(decoding: expected.body, as: UTF8.self))")
            #expect(local.json == expected.json && local.count == expected.count, "\(read): \(local.json) vs \(expected.json)")
            #expect((local.header("Content-Type") ?? "").hasPrefix("text/plain") == (expected.header("Content-Type") ?? "").hasPrefix("text/plain"), "\(read)")
        }
        await online.close()

        // Outside the defining requests: not in scope; a missing entity: 404; functions: refused.
        let missing = try await Self.run(store, "Products(999)")
        #expect(missing.failureCode == .notFound)
        #expect(try await Self.run(store, "ProductsByRating(rating=4)").failureCode == .unsupported)
        // Options the store cannot evaluate are refused, also nested in $expand, never ignored.
        #expect(try await Self.run(store, "Categories?$expand=Products($search=blue)").failureCode == .unsupported)
        #expect(try await Self.run(store, "Categories?$expand=Products($expand=Category($levels=2))").failureCode == .unsupported)
        let info = try store.offlineInfo()
        #expect(info.definingRequests.map(\.path) == Self.definitions)
        #expect(info.definingRequests.allSatisfy { $0.isComplete })
        #expect(info.definingRequests.map(\.entities) == [300, 20, 44])
        #expect(info.sizeInBytes > 0)
        #expect(info.lastDownload != nil)
        await store.close()

        // Reopen with the service gone: the same answers, from the file alone.
        server.stop()
        var reopen = options
        reopen.definingRequests = []
        reopen.downloadProgress = nil
        let (again, state2, error2) = try await Self.opened(reopen)
        #expect(state2 == .open, "\(String(describing: error2))")
        for read in Self.comparedReads {
            let local = try await Self.run(again, read).get()
            #expect(try JSONValue.parse(local.json) == JSONValue.parse(answers[read] ?? ""), "\(read)")
        }
        await again.close()
    }

    /// A connection reset in the middle of the download fails the opening; the file keeps
    /// the pages written, and the next open resumes after them (the earlier pages are not
    /// fetched again) and ends with every entity exactly once.
    @Test func aFailedDownloadResumesWhereItStopped() async throws {
        let server = try TestServer.start(.v4, pageSize: 1000)
        defer { server.stop() }
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        defer { proxy.stop() }
        // Two resets: libcurl sends a GET again once when a reused connection dies.
        try proxy.setFault("reset", count: 2, match: "skiptoken=120")
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.kind = .offline
        options.storePath = Self.temporaryPath("resume.store")
        options.definingRequests = ["Products?$expand=Category"]
        options.downloadPageSize = 40
        let reports = Mutex<[DownloadProgress]>([])
        options.downloadProgress = { _, p in reports.withLock { $0.append(p) } }
        let (failing, state, error) = try await Self.opened(options)
        #expect(state == .failed)
        #expect(error?.code == .io || error?.code == .offline, "\(String(describing: error))")
        #expect(reports.withLock { $0.map(\.entities) } == [40, 80, 120])
        await failing.close()

        try proxy.clearFaults()
        reports.withLock { $0.removeAll() }
        let before = try Self.requests(proxy)
        let (store, state2, error2) = try await Self.opened(options)
        #expect(state2 == .open, "\(String(describing: error2))")
        #expect(reports.withLock { $0.map(\.entities) } == [160, 200, 240, 280, 300])
        // $metadata comes from the file: only the five missing pages went to the service.
        #expect(try Self.requests(proxy) - before == 5)
        let all = try await Self.run(store, "Products?$count=true") { try $0.setPaging(.follow) }.get()
        #expect(all.count == 300)
        let ids = try JSONValue.parse(all.json)["value"]?.arrayValue?.compactMap { $0["ID"]?.int64Value }
        #expect(ids == (1...300).map(Int64.init))
        #expect(try await Self.run(store, "Categories/$count").get().json == "{\"value\":10}")
        await store.close()
    }

    static func requests(_ proxy: TestServer) throws -> Int {
        let state = try JSONValue.parse(proxy.faultState())
        return Int(state["requests"]?.int64Value ?? -1)
    }

    @Test func serverPagingOfLocalResults() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = Self.temporaryPath("paging.store")
        options.definingRequests = ["Products"]
        let (store, state, _) = try await Self.opened(options)
        #expect(state == .open)
        defer { try? store.close() }
        var ids: [Int64] = []
        var next: String? = "Products?$top=250&$skip=10"
        var pages = 0
        while let path = next {
            let page = try await Self.run(store, path) { try $0.setHeader("Prefer", "odata.maxpagesize=100") }.get()
            ids += try JSONValue.parse(page.json)["value"]?.arrayValue?.compactMap { $0["ID"]?.int64Value } ?? []
            next = page.nextLink
            pages += 1
        }
        #expect(pages == 3)
        #expect(ids == (11...260).map(Int64.init))
        let all = try await Self.run(store, "Products") { try $0.setPaging(.follow); try $0.setHeader("Prefer", "odata.maxpagesize=7") }.get()
        #expect(all.entityCount == 300)

        // A store-wide Prefer header pages local reads as it pages the service's answers; a
        // request's own replaces it (a second handle on the file).
        var wide = options
        wide.headers = [("Prefer", "odata.maxpagesize=40")]
        let (paged, pagedState, _) = try await Self.opened(wide)
        #expect(pagedState == .open)
        defer { try? paged.close() }
        let first = try await Self.run(paged, "Products?$orderby=ID").get()
        #expect(first.entityCount == 40 && first.nextLink != nil)
        let own = try await Self.run(paged, "Products?$orderby=ID") { try $0.setHeader("Prefer", "odata.maxpagesize=15") }.get()
        #expect(own.entityCount == 15 && own.nextLink != nil)

        // Parameter aliases resolve; an evaluation error (Int64 overflow) is the request's
        // fault, as a service's 400.
        let aliased = try await Self.run(store, "Products?$filter=ID eq @id or Name eq @name&@id=7&@name='Product 009'").get()
        #expect(aliased.entityCount == 2)
        let overflow = try await Self.run(store, "Products?$filter=Stock mul 9223372036854775807 gt 0")
        guard case .failure(let f) = overflow else { Issue.record("overflow answered"); return }
        #expect(f.error.code == .http && f.error.httpStatus == 400, "\(f.error)")
    }

    @Test func badDefiningRequestsFailOpenWithThePosition() async throws {
        var options = StoreOptions(serviceRoot: "http://127.0.0.1:9/odata/")
        options.kind = .offline
        options.storePath = Self.temporaryPath("bad.store")
        options.definingRequests = ["Products?$filter=Price gt"]
        #expect(throws: ODataStoreError.self) { _ = try Store(options: options) }
        do {
            _ = try Store(options: options)
        } catch {
            #expect(error.code == .syntax)
            #expect(error.position == 25)
        }
        // A schema error needs $metadata: reported when opening, before any file is made.
        options.definingRequests = ["Products?$filter=Nope eq 1"]
        options.metadataPath = OfflineFixtures.root.appendingPathComponent("servers/v4_metadata.xml").path
        let (store, state, error) = try await Self.opened(options)
        #expect(state == .failed)
        #expect(error?.code == .syntax)
        #expect(error?.position == 17)
        #expect(!FileManager.default.fileExists(atPath: options.storePath!))
        await store.close()
    }

    /// A store of a newer format, or one made for other $metadata or another service, is
    /// refused with a clear status and left exactly as it was.
    @Test func storesOfANewerFormatOrAnotherServiceAreRefusedAndLeftAlone() async throws {
        let metadata = OfflineFixtures.root.appendingPathComponent("servers/v4_metadata.xml").path
        let path = Self.temporaryPath("format.store")
        // Made from a local $metadata document: no service is contacted for an empty-ish store
        // whose only defining request cannot download (the service is not there)...
        var options = StoreOptions(serviceRoot: "http://127.0.0.1:9/odata/")
        options.kind = .offline
        options.storePath = path
        options.metadataPath = metadata
        options.definingRequests = ["Customers"]
        options.connectTimeoutMilliseconds = 2000
        let (first, state, _) = try await Self.opened(options)
        #expect(state == .failed)  // the download could not reach the service; the file exists
        await first.close()
        #expect(FileManager.default.fileExists(atPath: path))

        // Another service root: refused.
        var other = options
        other.serviceRoot = "http://127.0.0.1:9/other/"
        let (s2, state2, error2) = try await Self.opened(other)
        #expect(state2 == .failed)
        #expect(error2?.code == .invalidArgument && error2?.message.contains("another service") == true)
        await s2.close()

        // Other $metadata than the file was made from: refused.
        var otherModel = options
        otherModel.metadataPath = nil
        otherModel.metadataDocument = Array((try String(contentsOfFile: metadata, encoding: .utf8)).replacingOccurrences(of: "Category", with: "Kategorie").utf8)
        let (s3, state3, error3) = try await Self.opened(otherModel)
        #expect(state3 == .failed)
        #expect(error3?.message.contains("other $metadata") == true)
        await s3.close()

        // The app expects OData V2; the file was made from V4 $metadata: refused as online
        // (ODS_EPROTOCOL), the file unchanged; a new file from that $metadata is not made.
        var v2 = options
        v2.odataVersion = .v2
        let unchanged = try Data(contentsOf: URL(fileURLWithPath: path))
        let (s6, state6, error6) = try await Self.opened(v2)
        #expect(state6 == .failed)
        #expect(error6?.code == .protocol && error6?.message.contains("odata_version is 2 but the $metadata of the store file") == true,
                "\(String(describing: error6))")
        await s6.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == unchanged)
        var fresh = v2
        fresh.storePath = Self.temporaryPath("format-v2.store")
        let (s7, state7, error7) = try await Self.opened(fresh)
        #expect(state7 == .failed)
        #expect(error7?.code == .protocol && error7?.message.contains("odata_version is 2 but the service's $metadata is OData 4") == true,
                "\(String(describing: error7))")
        await s7.close()
        #expect(!FileManager.default.fileExists(atPath: fresh.storePath!))

        // A newer format: refused, the file unchanged.
        do {
            let c = try SQLiteConnection(path: path, create: false)
            try c.execute("PRAGMA user_version = 99")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let (s4, state4, error4) = try await Self.opened(options)
        #expect(state4 == .failed)
        #expect(error4?.code == .unsupported && error4?.message.contains("newer format") == true)
        await s4.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // Our application id with no format (0) or a negative one: not a store, the file
        // unchanged (it was an index out of range in the migrations, a trap).
        for format in [0, -1, Int(Int32.min)] {
            do {
                let c = try SQLiteConnection(path: path, create: false)
                try c.execute("PRAGMA user_version = \(format)")
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let (s5, state5, error5) = try await Self.opened(options)
            #expect(state5 == .failed)
            #expect(error5?.code == .invalidArgument && error5?.message.contains("is not an offline store file (its format number is \(format))") == true,
                    "\(String(describing: error5))")
            await s5.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        }
    }

    /// New files get 8 KiB pages; a file made with SQLite's 4 KiB pages (every file before
    /// the change) opens, answers the same and keeps its page size.
    @Test func aNewStoreHas8KiBPagesAndA4KiBStoreStillOpens() async throws {
        let server = try TestServer.start(.v4, pageSize: 100)
        defer { server.stop() }
        let path = Self.temporaryPath("pages.store")
        var options = StoreOptions(serviceRoot: server.serviceRoot)
        options.kind = .offline
        options.storePath = path
        options.definingRequests = ["Products", "Categories?$expand=Products($top=2)"]
        let (store, state, error) = try await Self.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        let reads = ["Products?$filter=Price gt 50&$orderby=Name desc,ID&$top=20", "Categories?$expand=Products($top=2)&$orderby=ID"]
        var answers: [String] = []
        for read in reads { answers.append(try await Self.run(store, read).get().json) }
        await store.close()
        func pageSize() throws -> Int64? {
            let c = try SQLiteConnection(path: path, create: false)
            guard case .integer(let size)? = try c.scalar("PRAGMA page_size") else { return nil }
            return size
        }
        #expect(try pageSize() == Int64(StoreFile.pageSize))
        #expect(StoreFile.pageSize == 8192)

        // The same file rewritten with 4 KiB pages (VACUUM changes it outside WAL mode only).
        do {
            let c = try SQLiteConnection(path: path, create: false)
            try SQLFunctions.register(on: c)  // the indexes use the store's collations
            try c.execute("PRAGMA journal_mode = DELETE")
            try c.execute("PRAGMA page_size = 4096")
            try c.execute("VACUUM")
            try c.execute("PRAGMA journal_mode = WAL")
        }
        #expect(try pageSize() == 4096)
        server.stop()
        var reopen = options
        reopen.definingRequests = []
        let (again, state2, error2) = try await Self.opened(reopen)
        #expect(state2 == .open, "\(String(describing: error2))")
        for (read, answer) in zip(reads, answers) {
            #expect(try JSONValue.parse(try await Self.run(again, read).get().json) == JSONValue.parse(answer), "\(read)")
        }
        await again.close()
        #expect(try pageSize() == 4096)
    }

    @Test func aFileThatIsNotAStoreIsRefusedAndLeftAlone() async throws {
        let path = Self.temporaryPath("notastore.store")
        let text = Array("just some text, not SQLite".utf8)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text))
        var options = StoreOptions(serviceRoot: "http://127.0.0.1:9/odata/")
        options.kind = .offline
        options.storePath = path
        options.definingRequests = ["Products"]
        let (store, state, error) = try await Self.opened(options)
        #expect(state == .failed)
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("not an offline store") == true)
        await store.close()
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == text)
    }
}

extension Result where Failure == RequestFailure {
    var failureCode: ErrorCode? {
        if case .failure(let f) = self { return f.error.code }
        return nil
    }
}
