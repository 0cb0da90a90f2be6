import Foundation
import Testing
@testable import ODataStore

/// Upload through `$batch` to the real V4 service (odatapy), seen through the fault proxy so
/// the tests know what went over the wire: changesets per dependent group, Content-ID
/// references for entities the service keys, a refused changeset, the fall-back to one
/// request per change on the V2 service (pyslet has no `$batch`), and cancel between batches.
@Suite("Offline store: upload through $batch", .serialized, .timeLimit(.minutes(3)))
struct UploadBatchTests {
    /// A service, the fault proxy in front of it, and an offline store opened through the proxy.
    struct Setup {
        let server: TestServer
        let proxy: TestServer
        let store: Store
        let online: Store

        func stop() {
            try? store.close()
            try? online.close()
            proxy.stop()
            server.stop()
        }

        /// "METHOD target" of the requests the proxy saw since `from` (a count of log lines).
        func requests(from: Int = 0) throws -> [String] {
            let state = try JSONValue.parse(try proxy.faultState())
            return Array((state["log"]?.arrayValue ?? []).compactMap(\.stringValue).dropFirst(from))
        }

        /// Reads `path` from the service itself (not through the proxy).
        func service(_ path: String) async throws -> JSONValue {
            try JSONValue.parse(try await LocalWriteTests.run(online, .read, path).get().json)
        }
    }

    /// `metadata`, when given, edits the service's $metadata into the document the store is
    /// made from (`metadataPath`): an app's copy that differs from what the service checks.
    static func setup(_ kind: TestServer.Kind = .v4, sets: [String] = ["Products", "Categories", "Customers"],
                      configure: (inout StoreOptions) -> Void = { _ in },
                      metadata: ((String) -> String)? = nil) async throws -> Setup {
        let server = try TestServer.start(kind)
        let proxy = try TestServer.faultProxy(upstream: server.serviceRoot)
        var options = StoreOptions(serviceRoot: proxy.serviceRoot)
        options.kind = .offline
        options.storePath = OfflineStoreTests.temporaryPath("batch.store")
        options.definingRequests = sets
        if let metadata {
            let (status, document) = try server.rawRequest("GET", String(server.serviceRoot.dropFirst(server.origin.count)) + "$metadata")
            #expect(status == 200)
            let path = OfflineStoreTests.temporaryPath("metadata.xml")
            try metadata(String(decoding: document, as: UTF8.self)).write(toFile: path, atomically: true, encoding: .utf8)
            options.metadataPath = path
        }
        configure(&options)
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        let online = try Store(options: StoreOptions(serviceRoot: server.serviceRoot))
        return Setup(server: server, proxy: proxy, store: store, online: online)
    }

    static func write(_ store: Store, _ mode: RequestMode, _ path: String, _ body: String? = nil) async throws -> JSONValue {
        let r = try await LocalWriteTests.run(store, mode, path, body: body).get()
        return r.json.isEmpty ? .null : try JSONValue.parse(r.json)
    }

    static let product = #""Price":"2.50","Stock":"7","Discontinued":false"#

    /// Seven changes, one `$batch`: a category the service keys, a product created through its
    /// navigation (`$1/Products`), a product whose foreign key names it (bound to `$1`), a
    /// customer, two updates (one stale: 412, archived) and a delete.
    @Test func oneBatchWithContentIDReferences() async throws {
        let s = try await Self.setup()
        defer { s.stop() }
        _ = try await LocalWriteTests.run(s.online, .update, "Products(9)", body: #"{"Name":"Changed online"}"#) { try $0.setETag("*") }.get()

        let category = try await Self.write(s.store, .create, "Categories", #"{"Name":"Batch A"}"#)
        let local = try #require(category["ID"]?.int64Value)
        _ = try await Self.write(s.store, .create, "Categories(\(local))/Products", #"{"Name":"Under A",\#(Self.product)}"#)
        _ = try await Self.write(s.store, .create, "Products", #"{"Name":"Bound to A",\#(Self.product),"CategoryID":\#(local)}"#)
        _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"BAT1","CompanyName":"Batch","City":"Chur"}"#)
        _ = try await Self.write(s.store, .update, "Products(7)", #"{"Price":"70.70"}"#)
        _ = try await Self.write(s.store, .update, "Products(9)", #"{"Name":"Changed offline"}"#)
        _ = try await Self.write(s.store, .delete, "Products(8)")
        let before = try s.requests().count

        let (result, reports) = try await UploadTests.upload(s.store)
        #expect(try result.get() == UploadResult(confirmed: 6, failed: 1, remaining: 0))
        #expect(reports.map(\.sent) == [1, 2, 3, 4, 5, 6, 7])
        #expect(reports.last == UploadProgress(sent: 7, total: 7, failed: 1))
        let sent = try s.requests(from: before)
        #expect(sent.count == 1 && sent.first?.hasPrefix("POST ") == true && sent.first?.hasSuffix("/$batch") == true, "\(sent)")

        // The service has it all, the products in the new category under the key it gave.
        let categories = try await s.service("Categories?$filter=Name eq 'Batch A'")
        let server = try #require(categories["value"]?.arrayValue?.first?["ID"]?.int64Value)
        #expect(categories["value"]?.arrayValue?.count == 1)
        let inCategory = try await s.service("Products?$filter=CategoryID eq \(server)&$orderby=Name")
        #expect(inCategory["value"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Bound to A", "Under A"])
        #expect(try await s.service("Customers('BAT1')")["City"] == .string("Chur"))
        #expect(try await s.service("Products(7)")["Price"] == .string("70.70"))
        #expect(try await LocalWriteTests.run(s.online, .read, "Products(8)").failureCode == .notFound)
        #expect(try await s.service("Products(9)")["Name"] == .string("Changed online"))

        // Locally: the service's keys everywhere, nothing pending, the stale update archived.
        let mine = try JSONValue.parse(try await LocalWriteTests.run(s.store, .read, "Categories(\(server))?$expand=Products($orderby=Name)").get().json)
        #expect(mine["Products"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Bound to A", "Under A"])
        #expect(mine["Products"]?.arrayValue?.allSatisfy { $0["@odatastore.pending"] == nil && ($0["ID"]?.int64Value ?? 0) > 300 } == true)
        #expect(try s.store.keyMappings().count == 3 && s.store.keyMappings().allSatisfy { $0.serverPath != nil })
        #expect(try s.store.pendingChangeCount() == 0)
        let archive = try s.store.errorArchive()
        #expect(archive.map(\.httpStatus) == [412])
        #expect(archive.first?.path == "Products(9)" && archive.first?.method == "PATCH")
        #expect(archive.first?.message.contains("412") == true)
    }

    /// The shape of the `$batch` body: changes that depend on each other share a changeset;
    /// a change on its own is, in V4, a request of its own outside changesets (no changeset
    /// for the service to open and commit) and, in V2, a changeset of one. The V4 batch is
    /// then sent to the real service: every change confirmed, the one refused (412) archived.
    @Test func independentChangesStandOutsideChangesetsInV4() async throws {
        let s = try await Self.setup()
        defer { s.stop() }
        _ = try await LocalWriteTests.run(s.online, .update, "Products(9)", body: #"{"Name":"Changed online"}"#) { try $0.setETag("*") }.get()
        let category = try await Self.write(s.store, .create, "Categories", #"{"Name":"Shape A"}"#)
        let local = try #require(category["ID"]?.int64Value)
        _ = try await Self.write(s.store, .create, "Categories(\(local))/Products", #"{"Name":"Under Shape A",\#(Self.product)}"#)
        _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"SHP1","CompanyName":"Shape"}"#)
        _ = try await Self.write(s.store, .update, "Products(7)", #"{"Price":"71.10"}"#)
        _ = try await Self.write(s.store, .update, "Products(9)", #"{"Name":"Changed offline"}"#)

        // The plan the upload would send first, and its body in each version.
        let engine = try #require(s.store.engine as? OfflineEngine)
        let upload = Upload(session: engine.session, online: OnlineEngine(session: engine.session), store: engine.database, progress: nil)
        let plan = try engine.database.queue.sync { () throws(ODataStoreError) -> Upload.BatchPlan in
            let file = try engine.database.requireFile()
            let ids = try upload.sql { () throws(SQLiteError) in try ChangeQueue(connection: file.connection).ids() }
            upload.state.withLock { $0.ids = ids }
            return try upload.plan(file)
        }
        #expect(plan.changesets.map(\.count) == [2, 1, 1, 1])
        func shape(_ items: [BatchRequestItem]) -> [String] {
            items.map {
                switch $0 {
                case .request(let r): "\(r.method) \(r.url)\(r.contentID.map { " #" + $0 } ?? "")"
                case .changeset(let rs): "{" + rs.map { "\($0.method) \($0.url) #\($0.contentID ?? "-")" }.joined(separator: ", ") + "}"
                }
            }
        }
        let v4 = Upload.batchItems(plan, version: .v4)
        #expect(shape(v4) == ["{POST Categories #1, POST $1/Products #2}", "POST Customers", "PATCH Products(7)", "PATCH Products(9)"])
        // V2 (the same plan): only retrievals may stand outside changesets.
        #expect(shape(Upload.batchItems(plan, version: .v2)) == ["{POST Categories #1, POST $1/Products #2}", "{POST Customers #3}",
                                                               "{PATCH Products(7) #4}", "{PATCH Products(9) #5}"])
        // Each part keeps its change's own headers.
        if case .request(let r) = v4[1] {
            #expect(r.headers["Repeatability-Request-ID"] != nil && r.headers["Repeatability-First-Sent"] != nil)
        } else {
            Issue.record("the customer's create is not a request of its own: \(shape(v4))")
        }

        // Sent for real (the upload plans again from the same queue).
        let before = try s.requests().count
        let (result, _) = try await UploadTests.upload(s.store)
        #expect(try result.get() == UploadResult(confirmed: 4, failed: 1, remaining: 0))
        #expect(try s.requests(from: before).filter { $0.hasSuffix("$batch") }.count == 1)
        #expect(try await s.service("Customers('SHP1')")["CompanyName"] == .string("Shape"))
        #expect(try await s.service("Products(7)")["Price"] == .string("71.10"))
        let made = try await s.service("Categories?$filter=Name eq 'Shape A'&$expand=Products")
        #expect(made["value"]?.arrayValue?.first?["Products"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Under Shape A"])
        let archive = try s.store.errorArchive()
        #expect(archive.map(\.httpStatus) == [412])
        #expect(archive.first?.path == "Products(9)" && archive.first?.method == "PATCH")
        #expect(try s.store.pendingChangeCount() == 0)
    }

    /// A changeset the service refuses as a whole: the change its error names is archived,
    /// the change that depends on it (a create under it) waits, the other changesets go on;
    /// once the archived one is retried with corrected data, both go through.
    @Test func aRefusedChangesetArchivesItsFailingChangeAndTheRestWaits() async throws {
        // The app's copy of $metadata lacks the MaxLength (50) of Categories/Name that the
        // service checks: a longer name is taken offline and refused by the service (400).
        let s = try await Self.setup(metadata: { doc in
            let relaxed = doc.replacingOccurrences(of: #"Name="Name" Type="Edm.String" Nullable="false" MaxLength="50""#,
                                                   with: #"Name="Name" Type="Edm.String" Nullable="false""#)
            #expect(relaxed != doc, "the test service's Categories/Name is no longer MaxLength 50")
            return relaxed
        })
        defer { s.stop() }
        let category = try await Self.write(s.store, .create, "Categories", #"{"Name":"\#(String(repeating: "x", count: 60))"}"#)
        let local = try #require(category["ID"]?.int64Value)
        _ = try await Self.write(s.store, .create, "Categories(\(local))/Products", #"{"Name":"Waits",\#(Self.product)}"#)
        _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"BAT2","CompanyName":"Independent"}"#)
        _ = try await Self.write(s.store, .update, "Products(7)", #"{"Stock":"77"}"#)
        let before = try s.requests().count

        let (result, _) = try await UploadTests.upload(s.store)
        #expect(try result.get() == UploadResult(confirmed: 2, failed: 1, remaining: 1))
        #expect(try s.requests(from: before).filter { $0.hasSuffix("$batch") }.count == 1)
        let archive = try s.store.errorArchive()
        #expect(archive.map(\.httpStatus) == [400])
        #expect(archive.first?.path == "Categories" && archive.first?.method == "POST")
        #expect(try await s.service("Customers('BAT2')")["CompanyName"] == .string("Independent"))
        #expect(try await s.service("Products(7)")["Stock"] == .string("77"))
        #expect(try await s.service("Categories/$count")["value"] == .number("10"))
        let waiting = try JSONValue.parse(try await LocalWriteTests.run(s.store, .read, "Categories(\(local))/Products").get().json)
        #expect(waiting["value"]?.arrayValue?.first?["@odatastore.pending"] == .bool(true))

        // Corrected and retried: it goes back ahead of the product that waited for it.
        try s.store.retryError(id: try #require(archive.first?.id), body: #"{"Name":"Short enough"}"#)
        let (second, _) = try await UploadTests.upload(s.store)
        #expect(try second.get() == UploadResult(confirmed: 2, failed: 0, remaining: 0))
        let made = try await s.service("Categories?$filter=Name eq 'Short enough'&$expand=Products")
        #expect(made["value"]?.arrayValue?.first?["Products"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Waits"])
        #expect(try s.store.errorArchive().isEmpty)
    }

    /// More changes than `uploadBatchSize`: several `$batch` requests, in order; an update of
    /// an entity whose create is in the same changeset (a create sent before, whose answer
    /// never came: the update was queued apart) goes with it.
    @Test func severalBatchesInQueueOrder() async throws {
        let s = try await Self.setup { $0.uploadBatchSize = 4 }
        defer { s.stop() }
        for i in 1...10 {
            _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"N\#(i)","CompanyName":"Number \#(i)"}"#)
        }
        _ = try await Self.write(s.store, .update, "Customers('N3')", #"{"City":"Thun"}"#)  // combined into its create
        let before = try s.requests().count
        let (result, reports) = try await UploadTests.upload(s.store)
        #expect(try result.get() == UploadResult(confirmed: 10, failed: 0, remaining: 0))
        #expect(reports.map(\.sent) == Array(1...10))
        #expect(try s.requests(from: before).filter { $0.hasSuffix("$batch") }.count == 3)
        let all = try await s.service("Customers?$filter=startswith(CustomerID,'N')&$orderby=CustomerID")
        #expect(all["value"]?.arrayValue?.count == 10)
        #expect(try await s.service("Customers('N3')")["City"] == .string("Thun"))
    }

    /// The next `$batch` is planned while one is on its way, from the changes that touch and
    /// need none of its entities; a change that needs one (a create under a category the
    /// service keys, an update of an entity created in it) ends the batch planned ahead, and
    /// is built after the answer, with the key the service gave.
    @Test func theBatchPlannedAheadLeavesOutChangesThatNeedTheOneOnItsWay() async throws {
        let s = try await Self.setup { $0.uploadBatchSize = 2 }
        defer { s.stop() }
        let category = try await Self.write(s.store, .create, "Categories", #"{"Name":"Ahead K"}"#)
        let local = try #require(category["ID"]?.int64Value)
        _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"AH1","CompanyName":"Ahead 1"}"#)
        _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"AH2","CompanyName":"Ahead 2"}"#)
        _ = try await Self.write(s.store, .create, "Categories(\(local))/Products", #"{"Name":"Under Ahead K",\#(Self.product)}"#)
        _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"AH3","CompanyName":"Ahead 3"}"#)

        // Planned as the upload plans them: the first batch, then the one planned ahead of its answer.
        let engine = try #require(s.store.engine as? OfflineEngine)
        let upload = Upload(session: engine.session, online: OnlineEngine(session: engine.session), store: engine.database, progress: nil)
        let (first, ahead) = try engine.database.queue.sync { () throws(ODataStoreError) -> (Upload.BatchPlan, Upload.BatchPlan) in
            let file = try engine.database.requireFile()
            let ids = try upload.sql { () throws(SQLiteError) in try ChangeQueue(connection: file.connection).ids() }
            upload.state.withLock { $0.ids = ids }
            let first = try upload.plan(file)
            return (first, try upload.plan(file, excluding: first.rows))
        }
        #expect(first.requests.map(\.what) == ["POST Categories", "POST Customers"])
        // AH2 touches nothing of the first batch; the product needs the category's key: the batch ends there.
        #expect(ahead.requests.map(\.what) == ["POST Customers"])
        #expect(ahead.requests.first?.body.isEmpty == false && String(decoding: ahead.requests[0].body, as: UTF8.self).contains("AH2"))

        let (result, reports) = try await UploadTests.upload(s.store)
        #expect(try result.get() == UploadResult(confirmed: 5, failed: 0, remaining: 0))
        #expect(reports.map(\.sent) == Array(1...5))
        let made = try await s.service("Categories?$filter=Name eq 'Ahead K'&$expand=Products")
        #expect(made["value"]?.arrayValue?.first?["Products"]?.arrayValue?.compactMap { $0["Name"]?.stringValue } == ["Under Ahead K"])
        let customers = try await s.service("Customers?$filter=startswith(CustomerID,'AH')&$orderby=CustomerID")
        #expect(customers["value"]?.arrayValue?.compactMap { $0["CustomerID"]?.stringValue } == ["AH1", "AH2", "AH3"])
        #expect(try s.store.pendingChangeCount() == 0)
    }

    /// The app changes an entity whose create is in the batch planned ahead (not sent, not
    /// marked) while the batch before it is on its way: that plan is dropped and made again,
    /// so the create sends the newer values (it would otherwise send the row as it was
    /// planned, and the update would be lost with the confirmed create).
    @Test func aLocalWriteDropsTheBatchPlannedAhead() async throws {
        let s = try await Self.setup { $0.uploadBatchSize = 2 }
        defer { s.stop() }
        for i in 1...4 {
            _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"PA\#(i)","CompanyName":"Planned \#(i)","City":"Bern"}"#)
        }
        try s.proxy.setFault("slow", count: 1, delayMilliseconds: 800, match: "$batch")
        let store = s.store
        async let first = UploadTests.upload(store)
        try await Task.sleep(nanoseconds: 300_000_000)
        // PA3's create is not marked as sent: the write goes into it (no change of its own).
        _ = try await Self.write(s.store, .update, "Customers('PA3')", #"{"City":"Basel"}"#)
        let (result, reports) = try await first
        #expect(try result.get() == UploadResult(confirmed: 4, failed: 0, remaining: 0))
        #expect(reports.map(\.sent) == Array(1...4))
        #expect(try await s.service("Customers('PA3')")["City"] == .string("Basel"))
        #expect(try await s.service("Customers('PA4')")["City"] == .string("Bern"))
        #expect(try s.store.pendingChangeCount() == 0)
        let mine = try JSONValue.parse(try await LocalWriteTests.run(s.store, .read, "Customers('PA3')").get().json)
        #expect(mine["City"] == .string("Basel") && mine["@odatastore.pending"] == nil)
    }

    /// The app changes an entity whose create is on its way, and deletes another: the answer
    /// does not overwrite the newer local values, the deleted entity stays deleted (its queued
    /// delete gets the key the service gave), and the next upload sends both.
    @Test func changesMadeWhileTheBatchIsOnItsWay() async throws {
        let s = try await Self.setup()
        defer { s.stop() }
        _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"WAY1","CompanyName":"On its way","City":"Bern"}"#)
        let category = try await Self.write(s.store, .create, "Categories", #"{"Name":"Soon gone"}"#)
        let local = try #require(category["ID"]?.int64Value)
        // The $batch waits in the proxy; the local writes below are queued on the store's
        // database thread after the upload has built and marked it.
        try s.proxy.setFault("slow", count: 1, delayMilliseconds: 800, match: "$batch")
        let store = s.store
        async let first = UploadTests.upload(store)
        try await Task.sleep(nanoseconds: 100_000_000)
        _ = try await Self.write(s.store, .update, "Customers('WAY1')", #"{"City":"Basel"}"#)
        _ = try await Self.write(s.store, .delete, "Categories(\(local))")
        let (result, _) = try await first
        #expect(try result.get() == UploadResult(confirmed: 2, failed: 0, remaining: 2))
        let mine = try JSONValue.parse(try await LocalWriteTests.run(s.store, .read, "Customers('WAY1')").get().json)
        #expect(mine["City"] == .string("Basel") && mine["@odatastore.pending"] == .bool(true))
        let server = try #require(try await s.service("Categories?$filter=Name eq 'Soon gone'")["value"]?.arrayValue?.first?["ID"]?.int64Value)
        #expect(try await LocalWriteTests.run(s.store, .read, "Categories(\(server))").failureCode == .notFound)

        let (second, _) = try await UploadTests.upload(s.store)
        #expect(try second.get() == UploadResult(confirmed: 2, failed: 0, remaining: 0))
        #expect(try await s.service("Customers('WAY1')")["City"] == .string("Basel"))
        #expect(try await LocalWriteTests.run(s.online, .read, "Categories(\(server))").failureCode == .notFound)
    }

    /// `uploadBatchSize` 1: one request per change, no `$batch`.
    @Test func batchSizeOneSendsOneRequestPerChange() async throws {
        let s = try await Self.setup { $0.uploadBatchSize = 1 }
        defer { s.stop() }
        _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"ONE1","CompanyName":"One"}"#)
        _ = try await Self.write(s.store, .update, "Products(7)", #"{"Stock":"1"}"#)
        let before = try s.requests().count
        let (result, _) = try await UploadTests.upload(s.store)
        #expect(try result.get() == UploadResult(confirmed: 2, failed: 0, remaining: 0))
        let sent = try s.requests(from: before)
        #expect(sent.count == 2 && sent[0].hasPrefix("POST ") && sent[0].hasSuffix("/Customers") && sent[1].hasPrefix("PATCH "), "\(sent)")
    }

    /// The V2 service has no `$batch` (pyslet answers 404): the upload sends one request per
    /// change, and the store remembers it, so the next upload does not try `$batch` again.
    @Test func withoutBatchOneRequestPerChangeRemembered() async throws {
        let s = try await Self.setup(.v2, sets: ["Customers", "Products"])
        defer { s.stop() }
        _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"V2B1","CompanyName":"Two","City":"Sion"}"#)
        _ = try await Self.write(s.store, .update, "Products(7)", #"{"Name":"Seven in V2"}"#)
        var before = try s.requests().count
        let (first, _) = try await UploadTests.upload(s.store)
        #expect(try first.get() == UploadResult(confirmed: 2, failed: 0, remaining: 0))
        var sent = try s.requests(from: before)
        #expect(sent.count == 3 && sent[0].hasSuffix("/$batch") && sent[1].hasPrefix("POST ") && sent[2].hasPrefix("MERGE "), "\(sent)")
        #expect(try await s.service("Customers('V2B1')")["City"] == .string("Sion"))
        #expect(try await s.service("Products(7)")["Name"] == .string("Seven in V2"))

        _ = try await Self.write(s.store, .delete, "Customers('V2B1')")
        before = try s.requests().count
        let (second, _) = try await UploadTests.upload(s.store)
        #expect(try second.get() == UploadResult(confirmed: 1, failed: 0, remaining: 0))
        sent = try s.requests(from: before)
        #expect(sent.count == 1 && sent[0].hasPrefix("DELETE "), "\(sent)")
        #expect(try await LocalWriteTests.run(s.online, .read, "Customers('V2B1')").failureCode == .notFound)
    }

    /// Cancel between batches: the upload stops after the batch in flight; what it confirmed
    /// left the queue, the rest stays and the next upload sends it.
    @Test func cancelStopsBetweenBatches() async throws {
        let s = try await Self.setup { $0.uploadBatchSize = 2 }
        defer { s.stop() }
        for i in 1...6 {
            _ = try await Self.write(s.store, .create, "Customers", #"{"CustomerID":"C\#(i)","CompanyName":"Cancel \#(i)"}"#)
        }
        // Every $batch takes a while: time to cancel after the first answer.
        try s.proxy.setFault("slow", count: -1, delayMilliseconds: 300, match: "$batch")
        let store = s.store
        let result = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Result<UploadResult, ODataStoreError>, Error>) in
            do {
                try store.upload(progress: { st, p in if p.sent == 2 { try? st.cancelUpload() } }) { _, r in c.resume(returning: r) }
            } catch {
                c.resume(throwing: error)
            }
        }
        guard case .failure(let e) = result else { Issue.record("the upload was not cancelled: \(result)"); return }
        #expect(e.code == .cancelled)
        let left = try s.store.pendingChangeCount()
        #expect(left >= 2 && left <= 4, "\(left)")
        try s.proxy.clearFaults()
        let (rest, _) = try await UploadTests.upload(s.store)
        #expect(try rest.get().remaining == 0)
        let all = try await s.service("Customers?$filter=startswith(CustomerID,'C') and length(CustomerID) eq 2")
        #expect(all["value"]?.arrayValue?.count == 6)
    }
}
