/// One HTTP exchange to perform, as the online store hands it to an `HTTPTransport`.
/// A value type: the transport copies what it needs and never retains the caller's buffers.
public struct HTTPRequest: Sendable {
    public var method: String
    /// Absolute URL, already percent-encoded.
    public var url: String
    /// Header lines in order; names are sent as given. Duplicates are allowed.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Whole-exchange limit in milliseconds; 0 means the transport default.
    public var timeoutMilliseconds: Int
    /// Takes a successful response's body as it arrives (`HTTPResponse.body` then stays
    /// empty) when it accepts it; nil buffers every body.
    public var bodySink: (any HTTPBodySink)?

    public init(method: String, url: String, headers: [(name: String, value: String)] = [],
                body: [UInt8] = [], timeoutMilliseconds: Int = 0, bodySink: (any HTTPBodySink)? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutMilliseconds = timeoutMilliseconds
        self.bodySink = bodySink
    }
}
