/// A malformed or unacceptable batch body, with the byte offset where it was found.
public struct BatchError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int?

    public init(_ message: String, offset: Int? = nil) {
        self.message = message
        self.offset = offset
    }

    public var description: String { offset.map { "\(message) (at byte \($0))" } ?? message }
}
