import Testing
import Foundation
@testable import ODataProtocol

/// Olingo V2 JSON payloads (RefScenario model) and SAP RMTSAMPLEFLIGHT payloads, decoded with their models.
@Suite struct V2JSONDecodingTests {
    let o2 = PayloadFixtures.olingo2
    let model = PayloadModels.refScenario

    func decode(_ file: String, set: String?, model: ServiceModel? = PayloadModels.refScenario,
                target: PayloadTarget = .automatic) throws -> DecodedPayload {
        try PayloadDecoder.decode(PayloadFixtures.bytes(file), contentType: "application/json", version: .v2,
                                  model: model, entitySet: set, target: target)
    }

    @Test func singleEntryWithDeferredLinkAndMedia() throws {
        let r = try decode(o2 + "JsonEmployee.json", set: "Employees")
        #expect(r.entityCount == 1 && r.count == nil && r.etag == nil)
        let e = r.value
        #expect(e["EmployeeId"] == "1")
        #expect(e["EntryDate"] == "1999-01-01T00:00:00Z")  // /Date(915148800000)/
        #expect(e["Age"] == .number("52"))
        #expect(e["Location"]?["City"]?["CityName"] == "Heidelberg")
        #expect(e["Location"]?["@odata.type"] == nil)  // declared complex type: no annotation
        #expect(e["ne_Manager"] == nil && e["ne_Team"] == nil)  // __deferred dropped
        #expect(e["__metadata"] == nil && e["@odata.id"] == nil && e["@odata.type"] == nil)
        #expect(e["@odata.mediaReadLink"] == "Employees('1')/$value")
        #expect(e["@odata.mediaContentType"] == "image/jpeg")
        #expect(r.json.hasPrefix(#"{"@odata.mediaContentType":"image/jpeg","#))
    }

    @Test func withAndWithoutDWrapperGiveTheSameShape() throws {
        let a = try decode(o2 + "JsonBuilding.json", set: "Buildings")
        let b = try decode(o2 + "JsonBuildingWithoutD.json", set: "Buildings")
        #expect(a.json == b.json)
        #expect(a.json == #"{"Id":"1","Name":"Building 1","Image":null}"#)
        let teams = try decode(o2 + "JsonTeams.json", set: "Teams")
        #expect(teams.json == (try decode(o2 + "JsonTeamsWithoutD.json", set: "Teams")).json)
        #expect(teams.entityCount == 2)
        #expect(teams.value["value"]?[1]?["isScrumTeam"] == .bool(true))
    }

    /// The canonical text is written into the memory of the array the payload keeps, sized
    /// for a body that does not grow by more than an eighth; one that grows more (short V2
    /// dates become ISO 8601 text a third longer) moves on into memory of its own and gives
    /// the same text.
    @Test func outputLongerThanTheBodyIsWhole() throws {
        for n in [1, 10, 1000] {
            let entries = Array(repeating: #"{"EntryDate":"\/Date(0)\/"}"#, count: n).joined(separator: ",")
            let body = Array(#"{"d":{"results":[\#(entries)]}}"#.utf8)
            let r = try PayloadDecoder.decode(body, contentType: "application/json", version: .v2, model: model,
                                              entitySet: "Employees")
            let expected = #"{"value":["# + Array(repeating: #"{"EntryDate":"1970-01-01T00:00:00Z"}"#, count: n).joined(separator: ",") + "]}"
            #expect(r.json == expected)
            #expect(r.entityCount == n)
            if n == 1000 { #expect(r.utf8.count > JSONTranscoder.outputCapacity(forBody: body.count)) }
        }
    }

    @Test func countAsStringBecomesNumber() throws {
        for f in ["JsonTeamsWithCount.json", "JsonTeamsWithCountWithoutD.json"] {
            let r = try decode(o2 + f, set: "Teams")
            #expect(r.count == 3 && r.entityCount == 2)
            #expect(r.value["@odata.count"] == .number("3"))
            #expect(r.json.hasPrefix(#"{"@odata.count":3,"value":["#))
            #expect(r.value["value"]?[0]?["Id"] == "2")
        }
    }

    @Test func etagFromMetadata() throws {
        let r = try decode(o2 + "JsonRoom.json", set: "Rooms")
        #expect(r.etag == #"W/"1""#)
        #expect(r.json.hasPrefix(#"{"@odata.etag":"W/\"1\"","Id":"1""#))
        #expect(r.value["Seats"] == .number("1") && r.value["Version"] == .number("1"))
    }

    @Test func inlineFeedForms() throws {
        // {"results": [...]}, a bare array, and an empty feed.
        let a = try decode(o2 + "JsonBuildingWithInlineRooms.json", set: "Buildings")
        let b = try decode(o2 + "JsonBuildingWithInlineRoomsClientCase.json", set: "Buildings")
        #expect(a.value["nb_Rooms"]?[0]?["Name"] == "Room 1")
        #expect(a.value["nb_Rooms"]?[0]?["@odata.etag"] == #"W/"1""#)
        #expect(a.value["nb_Rooms"] == b.value["nb_Rooms"])
        let empty = try decode(o2 + "JsonRoom_EmptyInlineEmployeesToTeam.json", set: "Rooms")
        #expect(empty.value["nr_Employees"] == .array([]))
    }

    @Test func inlineFeedCountAndNextLink() throws {
        let r = try decode(o2 + "JsonBuildingWithInlineRoomsAndNextLinkAndCount.json", set: "Buildings")
        #expect(r.value["nb_Rooms@odata.count"] == .number("1"))
        #expect(r.value["nb_Rooms@odata.nextLink"] == "nextLink")
        #expect(r.value["nb_Rooms"]?.arrayValue?.count == 1)
        #expect(r.count == nil && r.nextLink == nil)  // inner feed data is not the top level's
        // Annotations come right before the navigation property.
        #expect(r.json.contains(#""nb_Rooms@odata.count":1,"nb_Rooms@odata.nextLink":"nextLink","nb_Rooms":["#))
    }

    @Test func nestedExpands() throws {
        let r = try decode(o2 + "JsonBuildingWithInlineRoomsFeedToEmployees.json", set: "Buildings")
        let emp = r.value["nb_Rooms"]?[0]?["nr_Employees"]?[0]
        #expect(emp?["EmployeeName"] == "Walter Winter")
        #expect(emp?["EntryDate"] == "1999-01-01T00:00:00Z")
        #expect(emp?["ne_Team"]?["Name"] == "Team 1")

        let toOne = try decode(o2 + "JsonEmployeeInlineRoomBuilding.json", set: "Employees")
        #expect(toOne.value["ne_Room"]?["nr_Building"]?["Name"] == "Building 1")
        #expect(toOne.value["ne_Room"]?["@odata.etag"] == #"W/"1""#)
        let noMeta = try decode(o2 + "JsonEmployeeInlineRoomBuildingWithoutMetadata.json", set: "Employees")
        #expect(noMeta.value["ne_Room"]?["nr_Building"] == toOne.value["ne_Room"]?["nr_Building"])

        let rooms = try decode(o2 + "JsonRooms_InlineEmployeesTeams.json", set: "Rooms")
        #expect(rooms.entityCount == 3)
        let firstRoom = rooms.value["value"]?[0]
        #expect(firstRoom?["nr_Employees"]?[0]?["ne_Team"]?["Id"] != nil)

        let mixed = try decode(o2 + "jsonEmployeesWithDifferentInlines.json", set: "Rooms")
        let emps = mixed.value["nr_Employees"]?.arrayValue ?? []
        #expect(emps.map { $0["EmployeeId"] } == ["4", "1", "3", "2"])
        #expect(emps[0]["ne_Room"]?["nr_Building"]?["Id"] == "3")
        #expect(emps[2]["ne_Room"] == nil && emps[3]["ne_Team"]?["Id"] != nil)
    }

    @Test func expandedNullToOne() throws {
        let r = try decode(o2 + "JsonInlineRoomWithInlineNull.json", set: "Employees")
        #expect(r.value["ne_Room"] == .null)  // expanded and null: kept as null, neither dropped nor an error
        #expect(r.value.objectValue?.keys.contains("ne_Room") == true)
        #expect(r.value["ne_Manager"] == nil)  // deferred: dropped
    }

    @Test func duplicatePropertyIsRejected() throws {
        #expect {
            _ = try decode(o2 + "JsonInvalidTeamDoubleNameProperty.json", set: "Teams")
        } throws: { e in
            guard let e = e as? PayloadError else { return false }
            return e.kind == .invalid && e.message.contains("\"Name\"") && e.offset != nil
        }
    }

    @Test func deltaWithTombstones() throws {
        let r = try decode(o2 + "JsonWithDeletedEntries.json", set: "Rooms")
        #expect(r.deltaLink == "http://localhost:8080/ReferenceScenario.svc/Rooms?!deltatoken=4711")
        #expect(r.entityCount == 3)
        let items = r.value["value"]?.arrayValue ?? []
        #expect(items[0]["Name"] == "Room 1" && items[0]["@odata.etag"] == #"W/"2""#)
        #expect(items[1] == ["@odata.removed": ["reason": "deleted"], "@odata.id": "http://host:80/service/Rooms('3')"])
        #expect(items[2]["@odata.id"] == "http://host:80/service/Rooms('4')")
        #expect(r.value["@odata.deltaLink"] == .string(r.deltaLink ?? ""))
    }

    @Test func derivedTypeIsAnnotated() throws {
        // A Manager read through the Employees set keeps its type; an Employee does not.
        let body = Array(#"{"d":{"results":[{"__metadata":{"type":"RefScenario.Manager"},"EmployeeId":"1"},{"__metadata":{"type":"RefScenario.Employee"},"EmployeeId":"2"}]}}"#.utf8)
        let r = try PayloadDecoder.decode(body, contentType: nil, version: .v2, model: model, entitySet: "Employees")
        #expect(r.json == ##"{"value":[{"@odata.type":"#RefScenario.Manager","EmployeeId":"1"},{"EmployeeId":"2"}]}"##)
    }

    /// The decoder remembers the last `__metadata.type`s of a feed (`TypeNameMemo`) and compares
    /// `__metadata`'s keys and `__deferred` inline: each entity of a feed whose types alternate,
    /// repeat, come escaped or twice, name a type the model does not know, or whose keys are
    /// escaped, decodes exactly as it does alone; deferred navigations are dropped and inline
    /// ones (a to-one entity, a to-many feed) written with their types.
    @Test func metadataMemoGivesWhatEachEntityGivesAlone() throws {
        let entities = [
            #"{"__metadata":{"uri":"Employees('1')","type":"RefScenario.Manager","etag":"W/\"1\""},"EmployeeId":"1","ne_Manager":{"__deferred":{"uri":"Employees('1')/ne_Manager"}}}"#,
            #"{"__metadata":{"type":"RefScenario.Employee","etag":"W/\"2\""},"EmployeeId":"2","ne_Team":{"__metadata":{"type":"RefScenario.Team"},"Id":"1","Name":"T"}}"#,
            #"{"__metadata":{"type":"RefScenario.Manager"},"EmployeeId":"3","nm_Employees":{"results":[{"__metadata":{"type":"RefScenario.Employee"},"EmployeeId":"4"}]}}"#,
            #"{"__metadata":{"type":"RefScenario.Manager"},"EmployeeId":"5"}"#,
            #"{"__metadata":{"\u0074ype":"RefScenario\u002EManager","\u0065tag":"W/\"6\""},"EmployeeId":"6"}"#,
            #"{"__metadata":{"type":"RefScenario.Manager","type":"RefScenario.Employee"},"EmployeeId":"7"}"#,
            #"{"__metadata":{"type":"RefScenario.Employee"},"EmployeeId":"8"}"#,
            #"{"__metadata":{"type":"RefScenario.Unknown"},"EmployeeId":"9"}"#,
            #"{"__metadata":{"uri":"Employees('10')"},"EmployeeId":"10","ne_Room":{"__deferred":{"uri":"x"}}}"#,
        ]
        func decode(_ items: [String]) throws -> DecodedPayload {
            let body = Array(#"{"d":{"results":["#.utf8) + Array(items.joined(separator: ",").utf8) + Array("]}}".utf8)
            return try PayloadDecoder.decode(body, contentType: nil, version: .v2, model: model, entitySet: "Employees", spans: true)
        }
        let feed = try decode(entities)
        #expect(feed.entityCount == entities.count)
        for (i, e) in entities.enumerated() {
            let alone = try decode([e])
            #expect(feed.value["value"]?[i] == alone.value["value"]?[0], "entity \(i)")
        }
        let v = feed.value["value"]
        #expect(v?[0]?["@odata.type"] == "#RefScenario.Manager" && v?[0]?["@odata.etag"] == #"W/"1""#)
        #expect(v?[0]?["ne_Manager"] == nil && v?[8]?["ne_Room"] == nil)
        #expect(v?[1]?["@odata.type"] == nil && v?[1]?["ne_Team"]?["Name"] == "T")
        #expect(v?[2]?["nm_Employees"]?[0]?["EmployeeId"] == "4")
        #expect(v?[4]?["@odata.type"] == "#RefScenario.Manager" && v?[4]?["@odata.etag"] == #"W/"6""#)
        #expect(v?[5]?["@odata.type"] == nil && v?[6]?["@odata.type"] == nil)
    }

    @Test func typedConversionsFromTheModel() throws {
        func one(_ set: String, _ literal: String) throws -> JSONValue? {
            let body = Array(#"{"d":{"Id":\#(literal)}}"#.utf8)
            return try PayloadDecoder.decode(body, contentType: nil, version: .v2, model: model, entitySet: set).value["Id"]
        }
        #expect(try one("Int64s", #""9223372036854775807""#) == "9223372036854775807")
        #expect(try one("Int64s", "-42") == "-42")  // a number for Int64 becomes a string
        #expect(try one("Decimals", #""79228162514264337593543950335.0001""#) == "79228162514264337593543950335.0001")
        #expect(try one("Decimals", "1.50") == "1.50")  // exact digits kept
        #expect(try one("Times", #""PT13H20M""#) == "13:20:00")
        #expect(try one("Times", #""PT9H5M3.250S""#) == "09:05:03.25")
        #expect(try one("Times", #""P1DT2H""#) == "P1DT2H")  // not a time of day: kept
        #expect(try one("DateTimes", #""\/Date(1234567890000)\/""#) == "2009-02-13T23:31:30Z")
        #expect(try one("DateTimes", #""\/Date(-1000)\/""#) == "1969-12-31T23:59:59Z")
        #expect(try one("DateTimes", #""\/Date(-62135596800000)\/""#) == "0001-01-01T00:00:00Z")
        #expect(try one("DateTimes", #""\/Date(1234567890123)\/""#) == "2009-02-13T23:31:30.123Z")
        #expect(try one("DateTimes", #""2013-09-16T00:00:00""#) == "2013-09-16T00:00:00Z")
        #expect(try one("DateTimeOffsets", #""\/Date(1234567890000+0060)\/""#) == "2009-02-14T00:31:30+01:00")
        #expect(try one("DateTimeOffsets", #""\/Date(1234567890000-0330)\/""#) == "2009-02-13T18:01:30-05:30")  // the offset counts minutes
        #expect(try one("DateTimeOffsets", #""\/Date(-1234567890000+0000)\/""#) == "1930-11-18T00:28:30Z")
        #expect(try one("Doubles", #""1.5E+10""#) == .number("1.5E+10"))
        #expect(try one("Doubles", #""INF""#) == "INF")
        #expect(try one("Doubles", #""-Infinity""#) == "-INF")
        #expect(try one("Singles", #""NaN""#) == "NaN")
        #expect(try one("Doubles", #"".5""#) == .number("0.5"))
        #expect(try one("Int32s", #""123""#) == .number("123"))
        #expect(try one("Booleans", #""true""#) == .bool(true))
        #expect(try one("Binaries", #""T0RhdGE""#) == "T0RhdGE=")  // padded standard base64
        #expect(try one("Binaries", #""-_8=""#) == "+/8=")
        #expect(try one("Guids", #""01234567-89ab-cdef-0123-456789abcdef""#) == "01234567-89ab-cdef-0123-456789abcdef")
    }

    @Test func withoutModelDatesStillConvert() throws {
        let r = try decode(o2 + "JsonEmployee.json", set: nil, model: nil)
        #expect(r.value["EntryDate"] == "1999-01-01T00:00:00Z")
        // Without a model the type cannot be compared with a declared one: kept, with the id.
        #expect(r.value["@odata.type"] == "#RefScenario.Employee")
        #expect(r.value["@odata.id"] == "http://localhost:8080/ReferenceScenario.svc/Employees('1')")
        #expect(r.value["ne_Manager"] == nil)
    }

    @Test func valueResults() throws {
        // V2 property and function results: {"d": {"Name": value}} -> {"value": value}.
        let name = try PayloadDecoder.decode(Array(#"{"d":{"EmployeeName":"Walter Winter"}}"#.utf8), contentType: nil,
                                             version: .v2, model: model, entitySet: nil)
        #expect(name.json == #"{"value":"Walter Winter"}"#)
        let date = try PayloadDecoder.decode(Array(#"{"d":{"EntryDate":"\/Date(915148800000)\/"}}"#.utf8), contentType: nil,
                                             version: .v2, model: model, entitySet: "Employees", target: .value(nil))
        #expect(date.json == #"{"value":"1999-01-01T00:00:00Z"}"#)
        let location = try decode(o2 + "JsonEmployee.json", set: "Employees", target: .entities)
        #expect(location.entityCount == 1)
        let complex = try PayloadDecoder.decode(Array(#"{"d":{"Location":{"__metadata":{"type":"RefScenario.c_Location"},"Country":"Germany"}}}"#.utf8),
                                                contentType: nil, version: .v2, model: model, entitySet: nil,
                                                target: .value(TypeReference(name: "RefScenario.c_Location")))
        #expect(complex.json == #"{"value":{"Country":"Germany"}}"#)
        let ints = try PayloadDecoder.decode(Array(#"{"d":{"results":["1","2"]}}"#.utf8), contentType: nil, version: .v2,
                                             model: model, entitySet: nil,
                                             target: .value(TypeReference(name: "Edm.Int64", isCollection: true)))
        #expect(ints.json == #"{"value":["1","2"]}"#)
        let refs = try PayloadDecoder.decode(Array(#"{"d":{"results":[{"uri":"http://h/s/Rooms('1')"}]}}"#.utf8), contentType: nil,
                                             version: .v2, model: model, entitySet: nil, target: .references)
        #expect(refs.json == #"{"value":[{"@odata.id":"http://h/s/Rooms('1')"}]}"#)
    }

    @Test func nextLinkAsStringOrPysletObject() throws {
        let a = try PayloadDecoder.decode(Array(#"{"d":{"results":[],"__next":"Rooms?$skiptoken=3"}}"#.utf8), contentType: nil,
                                          version: .v2, model: model, entitySet: "Rooms")
        let b = try PayloadDecoder.decode(Array(#"{"d":{"results":[],"__next":{"uri":"Rooms?$skiptoken=3"}}}"#.utf8),
                                          contentType: nil, version: .v2, model: model, entitySet: "Rooms")
        #expect(a.nextLink == "Rooms?$skiptoken=3" && a == b)
        #expect(a.json == #"{"value":[],"@odata.nextLink":"Rooms?$skiptoken=3"}"#)
    }

    // MARK: SAP RMTSAMPLEFLIGHT

    @Test func flightCarrierFeed() throws {
        let r = try decode(PayloadFixtures.flight + "Carrier.json", set: "CarrierCollection", model: PayloadModels.flight)
        #expect(r.entityCount == 18)
        let first = r.value["value"]?[0]
        #expect(first?["carrid"] == "AA" && first?["CARRNAME"] == "American Airlines")
        #expect(first?["@odata.mediaContentType"] == "text/html")
        #expect(first?["@odata.type"] == nil && first?["@odata.id"] == nil)
        #expect(first?["carrierFlights"] == nil)  // deferred navigation dropped
    }

    @Test func flightBareArrayWithCompositeDateKey() throws {
        let r = try decode(PayloadFixtures.flight + "Flight.json", set: "FlightCollection", model: PayloadModels.flight)
        #expect(r.entityCount == 3)
        let f = r.value["value"]?[0]
        #expect(f?["fldate"] == "2002-12-23T00:00:00Z")  // \/Date(1040601600000)\/
        #expect(f?["PRICE"] == "2222.00")  // Decimal stays a string with its digits
        #expect(f?["SEATSMAX"] == .number("320"))
    }

    @Test func flightTravelagency() throws {
        let r = try decode(PayloadFixtures.flight + "Travelagency.json", set: "TravelagencyCollection", model: PayloadModels.flight)
        #expect(r.entityCount == 1)
        #expect(r.value["agencynum"] == "00000002" && r.value["CITY"] == "Walldorf")
        #expect(r.value["@odata.id"] == nil)
    }

    /// Every V2 JSON fixture decodes with the RefScenario model (except the invalid one) and the
    /// result is strict JSON without V2 artefacts.
    @Test func everyV2FixtureDecodes() throws {
        let files = PayloadFixtures.files(under: o2, extensions: [".json"]).filter { !$0.contains("/", after: o2) }
        #expect(files.count >= 30)
        for f in files where !f.hasSuffix("JsonInvalidTeamDoubleNameProperty.json") {
            let r = try decode(f, set: nil)
            let v = try JSONValue.parse(r.json)
            #expect(!r.json.contains("__metadata") && !r.json.contains("__deferred") && !r.json.contains("/Date("), "\(f)")
            #expect(v.objectValue != nil, "\(f)")
        }
    }
}

extension String {
    /// True when the part of `self` after `prefix` contains `c`.
    func contains(_ c: Character, after prefix: String) -> Bool { dropFirst(prefix.count).contains(c) }
}
