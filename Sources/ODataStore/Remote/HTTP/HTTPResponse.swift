/// A complete HTTP response (the body is buffered, unless a body sink took it).
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Response header fields in order as received (of the final response after redirects).
    public var headerFields: HTTPHeaderFields
    public var body: [UInt8]
    /// The body's size when the request's `HTTPBodySink` took it (`body` is then empty);
    /// nil when the body is in `body`.
    public var streamedBytes: Int?

    public init(status: Int, headerFields: HTTPHeaderFields, body: [UInt8] = [], streamedBytes: Int? = nil) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.streamedBytes = streamedBytes
    }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.init(status: status, headerFields: HTTPHeaderFields(headers), body: body)
    }

    /// Response header lines in order as received, as Strings (made on each call).
    public var headers: [(name: String, value: String)] {
        get { headerFields.pairs }
        set { headerFields = HTTPHeaderFields(newValue) }
    }

    /// First header value with this name, compared case-insensitively (ASCII).
    public func header(_ name: String) -> String? {
        headerFields.value(named: name)
    }
}

/// ASCII case-insensitive comparison, as HTTP header names need (no Foundation).
public func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    let x = a.utf8, y = b.utf8
    guard x.count == y.count else { return false }
    for (c, d) in zip(x, y) {
        let lc = (c >= 65 && c <= 90) ? c + 32 : c
        let ld = (d >= 65 && d <= 90) ? d + 32 : d
        if lc != ld { return false }
    }
    return true
}
