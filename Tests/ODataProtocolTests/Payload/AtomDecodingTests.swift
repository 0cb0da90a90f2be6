import Testing
import Foundation
@testable import ODataProtocol

/// Olingo V2 Atom payloads decoded with the RefScenario model.
@Suite struct AtomDecodingTests {
    let o2 = PayloadFixtures.olingo2

    func decode(_ file: String, set: String?, model: ServiceModel? = PayloadModels.refScenario) throws -> DecodedPayload {
        try PayloadDecoder.decode(PayloadFixtures.bytes(file), contentType: "application/atom+xml;type=feed", version: .v2,
                                  model: model, entitySet: set)
    }

    @Test func entryWithEtag() throws {
        let r = try decode(o2 + "RoomContentOnly.xml", set: "Rooms")
        #expect(r.etag == #"W/"1""# && r.entityCount == 1)
        #expect(r.json == #"{"@odata.etag":"W/\"1\"","Id":"1","Name":"Room 1","Seats":1,"Version":1}"#)
        let linked = try decode(o2 + "RoomContentOnlyWithAdditionalLink.xml", set: "Rooms")
        #expect(linked.json == r.json)  // the deferred link is dropped
    }

    @Test func atomAndJSONGiveTheSameEntity() throws {
        let atom = try decode(o2 + "EmployeeContentOnly.xml", set: "Employees")
        let json = try PayloadDecoder.decode(PayloadFixtures.bytes(o2 + "JsonEmployeeContentOnly.json"), contentType: "application/json",
                                             version: .v2, model: PayloadModels.refScenario, entitySet: "Employees")
        #expect(atom.value == json.value)
        #expect(atom.value["EntryDate"] == "1999-01-01T00:00:00Z")
        #expect(atom.value["Location"]?["City"]?["PostalCode"] == "69124")
        #expect(atom.value["Age"] == .number("52"))
    }

    @Test func feedWithCountAndNextLink() throws {
        let r = try decode(o2 + "feed_employees_full.xml", set: "Employees")
        #expect(r.count == 6 && r.entityCount == 6)
        #expect(r.nextLink == "http://thisisanextlink")
        let first = r.value["value"]?[0]
        #expect(first?["EmployeeName"] == "Walter Winter")
        // Media link entry: content src and the edit-media link, resolved against xml:base.
        #expect(first?["@odata.mediaReadLink"] == "http://some.host.com/service.root/ReferenceScenario.svc/Employees('1')/$value")
        #expect(first?["@odata.mediaContentType"] == "application/octet-stream")
        #expect(first?["ne_Manager"] == nil)
        let plain = try decode(o2 + "feed_employees.xml", set: "Employees")
        #expect(plain.count == nil && plain.entityCount == 6)
        #expect(plain.value["value"] == r.value["value"])
    }

    @Test func pagingWithSkiptoken() throws {
        let r = try decode(o2 + "feed_rooms_small.xml", set: "Rooms")
        #expect(r.entityCount == 3)
        #expect(r.nextLink == "http://localhost:8080/ReferenceScenario.svc/Rooms?$skiptoken=97")
        #expect(r.value["value"]?[1]?["Name"] == "Room 10" && r.value["value"]?[1]?["@odata.etag"] == #"W/"1""#)
    }

    @Test func deltaFeedWithTombstone() throws {
        let r = try decode(o2 + "feed_with_deleted_entries.xml", set: "Rooms")
        #expect(r.deltaLink == "http://host:123/odata/Rooms?$skiptoken=97")
        let items = r.value["value"]?.arrayValue ?? []
        #expect(items.last == ["@odata.removed": ["reason": "deleted"], "@odata.id": "http://host:123/odata/Rooms('2')"])
        #expect(items.first?["Name"] == "Room 1")
        let d = try decode(o2 + "feed_with_delta_link.xml", set: "Rooms")
        #expect(d.deltaLink != nil)
    }

    @Test func inlineEntriesAndFeeds() throws {
        let r = try decode(o2 + "Employee_InlineRoomBuilding.xml", set: "Employees")
        #expect(r.value["ne_Room"]?["nr_Building"]?["Name"] == "Building 1")
        #expect(r.value["ne_Room"]?["@odata.etag"] != nil)
        let empty = try decode(o2 + "employee_empty_room.xml", set: "Employees")
        #expect(empty.value["ne_Room"] == .null)  // empty <m:inline/> to-one -> null
        let emptyFeed = try decode(o2 + "Room_EmptyInlineEmployeesToTeam.xml", set: "Rooms")
        #expect(emptyFeed.value["nr_Employees"] == .array([]))
        let nested = try decode(o2 + "Room_InlineEmployeesToTeam.xml", set: "Rooms")
        let emps = nested.value["nr_Employees"]?.arrayValue ?? []
        #expect(!emps.isEmpty && emps.allSatisfy { $0["ne_Team"]?["Id"] != nil })
        let deep = try decode(o2 + "double_expanded_team.xml", set: "Teams")
        #expect(deep.value["nt_Employees"]?[0]?["ne_Team"]?["Id"] != nil)
    }

    @Test func atomJSONParityOnExpandedFeeds() throws {
        for (xml, json, set) in [("Rooms_InlineEmployeesTeams.xml", "JsonRooms_InlineEmployeesTeams.json", "Rooms"),
                                 ("RoomsToEmployeesWithInlineTeams.xml", "JsonRoomsToEmployeesWithInlineTeams.json", "Employees")] {
            let a = try decode(o2 + xml, set: set)
            let j = try PayloadDecoder.decode(PayloadFixtures.bytes(o2 + json), contentType: nil, version: .v2,
                                              model: PayloadModels.refScenario, entitySet: set)
            #expect(a.entityCount == j.entityCount)
            let ids = { (v: JSONValue) in (v["value"]?.arrayValue ?? []).map { $0["Id"] ?? $0["EmployeeId"] ?? .null } }
            // The upstream Atom and JSON variants of RoomsToEmployees hold different employees.
            if set == "Rooms" { #expect(ids(a.value) == ids(j.value), "\(xml)") }
        }
    }

    @Test func nullsAndTypedValuesWithoutModel() throws {
        let r = try decode("apache/olingo-odata2/odata2-lib/odata-client-core/src/test/resources/ProductsFeed.xml", set: nil, model: nil)
        let p = r.value["value"]?[0]
        #expect(p?["ID"] == .number("0"))                                // m:type="Edm.Int32"
        #expect(p?["ReleaseDate"] == "1992-01-01T00:00:00Z")              // Edm.DateTime gets Z
        #expect(p?["DiscontinuedDate"] == .null)                          // m:null="true"
        #expect(p?["Price"] == "2.5")                                     // Edm.Decimal as a string
        #expect(p?["Supplier"]?["Name"] == "Tokyo Traders")
        #expect(p?["Supplier"]?["@odata.etag"] == #"W/"0""#)
        #expect(p?["Supplier"]?["Address"]?["City"] == "Redmond")
        #expect(p?["@odata.type"] == "#ODataDemo.Product")
    }

    @Test func largeFeed() throws {
        let r = try decode(o2 + "LargeEmployeeFeed.xml", set: "Employees")
        #expect(r.entityCount == 432)
        #expect(try JSONValue.parse(r.json)["value"]?[431]?["EmployeeId"] != nil)
    }

    @Test func externalEntitiesAreNotResolved() throws {
        #expect(throws: PayloadError.self) { try decode(o2 + "xxe.xml", set: nil) }
    }

    @Test func everyAtomFixtureDecodes() throws {
        let files = PayloadFixtures.files(under: "apache/olingo-odata2", extensions: [".xml"])
            .filter { !$0.hasSuffix("refScenario.edmx") && !$0.hasSuffix("xxe.xml") }
        var decoded = 0
        for f in files {
            let bytes = try PayloadFixtures.bytes(f)
            guard String(decoding: bytes.prefix(3000), as: UTF8.self).contains("http://www.w3.org/2005/Atom") else { continue }
            let r = try decode(f, set: nil)
            #expect(try JSONValue.parse(r.json).objectValue != nil, "\(f)")
            decoded += 1
        }
        #expect(decoded == 23)
    }
}
