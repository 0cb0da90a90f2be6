/// The code and message of an OData error response body (V2/V4 JSON or XML).
public struct ODataErrorDetail: Sendable, Equatable, CustomStringConvertible {
    /// The service-defined error code (often empty for V2 services).
    public var code: String
    public var message: String
    /// Target of the error (V4 `target`), when given.
    public var target: String?
    /// V4 `details[]` (code, message, target), in order.
    public var details: [ODataErrorDetail]

    public init(code: String, message: String, target: String? = nil, details: [ODataErrorDetail] = []) {
        self.code = code
        self.message = message
        self.target = target
        self.details = details
    }

    public var description: String { code.isEmpty ? message : "\(code): \(message)" }
}
