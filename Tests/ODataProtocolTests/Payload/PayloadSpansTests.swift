import Testing
@testable import ODataProtocol

/// `DecodedPayload.spans`: asking for them never changes the canonical JSON, and every object
/// they list is exactly what scanning the text finds there (each member's key and value, in
/// order; the object's extent; its place in pre-order), over the real V2 and V4 JSON fixtures
/// and seeded mutants of them.
@Suite struct PayloadSpansTests {
    /// Checks `payload.spans` against the text; returns the number of objects checked.
    @discardableResult
    static func check(_ payload: DecodedPayload, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        guard let spans = payload.spans else { return 0 }
        let text = payload.utf8
        var problems: [String] = []
        var names: [UInt16: [UInt8]] = [:]
        text.withUnsafeBufferPointer { page in
            guard let base = page.baseAddress else { return }
            for (i, o) in spans.objects.enumerated() {
                var s = JSONScanner(base: base, count: page.count, maxDepth: 1000)
                s.pos = Int(o.start)
                var found: [PayloadSpans.Member] = []
                do {
                    if try s.beginObject() {
                        repeat {
                            let k = try s.readKey()
                            s.skipWhitespace()
                            let vs = s.pos
                            try s.skipValue()
                            found.append(PayloadSpans.Member(keyStart: Int32(k.start), keyEnd: Int32(k.end), valueStart: Int32(vs),
                                                             valueEnd: Int32(s.pos), keyEscaped: k.escaped, firstObject: 0))
                        } while try s.nextMember()
                    }
                } catch {
                    problems.append("object \(i) at \(o.start): \(error)")
                    continue
                }
                if s.pos != Int(o.end) { problems.append("object \(i) ends at \(s.pos), recorded \(o.end)") }
                let own = spans.members[Int(o.firstMember)..<Int(o.firstMember + o.memberCount)]
                // What the decoder says of a value and a name must be what the text holds: a
                // plain string has quotes and no backslash between them; an ordinal names one
                // spelling, never escaped, in the whole payload.
                for m in own {
                    let key = Array(page[Int(m.keyStart)..<Int(m.keyEnd)])
                    if m.valueKind == PayloadSpans.plainString {
                        let v = page[Int(m.valueStart)..<Int(m.valueEnd)]
                        if v.count < 2 || v.first != UInt8(ascii: "\"") || v.last != UInt8(ascii: "\"") || v.contains(UInt8(ascii: "\\")) {
                            problems.append("object \(i): a plain string \(String(decoding: v, as: UTF8.self))")
                        }
                    } else if m.valueKind != 0 {
                        problems.append("object \(i): value kind \(m.valueKind)")
                    }
                    guard m.ordinal != PayloadSpans.noOrdinal else { continue }
                    if Int(m.ordinal) >= PayloadSpans.ordinalLimit || m.keyEscaped { problems.append("object \(i): ordinal \(m.ordinal) of an escaped key") }
                    if let named = names[m.ordinal], named != key {
                        problems.append("ordinal \(m.ordinal) names \(String(decoding: named, as: UTF8.self)) and \(String(decoding: key, as: UTF8.self))")
                    }
                    names[m.ordinal] = key
                }
                let recorded = own.map {
                    var m = $0
                    m.firstObject = 0
                    m.valueKind = 0
                    m.ordinal = PayloadSpans.noOrdinal
                    return m
                }
                if recorded != found { problems.append("object \(i) at \(o.start): members \(recorded) != \(found)") }
                // Pre-order: the objects inside are the ones up to subtreeEnd.
                let end = Int(o.subtreeEnd)
                if end <= i || end > spans.objects.count { problems.append("object \(i): subtreeEnd \(end)"); continue }
                for j in (i + 1)..<end where !(spans.objects[j].start > o.start && spans.objects[j].end < o.end) {
                    problems.append("object \(j) is not inside object \(i)")
                }
                if end < spans.objects.count, spans.objects[end].start < o.end {
                    problems.append("object \(end) starts inside object \(i) but follows its subtree")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))", sourceLocation: sourceLocation)
        return spans.objects.count
    }

    static func decodeBoth(_ body: [UInt8], version: ODataVersion, model: ServiceModel?, set: String?,
                           sourceLocation: SourceLocation = #_sourceLocation) -> DecodedPayload? {
        let plain = try? PayloadDecoder.decode(body, contentType: "application/json", version: version, model: model, entitySet: set)
        let recorded = try? PayloadDecoder.decode(body, contentType: "application/json", version: version, model: model,
                                                  entitySet: set, spans: true)
        #expect(plain?.spans == nil, sourceLocation: sourceLocation)
        var same = recorded
        same?.spans = nil
        #expect(same == plain, "asking for spans changed the decoded payload", sourceLocation: sourceLocation)
        return recorded
    }

    @Test func fixturesAndTheirMutants() throws {
        let v2 = PayloadFixtures.files(under: PayloadFixtures.olingo2, extensions: [".json"])
            + PayloadFixtures.files(under: PayloadFixtures.flight, extensions: [".json"])
        let v4 = PayloadFixtures.files(under: PayloadFixtures.olingo4, extensions: [".json"])
        let v2Bodies = try v2.map { try PayloadFixtures.bytes($0) }.filter { $0.count < 200_000 }
        let v4Bodies = try v4.map { try PayloadFixtures.bytes($0) }.filter { $0.count < 200_000 }
        var objects = 0
        var withSpans = 0
        for body in v2Bodies {
            for set in ["Employees", "Rooms", nil] {
                for model in [PayloadModels.refScenario, PayloadModels.flight, nil] as [ServiceModel?] {
                    if let p = Self.decodeBoth(body, version: .v2, model: model, set: set) {
                        objects += Self.check(p)
                        if p.spans != nil { withSpans += 1 }
                    }
                }
            }
        }
        for body in v4Bodies {
            for set in ["People", "Airports", nil] {
                for model in [PayloadModels.tripPin, nil] as [ServiceModel?] {
                    if let p = Self.decodeBoth(body, version: .v4, model: model, set: set) {
                        objects += Self.check(p)
                        if p.spans != nil { withSpans += 1 }
                    }
                }
            }
        }
        #expect(withSpans > 100 && objects > 1000, "\(withSpans) payloads with spans, \(objects) objects")

        var rng = SeededRandom(seed: 0x5BA45)
        for n in 0..<4000 {
            let v4Turn = n % 2 == 1
            let source = v4Turn ? v4Bodies[n % v4Bodies.count] : v2Bodies[n % v2Bodies.count]
            let m = MutationFuzzTests.mutate(source, &rng)
            let model = v4Turn ? PayloadModels.tripPin : PayloadModels.refScenario
            let set = v4Turn ? "People" : ["Employees", "Rooms", "Buildings", "Teams", nil][n % 5]
            if let p = Self.decodeBoth(m, version: v4Turn ? .v4 : .v2, model: n % 3 == 0 ? nil : model, set: set) {
                Self.check(p)
            }
        }
    }

    @Test func controlInformationInlineCountsAndEscapes() throws {
        // Headers inserted after the members (etag, type, id, media links, the count), escaped
        // names and values, nested expansions with their own control information.
        let v4 = #"""
        {"@odata.context":"$metadata#People","@odata.count":2,"value":[
          {"@odata.etag":"W/\"1\"","UserName":"a\"b","FirstName":"A","Friends@odata.count":1,
           "Friends":[{"@odata.type":"#Microsoft.OData.SampleService.Models.TripPin.Person","@odata.id":"People('x')","UserName":"x","Emails":["e@x"]}],
           "Fr\u0069ends@odata.nextLink":"n","Extra":{"a":[1,{"b":2}]},"@odata.mediaReadLink":"m"},
          {"UserName":"b","AddressInfo":[{"Address":"1 Road","City":{"Name":"B","CountryRegion":"C","Region":"R"}}],
           "HomeAddress":{"Address":"x","City":null},"@odata.etag":"W/\"2\""}],
         "@odata.nextLink":"People?$skip=2"}
        """#
        let p = try #require(Self.decodeBoth(Array(v4.utf8), version: .v4, model: PayloadModels.tripPin, set: "People"))
        #expect(p.spans != nil)
        #expect(Self.check(p) >= 6)
        let root = try #require(p.spans?.root(count: p.utf8.count))
        #expect(root == 0)

        let v2 = #"""
        {"d":{"__count":"2","results":[
          {"__metadata":{"uri":"E('1')","type":"RefScenario.Employee","etag":"W/\"1\""},"EmployeeId":"1","EmployeeName":"W\u00e4lter",
           "ne_Manager":{"__deferred":{"uri":"x"}},"Location":{"__metadata":{"type":"RefScenario.c_Location"},"City":{"PostalCode":"1","CityName":"W"},"Country":"D"},
           "EntryDate":"\/Date(915148800000)\/"},
          {"__metadata":{"uri":"E('2')"},"EmployeeId":"2","ne_Room":{"__metadata":{"uri":"R('1')"},"Id":"1","Seats":5}}],
         "__next":"Employees?$skiptoken=2"}}
        """#
        let q = try #require(Self.decodeBoth(Array(v2.utf8), version: .v2, model: PayloadModels.refScenario, set: "Employees"))
        #expect(q.spans != nil)
        #expect(Self.check(q) >= 5)
        #expect(q.spans?.root(count: q.utf8.count) == 0)
    }

    @Test func valueResultsAndAtomHaveNone() throws {
        // A complex value wrapped in {"value": ...} after it was written: no spans.
        let value = try PayloadDecoder.decode(Array(#"{"@odata.context":"$metadata#People('x')/HomeAddress","Address":"x"}"#.utf8),
                                              contentType: "application/json", version: .v4, model: PayloadModels.tripPin,
                                              entitySet: nil, spans: true)
        #expect(value.json.hasPrefix(#"{"value":"#) && value.spans == nil)
        let v2 = try PayloadDecoder.decode(Array(#"{"d":{"__metadata":{"type":"RefScenario.c_Location"},"Country":"D"}}"#.utf8),
                                           contentType: "application/json", version: .v2, model: PayloadModels.refScenario,
                                           entitySet: nil, spans: true)
        #expect(v2.json.hasPrefix(#"{"value":"#) && v2.spans == nil)
        // A value result written as {"value": 5}: the spans describe that object.
        let number = try PayloadDecoder.decode(Array(#"{"@odata.context":"$metadata#Edm.Int32","value":5}"#.utf8),
                                               contentType: "application/json", version: .v4, model: nil, entitySet: nil, spans: true)
        #expect(number.spans?.root(count: number.utf8.count) == 0)
        Self.check(number)
        let json = try PayloadDecoder.decode(PayloadFixtures.bytes(PayloadFixtures.olingo2 + "JsonEmployee.json"),
                                             contentType: "application/json", version: .v2, model: PayloadModels.refScenario,
                                             entitySet: "Employees", spans: true)
        #expect(json.spans != nil)
        Self.check(json)
        let xml = PayloadFixtures.files(under: PayloadFixtures.olingo2, extensions: [".xml"]).first { $0.contains("Employee") }
        if let xml {
            let a = try? PayloadDecoder.decode(PayloadFixtures.bytes(xml), contentType: "application/atom+xml", version: .v2,
                                               model: PayloadModels.refScenario, entitySet: "Employees", spans: true)
            #expect(a?.spans == nil)
        }
    }
}
