import Testing
@testable import ODataProtocol

/// The schema-checked parse against real $metadata documents (loaded with MetadataParser)
/// and a small hand-built model.
@Suite struct SchemaCheckTests {
    static let flight = MetadataFixture.rmtSampleFlight.rawValue
    static let tripPin = MetadataFixture.tripPinOASIS.rawValue
    static let gwsample = MetadataFixture.gwsampleBasic.rawValue
    static let northwind = MetadataFixture.northwindV4OASIS.rawValue
    static let refScenario = MetadataFixture.refScenario.rawValue

    func model(_ path: String) throws -> ServiceModel { try MetadataParser.parse(try MetadataFixture.bytes(path)) }

    func check(_ url: String, _ path: String) throws -> ResourceRequest {
        try ResourceRequestParser().parse(url, checkingAgainst: try model(path))
    }

    func failure(_ url: String, _ path: String) throws -> URLParseError? {
        let m = try model(path)
        do { _ = try ResourceRequestParser().parse(url, checkingAgainst: m); return nil } catch { return error }
    }

    @Test func rmtSampleFlight() throws {
        let r = try check("FlightCollection?$filter=fldate gt datetime'2013-09-16T00:00'", Self.flight)
        #expect(r.segments[0].role == .entitySet)
        #expect(r.options.filter?.type == .primitive(.boolean))
        guard case .binary(.gt, let l, _)? = r.options.filter?.kind else { Issue.record("no gt"); return }
        #expect(l.type == .primitive(.dateTime))
        let key = try check("FlightCollection(carrid='AA',connid='0017',fldate=datetime'2013-09-16T00:00:00')/flightBookings", Self.flight)
        #expect(key.segments.map(\.role) == [.entitySet, .navigation])
        let links = try check("CarrierCollection('AA')/$links/carrierFlights", Self.flight)
        #expect(links.segments.map(\.role) == [.entitySet, .links, .navigation])
        // Options after $count and $links apply to the counted collection / the link target.
        let counted = try check("FlightCollection/$count?$filter=PRICE gt 100M", Self.flight)
        #expect(counted.options.filter?.type == .primitive(.boolean))
        let linked = try check("CarrierCollection('AA')/$links/carrierFlights?$filter=connid eq '0017'&$top=2", Self.flight)
        #expect(linked.options.top == 2)
        #expect(try failure("CarrierCollection('AA')/$links/carrierFlights/carrierFlights", Self.flight)?.message ==
                "nothing may follow 'carrierFlights'")
        let media = try check("CarrierCollection('AA')/$value", Self.flight)
        #expect(media.segments.last?.role == .value)
        let agencies = try check("TravelagencyCollection?$filter=CITY eq 'Rome'&$select=agencynum,NAME&$orderby=CITY desc&$top=5&$inlinecount=allpages", Self.flight)
        #expect(agencies.options.count == true)
        // V2 function import: parameters move from the query string into the segment.
        let fi = try check("GetAvailableFlights?fromdate=datetime'2013-01-01T00:00:00'&todate=datetime'2013-12-31T00:00:00'&cityfrom='FRANKFURT'&cityto='NEW%20YORK'", Self.flight)
        #expect(fi.segments[0].role == .operationImport)
        #expect(fi.options.customOptions.isEmpty)
        #expect(fi.segments[0].arguments?.namedArguments?.map(\.name) == ["fromdate", "todate", "cityfrom", "cityto"])
        #expect(fi.segments[0].arguments?.namedArguments?.last?.value == .literal(.string("NEW YORK")))
        let canonical = RequestPrinter.canonicalURL(fi, version: .v2)
        #expect(canonical == "GetAvailableFlights?fromdate=datetime'2013-01-01T00:00:00'&todate=datetime'2013-12-31T00:00:00'&cityfrom='FRANKFURT'&cityto='NEW%20YORK'")
        #expect(try check(canonical, Self.flight) == fi)
    }

    @Test func rmtSampleFlightErrors() throws {
        #expect(try failure("FlightCollection(carrid='AA',connid='0017')", Self.flight)?.message ==
                "key of RMTSAMPLEFLIGHT.Flight is (carrid,connid,fldate), found (carrid,connid)")
        #expect(try failure("FlightCollection('AA')", Self.flight)?.message ==
                "RMTSAMPLEFLIGHT.Flight has a key of 3 properties (carrid, connid, fldate); name them")
        #expect(try failure("CarrierCollection(12)", Self.flight)?.message ==
                "key property 'carrid' is Edm.String; an integer literal does not fit")
        let cmp = try failure("FlightCollection?$filter=fldate gt 'x'", Self.flight)
        #expect(cmp == URLParseError("cannot compare Edm.DateTime with Edm.String using 'gt'", at: 35))
        #expect(try failure("FlightCollection?$filter=nosuch eq 1", Self.flight) ==
                URLParseError("type RMTSAMPLEFLIGHT.Flight has no property 'nosuch'", at: 25))
        #expect(try failure("Flights", Self.flight)?.message == "no entity set, singleton or operation import named 'Flights'")
        #expect(try failure("CarrierCollection('AA')/nosuch", Self.flight)?.position == 24)
        #expect(try failure("FlightCollection/$ref", Self.flight)?.message == "$ref is V4; V2 uses $links")
        // The seeds' example filters on `city`; the service's property is `CITY`.
        #expect(try failure("TravelagencyCollection?$filter=city eq 'Rome'", Self.flight) ==
                URLParseError("type RMTSAMPLEFLIGHT.Travelagency has no property 'city'", at: 31))
        #expect(try failure("GetFlightDetails?airlineid=AA&connectionid='0017'", Self.flight)?.message ==
                "parameter 'airlineid' of GetFlightDetails: expected a literal value, found 'AA'")
        #expect(try failure("GetFlightDetails?airlineid=1&connectionid='0017'", Self.flight)?.message ==
                "parameter 'airlineid' is Edm.String; an integer literal does not fit")
        #expect(try failure("FlightCollection?$filter=fldate", Self.flight)?.message ==
                "expected a Boolean expression, found Edm.DateTime")
        #expect(try failure("FlightCollection?$expand=nosuch", Self.flight)?.message ==
                "type RMTSAMPLEFLIGHT.Flight has no navigation property 'nosuch' (in $expand)")
    }

    @Test func tripPin() throws {
        let r = try check("People('russellwhyte')/Trips(0)/PlanItems/Microsoft.OData.SampleService.Models.TripPin.Flight?$filter=FlightNumber eq 'FM1930'", Self.tripPin)
        #expect(r.segments.map(\.role) == [.entitySet, .navigation, .navigation, .typeCast])
        let lambda = try check("People?$filter=Emails/any(e:endswith(e,'example.com')) and Gender eq Microsoft.OData.SampleService.Models.TripPin.PersonGender'Female'&$expand=Trips($filter=Budget gt 1000;$select=Name,Budget;$expand=PlanItems($levels=2))&$count=true", Self.tripPin)
        #expect(lambda.options.filter?.type == .primitive(.boolean))
        let fn = try check("GetNearestAirport(lat=33,lon=-118)", Self.tripPin)
        #expect(fn.segments[0].role == .operationImport)
        let alias = try check("GetNearestAirport(lat=@la,lon=@lo)?@la=33.5&@lo=-118", Self.tripPin)
        #expect(alias.options.aliases.map { $0.value.type } == [.primitive(.decimal), .primitive(.int32)])
        let me = try check("Me/Friends?$filter=Trips/$count gt 2 and Trips/all(t:t/Budget lt 5000.5)", Self.tripPin)
        #expect(me.segments.map(\.role) == [.singleton, .navigation])
        let bound = try check("People('russellwhyte')/Microsoft.OData.SampleService.Models.TripPin.GetFavoriteAirline()", Self.tripPin)
        #expect(bound.segments.last?.role == .boundOperation)
        let dates = try check("People('x')/Trips?$filter=StartsAt gt 2014-01-01T00:00:00Z and date(EndsAt) le 2014-12-31 and Budget mul 2 gt 10 and PlanItems/any(p:p/Duration lt duration'PT2H')&$orderby=StartsAt desc", Self.tripPin)
        #expect(dates.options.orderBy?.first?.expression.type == .primitive(.dateTimeOffset))
        let it = try check("Airports?$filter=Location/City/Name eq 'Shanghai' and contains($it/Name,'Intl')", Self.tripPin)
        guard case .binary(.and, let l, _)? = it.options.filter?.kind, case .binary(.eq, let path, _) = l.kind else {
            Issue.record("shape"); return
        }
        #expect(path.type == .primitive(.string))
    }

    @Test func tripPinErrors() throws {
        #expect(try failure("Airlines?$filter=Name eq 1", Self.tripPin) ==
                URLParseError("cannot compare Edm.String with Edm.Int32 using 'eq'", at: 25))
        #expect(try failure("Airlines?$filter=startswith(Name,1)", Self.tripPin)?.message ==
                "startswith expects a string as argument 2, found Edm.Int32")
        #expect(try failure("People('x')/Trips?$filter=Tags eq 'x'", Self.tripPin)?.message ==
                "cannot compare Collection(Edm.String) with Edm.String using 'eq'")
        #expect(try failure("People('x')/Trips?$filter=PlanItems/ConfirmationCode eq 'x'", Self.tripPin)?.message ==
                "'ConfirmationCode' follows a collection; use any/all or $count")
        #expect(try failure("People('x')/Trips?$filter=Tags/any(t:t add 1)", Self.tripPin)?.message ==
                "'add' cannot combine Edm.String and Edm.Int32")
        #expect(try failure("GetNearestAirport(lat=33)", Self.tripPin)?.message == "missing parameter 'lon' of GetNearestAirport")
        #expect(try failure("GetNearestAirport(lat='x',lon=1)", Self.tripPin)?.message ==
                "parameter 'lat' is Edm.Double; a string literal does not fit")
        #expect(try failure("GetNearestAirport(lat=@a,lon=1)", Self.tripPin)?.message == "parameter alias @a has no value in the query")
        #expect(try failure("People?$filter=Gender eq Microsoft.OData.SampleService.Models.TripPin.PersonGender'Other'", Self.tripPin)?.message ==
                "'Other' is not a member of Microsoft.OData.SampleService.Models.TripPin.PersonGender")
        #expect(try failure("Airlines('AA')/$links/Name", Self.tripPin)?.message == "$links is V2; V4 uses $ref")
        #expect(try failure("Airlines('AA')/Microsoft.OData.SampleService.Models.TripPin.Person", Self.tripPin)?.message ==
                "Microsoft.OData.SampleService.Models.TripPin.Person does not derive from Microsoft.OData.SampleService.Models.TripPin.Airline")
    }

    @Test func gwsampleAndNorthwind() throws {
        let g = try check("SalesOrderSet('0500000001')/ToLineItems?$filter=GrossAmount gt 100.5M and CurrencyCode eq 'EUR'&$expand=ToProduct/ToSupplier", Self.gwsample)
        #expect(g.segments.map(\.role) == [.entitySet, .navigation])
        let n = try check("Products?$filter=Category/CategoryName eq 'Beverages' and UnitPrice lt 20&$expand=Supplier,Order_Details($top=2)&$orderby=ProductName", Self.northwind)
        #expect(n.options.filter?.type == .primitive(.boolean))
        let refs = try check("Employees('1')/ne_Team/nt_Employees?$filter=isof('RefScenario.Manager')", Self.refScenario)
        #expect(refs.segments.map(\.role) == [.entitySet, .navigation, .navigation])
        let mgr = try check("ManagerPhoto?Id='1'", Self.refScenario)
        #expect(mgr.segments[0].role == .operationImport)
    }

    @Test func absoluteURLWithoutServiceRoot() throws {
        // The model's set names tell where the service root ends.
        let r = try check("http://testservice:8080/sap/opu/odata/iwfnd/RMTSAMPLEFLIGHT/CarrierCollection('AA')/carrierFlights", Self.flight)
        #expect(r.segments.map(\.name) == ["CarrierCollection", "carrierFlights"])
    }

    @Test func handBuiltModel() throws {
        let address = StructuredType(kind: .complex, namespace: "Demo", name: "Address", properties: [
            StructuralProperty(name: "City", type: TypeReference(name: "Edm.String")),
            StructuralProperty(name: "Zip", type: TypeReference(name: "Edm.Int32")),
        ])
        let customer = StructuredType(kind: .entity, namespace: "Demo", name: "Customer", key: ["Id"], properties: [
            StructuralProperty(name: "Id", type: TypeReference(name: "Edm.Guid", nullable: false)),
            StructuralProperty(name: "Home", type: TypeReference(name: "Demo.Address")),
            StructuralProperty(name: "Balance", type: TypeReference(name: "Edm.Decimal")),
        ], navigationProperties: [
            NavigationProperty(name: "Orders", targetType: "Demo.Order", isCollection: true),
        ])
        let order = StructuredType(kind: .entity, namespace: "Demo", name: "Order", key: ["No", "Year"], properties: [
            StructuralProperty(name: "No", type: TypeReference(name: "Edm.Int64", nullable: false)),
            StructuralProperty(name: "Year", type: TypeReference(name: "Edm.Int16", nullable: false)),
            StructuralProperty(name: "Total", type: TypeReference(name: "Edm.Double")),
        ], navigationProperties: [
            NavigationProperty(name: "Customer", targetType: "Demo.Customer", isCollection: false),
        ])
        let model = ServiceModel(version: .v2, namespaces: ["Demo"],
                                 types: ["Demo.Address": address, "Demo.Customer": customer, "Demo.Order": order],
                                 entitySets: ["Customers": EntitySet(name: "Customers", entityType: "Demo.Customer"),
                                              "Orders": EntitySet(name: "Orders", entityType: "Demo.Order")])
        let parser = ResourceRequestParser()
        let r = try parser.parse("Customers(guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff')/Orders(No=7L,Year=2024)/Customer/Home/City/$value", checkingAgainst: model)
        #expect(r.segments.map(\.role) == [.entitySet, .navigation, .navigation, .property, .property, .value])
        let f = try parser.parse("Orders?$filter=Total add 1 gt Year and Customer/Home/Zip eq 12345 and Customer/Balance mul 2M ge 10.5", checkingAgainst: model)
        guard case .binary(.and, let left, _)? = f.options.filter?.kind, case .binary(.and, let first, _) = left.kind,
              case .binary(.gt, let sum, _) = first.kind else { Issue.record("shape"); return }
        // Double + Int32 promotes to Double.
        #expect(sum.type == .primitive(.double))
        #expect(throws: URLParseError.self) { try parser.parse("Customers('x')", checkingAgainst: model) }
        #expect(throws: URLParseError.self) { try parser.parse("Orders(No=7L,Year=2024)/Customer/Home/$count", checkingAgainst: model) }
        #expect(throws: URLParseError.self) { try parser.parse("Orders?$filter=Customer/Home eq 1", checkingAgainst: model) }
    }
}
