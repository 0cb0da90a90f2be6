/// A parsed XML document: its root element as a read-only `XMLElement` tree.
///
/// ```swift
/// let doc = try XMLDocument.parse(bytes)            // throws(XMLError)
/// for schema in doc.root.children where schema.name == "Schema" { ... }
/// ```
///
/// Parsing goes through libxml2 (module `CXML2`) hardened for untrusted input: no network,
/// no DTD (a `<!DOCTYPE>` is an error, `XMLError.Kind.doctypeNotAllowed`, so entities can
/// neither be expanded nor loaded), libxml2's default size and depth limits (no
/// `XML_PARSE_HUGE`; at most 256 levels of nesting), and nothing is ever printed to stderr:
/// every problem is thrown as an `XMLError` with line and column. The encoding is detected
/// from the byte-order mark / XML declaration (UTF-8 with or without BOM, UTF-16, and the
/// encodings libxml2 knows); all strings in the tree are UTF-8 Swift strings.
///
/// Threading: `parse` may be called from any number of threads at once; the result is
/// `Sendable`.
public struct XMLDocument: Sendable, Hashable {
    public var root: XMLElement

    public init(root: XMLElement) { self.root = root }

    /// Parses a complete document held in memory.
    public static func parse(_ bytes: some Collection<UInt8>) throws(XMLError) -> XMLDocument {
        let result: Result<XMLDocument, XMLError>? = bytes.withContiguousStorageIfAvailable { buf in
            Result { () throws(XMLError) in try parse(UnsafeRawBufferPointer(buf)) }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        let r: Result<XMLDocument, XMLError> = copy.withUnsafeBytes { raw in
            Result { () throws(XMLError) in try parse(raw) }
        }
        return try r.get()
    }

    /// Parses a document given as a Swift string (its UTF-8 bytes are parsed).
    public static func parse(_ string: String) throws(XMLError) -> XMLDocument {
        try parse(Array(string.utf8))
    }

    /// Parses a complete document from raw memory; the bytes are only read during the call.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(XMLError) -> XMLDocument {
        let builder = XMLTreeBuilder()
        let session = try LibXML2SAXSession(sink: builder)
        try withExtendedLifetime(builder) { () throws(XMLError) in
            try session.feed(bytes, terminate: true)
        }
        guard let root = builder.root else {
            throw XMLError(kind: .empty, message: "the document has no root element")
        }
        return XMLDocument(root: root)
    }
}
