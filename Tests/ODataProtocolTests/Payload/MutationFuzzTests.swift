import Testing
import Foundation
@testable import ODataProtocol

/// Seeded mutation fuzzing of the parsers and decoders over the real fixtures: every mutant must
/// produce a value or a thrown error, never a crash or a hang. Reproducible (fixed seeds).
@Suite struct MutationFuzzTests {
    static let interesting: [[UInt8]] = ["{", "}", "[", "]", "\"", ",", ":", "\\", "\\u", "\\uD800", "-", "0", "1e", "null",
                                         "\r\n", "\n", "--", "<", ">", "/", "&amp;", "\u{0}", "é", "__metadata", "results",
                                         "@odata.type", "\"/Date(", ")/", "--batch", "Content-Type: multipart/mixed; boundary=x\r\n"]
        .map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
        var b = input
        for _ in 0...rng.below(4) {
            let i = rng.below(b.count + 1)
            switch rng.below(7) {
            case 0 where !b.isEmpty: b[min(i, b.count - 1)] ^= UInt8(1 << rng.below(8))
            case 1: b.insert(UInt8(truncatingIfNeeded: rng.next()), at: i)
            case 2 where !b.isEmpty:
                let n = min(b.count - min(i, b.count - 1), 1 + rng.below(16))
                b.removeSubrange(min(i, b.count - 1)..<(min(i, b.count - 1) + n))
            case 3: b.insert(contentsOf: interesting[rng.below(interesting.count)], at: i)
            case 4 where b.count > 2:
                let s = rng.below(b.count - 1)
                let n = min(b.count - s, 1 + rng.below(64))
                b.insert(contentsOf: b[s..<(s + n)], at: i)
            case 5: b = Array(b.prefix(i))
            default:
                if !b.isEmpty { b[min(i, b.count - 1)] = interesting[rng.below(interesting.count)].first ?? 0 }
            }
        }
        return b
    }

    func corpus(_ files: [String]) throws -> [[UInt8]] { try files.map { try PayloadFixtures.bytes($0) }.filter { $0.count < 40_000 } }

    @Test func jsonParser() throws {
        let inputs = try corpus(PayloadFixtures.files(extensions: [".json"]))
        var rng = SeededRandom(seed: 0xA11CE)
        var accepted = 0
        for n in 0..<6000 {
            let m = Self.mutate(inputs[n % inputs.count], &rng)
            if let v = try? JSONValue.parse(m) {
                accepted += 1
                #expect(try JSONValue.parse(v.serialized()) == v)  // anything accepted round-trips
            }
        }
        #expect(accepted > 0)
    }

    @Test func v2AndV4JSONDecoders() throws {
        let v2 = try corpus(PayloadFixtures.files(under: PayloadFixtures.olingo2, extensions: [".json"])
            + PayloadFixtures.files(under: PayloadFixtures.flight, extensions: [".json"]))
        let v4 = try corpus(PayloadFixtures.files(under: PayloadFixtures.olingo4, extensions: [".json"]))
        var rng = SeededRandom(seed: 0xBEEF)
        for n in 0..<5000 {
            let v4Turn = n % 2 == 1
            let source = v4Turn ? v4[n % v4.count] : v2[n % v2.count]
            let m = Self.mutate(source, &rng)
            let model = v4Turn ? PayloadModels.tripPin : PayloadModels.refScenario
            let set = v4Turn ? "People" : ["Employees", "Rooms", "Buildings", "Teams", nil][n % 5]
            if let r = try? PayloadDecoder.decode(m, contentType: "application/json", version: v4Turn ? .v4 : .v2,
                                                 model: n % 3 == 0 ? nil : model, entitySet: set) {
                #expect((try? JSONValue.parse(r.json)) != nil)  // output is always valid JSON
            }
            _ = ErrorBodyDecoder.decode(m, contentType: "application/json")
        }
    }

    @Test func atomDecoder() throws {
        let inputs = try corpus(PayloadFixtures.files(under: PayloadFixtures.olingo2, extensions: [".xml"]))
            .filter { String(decoding: $0.prefix(2000), as: UTF8.self).contains("2005/Atom") }
        var rng = SeededRandom(seed: 0xA70)
        for n in 0..<1500 {
            let m = Self.mutate(inputs[n % inputs.count], &rng)
            if let r = try? PayloadDecoder.decode(m, contentType: "application/atom+xml", version: .v2,
                                                 model: PayloadModels.refScenario, entitySet: nil) {
                #expect((try? JSONValue.parse(r.json)) != nil)
            }
            _ = ErrorBodyDecoder.decode(m, contentType: "application/xml")
        }
    }

    @Test func batchParser() throws {
        let inputs = try corpus(PayloadFixtures.files(extensions: [".batch"])
            + PayloadFixtures.files(under: PayloadFixtures.odatanetBatch, extensions: [".txt"]))
        var rng = SeededRandom(seed: 0xBA7C)
        for n in 0..<6000 {
            let m = Self.mutate(inputs[n % inputs.count], &rng)
            if let r = try? BatchRequest.parse(m, contentType: nil) { _ = try? r.encoded(boundary: "x") }
            if let r = try? BatchResponse.parse(m, contentType: nil) { _ = r.encoded(boundary: "x") }
        }
    }
}
