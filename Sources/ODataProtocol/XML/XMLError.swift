/// Why an XML document could not be read, with the position libxml2 reported.
///
/// Thrown by `XMLDocument.parse`, `XMLPullReader` and `XMLPushParser`. `line` and `column`
/// are 1-based; 0 means unknown.
public struct XMLError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The bytes are not a well-formed XML (1.0 + Namespaces) document, or nest elements
        /// deeper than 256 levels.
        case notWellFormed
        /// The document has a `<!DOCTYPE ...>` declaration. DTDs are refused outright so
        /// that no entity (internal or external) is ever declared, expanded or loaded.
        case doctypeNotAllowed
        /// The input holds no element at all: empty, only whitespace, a byte-order mark or
        /// an XML declaration, or text that is not markup.
        case empty
        /// A reader or push parser was used after it had already failed or finished.
        case misuse
        /// libxml2 could not allocate a parser.
        case internalFailure
    }

    public var kind: Kind
    /// libxml2's message (without the trailing newline) or our own.
    public var message: String
    public var line: Int
    public var column: Int
    /// libxml2's `xmlParserErrors` code when the error came from libxml2, else 0.
    public var code: Int

    public init(kind: Kind, message: String, line: Int = 0, column: Int = 0, code: Int = 0) {
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.code = code
    }

    public var description: String {
        var s = "XML error"
        if line > 0 {
            s += " at line \(line)"
            if column > 0 { s += ", column \(column)" }
        }
        return s + ": " + message
    }
}
