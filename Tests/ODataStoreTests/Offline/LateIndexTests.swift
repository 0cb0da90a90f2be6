import Foundation
import Synchronization
import Testing
@testable import ODataStore

/// A first download into an empty table loads it without its secondary indexes (the
/// `CategoryID` index of a referential constraint) and makes them after its last page; a
/// download interrupted before that leaves them missing until the file is opened again, and
/// reads answer the same meanwhile.
@Suite("Offline store: secondary indexes of a first download", .serialized, .timeLimit(.minutes(3)))
struct LateIndexTests {
    static let index = "e:Products@CategoryID"

    static func indexes(_ path: String) throws -> [String] {
        try MembershipTests.rows(path, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'e:Products'").compactMap {
            if case .text(let t) = $0[0] { return t }
            return nil
        }
    }

    @Test func madeAfterTheLastPageOrWhenTheFileIsOpenedAgain() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = MembershipTests.options(server, "late.store", ["Categories"])
        options.downloadPageSize = 50
        let (store, state, error) = try await OfflineStoreTests.opened(options)
        #expect(state == .open, "\(String(describing: error))")
        let path = try #require(options.storePath)
        #expect(try Self.indexes(path).contains(Self.index))

        // Products, cancelled after its first page: loaded so far without the index.
        try store.addDefiningRequest("Products")
        let cancelled = Mutex(false)
        let first = try await withCheckedThrowingContinuation { (c: CheckedContinuation<Result<Void, ODataStoreError>, Error>) in
            do {
                try store.download(["Products"], progress: { s, _ in
                    if !cancelled.withLock({ let was = $0; $0 = true; return was }) { try? s.cancelDownload() }
                }) { _, r in c.resume(returning: r) }
            } catch {
                c.resume(throwing: error)
            }
        }
        if case .failure(let e) = first { #expect(e.code == .cancelled) } else { Issue.record("the cancelled download succeeded") }
        let partial = try await DownloadRefreshTests.count(store, "Products")
        #expect(partial > 0 && partial < 300, "\(partial)")
        #expect(try !Self.indexes(path).contains(Self.index))
        let category = try await DownloadRefreshTests.read(store, "Products?$filter=CategoryID eq 1&$select=ID")
        #expect((category["value"]?.arrayValue?.count ?? 0) > 0)
        await store.close()

        // Opened again (no download): the index is back; the download resumes and completes.
        var again = options
        again.definingRequests = []
        let (reopened, s2, e2) = try await OfflineStoreTests.opened(again)
        #expect(s2 == .open, "\(String(describing: e2))")
        defer { try? reopened.close() }
        #expect(try Self.indexes(path).contains(Self.index))
        try await DownloadRefreshTests.download(reopened, ["Products"]).0.get()
        #expect(try await DownloadRefreshTests.count(reopened, "Products") == 300)
        #expect(try Self.indexes(path).contains(Self.index))
    }

    @Test func aFirstDownloadInOnePageOrManyEndsWithItsIndexes() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        for pageSize in [1000, 70] {
            var options = MembershipTests.options(server, "pages\(pageSize).store", ["Products", "Categories?$expand=Products"])
            options.downloadPageSize = pageSize
            let (store, state, error) = try await OfflineStoreTests.opened(options)
            #expect(state == .open, "\(String(describing: error))")
            let path = try #require(options.storePath)
            #expect(try Self.indexes(path).contains(Self.index))
            #expect(try await DownloadRefreshTests.count(store, "Products") == 300)
            // The expanded products were there already (upserted again, linked by CategoryID).
            let seven = try await DownloadRefreshTests.read(store, "Categories(7)?$expand=Products($select=ID)")
            let filtered = try await DownloadRefreshTests.read(store, "Products?$filter=CategoryID eq 7&$select=ID")
            #expect((seven["Products"]?.arrayValue?.count ?? 0) > 0)
            #expect(seven["Products"]?.arrayValue?.count == filtered["value"]?.arrayValue?.count)
            await store.close()
        }
    }
}
