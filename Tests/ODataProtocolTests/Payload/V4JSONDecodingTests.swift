import Testing
import Foundation
@testable import ODataProtocol

/// Olingo V4 / OASIS JSON payloads: TripPin ones with the TripPin model, the others without a
/// model (their services' $metadata is not public), relying on in-payload type annotations.
@Suite struct V4JSONDecodingTests {
    let o4 = PayloadFixtures.olingo4

    func decode(_ file: String, model: ServiceModel? = nil, set: String? = nil,
                target: PayloadTarget = .automatic) throws -> DecodedPayload {
        try PayloadDecoder.decode(PayloadFixtures.bytes(o4 + file), contentType: "application/json;odata.metadata=minimal",
                                  version: .v4, model: model, entitySet: set, target: target)
    }

    @Test func tripPinPersonWithModel() throws {
        let r = try decode("tripinServEntity.json", model: PayloadModels.tripPin, set: "People")
        let p = r.value
        #expect(r.entityCount == 1)
        #expect(p["UserName"] == "russellwhyte")
        #expect(p["Concurrency"] == "636293755917400747")  // Int64 number -> exact string
        #expect(p["Gender"] == "Male")
        #expect(p["@odata.id"] == nil && p["@odata.context"] == nil && p["UserName@odata.type"] == nil)
        let addresses = p["AddressInfo"]?.arrayValue ?? []
        #expect(addresses.count == 3)
        #expect(addresses[0]["@odata.type"] == nil)  // the declared Location type
        #expect(addresses[1]["@odata.type"] == "#Microsoft.OData.SampleService.Models.TripPin.EventLocation")
        #expect(addresses[1]["BuildingInfo"] == "187 Suffolk Ln12.")
        #expect(addresses[2]["@odata.type"] == "#Microsoft.OData.SampleService.Models.TripPin.AirportLocation")
        #expect(addresses[0]["City"]?["Name"] == "Boise" && addresses[0]["City"]?["@odata.type"] == nil)

        let same = try decode("olingo1073_1.json", model: PayloadModels.tripPin, set: "People")
        #expect(same.value["UserName"] == "russellwhyte")
        let nullEnum = try decode("olingo1152.json", model: PayloadModels.tripPin, set: "People")
        #expect(nullEnum.value["Gender"] == .null)
    }

    @Test func withoutModelTheTypeAnnotationsType() throws {
        let r = try decode("tripinServEntity.json")
        #expect(r.value["Concurrency"] == "636293755917400747")  // from "Concurrency@odata.type": "Int64"
        let nav = try decode("ESTwoKeyNav.json")
        let all = nav.value["PropertyComp"]?["PropertyComp"]
        #expect(all?["PropertyInt64"] == "92233775807")
        #expect(all?["PropertyDecimal"] == .null)
        #expect(all?["PropertyBinary"] == "ASNFZ4mrze8=")
        // No model and no annotation: passed through unchanged.
        let prim = try decode("entity.primitive.json")
        #expect(prim.value["Int64Value"] == .number("0"))
        #expect(prim.value["DecimalValue"] == .number("34.95"))
        #expect(prim.value["SingleValue"] == "INF")
        #expect(prim.value["StringValue"] == "Say \"Hello\",\nthen go")
        #expect(prim.value["GeographyPoint"]?["coordinates"] == [.number("142.1"), .number("64.1")])
    }

    @Test func collectionWithCountNextAndDeltaLinks() throws {
        let r = try decode("Customers_InServerMode.json")
        #expect(r.count == 2 && r.entityCount == 2)
        #expect(r.nextLink == "Customers?$skiptoken=5")
        #expect(r.deltaLink == "Customers?$expand=Orders&$deltatoken=8015")
        #expect(r.json.hasPrefix(#"{"@odata.count":2,"value":[{"#))
        #expect(r.json.hasSuffix(#""@odata.nextLink":"Customers?$skiptoken=5","@odata.deltaLink":"Customers?$expand=Orders&$deltatoken=8015"}"#))
        #expect(!r.json.contains("com.contoso") && !r.json.contains("metadataEtag") && !r.json.contains("@odata.context"))
        let first = r.value["value"]?[0]
        #expect(first?["PersonID"] == .number("1") && first?["Birthday"] == "1957-04-03T00:00:00Z")
    }

    @Test func fullAndMinimalMetadataGiveTheSameEntities() throws {
        let minimal = try decode("Customers.json")
        let full = try decode("CustomersWithFullMetadata.json")
        let ops = try decode("CustomersWithOperations.json")
        #expect(minimal.value["value"] == full.value["value"])
        #expect(ops.value["value"] == minimal.value["value"])  // advertised "#Namespace.Action" members dropped
    }

    @Test func etagAndStreamProperties() throws {
        let r = try decode("Employee.json")
        #expect(r.etag == #"W/"f557984846c2e312e155c9e8bede6186c4be9094b4edec2f5f32fe2a813f0cf1""#)
        #expect(r.value["@odata.etag"] == .string(r.etag ?? ""))
        #expect(r.value["Picture@odata.mediaContentType"] == "image/jpeg")
        #expect(r.value["Picture@odata.mediaEditLink"] == "http://odatae2etest.azurewebsites.net/javatest/DefaultService/Employees(1)/Picture")
        let legacy = try decode("minimalEntity.json")
        #expect(legacy.etag == #"W/"MjAxMy0wNS0yN1QxMTo1OFo=""#)
        #expect(legacy.value["ID"] == "ALFKI" && legacy.value["odata.editLink"] == nil)
        let media = try decode("Advertisements_f89dee73-af9f-4cd4-b330-db93c25ff3c7.json")
        #expect(media.value["@odata.mediaEtag"] == #""8zOOKKvgOtptr4gt8IrnapX3jds=""#)
    }

    @Test func expandedNavigation() throws {
        let r = try decode("Accounts_101_expand_MyPaymentInstruments.json")
        let pis = r.value["MyPaymentInstruments"]?.arrayValue ?? []
        #expect(pis.count == 3)
        #expect(pis[0]["PaymentInstrumentID"] == .number("101901") && pis[0]["FriendlyName"] == "101 first PI")
        #expect(r.value["MyGiftCard@odata.navigationLink"] == nil)
    }

    @Test func deltaPayload() throws {
        let r = try decode("delta.json")
        #expect(r.deltaLink == "Customers?$expand=Orders&$deltatoken=8015")
        #expect(r.count == 5 && r.entityCount == 5)
        let items = r.value["value"]?.arrayValue ?? []
        #expect(items[0] == ["@odata.id": "Customers('BOTTM')'", "ContactName": "Susan Halvenstern"])  // keys absent: id kept
        #expect(items[1]["@odata.context"] == "#Customers/$deletedLink" && items[1]["target"] == "Orders(10643)")
        #expect(items[2]["@odata.context"] == "#Customers/$link")
        #expect(items[3]["@odata.context"] == "#Orders/$entity" && items[3]["ShippingAddress"]?["City"] == " Tsawassen ")
        #expect(items[4] == ["@odata.removed": ["reason": "deleted"], "@odata.id": "Customers('ANTON')"])
        // The 4.01 form gives the same canonical entry.
        let v401 = try PayloadDecoder.decode(Array(#"{"value":[{"@removed":{"reason":"deleted"},"@id":"Customers('ANTON')"}],"@deltaLink":"x"}"#.utf8),
                                             contentType: nil, version: .v4, model: nil, entitySet: nil)
        #expect(v401.value["value"]?[0] == items[4] && v401.deltaLink == "x")
    }

    @Test func propertyAndValueResults() throws {
        let address = try decode("Employees_3_HomeAddress.json")
        #expect(address.entityCount == 0)
        #expect(address.value["value"]?["City"] != nil)
        #expect(address.json.hasPrefix(#"{"value":{"#))
        #expect(try decode("Employees_3_HomeAddress_InServerMode.json").value["value"]?["City"] == address.value["value"]?["City"])
        #expect(try decode("Products_5_SkinColor.json").json == #"{"value":"Red"}"#)
        #expect(try decode("Products_5_SkinColor_Null.json").json == #"{"value":"null"}"#)  // upstream quirk kept as a string
        #expect(try decode("Products_5_SkinColor_NullType.json").json == #"{"value":null}"#)
        #expect(try decode("Products_5_CoverColors.json").json == #"{"value":["Green","Blue","Blue"]}"#)
        let complexColl = try decode("entity.collection.complex.json", target: .entities)
        #expect(complexColl.value["PhoneNumbers"]?[1]?["@odata.type"] == "#Model.CellPhoneNumber")
    }

    @Test func entityReferences() throws {
        let many = try decode("collectionOfEntityReferences.json", target: .references)
        #expect(many.count == 2 && many.entityCount == 2)
        #expect(many.value["value"]?[1] == ["@odata.id": "http://odatae2etest.azurewebsites.net/javatest/DefaultService/OrderDetails(OrderID=7,ProductID=6)"])
        let one = try decode("entityReference.json")
        #expect(one.json == #"{"@odata.id":"http://odatae2etest.azurewebsites.net/javatest/DefaultService/Employees(PersonID=3)"}"#)
    }

    @Test func containmentAndSingleton() throws {
        let r = try decode("containmentNav1.json")
        #expect(r.entityCount == 2)
        // No model, no annotations: numbers stay numbers (with their exact text).
        #expect(r.value["value"]?[0]?["PropertyInt64"] == .number("-9223372036854775808"))
        let single = try decode("containmentNav.json")  // annotated: "#Int64" / "#Decimal"
        #expect(single.value["PropertyInt64"] == "-9223372036854775808" && single.value["PropertyDecimal"] == "-34")
        let vip = try decode("VipCustomer.json")
        #expect(vip.entityCount == 1 && vip.value["PersonID"] != nil)
    }

    @Test func everyV4FixtureDecodes() throws {
        let files = PayloadFixtures.files(under: o4, extensions: [".json"]).filter { !$0.contains("/", after: o4) }
        #expect(files.count >= 40)
        for f in files {
            let r = try PayloadDecoder.decode(PayloadFixtures.bytes(f), contentType: nil, version: .v4, model: nil, entitySet: nil)
            #expect(try JSONValue.parse(r.json).objectValue != nil, "\(f)")
            #expect(!r.json.contains("@odata.context\":\"http"), "\(f)")
        }
    }
}

@Suite struct V4ComplexValueTests {
    @Test func complexPropertyTypedByTheTarget() throws {
        // TripPin's Location: a complex value sent with its members at the top level (full metadata).
        let body = Array(##"{"@odata.context":"$metadata#People('russellwhyte')/AddressInfo/$entity","@odata.type":"#Microsoft.OData.SampleService.Models.TripPin.EventLocation","Address":"187 Suffolk Ln.","BuildingInfo":"B","City":{"CountryRegion":"United States","Name":"Boise","Region":"ID"}}"##.utf8)
        let r = try PayloadDecoder.decode(body, contentType: nil, version: .v4, model: PayloadModels.tripPin, entitySet: nil,
                                          target: .value(TypeReference(name: "Microsoft.OData.SampleService.Models.TripPin.Location")))
        #expect(r.entityCount == 0)
        #expect(r.value["value"]?["@odata.type"] == "#Microsoft.OData.SampleService.Models.TripPin.EventLocation")
        #expect(r.value["value"]?["City"]?["Name"] == "Boise" && r.value["value"]?["City"]?["@odata.type"] == nil)
    }

    /// An entity read or write answered with a bare array or primitive is not OData: refused
    /// when the target says entities or an entity set's type is declared; a value target (a
    /// property, an operation's result) still takes one, and without a model nothing changes.
    @Test func entitiesAreAnObject() throws {
        func decode(_ text: String, set: String?, target: PayloadTarget) throws -> DecodedPayload {
            try PayloadDecoder.decode(Array(text.utf8), contentType: "application/json", version: .v4,
                                      model: PayloadModels.tripPin, entitySet: set, target: target)
        }
        for text in [#"[{"UserName":"a"}]"#, #""hello""#, "42", "null", "true"] {
            #expect(throws: PayloadError.self, "\(text)") { try decode(text, set: "People", target: .automatic) }
            #expect(throws: PayloadError.self, "\(text)") { try decode(text, set: nil, target: .entities) }
        }
        #expect(try decode("42", set: nil, target: .value(nil)).json == #"{"value":42}"#)
        #expect(try decode(#""Red""#, set: nil, target: .automatic).json == #"{"value":"Red"}"#)
        #expect(try decode(#"{"value":[]}"#, set: "People", target: .automatic).entityCount == 0)
    }
}
