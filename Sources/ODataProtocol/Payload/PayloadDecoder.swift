/// Decodes OData response bodies (V2 JSON verbose, V4 JSON, V2 Atom) into the canonical JSON
/// shape documented in docs/json-shape.md. Pure and thread-safe (no shared state).
public enum PayloadDecoder {
    /// Nesting limit for JSON bodies (expanded navigation and complex values); deeper input is an error.
    public static let maxDepth = 100

    /// Decodes `body` into the canonical shape.
    ///
    /// - Parameters:
    ///   - contentType: the response's `Content-Type`; nil sniffs the first byte (`{`/`[` JSON, `<` XML).
    ///   - version: the service's protocol version (selects the V2 or V4 JSON reader).
    ///   - model: the service's schema; without it values are passed through untyped (V2 `/Date(...)/`
    ///     strings are still converted) and Int64/Decimal numbers stay numbers.
    ///   - entitySet: the set the result belongs to (types the entities), or nil.
    ///   - entityType: the entity type when there is no set (e.g. a navigation result), or nil.
    ///   - target: what the request addressed, when known (see `PayloadTarget`).
    ///   - schema: the flattened types of `model`, shared between calls (pass the same one for
    ///     every response of a store); nil flattens the types this call needs from `model`.
    ///   - spans: also record where each object's members are in the output
    ///     (`DecodedPayload.spans`; JSON bodies only), for consumers that bind members one by
    ///     one instead of scanning the text again.
    public static func decode(_ body: [UInt8], contentType: String?, version: ODataVersion, model: ServiceModel?,
                              entitySet: String?, entityType: String? = nil,
                              target: PayloadTarget = .automatic,
                              schema: PayloadSchema? = nil, spans: Bool = false) throws(PayloadError) -> DecodedPayload {
        let index: PayloadModelIndex? = schema.map { PayloadModelIndex($0) } ?? model.map { PayloadModelIndex($0) }
        var declared: PayloadTypeInfo? = nil
        if let entityType { declared = index?.type(entityType) }
        if declared == nil, let entitySet { declared = index?.typeOfSet(entitySet) }
        var valueKind: (PayloadMember.Kind, Bool)? = nil
        if case .value(let ref?) = target {
            let kind = index?.memberKind(ref.name) ?? PayloadModelIndex.annotatedKind(ref.name, index: nil).0
            valueKind = (kind, ref.isCollection)
        }

        switch MediaType.classify(contentType, body: body) {
        case .json:
            return try decodeJSON(body, version: version, index: index, declared: declared, target: target, valueKind: valueKind,
                                  spans: spans)
        case .xml:
            return try AtomDecoder.decode(body, model: model, index: index, declared: declared, target: target)
        case .other(let t):
            throw PayloadError(.unsupportedContentType, "cannot decode a body of type \(t)")
        }
    }

    static func decodeJSON(_ body: [UInt8], version: ODataVersion, index: PayloadModelIndex?, declared: PayloadTypeInfo?,
                           target: PayloadTarget, valueKind: (PayloadMember.Kind, Bool)?,
                           spans: Bool = false) throws(PayloadError) -> DecodedPayload {
        do {
            return try JSONScanner.with(body, maxDepth: maxDepth) { (s: inout JSONScanner) throws(JSONError) -> DecodedPayload in
                // The canonical text is written straight into the memory of the array the
                // payload keeps (a copy of a 512 KiB download run cost about 300 instructions
                // per entity); only output that outgrows it is copied at the end.
                var decoded: (TopLevelSummary, PayloadSpans?)?
                var failure: JSONError?
                var grown: [UInt8]?
                let scanner = s
                let written = [UInt8](unsafeUninitializedCapacity: JSONTranscoder.outputCapacity(forBody: body.count)) { buffer, initialized in
                    initialized = 0
                    var t = JSONTranscoder(scanner: scanner, version: version, index: index, capacity: body.count, spans: spans,
                                           output: buffer)
                    do throws(JSONError) {
                        let r = version == .v2
                            ? try t.decodeV2(declared: declared, target: target, valueKind: valueKind)
                            : try t.decodeV4(declared: declared, target: target, valueKind: valueKind)
                        try t.s.finish()
                        decoded = (r, t.finishedSpans())
                        if t.out.isBorrowing { initialized = t.out.count } else { grown = t.out.array(0..<t.out.count) }
                    } catch {
                        failure = error
                    }
                }
                if let failure { throw failure }
                guard let (r, recorded) = decoded else { throw JSONError(offset: 0, message: "the body was not decoded") }
                let utf8 = grown ?? written
                var count: Int64? = nil
                if let text = r.count {
                    // A count that is no Int64 ("1e999", "-", 2^64) is a broken answer, not "no count".
                    guard let n = Int64(text), n >= 0 else {
                        throw JSONError(offset: 0, message: "the collection's count \"\(text.prefix(40))\" is not a non-negative 64-bit integer")
                    }
                    count = n
                }
                var payload = DecodedPayload(utf8: utf8, count: count,
                                             nextLink: r.nextLink, deltaLink: r.deltaLink, etag: r.etag, entityCount: r.entityCount,
                                             entityRanges: r.singleEntity ? [0..<utf8.count] : nil)
                payload.spans = recorded
                return payload
            }
        } catch {
            let kind: PayloadError.Kind = error.message.hasPrefix("duplicate property") ? .invalid : .malformed
            throw PayloadError(kind, error.message, offset: error.offset)
        }
    }
}

/// Content-type classification shared by the codecs.
enum MediaType: Equatable {
    case json, xml, other(String)

    /// The media type without parameters, lowercased (`application/json`).
    static func essence(_ contentType: String) -> String {
        String(decoding: essenceBytes(contentType), as: UTF8.self)
    }

    /// `essence` as bytes. Bytes, not Characters: split/filter/lowercased on String cost
    /// ~17,000 instructions per response; media types are ASCII (RFC 9110), so ASCII
    /// lowercasing is exact.
    static func essenceBytes(_ contentType: String) -> [UInt8] {
        var text = contentType
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var started = false
            for c in bytes {
                if c == UInt8(ascii: ";") {
                    if started { break }  // as split(omittingEmptySubsequences:) did: skip a leading ";"
                    continue
                }
                if c == 0x20 || c == 0x09 { continue }
                started = true
                out.append(c >= 65 && c <= 90 ? c | 0x20 : c)
            }
            return out
        }
    }

    private static func hasSuffix(_ bytes: [UInt8], _ suffix: StaticString) -> Bool {
        let n = suffix.utf8CodeUnitCount
        guard bytes.count >= n else { return false }
        let tail = bytes.count - n
        for i in 0..<n where bytes[tail + i] != suffix.utf8Start[i] { return false }
        return true
    }

    static func classify(_ contentType: String?, body: [UInt8]) -> MediaType {
        if let ct = contentType, !ct.isEmpty {
            let e = essenceBytes(ct)
            if hasSuffix(e, "json") { return .json }
            if hasSuffix(e, "xml") { return .xml }
            return .other(String(decoding: e, as: UTF8.self))
        }
        var i = 0
        if body.count >= 3, body[0] == 0xEF, body[1] == 0xBB, body[2] == 0xBF { i = 3 }
        while i < body.count, body[i] == 0x20 || body[i] == 0x0A || body[i] == 0x0D || body[i] == 0x09 { i += 1 }
        if i < body.count, body[i] == UInt8(ascii: "<") { return .xml }
        return .json
    }
}
