import Foundation
import Synchronization
import Testing
@testable import ODataStore

/// The opening's first download commits without waiting for the disk (`PRAGMA synchronous =
/// NORMAL`) up to its last transaction, which waits (FULL) and makes the earlier ones durable
/// with it; the store opens with every commit durable again, also when the download fails;
/// later downloads (refreshes) and local writes always wait (docs/reliability.md, "First
/// download"). Against the real V4 service; the progress reports run on the database queue,
/// between the download's transactions, where the connection's setting is read.
@Suite("Offline store: durability of the first download", .serialized, .timeLimit(.minutes(3)))
struct FirstDownloadDurabilityTests {
    /// An offline engine opened as `Store` opens it, recording `PRAGMA synchronous` (durable or
    /// not) at each progress report, with whether the report ends its defining request.
    final class Probe: Sendable {
        let engine = Mutex<OfflineEngine?>(nil)
        let seen = Mutex<[(path: String, finished: Bool, durable: Bool)]>([])
        /// Cancels the download at the first report when set.
        let cancelAtFirst: Bool

        init(cancelAtFirst: Bool = false) { self.cancelAtFirst = cancelAtFirst }

        var progress: @Sendable (DownloadProgress) -> Void {
            { [self] p in
                guard let engine = engine.withLock({ $0 }) else { return }
                let durable = (try? engine.database.durableCommits()) ?? false
                let first = seen.withLock { s in
                    s.append((p.definingRequest, p.requestFinished, durable))
                    return s.count == 1
                }
                if first, cancelAtFirst { engine.state.withLock { $0.download }?.cancel() }
            }
        }

        func open(_ options: StoreOptions) async throws -> (OfflineEngine, Result<Void, ODataStoreError>) {
            let engine = try #require(try makeEngine(for: options, progress: progress) as? OfflineEngine)
            self.engine.withLock { $0 = engine }
            let result = await withCheckedContinuation { (c: CheckedContinuation<Result<Void, ODataStoreError>, Never>) in
                engine.open { c.resume(returning: $0) }
            }
            return (engine, result)
        }

        static func durable(_ engine: OfflineEngine) throws -> Bool {
            try engine.database.queue.sync { () throws(ODataStoreError) in try engine.database.durableCommits() }
        }
    }

    @Test func onlyTheLastCommitOfTheFirstDownloadWaitsThenEveryCommitDoes() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = MembershipTests.options(server, "durability.store", ["Products", "Categories"])
        options.downloadPageSize = 50
        let probe = Probe()
        let (engine, result) = try await probe.open(options)
        defer { engine.shutdown() }
        try result.get()
        let seen = probe.seen.withLock { $0 }
        // Several pages of Products, then Categories: only the very last report (after the
        // download's last transaction) sees durable commits.
        #expect(seen.count >= 7, "\(seen)")
        #expect(seen.dropLast().allSatisfy { !$0.durable }, "\(seen)")
        #expect(seen.last.map { $0.path == "Categories" && $0.finished && $0.durable } == true, "\(seen)")
        #expect(seen.contains { $0.path == "Products" && $0.finished && !$0.durable }, "\(seen)")
        #expect(try Probe.durable(engine))

        // A later download (a refresh) never relaxes: its every report sees durable commits.
        probe.seen.withLock { $0 = [] }
        let refreshed = await withCheckedContinuation { (c: CheckedContinuation<Result<Void, ODataStoreError>, Never>) in
            do throws(ODataStoreError) {
                try engine.download(paths: nil, progress: probe.progress) { c.resume(returning: $0) }
            } catch {
                c.resume(returning: .failure(error))
            }
        }
        try refreshed.get()
        let again = probe.seen.withLock { $0 }
        #expect(!again.isEmpty && again.allSatisfy(\.durable), "\(again)")
        #expect(try Probe.durable(engine))
        let path = try #require(options.storePath)
        #expect(try MembershipTests.rows(path, "SELECT count(*) FROM \"e:Products\"")[0][0] == .integer(300))
    }

    @Test func aFailedFirstDownloadLeavesCommitsDurableAndResumes() async throws {
        let server = try TestServer.start(.v4)
        defer { server.stop() }
        var options = MembershipTests.options(server, "durability-cancel.store", ["Products"])
        options.downloadPageSize = 50
        let probe = Probe(cancelAtFirst: true)
        let (engine, result) = try await probe.open(options)
        guard case .failure(let error) = result else {
            engine.shutdown()
            Issue.record("the cancelled first download succeeded")
            return
        }
        #expect(error.code == .cancelled)
        #expect(probe.seen.withLock { $0.first?.durable } == false)
        // Commits were made durable again before the open said it failed (finishOpening's
        // `restore`); then the failed store closed its file: its queries say so.
        #expect(throws: ODataStoreError.self) { try Probe.durable(engine) }
        engine.shutdown()
        let path = try #require(options.storePath)
        let partial = try MembershipTests.rows(path, "SELECT count(*) FROM \"e:Products\"")[0][0]
        #expect(partial == .integer(50), "\(partial)")

        // Opened again: the first download resumes (relaxed again: still nothing of the app's)
        // and the store opens complete and durable.
        let resumed = Probe()
        let (reopened, second) = try await resumed.open(options)
        defer { reopened.shutdown() }
        try second.get()
        let seen = resumed.seen.withLock { $0 }
        #expect(seen.dropLast().allSatisfy { !$0.durable } && seen.last?.durable == true, "\(seen)")
        #expect(try Probe.durable(reopened))
        #expect(try MembershipTests.rows(path, "SELECT count(*) FROM \"e:Products\"")[0][0] == .integer(300))
    }
}
