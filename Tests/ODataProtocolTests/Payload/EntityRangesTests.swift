import Testing
@testable import ODataProtocol

/// `DecodedPayload.entityRanges`: the decoder says where a single entity is, so consumers need
/// not scan the canonical JSON for it; for other results it records nothing.
@Suite struct EntityRangesTests {
    @Test func aSingleEntityIsTheWholeText() throws {
        // V4 (TripPin person, with its model) and V2 (Olingo employee, verbose JSON).
        let v4 = try PayloadDecoder.decode(PayloadFixtures.bytes(PayloadFixtures.olingo4 + "tripinServEntity.json"),
                                           contentType: "application/json", version: .v4, model: PayloadModels.tripPin,
                                           entitySet: "People")
        #expect(v4.entityCount == 1)
        #expect(v4.entityRanges == [0..<v4.json.utf8.count])
        let v2 = try PayloadDecoder.decode(PayloadFixtures.bytes(PayloadFixtures.olingo2 + "JsonEmployee.json"),
                                           contentType: "application/json", version: .v2, model: PayloadModels.refScenario,
                                           entitySet: "Employees")
        #expect(v2.entityCount == 1)
        #expect(v2.entityRanges == [0..<v2.json.utf8.count])
    }

    @Test func collectionsAndValuesRecordNothing() throws {
        let feed = try PayloadDecoder.decode(Array(CapturedServerBodies.v4Products.utf8), contentType: "application/json",
                                             version: .v4, model: MetadataParser.parse(CapturedServerBodies.v4Metadata),
                                             entitySet: "Products")
        #expect(feed.entityCount == 2 && feed.entityRanges == nil)
        let total = try PayloadDecoder.decode(Array(CapturedServerBodies.v4Total.utf8), contentType: "application/json",
                                              version: .v4, model: MetadataParser.parse(CapturedServerBodies.v4Metadata),
                                              entitySet: nil)
        #expect(total.entityCount == 0 && total.entityRanges == nil)
    }
}
