/// Settings of a `CurlTransport`, fixed when the transport is created. A value type.
public struct CurlTransportConfiguration: Sendable, Equatable {
    /// Which HTTP version libcurl speaks.
    public enum HTTPVersion: Sendable, Equatable {
        /// HTTP/1.0 (no keep-alive by default; for odd servers only).
        case http1_0
        /// HTTP/1.1 (the default).
        case http1_1
        /// HTTP/2 over TLS when the server offers it by ALPN, HTTP/1.1 otherwise. Requests are
        /// not multiplexed (pipelining and multiplexing are off), so this mainly changes framing.
        case http2OverTLS
    }

    /// PEM file with the certificate authorities to trust; nil uses the system's store.
    public var caBundlePath: String?
    /// Verify the server's certificate and host name (on by default). Turning it off makes
    /// TLS open to interception: for test set-ups only.
    public var verifyTLS: Bool
    /// Time allowed for DNS + TCP + TLS set-up of a new connection, in milliseconds (> 0).
    public var connectTimeoutMilliseconds: Int
    /// Whole-exchange limit for requests that do not set their own
    /// (`HTTPRequest.timeoutMilliseconds == 0`), in milliseconds; 0 means no limit.
    public var defaultTimeoutMilliseconds: Int
    /// Most connections open to one host at once; further requests wait for a free one.
    public var maxConnectionsPerHost: Int
    /// Most connections open in total; also the size of the keep-alive connection cache.
    public var maxTotalConnections: Int
    /// The User-Agent header sent with every request (unless the request sets its own; none
    /// when empty). Must not contain CR, LF or NUL.
    public var userAgent: String
    /// Proxy URL (`http://host:port`); nil means no proxy, and the `http_proxy`-style
    /// environment variables are ignored too (`no_proxy` as well: a configured proxy is used
    /// for every host), so behaviour does not depend on the environment.
    public var proxy: String?
    public var httpVersion: HTTPVersion
    /// Follow 3xx redirects. Off by default: an OData client must not silently re-send a
    /// POST to another URL. When on, at most `maxRedirects` are followed.
    public var followRedirects: Bool
    public var maxRedirects: Int
    /// Ask for compressed responses (gzip, deflate, br, zstd as libcurl supports) and
    /// decompress them; the body handed out is always the decompressed one.
    public var acceptCompressedResponses: Bool
    /// Largest response body accepted, in bytes after decompression; a larger one fails the
    /// exchange with `.limit(.responseBytes, ...)` as soon as it passes the limit (nothing
    /// beyond it is buffered). 0 means no limit.
    public var maxResponseBodyBytes: Int
    /// Largest ratio of decompressed to received body bytes, checked once the decompressed body
    /// is past `compressionRatioThreshold` bytes; a larger one fails the exchange with
    /// `.limit(.compressionRatio, ...)`. 0 means no limit.
    public var maxCompressionRatio: Int
    public var compressionRatioThreshold: Int
    /// How many finished easy handles are kept for reuse (curl_easy_reset) instead of freed.
    public var easyHandlePoolSize: Int
    /// Keeps cookies the service sets (in memory, for the transport's life) and sends them
    /// back, as session-based services (SAP Gateway) need.
    public var cookies: Bool
    /// While a store's callback thread runs callbacks the transport queued, and as long as
    /// those callbacks keep starting requests, the transport thread is in Linux's SCHED_BATCH
    /// class, so that its wake-ups (a callback starting the next request, an answer arriving)
    /// do not preempt the callbacks; an ordinary thread again once a batch of callbacks ends
    /// with the transport asleep and not woken (`YieldingProducer`; on by default, no effect
    /// off Linux or when the thread was not SCHED_OTHER). With the client's threads on one
    /// busy CPU, about 3.9 context switches per GET became 1 and the CPU per GET fell by about
    /// half (docs/benchmarks.md, "Python binding: online GETs"). Nothing waits for another
    /// thread to block: no deadlock is possible; an answer may wait for the callback batch in
    /// progress when no other CPU is idle. A request started outside callbacks (a synchronous
    /// read) is handled as before.
    public var batchScheduling: Bool

    public init(caBundlePath: String? = nil,
                verifyTLS: Bool = true,
                connectTimeoutMilliseconds: Int = 10_000,
                defaultTimeoutMilliseconds: Int = 60_000,
                maxConnectionsPerHost: Int = 8,
                maxTotalConnections: Int = 32,
                userAgent: String = "libodatastore",
                proxy: String? = nil,
                httpVersion: HTTPVersion = .http1_1,
                followRedirects: Bool = false,
                maxRedirects: Int = 5,
                acceptCompressedResponses: Bool = true,
                maxResponseBodyBytes: Int = 0,
                maxCompressionRatio: Int = 0,
                compressionRatioThreshold: Int = 1 << 20,
                easyHandlePoolSize: Int = 16,
                cookies: Bool = true,
                batchScheduling: Bool = true) {
        self.caBundlePath = caBundlePath
        self.verifyTLS = verifyTLS
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.defaultTimeoutMilliseconds = defaultTimeoutMilliseconds
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxTotalConnections = maxTotalConnections
        self.userAgent = userAgent
        self.proxy = proxy
        self.httpVersion = httpVersion
        self.followRedirects = followRedirects
        self.maxRedirects = maxRedirects
        self.acceptCompressedResponses = acceptCompressedResponses
        self.maxResponseBodyBytes = maxResponseBodyBytes
        self.maxCompressionRatio = maxCompressionRatio
        self.compressionRatioThreshold = compressionRatioThreshold
        self.easyHandlePoolSize = easyHandlePoolSize
        self.cookies = cookies
        self.batchScheduling = batchScheduling
    }

    /// Nil when the settings are usable, else the reason.
    func validationProblem() -> String? {
        if connectTimeoutMilliseconds <= 0 { return "connectTimeoutMilliseconds must be > 0" }
        if defaultTimeoutMilliseconds < 0 { return "defaultTimeoutMilliseconds must be >= 0" }
        if maxConnectionsPerHost <= 0 { return "maxConnectionsPerHost must be > 0" }
        if maxTotalConnections <= 0 { return "maxTotalConnections must be > 0" }
        if maxRedirects < 0 { return "maxRedirects must be >= 0" }
        if maxResponseBodyBytes < 0 { return "maxResponseBodyBytes must be >= 0" }
        if maxCompressionRatio < 0 { return "maxCompressionRatio must be >= 0" }
        if compressionRatioThreshold < 0 { return "compressionRatioThreshold must be >= 0" }
        if easyHandlePoolSize < 0 { return "easyHandlePoolSize must be >= 0" }
        for (name, text) in [("userAgent", userAgent), ("caBundlePath", caBundlePath ?? ""), ("proxy", proxy ?? "")]
        where text.utf8.contains(0) {
            return "\(name) contains a NUL byte"
        }
        // Sent as a header line of its own (CurlWorker.standardHeaders): no line breaks.
        if !HTTPSyntax.isFieldValue(userAgent) { return "userAgent contains CR or LF" }
        return nil
    }
}

/// Why a `CurlTransport` could not be created.
public struct CurlTransportSetupError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
