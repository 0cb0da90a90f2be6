import Foundation
import Testing
@testable import ODataProtocol

/// Randomized mutation testing of the URL, `$filter` and `$orderby` parsers (seeded).
///
/// Inputs: real URLs from the fixtures mutated by token insertion, deletion, duplication and
/// truncation; random token soups; and pathological nesting (10,000 parentheses, `not`s,
/// nested `$expand`s). The parsers must return or throw — never trap, never overflow the
/// stack — and whatever they accept must print to a canonical URL that parses back to an
/// equal request.
@Suite struct ParserFuzzTests {
    static let tokens: [String] = [
        "(", ")", "'", "''", "%", "%2", "%C3", "%ZZ", "%27", "%24", "%20", "+", "$filter=", "$expand=", "$select=",
        "$orderby=", "$top=", "$skip=1", "$count=true", "$inlinecount=allpages", "&", "=", " eq ", " and ", " or ",
        "not ", "-", "/", "any(", "all(", ":", "@a", "@a=1", "$it", "$root/", "$count", "$value", "$ref", "$links/",
        "guid'", "datetime'", "X'", "binary'", "duration'", "2024-01-01", "13:00:00", "1L", "1.5M", "-INF",
        "'O''Neil'", ",", ";", "A(", "$levels=max", "*", "NS.T", "NS.E'A'", "#", "?", "ß", "😀", "\u{0}", " in (",
        " has ", "substringof(", "contains(", "cast(", "isof(", "Name", "Price", "null", "true", "12345678-aaaa-bbbb-cccc-ddddeeeeffff",
        "http://h/s/", "/", "//", "..", "$1", "$batch", "$metadata", "\t", "%F0%9F%98%80", "%FF",
        // 4.01 constructs
        "[", "]", "{", "}", "\"", "\"a\":", "$this", "$filter(", "/$each", "/$query", "/$ref", "/1", "/O'Neil",
        "$search=", "$apply=", "groupby((", "aggregate(", " with sum as T", " as X", "$compute=", "@Core.X", "%23Q",
        "$crossjoin(", "case(", "geography'SRID=0;Point(1 2)'", "NOT ", " OR ", " AND ", "filter=", "$entity?$id=",
        "Model.F(", "(1)", "%3B", "in [", "/any(", "$index=-1", ")(", "%2B1",
    ]

    static func seeds() throws -> [String] {
        var out: [String] = [
            "TravelagencyCollection?$filter=city eq 'Rome'",
            "FlightCollection?$filter=fldate gt datetime'2013-09-16T00:00'",
            "People?$filter=Emails/any(e:endswith(e,'example.com'))&$expand=Trips($filter=Budget gt 1000;$select=Name;$expand=PlanItems($levels=2))&$count=true",
            "GetNearestAirport(lat=@la,lon=@lo)?@la=33.5&@lo=-118",
            "Products?$orderby=Name desc,Price&$select=*,Ns.*&$search=blue OR green&$top=5&$skip=10",
        ]
        for file in FixtureFiles.paths(where: { $0.hasSuffix(".batch") || $0.contains("/BatchRequests/") }) {
            let text = try FixtureFiles.text(file)
            for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) where line.hasSuffix(" HTTP/1.1") {
                let parts = line.split(separator: " ")
                if parts.count == 3 { out.append(String(parts[1])) }
            }
        }
        return Array(Set(out)).sorted()
    }

    static let tripPin: ServiceModel? = try? MetadataParser.parse(try MetadataFixture.bytes(MetadataFixture.tripPinOASIS.rawValue))
    static let flight: ServiceModel? = try? MetadataParser.parse(try MetadataFixture.bytes(MetadataFixture.rmtSampleFlight.rawValue))

    /// Parses with every dialect; what parses must round-trip through the canonical URL.
    func exercise(_ input: String, _ stats: inout (accepted: Int, rejected: Int)) {
        for version in [ODataVersion?.none, .v2, .v4] {
            let parser = ResourceRequestParser(version: version)
            do {
                let r = try parser.parse(input)
                stats.accepted += 1
                let canonical = RequestPrinter.canonicalURL(r, version: version)
                do {
                    let again = try parser.parse(canonical)
                    #expect(again == r, "\(input) -> \(canonical)")
                } catch {
                    Issue.record("canonical form does not parse: \(input) -> \(canonical): \(error)")
                }
                _ = RequestJSON.describe(r, version: version, checked: false)
            } catch {
                stats.rejected += 1
                #expect(error.position >= 0 && error.position <= input.count + 1, "\(input): \(error)")
            }
        }
        for model in [Self.tripPin, Self.flight].compactMap({ $0 }) {
            if case .success(let json) = URLChecker.check(input, model: model) { #expect(json.hasPrefix("{")) }
        }
        _ = try? FilterParser.parse(input)
        _ = try? FilterParser.parseOrderBy(input, version: .v4)
    }

    @Test func mutatedRealURLs() throws {
        let seeds = try Self.seeds()
        #expect(seeds.count > 50)
        var rng = SeededRandom(seed: 0xF022)
        var stats = (accepted: 0, rejected: 0)
        for _ in 0..<2500 {
            var s = Array(rng.pick(seeds))
            for _ in 0..<rng.int(1...4) {
                let at = s.isEmpty ? 0 : rng.int(0...s.count)
                switch rng.int(0...4) {
                case 0, 1: s.insert(contentsOf: Array(rng.pick(Self.tokens)), at: at)
                case 2: if at < s.count { s.removeSubrange(at..<min(s.count, at + rng.int(1...5))) }
                case 3: if at < s.count { s.insert(contentsOf: s[at..<min(s.count, at + rng.int(1...8))], at: at) }
                default: s = Array(s.prefix(at))
                }
            }
            exercise(String(s), &stats)
        }
        #expect(stats.accepted > 500)
        #expect(stats.rejected > 500)
    }

    @Test func tokenSoups() {
        var rng = SeededRandom(seed: 0x50_0B)
        var stats = (accepted: 0, rejected: 0)
        for _ in 0..<2000 {
            var s = rng.pick(["", "Items?$filter=", "Items?", "Items(", "Items?$expand="])
            for _ in 0..<rng.int(1...12) { s += rng.pick(Self.tokens) }
            exercise(s, &stats)
        }
        #expect(stats.rejected > 1000)
    }

    @Test func pathologicalNesting() {
        let n = 10_000
        let inputs: [String] = [
            "Items?$filter=" + String(repeating: "(", count: n),
            "Items?$filter=" + String(repeating: "(", count: n) + "a eq 1" + String(repeating: ")", count: n),
            "Items?$filter=" + String(repeating: "not ", count: n) + "Flag",
            "Items?$filter=" + String(repeating: "-", count: n) + "1",
            "Items?$filter=" + String(repeating: "tolower(", count: n) + "Name" + String(repeating: ")", count: n),
            "Items?$filter=" + String(repeating: "A/any(x:x/", count: n) + "B",
            "Items?$expand=" + String(repeating: "A($expand=", count: n) + "B" + String(repeating: ")", count: n),
            "Items?$orderby=" + String(repeating: "(", count: n),
            "Items?@a=" + String(repeating: "(", count: n),
            "Items(" + String(repeating: "(", count: n),
            "Items?$filter=" + (0..<5000).map { "Id eq \($0)" }.joined(separator: " or "),
            "Items?$filter=Id in (" + (0..<20_000).map(String.init).joined(separator: ",") + ")",
            String(repeating: "A/", count: n) + "B",
            "Items?" + String(repeating: "&", count: n),
            "Items?$filter=" + String(repeating: "%28", count: n),
            "Items?$filter=" + String(repeating: "[", count: n),
            "Items?$filter=" + String(repeating: "{\"a\":", count: n) + "1",
            "Items?$filter=" + String(repeating: "A/$filter(", count: n) + "true",
            "Items?$filter=" + String(repeating: "F(p=", count: n) + "1",
            "Items?$filter=" + String(repeating: "case(true:", count: n) + "1",
            "Items?$search=" + String(repeating: "(", count: n) + "a",
            "Items?$search=" + String(repeating: "NOT ", count: n) + "a",
            "Items?$search=" + (0..<n).map { "w\($0)" }.joined(separator: " OR "),
            "Items?$apply=" + String(repeating: "concat(identity,", count: n) + "identity",
            "Items?$apply=" + String(repeating: "groupby((A),", count: n) + "identity",
            "Items?$select=" + String(repeating: "A($select=", count: n) + "B",
            "Items?$expand=" + String(repeating: "A/$ref($filter=", count: n) + "true",
            "Items/" + String(repeating: "$filter(", count: n) + "true",
            "Items/" + (0..<n).map(String.init).joined(separator: "/"),
        ]
        for input in inputs {
            var stats = (accepted: 0, rejected: 0)
            exercise(input, &stats)
        }
        let deep = try? ResourceRequestParser().parse(inputs[1])
        #expect(deep == nil)
        if case .failure(let e) = URLChecker.check(inputs[1]) {
            #expect(e.message == "expression nested too deeply (limit 100)")
            #expect(e.position == 114)
        } else {
            Issue.record("10,000 parentheses were accepted")
        }
    }
}

extension ParserFuzzTests {
    /// The tallest tree the limits allow goes through every recursive stage (parse, check,
    /// print, JSON, equality) without exhausting a test thread's stack.
    @Test func tallestAllowedTree() throws {
        guard let model = Self.tripPin else { Issue.record("TripPin did not load"); return }
        let chain = (0..<999).map { "Budget gt \($0)" }.joined(separator: " or ")
        let url = "People('x')/Trips?$filter=" + chain + "&$orderby=" + String(repeating: "(", count: 99) + "Budget" + String(repeating: ")", count: 99)
        guard case .success(let json) = URLChecker.check(url, model: model) else {
            Issue.record("rejected"); return
        }
        #expect(json.contains("\"op\":\"or\""))
        let r = try ResourceRequestParser().parse(url, checkingAgainst: model)
        #expect(r.options.filter?.height == 1000)
        #expect(try ResourceRequestParser().parse(RequestPrinter.canonicalURL(r, version: .v4), checkingAgainst: model) == r)
    }
}
