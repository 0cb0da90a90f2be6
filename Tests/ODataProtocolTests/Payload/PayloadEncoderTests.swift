import Testing
import Foundation
@testable import ODataProtocol

@Suite struct PayloadEncoderTests {
    let model = PayloadModels.refScenario

    @Test func v2EntityRoundTrip() throws {
        // Decode a real V2 entry, write it back as a V2 request body, decode that again.
        let decoded = try PayloadDecoder.decode(PayloadFixtures.bytes(PayloadFixtures.olingo2 + "JsonEmployee.json"),
                                                contentType: nil, version: .v2, model: model, entitySet: "Employees")
        let (body, ct) = try PayloadEncoder.encodeEntity(decoded.json, version: .v2, model: model, entitySet: "Employees")
        #expect(ct == "application/json")
        let wire = try JSONValue.parse(body)
        #expect(wire["__metadata"] == ["type": "RefScenario.Employee"])
        #expect(wire["EntryDate"] == "/Date(915148800000)/")
        #expect(wire["@odata.mediaReadLink"] == nil && wire["@odata.mediaContentType"] == nil)
        #expect(wire["Location"]?["__metadata"] == nil && wire["Location"]?["Country"] == "Germany")
        let again = try PayloadDecoder.decode(body, contentType: ct, version: .v2, model: model, entitySet: "Employees")
        var expected = decoded.value.objectValue ?? JSONObject()
        for k in expected.keys where k.hasPrefix("@") { expected.removeValue(forKey: k) }
        #expect(again.value == .object(expected))
    }

    @Test func v2TypedForms() throws {
        func enc(_ set: String, _ json: String) throws -> JSONValue {
            try JSONValue.parse(PayloadEncoder.encodeEntity(json, version: .v2, model: model, entitySet: set).body)
        }
        #expect(try enc("DateTimeOffsets", #"{"Id":"2009-02-14T00:31:30+01:00"}"#)["Id"] == "/Date(1234567890000+0060)/")
        #expect(try enc("DateTimeOffsets", #"{"Id":"2009-02-13T23:31:30Z"}"#)["Id"] == "/Date(1234567890000)/")
        #expect(try enc("DateTimes", #"{"Id":"1969-12-31T23:59:59.5Z"}"#)["Id"] == "/Date(-500)/")
        #expect(try enc("Times", #"{"Id":"13:20:00"}"#)["Id"] == "PT13H20M00S")
        #expect(try enc("Int64s", #"{"Id":123}"#)["Id"] == "123")
        #expect(try enc("Decimals", #"{"Id":"1.50"}"#)["Id"] == "1.50")
        // Instance annotations are dropped, the derived type is written in __metadata.
        let m = try enc("Employees", ##"{"@odata.etag":"W/\"1\"","@odata.type":"#RefScenario.Manager","EmployeeId":"9","ne_Team@odata.bind":"Teams('1')"}"##)
        #expect(m == ["__metadata": ["type": "RefScenario.Manager"], "EmployeeId": "9",
                      "ne_Team": ["__metadata": ["uri": "Teams('1')"]]])
    }

    @Test func v4Bodies() throws {
        let trip = PayloadModels.tripPin
        let person = ##"{"@odata.etag":"W/\"08D\"","@odata.type":"#Microsoft.OData.SampleService.Models.TripPin.Person","UserName":"u","Concurrency":"636293755917400747","Trips@odata.count":2,"Friends@odata.bind":["People('a')"]}"##
        let (body, ct) = try PayloadEncoder.encodeEntity(person, version: .v4, model: trip, entitySet: "People")
        #expect(ct == "application/json;odata.metadata=minimal;IEEE754Compatible=true")
        #expect(String(decoding: body, as: UTF8.self) == #"{"UserName":"u","Concurrency":"636293755917400747","Friends@odata.bind":["People('a')"]}"#)
        let photo = try PayloadEncoder.encodeEntity(#"{"Id":"1","Name":"n"}"#, version: .v4, model: trip, entitySet: "Photos")
        #expect(try JSONValue.parse(photo.body)["Name"] == "n")
        // Binary goes out as base64url in V4.
        let bin = try PayloadEncoder.encodeEntity(#"{"Id":"+/8="}"#, version: .v4, model: model, entitySet: "Binaries")
        #expect(try JSONValue.parse(bin.body)["Id"] == "-_8=")
        #expect(throws: PayloadError.self) { try PayloadEncoder.encodeEntity("[1]", version: .v4, model: nil, entitySet: nil) }
        #expect(throws: PayloadError.self) { try PayloadEncoder.encodeEntity("{", version: .v4, model: nil, entitySet: nil) }
    }

    @Test func v4ActionParameters() throws {
        let trip = PayloadModels.tripPin
        let op = try #require(trip.operations.values.flatMap { $0 }.first { $0.kind == .action && $0.isBound })
        var params = JSONObject()
        for p in op.parameters.dropFirst() { params[p.name] = .string("x") }
        params["Ignored"] = .number("1")
        let (body, _) = try PayloadEncoder.encodeActionParameters(.object(params), operation: op, model: trip)
        let v = try JSONValue.parse(body)
        #expect(v.objectValue?.keys == op.parameters.dropFirst().map(\.name))
    }
}
