import Testing
@testable import ODataProtocol
@testable import ODataStore

/// `$filter` and `$orderby` in the V2 dialect: `substringof`, `replace`, typed literals
/// (`12L`, `1.5M`, `2d`, `datetime'...'`, `guid'...'`, `time'...'`), V2 DateTime and Time,
/// the lifted operators of MS-ODATA 2.2.3.6.1.1.5 (a null operand of `and`/`or` counts as
/// false), navigation through link tables and through compound referential constraints
/// (SAP's flight sample, with flattened complex properties).
@Suite("Offline: $filter and $orderby to SQL (V2)")
struct FilterSQLV2Tests {
    static func products() throws -> QueryHarness {
        let h = try QueryHarness(try OfflineFixtures.v2())
        for (rid, name) in [(1, "Frühstück"), (2, "Épicerie fine"), (3, "Nothing")] {
            try h.insert("Categories", ["@rid": .integer(Int64(rid)), "ID": .integer(Int64(rid)), "Name": .text(name)])
        }
        let rows: [[String: SQLValue]] = [
            ["@rid": 1, "ID": 1, "Name": "Apple", "Description": "It's fresh", "Price": "1.50", "Stock": 100, "Discontinued": 0, "Rating": 5,
             "ReleaseDate": "2020-01-02T00:00:00Z", "UUID": "0F8FAD5B-D9CB-469F-A165-70867728950E", "Version": 1],
            ["@rid": 2, "ID": 2, "Name": "apple", "Description": "Größe – naïve café", "Price": "-0.01", "Stock": .integer(9_007_199_254_740_993),
             "Discontinued": 0, "Rating": .null, "ReleaseDate": .null, "UUID": "0f8fad5b-d9cb-469f-a165-70867728950e", "Version": 1],
            ["@rid": 3, "ID": 3, "Name": "ZOË", "Description": .null, "Price": "10", "Stock": -5, "Discontinued": 1, "Rating": 3,
             "ReleaseDate": "2021-06-30T12:30:00Z", "Version": 2],
            ["@rid": 4, "ID": 4, "Name": "日本", "Description": "", "Price": "2.5", "Stock": 0, "Discontinued": 0, "Rating": 1,
             "ReleaseDate": "1969-12-31T23:59:59Z", "Version": 1],
            ["@rid": 5, "ID": 5, "Name": "O'Neil", "Description": "50% off_", "Price": "999.99", "Stock": .integer(9_007_199_254_740_992),
             "Discontinued": 1, "Rating": 4, "ReleaseDate": "2024-12-31T23:59:59.123Z", "Version": 3],
        ]
        for row in rows { try h.insert("Products", row) }
        try h.link("Products", "Category", from: 1, to: 1)
        try h.link("Products", "Category", from: 4, to: 1)
        try h.link("Products", "Category", from: 2, to: 2)
        try h.link("Products", "Category", from: 5, to: 2)
        return h
    }

    func check(_ h: QueryHarness, _ cases: [(String, [String])], sourceLocation: SourceLocation = #_sourceLocation) {
        for (url, expected) in cases {
            do {
                let got = try h.keys(url)
                #expect(got == expected, "\(url)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(url): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func stringFunctionsOfV2() throws {
        let h = try Self.products()
        check(h, [
            ("Products?$filter=substringof('pp',Name)", ["1", "2"]),
            ("Products?$filter=substringof('PP',Name)", []),
            ("Products?$filter=substringof('%25',Description)", ["5"]),
            ("Products?$filter=substringof('_',Description)", ["5"]),
            ("Products?$filter=substringof('ö',Description) eq true", ["2"]),
            ("Products?$filter=startswith(Name,'a')", ["2"]),
            ("Products?$filter=endswith(Name,'Ë')", ["3"]),
            ("Products?$filter=replace(Name,'p','P') eq 'aPPle'", ["2"]),
            ("Products?$filter=replace(Description,'''','') eq 'Its fresh'", ["1"]),
            ("Products?$filter=tolower(Name) eq 'zoë'", ["3"]),
            ("Products?$filter=toupper(Name) eq 'APPLE'", ["1", "2"]),
            ("Products?$filter=length(Name) eq 2", ["4"]),
            ("Products?$filter=indexof(Name,'本') eq 1", ["4"]),
            ("Products?$filter=substring(Name,1,2) eq 'pp'", ["1", "2"]),
            ("Products?$filter=trim(Name) eq Name", ["1", "2", "3", "4", "5"]),
            ("Products?$filter=concat(Name,'x') eq 'Applex'", ["1"]),
        ])
    }

    @Test func liftedOperatorsTreatNullAsFalseInAndOr() throws {
        let h = try Self.products()
        check(h, [
            // substringof(.., null) is null; V2's `and` counts it false, so `not` gives true.
            ("Products?$filter=not (substringof('fresh',Description) and Discontinued)", ["1", "2", "3", "4", "5"]),
            ("Products?$filter=substringof('fresh',Description) or Discontinued", ["1", "3", "5"]),
            ("Products?$filter=not (substringof('fresh',Description) or false)", ["2", "3", "4", "5"]),
            ("Products?$filter=not substringof('fresh',Description)", ["2", "4", "5"]),
            ("Products?$filter=Rating gt 3", ["1", "5"]),
            ("Products?$filter=not (Rating gt 3)", ["2", "3", "4"]),
            ("Products?$filter=Rating eq null", ["2"]),
            ("Products?$filter=Rating ne null", ["1", "3", "4", "5"]),
            ("Products?$filter=Rating add 1 eq null", ["2"]),
        ])
    }

    @Test func typedLiteralsAndDateTime() throws {
        let h = try Self.products()
        check(h, [
            ("Products?$filter=Stock eq 9007199254740993L", ["2"]),
            ("Products?$filter=Stock eq 9007199254740992L", ["5"]),
            ("Products?$filter=Price eq 1.5M", ["1"]),
            ("Products?$filter=Price eq 1.5m", ["1"]),
            ("Products?$filter=Price eq -0.01M", ["2"]),
            ("Products?$filter=Price gt 2d", ["3", "4", "5"]),
            ("Products?$filter=Price lt 1.6f", ["1", "2"]),
            ("Products?$filter=Price eq 1.5d", ["1"]),
            ("Products?$filter=UUID eq guid'0f8fad5b-d9cb-469f-a165-70867728950e'", ["1", "2"]),
            ("Products?$filter=ReleaseDate eq datetime'2020-01-02T00:00:00'", ["1"]),
            ("Products?$filter=ReleaseDate eq datetime'2020-01-02T00:00'", ["1"]),
            ("Products?$filter=ReleaseDate lt datetime'1970-01-01T00:00'", ["4"]),
            ("Products?$filter=ReleaseDate ge datetimeoffset'2021-06-30T14:30:00+02:00'", ["3", "5"]),
            ("Products?$filter=ReleaseDate gt datetime'2024-12-31T23:59:59.12'", ["5"]),
            ("Products?$filter=year(ReleaseDate) eq 1969", ["4"]),
            ("Products?$filter=hour(ReleaseDate) eq 12", ["3"]),
            ("Products?$filter=minute(ReleaseDate) eq 30", ["3"]),
            ("Products?$filter=second(ReleaseDate) eq 59", ["4", "5"]),
            ("Products?$filter=day(ReleaseDate) eq 31 and month(ReleaseDate) eq 12", ["4", "5"]),
            ("Products?$filter=Stock mod 2 eq -1", ["3"]),
            ("Products?$filter=Stock div 2 eq -2", ["3"]),
            ("Products?$filter=Price add 1M eq 2.5M", ["1"]),
            ("Products?$filter=round(Price) eq 2", ["1"]),
            ("Products?$filter=floor(Price) eq -1", ["2"]),
            ("Products?$filter=ceiling(Price) eq 3", ["4"]),
            ("Products?$filter=isof('ODataStoreTestV2.Product')", ["1", "2", "3", "4", "5"]),
            ("Products?$filter=isof(Name,'Edm.String')", ["1", "2", "3", "4", "5"]),
            ("Products?$filter=Version eq 1 and Discontinued eq false", ["1", "2", "4"]),
        ])
    }

    @Test func navigationAndOrderingOfV2() throws {
        let h = try Self.products()
        check(h, [
            ("Products?$filter=Category/Name eq 'Frühstück'", ["1", "4"]),
            ("Products?$filter=Category eq null", ["3"]),
            ("Products?$filter=Category/ID eq 2 and Price gt 0", ["5"]),
            ("Products?$orderby=Price", ["2", "1", "4", "3", "5"]),
            ("Products?$orderby=ReleaseDate desc", ["5", "3", "1", "4", "2"]),
            ("Products?$orderby=ReleaseDate", ["2", "4", "1", "3", "5"]),
            ("Products?$orderby=Name", ["1", "5", "3", "2", "4"]),
            ("Products?$orderby=Category/Name desc,ID", ["2", "5", "1", "4", "3"]),
        ])
    }

    // MARK: - SAP's flight sample

    static func flights() throws -> QueryHarness {
        let h = try QueryHarness(try OfflineFixtures.flight())
        let flights: [[String: SQLValue]] = [
            ["@rid": 1, "carrid": "LH", "connid": "0400", "fldate": "2024-01-02T00:00:00Z", "PRICE": "666.00", "CURRENCY": "EUR",
             "SEATSMAX": 330, "SEATSOCC": 300, "flightDetails": 1, "flightDetails/cityFrom": "FRANKFURT", "flightDetails/cityTo": "NEW YORK",
             "flightDetails/departureTime": "10:10:00", "flightDetails/arrivalTime": "11:34:00", "flightDetails/distance": "6162.0000",
             "flightDetails/period": 0],
            ["@rid": 2, "carrid": "LH", "connid": "0401", "fldate": "2024-01-02T00:00:00Z", "PRICE": "666.00", "CURRENCY": "EUR",
             "SEATSMAX": 330, "SEATSOCC": 330, "flightDetails": 1, "flightDetails/cityFrom": "NEW YORK", "flightDetails/cityTo": "FRANKFURT",
             "flightDetails/departureTime": "18:30:00", "flightDetails/arrivalTime": "08:00:00", "flightDetails/period": 1],
            ["@rid": 3, "carrid": "AA", "connid": "0017", "fldate": "2024-03-05T00:00:00Z", "PRICE": "422.94", "CURRENCY": "USD",
             "SEATSMAX": 100, "SEATSOCC": 0, "flightDetails": 1, "flightDetails/cityFrom": "NEW YORK", "flightDetails/cityTo": "SAN FRANCISCO",
             "flightDetails/departureTime": "13:30:00", "flightDetails/arrivalTime": "16:31:00.5", "flightDetails/period": 0],
        ]
        for f in flights { try h.insert("FlightCollection", f) }
        let bookings: [[String: SQLValue]] = [
            ["carrid": "LH", "connid": "0400", "fldate": "2024-01-02T00:00:00Z", "bookid": "00000001", "LUGGWEIGHT": "17.4000", "PASSNAME": "Müller"],
            ["carrid": "LH", "connid": "0400", "fldate": "2024-01-02T00:00:00Z", "bookid": "00000002", "LUGGWEIGHT": "0.0000", "PASSNAME": "O'Hara"],
            ["carrid": "AA", "connid": "0017", "fldate": "2024-03-05T00:00:00Z", "bookid": "00000001", "PASSNAME": "Ann"],
        ]
        for b in bookings { try h.insert("BookingCollection", b) }
        try h.insert("CarrierCollection", ["@rid": 1, "carrid": "LH", "CARRNAME": "Lufthansa"])
        try h.insert("CarrierCollection", ["@rid": 2, "carrid": "AA", "CARRNAME": "American Airlines"])
        try h.link("FlightCollection", "FlightCarrier", from: 1, to: 1)
        try h.link("FlightCollection", "FlightCarrier", from: 2, to: 1)
        try h.link("FlightCollection", "FlightCarrier", from: 3, to: 2)
        return h
    }

    @Test func flightSampleWithComplexPropertiesTimesAndCompoundKeys() throws {
        let h = try Self.flights()
        let lh400 = "LH,0400,2024-01-02T00:00:00Z", lh401 = "LH,0401,2024-01-02T00:00:00Z", aa17 = "AA,0017,2024-03-05T00:00:00Z"
        check(h, [
            ("FlightCollection?$filter=flightDetails/cityFrom eq 'FRANKFURT'", [lh400]),
            ("FlightCollection?$filter=flightDetails/departureTime lt time'PT12H'", [lh400]),
            ("FlightCollection?$filter=flightDetails/departureTime eq time'PT10H10M'", [lh400]),
            ("FlightCollection?$filter=flightDetails/arrivalTime eq time'PT16H31M0.5S'", [aa17]),
            ("FlightCollection?$filter=hour(flightDetails/departureTime) eq 18", [lh401]),
            ("FlightCollection?$filter=flightDetails/period eq 1", [lh401]),
            ("FlightCollection?$filter=flightDetails/distance gt 6000M", [lh400]),
            ("FlightCollection?$filter=fldate eq datetime'2024-01-02T00:00:00'", [lh400, lh401]),
            ("FlightCollection?$filter=SEATSOCC eq SEATSMAX", [lh401]),
            ("FlightCollection?$filter=SEATSMAX sub SEATSOCC gt 50", [aa17]),
            ("FlightCollection?$filter=PRICE eq 666M", [lh400, lh401]),
            ("FlightCollection?$filter=FlightCarrier/CARRNAME eq 'Lufthansa'", [lh400, lh401]),
            ("FlightCollection?$filter=flightbooking/PASSNAME eq 'Ann'", [aa17]),
            ("BookingCollection?$filter=bookedFlight/flightDetails/cityFrom eq 'FRANKFURT'", ["LH,0400,2024-01-02T00:00:00Z,00000001", "LH,0400,2024-01-02T00:00:00Z,00000002"]),
            ("BookingCollection?$filter=LUGGWEIGHT eq 0M", ["LH,0400,2024-01-02T00:00:00Z,00000002"]),
            ("BookingCollection?$filter=LUGGWEIGHT eq null", ["AA,0017,2024-03-05T00:00:00Z,00000001"]),
            ("BookingCollection?$filter=substringof('''',PASSNAME)", ["LH,0400,2024-01-02T00:00:00Z,00000002"]),
        ])
        check(h, [
            ("FlightCollection?$orderby=flightDetails/departureTime desc", [lh401, aa17, lh400]),
            ("FlightCollection?$orderby=PRICE,flightDetails/cityTo", [aa17, lh401, lh400]),
            ("FlightCollection?$orderby=fldate desc,connid desc", [aa17, lh401, lh400]),
        ])
    }
}
