import Testing
@testable import ODataProtocol

private func parseError(_ body: () throws -> Void) -> MetadataError? {
    do { try body() } catch let e as MetadataError { return e } catch {}
    return nil
}

/// The model without warnings (their positions differ between representations).
private func comparable(_ m: ServiceModel) -> ServiceModel {
    var m = m
    m.warnings = []
    return m
}

/// CSDL JSON (4.01): the same real documents written as JSON load into the same model.
@Suite("Metadata: CSDL JSON")
struct MetadataJSONTests {
    @Test(arguments: [MetadataFixture.tripPinOASIS, .tripPinOlingo, .northwindV4OASIS, .northwindV4Olingo])
    func jsonOfRealDocumentsGivesTheSameModel(_ fixture: MetadataFixture) throws {
        let xmlBytes = try fixture.bytes()
        let fromXML = try MetadataParser.parse(xmlBytes)
        let json = CSDLXMLToJSON.convert(try XMLDocument.parse(xmlBytes).root).text
        #expect(json.hasPrefix("{\"$Version\":\"4.0\""))
        if fixture == .tripPinOASIS { #expect(json.contains("\"@Org.OData.Core.V1.Permissions\"")) }  // annotations travel as @ members
        let fromJSON = try MetadataParser.parse(json)
        #expect(comparable(fromJSON) == comparable(fromXML))
        #expect(fromJSON.warnings.map(\.message) == fromXML.warnings.map(\.message))
        // With a BOM and whitespace in front it is still recognised as JSON.
        let padded = try MetadataParser.parse([0xEF, 0xBB, 0xBF] + Array(" \r\n\t".utf8) + Array(json.utf8))
        #expect(comparable(padded) == comparable(fromXML))
    }

    @Test func jsonOfTheAliasDocument() throws {
        let fromXML = try MetadataParser.parse(MetadataV4Tests.aliasDocument)
        let json = CSDLXMLToJSON.convert(try XMLDocument.parse(MetadataV4Tests.aliasDocument).root).text
        let fromJSON = try MetadataParser.parse(json)
        #expect(comparable(fromJSON) == comparable(fromXML))
        #expect(fromJSON.warnings.isEmpty)
    }

    /// Written by hand after the examples of the CSDL JSON specification: JSON defaults,
    /// key aliases, overloads, escapes, a default container chosen by `$EntityContainer`.
    @Test func handWrittenDocument() throws {
        let json = #"""
            {
              "$Version": "4.01",
              "$EntityContainer": "ODataDemo.Demo",
              "$Reference": {"https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.json":
                              {"$Include": [{"$Namespace": "Org.OData.Core.V1", "$Alias": "Core"}]}},
              "ODataDemo": {
                "$Alias": "D",
                "@Core.Description": "ignored",
                "Product": {
                  "$Kind": "EntityType", "$HasStream": true,
                  "$Key": ["ID", {"W": "Size/Width"}],
                  "Size": {"$Type": "D.Dims"},
                  "ID": {},
                  "Description": {"$Nullable": true, "@Core.IsLanguageDependent": true},
                  "Price": {"$Type": "Edm.Decimal", "$Precision": 10, "$Scale": "variable"},
                  "Caf\u00e9": {"$Type": "Edm.Int32", "$DefaultValue": 3},
                  "Tags": {"$Collection": true, "$MaxLength": 20},
                  "Category": {"$Kind": "NavigationProperty", "$Type": "D.Category", "$Partner": "Products",
                               "$ReferentialConstraint": {"CategoryID": "ID", "CategoryID@Core.Description": "x"}},
                  "CategoryID": {"$Type": "Edm.Int32", "$Nullable": true}
                },
                "Category": {
                  "$Kind": "EntityType", "$Key": ["ID"], "ID": {"$Type": "Edm.Int32"},
                  "Products": {"$Kind": "NavigationProperty", "$Collection": true, "$Type": "D.Product", "$Partner": "Category"}
                },
                "Dims": {"$Kind": "ComplexType", "Width": {"$Type": "Edm.Int32"}},
                "Rating": {"$Kind": "EnumType", "$UnderlyingType": "Edm.Byte", "Low": 1, "Low@Core.Description": "x", "High": 9},
                "Money": {"$Kind": "TypeDefinition", "$UnderlyingType": "Edm.Decimal", "$Scale": 2},
                "Best": [
                  {"$Kind": "Function", "$ReturnType": {"$Type": "D.Product", "$Collection": true}},
                  {"$Kind": "Function", "$Parameter": [{"$Name": "n", "$Type": "Edm.Int32"}],
                   "$ReturnType": {"$Type": "D.Product", "$Collection": true}},
                  {"$Kind": "Function", "$IsBound": true, "$IsComposable": true,
                   "$Parameter": [{"$Name": "c", "$Type": "D.Category"}], "$ReturnType": {"$Type": "D.Product", "$Nullable": true}}
                ],
                "Discontinue": [{"$Kind": "Action", "$IsBound": true, "$Parameter": [{"$Name": "p", "$Type": "D.Product"}]}],
                "Old": {"$Kind": "EntityContainer", "Things": {"$Collection": true, "$Type": "D.Category"}},
                "Demo": {
                  "$Kind": "EntityContainer",
                  "Products": {"$Collection": true, "$Type": "D.Product", "$NavigationPropertyBinding": {"Category": "Categories"}},
                  "Categories": {"$Collection": true, "$Type": "D.Category", "$NavigationPropertyBinding": {"Products": "Products"}},
                  "Featured": {"$Type": "D.Product"},
                  "BestProducts": {"$Function": "D.Best", "$EntitySet": "Products"}
                },
                "IsGood": {"$Kind": "Term", "$Type": "Edm.Boolean"}
              }
            }
            """#
        let m = try MetadataParser.parse(json)
        #expect(m.version == .v4 && m.declaredVersion == "4.01")
        #expect(m.aliases == ["D": "ODataDemo", "Core": "Org.OData.Core.V1"])
        #expect(m.containerName == "Demo")
        // The other container's set keeps a qualified URL name, as for XML.
        #expect(m.entitySets.keys.sorted() == ["Categories", "Featured", "Old.Things", "Products"])
        let product = try #require(m.entityType(ofSet: "Products"))
        #expect(product.hasStream && product.key == ["ID", "W"] && product.keyAliases == ["W": "Size/Width"])
        #expect(m.keyProperties(of: product).map(\.property.type.name) == ["Edm.String", "Edm.Int32"])
        #expect(product.properties.map(\.name) == ["Size", "ID", "Description", "Price", "Café", "Tags", "CategoryID"])
        #expect(m.prop("ODataDemo.Product", "ID")?.type == TypeReference(name: "Edm.String", nullable: false))
        #expect(m.prop("ODataDemo.Product", "Description")?.type.nullable == true)
        let price = try #require(m.prop("ODataDemo.Product", "Price"))
        #expect(price.type.precision == 10 && price.type.scaleIsVariable && price.type.name == "Edm.Decimal")
        #expect(m.prop("ODataDemo.Product", "Café")?.defaultValue == "3")
        #expect(m.prop("ODataDemo.Product", "Tags")?.type == TypeReference(name: "Edm.String", isCollection: true, nullable: false, maxLength: 20))
        let category = try #require(m.nav("ODataDemo.Product", "Category"))
        #expect(!category.nullable && category.partner == "Products" && constraintStrings(category) == ["CategoryID->ID"])
        #expect(constraintStrings(m.nav("ODataDemo.Category", "Products")) == ["ID->CategoryID"])
        #expect(m.nav("ODataDemo.Category", "Products")?.nullable == true)
        #expect(m.enumType("D.Rating")?.members.map(\.name) == ["Low", "High"])
        #expect(m.enumType("D.Rating")?.members.map(\.value) == [1, 9])
        #expect(m.typeDefinitions == ["ODataDemo.Money": "Edm.Decimal"])
        #expect(m.operations["ODataDemo.Best"]?.count == 3)
        #expect(m.unboundOverloads(of: "D.Best").count == 2)
        #expect(m.boundOperations(named: "D.Best", bindingType: "D.Category", isCollection: false).first?.isComposable == true)
        #expect(m.operations["ODataDemo.Discontinue"]?.first?.kind == .action)
        let best = try #require(m.operationImports["BestProducts"])
        #expect(best.qualifiedName == "ODataDemo.Best" && best.entitySet == "Products" && best.parameters.isEmpty)
        #expect(m.entitySets["Featured"]?.isSingleton == true)
        #expect(m.navigationTarget(ofSet: "Products", path: "Category")?.name == "Categories")
        // Two containers are not V4: reported, the other one's members loaded qualified.
        #expect(m.warnings.map(\.kind) == [.invalidElement], "\(m.warnings)")
        #expect(m.warnings.first?.message.contains("more than one EntityContainer") == true)
    }

    @Test func emptyAndVersionlessDocuments() throws {
        let empty = try MetadataParser.parse("{\"$Version\": \"4.01\"}")
        #expect(empty.version == .v4 && empty.types.isEmpty && empty.warnings.isEmpty)
        let versionless = try MetadataParser.parse("{}")
        #expect(versionless.warnings.map(\.kind) == [.invalidElement])
        #expect(parseError { _ = try MetadataParser.parse("{}", options: .init(strict: true)) }?.kind == .invalidElement)
    }

    @Test func jsonErrorsHavePositions() {
        let cases: [(String, MetadataError.Kind, Int?)] = [
            ("{\"$Version\": \"5.0\"}", .unsupportedVersion, nil),
            ("{\n  \"$Version\": \"4.01\",\n  \"NS\": {\"T\": {\"$Kind\": \"EntityType\",}}\n}", .notWellFormed, 3),
            ("{\"a\": tru}", .notWellFormed, 1),
            ("{\"a\": \"\\x\"}", .notWellFormed, 1),
            ("{\"a\": \"unterminated", .notWellFormed, 1),
            ("{\"a\": 1.}", .notWellFormed, 1),
            ("{\"a\": -}", .notWellFormed, 1),
            ("{\"a\": \"\\ud800\"} x", .notWellFormed, 1),
            ("{\"a\": \"line\nbreak\"}", .notWellFormed, 1),
            ("{\"a\": 1 \"b\": 2}", .notWellFormed, 1),
            (String(repeating: "{\"a\":", count: 300) + "1" + String(repeating: "}", count: 300), .notWellFormed, 1),
        ]
        for (text, kind, line) in cases {
            let e = parseError { _ = try MetadataParser.parse(text) }
            #expect(e?.kind == kind, "\(text.prefix(60))")
            if let line { #expect(e?.line == line, "\(text.prefix(60))") }
            #expect((e?.column ?? 1) > 0)
        }
        // A lone surrogate escape is replaced, not an error.
        #expect(throws: Never.self) { _ = try MetadataParser.parse("{\"$Version\": \"4.0\", \"N\": {\"$Alias\": \"\\ud800\"}}") }
    }
}
