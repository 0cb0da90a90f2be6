import Testing
@testable import ODataProtocol

/// Repeated member names are refused (docs/json-shape.md "Duplicate properties") by every
/// decoder, in time linear in the number of members: JSON objects check their first
/// `JSONTranscoder.linearNameLimit` names against each other and the rest in a
/// `MemberNameSet`; Atom objects are checked when they close (`AtomJSONBuffer.closeObject`).
@Suite struct DuplicateMemberTests {
    static let model = PayloadModels.refScenario

    /// The transcoder run directly, so that the test sees which duplicate check it used:
    /// the canonical text and the number of `MemberNameSet`s it made (0: linear checks only).
    func transcode(_ body: String, version: ODataVersion = .v4, set: String? = "Rooms") throws(JSONError) -> (json: String, sets: Int) {
        let bytes = Array(body.utf8)
        let index = PayloadModelIndex(Self.model)
        let declared = set.flatMap { index.typeOfSet($0) }
        return try JSONScanner.with(bytes, maxDepth: PayloadDecoder.maxDepth) { (s: inout JSONScanner) throws(JSONError) in
            var t = JSONTranscoder(scanner: s, version: version, index: index, capacity: bytes.count)
            if version == .v2 {
                _ = try t.decodeV2(declared: declared, target: .automatic, valueKind: nil)
            } else {
                _ = try t.decodeV4(declared: declared, target: .automatic, valueKind: nil)
            }
            try t.s.finish()
            #expect(t.nameSetCount == 0 && t.seenKeys.isEmpty)  // every object's names dropped at its end
            return (t.out.string(0..<t.out.count), t.nameSets.count)
        }
    }

    func decodeError(_ body: String, version: ODataVersion = .v4, contentType: String = "application/json",
                     set: String? = "Rooms") -> PayloadError? {
        do {
            _ = try PayloadDecoder.decode(Array(body.utf8), contentType: contentType, version: version, model: Self.model, entitySet: set)
            return nil
        } catch { return error }
    }

    static func members(_ range: Range<Int>, prefix: String = "p") -> String {
        range.map { #""\#(prefix)\#($0)":\#($0)"# }.joined(separator: ",")
    }

    /// Real entities take the linear path: Olingo's V4 TripPin people with full metadata (a
    /// dozen properties, each with its `@odata.type`) and V2 employees (`__metadata`, inline
    /// team, complex location).
    @Test func realEntitiesUseTheLinearCheck() throws {
        let v4 = try PayloadFixtures.text(PayloadFixtures.olingo4 + "tripinServEntity.json")
        let r4 = try JSONScanner.with(Array(v4.utf8), maxDepth: 100) { (s: inout JSONScanner) throws(JSONError) in
            let index = PayloadModelIndex(PayloadModels.tripPin)
            var t = JSONTranscoder(scanner: s, version: .v4, index: index, capacity: v4.utf8.count)
            _ = try t.decodeV4(declared: index.typeOfSet("People"), target: .automatic, valueKind: nil)
            return t.nameSets.count
        }
        #expect(r4 == 0)
        let v2 = try PayloadFixtures.text(PayloadFixtures.olingo2 + "JsonRoomsToEmployeesWithInlineTeams.json")
        #expect(try transcode(v2, version: .v2, set: "Rooms").sets == 0)
        // 31 undeclared members besides the declared ones: still linear.
        let room = #"{"Id":"1","Name":"a","Seats":1,"Version":1,"# + Self.members(0..<31) + "}"
        #expect(try transcode(room).sets == 0)
        #expect(try transcode(#"{"Id":"1","# + Self.members(0..<33) + "}").sets == 1)
    }

    /// 200,000 undeclared members (a hostile body of 2.5 MB): decoded, in V4 and V2 JSON, at
    /// the top level and nested, with the same output as the members written plainly.
    @Test func twoHundredThousandMembersDecode() throws {
        let n = 200_000
        let members = Self.members(0..<n)
        let v4 = try transcode(#"{"Id":"1",\#(members)}"#)
        #expect(v4.json == #"{"Id":"1",\#(members)}"# && v4.sets == 1)
        let v2 = try transcode(#"{"d":{"Id":"1",\#(members)}}"#, version: .v2)
        #expect(v2.json == #"{"Id":"1",\#(members)}"#)
        let nested = try transcode(#"{"Id":"1","Extra":{\#(members)},"More":{\#(members)}}"#)
        #expect(nested.json == #"{"Id":"1","Extra":{\#(members)},"More":{\#(members)}}"# && nested.sets == 1)
        // A repeat after all of them is found.
        let e = decodeError(#"{"Id":"1",\#(members),"p7":1}"#)
        #expect(e?.kind == .invalid && e?.message == #"duplicate property "p7""#)
    }

    /// The hashed check finds exactly the repeats the linear one finds, wherever they are:
    /// across the switch to hashing, between names that differ in one byte or in length,
    /// empty names, escaped spellings (compared as spelled, so `"\u0070"` is not `"p"`), in
    /// objects nested in wide objects and wide objects nested in others (which share where
    /// their names start in `seenKeys` when the outer one has noted none yet).
    @Test func hashedCheckAgreesWithLinear() throws {
        let limit = JSONTranscoder.linearNameLimit
        var names = (0..<150).map { "k\($0)" }
        names += ["", "k", "K0", "k00", #"\u006b0"#, "\u{e9}", "e\u{301}"]
        for count in [limit - 1, limit, limit + 1, 2 * limit, names.count] {
            let chosen = Array(names.prefix(count))
            // No repeat: decodes.
            let plain = "{" + chosen.map { #""\#($0)":1"# }.joined(separator: ",") + "}"
            for wrap in ["%", #"{"Id":"1","X":%}"#, #"{"X":%,"Id":"1"}"#, #"{"Name":"n","X":{"Y":%}}"#] {
                let body = wrap.replacingOccurrences(of: "%", with: plain)
                #expect(try transcode(body, set: nil).json == body, "\(count) \(wrap)")
            }
            // Each name repeated at the end, and right after itself.
            for i in stride(from: 0, to: count, by: max(1, count / 9)) {
                let atEnd = "{" + (chosen + [chosen[i]]).map { #""\#($0)":1"# }.joined(separator: ",") + "}"
                var after = chosen
                after.insert(chosen[i], at: i + 1)
                let adjacent = "{" + after.map { #""\#($0)":1"# }.joined(separator: ",") + "}"
                for body in [atEnd, adjacent, #"{"Id":"1","X":{"Y":\#(atEnd)}}"#] {
                    let e = decodeError(body, set: nil)
                    #expect(e?.kind == .invalid && e?.message.hasPrefix("duplicate property") == true && e?.offset != nil,
                            "\(count) \(i): \(String(describing: e))")
                }
            }
        }
    }

    /// A wide object inside a wide object, the inner one closed before the outer one goes on:
    /// each keeps its own names.
    @Test func nestedWideObjects() throws {
        let inner = "{" + Self.members(0..<100) + "}"
        let body = #"{"Id":"1",\#(Self.members(0..<50, prefix: "a")),"X":\#(inner),\#(Self.members(50..<100, prefix: "a")),"Y":\#(inner)}"#
        let r = try transcode(body)
        #expect(r.json == body && r.sets == 2)
        let repeatOuter = #"{"Id":"1",\#(Self.members(0..<50, prefix: "a")),"X":\#(inner),"a3":1}"#
        #expect(decodeError(repeatOuter)?.message == #"duplicate property "a3""#)
        let repeatInner = #"{"Id":"1",\#(Self.members(0..<50, prefix: "a")),"X":{\#(Self.members(0..<100)),"p99":0}}"#
        #expect(decodeError(repeatInner)?.message == #"duplicate property "p99""#)
        // Names of the outer object are not names of the inner one.
        let sameNames = #"{"Id":"1",\#(Self.members(0..<50)),"X":{\#(Self.members(0..<50))}}"#
        #expect(try transcode(sameNames).json == sameNames)
    }

    // MARK: Atom

    func atom(_ body: String) throws -> DecodedPayload {
        try PayloadDecoder.decode(Array(body.utf8), contentType: "application/atom+xml", version: .v2, model: Self.model,
                                  entitySet: "Rooms")
    }

    /// The hostile-server probe's case: `<d:Name>` twice in a Room; was "last wins".
    @Test func atomRepeatedPropertyIsRefused() throws {
        let room = try PayloadFixtures.text(PayloadFixtures.olingo2 + "RoomContentOnly.xml")
        #expect(try atom(room).json.contains(#""Name":"Room 1""#))
        let twice = room.replacingOccurrences(of: "</m:properties>", with: "<d:Name>again</d:Name></m:properties>")
        let e = decodeError(twice, version: .v2, contentType: "application/atom+xml")
        #expect(e?.kind == .invalid && e?.message == #"duplicate property "Name""#)
        // In a feed, in a complex value, and without a model.
        let employee = try PayloadFixtures.text(PayloadFixtures.olingo2 + "EmployeeContentOnly.xml")
        let country = employee.replacingOccurrences(of: "</d:Location>", with: "<d:Country>Chile</d:Country></d:Location>")
        for model in [Self.model, nil] {
            do {
                _ = try PayloadDecoder.decode(Array(country.utf8), contentType: "application/atom+xml", version: .v2,
                                              model: model, entitySet: model == nil ? nil : "Employees")
                Issue.record("decoded")
            } catch {
                #expect(error.kind == .invalid && error.message == #"duplicate property "Country""#)
            }
        }
        let feed = try PayloadFixtures.text(PayloadFixtures.olingo2 + "feed_rooms_small.xml")
        let lastTwice = feed.replacingOccurrences(of: "<d:Seats>", with: "<d:Version>0</d:Version><d:Seats>")
        #expect(decodeError(lastTwice, version: .v2, contentType: "application/atom+xml")?.message == #"duplicate property "Version""#)
    }

    /// Wide entries (past the 32 members compared byte by byte) and non-ASCII names
    /// (compared as `String`s: canonically equivalent spellings are one name).
    @Test func atomWideAndNonASCIIEntries() throws {
        let head = #"<entry xmlns="http://www.w3.org/2005/Atom" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices"><content type="application/xml"><m:properties><d:Id>1</d:Id>"#
        let tail = "</m:properties></content></entry>"
        let wide = (0..<20_000).map { "<d:p\($0)>v</d:p\($0)>" }.joined()
        let ok = try atom(head + wide + tail)
        #expect(ok.value.objectValue?.count == 20_001)
        #expect(decodeError(head + wide + "<d:p123>w</d:p123>" + tail, version: .v2, contentType: "application/atom+xml")?.message
                == #"duplicate property "p123""#)
        #expect(try atom(head + "<d:\u{e9}>1</d:\u{e9}><d:e>2</d:e>" + tail).value["\u{e9}"] == "1")
        let equivalent = head + "<d:\u{e9}>1</d:\u{e9}><d:e\u{301}>2</d:e\u{301}>" + tail
        #expect(decodeError(equivalent, version: .v2, contentType: "application/atom+xml")?.kind == .invalid)
    }

    /// Two inline links of one navigation property are refused; media annotations of repeated
    /// `edit-media` links still merge (first position, last value).
    @Test func atomRepeatedLinks() throws {
        let feed = try PayloadFixtures.text(PayloadFixtures.olingo2 + "feed_employees_full.xml")
        let original = #"<link href="Employees('1')/$value" rel="edit-media""#
        let first = try #require(feed.range(of: original))
        let media = feed.replacingCharacters(in: first, with: #"<link href="Employees('1')/$value2" rel="edit-media"/>"# + original)
        let decoded = try PayloadDecoder.decode(Array(media.utf8), contentType: "application/atom+xml", version: .v2,
                                                model: Self.model, entitySet: "Employees")
        #expect(decoded.entityCount == 6)
        let link = decoded.value["value"]?[0]?["@odata.mediaEditLink"]?.stringValue
        #expect(link?.hasSuffix("Employees('1')/$value") == true)
        let inline = #"<link rel="http://schemas.microsoft.com/ado/2007/08/dataservices/related/nr_Building" type="application/atom+xml;type=entry" title="nr_Building"><m:inline/></link>"#
        let room = try PayloadFixtures.text(PayloadFixtures.olingo2 + "RoomContentOnly.xml")
        let once = room.replacingOccurrences(of: "<content ", with: inline + "<content ")
        #expect(try atom(once).value["nr_Building"] == .null)
        let twice = room.replacingOccurrences(of: "<content ", with: inline + inline + "<content ")
        #expect(decodeError(twice, version: .v2, contentType: "application/atom+xml")?.message == #"duplicate property "nr_Building""#)
    }
}
