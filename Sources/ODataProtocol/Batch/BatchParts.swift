/// One request of a batch (an `application/http` part).
public struct BatchRequestPart: Sendable, Equatable {
    public var method: String
    /// The request target as written: relative (`Customers('A')`), absolute-path (`/svc/Customers`),
    /// absolute URL, or a Content-ID reference (`$1/Orders`).
    public var url: String
    /// Headers of the HTTP request inside the part.
    public var headers: BatchHeaders
    public var body: [UInt8]
    /// The part's Content-ID (from the MIME part headers, or the inner headers as some V4 clients write it).
    public var contentID: String?

    public init(method: String, url: String, headers: BatchHeaders = BatchHeaders(), body: [UInt8] = [],
                contentID: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.contentID = contentID
    }

    /// True for methods allowed inside a changeset (everything but GET/HEAD).
    public var isModifying: Bool {
        let m = method.uppercased()
        return m != "GET" && m != "HEAD"
    }
}

/// A top-level item of a batch request: a single request or a changeset (atomic group).
/// `indirect`: each payload boxed, so both cases are one pointer wide. Unboxed, a
/// `.changeset` (one array pointer) left most of the room a `.request` needs unset, and
/// valgrind's memcheck reported the reads of it when an array mixing both cases (the
/// upload's `$batch` to a V4 service) was copied and switched over.
public indirect enum BatchRequestItem: Sendable, Equatable {
    case request(BatchRequestPart)
    case changeset([BatchRequestPart])
}

/// One response of a batch (an `application/http` part).
public struct BatchResponsePart: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var headers: BatchHeaders
    public var body: [UInt8]
    public var contentID: String?

    public init(status: Int, reason: String = "", headers: BatchHeaders = BatchHeaders(), body: [UInt8] = [],
                contentID: String? = nil) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.contentID = contentID
    }
}

/// A top-level item of a batch response: a single response or a changeset's responses
/// (a failed changeset is usually answered by one error response for the whole group).
public enum BatchResponseItem: Sendable, Equatable {
    case response(BatchResponsePart)
    case changeset([BatchResponsePart])
}
