import Synchronization

/// The engine of mixed stores: an offline engine (the store file) and an online engine over
/// the same `ServiceSession` (one transport, one CSRF token, one `$metadata`), and a router
/// that picks one of them per request when it executes.
///
/// Opening opens the offline part (the first download, as an offline store's); the online
/// part needs nothing more: the offline open installs the `$metadata` in the shared session.
/// Requests made meanwhile are held by the store, as for every kind.
///
/// The working mode is read when a request executes, so a switch applies to requests that
/// start executing afterwards; those executing finish on their side (and a held request
/// goes where the mode says when the store opens).
///
/// Threading: thread-safe; completions run on the side's thread (the database thread or the
/// transport's).
final class MixedEngine: RequestEngine {
    let offline: OfflineEngine
    let online: OnlineEngine
    private let mode = Atomic<Int32>(WorkingMode.mixed.rawValue)

    init(options: StoreOptions, progress: (@Sendable (DownloadProgress) -> Void)?) throws(ODataStoreError) {
        let session = try ServiceSession.make(options: options)
        do {
            offline = try OfflineEngine(options: options, session: session, progress: progress)
        } catch {
            session.shutdown()
            throw error
        }
        online = OnlineEngine(session: session)
    }

    var workingMode: WorkingMode {
        get { WorkingMode(rawValue: mode.load(ordering: .acquiring)) ?? .mixed }
        set { mode.store(newValue.rawValue, ordering: .releasing) }
    }

    var odataVersion: ODataVersion? { offline.odataVersion }
    var model: ServiceModel? { offline.model }

    func open(_ completion: @escaping @Sendable (Result<Void, ODataStoreError>) -> Void) {
        offline.open(completion)
    }

    /// The side that answers `job` now: the request's own route, else the working mode, else
    /// (mixed) the offline engine's verdict on what its file covers.
    func side(for job: RequestJob) -> ResponseSource { choose(job).side }

    /// The side and the reason for it (the log's `route` lines).
    private func choose(_ job: RequestJob) -> (side: ResponseSource, why: StaticString) {
        switch job.route {
        case .online: return (.online, "the request's route")
        case .offline: return (.offline, "the request's route")
        case .automatic: break
        }
        switch workingMode {
        case .online: return (.online, "working mode online")
        case .offline: return (.offline, "working mode offline")
        case .mixed:
            if job.mode == .function { return (.online, "function imports run on the service") }
            return offline.answersLocally(job) ? (.offline, "covered by the defining requests") : (.online, "not covered by the defining requests")
        }
    }

    func execute(_ job: RequestJob, completion: @escaping @Sendable (Result<Response, RequestFailure>) -> Void) -> EngineTask? {
        let (side, why) = choose(job)
        Log.routed(job, to: side, because: why)
        let engine: any RequestEngine = side == .offline ? offline : online
        return engine.execute(job) { result in
            completion(Self.mark(result, side))
        }
    }

    /// Records on the response (also a failure's service response) which side answered.
    private static func mark(_ result: Result<Response, RequestFailure>, _ side: ResponseSource) -> Result<Response, RequestFailure> {
        switch result {
        case .success(var response):
            response.isLocal = side == .offline
            return .success(response)
        case .failure(var failure):
            if var response = failure.response {
                response.isLocal = side == .offline
                failure.response = response
            }
            return .failure(failure)
        }
    }

    func shutdown() {
        // The offline engine shuts the shared session down.
        offline.shutdown()
    }
}

/// A mixed store's online and offline parts share one session, so logon prompts and
/// credentials are the same for both (docs/logon.md).
extension MixedEngine: ServiceSessionOwner {
    var session: ServiceSession { online.session }
}
