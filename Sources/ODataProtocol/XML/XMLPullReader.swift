/// A pull-style reader over a complete document in memory: ask for one event at a time,
/// or turn the element just started into a small tree. Suited to large Atom feeds: walk the
/// `<feed>` with `next()` and materialise each `<entry>` with `readElement(_:)`, so only one
/// entry's tree exists at a time.
///
/// ```swift
/// let reader = try XMLPullReader(bytes: body)
/// while let event = try reader.next() {          // throws(XMLError)
///     if case .start(let tag) = event, tag.isNamed("entry", namespace: atomNS) {
///         let entry = try reader.readElement(tag)  // consumes through </entry>
///     }
/// }
/// ```
///
/// Built on the same hardened libxml2 SAX2 push parser as `XMLDocument.parse` (no DTD, no
/// entities, no network, libxml2 limits, errors thrown with line/column, nothing printed),
/// fed `chunkSize` bytes at a time, rather than on libxml2's `xmlTextReader`, whose DTD
/// handling cannot be switched off before the internal subset is parsed.
///
/// Threading: not thread-safe and not `Sendable`; use from one thread at a time.
public final class XMLPullReader {
    private let bytes: [UInt8]
    private let chunkSize: Int
    private var offset = 0
    private let parser: XMLPushParser
    private var pendingError: XMLError?
    private var depth = 0

    /// - Parameters:
    ///   - bytes: the whole document (copied by reference, as Swift arrays are).
    ///   - chunkSize: how many bytes the parser reads ahead at a time.
    public init(bytes: [UInt8], chunkSize: Int = 16 * 1024) throws(XMLError) {
        self.bytes = bytes
        self.chunkSize = max(chunkSize, 64)
        self.parser = try XMLPushParser()
    }

    public convenience init(string: String) throws(XMLError) {
        try self.init(bytes: Array(string.utf8))
    }

    /// The nesting depth after the last event returned (1 inside the root element).
    public var currentDepth: Int { depth }

    /// The next event, or nil at the end of the document. Events parsed before an error are
    /// returned first; then the error is thrown (and thrown again on every later call).
    public func next() throws(XMLError) -> XMLEvent? {
        while true {
            if let e = parser.nextEvent() {
                switch e {
                case .start: depth += 1
                case .end: depth -= 1
                case .text: break
                }
                return e
            }
            if let pendingError { throw pendingError }
            if parser.isFinished { return nil }
            let end = min(offset + chunkSize, bytes.count)
            let last = end == bytes.count
            let start = offset
            let fed: Result<Void, XMLError> = bytes.withUnsafeBytes { raw in
                Result { () throws(XMLError) in
                    try parser.feed(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                    if last { try parser.finish() }
                }
            }
            offset = end
            if case .failure(let error) = fed { pendingError = error }
        }
    }

    /// Reads the rest of the element whose start tag `tag` was just returned by `next()`,
    /// through its matching end tag, and returns it as a tree.
    public func readElement(_ tag: XMLStartTag) throws(XMLError) -> XMLElement {
        let builder = XMLTreeBuilder()
        builder.startElement(tag)
        var level = 1
        while level > 0 {
            guard let e = try next() else {
                throw XMLError(kind: .notWellFormed, message: "the document ended inside <\(tag.name)>",
                               line: tag.line, column: tag.column)
            }
            switch e {
            case .start(let t):
                level += 1
                builder.startElement(t)
            case .end(let n, let ns):
                level -= 1
                builder.endElement(name: n, namespace: ns)
            case .text(let s):
                var s = s
                s.withUTF8 { builder.characters($0) }
            }
        }
        guard let root = builder.root else {
            throw XMLError(kind: .notWellFormed, message: "unbalanced element <\(tag.name)>",
                           line: tag.line, column: tag.column)
        }
        return root
    }

    /// Skips the rest of the element whose start tag was just returned by `next()`.
    public func skipElement() throws(XMLError) {
        var level = 1
        while level > 0 {
            guard let e = try next() else {
                throw XMLError(kind: .notWellFormed, message: "the document ended inside an element")
            }
            switch e {
            case .start: level += 1
            case .end: level -= 1
            case .text: break
            }
        }
    }
}
