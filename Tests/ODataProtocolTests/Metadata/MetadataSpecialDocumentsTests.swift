import Foundation
import Testing
@testable import ODataProtocol

private func parseError(_ body: () throws -> Void) -> MetadataError? {
    do {
        try body()
        return nil
    } catch let e as MetadataError {
        return e
    } catch {
        return nil
    }
}

/// Documents outside the usual shapes, errors, and hostile input.
@Suite("Metadata: special documents and errors")
struct MetadataSpecialDocumentsTests {
    /// odata.net's Northwind.csdl: UTF-8 BOM, CRLF, CSDL 1.0 namespace, bare Schema root,
    /// unqualified primitive type names (`Type="Int32"`). Accepted as a V2 schema.
    @Test func bareSchemaDocument() throws {
        let m = try MetadataParser.parse(MetadataFixture.northwindBareSchema.bytes())
        #expect(m.version == .v2 && m.declaredVersion == nil && m.maxDataServiceVersion == nil)
        #expect(m.namespaces == ["NorthwindModel"] && m.aliases == ["Self": "NorthwindModel"])
        #expect(m.containerName == "NorthwindContext")
        // xml.etree: 26 EntitySet, 26 EntityType, 22 NavigationProperty, 11 AssociationSet
        #expect(m.entitySets.count == 26 && m.entityTypeCount == 26 && m.navigationPropertyCount == 22)
        #expect(m.bindingCount == 22)
        #expect(m.warnings.isEmpty)
        #expect(m.prop("NorthwindModel.Categories", "CategoryID")?.type == TypeReference(name: "Edm.Int32", nullable: false))
        #expect(m.prop("NorthwindModel.Categories", "Description")?.type.maxLengthIsMax == true)
        #expect(m.key(of: try #require(m.entityType(ofSet: "Order_Details"))) == ["OrderID", "ProductID"])
        #expect(m.navigationTarget(ofSet: "Products", path: "Categories")?.name == "Categories")
    }

    /// Olingo's SAP `$metadata.xml`: V4 constructs in an EDMX 1.0 envelope. Loaded as a V2
    /// model (the envelope decides) with every construct kept, one versionMismatch warning
    /// per kind of V4 construct; its own dangling references are reported; strict rejects it.
    @Test func hybridSAPDocument() throws {
        let bytes = try MetadataFixture.sapHybrid.bytes()
        let m = try MetadataParser.parse(bytes)
        #expect(m.version == .v2 && m.declaredVersion == "2.0")
        #expect(m.namespaces == ["SEPMRA_SO_MAN2"] && m.aliases["Test"] == "SEPMRA_SO_MAN2")
        #expect(m.referencedNamespaces.count == 4 && m.aliases["Core"] == "Org.OData.Core.V1")
        // xml.etree: 4 EntityType, 1 ComplexType, 1 EnumType (3 Member), 1 TypeDefinition,
        // 4 EntitySet + 1 Singleton, 2 NavigationProperty, 4 Action + 4 Function,
        // 1 ActionImport + 1 FunctionImport.
        #expect(m.entityTypeCount == 4 && m.complexTypeCount == 1)
        #expect(m.entitySets.count == 5 && m.entitySets["SINav"]?.isSingleton == true)
        #expect(m.navigationPropertyCount == 2)
        #expect(m.operationCount == 8)
        #expect(m.operations["SEPMRA_SO_MAN2.BA_RTCountryVHType"]?.count == 3)

        let flags = try #require(m.enumType("SEPMRA_SO_MAN2.ENString"))
        #expect(flags.isFlags && flags.underlyingType == "Edm.Int16")
        #expect(flags.members.map(\.name) == ["String1", "String2", "String3"] && flags.members.map(\.value) == [1, 2, 4])
        #expect(m.typeDefinitions == ["SEPMRA_SO_MAN2.TDString": "Edm.String"])
        #expect(m.prop("SEPMRA_SO_MAN2.I_DraftAdministrativeDataType", "VariableDecimalType")?.type.scaleIsVariable == true)
        #expect(m.prop("SEPMRA_SO_MAN2.I_DraftAdministrativeDataType", "FloatingDecimalType")?.type.scaleIsVariable == true)
        #expect(m.prop("SEPMRA_SO_MAN2.I_DraftAdministrativeDataType", "CreationDateTime")?.type.precision == 7)
        // A complex type with a navigation property (V4 allows it).
        #expect(m.nav("SEPMRA_SO_MAN2.CTPrim", "NavPropertyDraftAdministrativeDataType")?.targetType
                == "SEPMRA_SO_MAN2.I_DraftAdministrativeDataType")

        // The import of an unbound action resolves; the FunctionImport names a function that
        // only exists bound, so it is dropped with a warning.
        #expect(m.operationImports.keys.sorted() == ["AIRTString"])
        #expect(m.operationImports["AIRTString"]?.kind == .action)
        #expect(m.operationImports["AIRTString"]?.returnType?.name == "Edm.String")
        let dangling = m.warnings(.danglingReference).map(\.message)
        #expect(dangling.count == 3)
        #expect(dangling.contains { $0.contains("FIC_RTTimeOfDay_") })
        #expect(dangling.contains { $0.contains("binding path Customer") })
        #expect(m.warnings(.versionMismatch).count == 9)
        #expect(m.warnings.allSatisfy { $0.line != nil })

        let strict = parseError { _ = try MetadataParser.parse(bytes, options: .init(strict: true)) }
        #expect(strict?.kind == .versionMismatch)
        #expect(strict?.line == 37)
    }

    @Test func versionErrors() {
        let cases: [(String, MetadataError.Kind)] = [
            ("<edmx:Edmx Version=\"5.0\" xmlns:edmx=\"http://docs.oasis-open.org/odata/ns/edmx\"><edmx:DataServices/></edmx:Edmx>",
             .unsupportedVersion),
            ("<edmx:Edmx Version=\"4.0\" xmlns:edmx=\"http://schemas.microsoft.com/ado/2007/06/edmx\"><edmx:DataServices/></edmx:Edmx>",
             .unsupportedVersion),
            ("""
             <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
               <edmx:DataServices m:DataServiceVersion="4.0" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"/>
             </edmx:Edmx>
             """, .unsupportedVersion),
            ("<edmx:Edmx Version=\"4.0\" xmlns:edmx=\"http://docs.oasis-open.org/odata/ns/edmx\"/>", .notMetadata),
            ("<feed xmlns=\"http://www.w3.org/2005/Atom\"/>", .notMetadata),
            ("<Schema Namespace=\"X\"/>", .notMetadata),
            ("<edmx:Edmx Version=\"4.0\" xmlns:edmx=\"http://docs.oasis-open.org/odata/ns/edmx\">", .notWellFormed),
            ("{\"$Version\": \"4.01\"}", .notWellFormed),
            ("", .notWellFormed),
        ]
        for (xml, kind) in cases {
            let e = parseError { _ = try MetadataParser.parse(xml) }
            #expect(e?.kind == kind, "\(xml)")
            #expect(e?.description.isEmpty == false)
        }
        let v5 = parseError { _ = try MetadataParser.parse(cases[0].0) }
        #expect(v5?.message.contains("5.0") == true && v5?.line == 1)
        let broken = parseError { _ = try MetadataParser.parse("<edmx:Edmx\n  Version=\"4.0\"\n  <oops/>") }
        #expect(broken?.kind == .notWellFormed && broken?.line == 3 && broken?.xmlError != nil)
    }

    @Test func emptyDataServicesIsAnEmptyModel() throws {
        let m = try MetadataParser.parse(
            "<edmx:Edmx Version=\"4.0\" xmlns:edmx=\"http://docs.oasis-open.org/odata/ns/edmx\"><edmx:DataServices/></edmx:Edmx>")
        #expect(m.version == .v4 && m.types.isEmpty && m.entitySets.isEmpty && m.warnings.isEmpty)
    }

    @Test func danglingReferencesAreReportedOrDropped() throws {
        let xml = """
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
              <edmx:DataServices m:DataServiceVersion="2.0" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
                <Schema Namespace="D" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
                  <EntityType Name="A" BaseType="D.Missing">
                    <Key><PropertyRef Name="Id"/><PropertyRef Name="Nope"/></Key>
                    <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
                    <Property Name="Id" Type="Edm.String"/>
                    <Property Name="C" Type="D.NoSuchComplex"/>
                    <Property Name="NoType"/>
                    <NavigationProperty Name="ToB" Relationship="D.NoAssoc" FromRole="x" ToRole="y"/>
                  </EntityType>
                  <EntityType Name="A"/>
                  <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
                    <EntitySet Name="As" EntityType="D.A"/>
                    <EntitySet Name="Bs" EntityType="D.B"/>
                    <EntitySet Name="As" EntityType="D.A"/>
                    <FunctionImport Name="F" ReturnType="D.Nothing" EntitySet="Cs"/>
                  </EntityContainer>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """
        let m = try MetadataParser.parse(xml)
        let a = try #require(m.type("D.A"))
        #expect(a.properties.map(\.name) == ["Id", "C"])  // duplicate and untyped skipped
        #expect(a.navigationProperties.isEmpty)  // unknown association: dropped
        #expect(a.baseType == "D.Missing")  // kept as written
        #expect(m.entitySets.keys.sorted() == ["As", "Bs"])
        #expect(m.operationImports["F"]?.returnType?.name == "D.Nothing")
        let kinds = m.warnings.map(\.kind)
        #expect(kinds.filter { $0 == .duplicateName }.count == 3)
        #expect(kinds.filter { $0 == .invalidElement }.count == 1)
        // ToB, base type, property C, key Nope, set Bs, import return type and entity set.
        #expect(kinds.filter { $0 == .danglingReference }.count == 7)
        #expect(m.warnings.map { $0.line ?? 0 } == m.warnings.map { $0.line ?? 0 }.sorted())
        #expect(m.warnings.allSatisfy { ($0.line ?? 0) > 0 })
        let strict = parseError { _ = try MetadataParser.parse(xml, options: .init(strict: true)) }
        #expect(strict?.kind == .duplicateName && strict?.line == 7)
    }

    /// Olingo's XXE sample must stay inert: the DTD is refused before any entity exists, so
    /// neither the file nor the network is touched and the file's text never appears.
    @Test func externalEntityIsInert() throws {
        let target = MetadataFixture.url(MetadataFixture.xxePath)
        for uri in [target.absoluteString, "http://127.0.0.1:9/xxe.xml"] {
            let xml = """
                <?xml version="1.0" encoding="utf-8"?>
                <!DOCTYPE edmx:Edmx [ <!ENTITY xxe SYSTEM "\(uri)"> ]>
                <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
                  <edmx:DataServices>
                    <Schema Namespace="&xxe;" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                      <EntityType Name="T"><Key><PropertyRef Name="P"/></Key><Property Name="P" Type="Edm.String" DefaultValue="&xxe;"/></EntityType>
                    </Schema>
                  </edmx:DataServices>
                </edmx:Edmx>
                """
            let e = parseError { _ = try MetadataParser.parse(xml) }
            #expect(e?.kind == .notWellFormed)
            #expect(e?.xmlError?.kind == .doctypeNotAllowed)
            #expect(e?.description.contains("some text") == false)
        }
        // The sample itself is plain XML, just not a $metadata document.
        let e = parseError { _ = try MetadataParser.parse(MetadataFixture.bytes(MetadataFixture.xxePath)) }
        #expect(e?.kind == .notMetadata && e?.message.contains("external.entity") == true)
    }

    @Test func billionLaughsDoesNotBlowUp() {
        var decls = "<!ENTITY a0 \"ha\">"
        for i in 1...15 { decls += "<!ENTITY a\(i) \"" + String(repeating: "&a\(i - 1);", count: 10) + "\">" }
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE edmx:Edmx [\(decls)]>
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
              <edmx:DataServices><Schema Namespace="&a15;" xmlns="http://docs.oasis-open.org/odata/ns/edm"/></edmx:DataServices>
            </edmx:Edmx>
            """
        let e = parseError { _ = try MetadataParser.parse(xml) }
        #expect(e?.kind == .notWellFormed && e?.xmlError?.kind == .doctypeNotAllowed && e?.line == 2)
    }

    @Test func parsesStringsAndPreparsedDocuments() throws {
        let bytes = try MetadataFixture.odataDemoV2.bytes()
        let fromBytes = try MetadataParser.parse(bytes)
        let fromString = try MetadataParser.parse(String(decoding: bytes, as: UTF8.self))
        let fromDocument = try MetadataParser.parse(XMLDocument.parse(bytes))
        let fromData = try MetadataParser.parse(Data(bytes))
        for m in [fromString, fromDocument, fromData] { #expect(m == fromBytes) }
    }

    /// Loading is deterministic (warnings included), whatever the hashing seed of this run.
    @Test(arguments: MetadataFixture.allCases)
    func loadingIsDeterministic(_ fixture: MetadataFixture) throws {
        let bytes = try fixture.bytes()
        #expect(try MetadataParser.parse(bytes) == MetadataParser.parse(bytes))
    }
}
