import ODataStore
import Testing

/// The value types and the coders, without a service.
@Suite("Swift API, values and coding")
struct ValueTests {
    @Test func decimals() {
        let a: ODataDecimal = 19.99
        #expect(a.description == "19.99")
        #expect(ODataDecimal("1.50") == ODataDecimal("1.5"))
        #expect(ODataDecimal("1.50").description == "1.50")
        #expect(Set([ODataDecimal("1.50"), ODataDecimal("1.5")]).count == 1)
        #expect(ODataDecimal("0.1") + ODataDecimal("0.2") == ODataDecimal("0.3"))
        #expect(ODataDecimal("12345678901234567890.123") * 2 == ODataDecimal("24691357802469135780.246"))
        #expect(ODataDecimal("-2") < ODataDecimal("1"))
        #expect(ODataDecimal("2.675").rounded(toPlaces: 2).description == "2.68")
        let notANumber = "NaN"
        #expect(ODataDecimal(notANumber) == nil)
        #expect(ODataDecimal(0.1) == ODataDecimal("0.1"))
    }

    @Test func datesAndTimes() {
        let d = ODataDate("2024-02-29")!
        #expect(d.year == 2024 && d.month == 2 && d.day == 29)
        #expect(ODataDate("2023-02-29") == nil)
        #expect(ODataDate(daysSince1970: d.daysSince1970) == d)
        #expect(ODataDate(daysSince1970: -1).description == "1969-12-31")
        let t = ODataDateTimeOffset("2012-12-03T07:16:23+01:00")!
        #expect(t.secondsSince1970 == 1_354_515_383)
        #expect(t == ODataDateTimeOffset("2012-12-03T06:16:23Z")!)
        #expect(t.description == "2012-12-03T07:16:23+01:00")
        #expect(t.inUTC.description == "2012-12-03T06:16:23Z")
        #expect(ODataDateTimeOffset(secondsSince1970: -1).description == "1969-12-31T23:59:59Z")
        #expect(ODataTimeOfDay("09:05:03.25")!.description == "09:05:03.25")
        #expect(Duration(canonicalJSON: .string("P1DT2H3M4.5S")) == .seconds(93_784) + .milliseconds(500))
        #expect(Duration.seconds(-90).canonicalJSON == .string("-PT1M30S"))
        #expect(ODataGuid("7E0A6C4E-1111-2222-3333-444455556666")?.description == "7e0a6c4e-1111-2222-3333-444455556666")
    }

    struct Sample: Codable, Equatable {
        var int: Int
        var big: Int64
        var decimal: ODataDecimal
        var double: Double
        var date: ODataDate
        var bytes: [UInt8]
        var optional: String?
        var nested: [String: [Int]]
    }

    @Test func codingRoundTrips() throws {
        let s = Sample(int: 1, big: 9_007_199_254_740_993, decimal: "1.50", double: .infinity,
                       date: ODataDate(year: 2020, month: 1, day: 2)!, bytes: [0, 255], optional: nil, nested: ["a": [1, 2]])
        let json = try ODataEncoder().encode(s)
        #expect(json["big"] == .string("9007199254740993"))
        #expect(json["decimal"] == .string("1.50"))
        #expect(json["double"] == .string("INF"))
        #expect(json["bytes"] == .string("AP8="))
        #expect(json["optional"] == nil)
        #expect(try ODataDecoder().decode(Sample.self, from: json) == s)
        #expect(try ODataDecoder().decode(Sample.self, from: json.serialized()) == s)
        // A collection and a value result.
        #expect(try ODataDecoder().decode([Int].self, from: #"{"@odata.count":2,"value":[1,2]}"#) == [1, 2])
        #expect(try ODataDecoder().decode(Int64.self, from: #"{"value":"54043195572547008"}"#) == 54_043_195_572_547_008)
        // Errors name the place.
        do {
            _ = try ODataDecoder().decode([Sample].self, from: #"{"value":[{"int":"x"}]}"#)
            Issue.record("decoded")
        } catch {
            #expect(error.code == .type)
            #expect(error.message.hasPrefix("[0].int"))
        }
    }

    @Test func requestValues() {
        var r = ODataRequest.read(ResourcePath(entitySet: "Products").filter("Name eq \("A&B")").top(3))
        r.headers["accept-language"] = "de"
        r.headers["Accept-Language"] = "fr"
        #expect(r.headers.fields.count == 1 && r.headers["ACCEPT-LANGUAGE"] == "fr")
        #expect(r.path.description == "Products?$filter=Name eq 'A&B'&$top=3")
        let q: QueryText = "Price gt \(ODataDecimal("1.5")) and Stock lt \(Int64(7))"
        #expect(q.text(for: .v2) == "Price gt 1.5M and Stock lt 7L")
        #expect(q.text(for: .v4) == "Price gt 1.5 and Stock lt 7")
    }
}
