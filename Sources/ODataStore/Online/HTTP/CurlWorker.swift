#if canImport(Glibc)
import Glibc
#endif
import CCurl

/// The transport thread's side of a `CurlTransport`: owns the multi handle, the transfers in
/// flight and the pool of idle easy handles.
///
/// Thread confinement: created by `CurlTransport.init`, then touched only by the transport
/// thread (`run()`); that hand-over is the reason for `@unchecked Sendable`.
final class CurlWorker: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private let shared: CurlShared
    private let configuration: CurlTransportConfiguration
    private var active: [UInt64: CurlTransfer] = [:]
    private var byHandle: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// Cookies shared by every easy handle (session cookies such as SAP's, which a CSRF
    /// token is bound to). Used only on the transport thread, so it needs no lock callbacks.
    private let cookieShare: UnsafeMutableRawPointer?

    init(multi: UnsafeMutableRawPointer, shared: CurlShared, configuration: CurlTransportConfiguration) {
        self.multi = multi
        self.shared = shared
        self.configuration = configuration
        if configuration.cookies, let share = curl_share_init() {
            if ods_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue)) == CURLSHE_OK {
                cookieShare = share
            } else {
                curl_share_cleanup(share)
                cookieShare = nil
            }
        } else {
            cookieShare = nil
        }
    }

    /// The thread's body: runs until shutdown, then ends every transfer and frees libcurl state.
    func run() {
        while true {
            let (starts, cancels, stopping) = shared.inbox.withLock { inbox in
                let batch = (inbox.starts, inbox.cancels, inbox.shutdownRequested)
                inbox.starts.removeAll()
                inbox.cancels.removeAll()
                return batch
            }
            if stopping {
                // Sends that never started are closed; explicit cancels still say so.
                for pending in starts { pending.completion(.failure(.closed)) }
                for id in cancels { cancel(id) }
                break
            }
            for pending in starts { start(pending) }
            for id in cancels { cancel(id) }

            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinished()

            // Sleeps until socket activity, a libcurl timer, curl_multi_wakeup or 1 s.
            if curl_multi_poll(multi, nil, 0, 1000, nil) != CURLM_OK {
                usleep(10_000)  // never spin if polling fails
            }
        }
        closeEverything()
    }

    // MARK: - Starting

    private func start(_ pending: CurlPendingSend) {
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            pending.completion(.failure(.io("curl_easy_init failed")))
            return
        }
        let transfer = CurlTransfer(id: pending.id, easy: easy, maxBodyBytes: configuration.maxResponseBodyBytes,
                                    completion: pending.completion)
        if let problem = configure(transfer, for: pending.request) {
            recycle(easy)
            transfer.complete(.failure(problem))
            return
        }
        let added = curl_multi_add_handle(multi, easy)
        guard added == CURLM_OK else {
            recycle(easy)
            transfer.complete(.failure(.io("curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(added)))")))
            return
        }
        active[transfer.id] = transfer
        byHandle[easy] = transfer
        shared.requestsStarted.add(1, ordering: .relaxed)
    }

    /// Sets every option of one exchange; nil on success, else why the request cannot be sent.
    private func configure(_ transfer: CurlTransfer, for request: HTTPRequest) -> HTTPTransportError? {
        let easy = transfer.easy
        var failed: String?
        func long(_ option: CURLoption, _ value: Int, _ name: String) {
            if failed == nil, ods_curl_easy_setopt_long(easy, option, value) != CURLE_OK { failed = name }
        }
        func string(_ option: CURLoption, _ value: String, _ name: String) {
            if failed == nil, value.withCString({ ods_curl_easy_setopt_ptr(easy, option, $0) }) != CURLE_OK {
                failed = name
            }
        }
        func pointer(_ option: CURLoption, _ value: UnsafeRawPointer?, _ name: String) {
            if failed == nil, ods_curl_easy_setopt_ptr(easy, option, value) != CURLE_OK { failed = name }
        }

        // The request itself, checked before anything goes on the wire.
        guard HTTPSyntax.isToken(request.method) else {
            return .io("invalid HTTP method \"\(request.method)\"")
        }
        guard !request.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            return .io("the URL contains a space or a control character: \(request.url)")
        }
        if request.timeoutMilliseconds < 0 {
            return .io("negative timeoutMilliseconds \(request.timeoutMilliseconds)")
        }
        var list: UnsafeMutablePointer<curl_slist>?
        var hasContentType = false
        for (name, value) in request.headers {
            guard HTTPSyntax.isToken(name) else { return .io("invalid request header name \"\(name)\"") }
            guard HTTPSyntax.isFieldValue(value) else {
                return .io("request header \(name) contains CR, LF or NUL")
            }
            if asciiCaseInsensitiveEquals(name, "Content-Type") { hasContentType = true }
            // "Name;" is libcurl's way to send a header with an empty value.
            let line = value.isEmpty ? "\(name);" : "\(name): \(value)"
            guard appendHeader(line, to: &list) else { return .io("out of memory building request headers") }
        }
        // No "Expect: 100-continue" round trip; and no form content type invented by libcurl.
        guard appendHeader("Expect:", to: &list) else { return .io("out of memory building request headers") }
        if !hasContentType, !appendHeader("Content-Type:", to: &list) {
            return .io("out of memory building request headers")
        }
        transfer.headerList = list

        let context = UnsafeRawPointer(Unmanaged.passUnretained(transfer).toOpaque())
        long(CURLOPT_NOSIGNAL, 1, "NOSIGNAL")
        pointer(CURLOPT_ERRORBUFFER, UnsafeRawPointer(transfer.errorBuffer), "ERRORBUFFER")
        string(CURLOPT_URL, request.url, "URL")
        string(CURLOPT_PROTOCOLS_STR, "http,https", "PROTOCOLS_STR")
        string(CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "REDIR_PROTOCOLS_STR")
        pointer(CURLOPT_HTTPHEADER, UnsafeRawPointer(list), "HTTPHEADER")
        if failed == nil, ods_curl_easy_setopt_data_cb(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback) != CURLE_OK {
            failed = "WRITEFUNCTION"
        }
        pointer(CURLOPT_WRITEDATA, context, "WRITEDATA")
        if failed == nil, ods_curl_easy_setopt_data_cb(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback) != CURLE_OK {
            failed = "HEADERFUNCTION"
        }
        pointer(CURLOPT_HEADERDATA, context, "HEADERDATA")

        // Method and body.
        let method = request.method
        let body = request.body
        if method == "GET" && body.isEmpty {
            long(CURLOPT_HTTPGET, 1, "HTTPGET")
        } else if method == "HEAD" && body.isEmpty {
            long(CURLOPT_NOBODY, 1, "NOBODY")
        } else {
            if method != "POST" { string(CURLOPT_CUSTOMREQUEST, method, "CUSTOMREQUEST") }
            if !body.isEmpty || ["POST", "PUT", "PATCH", "MERGE"].contains(method) {
                // The size first, then a copy of the bytes (libcurl keeps its own copy).
                if failed == nil, ods_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) != CURLE_OK {
                    failed = "POSTFIELDSIZE_LARGE"
                }
                if body.isEmpty {
                    string(CURLOPT_COPYPOSTFIELDS, "", "COPYPOSTFIELDS")
                } else {
                    body.withUnsafeBytes { pointer(CURLOPT_COPYPOSTFIELDS, $0.baseAddress, "COPYPOSTFIELDS") }
                }
            }
        }

        // Limits, TLS, connection behaviour.
        let timeout = request.timeoutMilliseconds > 0 ? request.timeoutMilliseconds : configuration.defaultTimeoutMilliseconds
        long(CURLOPT_TIMEOUT_MS, timeout, "TIMEOUT_MS")
        long(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeoutMilliseconds, "CONNECTTIMEOUT_MS")
        long(CURLOPT_SSL_VERIFYPEER, configuration.verifyTLS ? 1 : 0, "SSL_VERIFYPEER")
        long(CURLOPT_SSL_VERIFYHOST, configuration.verifyTLS ? 2 : 0, "SSL_VERIFYHOST")
        if let ca = configuration.caBundlePath { string(CURLOPT_CAINFO, ca, "CAINFO") }
        string(CURLOPT_USERAGENT, configuration.userAgent, "USERAGENT")
        // "" disables proxies, including the ones named by environment variables.
        string(CURLOPT_PROXY, configuration.proxy ?? "", "PROXY")
        let version: Int
        switch configuration.httpVersion {
        case .http1_0: version = Int(CURL_HTTP_VERSION_1_0)
        case .http1_1: version = Int(CURL_HTTP_VERSION_1_1)
        case .http2OverTLS: version = Int(CURL_HTTP_VERSION_2TLS)
        }
        long(CURLOPT_HTTP_VERSION, version, "HTTP_VERSION")
        long(CURLOPT_FOLLOWLOCATION, configuration.followRedirects ? 1 : 0, "FOLLOWLOCATION")
        long(CURLOPT_MAXREDIRS, configuration.maxRedirects, "MAXREDIRS")
        if configuration.acceptCompressedResponses {
            string(CURLOPT_ACCEPT_ENCODING, "", "ACCEPT_ENCODING")  // "" = every encoding libcurl decodes
        }
        if let cookieShare {
            // The share holds the cookie jar; COOKIEFILE "" switches the handle's cookie engine
            // on. It also adds "" to the handle's list of cookie files, which curl_easy_reset
            // and curl_easy_cleanup in libcurl 7.88 do not free: `forgetCookieFiles` clears it
            // before either.
            pointer(CURLOPT_SHARE, UnsafeRawPointer(cookieShare), "SHARE")
            string(CURLOPT_COOKIEFILE, "", "COOKIEFILE")
        }
        if let failed {
            return .io("curl_easy_setopt(\(failed)) failed")
        }
        return nil
    }

    private func appendHeader(_ line: String, to list: inout UnsafeMutablePointer<curl_slist>?) -> Bool {
        guard let appended = line.withCString({ curl_slist_append(list, $0) }) else { return false }
        list = appended
        return true
    }

    // MARK: - Finishing

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = ods_curl_msg_result(message)  // read before remove_handle invalidates it
            guard let transfer = byHandle.removeValue(forKey: easy) else { continue }
            active[transfer.id] = nil

            var connects = 0
            if ods_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK {
                shared.connectionsOpened.add(connects, ordering: .relaxed)
            }
            let result: Result<HTTPResponse, HTTPTransportError>
            if code == CURLE_OK {
                var status = 0
                _ = ods_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                if status > 0 {
                    result = .success(HTTPResponse(status: status, headers: transfer.responseHeaders, body: transfer.body))
                } else {
                    result = .failure(.io("the transfer ended without an HTTP status"))
                }
            } else if let failure = transfer.callbackFailure {
                result = .failure(failure)
            } else {
                result = .failure(.fromCurl(code, detail: transfer.errorText))
            }
            _ = curl_multi_remove_handle(multi, easy)
            recycle(easy)
            shared.requestsCompleted.add(1, ordering: .relaxed)
            transfer.complete(result)
        }
    }

    private func cancel(_ id: UInt64) {
        guard let transfer = active.removeValue(forKey: id) else { return }  // already finished
        byHandle[transfer.easy] = nil
        _ = curl_multi_remove_handle(multi, transfer.easy)
        recycle(transfer.easy)
        transfer.complete(.failure(.cancelled))
    }

    /// Returns an easy handle to the pool (reset to defaults) or frees it.
    /// Clears the handle's list of cookie files (see `configure`); the jar stays in the share.
    private func forgetCookieFiles(_ easy: UnsafeMutableRawPointer) {
        if cookieShare != nil { _ = ods_curl_easy_setopt_ptr(easy, CURLOPT_COOKIEFILE, nil) }
    }

    private func recycle(_ easy: UnsafeMutableRawPointer) {
        forgetCookieFiles(easy)
        if idleHandles.count < configuration.easyHandlePoolSize {
            curl_easy_reset(easy)
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }

    /// Shutdown: every transfer still in flight ends with `.closed`; libcurl state is freed.
    private func closeEverything() {
        let inFlight = active.values.sorted { $0.id < $1.id }
        active.removeAll()
        byHandle.removeAll()
        for transfer in inFlight {
            _ = curl_multi_remove_handle(multi, transfer.easy)
            forgetCookieFiles(transfer.easy)
            curl_easy_cleanup(transfer.easy)
            transfer.complete(.failure(.closed))
        }
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
        if let cookieShare { curl_share_cleanup(cookieShare) }
    }
}

/// Syntax checks for what goes into a request line and header fields (RFC 9110).
enum HTTPSyntax {
    /// token = 1*tchar
    static func isToken(_ s: String) -> Bool {
        guard !s.isEmpty else { return false }
        return s.utf8.allSatisfy { c in
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
                 UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                return true
            default:
                return false
            }
        }
    }

    /// A field value must not contain CR, LF or NUL (header injection).
    static func isFieldValue(_ s: String) -> Bool {
        !s.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}
