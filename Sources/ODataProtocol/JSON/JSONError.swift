/// A JSON syntax error: what went wrong and where (byte offset into the input, 0-based).
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the offending input byte (or of the end of input).
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "JSON error at byte \(offset): \(message)" }
}
