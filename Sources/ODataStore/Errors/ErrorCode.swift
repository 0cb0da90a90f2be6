/// Status codes, identical in value to `ods_status` in include/odatastore.h.
/// Values are never reused for another meaning.
public enum ErrorCode: Int32, Sendable, Hashable, CaseIterable {
    case error = -1
    case invalidArgument = -2
    case noMemory = -3
    case invalidState = -4
    case notFound = -5
    case conflict = -6
    case preconditionRequired = -7
    case unauthorized = -8
    case forbidden = -9
    case http = -10
    case server = -11
    case timeout = -12
    case cancelled = -13
    case offline = -14
    case tls = -15
    case io = -16
    case `protocol` = -17
    case unsupported = -18
    case notInScope = -19
    case syntax = -20
    case closed = -21
    /// A limit was reached (response size, compression ratio, pages, pending requests).
    case limit = -22
    /// A typed getter found JSON null.
    case null = -23
    /// A typed getter found a value of another type, or one that does not fit the C type.
    case type = -24

    /// Static text for a code, as `ods_strerror` returns it.
    public var text: StaticString {
        switch self {
        case .error: "error"
        case .invalidArgument: "invalid argument"
        case .noMemory: "out of memory"
        case .invalidState: "not allowed in the current state"
        case .notFound: "not found"
        case .conflict: "conflict or failed precondition"
        case .preconditionRequired: "precondition required (If-Match)"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .http: "HTTP client error"
        case .server: "server error"
        case .timeout: "timed out"
        case .cancelled: "cancelled"
        case .offline: "service unreachable"
        case .tls: "TLS error"
        case .io: "I/O error"
        case .protocol: "protocol error"
        case .unsupported: "unsupported"
        case .notInScope: "not in scope of the defining requests"
        case .syntax: "syntax error"
        case .closed: "store closed"
        case .limit: "limit reached"
        case .null: "value is null"
        case .type: "value has another type"
        }
    }

    /// The code for an HTTP status that is not a success: a 3xx (redirects are never
    /// followed) or a 4xx is `.http` unless a more precise code fits; a 5xx is `.server`;
    /// anything else (600 to 999, which libcurl takes from a status line) is not an HTTP
    /// status at all: `.protocol`.
    public static func forHTTPStatus(_ status: Int) -> ErrorCode {
        switch status {
        case 300..<400: .http
        case 401: .unauthorized
        case 403: .forbidden
        case 404, 410: .notFound
        case 409, 412: .conflict
        case 428: .preconditionRequired
        case 408, 504: .timeout
        case 400..<500: .http
        case 500..<600: .server
        default: .protocol
        }
    }
}
