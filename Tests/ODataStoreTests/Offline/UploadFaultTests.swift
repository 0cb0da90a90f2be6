import Foundation
import Testing
@testable import ODataStore

/// Upload under faults from the proxy in front of the real V4 service (never a mock): the
/// connection reset after the service applied a `$batch`, its answer cut short (two ways), a
/// 500, a 429 with Retry-After (short enough to wait for, and too long). Afterwards the
/// service's data is read over HTTP: nothing lost, nothing done twice; and the queue and the
/// error archive say what happened.
///
/// odatapy ignores Repeatability-Request-ID (it is a 4.01 header), so these tests exercise
/// the checks the store makes when a change is sent again: a create with the app's key
/// answered 409 and an update answered 412 are read back, a delete answered 404 is done, a
/// create the service keys is archived as uncertain instead of being sent twice.
@Suite("Offline store: upload under faults", .serialized, .timeLimit(.minutes(4)))
struct UploadFaultTests {
    typealias Setup = UploadBatchTests.Setup

    /// Five changes of all kinds; returns the category's local key.
    static func fiveChanges(_ s: Setup) async throws -> Int64 {
        _ = try await UploadBatchTests.write(s.store, .create, "Customers", #"{"CustomerID":"FLT1","CompanyName":"Fault","City":"Aarau"}"#)
        let category = try await UploadBatchTests.write(s.store, .create, "Categories", #"{"Name":"Fault cat"}"#)
        _ = try await UploadBatchTests.write(s.store, .update, "Products(7)", #"{"Price":"70.70"}"#)
        _ = try await UploadBatchTests.write(s.store, .delete, "Products(8)")
        _ = try await UploadBatchTests.write(s.store, .update, "Products(10)", #"{"Name":"Ten after a fault"}"#)
        #expect(try s.store.pendingChangeCount() == 5)
        return try #require(category["ID"]?.int64Value)
    }

    /// The service's data: each change exactly once (`categories`: how many "Fault cat").
    static func checkService(_ s: Setup, categories: Int) async throws {
        #expect(try await s.service("Customers?$filter=CustomerID eq 'FLT1'")["value"]?.arrayValue?.count == 1)
        #expect(try await s.service("Customers('FLT1')")["City"] == .string("Aarau"))
        #expect(try await s.service("Categories?$filter=Name eq 'Fault cat'")["value"]?.arrayValue?.count == categories)
        #expect(try await s.service("Products(7)")["Price"] == .string("70.70"))
        #expect(try await LocalWriteTests.run(s.online, .read, "Products(8)").failureCode == .notFound)
        #expect(try await s.service("Products(10)")["Name"] == .string("Ten after a fault"))
        #expect(try await s.service("Products/$count")["value"] == .number("299"))
    }

    /// The service applied the `$batch`, the answer was lost (reset, cut short with the
    /// connection closed, cut short in a well-formed response): the upload fails and keeps
    /// every change; the next one sends them again and checks, so each is done once; the
    /// create the service keys is archived as uncertain, and reverting it is the app's call
    /// after it looked (the service has it once).
    @Test(arguments: ["reset_after", "truncate", "truncate_body"])
    func answerLostAfterTheServiceApplied(mode: String) async throws {
        let s = try await UploadBatchTests.setup()
        defer { s.stop() }
        let local = try await Self.fiveChanges(s)
        try s.proxy.setFault(mode, count: 1, match: "$batch")

        let (first, _) = try await UploadTests.upload(s.store)
        guard case .failure(let e) = first else { Issue.record("\(mode): the upload succeeded: \(first)"); return }
        // A broken connection, or an answer whose multipart body ends too early.
        #expect(e.code == (mode == "truncate_body" ? .protocol : .io), "\(mode): \(e)")
        #expect(try s.store.pendingChangeCount() == 5)
        #expect(try s.store.errorArchive().isEmpty)
        try await Self.checkService(s, categories: 1)  // the service did it all

        let (second, _) = try await UploadTests.upload(s.store)
        #expect(try second.get() == UploadResult(confirmed: 4, failed: 1, remaining: 0), "\(mode)")
        try await Self.checkService(s, categories: 1)  // and nothing twice
        let archive = try s.store.errorArchive()
        #expect(archive.count == 1)
        #expect(archive.first?.path == "Categories" && archive.first?.odataCode == "uncertain", "\(archive)")
        // The entities read back carry the service's ETags now.
        let seven = try JSONValue.parse(try await LocalWriteTests.run(s.store, .read, "Products(7)").get().json)
        let serverSeven = try await s.service("Products(7)")
        #expect(seven["@odata.etag"] != nil && seven["@odata.etag"] == serverSeven["@odata.etag"])
        #expect(seven["@odatastore.pending"] == nil)

        // The app looked: the service made it. Reverting drops the local copy of the create.
        try await UploadTests.revert(s.store, try #require(archive.first?.id)).get()
        #expect(try await LocalWriteTests.run(s.store, .read, "Categories(\(local))").failureCode == .notFound)
        #expect(try s.store.pendingChangeCount() == 0 && s.store.errorArchive().isEmpty)
        try await Self.checkService(s, categories: 1)
    }

    /// A 500 to the `$batch` (the proxy answers it; the service never sees it): the upload
    /// stops, keeps every change; the next one sends them again (done once); the create the
    /// service keys is archived as uncertain (a 500 does not say it was not made), and the
    /// app, having looked, retries it: made once.
    @Test func serverErrorKeepsEverything() async throws {
        let s = try await UploadBatchTests.setup()
        defer { s.stop() }
        _ = try await Self.fiveChanges(s)
        try s.proxy.setFault("http500", count: 1, match: "$batch")
        let (first, _) = try await UploadTests.upload(s.store)
        guard case .failure(let e) = first else { Issue.record("the upload succeeded: \(first)"); return }
        #expect(e.httpStatus == 500)
        #expect(try s.store.pendingChangeCount() == 5)
        #expect(try await s.service("Categories?$filter=Name eq 'Fault cat'")["value"]?.arrayValue?.count == 0)

        let (second, _) = try await UploadTests.upload(s.store)
        #expect(try second.get() == UploadResult(confirmed: 4, failed: 1, remaining: 0))
        let archive = try s.store.errorArchive()
        #expect(archive.map(\.odataCode) == ["uncertain"])
        #expect(try await s.service("Categories?$filter=Name eq 'Fault cat'")["value"]?.arrayValue?.count == 0)

        try s.store.retryError(id: try #require(archive.first?.id))
        let (third, _) = try await UploadTests.upload(s.store)
        #expect(try third.get() == UploadResult(confirmed: 1, failed: 0, remaining: 0))
        try await Self.checkService(s, categories: 1)
        #expect(try s.store.keyMappings().first?.serverPath == "Categories(11)")
    }

    /// 429 with a Retry-After short enough to wait for: the upload waits and sends the same
    /// `$batch` again; everything is done once, nothing is archived.
    @Test func tooManyRequestsWaitsAndSendsAgain() async throws {
        let s = try await UploadBatchTests.setup()
        defer { s.stop() }
        _ = try await Self.fiveChanges(s)
        try s.proxy.setFault("http503", count: 1, match: "$batch", status: 429, retryAfter: "1")
        let before = try s.requests().count
        let (result, _) = try await UploadTests.upload(s.store)
        #expect(try result.get() == UploadResult(confirmed: 5, failed: 0, remaining: 0))
        #expect(try s.requests(from: before).filter { $0.hasSuffix("$batch") }.count == 2)
        #expect(try s.store.errorArchive().isEmpty)
        try await Self.checkService(s, categories: 1)
    }

    /// 429 with a Retry-After too long to wait for: the upload stops and reports it; the
    /// service did nothing, so the changes are as if never sent, and the next upload makes
    /// the category the service keys (not archived as uncertain).
    @Test func tooManyRequestsForTooLongStops() async throws {
        let s = try await UploadBatchTests.setup()
        defer { s.stop() }
        _ = try await Self.fiveChanges(s)
        try s.proxy.setFault("http503", count: 1, match: "$batch", status: 429, retryAfter: "3600")
        let (first, _) = try await UploadTests.upload(s.store)
        guard case .failure(let e) = first else { Issue.record("the upload succeeded: \(first)"); return }
        #expect(e.httpStatus == 429)
        #expect(try s.store.pendingChangeCount() == 5)
        let (second, _) = try await UploadTests.upload(s.store)
        #expect(try second.get() == UploadResult(confirmed: 5, failed: 0, remaining: 0))
        #expect(try s.store.errorArchive().isEmpty)
        try await Self.checkService(s, categories: 1)
    }

    /// One request per change (uploadBatchSize 1): the connection reset after the service
    /// applied a create with the app's key and an update; the next upload reads them back.
    @Test func resetAfterSingleRequests() async throws {
        let s = try await UploadBatchTests.setup { $0.uploadBatchSize = 1 }
        defer { s.stop() }
        _ = try await Self.fiveChanges(s)
        try s.proxy.setFault("reset_after", count: 1, match: "/Customers")
        var (result, _) = try await UploadTests.upload(s.store)
        guard case .failure = result else { Issue.record("the upload succeeded: \(result)"); return }
        #expect(try s.store.pendingChangeCount() == 5)
        try s.proxy.setFault("reset_after", count: 1, match: "Products(7)")
        (result, _) = try await UploadTests.upload(s.store)
        guard case .failure = result else { Issue.record("the upload succeeded: \(result)"); return }
        // The customer was read back and confirmed; the category made; the update of 7 lost its answer.
        #expect(try s.store.pendingChangeCount() == 3)
        (result, _) = try await UploadTests.upload(s.store)
        #expect(try result.get() == UploadResult(confirmed: 3, failed: 0, remaining: 0))
        #expect(try s.store.errorArchive().isEmpty)
        try await Self.checkService(s, categories: 1)
    }

    /// The V2 service (one request per change): a 503 with Retry-After is waited for.
    @Test func unavailableOnV2WaitsAndSendsAgain() async throws {
        let s = try await UploadBatchTests.setup(.v2, sets: ["Customers"])
        defer { s.stop() }
        _ = try await UploadBatchTests.write(s.store, .create, "Customers", #"{"CustomerID":"V2F1","CompanyName":"Later"}"#)
        try s.proxy.setFault("http503", count: 1, match: "/Customers", retryAfter: "1")
        let (result, _) = try await UploadTests.upload(s.store)
        #expect(try result.get() == UploadResult(confirmed: 1, failed: 0, remaining: 0))
        #expect(try await s.service("Customers('V2F1')")["CompanyName"] == .string("Later"))
    }
}
