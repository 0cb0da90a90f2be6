/// An attribute of an XML element, namespace-resolved.
///
/// `namespace` is the namespace URI ("" for an unprefixed attribute, which XML places in
/// no namespace); `name` is the local name. Namespace declarations (`xmlns`, `xmlns:p`)
/// are not attributes here.
public struct XMLAttribute: Sendable, Hashable {
    public var namespace: String
    public var name: String
    public var value: String

    public init(namespace: String = "", name: String, value: String) {
        self.namespace = namespace
        self.name = name
        self.value = value
    }
}

/// Lookup helpers shared by start tags and elements.
extension [XMLAttribute] {
    /// The value of the attribute `name` in `namespace` ("" = no namespace), if present.
    @inlinable
    public func value(_ name: String, namespace: String = "") -> String? {
        var i = startIndex
        while i < endIndex {
            if self[i].name == name, self[i].namespace == namespace { return self[i].value }
            i += 1
        }
        return nil
    }
}

/// An element of a parsed XML document: a lightweight, read-only, value-type tree.
///
/// Only what OData needs is kept: the element's local name and namespace URI, its
/// attributes, its child elements in document order and the character data directly
/// inside it (`text`: all text and CDATA children concatenated; comments and processing
/// instructions are dropped). `line`/`column` give the position of the start tag (where
/// libxml2 finished reading it), for error messages.
///
/// Values are `Sendable`; build them with `XMLDocument.parse` or `XMLPullReader.readElement`.
public struct XMLElement: Sendable, Hashable {
    /// Local name (without prefix).
    public var name: String
    /// Namespace URI, "" when the element is in no namespace.
    public var namespace: String
    public var attributes: [XMLAttribute]
    public var children: [XMLElement]
    /// Character data directly inside this element (not inside its children), concatenated.
    public var text: String
    public var line: Int
    public var column: Int

    public init(name: String, namespace: String = "", attributes: [XMLAttribute] = [],
                children: [XMLElement] = [], text: String = "", line: Int = 0, column: Int = 0) {
        self.name = name
        self.namespace = namespace
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
        self.column = column
    }

    /// The value of the attribute `name` in `namespace` ("" = unprefixed attribute).
    @inlinable
    public func attribute(_ name: String, namespace: String = "") -> String? {
        attributes.value(name, namespace: namespace)
    }

    /// True when this element has local name `name` in `namespace`.
    @inlinable
    public func isNamed(_ name: String, namespace: String) -> Bool {
        self.name == name && self.namespace == namespace
    }

    /// The first child element with local name `name` in `namespace`.
    @inlinable
    public func child(_ name: String, namespace: String) -> XMLElement? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    /// All child elements with local name `name` in `namespace`, in document order.
    @inlinable
    public func children(_ name: String, namespace: String) -> [XMLElement] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    /// The character data of this element and all its descendants, in document order
    /// (what XPath calls the string value).
    public var allText: String {
        if children.isEmpty { return text }
        // Text positions relative to children are not kept; descendants' text follows ours.
        var s = text
        for c in children { s += c.allText }
        return s
    }
}
