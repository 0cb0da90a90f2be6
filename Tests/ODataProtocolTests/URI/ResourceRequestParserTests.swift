import Testing
@testable import ODataProtocol

@Suite struct ResourceRequestParserTests {
    func parse(_ url: String, _ v: ODataVersion? = nil, root: String? = nil) throws -> ResourceRequest {
        try ResourceRequestParser(version: v, serviceRoot: root.flatMap(ServiceRoot.init)).parse(url)
    }

    func roundTrip(_ url: String, _ v: ODataVersion?, root: String? = nil) throws {
        let r = try parse(url, v, root: root)
        let printed = RequestPrinter.canonicalURL(r, version: v)
        let again = try parse(printed, v)
        #expect(again == r, "\(url) -> \(printed)")
        #expect(RequestPrinter.canonicalURL(again, version: v) == printed)
    }

    @Test func seedsRequests() throws {
        let r = try parse("TravelagencyCollection?$filter=city eq 'Rome'", .v2)
        #expect(r.segments == [PathSegment(name: "TravelagencyCollection")])
        #expect(r.options.filter.map { FilterPrinter.print($0, version: .v2) } == "city eq 'Rome'")
        #expect(RequestPrinter.canonicalURL(r, version: .v2) == "TravelagencyCollection?$filter=city%20eq%20'Rome'")
        let f = try parse("/FlightCollection?$filter=fldate gt datetime'2013-09-16T00:00'", .v2)
        guard case .binary(.gt, _, let rhs)? = f.options.filter?.kind else { Issue.record("no gt"); return }
        #expect(rhs.kind == .literal(.dateTime("2013-09-16T00:00")))
    }

    @Test func batchRequestLines() throws {
        let r = try parse("Employees('2')/EmployeeName", .v2)
        #expect(r.segments.map(\.name) == ["Employees", "EmployeeName"])
        #expect(r.segments[0].arguments == .positional(.literal(.string("2"))))
        let fi = try parse("ManagerPhoto?Id='1'", .v2)
        #expect(fi.options.customOptions == [CustomOption(name: "Id", value: "'1'")])
        let v = try parse("Employees('2')/$value", .v2)
        #expect(v.segments[1].role == .value)
        let c = try parse("$1/EmployeeName", .v2)
        #expect(c.segments[0].role == .contentID)
        let f = try parse("Employees?$filter=substringof('Walter',EmployeeName)", .v2)
        #expect(f.options.filter?.kind == .call("substringof", [
            FilterExpression(.literal(.string("Walter"))),
            FilterExpression(.member(MemberPath(segments: [.property("EmployeeName")]))),
        ]))
        let abs = try parse("http://localhost/odata/Employees('2')/EmployeeName?$format=json", .v2,
                            root: "http://localhost:80/odata")
        #expect(abs.segments.map(\.name) == ["Employees", "EmployeeName"])
        #expect(abs.options.format == "json")
        let svc = try parse("/service/Customers('ALFKI')", .v4, root: "http://host/service/")
        #expect(svc.segments.map(\.name) == ["Customers"])
        let fn = try parse("/CreateCustomer()?id=55&name='foo'", nil)
        #expect(fn.segments == [PathSegment(name: "CreateCustomer", arguments: .empty)])
    }

    @Test func compoundKeysAndTypedLiterals() throws {
        let r = try parse("OrderDetails(OrderID=7,ProductID=5)", .v4)
        #expect(r.segments[0].arguments == .named([
            NamedArgument(name: "OrderID", value: .literal(.integer("7"))),
            NamedArgument(name: "ProductID", value: .literal(.integer("5"))),
        ]))
        let g = try parse("Advertisements(f89dee73-af9f-4cd4-b330-db93c25ff3c7)/$value", .v4)
        #expect(g.segments[0].arguments == .positional(.literal(.guid("f89dee73-af9f-4cd4-b330-db93c25ff3c7"))))
        let g2 = try parse("Things(guid'f89dee73-af9f-4cd4-b330-db93c25ff3c7')", .v2)
        #expect(g2.segments[0].arguments == .positional(.literal(.guid("f89dee73-af9f-4cd4-b330-db93c25ff3c7"))))
        #expect(RequestPrinter.canonicalURL(g2, version: .v4) == "Things(f89dee73-af9f-4cd4-b330-db93c25ff3c7)")
        let fl = try parse("FlightCollection(carrid='AA',connid='0017',fldate=datetime'2013-09-16T00:00:00')", .v2)
        #expect(fl.segments[0].arguments?.namedArguments?.last?.value == .literal(.dateTime("2013-09-16T00:00:00")))
        let l = try parse("Int64s(12L)", .v2)
        #expect(l.segments[0].arguments == .positional(.literal(.int64("12"))))
        #expect(throws: URLParseError.self) { try parse("Int64s(12L)", .v4) }
        let q = try parse("People('O''Neil')", .v4)
        #expect(q.segments[0].arguments == .positional(.literal(.string("O'Neil"))))
        let q2 = try parse("People(%27O%27%27Neil%27)", .v4)
        #expect(q2 == q)
        let q3 = try parse("Categories('Smartphone%2FTablet')", .v4)
        #expect(q3.segments[0].arguments == .positional(.literal(.string("Smartphone/Tablet"))))
        #expect(RequestPrinter.canonicalURL(q3, version: .v4) == "Categories('Smartphone%2FTablet')")
    }

    @Test func invalidSpecExamples() throws {
        // OData V4.01 Part 2, section 2.2: invalid URLs.
        #expect(throws: URLParseError.self) { try parse("http://host/service/People('O'Neil')", .v4, root: "http://host/service/") }
        #expect(throws: URLParseError.self) { try parse("http://host/service/People('O%27Neil')", .v4, root: "http://host/service/") }
        #expect(throws: URLParseError.self) { try parse("http://host/service/Categories('Smartphone/Tablet')", .v4, root: "http://host/service/") }
    }

    func failure(_ url: String, _ v: ODataVersion?) -> URLParseError? {
        do {
            _ = try ResourceRequestParser(version: v).parse(url)
            return nil
        } catch {
            return error
        }
    }

    @Test func errorPositions() {
        let e1 = failure("Products?$filter=(Price gt 5", .v4)
        #expect(e1?.position == 28)
        #expect(e1?.message.hasPrefix("expected ')'") == true)
        #expect(failure("Products?$filter=Name%20eq%20'x%2", .v4)?.position == 31)
        // Positions map through percent-decoding back onto the raw URL.
        #expect(failure("Products?%24filter=Name%20eq%20%27x%27%20and%20(", .v4)?.position == 48)
        #expect(failure("Products?$filter=Name eq 'x' and", .v4)?.position == 32)
        #expect(failure("Products?$top=-1", .v4)?.position == 14)
        // 1*DIGIT has no bound: counts beyond Int.max are Int.max (as many as there are), at
        // the top level, in nested options and in $apply (a hostile $skip=10^30 must not trap).
        #expect((try? ResourceRequestParser(version: .v4).parse("Products?$skip=9223372036854775807").options.skip) == Int.max)
        #expect((try? ResourceRequestParser(version: .v4).parse("Products?$top=100000000000000000000000000000").options.top) == Int.max)
        #expect((try? ResourceRequestParser(version: .v4).parse("Products?$top=9223372036854775806").options.top) == Int.max - 1)
        #expect(failure("Products?$top=1e3", .v4) != nil && failure("Products?$skip=", .v4) != nil && failure("Products?$top=+1", .v4) != nil)
        let nested = try? ResourceRequestParser(version: .v4).parse("Categories?$expand=Products($top=99999999999999999999999;$skip=9223372036854775808)")
        #expect(nested?.options.expand?.first?.options.top == Int.max && nested?.options.expand?.first?.options.skip == Int.max, "\(String(describing: nested))")
        #expect((try? ResourceRequestParser(version: .v4).parse("Products?$top=999999999999999999").options.top) == 999_999_999_999_999_999)
        #expect(failure("Produ%ZZcts", .v4)?.position == 5)
    }

    @Test func percentDecoding() throws {
        let r = try parse("Products?$filter=Name%20eq%20%27Stra%C3%9Fe%27&%24top=2", .v4)
        #expect(r.options.top == 2)
        guard case .binary(.eq, _, let rhs)? = r.options.filter?.kind else { Issue.record("no eq"); return }
        #expect(rhs.kind == .literal(.string("Straße")))
        #expect(RequestPrinter.canonicalURL(r, version: .v4) == "Products?$filter=Name%20eq%20'Stra%C3%9Fe'&$top=2")
        // '+' is a literal plus: here part of a date-time offset.
        let p = try parse("Orders?$filter=Date gt 2012-12-03T07:16:23+01:00", .v4)
        guard case .binary(.gt, _, let d)? = p.options.filter?.kind else { Issue.record("no gt"); return }
        #expect(d.kind == .literal(.dateTimeOffset("2012-12-03T07:16:23+01:00")))
        #expect(throws: URLParseError.self) { try parse("Products?$filter=Name+eq+'x'", .v4) }
        let form = try ResourceRequestParser(version: .v4, plusAsSpace: true).parse("Products?$filter=Name+eq+'x'")
        #expect(form.options.filter != nil)
        #expect(throws: URLParseError.self) { try parse("Products('%C3')", .v4) }
    }

    @Test func roundTrips() throws {
        try roundTrip("Customers?$expand=Orders&$deltatoken=8015", .v4)
        try roundTrip("Customers?$skiptoken=5", .v4)
        try roundTrip("ESTwoKeyNav(PropertyInt16=1,PropertyString='1')", .v4)
        try roundTrip("Accounts(101)/MyPaymentInstruments(101902)/Microsoft.Test.OData.Services.ODataWCFService.CreditCardPI", .v4)
        try roundTrip("CarrierCollection('AA')/$links/carrierFlights", .v2)
        try roundTrip("Employees?$filter=substringof('Walter',EmployeeName)&$inlinecount=allpages&$top=10", .v2)
        try roundTrip("Categories?$expand=Products($filter=DiscontinuedDate eq null;$select=Name,Price;$expand=Supplier($levels=max);$top=3;$count=true)", .v4)
        try roundTrip("ProductsByColor(color=@color)?@color='red'", .v4)
        try roundTrip("People?$filter=Emails/any(e:endswith(e,'example.com')) and Gender eq Microsoft.OData.SampleService.Models.TripPin.PersonGender'Female'", .v4)
        try roundTrip("Products?$orderby=Name desc,Price&$select=*,Ns.*&$search=blue OR green", .v4)
    }
}
