import ODataProtocol

/// `PageSplitter` against `ReferencePageSplitter` (the byte-at-a-time splitter it replaced):
/// both are fed a page in the same pieces, and everything they say must be the same: the
/// counters after each piece, each run taken, the envelope, and the first error (kind,
/// message, offset). Used by the `split` fuzz target and the differential tests.
public enum SplitterDifferential {
    /// Feeds `bytes` cut before each of `cuts` (ascending; the others ignored), taking a run
    /// whenever at least `takeAt` bytes are ready. Nil when both said the same; else the first
    /// difference. Each piece is copied into a buffer of its exact size, so a read past its
    /// end is a read out of bounds (caught under AddressSanitizer).
    public static func firstDifference(_ bytes: [UInt8], version: ODataVersion, cuts: [Int], takeAt: Int,
                                       maxHeldBytes: Int = 1 << 16,
                                       maxDepth: Int = PayloadDecoder.maxDepth + 2) -> String? {
        var wide = PageSplitter(version: version, maxHeldBytes: maxHeldBytes, maxDepth: maxDepth)
        var reference = ReferencePageSplitter(version: version, maxHeldBytes: maxHeldBytes, maxDepth: maxDepth)
        var from = 0
        for end in cuts + [bytes.count] where end > from && end <= bytes.count {
            let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: end - from, alignment: 1)
            defer { piece.deallocate() }
            bytes[from..<end].withUnsafeBytes { piece.copyMemory(from: $0) }
            let got = outcome { () throws(PayloadError) in try wide.feed(UnsafeRawBufferPointer(piece)) }
            let expected = outcome { () throws(PayloadError) in try reference.feed(UnsafeRawBufferPointer(piece)) }
            if got != expected { return "feed of \(from)..<\(end): \(describe(got)) instead of \(describe(expected))" }
            if got != nil { return nil }  // both failed alike: the page is refused
            let counters = [wide.readyBytes, wide.readyEntities, wide.bytesFed, wide.heldBytes, wide.foundArray ? 1 : 0]
            let referenceCounters = [reference.readyBytes, reference.readyEntities, reference.bytesFed, reference.heldBytes,
                                     reference.foundArray ? 1 : 0]
            if counters != referenceCounters {
                return "after \(end) bytes: counters \(counters) instead of \(referenceCounters)"
            }
            if wide.readyBytes >= takeAt {
                let run = wide.takeChunk(), referenceRun = reference.takeChunk()
                if run?.document != referenceRun?.document || run?.entities != referenceRun?.entities {
                    return "run after \(end) bytes: \(describe(run)) instead of \(describe(referenceRun))"
                }
            }
            from = end
        }
        let run = wide.takeChunk(), referenceRun = reference.takeChunk()
        if run?.document != referenceRun?.document || run?.entities != referenceRun?.entities {
            return "last run: \(describe(run)) instead of \(describe(referenceRun))"
        }
        var envelope: [UInt8] = [], referenceEnvelope: [UInt8] = []
        let got = outcome { () throws(PayloadError) in envelope = try wide.finish() }
        let expected = outcome { () throws(PayloadError) in referenceEnvelope = try reference.finish() }
        if got != expected { return "finish: \(describe(got)) instead of \(describe(expected))" }
        if envelope != referenceEnvelope {
            return "envelope \(String(decoding: envelope, as: UTF8.self)) instead of \(String(decoding: referenceEnvelope, as: UTF8.self))"
        }
        return nil
    }

    static func outcome(_ body: () throws(PayloadError) -> Void) -> PayloadError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    static func describe(_ error: PayloadError?) -> String {
        error.map { "\($0.kind) \($0.message) at \($0.offset.map(String.init) ?? "?")" } ?? "success"
    }

    static func describe(_ run: (document: [UInt8], entities: Int)?) -> String {
        guard let run else { return "none" }
        return "\(run.entities) entities in \(String(decoding: run.document, as: UTF8.self))"
    }
}
