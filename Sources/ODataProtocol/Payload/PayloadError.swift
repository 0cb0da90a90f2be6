/// Why a payload could not be decoded or encoded.
public struct PayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not well-formed JSON or XML.
        case malformed
        /// Well-formed, but not a valid OData payload (e.g. a duplicate property).
        case invalid
        /// A content type this codec does not read or write.
        case unsupportedContentType
    }

    public var kind: Kind
    public var message: String
    /// Byte offset into the body where the problem was found, when known.
    public var offset: Int?

    public init(_ kind: Kind, _ message: String, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }

    public var description: String {
        if let offset { return "\(message) (at byte \(offset))" }
        return message
    }
}
