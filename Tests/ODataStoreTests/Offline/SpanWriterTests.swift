import Foundation
import Testing
@testable import ODataProtocol
@testable import ODataStore

/// The download's writer reading members from the decoder's spans (`EntityWriter+Spans.swift`)
/// writes exactly the store the scanning writer writes: every page below is written into two
/// new store files, once with its spans and once without (the scanning path, as before the
/// spans existed), and every table of the two files must hold the same rows. Pages: the three
/// real test services (V4, V4 with tricky strings, V2 verbose JSON and Atom) with expansions,
/// and hand-written V4 pages over a model with flattened and JSON-held complex values,
/// collections, derived and open types, escapes, annotations and removed entries.
@Suite("Offline: writing pages from the decoder's spans", .serialized, .timeLimit(.minutes(3)))
struct SpanWriterTests {
    struct Page {
        var body: [UInt8]
        var contentType: String
    }

    /// Every row of every table of the file, as text, table by table.
    static func dump(_ c: SQLiteConnection) throws -> [String] {
        var out: [String] = []
        // ods_store holds the file's creation time, which may differ by a second.
        let tables = try c.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name <> 'ods_store' ORDER BY name")
        for t in tables {
            guard case .text(let name) = t[0] else { continue }
            for row in try c.rows("SELECT * FROM \(SQLName.quote(name))") { out.append("\(name): \(row)") }
        }
        return out
    }

    /// Writes `pages` for the defining request `definition` into two new files, from spans and
    /// by scanning, and compares them; returns the number of rows compared.
    @discardableResult
    static func compare(model: ServiceModel, metadata: [UInt8], version: ODataVersion, definition: String, pages: [Page],
                        expectSpans: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        var dumps: [[String]] = []
        for fromSpans in [true, false] {
            let path = OfflineStoreTests.temporaryPath("spans.store")
            let file = try StoreFile.open(path: path, serviceRoot: "http://localhost/service/", model: model, metadata: metadata, create: true)
            defer { file.writerShared.finalize() }
            let d = try DefiningRequest.make(definition, model: model, schema: file.schema, serviceRoot: "http://localhost/service/")
            let isCollection = d.resolved.result == .collection
            for page in pages {
                var payload = try PayloadDecoder.decode(page.body, contentType: page.contentType, version: version, model: model,
                                                        entitySet: nil, entityType: d.table.entityType, target: .entities, spans: true)
                if expectSpans {
                    #expect(payload.spans?.root(count: payload.utf8.count) == 0, "\(definition): no spans", sourceLocation: sourceLocation)
                }
                if !fromSpans { payload.spans = nil }
                let writer = EntityWriter(file: file, requestID: 1)
                let written = try file.connection.transaction {
                    try writer.writePage(payload, table: d.table, expand: d.expand, isCollection: isCollection)
                }
                #expect(written == payload.entityCount || !isCollection, sourceLocation: sourceLocation)
            }
            dumps.append(try dump(file.connection))
        }
        let same = dumps[0] == dumps[1]
        let difference = zip(dumps[0], dumps[1]).first { $0 != $1 }.map { "\($0) != \($1)" } ?? "\(dumps[0].count) != \(dumps[1].count) rows"
        #expect(same, "\(definition): the stores differ: \(same ? "" : difference)", sourceLocation: sourceLocation)
        return dumps[0].count
    }

    /// Pages of the real test services, as the download asks for them.
    @Test(arguments: [TestServer.Kind.v4, .v4tricky, .v2])
    func realServices(_ kind: TestServer.Kind) throws {
        let server = try TestServer.start(kind)
        defer { server.stop() }
        let prefix = String(server.serviceRoot.dropFirst(server.origin.count))
        let (status, metadata) = try server.rawRequest("GET", prefix + "$metadata")
        #expect(status == 200)
        let model = try MetadataParser.parse(metadata)
        let version = model.version
        let definitions: [String]
        switch kind {
        case .v4tricky:
            definitions = ["Items", "Groups?$expand=Items", "Items?$expand=Group", "Groups(1)?$expand=Items($select=ID,Name)"]
        default:
            definitions = ["Products", "Products?$expand=Category", "Categories?$expand=Products", "Customers", "OrderLines",
                           "Categories(1)?$expand=Products", "Products?$select=ID,Name&$top=50"]
        }
        let formats: [(String, Bool)] = version == .v2 ? [(ProtocolHeaders.accept(.v2), true), ("application/atom+xml", false)]
            : [(ProtocolHeaders.accept(.v4), true)]
        var rows = 0
        for definition in definitions {
            for (accept, json) in formats {
                var pages: [Page] = []
                var target = prefix + definition
                for _ in 0..<50 {
                    let encoded = target.replacingOccurrences(of: " ", with: "%20")
                    let (status, body) = try server.rawRequest("GET", encoded, headers: [("Accept", accept)] + ProtocolHeaders.version(version))
                    #expect(status == 200, "\(definition): \(String(decoding: body, as: UTF8.self))")
                    pages.append(Page(body: body, contentType: json ? "application/json" : "application/atom+xml"))
                    let decoded = try PayloadDecoder.decode(body, contentType: json ? "application/json" : "application/atom+xml",
                                                            version: version, model: model, entitySet: nil)
                    guard let next = decoded.nextLink else { break }
                    target = next.hasPrefix("http") ? String(next.dropFirst(server.origin.count)) : prefix + next
                }
                rows += try Self.compare(model: model, metadata: metadata, version: version, definition: definition, pages: pages,
                                         expectSpans: json)
            }
        }
        #expect(rows > 500)
    }

    /// Complex values (flattened, nested, null, derived and open ones held as JSON), collections,
    /// derived and open entity types, escapes in names and values, ETags, special doubles,
    /// nested expansions with counts and next links, unknown members, removed entries, and a
    /// second page that updates rows the first wrote.
    @Test func handWrittenV4Pages() throws {
        let metadata = Array(FilterSQLModelFeatureTests.metadata.utf8)
        let model = try FilterSQLModelFeatureTests.model()
        let first = ##"""
        {"@odata.context":"$metadata#Items","@odata.count":5,"value":[
          {"@odata.etag":"W/\"a\\b\"","ID":1,"Name":"one \"quoted\" \u00e9\n","Ratio":1.5,"Weight":0.25,"Color":"Red","Access":"Read,Write",
           "Span":"PT1H","At":"10:00:00","Data":"AAEC","Small":255,"Flag":true,"Price":1.50,"Big":9007199254740993,
           "When":"2024-01-01T10:00:00Z","Day":"2024-01-01","Tags":["a","B\"","日本"],"Scores":[1,"2"],"Amounts":[1.5],
           "Home":{"City":"Paris","Zip":75001,"Geo":{"Lat":48.85,"Lon":2.35},"Unknown":1},"Places":[{"City":"Rome","Zip":1}],
           "Shape":{"Label":"box"},"Note":{"Text":"hi","Mood":"happy"},"Location":{"type":"Point","coordinates":[1,2]},
           "Dyn\u0061mic":"x","Other@com.example.note":"kept","Name@odata.type":"#String",
           "Children@odata.count":2,"Children@odata.nextLink":"Items(1)/Children?$skip=1",
           "Children":[
             {"@odata.type":"#Rich.SpecialItem","ID":2,"Name":"two","Ratio":"NaN","Extra":"x","Home":null,
              "Shape":{"@odata.type":"#Rich.Circle","Label":"disc","Radius":2.5},"Owner":null},
             {"@odata.type":"#Rich.VerySpecialItem","@odata.etag":"W/\"3\"","ID":3,"Ratio":"INF","Level":7,
              "Home":{"Zip":0,"Geo":null},"Owner":{"ID":"p1","Name":"Ann","Nick":"annie","Age":30,"Tags@odata.type":"#Collection(String)","Tags":["x"]}}],
           "Owner":{"@odata.id":"People('p2')","ID":"p2","Name":"B\u00f6b","Age":40},"Parent":null},
          {"ID":4,"Name":"four","Ratio":"-INF","Home":{"City":"Rome"},"Children":[],"Owner":null,"Parent":{"ID":1,"Name":"one again"}},
          {"ID":5,"Name":null,"Ratio":0,"Big":"-9223372036854775807","Flag":false,"Tags":[],"Note":null,"Children":[{"ID":6}]},
          {"@odata.removed":{"reason":"deleted"},"@odata.id":"Items(9)","ID":9},
          {"@odata.type":"#Rich.SpecialItem","ID":7,"Extra":"\ud83d\ude00","Friends":[{"ID":"p3"}]}
        ],"@odata.nextLink":"Items?$skip=5"}
        """##
        let second = ##"""
        {"value":[
          {"@odata.etag":"W/\"b\"","ID":1,"Name":"one, updated","Home":null,"Children":[{"ID":2,"Name":"two, updated"}],"Owner":null,"Parent":null},
          {"ID":8,"Name":"eight","Home":{"City":"Oslo","Zip":1,"Geo":{"Lat":1,"Lon":-1}},"Children":null}
        ]}
        """##
        let pages = [first, second].map { Page(body: Array($0.utf8), contentType: "application/json") }
        let rows = try Self.compare(model: model, metadata: metadata, version: .v4,
                                    definition: "Items?$expand=Children($expand=Owner),Owner,Parent", pages: pages, expectSpans: true)
        #expect(rows > 12)
        // One entity (not a collection), and a set without expansions.
        let single = ##"{"@odata.context":"$metadata#Items/$entity","@odata.etag":"W/\"1\"","ID":1,"Name":"x","Home":{"City":"P"},"Owner":{"ID":"p1"}}"##
        try Self.compare(model: model, metadata: metadata, version: .v4, definition: "Items(1)?$expand=Owner",
                         pages: [Page(body: Array(single.utf8), contentType: "application/json")], expectSpans: true)
        try Self.compare(model: model, metadata: metadata, version: .v4, definition: "People", pages: [
            Page(body: Array(##"{"value":[{"ID":"p1","Name":"Ann","Nick":"annie","Age":30},{"ID":"p\"2","@odata.type":"#Rich.Person"}]}"##.utf8),
                 contentType: "application/json")], expectSpans: true)
    }

    /// Pages that try to fool the spans path's shortcuts (columns found by the decoder's member
    /// ordinals, strings the decoder marked as having no escapes): members in another order in
    /// every entity, a name spelled twice (plainly, then escaped: the later one wins), escapes
    /// in names and values, an Int64 sent as a string, as a number and too large for Int64,
    /// numbers and booleans sent as strings, special doubles, nulls, members before and after
    /// a derived type's `@odata.type`, dynamic members, annotations, nested complex values and
    /// expansions, and a second page whose objects meet their types in another order (the
    /// ordinals are numbered per page). Each must be stored as the scanning path stores it.
    @Test func hostileV4Pages() throws {
        let metadata = Array(FilterSQLModelFeatureTests.metadata.utf8)
        let model = try FilterSQLModelFeatureTests.model()
        let first = ##"""
        {"value":[
          {"ID":1,"Name":"a","Big":"9223372036854775807","Small":1,"Flag":true,"Price":"1.50","Ratio":"INF","Weight":2.5},
          {"Big":12,"Name":"b\"q","ID":2,"Flag":"true","Ratio":1e308,"Price":2,"Owner":{"Name":"O\u0041","ID":"p\\1","Age":3}},
          {"Name":"c","N\u0061me":"escaped wins","ID":3,"Big":99999999999999999999,"Ratio":"NaN","Small":"7"},
          {"ID":4,"Name":null,"Big":null,"Ratio":null,"Weight":"-INF","Tags":["x\\y"],"Home":{"Zip":"12","City":"q\"uote","Geo":{"Lon":1,"Lat":"INF"}}},
          {"@odata.type":"#Rich.SpecialItem","ID":5,"Extra":"e","Name":"after type","Big":"5"},
          {"Name":"before type","Big":6,"@odata.type":"#Rich.VerySpecialItem","ID":6,"Extra":"e2","Level":1,"Dyn":"d"},
          {"ID":7,"Name":"\u00e9t\u00e9","Big":"-12","Weight":"1.5","Small":"2","Data":"AAEC","Name@odata.type":"#String","Span":"PT1S"},
          {"Price":1.00000000000000000001,"Name":"","Big":-9223372036854775808,"ID":8,"Flag":0,"Owner":null,
           "Children":[{"Name":"child","ID":9,"Big":"1"},{"ID":10,"Big":2,"Home":null,"Name":"\/slash"}]},
          {"ID":11,"Big":"12345678901234567890","Ratio":"1e5","Color":"Red","When":"2024-01-01T00:00:00Z","Day":"2024-01-01"}
        ]}
        """##
        let second = ##"""
        {"value":[
          {"Owner":{"ID":"p9","Name":"first type met: Person"},"Home":{"Geo":{"Lat":1},"City":"c"},"ID":12,"Name":"n","Big":1},
          {"Children":[{"ID":13,"Name":"x"}],"ID":1,"Big":"77","Name":"updated"},
          {"ID":2,"Name":"b again","N\u0061me":"escaped again","Big":3}
        ]}
        """##
        let pages = [first, second].map { Page(body: Array($0.utf8), contentType: "application/json") }
        let rows = try Self.compare(model: model, metadata: metadata, version: .v4,
                                    definition: "Items?$expand=Children,Owner", pages: pages, expectSpans: true)
        #expect(rows > 15)
    }

    /// A member spelled twice in one entity never reaches the writer: the decode fails, with
    /// spans as without (the ordinals then never name two values of one entity).
    @Test func duplicateMembersAreRefusedWithSpans() throws {
        let model = try FilterSQLModelFeatureTests.model()
        for body in [#"{"value":[{"ID":1,"Name":"a"},{"ID":2,"Name":"b","Name":"c"}]}"#,
                     #"{"value":[{"ID":1,"Big":"1","Big":2}]}"#] {
            for spans in [true, false] {
                #expect(throws: (any Error).self, "\(body)") {
                    try PayloadDecoder.decode(Array(body.utf8), contentType: "application/json", version: .v4, model: model,
                                              entitySet: "Items", target: .entities, spans: spans)
                }
            }
        }
    }

    /// The decoder gives the writer what its shortcuts use (so the tests above exercise them):
    /// ordinals for declared properties (the same one for the same name in every entity, none
    /// for control information, dynamic or escaped names) and the plain-string mark for strings
    /// without escapes (an Int64 the decoder quotes included), never for one with escapes.
    @Test func decoderMarksOrdinalsAndPlainStrings() throws {
        let model = try FilterSQLModelFeatureTests.model()
        let body = ##"{"value":[{"@odata.etag":"W/\"1\"","ID":1,"Name":"plain","Big":5,"Dyn":"x"},{"Name":"esc\"aped","ID":2,"N\u0061me":"y"}]}"##
        let payload = try PayloadDecoder.decode(Array(body.utf8), contentType: "application/json", version: .v4, model: model,
                                                entitySet: "Items", target: .entities, spans: true)
        let spans = try #require(payload.spans)
        let text = payload.utf8
        var byName: [String: [PayloadSpans.Member]] = [:]
        for m in spans.members {
            byName[String(decoding: text[Int(m.keyStart)..<Int(m.keyEnd)], as: UTF8.self), default: []].append(m)
        }
        let names = try #require(byName["Name"])
        #expect(names.count == 2 && names[0].ordinal == names[1].ordinal && names[0].ordinal != PayloadSpans.noOrdinal)
        #expect(names[0].valueKind == PayloadSpans.plainString)
        #expect(names[1].valueKind == 0)
        #expect(byName["ID"]?.allSatisfy { $0.ordinal != PayloadSpans.noOrdinal && $0.valueKind == 0 } == true)
        #expect(byName["Big"]?.first?.valueKind == PayloadSpans.plainString)  // written "5"
        #expect(byName["@odata.etag"]?.first?.ordinal == PayloadSpans.noOrdinal)
        #expect(byName["Dyn"]?.first?.ordinal == PayloadSpans.noOrdinal)
        #expect(byName["N\\u0061me"]?.first?.ordinal == PayloadSpans.noOrdinal)
        #expect(MemoryLayout<PayloadSpans.Member>.stride == 24)
    }
}
