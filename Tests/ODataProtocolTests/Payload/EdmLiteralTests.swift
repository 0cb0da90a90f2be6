import Testing
@testable import ODataProtocol

@Suite("Edm literals")
struct EdmLiteralTests {
    @Test func isoDatesRoundTripThroughV2DateLiterals() {
        #expect(EdmLiteral.v2Date(fromISO: "2024-02-29T00:00:00", keepOffset: false) == "/Date(1709164800000)/")
        #expect(EdmLiteral.v2Date(fromISO: "1969-12-31T23:59:59.999Z", keepOffset: false) == "/Date(-1)/")
        #expect(EdmLiteral.v2Date(fromISO: "2024-01-01T01:00:00+01:00", keepOffset: true) == "/Date(1704067200000+0060)/")
        #expect(EdmLiteral.isoFromV2Date("/Date(1709164800000)/")?.hasPrefix("2024-02-29T00:00:00") == true)
    }

    /// Found by the Atom helper: a year of 14 digits overflowed Int64 milliseconds and trapped.
    @Test func hugeYearsAreRejectedNotOverflowed() {
        #expect(EdmLiteral.epochMillis(fromISO: "99999999999999-01-01T00:00:00Z") == nil)
        #expect(EdmLiteral.v2Date(fromISO: "9999999999-12-31T23:59:59", keepOffset: false) == nil)
        #expect(EdmLiteral.epochMillis(fromISO: "999999-12-31T23:59:59Z") != nil)
    }

    @Test func encoderPassesAnUnconvertibleDateThroughInsteadOfTrapping() throws {
        let model = try MetadataParser.parse("""
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
              xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
            <edmx:DataServices m:DataServiceVersion="2.0">
            <Schema Namespace="S" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
              <EntityType Name="T"><Key><PropertyRef Name="ID"/></Key>
                <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="D" Type="Edm.DateTime"/></EntityType>
              <EntityContainer Name="C" m:IsDefaultEntityContainer="true"><EntitySet Name="Ts" EntityType="S.T"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """)
        let encoded = try PayloadEncoder.encodeEntity("{\"ID\":1,\"D\":\"99999999999999-01-01T00:00:00\"}",
                                                      version: .v2, model: model, entitySet: "Ts")
        #expect(String(decoding: encoded.body, as: UTF8.self).contains("99999999999999"))
    }
}
