import Foundation
import Testing
import ODataFuzzTargets
import ODataProtocol

/// `PageSplitter`'s 64-byte scan against `ReferencePageSplitter`, the byte loop it replaced
/// (`SplitterDifferential`): the same runs, envelope, counters and errors for real pages cut
/// at every position, and for generated hostile ones (backslash runs and escaped quotes on
/// every side of a block's edge, strings across pieces, unicode, deep nesting, empty arrays,
/// garbage), with the default limits and small ones.
@Suite struct PageSplitterDifferentialTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static func fixtures() -> [(name: String, bytes: [UInt8])] {
        let dir = root.appendingPathComponent("Fixtures")
        var found: [(String, [UInt8])] = []
        if let e = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) {
            // Payloads only: regex/ holds the ECMAScript engine's test cases (one 120 KB JSON
            // document that cut at every 9th byte took this test from 70 s to 13 minutes).
            for case let url as URL in e where url.pathExtension == "json" && !url.path.contains("/Fixtures/regex/") {
                if let data = try? Data(contentsOf: url) { found.append((url.path, Array(data))) }
            }
        }
        return found.sorted { $0.0 < $1.0 }
    }

    static func check(_ bytes: [UInt8], _ name: String, cuts: [Int], takeAt: Int = 0, maxHeld: Int = 1 << 24,
                      maxDepth: Int = PayloadDecoder.maxDepth + 2) -> Bool {
        for version in [ODataVersion.v4, .v2] {
            if let difference = SplitterDifferential.firstDifference(bytes, version: version, cuts: cuts, takeAt: takeAt,
                                                                     maxHeldBytes: maxHeld, maxDepth: maxDepth) {
                Issue.record("\(name) as \(version), cuts \(cuts.prefix(20)): \(difference)")
                return false
            }
        }
        return true
    }

    /// Every JSON fixture (Olingo, odata.net, SAP, OASIS): whole, byte by byte, cut once at
    /// every position (every 9th in those over 2 KB), and at random places.
    @Test func realPagesCutAnywhere() {
        var pages = 0
        for (name, bytes) in Self.fixtures() {
            let n = bytes.count
            guard Self.check(bytes, name, cuts: []),
                  Self.check(bytes, name, cuts: Array(1..<max(n, 1)), takeAt: 100) else { continue }
            let stride = n <= 2_000 ? 1 : 9
            for cut in Swift.stride(from: 1, to: n, by: stride) {
                guard Self.check(bytes, name, cuts: [cut], takeAt: cut % 3 == 0 ? 0 : 500) else { break }
            }
            var random = SeededRandom(seed: UInt64(n))
            for round in 0..<20 {
                let cuts = Set((0..<random.below(16)).map { _ in 1 + random.below(max(n - 1, 1)) }).sorted()
                guard Self.check(bytes, name, cuts: cuts, takeAt: [0, 64, 1 << 30][round % 3]) else { break }
            }
            pages += 1
        }
        #expect(pages > 80)
    }

    /// Strings with runs of 0 to 6 backslashes before a quote, a bracket or a letter, placed so
    /// that the run, the escaped byte or the closing quote falls on each side of a block edge,
    /// in a V4 and a V2 page, cut at every position around those edges.
    @Test func escapesAtBlockEdges() {
        var checked = 0
        for run in 0...6 {
            for escapedByte in ["\"", "]", "a", "\\u00e9"] {
                for pad in 40..<72 {
                    let text = String(repeating: "x", count: pad) + String(repeating: "\\", count: run)
                        + (run % 2 == 1 ? escapedByte : "") + "}]"
                    let entity = #"{"ID":1,"S":"\#(text)","T":[{"k":"\\\\"}]}"#
                    for page in [#"{"value":[\#(entity),\#(entity)],"@odata.count":2}"#,
                                 #"{"d":{"results":[\#(entity) , \#(entity)],"__next":"n"}}"#] {
                        let bytes = Array(page.utf8)
                        let edge = min(bytes.count - 1, 10 + pad + run)
                        for cut in max(1, edge - 6)...min(bytes.count - 1, edge + 6) {
                            _ = Self.check(bytes, "run \(run) pad \(pad): \(page)", cuts: [cut])
                            checked += 1
                        }
                        _ = Self.check(bytes, "run \(run) pad \(pad): \(page)", cuts: [])
                    }
                }
            }
        }
        #expect(checked > 10_000)
    }

    /// Random pages of structural bytes, backslashes, letters and UTF-8 inside a V4 or V2
    /// array (valid JSON or not: the two splitters must agree on every byte), in random
    /// pieces, with the default limits and small ones (depth 6, 300 bytes held).
    @Test func generatedHostilePages() {
        let alphabet: [[UInt8]] = ["\"", "\\", "{", "}", "[", "]", ",", ":", " ", "a", "1", "é", "\u{1F600}", "\\\"", "\\\\",
                                   "\"x\"", "{\"k\":\"v\"}", "[]", "{}", "\n"].map { Array($0.utf8) }
        let prefixes = [#"{"value":["#, #"{"d":{"results":["#, #"{"d":["#, #"{"@odata.context":"c","value":[{"#, ""]
        var random = SeededRandom(seed: 2026)
        for round in 0..<3_000 {
            var bytes = Array(prefixes[round % prefixes.count].utf8)
            for _ in 0..<random.below(200) { bytes += alphabet[random.below(alphabet.count)] }
            if round % 2 == 0 { bytes += Array("]}}".utf8) }
            let n = bytes.count
            let cuts = Set((0..<random.below(10)).map { _ in 1 + random.below(max(n - 1, 1)) }).sorted()
            let small = round % 3 == 0
            if !Self.check(bytes, "round \(round): \(String(decoding: bytes, as: UTF8.self))", cuts: cuts,
                           takeAt: random.below(3) * 40, maxHeld: small ? 300 : 1 << 20,
                           maxDepth: small ? 6 : PayloadDecoder.maxDepth + 2) { break }
        }
    }

    /// Deep nesting, empty arrays and long pages: the depth limit's error (and its offset)
    /// and many entities over many blocks and pieces.
    @Test func nestingAndLongPages() {
        var pages: [String] = [
            #"{"value":[]}"#, #"{"d":{"results":[]}}"#, #"{"d":[]}"#, #"{"value":[[],[[]],{},{"a":[]}]}"#,
            #"{"value":["# + String(repeating: "[", count: 5_000),
            #"{"value":[{"a":"# + String(repeating: "{\"b\":", count: 300) + "1" + String(repeating: "}", count: 300) + "}]}",
            #"{"value":[{"a":"\"# + String(repeating: "\\", count: 200) + #""}] }"#,
            // Backslashes outside strings (not JSON): they escape nothing there.
            #"{"value":[{"a":\"],"b":"x"},{"c":\\"}"},{"d":[\"]"]}]}"#,
            #"{"d":{"results":[{"a":1}\,{"b":"\\"}\]}}"#,
        ]
        var long = #"{"d":{"__count":"500","results":["#
        for i in 0..<500 {
            if i > 0 { long += i % 7 == 0 ? " ,\n" : "," }
            long += #"{"__metadata":{"uri":"http://h/s/P(\#(i))","type":"N.P","etag":"W/\"\#(i)\""},"ID":\#(i),"#
                + #""Name":"caf\u00e9 \#(String(repeating: "\\\\", count: i % 5))","D":"\/Date(\#(i)000)\/","#
                + #""Tags":[\#(i % 3 == 0 ? "" : "\"a\",[1,{}]")],"C":{"__deferred":{"uri":"http://h/s/P(\#(i))/C"}}}"#
        }
        long += #"],"__next":"http://h/s/P?$skiptoken=500"}}"#
        pages.append(long)
        for page in pages {
            let bytes = Array(page.utf8)
            var random = SeededRandom(seed: UInt64(bytes.count))
            for round in 0..<40 {
                let cuts = Set((0..<random.below(30)).map { _ in 1 + random.below(max(bytes.count - 1, 1)) }).sorted()
                _ = Self.check(bytes, String(page.prefix(60)), cuts: cuts, takeAt: round % 2 == 0 ? 0 : 4_096)
                _ = Self.check(bytes, String(page.prefix(60)), cuts: cuts, maxHeld: 2_000, maxDepth: 20)
            }
        }
    }
}
