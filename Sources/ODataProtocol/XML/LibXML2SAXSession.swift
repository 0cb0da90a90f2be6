internal import CXML2
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// libxml2 is initialised once per process, the first time any of our parsers is created
/// (`xmlInitParser` is not safe to race; a global `let` is initialised exactly once).
private let libxml2Initialized: Void = { xmlInitParser() }()

/// Receives the events of a `LibXML2SAXSession`, synchronously, on the thread that feeds it.
protocol XMLEventSink: AnyObject {
    func startElement(_ tag: XMLStartTag)
    func endElement(name: String, namespace: String)
    /// A piece of character data; the buffer is only valid during the call.
    func characters(_ chunk: UnsafeBufferPointer<UInt8>)
}

/// One hardened libxml2 SAX2 push-parser context. Internal engine behind `XMLDocument`,
/// `XMLPushParser` and `XMLPullReader`.
///
/// Security and hygiene (the reason this is not `xmlReadMemory` or `xmlTextReader`):
/// - A `<!DOCTYPE>` stops the parse at once with `.doctypeNotAllowed`, before the internal
///   subset is read: no entity is ever declared, so none can be expanded (no "billion laughs")
///   or loaded (no XXE). As a second line, the SAX handler has no entity lookup/resolution
///   callbacks at all, and the options never include `XML_PARSE_NOENT`, `XML_PARSE_DTDLOAD`,
///   `XML_PARSE_DTDATTR`, `XML_PARSE_DTDVALID`, `XML_PARSE_XINCLUDE` or `XML_PARSE_HUGE`
///   (libxml2's default size limits stay on); `XML_PARSE_NONET` is set. Nesting deeper
///   than `maxDepth` (256) is an error.
/// - Errors never reach stderr: the context's structured handler receives parser errors,
///   and while `feed` runs, the calling thread's libxml2 error handlers (which libxml2 keeps
///   per thread) are swapped for ours and restored afterwards, so errors raised without a
///   context (encoding converters) are captured too. No process-global state is changed.
///
/// Threading: not thread-safe; use one session from one thread at a time. Different
/// sessions may run concurrently on different threads.
final class LibXML2SAXSession {
    private var ctxt: xmlParserCtxtPtr?
    /// The sink owns the session; it outlives every callback. Exactly one of `sink` and
    /// `rawSink` is set.
    private unowned let sink: (any XMLEventSink)?
    /// As `sink`, for raw events, held strongly (a raw sink does not own its session, so this
    /// makes no cycle; a `let` is read per event without reference counting).
    private let rawSink: (any XMLRawEventSink)?
    /// The first error (level error or fatal) libxml2 reported, or our DOCTYPE refusal.
    private(set) var error: XMLError?
    private(set) var isFinished = false
    /// Current element nesting and whether any element was seen (to tell an empty input).
    private var depth = 0
    private var sawElement = false

    /// The deepest nesting accepted. libxml2's push parser does not enforce its own limit
    /// (256, `xmlParserMaxDepth`) for SAX users, so we do: deeper documents are an error,
    /// which also bounds recursion in code that walks the resulting trees.
    static let maxDepth = 256

    convenience init(sink: any XMLEventSink) throws(XMLError) {
        try self.init(sink: sink, rawSink: nil)
    }

    /// A session that reports raw events (no `String` per name, attribute or text).
    convenience init(rawSink: any XMLRawEventSink) throws(XMLError) {
        try self.init(sink: nil, rawSink: rawSink)
    }

    private init(sink: (any XMLEventSink)?, rawSink: (any XMLRawEventSink)?) throws(XMLError) {
        _ = libxml2Initialized
        self.sink = sink
        self.rawSink = rawSink
        self.ctxt = nil

        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = { ctx, localname, _, uri, _, _, nbAttributes, _, attributes in
            LibXML2SAXSession.with(ctx) { $0.start(localname, uri, Int(nbAttributes), attributes) }
        }
        sax.endElementNs = { ctx, localname, _, uri in
            LibXML2SAXSession.with(ctx) { s in
                s.depth -= 1
                if let raw = s.rawSink { return raw.endElement() }
                s.sink?.endElement(name: LibXML2SAXSession.string(localname),
                                   namespace: LibXML2SAXSession.string(uri))
            }
        }
        sax.characters = LibXML2SAXSession.charactersCallback
        sax.cdataBlock = LibXML2SAXSession.charactersCallback
        sax.ignorableWhitespace = LibXML2SAXSession.charactersCallback
        sax.internalSubset = { ctx, _, _, _ in LibXML2SAXSession.from(ctx)?.refuseDoctype() }
        sax.serror = LibXML2SAXSession.structuredErrorCallback
        // Deliberately nil: getEntity, getParameterEntity, resolveEntity, entityDecl,
        // externalSubset, reference, unparsedEntityDecl (nothing entity-related can happen).

        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let c = xmlCreatePushParserCtxt(&sax, me, nil, 0, nil) else {
            throw XMLError(kind: .internalFailure, message: "libxml2 could not create a parser context")
        }
        ctxt = c
        xmlCtxtUseOptions(c, Int32(XML_PARSE_NONET.rawValue))
    }

    deinit {
        if let ctxt { xmlFreeParserCtxt(ctxt) }
    }

    /// Parses `bytes`; `terminate` marks the end of the document. Events reach the sink
    /// during the call. Throws the first error; after an error or the final chunk the
    /// session is finished and further calls throw `.misuse` (or the same error again).
    func feed(_ bytes: UnsafeRawBufferPointer, terminate: Bool) throws(XMLError) {
        if let error { throw error }
        guard let ctxt, !isFinished else {
            throw XMLError(kind: .misuse, message: "the XML parser has already finished")
        }
        var saved = ods_xml_saved_errors()
        ods_xml_errors_install(&saved, LibXML2SAXSession.structuredErrorCallback,
                               Unmanaged.passUnretained(self).toOpaque())
        defer { ods_xml_errors_restore(&saved) }

        // libxml2 refuses to look ahead more than 10 MB without XML_PARSE_HUGE ("Huge input
        // lookup"), and a chunk handed over at once is one lookahead: feed 64 KiB at a time so
        // large documents parse (the parser drops consumed input as it goes).
        let maxChunk = 64 * 1024
        var offset = 0
        repeat {
            let n = min(bytes.count - offset, maxChunk)
            let last = terminate && offset + n == bytes.count
            let base = bytes.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) }
            let rc = xmlParseChunk(ctxt, base, Int32(n), last ? 1 : 0)
            if error == nil, rc != 0 || (last && ctxt.pointee.wellFormed == 0) {
                recordFallbackError(code: Int(rc))
            }
            if let error {
                isFinished = true
                throw error
            }
            offset += n
        } while offset < bytes.count
        if terminate { isFinished = true }
    }

    // MARK: - Callbacks

    /// Calls `body` with the session behind `ctx` without retaining it (libxml2 only calls
    /// back while `feed` runs, when the session is alive).
    @inline(__always)
    private static func with(_ ctx: UnsafeMutableRawPointer?, _ body: (LibXML2SAXSession) -> Void) {
        guard let ctx else { return }
        Unmanaged<LibXML2SAXSession>.fromOpaque(ctx)._withUnsafeGuaranteedRef(body)
    }

    private static func from(_ ctx: UnsafeMutableRawPointer?) -> LibXML2SAXSession? {
        guard let ctx else { return nil }
        return Unmanaged<LibXML2SAXSession>.fromOpaque(ctx).takeUnretainedValue()
    }

    @inline(__always)
    static func string(_ p: UnsafePointer<xmlChar>?) -> String {
        guard let p else { return "" }
        return String(cString: p)
    }

    private static let charactersCallback: charactersSAXFunc = { ctx, ch, len in
        guard let ch, len > 0 else { return }
        LibXML2SAXSession.with(ctx) { s in
            let chunk = UnsafeBufferPointer(start: ch, count: Int(len))
            if let raw = s.rawSink { return raw.characters(chunk) }
            s.sink?.characters(chunk)
        }
    }

    private static let structuredErrorCallback: xmlStructuredErrorFunc = { ctx, err in
        guard let s = LibXML2SAXSession.from(ctx), let err else { return }
        s.record(err.pointee)
    }

    private func start(_ localname: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?,
                       _ count: Int, _ attrs: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        sawElement = true
        depth += 1
        if depth > Self.maxDepth {
            stop(XMLError(kind: .notWellFormed, message: "elements are nested deeper than \(Self.maxDepth) levels"))
            return
        }
        if let raw = rawSink {
            return raw.startElement(localName: localname, namespace: uri,
                                    attributes: XMLRawAttributes(pointers: attrs, count: count))
        }
        var attributes: [XMLAttribute] = []
        if count > 0, let attrs {
            attributes.reserveCapacity(count)
            for i in 0..<count {
                // Five pointers per attribute: localname, prefix, URI, value start, value end.
                let b = i * 5
                let name = Self.string(attrs[b])
                let ns = Self.string(attrs[b + 2])
                var value = ""
                if let start = attrs[b + 3], let end = attrs[b + 4], end >= start {
                    value = Self.attributeValue(UnsafeBufferPointer(start: start, count: end - start))
                }
                attributes.append(XMLAttribute(namespace: ns, name: name, value: value))
            }
        }
        let (line, column) = position()
        sink?.startElement(XMLStartTag(name: Self.string(localname), namespace: Self.string(uri),
                                      attributes: attributes, line: line, column: column))
    }

    /// Without entity substitution, libxml2's SAX2 hands over every `&` in an attribute
    /// value (written as `&amp;` or `&#38;`) as the five characters `&#38;`; everything else
    /// is already decoded and no other `&` can occur (no DTD means no other entities), so
    /// turning `&#38;` back into `&` gives the exact value.
    private static func attributeValue(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        XMLRawAttributes.string(raw)
    }

    private func position() -> (line: Int, column: Int) {
        guard let ctxt, let input = ctxt.pointee.input else { return (0, 0) }
        return (Int(input.pointee.line), Int(input.pointee.col))
    }

    private func refuseDoctype() {
        stop(XMLError(kind: .doctypeNotAllowed,
                      message: "DOCTYPE declarations are not allowed (DTDs and entities are refused)"))
    }

    /// Records `e` (at the current position) and stops libxml2; no further callbacks come.
    private func stop(_ e: XMLError) {
        guard error == nil else { return }
        var e = e
        (e.line, e.column) = position()
        error = e
        if let ctxt { xmlStopParser(ctxt) }
    }

    private func record(_ e: xmlError) {
        guard error == nil, e.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = e.message.map { String(cString: $0) } ?? "XML error \(e.code)"
        while let last = message.last, last == "\n" || last == " " { message.removeLast() }
        let kind: XMLError.Kind = sawElement ? .notWellFormed : .empty
        var line = Int(e.line), column = Int(e.int2)
        if line <= 0 { (line, column) = position() }
        error = XMLError(kind: kind, message: message, line: line, column: column, code: Int(e.code))
    }

    private func recordFallbackError(code: Int) {
        let (line, column) = position()
        let kind: XMLError.Kind = sawElement ? .notWellFormed : .empty
        error = XMLError(kind: kind, message: "the document is not well-formed XML (libxml2 error \(code))",
                         line: line, column: column, code: code)
    }
}
