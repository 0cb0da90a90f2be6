/// An error from the store, a request, or the protocol layer, carrying what the C
/// `ods_error` record exposes. The one error the Swift API throws: a failed request's HTTP
/// status and the service's OData error code and message are here.
public struct ODataStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// HTTP status of the response that caused it, 0 when there was none.
    public var httpStatus: Int
    /// The service's OData error code and message, when its error body had them.
    public var odataCode: String?
    public var odataMessage: String?
    /// For syntax errors: 0-based character offset of the problem; -1 otherwise.
    public var position: Int

    public init(_ code: ErrorCode, _ message: String, httpStatus: Int = 0,
                odataCode: String? = nil, odataMessage: String? = nil, position: Int = -1) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.odataCode = odataCode
        self.odataMessage = odataMessage
        self.position = position
    }

    /// `not found (HTTP 404, ResourceNotFound): <message>`: the kind of failure, the HTTP
    /// status and the service's error code when there were any, then the message.
    public var description: String { summaryText }

    static func invalid(_ message: String) -> ODataStoreError { .init(.invalidArgument, message) }
    static func state(_ message: String) -> ODataStoreError { .init(.invalidState, message) }
    static let cancelled = ODataStoreError(.cancelled, "the request was cancelled")
}
