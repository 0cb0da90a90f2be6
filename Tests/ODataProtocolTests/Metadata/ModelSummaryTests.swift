import Testing
@testable import ODataProtocol

/// `ServiceModel.summary` (`odatastore metadata`, `ods_store_model_json`) of real documents.
@Suite("Metadata: the model summary")
struct ModelSummaryTests {
    @Test func sapFlightSample() throws {
        let model = try MetadataParser.parse(MetadataFixture.rmtSampleFlight.bytes())
        let summary = model.summary
        #expect(summary["odataVersion"] == .string("2.0"))
        #expect(summary["container"] == .string("RMTSAMPLEFLIGHT_Entities"))
        let sets = try #require(summary["entitySets"]?.arrayValue)
        let names = sets.compactMap { $0["name"]?.stringValue }
        #expect(names == names.sorted() && names.contains("CarrierCollection"))
        let carrier = try #require(sets.first { $0["name"] == .string("CarrierCollection") })
        #expect(carrier["kind"] == .string("entitySet"))
        #expect(carrier["entityType"] == .string("RMTSAMPLEFLIGHT.Carrier"))
        #expect(carrier["key"] == .array([.string("carrid")]))
        let properties = try #require(carrier["properties"]?.arrayValue)
        #expect(properties.first == ["name": "carrid", "type": "Edm.String"] as JSONValue)
        #expect(properties.count == 5)
        let navigation = try #require(carrier["navigation"]?.arrayValue)
        #expect(navigation == [["name": "carrierFlights", "target": "RMTSAMPLEFLIGHT.Flight", "collection": true] as JSONValue])
        let operations = try #require(summary["operations"]?.arrayValue)
        let flights = try #require(operations.first { $0["name"] == .string("GetAvailableFlights") })
        #expect(flights["kind"] == .string("functionImport"))
        #expect(flights["httpMethod"] == .string("GET"))
        #expect(flights["returns"] == .string("Collection(RMTSAMPLEFLIGHT.Flight)"))
        #expect(flights["entitySet"] == .string("FlightCollection"))
    }

    @Test func v4TripPin() throws {
        let model = try MetadataParser.parse(MetadataFixture.tripPinOASIS.bytes())
        let summary = model.summary
        #expect(summary["odataVersion"] == .string("4.0"))
        let sets = try #require(summary["entitySets"]?.arrayValue)
        #expect(sets.contains { $0["name"] == .string("Me") && $0["kind"] == .string("singleton") })
        let people = try #require(sets.first { $0["name"] == .string("People") })
        #expect(people["key"] == .array([.string("UserName")]))
        let kinds = Set((summary["operations"]?.arrayValue ?? []).compactMap { $0["kind"]?.stringValue })
        #expect(kinds.isSubset(of: ["function", "action"]) && !kinds.isEmpty)
    }
}
