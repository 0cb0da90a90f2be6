/// V2 Atom (application/atom+xml) feeds and entries to the canonical shape. Read only.
enum AtomDecoder {
    static func decode(_ body: [UInt8], model: ServiceModel?, index: PayloadModelIndex?, declared: PayloadTypeInfo?,
                       target: PayloadTarget) throws(PayloadError) -> DecodedPayload {
        throw PayloadError(.unsupportedContentType, "Atom/XML payloads are not supported yet")
    }
}
