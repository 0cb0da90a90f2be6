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
    // Confined to the transport thread (no dynamic exclusivity checks needed).
    @exclusivity(unchecked) private var active: [UInt64: CurlTransfer] = [:]
    @exclusivity(unchecked) private var idleHandles: [CurlEasy] = []
    /// Sends not yet handed to libcurl, in order: at most `maxActive` transfers are in libcurl
    /// at once (it could not run more: they would wait for a connection, each holding an easy
    /// handle, and libcurl 7.88 scans its pending list on every removal, which made closing
    /// with many requests pending quadratic). Waiting here costs no libcurl state.
    @exclusivity(unchecked) private var queued: [UInt64: CurlPendingSend] = [:]
    @exclusivity(unchecked) private var queueOrder: [UInt64] = []
    @exclusivity(unchecked) private var queueHead = 0
    /// Sends whose `notBefore` is still ahead (retries waiting out their backoff), earliest first.
    @exclusivity(unchecked) private var delayed: [CurlPendingSend] = []
    private var maxActive: Int { max(configuration.maxTotalConnections, 1) }
    /// Cookies shared by every easy handle (session cookies such as SAP's, which a CSRF
    /// token is bound to). Used only on the transport thread, so it needs no lock callbacks.
    private let cookieShare: UnsafeMutableRawPointer?

    /// The sockets and timer libcurl asks for, and the wake-up descriptor (`CurlSocketTable`).
    private let sockets: CurlSocketTable
    /// The pipe other threads write a byte to to wake the worker (`CurlShared.wakeWorker`);
    /// closed by the worker after it retired it.
    private let wakeFDs: (read: Int32, write: Int32)
    /// Drains the wake-up pipe (reused).
    @exclusivity(unchecked) private var drainBuffer = [UInt8](repeating: 0, count: 64)
    /// Sockets poll() found ready, with their CURL_CSELECT_* bits (reused between rounds).
    @exclusivity(unchecked) private var ready: [(socket: Int32, bits: Int32, invalid: Bool)] = []

    /// User-Agent and Accept-Encoding as header lines of their own, put first in every
    /// request's header list (unless the request sets that header itself) instead of
    /// CURLOPT_USERAGENT and CURLOPT_ACCEPT_ENCODING's header: libcurl 7.88 formats those two
    /// with its printf engine, one character at a time, into a string of their own on every
    /// exchange and then again into the request (about 8,000 instructions per GET); a list
    /// line is formatted once. The same bytes go on the wire; only a Cookie header, which
    /// libcurl puts before the list, now comes before them.
    private let standardHeaders: [(name: String, line: String)]

    /// Nil when libcurl refuses the socket callbacks (the caller frees `multi` and the pipe).
    init?(multi: UnsafeMutableRawPointer, wakeFDs: (read: Int32, write: Int32), shared: CurlShared,
          configuration: CurlTransportConfiguration) {
        self.multi = multi
        self.shared = shared
        self.configuration = configuration
        var standard: [(name: String, line: String)] = []
        if !configuration.userAgent.isEmpty {  // CURLOPT_USERAGENT "" sent none either
            standard.append(("User-Agent", "User-Agent: \(configuration.userAgent)"))
        }
        if configuration.acceptCompressedResponses {
            standard.append(("Accept-Encoding", "Accept-Encoding: \(Self.decodableEncodings())"))
        }
        standardHeaders = standard
        self.wakeFDs = wakeFDs
        let sockets = CurlSocketTable(wakeFD: wakeFDs.read)
        guard sockets.install(on: multi) else { return nil }
        self.sockets = sockets
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
        // Yields the CPU to the callbacks it queues while they run (`YieldingProducer`).
        let producer = configuration.batchScheduling ? YieldingProducer.forCurrentThread() : nil
        shared.setProducer(producer)
        while true {
            let (starts, cancels, resumes, stopping) = shared.inbox.withLock { inbox in
                let batch = (inbox.starts, inbox.cancels, inbox.resumes, inbox.shutdownRequested)
                inbox.starts.removeAll()
                inbox.cancels.removeAll()
                inbox.resumes.removeAll()
                return batch
            }
            if stopping {
                // Sends that never started are closed; explicit cancels still say so.
                for id in cancels { cancel(id) }
                for pending in starts { pending.completion(.failure(.closed)) }
                break
            }
            for pending in starts { enqueue(pending) }
            for id in cancels { cancel(id) }
            for id in resumes { resume(id) }
            releaseDueDelayed()
            startQueued()

            // The callback threads are woken once, after every finished exchange is queued; a
            // store in ODS_DISPATCH_THREAD_INLINE whose callback thread is idle has this thread
            // run the batch instead (`CallbackQueue.burstEnded`): the requests its callbacks
            // start land in the inbox while this thread is awake, and are sent below, before
            // it sleeps.
            DeferredWakeups.deferring(producer: producer, runsCallbacks: true) {
                drive()
                collectFinished()
            }
            releaseDueDelayed()
            if !queued.isEmpty && active.count < maxActive {
                startQueued()
                continue  // start the new transfers before sleeping
            }
            if sockets.timerDue(now: MonotonicClock.now()) { continue }  // e.g. a transfer just added

            // Sleeps until socket activity, libcurl's timer, a wake-up or 1 s, unless work
            // arrived meanwhile (senders wake the worker only while it sleeps).
            producer?.willSleep()  // first: a wake-up claimed after this is noted (`noteWoken`)
            let sleep = shared.inbox.withLock { inbox -> Bool in
                guard inbox.isEmpty else { return false }
                inbox.workerSleeping = true
                return true
            }
            if sleep {
                let now = MonotonicClock.now()
                var timeout = sockets.pollTimeout(limit: 1000, now: now)
                if let first = delayed.first {
                    let ms = first.notBefore > now ? (first.notBefore - now + 999_999) / 1_000_000 : 0
                    timeout = Int32(min(UInt64(timeout), ms))
                }
                let polled = sockets.fds.withUnsafeMutableBufferPointer { fds in
                    poll(fds.baseAddress, nfds_t(fds.count), timeout)
                }
                let pollErrno = errno
                shared.inbox.withLock { inbox in
                    inbox.workerSleeping = false
                    inbox.wakeupSent = false
                }
                if polled > 0 {
                    collectReady()
                } else if polled == 0 {
                    shared.notePollTimeout()
                } else if pollErrno != EINTR {
                    usleep(10_000)  // never spin if polling fails
                }
            }
            producer?.didWake()
        }
        closeEverything()
        producer?.retire()
        // Stores in ODS_DISPATCH_THREAD_INLINE whose callbacks ran here: their thread-end
        // handlers (ods_store_set_thread_end) run now, on this thread.
        DeferredWakeups.threadEnding()
    }

    // MARK: - Driving libcurl

    /// Notes the sockets poll() found ready (libcurl's callbacks may change `sockets.fds`
    /// while they are handled) and drains the wake-up descriptor.
    private func collectReady() {
        for i in sockets.fds.indices {
            let revents = sockets.fds[i].revents
            guard revents != 0 else { continue }
            sockets.fds[i].revents = 0
            if i == 0 {
                // Senders write one byte per sleep (`CurlInbox.claimWakeup`): one read
                // empties the pipe, unless a full buffer says more may wait.
                while drainBuffer.withUnsafeMutableBytes({ read(wakeFDs.read, $0.baseAddress, $0.count) }) == drainBuffer.count {}
            } else {
                ready.append((sockets.fds[i].fd, curlSelectBits(revents), revents & Int16(POLLNVAL) != 0))
            }
        }
    }

    /// Runs libcurl on the sockets poll() found ready, then on its expired timer: only the
    /// transfers concerned, none of them polling its socket again.
    private func drive() {
        var running: Int32 = 0
        if !ready.isEmpty {
            for (socket, bits, invalid) in ready {
                _ = curl_multi_socket_action(multi, socket, bits, &running)
                // Closed without libcurl saying so first (it always does): never poll it again.
                if invalid { sockets.update(socket, what: CURL_POLL_REMOVE) }
            }
            ready.removeAll(keepingCapacity: true)
        }
        let now = MonotonicClock.now()
        guard sockets.timerDue(now: now) else { return }
        sockets.timerUpdated = false
        _ = curl_multi_socket_action(multi, ods_curl_socket_timeout(), 0, &running)
        if !sockets.timerUpdated, sockets.timerDue(now: now) {
            // libcurl kept the same timer (it had not quite expired by its clock) and will not
            // announce it again: look again in a millisecond rather than spin.
            sockets.timerDeadline = now + 1_000_000
        }
    }

    // MARK: - Starting

    private func enqueue(_ pending: CurlPendingSend) {
        if pending.notBefore > 0, pending.notBefore > MonotonicClock.now() {
            let at = delayed.firstIndex { $0.notBefore > pending.notBefore } ?? delayed.count
            delayed.insert(pending, at: at)
            return
        }
        queued[pending.id] = pending
        queueOrder.append(pending.id)
    }

    /// Moves delayed sends whose time has come to the queue.
    private func releaseDueDelayed() {
        guard let first = delayed.first else { return }
        let now = MonotonicClock.now()
        guard first.notBefore <= now else { return }
        let due = delayed.prefix { $0.notBefore <= now }
        delayed.removeFirst(due.count)
        for pending in due {
            queued[pending.id] = pending
            queueOrder.append(pending.id)
        }
    }

    /// Hands queued sends to libcurl while fewer than `maxActive` transfers run.
    private func startQueued() {
        while active.count < maxActive, queueHead < queueOrder.count {
            let id = queueOrder[queueHead]
            queueHead += 1
            if let pending = queued.removeValue(forKey: id) { start(pending) }  // else cancelled while queued
        }
        if queueHead == queueOrder.count {
            queueOrder.removeAll(keepingCapacity: queueOrder.count < 4096)
            queueHead = 0
        } else if queueHead > 4096, queueHead * 2 > queueOrder.count {
            queueOrder.removeFirst(queueHead)
            queueHead = 0
        }
    }

    private func start(_ pending: CurlPendingSend) {
        guard let easy = idleHandles.popLast() ?? CurlEasy() else {
            pending.completion(.failure(.io("curl_easy_init failed")))
            return
        }
        let transfer = CurlTransfer(id: pending.id, easy: easy, maxBodyBytes: configuration.maxResponseBodyBytes,
                                    maxCompressionRatio: configuration.maxCompressionRatio,
                                    compressionRatioThreshold: configuration.compressionRatioThreshold,
                                    sink: pending.request.bodySink, expectsBody: pending.request.method != "HEAD",
                                    completion: pending.completion)
        if transfer.sink != nil {
            let shared = shared, id = pending.id
            transfer.resume = { shared.requestResume(id) }
        }
        if let problem = configure(transfer, for: pending.request) {
            recycle(easy)
            transfer.complete(.failure(problem))
            return
        }
        let added = curl_multi_add_handle(multi, easy.handle)
        guard added == CURLM_OK else {
            recycle(easy)
            transfer.complete(.failure(.io("curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(added)))")))
            return
        }
        active[transfer.id] = transfer
        shared.requestsStarted.add(1, ordering: .relaxed)
    }

    /// Sets the options of one exchange; nil on success, else why the request cannot be sent.
    /// The handle keeps its constant options and, for plain GETs, everything that did not
    /// change since its previous exchange (see `CurlEasy`).
    private func configure(_ transfer: CurlTransfer, for request: HTTPRequest) -> HTTPTransportError? {
        let easy = transfer.easy
        let handle = easy.handle

        // The request itself, checked before anything goes on the wire.
        guard HTTPSyntax.isToken(request.method) else {
            return .io("invalid HTTP method \"\(request.method)\"")
        }
        guard !Self.hasSpaceOrControl(request.url) else {
            return .io("the URL contains a space or a control character: \(request.url)")
        }
        if request.timeoutMilliseconds < 0 {
            return .io("negative timeoutMilliseconds \(request.timeoutMilliseconds)")
        }
        let plainGET = request.method == "GET" && request.body.isEmpty
        var options = CurlOptionSetter(handle: handle)
        if easy.setup == .blank {
            setConstantOptions(easy, &options)
            easy.setup = .plainGET
        }
        if !plainGET {
            // From here the handle carries this exchange's method: reset when it comes back.
            easy.setup = .other
        }

        // A plain GET needs no "Expect:" / "Content-Type:" blockers (libcurl adds those headers
        // only to requests with a body); each line in the list costs libcurl work per exchange.
        let blockers = !plainGET
        if !easy.hasHeaderList(for: request.headers, blockers: blockers) {
            var list: UnsafeMutablePointer<curl_slist>?
            if let problem = Self.buildHeaderList(request.headers, standard: standardHeaders, blockers: blockers, into: &list) {
                if let list { curl_slist_free_all(list) }
                return problem
            }
            options.pointer(CURLOPT_HTTPHEADER, UnsafeRawPointer(list), "HTTPHEADER")
            easy.replaceHeaderList(list, source: request.headers, blockers: blockers)
        }

        let context = UnsafeRawPointer(Unmanaged.passUnretained(transfer).toOpaque())
        options.string(CURLOPT_URL, request.url, "URL")
        options.pointer(CURLOPT_WRITEDATA, context, "WRITEDATA")
        options.pointer(CURLOPT_HEADERDATA, context, "HEADERDATA")
        // The id, for collectFinished to find the transfer (ids start at 1, never a null pointer).
        options.pointer(CURLOPT_PRIVATE, UnsafeRawPointer(bitPattern: UInt(truncatingIfNeeded: transfer.id)), "PRIVATE")
        let timeout = request.timeoutMilliseconds > 0 ? request.timeoutMilliseconds : configuration.defaultTimeoutMilliseconds
        if timeout != easy.timeoutMilliseconds {
            options.long(CURLOPT_TIMEOUT_MS, timeout, "TIMEOUT_MS")
            easy.timeoutMilliseconds = timeout
        }

        // Method and body. A plain GET is libcurl's default method on a blank handle and stays
        // so on a handle that only did plain GETs; any other exchange starts from one of those.
        if !plainGET {
            let method = request.method
            let body = request.body
            if method == "POST" || method == "PATCH" || method == "MERGE" {
                // A request that must not run twice goes on a new connection: libcurl silently
                // re-sends a request whose reused connection dies before any answer, and the
                // server may have acted on it (RFC 9110 9.2.2). On a fresh connection it never does.
                options.long(CURLOPT_FRESH_CONNECT, 1, "FRESH_CONNECT")
            }
            if method == "HEAD" && body.isEmpty {
                options.long(CURLOPT_NOBODY, 1, "NOBODY")
            } else {
                if method != "POST" { options.string(CURLOPT_CUSTOMREQUEST, method, "CUSTOMREQUEST") }
                if !body.isEmpty || ["POST", "PUT", "PATCH", "MERGE"].contains(method) {
                    // The size first, then a copy of the bytes (libcurl keeps its own copy).
                    options.offset(CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count), "POSTFIELDSIZE_LARGE")
                    if body.isEmpty {
                        options.string(CURLOPT_COPYPOSTFIELDS, "", "COPYPOSTFIELDS")
                    } else {
                        body.withUnsafeBytes { options.pointer(CURLOPT_COPYPOSTFIELDS, $0.baseAddress, "COPYPOSTFIELDS") }
                    }
                }
            }
        }
        if let failed = options.failed {
            easy.setup = .other  // in an unknown state: reset before reuse
            return .io("curl_easy_setopt(\(failed)) failed")
        }
        return nil
    }

    /// True when the URL has a byte <= 0x20 or DEL.
    private static func hasSpaceOrControl(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            for b in bytes where b <= 0x20 || b == 0x7F { return true }
            return false
        }
    }

    /// The options every exchange shares, set once per handle (after creation or a reset).
    private func setConstantOptions(_ easy: CurlEasy, _ options: inout CurlOptionSetter) {
        options.long(CURLOPT_NOSIGNAL, 1, "NOSIGNAL")
        options.pointer(CURLOPT_ERRORBUFFER, UnsafeRawPointer(easy.errorBuffer), "ERRORBUFFER")
        options.string(CURLOPT_PROTOCOLS_STR, "http,https", "PROTOCOLS_STR")
        options.string(CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "REDIR_PROTOCOLS_STR")
        options.callback(CURLOPT_WRITEFUNCTION, curlWriteCallback, "WRITEFUNCTION")
        options.callback(CURLOPT_HEADERFUNCTION, curlHeaderCallback, "HEADERFUNCTION")
        options.long(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeoutMilliseconds, "CONNECTTIMEOUT_MS")
        options.long(CURLOPT_SSL_VERIFYPEER, configuration.verifyTLS ? 1 : 0, "SSL_VERIFYPEER")
        options.long(CURLOPT_SSL_VERIFYHOST, configuration.verifyTLS ? 2 : 0, "SSL_VERIFYHOST")
        if let ca = configuration.caBundlePath { options.string(CURLOPT_CAINFO, ca, "CAINFO") }
        // "" disables proxies, including the ones named by environment variables.
        options.string(CURLOPT_PROXY, configuration.proxy ?? "", "PROXY")
        // No host bypasses a configured proxy, whatever `no_proxy` says: without this libcurl
        // reads `no_proxy` and `NO_PROXY` from the environment on every exchange (two
        // getenv scans of the whole environment per GET) even when there is no proxy.
        options.string(CURLOPT_NOPROXY, "", "NOPROXY")
        if let proxy = configuration.proxy, !proxy.isEmpty {
            // The request's User-Agent is a header-list line (`standardHeaders`), which libcurl
            // does not send to a proxy (CURLHEADER_SEPARATE); this gives a CONNECT its own, as
            // before. (libcurl then also formats it per exchange: only with a proxy.)
            options.string(CURLOPT_USERAGENT, configuration.userAgent, "USERAGENT")
        }
        let version: Int
        switch configuration.httpVersion {
        case .http1_0: version = Int(CURL_HTTP_VERSION_1_0)
        case .http1_1: version = Int(CURL_HTTP_VERSION_1_1)
        case .http2OverTLS: version = Int(CURL_HTTP_VERSION_2TLS)
        }
        options.long(CURLOPT_HTTP_VERSION, version, "HTTP_VERSION")
        options.long(CURLOPT_FOLLOWLOCATION, configuration.followRedirects ? 1 : 0, "FOLLOWLOCATION")
        options.long(CURLOPT_MAXREDIRS, configuration.maxRedirects, "MAXREDIRS")
        if configuration.acceptCompressedResponses {
            // "" = every encoding libcurl decodes. This switches its decoding on; the header
            // itself goes in the list (`standardHeaders`), so libcurl does not make its own.
            options.string(CURLOPT_ACCEPT_ENCODING, "", "ACCEPT_ENCODING")
        }
        if let cookieShare {
            // The share holds the cookie jar; COOKIEFILE "" switches the handle's cookie engine
            // on. It also adds "" to the handle's list of cookie files, which curl_easy_reset
            // and curl_easy_cleanup in libcurl 7.88 do not free: `forgetCookieFiles` clears it
            // before either. Set once per handle setup, so the list never grows past one entry.
            options.pointer(CURLOPT_SHARE, UnsafeRawPointer(cookieShare), "SHARE")
            options.string(CURLOPT_COOKIEFILE, "", "COOKIEFILE")
        }
    }

    /// What CURLOPT_ACCEPT_ENCODING "" makes libcurl 7.88 send: the encodings it was built to
    /// decode, in its order ("deflate, gzip, br, zstd"), "identity" when none.
    static func decodableEncodings() -> String {
        let features = curl_version_info(CURLVERSION_FIRST)?.pointee.features ?? 0
        var names: [String] = []
        if features & CURL_VERSION_LIBZ != 0 { names += ["deflate", "gzip"] }
        if features & CURL_VERSION_BROTLI != 0 { names.append("br") }
        if features & CURL_VERSION_ZSTD != 0 { names.append("zstd") }
        return names.isEmpty ? "identity" : names.joined(separator: ", ")
    }

    /// `standard`'s lines whose header the request does not set, then the request's header
    /// lines, as a libcurl list, plus with `blockers` "Expect:" (no
    /// 100-continue round trip) and, when the request has none, "Content-Type:" (no form type
    /// invented by libcurl): needed for requests with a body (or a method that sets one), where
    /// libcurl would add those headers; a plain GET goes without them.
    private static func buildHeaderList(_ headers: [(name: String, value: String)],
                                        standard: [(name: String, line: String)], blockers: Bool,
                                        into list: inout UnsafeMutablePointer<curl_slist>?) -> HTTPTransportError? {
        for (name, line) in standard where !headers.contains(where: { asciiCaseInsensitiveEquals($0.name, name) }) {
            guard appendHeader(line, to: &list) else { return .io("out of memory building request headers") }
        }
        var hasContentType = false
        for (name, value) in headers {
            guard HTTPSyntax.isToken(name) else { return .io("invalid request header name \"\(name)\"") }
            guard HTTPSyntax.isFieldValue(value) else {
                return .io("request header \(name) contains CR, LF or NUL")
            }
            if asciiCaseInsensitiveEquals(name, "Content-Type") { hasContentType = true }
            // "Name;" is libcurl's way to send a header with an empty value.
            let line = value.isEmpty ? "\(name);" : "\(name): \(value)"
            guard appendHeader(line, to: &list) else { return .io("out of memory building request headers") }
        }
        guard blockers else { return nil }
        guard appendHeader("Expect:", to: &list) else { return .io("out of memory building request headers") }
        if !hasContentType, !appendHeader("Content-Type:", to: &list) {
            return .io("out of memory building request headers")
        }
        return nil
    }

    private static func appendHeader(_ line: String, to list: inout UnsafeMutablePointer<curl_slist>?) -> Bool {
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
            // CURLOPT_PRIVATE holds the transfer's id (never a pointer that could dangle).
            var privateData: UnsafeMutableRawPointer?
            guard ods_curl_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &privateData) == CURLE_OK,
                  let id = privateData.map({ UInt64(UInt(bitPattern: $0)) }),
                  let transfer = active.removeValue(forKey: id) else { continue }
            let pooled = transfer.easy

            var connects = 0
            if ods_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK {
                shared.connectionsOpened.add(connects, ordering: .relaxed)
            }
            let result: Result<HTTPResponse, HTTPTransportError>
            if code == CURLE_OK {
                var status = 0
                _ = ods_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                if status > 0, let problem = transfer.responseHeaders.contentLengthProblem() {
                    // The body's end is unknown (libcurl took one of the values): never a success.
                    result = .failure(.io("the response's framing is broken: \(ResponseErrors.printable(problem, limit: 200))"))
                } else if status > 0 {
                    result = .success(HTTPResponse(status: status, headerFields: transfer.responseHeaders, body: transfer.body,
                                                   streamedBytes: transfer.streaming == true ? transfer.streamedBytes : nil))
                } else {
                    result = .failure(.io("the transfer ended without an HTTP status"))
                }
            } else if let failure = transfer.callbackFailure {
                result = .failure(failure)
            } else {
                result = .failure(.fromCurl(code, detail: transfer.errorText))
            }
            _ = curl_multi_remove_handle(multi, easy)
            recycle(pooled)
            shared.requestsCompleted.add(1, ordering: .relaxed)
            transfer.complete(result)
        }
    }

    /// Unpauses a transfer its body sink paused (gone already: nothing to do). libcurl may
    /// offer the held bytes again from inside this call.
    private func resume(_ id: UInt64) {
        guard let transfer = active[id] else { return }
        _ = curl_easy_pause(transfer.easy.handle, 0)  // CURLPAUSE_CONT
    }

    private func cancel(_ id: UInt64) {
        if let pending = queued.removeValue(forKey: id) {
            pending.completion(.failure(.cancelled))
            return
        }
        if let i = delayed.firstIndex(where: { $0.id == id }) {
            delayed.remove(at: i).completion(.failure(.cancelled))
            return
        }
        guard let transfer = active.removeValue(forKey: id) else { return }  // already finished
        _ = curl_multi_remove_handle(multi, transfer.easy.handle)
        recycle(transfer.easy)
        transfer.complete(.failure(.cancelled))
    }

    /// Clears the handle's list of cookie files (see `setConstantOptions`); the jar stays in
    /// the share. Needed before `curl_easy_reset` and `curl_easy_cleanup`.
    private func forgetCookieFiles(_ easy: CurlEasy) {
        if cookieShare != nil, easy.setup != .blank { _ = ods_curl_easy_setopt_ptr(easy.handle, CURLOPT_COOKIEFILE, nil) }
    }

    /// Returns an easy handle to the pool or frees it. A handle set up for anything but a
    /// plain GET is reset first (its method, body copy and options are dropped).
    private func recycle(_ easy: CurlEasy) {
        guard idleHandles.count < configuration.easyHandlePoolSize else {
            destroy(easy)
            return
        }
        if easy.setup == .other {
            forgetCookieFiles(easy)
            easy.reset()
        }
        idleHandles.append(easy)
    }

    private func destroy(_ easy: CurlEasy) {
        forgetCookieFiles(easy)
        curl_easy_cleanup(easy.handle)
    }

    /// Shutdown: every transfer still in flight ends with `.closed`; libcurl state is freed.
    private func closeEverything() {
        let waiting = queueOrder[queueHead...].compactMap { queued.removeValue(forKey: $0) }
        queued.removeAll()
        queueOrder.removeAll()
        queueHead = 0
        for pending in waiting { pending.completion(.failure(.closed)) }
        let sleeping = delayed
        delayed.removeAll()
        for pending in sleeping { pending.completion(.failure(.closed)) }
        let inFlight = active.values.sorted { $0.id < $1.id }
        active.removeAll()
        for transfer in inFlight {
            _ = curl_multi_remove_handle(multi, transfer.easy.handle)
            destroy(transfer.easy)
            transfer.complete(.failure(.closed))
        }
        for easy in idleHandles { destroy(easy) }
        idleHandles.removeAll()
        shared.retireMultiHandle()
        curl_multi_cleanup(multi)  // may still call the socket callback: `sockets` lives on
        close(wakeFDs.read)
        close(wakeFDs.write)
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

/// Sets easy-handle options, remembering the first that failed.
struct CurlOptionSetter {
    let handle: UnsafeMutableRawPointer
    private(set) var failed: String?

    init(handle: UnsafeMutableRawPointer) {
        self.handle = handle
    }

    mutating func long(_ option: CURLoption, _ value: Int, _ name: String) {
        if failed == nil, ods_curl_easy_setopt_long(handle, option, value) != CURLE_OK { failed = name }
    }

    mutating func offset(_ option: CURLoption, _ value: curl_off_t, _ name: String) {
        if failed == nil, ods_curl_easy_setopt_off(handle, option, value) != CURLE_OK { failed = name }
    }

    mutating func string(_ option: CURLoption, _ value: String, _ name: String) {
        if failed == nil, value.withCString({ ods_curl_easy_setopt_ptr(handle, option, $0) }) != CURLE_OK {
            failed = name
        }
    }

    mutating func pointer(_ option: CURLoption, _ value: UnsafeRawPointer?, _ name: String) {
        if failed == nil, ods_curl_easy_setopt_ptr(handle, option, value) != CURLE_OK { failed = name }
    }

    mutating func callback(_ option: CURLoption, _ value: ods_curl_data_cb, _ name: String) {
        if failed == nil, ods_curl_easy_setopt_data_cb(handle, option, value) != CURLE_OK { failed = name }
    }
}
