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

    /// The byte route the JSON decoder takes (`appendISO(fromV2Date:)`) agrees with the String
    /// route, accepts the `\/Date(...)\/` escaping V2 servers send only on raw JSON contents, and
    /// leaves the output untouched when it refuses.
    @Test func v2DatesFromRawJSONBytes() {
        func bytes(_ text: String, escaped: Bool) -> String? {
            var out: [UInt8] = Array("x".utf8)
            let ok = Array(text.utf8).withUnsafeBufferPointer {
                EdmLiteral.appendISO(fromV2Date: $0, escapedSlashes: escaped, into: &out)
            }
            if !ok { return out == Array("x".utf8) ? nil : "output changed on refusal" }
            return String(decoding: out.dropFirst(), as: UTF8.self)
        }
        let cases: [(String, String)] = [
            ("/Date(1577923200000)/", "2020-01-02T00:00:00Z"),
            ("/Date(1234567890123)/", "2009-02-13T23:31:30.123Z"),
            ("/Date(1234567890120)/", "2009-02-13T23:31:30.12Z"),
            ("/Date(1234567890005)/", "2009-02-13T23:31:30.005Z"),
            ("/Date(-1)/", "1969-12-31T23:59:59.999Z"),
            ("/Date(-62135596800000)/", "0001-01-01T00:00:00Z"),
            ("/Date(253402300799000)/", "9999-12-31T23:59:59Z"),
            ("/Date(1704067200000+0060)/", "2024-01-01T01:00:00+01:00"),
            ("/Date(1704067200000-0330)/", "2023-12-31T18:30:00-05:30"),
            ("/Date(1704067200000+0000)/", "2024-01-01T00:00:00Z"),
        ]
        for (v2, iso) in cases {
            #expect(bytes(v2, escaped: false) == iso)
            #expect(EdmLiteral.isoFromV2Date(v2) == iso)
            let jsonEscaped = v2.replacingOccurrences(of: "/", with: "\\/")
            #expect(bytes(jsonEscaped, escaped: true) == iso)
            #expect(bytes(jsonEscaped, escaped: false) == nil)
        }
        for bad in ["/Date()/", "/Date(12a)/", "/Date(1)", "Date(1)/", "/Date(1+)/", "/Date(1*0060)/",
                    "/Date(1234567890123456789)/", "/Date(9640000000000000)/", "/Date(1+100000)/", "/date(1)/",
                    "\\/Date(1)/x", ""] {
            #expect(bytes(bad, escaped: true) == nil, "\(bad)")
            #expect(EdmLiteral.isoFromV2Date(bad) == nil, "\(bad)")
        }
    }

    /// The stack-buffer path of `appendISO(epochMillis:)` (years 0...9999, offsets under 100
    /// hours) writes exactly what the general path writes, across years, times of day,
    /// milliseconds and offsets; years and offsets outside it take the general path.
    @Test func isoFastPathMatchesTheGeneralPath() {
        func general(_ ms: Int64, _ offset: Int?) -> String {
            let local = ms + Int64(offset ?? 0) * 60_000
            let (days, msOfDay) = EdmLiteral.floorDivMod(local, 86_400_000)
            let (y, m, d) = EdmLiteral.civil(fromDays: days)
            var out: [UInt8] = []
            EdmLiteral.appendISOGeneral(y, m, d, msOfDay: msOfDay, offsetMinutes: offset, into: &out)
            return String(decoding: out, as: UTF8.self)
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            return seed
        }
        let bounds: [Int64] = [-62_135_596_800_000, -62_135_596_800_001, 253_402_300_799_999, 253_402_300_800_000,
                               0, -1, 1, 999, 1000, 86_399_999, 86_400_000, 8_640_000_000_000_000, -8_640_000_000_000_000]
        var values = bounds
        for _ in 0..<4000 { values.append(Int64(bitPattern: next()) % 300_000_000_000_000) }
        let offsets: [Int?] = [nil, 0, 1, -1, 60, -330, 5999, -5999, 6000, -6000, 99_999]
        for ms in values {
            for offset in offsets {
                #expect(EdmLiteral.iso(epochMillis: ms, offsetMinutes: offset) == general(ms, offset), "\(ms) \(String(describing: offset))")
            }
        }
        #expect(EdmLiteral.iso(epochMillis: 253_402_300_800_000, offsetMinutes: nil) == "10000-01-01T00:00:00Z")
        #expect(EdmLiteral.iso(epochMillis: 1_704_067_200_001, offsetMinutes: -330) == "2023-12-31T18:30:00.001-05:30")
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
