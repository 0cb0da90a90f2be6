/// V2 Atom (`application/atom+xml`, also `application/xml` entries) to the canonical shape.
/// Read only. Feeds (`m:count`, `next` and `delta` links, `at:deleted-entry` tombstones),
/// entries (`m:etag`, category type, media link entries, `m:properties` with `m:type`/`m:null`),
/// inline feeds and entries (`m:inline`, empty = null / []), deferred links dropped. Relative
/// links are resolved against `xml:base`. A V2 property response (`<d:Name>`) gives
/// `{"value": ...}`, `$links` (`<links><uri>`, `<uri>`) entity references, and an OData error
/// body (`<m:error>`) is thrown as such. A repeated property (or inline navigation link) is
/// refused as in JSON: `PayloadError(.invalid, "duplicate property \"Name\"")`.
///
/// The document streams from libxml2 (hardened session: no DTD, no entities, no network,
/// depth limit) through `AtomStreamDecoder` into the JSON bytes in one pass; a second pass is
/// made only for an entry whose `atom:category` comes after the values its type governs and
/// names another type than the declared one.
enum AtomDecoder {
    static func decode(_ body: [UInt8], model: ServiceModel?, index: PayloadModelIndex?, declared: PayloadTypeInfo?,
                       target: PayloadTarget) throws(PayloadError) -> DecodedPayload {
        let first = AtomEventSink(AtomStreamDecoder(index: index, declared: declared, target: target,
                                                    capacity: body.count / 2 + 64))
        try parse(body, into: first)
        guard first.decoder.conflict else { return try first.decoder.payload(body: body) }
        let d = first.decoder
        let second = AtomEventSink(AtomStreamDecoder(index: index, declared: declared, target: target,
                                                     capacity: body.count / 2 + 64, knownTerms: d.entryTerms,
                                                     terms: d.terms, termTable: d.termTable))
        try parse(body, into: second)
        return try second.decoder.payload(body: body)
    }

    static func parse(_ body: [UInt8], into sink: AtomEventSink) throws(PayloadError) {
        let parsed: Result<Void, XMLError> = body.withUnsafeBytes { raw in
            Result { () throws(XMLError) in
                let session = try LibXML2SAXSession(rawSink: sink)
                try withExtendedLifetime(sink) { () throws(XMLError) in
                    try session.feed(raw, terminate: true)
                }
            }
        }
        if case .failure(let error) = parsed {
            throw PayloadError(.malformed, "XML: \(error.message)", offset: nil)
        }
    }
}

/// Hands libxml2's events to an `AtomStreamDecoder`. The decoder lives behind a pointer the
/// sink owns: reaching it costs no dynamic exclusivity check per event (a stored property of a
/// class would), and nothing else can reach it while the session runs.
final class AtomEventSink: XMLRawEventSink {
    private let state: UnsafeMutablePointer<AtomStreamDecoder>

    init(_ decoder: AtomStreamDecoder) {
        state = .allocate(capacity: 1)
        state.initialize(to: decoder)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// The decoder (read once the session is done).
    var decoder: AtomStreamDecoder { state.pointee }

    func startElement(localName: UnsafePointer<UInt8>?, namespace: UnsafePointer<UInt8>?, attributes: XMLRawAttributes) {
        state.pointee.start(localName, namespace, attributes)
    }

    func endElement() { state.pointee.end() }

    func characters(_ chunk: UnsafeBufferPointer<UInt8>) { state.pointee.characters(chunk) }
}
