/// An incremental XML parser: feed the document in pieces as they arrive (for example from
/// an HTTP body callback) and take the events produced so far.
///
/// ```swift
/// let parser = try XMLPushParser()
/// for chunk in chunks {
///     try parser.feed(chunk)                  // throws(XMLError)
///     while let event = parser.nextEvent() { handle(event) }
/// }
/// try parser.finish()
/// while let event = parser.nextEvent() { handle(event) }
/// ```
///
/// Same hardening as `XMLDocument.parse` (no DTD, no entities, no network, libxml2 limits,
/// nothing printed). A chunk may end anywhere, even inside a multi-byte character.
/// Character data is reported as one `.text` event per run of text, once the following
/// tag has been read. After an error, `feed`/`finish` keep throwing it; events produced
/// before the error can still be taken.
///
/// Threading: a parser is not thread-safe and not `Sendable`; use it from one thread (or
/// serialise access). Separate parsers are independent.
public final class XMLPushParser {
    private let queue = XMLEventQueue()
    private let session: LibXML2SAXSession

    public init() throws(XMLError) {
        session = try LibXML2SAXSession(sink: queue)
    }

    /// Parses the next piece of the document.
    public func feed(_ bytes: some Collection<UInt8>) throws(XMLError) {
        let done: Result<Void, XMLError>? = bytes.withContiguousStorageIfAvailable { buf in
            Result { () throws(XMLError) in try session.feed(UnsafeRawBufferPointer(buf), terminate: false) }
        }
        if let done { return try done.get() }
        let copy = Array(bytes)
        let r: Result<Void, XMLError> = copy.withUnsafeBytes { raw in
            Result { () throws(XMLError) in try session.feed(raw, terminate: false) }
        }
        try r.get()
    }

    /// Parses the next piece of the document from raw memory (read only during the call).
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(XMLError) {
        try session.feed(bytes, terminate: false)
    }

    /// Marks the end of the document; throws if it is incomplete or not well-formed.
    public func finish() throws(XMLError) {
        try session.feed(UnsafeRawBufferPointer(start: nil, count: 0), terminate: true)
    }

    /// The next event produced so far, or nil when the parser needs more input (or is done).
    public func nextEvent() -> XMLEvent? { queue.next() }

    /// True once `finish` succeeded or an error was thrown.
    public var isFinished: Bool { session.isFinished }
}
