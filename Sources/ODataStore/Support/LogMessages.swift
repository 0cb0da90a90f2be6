/// The text of the library's log messages, kept here so a call site stays one line.
/// Never a header value, a body or a password: URLs pass through `URLRedaction`.
extension Log {
    /// Logs an exchange going out (debug) and returns the start time for `exchangeFinished`.
    static func exchangeStarted(_ request: HTTPRequest, retry: Int) -> UInt64 {
        debug(.http, "\(request.method) \(url(request.url)) started\(retry > 0 ? " (retry \(retry))" : "")")
        return max(MonotonicClock.now(), 1)
    }

    /// An exchange's outcome with its time (info; warning when no response came).
    static func exchangeFinished(_ request: HTTPRequest, _ result: Result<HTTPResponse, HTTPTransportError>, since start: UInt64) {
        switch result {
        case .success(let response):
            info(.http, "\(request.method) \(url(request.url)) -> \(response.status) in \(elapsed(since: start)), \(response.body.count) bytes")
        case .failure(.cancelled):
            info(.http, "\(request.method) \(url(request.url)) cancelled after \(elapsed(since: start))")
        case .failure(let error):
            warning(.http, "\(request.method) \(url(request.url)) failed after \(elapsed(since: start)): \(describe(error))")
        }
    }

    /// Why and when an exchange is tried again.
    static func retrying(_ request: HTTPRequest, _ result: Result<HTTPResponse, HTTPTransportError>, retry: Int, delay: Int) -> String {
        let why: String
        switch result {
        case .success(let response): why = "HTTP \(response.status)" + (response.header("Retry-After").map { " (Retry-After: \(ResponseErrors.printable($0, limit: 40)))" } ?? "")
        case .failure(let error): why = describe(error)
        }
        return "\(request.method) \(url(request.url)): retry \(retry + 1) in \(delay) ms after \(why)"
    }

    /// A request answered from the store's file: its outcome and time (info).
    static func localFinished(_ job: RequestJob, _ result: Result<Response, RequestFailure>, since start: UInt64) {
        switch result {
        case .success(let response):
            let what = job.mode == .read ? "\(response.entityCount) entit\(response.entityCount == 1 ? "y" : "ies")" : "stored"
            info(.local, "\(modeName(job.mode)) \(url(job.path)) -> \(response.status) in \(elapsed(since: start)), \(what)")
        case .failure(let failure):
            let status = failure.error.httpStatus > 0 ? "\(failure.error.httpStatus)" : "refused"
            info(.local, "\(modeName(job.mode)) \(url(job.path)) -> \(status) in \(elapsed(since: start)): \(failure.error.code.text)")
        }
    }

    /// The side a mixed store chose for a request, and why (debug).
    static func routed(_ job: RequestJob, to side: ResponseSource, because why: StaticString) {
        debug(.route, "\(modeName(job.mode)) \(url(job.path)) -> \(side == .offline ? "offline" : "online") (\(why))")
    }

    /// A request mode as a word (not the HTTP method: local requests send none).
    static func modeName(_ mode: RequestMode) -> String {
        switch mode {
        case .read: "READ"
        case .create: "CREATE"
        case .update: "UPDATE"
        case .updatePut: "UPDATE (PUT)"
        case .updateMerge: "UPDATE (MERGE)"
        case .updatePatch: "UPDATE (PATCH)"
        case .delete: "DELETE"
        case .function: "FUNCTION"
        }
    }

    static func describe(_ error: HTTPTransportError) -> String {
        switch error {
        case .unreachable(let m): "unreachable: " + url(m)
        case .timeout(let m): "timeout: " + url(m)
        case .cancelled: "cancelled"
        case .tls(let m): "TLS: " + url(m)
        case .io(let m): "connection: " + url(m)
        case .closed: "the store is closing"
        case .limit(_, let m): "limit: " + url(m)
        }
    }

    /// A logon reply by kind only: never a user name, password, token or header value.
    static func logonReply(_ id: UInt64, _ reply: LogonReply) -> String {
        switch reply {
        case .basic: "logon \(id) answered with basic credentials"
        case .bearer: "logon \(id) answered with a bearer token"
        case .headers(let lines): "logon \(id) answered with \(lines.count) header(s)"
        case .refuse: "logon \(id) refused by the app"
        }
    }

    static func opening(_ options: StoreOptions) -> String {
        "store opening: \(options.kind) store, service \(url(options.serviceRoot))" + (options.storePath.map { ", file \($0)" } ?? "")
    }

    static func opened(_ result: Result<Void, ODataStoreError>, held: Int) -> String {
        switch result {
        case .success: "store open" + (held > 0 ? ", \(held) held request(s) run now" : "")
        case .failure(let e): "store failed to open: \(e.code): \(url(e.message))"
        }
    }

    static func uploadFinished(_ result: Result<UploadResult, ODataStoreError>) -> String {
        switch result {
        case .success(let r): "upload finished: \(r.confirmed) confirmed, \(r.failed) refused and archived"
        case .failure(let e): "upload stopped: \(e.code): \(url(e.message))"
        }
    }

    static func recorded(_ failed: [Bool], readBack: Int) -> String {
        let refused = failed.filter { $0 }.count
        return "answers recorded: \(failed.count - refused) confirmed, \(refused) refused (archived)" + (readBack > 0 ? ", \(readBack) to read back" : "")
    }

    /// What kind of download a defining request gets: a delta (from the delta link of the last
    /// one), a resumed one (from the next link an interrupted one left), or a full one.
    static func downloadStarts(_ path: String, _ row: DefiningRequestRow, index: Int, count: Int) -> String {
        let kind = row.refresh == .delta ? "delta download" : row.nextLink != nil ? "resumed download"
            : row.refresh == .full ? "full download (refresh)" : "full download"
        return "\(path): \(kind) (\(index + 1) of \(count))"
    }
}
