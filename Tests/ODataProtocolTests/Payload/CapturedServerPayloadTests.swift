import Testing
import Foundation
@testable import ODataProtocol

/// Decoding what the project's real test services (pyslet V2, odatapy V4) actually send.
@Suite struct CapturedServerPayloadTests {
    typealias B = CapturedServerBodies
    let v2Model = try! MetadataParser.parse(B.v2Metadata)  // test setup from a fixed, valid document
    let v4Model = try! MetadataParser.parse(B.v4Metadata)

    func v2(_ body: String, set: String? = "Products", ct: String = "application/json",
            target: PayloadTarget = .automatic) throws -> DecodedPayload {
        try PayloadDecoder.decode(Array(body.utf8), contentType: ct, version: .v2, model: v2Model, entitySet: set, target: target)
    }

    func v4(_ body: String, set: String? = "Products", target: PayloadTarget = .automatic) throws -> DecodedPayload {
        try PayloadDecoder.decode(Array(body.utf8), contentType: "application/json", version: .v4, model: v4Model,
                                  entitySet: set, target: target)
    }

    @Test func pysletFeedWithNumericCountAndExpand() throws {
        let r = try v2(B.v2Products)
        #expect(r.count == 300 && r.entityCount == 2)  // pyslet writes "__count" as a number
        let p = r.value["value"]?[0]
        #expect(p?["@odata.etag"] == #"W/"1""#)
        #expect(p?["Price"] == "37.37" && p?["Stock"] == "1000")
        #expect(p?["ReleaseDate"] == "2020-01-02T00:00:00Z")  // \/Date(1577923200000)\/
        #expect(p?["Category"]?["Name"] == "Beverages" && p?["Category"]?["Products"] == nil)
        #expect(p?["@odata.id"] == nil && p?["@odata.type"] == nil)
    }

    @Test func pysletAtomEqualsPysletJSON() throws {
        let atom = try v2(B.v2ProductsAtom, ct: "application/atom+xml")
        let json = try v2(B.v2Products)
        #expect(atom.count == 300)
        var expected = json.value["value"]?[0]?.objectValue
        expected?.removeValue(forKey: "Category")
        expected?.removeValue(forKey: "@odata.etag")  // pyslet writes no m:etag in Atom
        #expect(atom.value["value"]?[0]?["@odata.etag"] == nil)
        #expect(atom.value["value"]?[0] == expected.map(JSONValue.object))
    }

    @Test func pysletWrapsSingleResultsInResults() throws {
        // {"d":{"results":{"TotalStock":"54043195572547008"}}}
        let total = try v2(B.v2Total, set: nil, target: .value(TypeReference(name: "Edm.Int64")))
        #expect(total.json == #"{"value":"54043195572547008"}"#)
        #expect(try v2(B.v2Total, set: nil).json == #"{"value":"54043195572547008"}"#)
        let price = try v2(B.v2Price, target: .value(nil))
        #expect(price.json == #"{"value":"37.37"}"#)
    }

    @Test func errorBodies() {
        #expect(ErrorBodyDecoder.decode(Array(B.v2Error.utf8), contentType: "application/json")
            == ODataErrorDetail(code: "Resource not found", message: "Resource not found for segment Products(99999)"))
        #expect(ErrorBodyDecoder.decode(Array(B.v4Error.utf8), contentType: "application/json")
            == ODataErrorDetail(code: "404", message: "Entity not found."))
    }

    @Test func odatapyWithAndWithoutIEEE754() throws {
        let ieee = try v4(B.v4Products)
        let plain = try v4(B.v4ProductsNoIEEE)
        #expect(ieee.count == 300 && ieee.entityCount == 2)
        let a = ieee.value["value"]?[0], b = plain.value["value"]?[0]
        #expect(a?["Price"] == "37.37" && a?["Stock"] == "1000")
        #expect(b?["Price"] == "37.37" && b?["Stock"] == "1000")  // numbers made strings from the model
        #expect(a?["Category"]?["Name"] == "Beverages" && a?["Category"]?["@odata.etag"] == #"W/"1""#)
        var withoutCategory = a?.objectValue
        withoutCategory?.removeValue(forKey: "Category")
        #expect(withoutCategory.map(JSONValue.object) == b)
    }

    @Test func odatapyValueResultsTypedFromTheContext() throws {
        // No IEEE754 header: the context URL names the type, so the Int64 keeps its digits as a string.
        #expect(try v4(B.v4Total, set: nil).json == #"{"value":"54043195572547008"}"#)
        #expect(try v4(B.v4Price, set: nil).json == #"{"value":"37.37"}"#)
    }

    @Test func createBodiesForBothServers() throws {
        let canonical = #"{"ID":900,"Name":"New","Price":"1.50","Stock":"54043195572547008","Discontinued":false,"ReleaseDate":"2021-05-06T00:00:00Z"}"#
        let (b2, _) = try PayloadEncoder.encodeEntity(canonical, version: .v2, model: v2Model, entitySet: "Products")
        let w2 = try JSONValue.parse(b2)
        #expect(w2["ReleaseDate"] == "/Date(1620259200000)/" && w2["Price"] == "1.50" && w2["ID"] == .number("900"))
        #expect(w2["__metadata"]?["type"] == "ODataStoreTestV2.Product")
        let (b4, _) = try PayloadEncoder.encodeEntity(canonical, version: .v4, model: v4Model, entitySet: "Products")
        #expect(try JSONValue.parse(b4)["Stock"] == "54043195572547008")
    }
}
