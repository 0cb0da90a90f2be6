/// A syntax or schema error in a request URL, a resource path, a query option or a `$filter`
/// expression.
///
/// `position` is the 0-based offset of the offending character in the text that was given to
/// the parser: the whole URL for `ResourceRequestParser`, the expression text for
/// `FilterParser`. It counts Unicode characters (grapheme clusters) of that text, so a caret
/// printed under `position` lines up with the input.
public struct URLParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong or what was expected, e.g. `expected ')'`.
    public var message: String
    /// 0-based character offset into the parsed text.
    public var position: Int

    public init(_ message: String, at position: Int) {
        self.message = message
        self.position = position
    }

    public var description: String { "\(message) at \(position)" }
}
