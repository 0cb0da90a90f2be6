import ODataProtocol

/// The fuzz targets' check of `PayloadSpans` (what the offline download's writer trusts instead
/// of reading the text again): a body decoded with spans must decode exactly as without them,
/// and every recorded member must say the truth about the canonical text it points into.
/// Traps (`fatalError`) on the first lie, so libFuzzer reports the input.
enum SpansCheck {
    static func run(_ bytes: [UInt8], version: ODataVersion, model: ServiceModel?) {
        let plain = try? PayloadDecoder.decode(bytes, contentType: "application/json", version: version, model: model,
                                               entitySet: "Items")
        let withSpans = try? PayloadDecoder.decode(bytes, contentType: "application/json", version: version, model: model,
                                                   entitySet: "Items", spans: true)
        guard let withSpans else {
            if plain != nil { fatalError("spans: the body decodes without spans and fails with them (\(version))") }
            return
        }
        guard let plain else { fatalError("spans: the body decodes with spans and fails without them (\(version))") }
        if plain.utf8 != withSpans.utf8 { fatalError("spans: the canonical text differs with spans (\(version))") }
        guard let spans = withSpans.spans else { return }
        check(spans, withSpans.utf8, version: version)
    }

    /// Offsets in range and in order, plain strings really plain, one spelling per ordinal.
    static func check(_ spans: PayloadSpans, _ text: [UInt8], version: ODataVersion) {
        let count = text.count
        var spelling: [UInt16: ArraySlice<UInt8>] = [:]
        for (i, m) in spans.members.enumerated() {
            let ks = Int(m.keyStart), ke = Int(m.keyEnd), vs = Int(m.valueStart), ve = Int(m.valueEnd)
            guard 0 <= ks, ks <= ke, ke < vs, vs < ve, ve <= count else {
                fatalError("spans: member \(i) has offsets \(ks)..<\(ke), \(vs)..<\(ve) in \(count) bytes (\(version))")
            }
            if m.valueKind == PayloadSpans.plainString {
                let inner = text[(vs + 1)..<(ve - 1)]
                guard ve - vs >= 2, text[vs] == UInt8(ascii: "\""), text[ve - 1] == UInt8(ascii: "\""),
                      !inner.contains(UInt8(ascii: "\\")) else {
                    fatalError("spans: member \(i) is marked a plain string but is not one (\(version))")
                }
            }
            if m.ordinal != PayloadSpans.noOrdinal {
                guard Int(m.ordinal) < PayloadSpans.ordinalLimit, !m.keyEscaped else {
                    fatalError("spans: member \(i) has ordinal \(m.ordinal) (escaped name: \(m.keyEscaped)) (\(version))")
                }
                let name = text[ks..<ke]
                if let seen = spelling[m.ordinal] {
                    if seen != name { fatalError("spans: ordinal \(m.ordinal) names two different members (\(version))") }
                } else {
                    spelling[m.ordinal] = name
                }
            }
        }
        for (i, o) in spans.objects.enumerated() {
            let first = Int(o.firstMember), n = Int(o.memberCount)
            guard o.start >= 0, o.start < o.end, Int(o.end) <= count, n >= 0, first >= 0, first + n <= spans.members.count,
                  Int(o.subtreeEnd) > i, Int(o.subtreeEnd) <= spans.objects.count,
                  text[Int(o.start)] == UInt8(ascii: "{"), text[Int(o.end) - 1] == UInt8(ascii: "}") else {
                fatalError("spans: object \(i) is not where it says (\(version))")
            }
        }
    }
}
