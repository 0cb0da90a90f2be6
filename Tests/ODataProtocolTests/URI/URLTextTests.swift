import Testing
@testable import ODataProtocol

/// `URLText`: literals and key predicates built from values, typed by $metadata and spelled
/// for the version, percent-encoded where URLs need it.
@Suite struct URLTextTests {
    static let model = try! MetadataParser.parse(Array("""
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
         <edmx:DataServices m:DataServiceVersion="2.0" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
          <Schema Namespace="NS" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
           <EntityType Name="Item"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Int64" Nullable="false"/></EntityType>
           <EntityType Name="Doc"><Key><PropertyRef Name="G"/></Key><Property Name="G" Type="Edm.Guid" Nullable="false"/></EntityType>
           <EntityType Name="Line"><Key><PropertyRef Name="Order"/><PropertyRef Name="No"/></Key>
            <Property Name="Order" Type="Edm.String" Nullable="false"/><Property Name="No" Type="Edm.Int16" Nullable="false"/></EntityType>
           <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
            <EntitySet Name="Items" EntityType="NS.Item"/><EntitySet Name="Docs" EntityType="NS.Doc"/>
            <EntitySet Name="Lines" EntityType="NS.Line"/>
           </EntityContainer>
          </Schema>
         </edmx:DataServices>
        </edmx:Edmx>
        """.utf8))

    @Test func quotedStrings() {
        #expect(URLText.quotedString("O'NEIL") == "'O''NEIL'")
        #expect(URLText.quotedString("A&B #1 50% ?/+") == "'A%26B%20%231%2050%25%20%3F%2F%2B'")
        #expect(URLText.quotedString("日") == "'%E6%97%A5'")
    }

    @Test func keyPathsBothVersions() throws {
        let m = Self.model
        #expect(try URLText.keyPath(entitySet: "Items", key: .number("12"), model: m, version: .v2) == "Items(12L)")
        #expect(try URLText.keyPath(entitySet: "Items", key: .string("12"), model: m, version: .v4) == "Items(12)")
        let g = "5f0c7b32-0e4e-4a8b-9a63-6f1f6c1d2e3f"
        #expect(try URLText.keyPath(entitySet: "Docs", key: .string(g), model: m, version: .v2) == "Docs(guid'\(g)')")
        #expect(try URLText.keyPath(entitySet: "Docs", key: .string(g), model: m, version: .v4) == "Docs(\(g))")
        let line = try JSONValue.parse(#"{"No":3,"Order":"A&B"}"#)
        #expect(try URLText.keyPath(entitySet: "Lines", key: line, model: m, version: .v4) == "Lines(Order='A%26B',No=3)")
        #expect(throws: URLText.KeyError.self) { try URLText.keyPath(entitySet: "Lines", key: .number("3"), model: m, version: .v4) }
        #expect(throws: URLText.KeyError.self) {
            try URLText.keyPath(entitySet: "Lines", key: JSONValue.parse(#"{"No":40000,"Order":"x"}"#), model: m, version: .v4)
        }
        #expect(throws: URLText.KeyError.self) { try URLText.keyPath(entitySet: "Nope", key: .number("1"), model: m, version: .v4) }
    }
}
