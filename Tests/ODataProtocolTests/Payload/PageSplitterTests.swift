import CScan
import Testing
@testable import ODataProtocol

/// `PageSplitter`: a page fed in any pieces (whole, byte by byte, at random places: inside
/// strings, escapes, `\u` sequences, numbers) and decoded chunk by chunk gives the entities
/// and annotations that decoding the whole page gives; broken or hostile pages fail clearly.
@Suite struct PageSplitterTests {
    struct Page {
        let name: String
        let body: String
        let version: ODataVersion
        var model: ServiceModel? = nil
        var entitySet: String? = nil
    }

    static let v4Metadata = try! MetadataParser.parse(CapturedServerBodies.v4Metadata)
    static let v2Metadata = try! MetadataParser.parse(CapturedServerBodies.v2Metadata)

    static let pages: [Page] = [
        Page(name: "v4 captured (count before value)", body: CapturedServerBodies.v4Products, version: .v4,
             model: v4Metadata, entitySet: "Products"),
        Page(name: "v2 captured (__count before results)", body: CapturedServerBodies.v2Products, version: .v2,
             model: v2Metadata, entitySet: "Products"),
        Page(name: "v4 annotations after value, escapes", body: #"""
            {"@odata.context":"http://h/s/$metadata#People","value":[
              {"ID":1,"Name":"a \"quoted\" name, with [brackets] and {braces}","Note":"\\","Esc":"\u00e9\u20ac\ud83d\ude00\/"},
              {"ID":-2.5e+3,"Name":"","Tags":["x","y",{"k":[1,2,[3]]}],"Nested":{"A":{"B":null}},"Ok":true},
              {"ID":3,"Name":"caf\u00E9 ☕ 日本","N":0.000001,"Z":-0}
            ],"@odata.nextLink":"http://h/s/People?$skiptoken=\"3\",x","@odata.count":3}
            """#, version: .v4),
        Page(name: "v4 next link before value", body: #"{"@odata.nextLink":"People?$skip=2","value":[{"ID":1},{"ID":2}]}"#, version: .v4),
        Page(name: "v4 delta", body: #"""
            {"@odata.context":"http://h/s/$metadata#People/$delta","value":[{"ID":1,"Name":"n"},
            {"@odata.context":"http://h/s/$metadata#People/$deletedEntity","id":"People(2)","reason":"deleted"},
            {"@odata.removed":{"reason":"changed"},"@odata.id":"People(3)"}],"@odata.deltaLink":"http://h/s/People?$deltatoken=9"}
            """#, version: .v4),
        Page(name: "v4 empty", body: #"{"@odata.context":"x","value":[]}"#, version: .v4),
        Page(name: "v4 escaped value name", body: #"{"valu\u0065":[{"ID":1}],"@odata.count":1}"#, version: .v4),
        Page(name: "v2 __next after results", body: #"""
            {"d" : {"results" : [ {"__metadata":{"uri":"http://h/s/P(1)","type":"N.P"},"ID":1,"T":"\/Date(1577923200000)\/"} ,
              {"__metadata":{"uri":"http://h/s/P(2)"},"ID":2,"S":"]},{\"d\":["} ],
              "__count" : "10", "__next" : "http://h/s/P?$skiptoken=2" } }
            """#, version: .v2),
        Page(name: "v2 bare d array", body: #"{"d":[{"ID":1,"Name":"x"},{"ID":2,"Name":"y\n"}]}"#, version: .v2),
        // Found by the `split` fuzz target: the decoder reads `d` as one entity when its first
        // member is not a feed member, and a page whose first member is not `d` without the
        // wrapper; the split must read them so too (one entity, not the array's).
        Page(name: "v2 d whose first member is not a feed member",
             body: #"{"d":{"__a.ccount":"3","results":[{"ID":1},{"ID":2}]}}"#, version: .v2),
        Page(name: "v2 a member before d", body: #"{"x":1,"d":{"results":[{"ID":1},{"ID":2}]}}"#, version: .v2),
        Page(name: "v2 d with __count first", body: #"{"d":{"__count":"2","results":[{"ID":1},{"ID":2}]}}"#, version: .v2),
        // Also found by the fuzz target: a single-entity context before `value` makes `value` a
        // property of one entity; an escaped context name or value could, so the page is read whole.
        Page(name: "v4 single-entity context", body: #"{"@odata.context":"../$metadata#SI/Nav/$entity","value":[{"ID":1},{"ID":2}]}"#,
             version: .v4),
        Page(name: "v4 4.01 single-entity context", body: #"{"@context":"$metadata#People/$entity","value":[{"ID":1}]}"#, version: .v4),
        Page(name: "v4 escaped single-entity context", body: #"{"@odata.context":"$metadata#People\/$entity","value":[{"ID":1}]}"#,
             version: .v4),
        Page(name: "v4 escaped context name", body: #"{"@odata.context":"$metadata#People/$entity","value":[{"ID":1}]}"#,
             version: .v4),
        Page(name: "v4 collection context", body: #"{"@odata.context":"$metadata#People","value":[{"ID":1},{"ID":2}]}"#, version: .v4),
    ]

    struct Result: Equatable {
        var entities: [String]
        /// Entities as the decoder counts them (a single entity whose `value` property is an
        /// array is one, not the array's elements).
        var entityCount: Int
        var count: Int64?
        var nextLink: String?
        var deltaLink: String?
    }

    static func entities(_ payload: DecodedPayload) -> [String] {
        let doc = CanonicalDocument(payload.json)
        guard let root = doc.root, let value = doc.member("value", of: root) else { return [] }
        return doc.elements(of: value).map { doc.text($0) }
    }

    static func decode(_ bytes: [UInt8], _ page: Page) throws -> DecodedPayload {
        try PayloadDecoder.decode(bytes, contentType: "application/json", version: page.version, model: page.model,
                                  entitySet: page.entitySet, target: .entities)
    }

    static func whole(_ page: Page) throws -> Result {
        let p = try decode(Array(page.body.utf8), page)
        return Result(entities: entities(p), entityCount: p.entityCount, count: p.count, nextLink: p.nextLink,
                      deltaLink: p.deltaLink)
    }

    /// Feeds `page` in pieces ending at `cuts`, taking chunks when at least `takeAt` bytes are ready.
    static func split(_ page: Page, cuts: [Int], takeAt: Int, maxHeld: Int = 1 << 20) throws -> Result {
        let bytes = Array(page.body.utf8)
        var s = PageSplitter(version: page.version, maxHeldBytes: maxHeld)
        var out: [String] = []
        var decoded = 0
        var from = 0
        for end in cuts + [bytes.count] where end > from {
            try bytes[from..<end].withUnsafeBytes { try s.feed($0) }
            from = end
            if s.readyBytes >= takeAt, let chunk = s.takeChunk() {
                let p = try decode(chunk.document, page)
                let got = entities(p)
                #expect(got.count == chunk.entities, "\(page.name)")
                out += got
                decoded += p.entityCount
            }
        }
        if let chunk = s.takeChunk() {
            let p = try decode(chunk.document, page)
            let got = entities(p)
            #expect(got.count == chunk.entities, "\(page.name)")
            out += got
            decoded += p.entityCount
        }
        let envelope = try decode(try s.finish(), page)
        out += entities(envelope)
        decoded += envelope.entityCount
        return Result(entities: out, entityCount: decoded, count: envelope.count, nextLink: envelope.nextLink,
                      deltaLink: envelope.deltaLink)
    }

    @Test(arguments: pages.indices) func piecesGiveTheWholePage(_ index: Int) throws {
        let page = Self.pages[index]
        let expected = try Self.whole(page)
        let n = page.body.utf8.count
        #expect(try Self.split(page, cuts: [], takeAt: 0) == expected, "\(page.name): whole")
        #expect(try Self.split(page, cuts: Array(1..<n), takeAt: 0) == expected, "\(page.name): byte by byte")
        #expect(try Self.split(page, cuts: Array(1..<n), takeAt: 200) == expected, "\(page.name): byte by byte, chunks of 200")
        var random = SeededRandom(seed: UInt64(index + 1))
        for round in 0..<200 {
            var cuts = Set<Int>()
            for _ in 0..<random.below(12) { cuts.insert(1 + random.below(max(n - 1, 1))) }
            let takeAt = [0, 1, 50, 400, 1 << 30][round % 5]
            #expect(try Self.split(page, cuts: cuts.sorted(), takeAt: takeAt) == expected, "\(page.name): cuts \(cuts.sorted())")
        }
        if page.name.contains("escaped value name") {
            // Not found: held whole and decoded as the envelope.
            #expect(expected.entities.count == 1)
        }
    }

    /// Every JSON fixture (Olingo, odata.net, SAP, the OASIS examples), as V4 and as V2, with
    /// no model: where the whole-page decode succeeds, the split gives the same entities and
    /// annotations; where it fails, so does the split.
    @Test func everyJSONFixtureSplitsLikeTheWholePage() throws {
        var compared = 0
        for file in PayloadFixtures.files(extensions: ["json"]) {
            let body = String(decoding: try PayloadFixtures.bytes(file), as: UTF8.self)
            for version in [ODataVersion.v4, .v2] {
                let page = Page(name: file, body: body, version: version)
                let whole = try? Self.whole(page)
                let n = body.utf8.count
                var random = SeededRandom(seed: UInt64(n))
                var cuts = Set<Int>()
                for _ in 0..<8 { cuts.insert(1 + random.below(max(n - 1, 1))) }
                let split = try? Self.split(page, cuts: cuts.sorted(), takeAt: 100, maxHeld: 1 << 24)
                #expect(split == whole, "\(file) as \(version)")
                if whole != nil { compared += 1 }
            }
        }
        #expect(compared > 100)
    }

    @Test func theWordAtATimeScanFindsTheFirstQuoteOrBackslash() {
        var random = SeededRandom(seed: 7)
        let alphabet: [UInt8] = [0x22, 0x5C, 0x21, 0x23, 0x5B, 0x5D, 0x00, 0xFF, 0xA2, 0xDC, 0x61, 0x01]
        for _ in 0..<5_000 {
            let bytes = (0..<random.below(40)).map { _ in alphabet[random.below(alphabet.count)] }
            let start = random.below(bytes.count + 1)
            let expected = bytes[start...].firstIndex { $0 == 0x22 || $0 == 0x5C } ?? bytes.count
            let found = bytes.withUnsafeBufferPointer { PageSplitter.scanString($0, start) }
            #expect(found == expected, "\(bytes) from \(start)")
        }
    }

    @Test func aLargePageIsHeldInSmallPieces() throws {
        // 20,000 entities of ~100 bytes (2 MB) fed in 16 KB pieces, chunks taken at 64 KB:
        // what is held never passes a chunk plus a piece.
        var body = #"{"@odata.context":"x","value":["#
        for i in 0..<20_000 {
            if i > 0 { body += "," }
            body += #"{"ID":\#(i),"Name":"entity \#(i) with a \"quote\" and \u00e9","Price":\#(i).25}"#
        }
        body += #"],"@odata.nextLink":"next"}"#
        let bytes = Array(body.utf8)
        var s = PageSplitter(version: .v4, maxHeldBytes: 1 << 20)
        var peak = 0, entities = 0, from = 0
        while from < bytes.count {
            let end = min(from + 16_384, bytes.count)
            try bytes[from..<end].withUnsafeBytes { try s.feed($0) }
            from = end
            peak = max(peak, s.heldBytes)
            if s.readyBytes >= 65_536, let chunk = s.takeChunk() { entities += chunk.entities }
        }
        entities += s.takeChunk()?.entities ?? 0
        let envelope = try PayloadDecoder.decode(try s.finish(), contentType: "application/json", version: .v4, model: nil,
                                                 entitySet: nil, target: .entities)
        #expect(entities == 20_000)
        #expect(envelope.nextLink == "next" && envelope.entityCount == 0)
        #expect(peak < 65_536 + 16_384 + 200, "held \(peak) bytes of a \(bytes.count)-byte page")
    }

    static func failure(_ body: String, version: ODataVersion = .v4, maxHeld: Int = 1 << 20, piece: Int = 7) -> PayloadError? {
        let bytes = Array(body.utf8)
        var s = PageSplitter(version: version, maxHeldBytes: maxHeld)
        do {
            var from = 0
            while from < bytes.count {
                let end = min(from + piece, bytes.count)
                try bytes[from..<end].withUnsafeBytes { try s.feed($0) }
                from = end
                if let run = s.takeChunk() {
                    _ = try PayloadDecoder.decode(run.document, contentType: "application/json", version: version, model: nil,
                                                  entitySet: nil, target: .entities)
                }
            }
            if let run = s.takeChunk() {
                _ = try PayloadDecoder.decode(run.document, contentType: "application/json", version: version, model: nil,
                                              entitySet: nil, target: .entities)
            }
            let envelope = try s.finish()
            _ = try PayloadDecoder.decode(envelope, contentType: "application/json", version: version, model: nil,
                                          entitySet: nil, target: .entities)
            return nil
        } catch {
            return error as? PayloadError ?? PayloadError(.malformed, "\(error)")
        }
    }

    @Test func hostilePagesFailClearly() throws {
        #expect(Self.failure(#"{"value":[{"a":1]}"#)?.message.contains("unbalanced") == true)
        #expect(Self.failure(#"{"value":[{"a":1}]}}"#)?.message.contains("unbalanced") == true)
        #expect(Self.failure(#"{"value":[{"a":1}"#)?.message.contains("ends inside") == true)
        #expect(Self.failure(#"{"value":[{"a":"x"#)?.message.contains("ends inside a string") == true)
        let deep = #"{"value":["# + String(repeating: "[", count: 5_000)
        #expect(Self.failure(deep)?.message.contains("nests deeper") == true)
        let huge = #"{"value":[{"ID":1},{"Blob":""# + String(repeating: "x", count: 5_000) + #""}]}"#
        let e = Self.failure(huge, maxHeld: 1_000)
        #expect(e?.kind == .invalid && e?.message.contains("an entity of the page is larger than 1000 bytes") == true)
        let preamble = #"{"@odata.context":""# + String(repeating: "x", count: 5_000) + #"","value":[]}"#
        #expect(Self.failure(preamble, maxHeld: 1_000)?.message.contains("before the page's entities") == true)
        let trailer = #"{"value":[],"@odata.nextLink":""# + String(repeating: "x", count: 5_000) + #""}"#
        #expect(Self.failure(trailer, maxHeld: 1_000)?.message.contains("after the page's entities") == true)
        // Garbage after the page and broken entities reach the decoder.
        #expect(Self.failure(#"{"value":[{"ID":1}]} x"#) != nil)
        #expect(Self.failure(#"{"value":[{"ID":1},,{"ID":2}]}"#) != nil)
        #expect(Self.failure(#"{"value":[,{"ID":2}]}"#) != nil)
        // Brackets of the wrong kind inside an entity: the splitter only counts them, the decoder refuses the run.
        #expect(Self.failure(#"{"value":[{"a":[1}},{"b":[}]]}"#) != nil)
        #expect(Self.failure(#"{"value":[{"a":[1}],{"b":2}]}"#) != nil)
        #expect(Self.failure(#"{"value":[{"ID":2},]}"#) != nil)
        #expect(Self.failure(#"{"value":[{"ID":1}],"value":[]}"#) != nil)
        // The same entities within the limit pass.
        #expect(Self.failure(huge, maxHeld: 100_000) == nil)
    }
}


extension PageSplitterTests {
    /// `takeChunk(into:)` with one buffer for every run gives the runs `takeChunk()` gives.
    @Test func runsTakenIntoOneBufferAreTheSame() throws {
        for page in Self.pages {
            let bytes = Array(page.body.utf8)
            var a = PageSplitter(version: page.version, maxHeldBytes: 1 << 20)
            var b = a
            var buffer: [UInt8] = Array(repeating: 0x41, count: 3)  // emptied by the first take
            for k in stride(from: 0, to: bytes.count, by: 7) {
                let piece = bytes[k..<min(k + 7, bytes.count)]
                try piece.withUnsafeBytes { try a.feed($0) }
                try piece.withUnsafeBytes { try b.feed($0) }
                let fresh = a.takeChunk()
                let n = b.takeChunk(into: &buffer)
                #expect(fresh?.entities == n, "\(page.name)")
                if let fresh { #expect(fresh.document == buffer, "\(page.name)") }
            }
            #expect(try a.finish() == b.finish(), "\(page.name)")
        }
    }
}

/// The parts of the 64-byte scan (the splitter as a whole is compared with the byte loop it
/// replaced in Tests/ODataStoreTests/PageSplitterDifferentialTests.swift).
extension PageSplitterTests {
    /// The SSE2 masks are the portable loop's, for blocks of every structural byte, their
    /// neighbours (the bracket compare adds 1 and ORs 0x22), and high bytes; the tail pads with nothing.
    @Test func theBlockMasksAreThePortableOnes() {
        var random = SeededRandom(seed: 64)
        let alphabet: [UInt8] = [0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x7C, 0x3B, 0x7A, 0x5A, 0x5E, 0x7E, 0x5F, 0x7F, 0x79, 0x59,
                                 0x02, 0x00, 0xFF, 0xFB, 0xDB, 0xA2, 0xFC, 0x61]
        for round in 0..<20_000 {
            let block = (0..<64).map { _ in round % 4 == 0 ? UInt8(random.below(256)) : alphabet[random.below(alphabet.count)] }
            let wide = block.withUnsafeBufferPointer { ods_scan_block($0.baseAddress!) }
            let portable = block.withUnsafeBufferPointer { ods_scan_block_portable($0.baseAddress!) }
            #expect(wide.quotes == portable.quotes && wide.backslashes == portable.backslashes && wide.brackets == portable.brackets)
            for (k, c) in block.enumerated() {
                let bit = UInt64(1) << UInt64(k)
                #expect((portable.quotes & bit != 0) == (c == 0x22))
                #expect((portable.backslashes & bit != 0) == (c == 0x5C))
                #expect((portable.brackets & bit != 0) == [0x7B, 0x7D, 0x5B, 0x5D].contains(c))
            }
            let n = random.below(64)
            let tail = block.withUnsafeBufferPointer { ods_scan_tail($0.baseAddress!, n) }
            let mask = n == 0 ? 0 : ~UInt64(0) >> UInt64(64 - n)
            #expect(tail.quotes == portable.quotes & mask && tail.backslashes == portable.backslashes & mask
                    && tail.brackets == portable.brackets & mask)
        }
        for c in 0...255 {  // every byte value, in every lane
            let block = (0..<64).map { UInt8(truncatingIfNeeded: c + 0 * $0) }
            let wide = block.withUnsafeBufferPointer { ods_scan_block($0.baseAddress!) }
            let all = ~UInt64(0)
            #expect(wide.quotes == (c == 0x22 ? all : 0) && wide.backslashes == (c == 0x5C ? all : 0)
                    && wide.brackets == ([0x7B, 0x7D, 0x5B, 0x5D].contains(c) ? all : 0), "byte \(c)")
        }
        #expect(ods_scan_is_sse2() == 1 || ods_scan_is_sse2() == 0)
    }

    /// `escapedBytes` is the byte-by-byte reading (a backslash not itself escaped escapes the
    /// next byte) for every kind of run, the escape from the block before included.
    @Test func theEscapedBytesAreTheSequentialOnes() {
        var random = SeededRandom(seed: 92)
        for round in 0..<50_000 {
            // Dense and sparse masks, runs across the whole block.
            var b: UInt64 = 0
            for k in 0..<64 where random.below([2, 4, 16][round % 3]) == 0 { b |= UInt64(1) << UInt64(k) }
            if round == 0 { b = ~0 }
            let pending = random.below(2) == 1
            var expected: UInt64 = pending ? 1 : 0
            var escapedNext = pending
            for k in 0..<64 {
                let isEscaped = escapedNext
                if isEscaped { expected |= UInt64(1) << UInt64(k) }
                escapedNext = !isEscaped && b & (UInt64(1) << UInt64(k)) != 0
            }
            let got = PageSplitter.escapedBytes(b, pending)
            #expect(got.escaped == expected && got.carry == escapedNext, "\(String(b, radix: 2)) pending \(pending)")
        }
    }

    @Test func thePrefixXORIsTheRunningParity() {
        var random = SeededRandom(seed: 5)
        for _ in 0..<10_000 {
            let x = UInt64(random.below(Int.max)) ^ (UInt64(random.below(Int.max)) << 1)
            var parity: UInt64 = 0, expected: UInt64 = 0
            for k in 0..<64 {
                parity ^= (x >> UInt64(k)) & 1
                expected |= parity << UInt64(k)
            }
            #expect(PageSplitter.prefixXOR(x) == expected)
        }
    }
}
