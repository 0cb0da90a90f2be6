import Testing
@testable import ODataProtocol

/// `PrimitiveValueCheck`: the values of each Edm type and the facets $metadata states, as the
/// offline store checks local writes (what odatapy and SAP Gateway answer 400 for).
@Suite("Metadata: primitive value checks")
struct PrimitiveValueCheckTests {
    private func fits(_ v: JSONValue, _ k: EdmPrimitiveKind, _ f: PrimitiveValueCheck.Facets = .init()) -> Bool {
        PrimitiveValueCheck.problem(v, kind: k, facets: f) == nil
    }

    @Test func integersByRange() {
        #expect(fits(.number("255"), .byte) && !fits(.number("256"), .byte) && !fits(.number("-1"), .byte))
        #expect(fits(.number("-128"), .sbyte) && !fits(.number("128"), .sbyte))
        #expect(fits(.number("-32768"), .int16) && !fits(.number("32768"), .int16))
        #expect(fits(.number("2147483647"), .int32) && !fits(.number("2147483648"), .int32) && !fits(.number("-2147483649"), .int32))
        #expect(!fits(.number("1.0"), .int32) && !fits(.string("1"), .int32) && !fits(.bool(true), .int32))
        // Int64 as the canonical string (IEEE754Compatible) or a number
        #expect(fits(.string("9223372036854775807"), .int64) && fits(.number("-9223372036854775808"), .int64))
        #expect(!fits(.string("9223372036854775808"), .int64) && !fits(.string("12a"), .int64))
        let message = PrimitiveValueCheck.problem(.number("2147483648"), kind: .int32)
        #expect(message == "outside Edm.Int32's range -2147483648...2147483647")
    }

    @Test func decimalsByPrecisionAndScale() {
        // SAP flight's PRICE: Precision="15" Scale="4"; the test services' Price: 12, 2.
        let price = PrimitiveValueCheck.Facets(precision: 12, scale: 2)
        #expect(fits(.string("9999999999.99"), .decimal, price) && fits(.string("-0.01"), .decimal, price))
        #expect(fits(.string("1.50"), .decimal, price) && fits(.string("1.5000"), .decimal, price))  // trailing zeros
        #expect(fits(.string("0001.25"), .decimal, price))  // leading zeros are not digits of the value
        #expect(!fits(.string("1.234"), .decimal, price) && !fits(.string("12345678901.00"), .decimal, price))
        #expect(!fits(.string("10000000000"), .decimal, price))  // 11 integer digits > 12 - 2
        // Scale variable: Precision counts every significant digit
        let floating = PrimitiveValueCheck.Facets(precision: 5)
        #expect(fits(.string("123.45"), .decimal, floating) && fits(.string("0.00001"), .decimal, floating))
        #expect(!fits(.string("123.456"), .decimal, floating))
        // no facets: any decimal; exponent forms are values whose digits are not checked
        #expect(fits(.string("123456789012345678901234567890.123456789"), .decimal))
        #expect(fits(.number("1.5E+3"), .decimal, price) && fits(.number("2e-2"), .decimal))
        for bad in ["", "1.", ".5", "1,5", "1.2.3", "NaN", "1e", "+", "1 "] {
            #expect(!fits(.string(bad), .decimal), "\(bad)")
        }
    }

    @Test func stringsAndBinaryByMaxLength() {
        let twenty = PrimitiveValueCheck.Facets(maxLength: 20)
        #expect(fits(.string(String(repeating: "X", count: 20)), .string, twenty))
        #expect(!fits(.string(String(repeating: "X", count: 21)), .string, twenty))
        // characters, not bytes: 20 umlauts (40 UTF-8 bytes) fit; emoji count once
        #expect(fits(.string(String(repeating: "ü", count: 20)), .string, twenty))
        #expect(fits(.string(String(repeating: "\u{1F600}", count: 20)), .string, twenty))
        #expect(!fits(.number("1"), .string))
        #expect(fits(.string("AAECAw=="), .binary, .init(maxLength: 4)) && !fits(.string("AAECAwQ="), .binary, .init(maxLength: 4)))
        #expect(!fits(.string("AAECAw"), .binary) && !fits(.string("-_8="), .binary))  // canonical: standard, padded
    }

    @Test func temporalValues() {
        #expect(fits(.string("2024-02-29"), .date) && !fits(.string("2023-02-29"), .date))
        #expect(fits(.string("2000-02-29"), .date) && !fits(.string("1900-02-29"), .date))
        #expect(!fits(.string("2020-04-31"), .date) && !fits(.string("2020-13-01"), .date) && !fits(.string("20200101"), .date))
        #expect(fits(.string("2012-12-03T07:16:23Z"), .dateTimeOffset) && fits(.string("2024-01-01T00:00:00.123+01:00"), .dateTimeOffset))
        #expect(!fits(.string("2012-12-03T07:16:23"), .dateTimeOffset) && !fits(.string("yesterday"), .dateTimeOffset))
        #expect(!fits(.string("2023-02-29T00:00:00Z"), .dateTimeOffset))
        // V2 DateTime: UTC with Z in the canonical shape, also taken without an offset
        #expect(fits(.string("1999-01-01T00:00:00Z"), .dateTime) && fits(.string("1999-01-01T00:00:00"), .dateTime))
        #expect(!fits(.string("/Date(915148800000)/"), .dateTime))
        // temporal Precision (odatapy states Precision="0" on DateTimeOffset)
        let whole = PrimitiveValueCheck.Facets(precision: 0)
        #expect(fits(.string("2024-01-01T00:00:00Z"), .dateTimeOffset, whole) && fits(.string("2024-01-01T00:00:00.000Z"), .dateTimeOffset, whole))
        #expect(!fits(.string("2024-01-01T00:00:00.5Z"), .dateTimeOffset, whole))
        #expect(fits(.string("2024-01-01T00:00:00.123Z"), .dateTimeOffset, .init(precision: 3)))
        #expect(!fits(.string("2024-01-01T00:00:00.1234Z"), .dateTimeOffset, .init(precision: 3)))
        #expect(fits(.string("13:20:00"), .timeOfDay) && !fits(.string("24:00:00"), .timeOfDay))
        #expect(fits(.string("13:20:00"), .time) && fits(.string("PT13H20M"), .time) && !fits(.string("1 pm"), .time))
        #expect(fits(.string("P1DT2H3M4.5S"), .duration) && fits(.string("-PT0S"), .duration) && !fits(.string("1 day"), .duration))
    }

    @Test func othersAndFacetsFromTypeReferences() {
        #expect(fits(.string("5E4F7C52-8D0C-4D0A-9A51-6A3C3C3E7B1A"), .guid) && !fits(.string("not-a-guid"), .guid))
        #expect(fits(.bool(false), .boolean) && !fits(.string("true"), .boolean))
        #expect(fits(.number("1.5e300"), .double) && fits(.string("-INF"), .single) && !fits(.string("Infinity"), .double))
        #expect(fits(.object(JSONObject()), .geography) && fits(.string("x"), .stream))
        // "Max" and "variable" state no bound
        let unbounded = PrimitiveValueCheck.Facets(TypeReference(name: "Edm.String", maxLength: nil, maxLengthIsMax: true))
        #expect(unbounded.maxLength == nil)
        let decimal = PrimitiveValueCheck.Facets(TypeReference(name: "Edm.Decimal", precision: 10, scale: nil, scaleIsVariable: true))
        #expect(decimal.precision == 10 && decimal.scale == nil)
        let stated = PrimitiveValueCheck.Facets(TypeReference(name: "Edm.String", maxLength: 3))
        #expect(stated.maxLength == 3)
    }
}
