import CCurl

/// One pooled libcurl easy handle and what stays set on it from one exchange to the next.
///
/// Options that never change (callbacks, protocols, TLS, user agent, proxy, HTTP version,
/// redirects, encodings, cookies, connect timeout, error buffer) are set once per handle;
/// each exchange sets only the URL, its context pointers and, when they differ from the
/// previous exchange's, the header list and the timeout. A handle that carried anything but
/// a plain GET (another method, a body) is `curl_easy_reset` when it returns to the pool, so
/// nothing of that exchange (custom method, NOBODY, a copy of the body) leaks into the next.
///
/// Thread confinement: used only on the transport thread (`CurlWorker`).
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    /// libcurl's error text for the current exchange (CURLOPT_ERRORBUFFER), set once.
    let errorBuffer: UnsafeMutablePointer<CChar>

    /// What the handle is set up for.
    enum Setup {
        /// Fresh or reset: libcurl's defaults, none of our options.
        case blank
        /// The constant options and the options of plain GETs (libcurl's default method).
        case plainGET
        /// Set up for another method or a body: reset before it is used again.
        case other
    }
    @exclusivity(unchecked) var setup = Setup.blank

    /// The request headers `headerList` was built from (nil: no list set since the last reset).
    @exclusivity(unchecked) var headerSource: [(name: String, value: String)]?
    /// Whether `headerList` ends with the "Expect:" / "Content-Type:" blockers.
    @exclusivity(unchecked) var headerBlockers = false
    /// The request header list libcurl holds (CURLOPT_HTTPHEADER); owned here, freed when
    /// replaced or when the handle is destroyed.
    @exclusivity(unchecked) var headerList: UnsafeMutablePointer<curl_slist>?
    /// CURLOPT_TIMEOUT_MS as last set (-1: not since the last reset).
    @exclusivity(unchecked) var timeoutMilliseconds = -1

    init?() {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    var errorText: String { String(cString: errorBuffer) }

    /// True when `headers` (and `blockers`) are what the current list was built from.
    func hasHeaderList(for headers: [(name: String, value: String)], blockers: Bool) -> Bool {
        guard let source = headerSource, source.count == headers.count, headerBlockers == blockers else { return false }
        for i in 0..<headers.count where source[i].name != headers[i].name || source[i].value != headers[i].value {
            return false
        }
        return true
    }

    /// Installs a new header list (already set on the handle) and frees the previous one.
    func replaceHeaderList(_ list: UnsafeMutablePointer<curl_slist>?, source: [(name: String, value: String)], blockers: Bool) {
        if let headerList, headerList != list { curl_slist_free_all(headerList) }
        headerList = list
        headerSource = source
        headerBlockers = blockers
    }

    /// `curl_easy_reset`: back to libcurl's defaults (the error buffer included: set again
    /// with the constants). `forgetCookieFiles` must have run first when cookies are on.
    func reset() {
        curl_easy_reset(handle)
        setup = .blank
        headerSource = nil
        timeoutMilliseconds = -1
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }
}
