/// A start tag as reported by `XMLPullReader` / `XMLPushParser`.
public struct XMLStartTag: Sendable, Hashable {
    /// Local name (without prefix).
    public var name: String
    /// Namespace URI, "" when the element is in no namespace.
    public var namespace: String
    public var attributes: [XMLAttribute]
    public var line: Int
    public var column: Int

    public init(name: String, namespace: String = "", attributes: [XMLAttribute] = [],
                line: Int = 0, column: Int = 0) {
        self.name = name
        self.namespace = namespace
        self.attributes = attributes
        self.line = line
        self.column = column
    }

    /// The value of the attribute `name` in `namespace` ("" = unprefixed attribute).
    @inlinable
    public func attribute(_ name: String, namespace: String = "") -> String? {
        attributes.value(name, namespace: namespace)
    }

    @inlinable
    public func isNamed(_ name: String, namespace: String) -> Bool {
        self.name == name && self.namespace == namespace
    }
}

/// One step of a streamed XML document.
///
/// Every `.start` is matched by exactly one `.end` (also for empty elements `<a/>`).
/// Adjacent character data (text, CDATA, character and predefined entity references)
/// arrives as a single `.text`; text outside the root element is not reported.
/// Comments and processing instructions are skipped.
public enum XMLEvent: Sendable, Hashable {
    case start(XMLStartTag)
    case end(name: String, namespace: String)
    case text(String)
}
