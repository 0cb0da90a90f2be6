import Foundation
import Testing
@testable import ODataProtocol

/// The constructs of the OData 4.01 URL grammar one by one (section numbers: OData 4.01
/// Part 2, URL Conventions), with the tree they parse to, what the schema check makes of it,
/// the canonical URL, and the errors (position and expectation) for invalid forms.
@Suite struct URLGrammarTests {
    static let model: ServiceModel = (try? ConformanceCaseTests.model(.v4)) ?? ServiceModel(version: .v4)

    func parse(_ url: String, _ v: ODataVersion? = .v4) throws(URLParseError) -> ResourceRequest {
        try ResourceRequestParser(version: v).parse(url)
    }

    func check(_ url: String) throws(URLParseError) -> ResourceRequest {
        try ResourceRequestParser(version: .v4).parse(url, checkingAgainst: Self.model)
    }

    func failure(_ url: String, _ v: ODataVersion? = .v4, model: Bool = false) -> URLParseError? {
        do {
            if model { _ = try check(url) } else { _ = try parse(url, v) }
            return nil
        } catch {
            return error
        }
    }

    func canonical(_ url: String) throws -> String { RequestPrinter.canonicalURL(try check(url), version: .v4) }

    // MARK: - Resource paths

    /// 4.3.6 Key-as-Segment: grammar-only a key segment keeps its text; the schema check folds
    /// it into the segment it keys (in key order for compound keys), typed by the key.
    @Test func keyAsSegment() throws {
        let r = try parse("Customers/1")
        #expect(r.segments.map(\.role) == [.unresolved, .key])
        #expect(r.segments[1].name == "1")
        #expect(RequestPrinter.canonicalURL(r, version: .v4) == "Customers/1")
        #expect(try canonical("Customers/1") == "Customers(1)")
        #expect(try canonical("People/O'Neil") == "People('O''Neil')")
        #expect(try canonical("People/O%27Neil") == "People('O''Neil')")
        #expect(try canonical("People/Smartphone%2FTablet") == "People('Smartphone%2FTablet')")
        #expect(try canonical("OrderItems/1/2") == "OrderItems(OrderID=1,ItemID=2)")
        #expect(try canonical("Orders/1/Items/1/2/Product") == "Orders(1)/Items(OrderID=1,ItemID=2)/Product")
        // An identifier after a collection of entities is a key when it is nothing else.
        let e = try check("Employees/A1245")
        #expect(e.segments.count == 1 && e.segments[0].arguments == .positional(.literal(.string("A1245"))))
        // 4.10: a number after an ordered collection of values is an index.
        let idx = try check("Suppliers(1)/Addresses/Model.AddressWithLocation/-1")
        #expect(idx.segments.map(\.role) == [.entitySet, .property, .typeCast, .index])
        #expect(failure("Customers/one", model: true)?.message == "'one' is not a value of key property ID (Edm.Int32)")
        #expect(failure("OrderItems/1/Product", model: true) != nil)
        // V2 has no key-as-segment.
        #expect(failure("Customers/1", .v2)?.message.hasPrefix("expected a path segment name") == true)
    }

    /// 4.5.2 functions: a key predicate after the parameters, aliases for parameters, and
    /// implicit aliases when the parentheses are left out.
    @Test func functionsInPaths() throws {
        let r = try parse("ProductsByCategoryId(categoryId=2)(3)/Supplier")
        #expect(r.segments[0].arguments == .named([NamedArgument(name: "categoryId", value: .literal(.integer("2")))]))
        #expect(r.segments[0].key == .positional(.literal(.integer("3"))))
        #expect(try canonical("ProductsByCategoryId(categoryId=2)(3)/Supplier") == "ProductsByCategoryId(categoryId=2)(3)/Supplier")
        #expect(try canonical("ProductsByCategoryId(categoryId=2)/3") == "ProductsByCategoryId(categoryId=2)(3)")
        let a = try check("ProductsByCategoryId(categoryId=@cat)?@cat=2")
        #expect(a.segments[0].role == .operationImport && a.options.aliases.first?.value.type == .primitive(.int32))
        _ = try check("ProductsByCategoryId?@categoryId=2")
        #expect(failure("ProductsByCategoryId", model: true)?.message == "missing parameter 'categoryId' of ProductsByCategoryId (give it as @categoryId=value)")
        #expect(failure("ProductsByCategoryId(categoryId=2)(3)(4)")?.message.hasPrefix("expected end of path segment") == true)
        // Bound functions with and without namespace, overloads told apart by binding.
        let b = try check("Categories(1)/ProductsByColor(color='red')/$count")
        #expect(b.segments.map(\.role) == [.entitySet, .boundOperation, .count])
        _ = try check("Products/Model.ProductsByColor(color='red')")
        _ = try check("Customers/MostPopularAddresses()/AddressWithLocation/$count")
        #expect(failure("Categories/TheBestProduct()", model: true) != nil)
        #expect(failure("Model.Rejection")?.message.hasPrefix("a resource path cannot start with a qualified name") == true)
        #expect(failure("LeaveRequests(4)/Model.Rejection()", model: true)?.message.hasPrefix("action 'Model.Rejection' takes its parameters in the request body") == true)
    }

    /// 4.4, 4.8, 4.12-4.17: where the `$` segments may stand, without a model.
    @Test func dollarSegments() throws {
        #expect(failure("Categories(1)/Products/$ref/$count") == URLParseError("nothing may follow $ref", at: 28))
        #expect(failure("Categories(1)/ID/$value/Name") == URLParseError("nothing may follow $value", at: 24))
        #expect(failure("$metadata/Products") == URLParseError("nothing may follow $metadata", at: 10))
        #expect(failure("Products/$all") == URLParseError("$all must be the first segment", at: 9))
        #expect(failure("Products/$each/$count") == URLParseError("only a bound action or function may follow $each", at: 15))
        let f = try parse("Products/$filter(Age gt 3)/$filter(@a)(1)?@a=Price lt 5")
        #expect(f.segments.map(\.role) == [.unresolved, .filter, .filter])
        #expect(f.segments[2].key == .positional(.literal(.integer("1"))))
        #expect(RequestPrinter.canonicalURL(f, version: .v4) == "Products/$filter(Age%20gt%203)/$filter(@a)(1)?@a=Price%20lt%205")
        let typed = try check("Products/$filter(Supplier/Name eq 'x')/$count")
        #expect(typed.segments[1].filter?.type == .primitive(.boolean))
        #expect(RequestPrinter.canonicalURL(typed, version: .v4) == "Products/$filter(Supplier%2FName%20eq%20'x')/$count")
        let cj = try parse("$crossjoin(Products,Categories)?$filter=Products/Category/ID eq Categories/ID")
        #expect(cj.segments[0].role == .crossjoin && cj.segments[0].crossjoin == ["Products", "Categories"])
        #expect(failure("$entity?$format=json") == URLParseError("$entity needs $id (the entity's id)", at: 20))
        #expect(failure("$entity?$id=Products(1)&$select=Name") == URLParseError("$select with $entity needs a type cast ($entity/NS.Type)", at: 24))
        _ = try check("$entity/Model.Customer?$id=Customers(1)&$select=Name&$expand=Orders")
        #expect(failure("Products(1)/", .v4) == URLParseError("a resource path does not end in '/'", at: 11))
        #expect(failure("Categories('Smartphone/Tablet')") == URLParseError("a '/' in a key or parameter value must be percent-encoded (%2F)", at: 22))
    }

    // MARK: - Expressions

    /// 5.1.1: operators need whitespace around them; V4 names compare without case and print
    /// in lower case.
    @Test func operatorsAndSpacing() throws {
        #expect(failure("Products?$filter=contains(Name,'x')and Price gt 1") == URLParseError("expected whitespace before 'and'", at: 35))
        #expect(failure("Products?$filter=Price gt 1and Price lt 5") == URLParseError("unexpected 'a' after number", at: 27))
        #expect(failure("Products?$filter=not(Price gt 1)") == URLParseError("expected whitespace after 'not'", at: 20))
        #expect(failure("Products?$filter= true") == URLParseError("unexpected whitespace at the start of $filter", at: 17))
        let r = try parse("Products?$FILTER=Name EQ 'Milk' AND MatchesPattern(Name,'^M')&$OrderBy=Name DESC")
        #expect(RequestPrinter.canonicalURL(r, version: .v4)
            == "Products?$filter=Name%20eq%20'Milk'%20and%20matchespattern(Name,'%5EM')&$orderby=Name%20desc")
        // V2 names are lower case only.
        #expect(failure("Products?$filter=Name EQ 'Milk'", .v2) != nil)
    }

    /// 5.1.1.14.2: JSON arrays and objects as values and function parameters; `in` with a
    /// literal list, a JSON array or a collection.
    @Test func jsonLiterals() throws {
        let f = try FilterParser.parse(#"Tags eq ["a\"b",1,Name] and Address eq {"City":"x","Zip":[]}"#, version: .v4)
        guard case .binary(.and, let l, let r) = f.kind, case .binary(.eq, _, let arr) = l.kind, case .binary(.eq, _, let obj) = r.kind else {
            Issue.record("shape"); return
        }
        #expect(arr.kind == .array([
            FilterExpression(.literal(.string("a\"b"))), FilterExpression(.literal(.integer("1"))),
            FilterExpression(.member(MemberPath(segments: [.property("Name")]))),
        ]))
        #expect(obj.kind == .object([
            ObjectMember(name: "City", value: FilterExpression(.literal(.string("x")))),
            ObjectMember(name: "Zip", value: FilterExpression(.array([]))),
        ]))
        #expect(FilterPrinter.print(f, version: .v4) == #"Tags eq ["a\"b",1,Name] and Address eq {"City":"x","Zip":[]}"#)
        #expect(FilterPrinter.print(try FilterParser.parse(#"Name in ["a",'b']"#, version: .v4), version: .v4) == "Name in ('a','b')")
        #expect(FilterPrinter.print(try FilterParser.parse("Name in (Tags)", version: .v4), version: .v4) == "Name in Tags")
        #expect(FilterPrinter.print(try FilterParser.parse("Price in [1,2 add 3]", version: .v4), version: .v4) == "Price in [1,2 add 3]")
        #expect(throws: URLParseError("a string in double quotes is only valid inside a JSON array or object; write 'single quotes' for a string literal", at: 8)) {
            try FilterParser.parse(#"Name eq "x""#, version: .v4)
        }
        #expect(throws: URLParseError("expected an expression, found ']'", at: 5)) { try FilterParser.parse("[1,2,]", version: .v4) }
        let typed = try check(#"Categories?$filter=Products/Model.ProductsByColors(colors=["red","green"])/$count gt 1 and hassubset(["a"],["a","b"])"#)
        #expect(typed.options.filter?.type == .primitive(.boolean))
    }

    /// 5.1.1.14.4-6: `$it` is the resource the path addresses, `$this` the instance an option
    /// is evaluated on (in a nested `$filter`, the expanded or selected item).
    @Test func itAndThis() throws {
        let r = try check("Customers?$expand=Orders($filter=$it/Name eq 'x' and $this/Amount gt 1)")
        guard case .binary(.and, let l, let rr)? = r.options.expand?.first?.options.filter?.kind,
              case .binary(.eq, let it, _) = l.kind, case .binary(.gt, let this, _) = rr.kind else {
            Issue.record("shape"); return
        }
        #expect(it.type == .primitive(.string) && this.type == .primitive(.decimal))
        #expect(failure("Customers?$expand=Orders($filter=$it/Amount gt 1)", model: true)?.message == "type Model.Customer has no property 'Amount'")
        let s = try check("Suppliers(1)/EmailAddresses?$filter=endswith($this,'.com')")
        #expect(s.options.filter?.type == .primitive(.boolean))
        let sel = try check("Customers?$select=Addresses(@a=$this;$filter=endswith(@a/Street,'gasse'))")
        #expect(sel.options.select?.first?.options.aliases.first?.value.type == .structured("Model.Address"))
        #expect(failure("Customers?$select=Name($filter=endswith($this,'.com'))", model: true)?.message == "options in $select need a collection-valued or complex property")
        let root = try check("Employees?$filter=City eq $root/TheMostPopularAddress()/City")
        guard case .binary(.eq, _, let rootPath)? = root.options.filter?.kind else { Issue.record("shape"); return }
        #expect(rootPath.type == .primitive(.string))
    }

    /// 5.1.1.15-16: bound functions in expressions (qualified or not, composed, with
    /// parameters of any kind), key predicates and filter segments in paths, annotations.
    @Test func pathExpressions() throws {
        let f = try FilterParser.parse("Products/Model.ProductsByColor(color=@c)/$filter(Price gt 1)(2)/Name eq 'x'", version: .v4)
        guard case .binary(.eq, let path, _) = f.kind, case .member(let m) = path.kind else { Issue.record("shape"); return }
        #expect(m.segments.count == 5)
        #expect(m.segments[1] == .function("Model.ProductsByColor", [FunctionArgument(name: "color", value: FilterExpression(.alias("c")))]))
        #expect(m.segments[3] == .key(.positional(.literal(.integer("2")))))
        // Unqualified names with literal arguments parse as keys; the schema check makes a
        // bound function of them.
        let k = try FilterParser.parse("Products/ProductsByColor(color='red')/$count gt 1", version: .v4)
        guard case .binary(.gt, let kp, _) = k.kind, case .member(let km) = kp.kind else { Issue.record("shape"); return }
        #expect(km.segments[1] == .keyed("ProductsByColor", .named([NamedArgument(name: "color", value: .literal(.string("red")))])))
        let checked = try check("Categories?$filter=Products/ProductsByColor(color='red')/$count gt 1")
        guard case .binary(.gt, let cp, _)? = checked.options.filter?.kind, case .member(let cm) = cp.kind else { Issue.record("shape"); return }
        #expect(cm.segments[1] == .function("ProductsByColor", [FunctionArgument(name: "color", value: FilterExpression(.literal(.string("red"))))]))
        // $count($filter=…) is a filter segment before $count.
        let c = try FilterParser.parse("Products/$count($filter=Price gt 5) gt 2", version: .v4)
        #expect(FilterPrinter.print(c, version: .v4) == "Products/$filter(Price gt 5)/$count gt 2")
        let a = try FilterParser.parse("Price/@Measures.Currency#Reporting eq 'EUR'", version: .v4)
        guard case .binary(.eq, let ap, _) = a.kind, case .member(let am) = ap.kind else { Issue.record("shape"); return }
        #expect(am.segments == [.property("Price"), .annotation("Measures.Currency#Reporting")])
        #expect(throws: URLParseError.self) { try FilterParser.parse("Model.Available", version: .v4) }
        #expect(throws: URLParseError("unknown function 'startwith'", at: 0)) { try FilterParser.parse("startwith(Name,'a')", version: .v4) }
        #expect(failure("Categories?$filter=Products/Model.Available()", model: true)?.message == "no function 'Model.Available' is bound to Collection(Model.Product)")
    }

    // MARK: - Query options

    /// 5.1.7: `$search` words, phrases, NOT/AND/OR with their precedence, and the words
    /// AND/OR/NOT where no operator can stand.
    @Test func search() throws {
        func s(_ text: String) throws -> SearchExpression? { try parse("Products?$search=" + text).options.search }
        #expect(try s("blue green OR NOT red") == .or([.and([.word("blue"), .word("green")]), .not(.word("red"))]))
        #expect(try s("NOT NOT") == .not(.word("NOT")))
        #expect(try s("AND OR NOT") == .or([.word("AND"), .word("NOT")]))
        #expect(try s("%22blue%20green%22") == .phrase("blue green"))
        #expect(try s("'\"blue'") == .incomplete("\"blue"))
        #expect(try s("a%3Bb") == .word("a;b"))
        #expect(failure("Products?$search=\"blue") == URLParseError("unbalanced '\"' in $search (a phrase needs its closing quote)", at: 17))
        #expect(failure("Products?$search=%22blue") == URLParseError("unbalanced '\"' in $search (a phrase needs its closing quote)", at: 17))
        #expect(failure("Products?$search=a;b") == URLParseError("';' is not allowed in a search word (write %3B)", at: 18))
        let r = try parse("Products?$search=(a OR b) c%3Bd&$expand=Sales($search=x%3By;$top=1)")
        let printed = RequestPrinter.canonicalURL(r, version: .v4)
        #expect(printed == "Products?$expand=Sales($top=1;$search=x%3By)&$search=(a%20OR%20b)%20AND%20c%3Bd")
        #expect(try parse(printed) == r)
        #expect(SearchPrinter.print(.and([.word("NOT"), .word("blue")])) == "(NOT) AND blue")
    }

    /// Data Aggregation `$apply`: the transformations clients send.
    @Test func apply() throws {
        let r = try check("Sales?$apply=filter(Amount gt 3)/groupby((Region,Product/Name),aggregate(Amount with sum as Total,$count as N))/orderby(Total desc)/top(3)&$filter=Total gt 10")
        guard let a = r.options.apply, a.count == 4, case .groupBy(let props, let nested?) = a[1], case .aggregate(let items) = nested[0] else {
            Issue.record("shape"); return
        }
        #expect(props.count == 2)
        #expect(items.map(\.alias) == ["Total", "N"] && items[0].method == "sum" && items[1].expression == nil)
        #expect(r.options.filter?.type == .primitive(.boolean))
        #expect(RequestPrinter.canonicalURL(r, version: .v4)
            == "Sales?$apply=filter(Amount%20gt%203)/groupby((Region,Product/Name),aggregate(Amount%20with%20sum%20as%20Total,$count%20as%20N))/orderby(Total%20desc)/top(3)&$filter=Total%20gt%2010")
        #expect(failure("Sales?$apply=aggregate(Amount with sum)") == URLParseError("expected 'as' and an alias, found ')'", at: 38))
        #expect(failure("Sales?$apply=groupby(Region)")?.message.hasPrefix("expected '(' and the grouping properties") == true)
        #expect(failure("Sales?$apply=aggregate(Amount as Total)", model: true)?.message.hasPrefix("'Amount' is not a custom aggregate") == true)
        _ = try check("Products?$compute=Price mul Rating as Score&$orderby=Score&$select=Score")
    }

    /// 5.1.2-5.1.3: `$expand` and `$select` items and nested options, 4.01 option names.
    @Test func selectAndExpand() throws {
        let r = try parse("Orders?expand=Items/$ref($filter=Quantity gt 1;top=2),Customer(levels=max)&select=@Core.Messages,Model.PhoneticallySimilar(Word1,Word2),Addresses($top=2)")
        #expect(r.options.expand?[0].isRef == true && r.options.expand?[0].options.top == 2)
        #expect(r.options.expand?[1].options.levels == .max)
        #expect(r.options.select?.map(\.path) == [["@Core.Messages"], ["Model.PhoneticallySimilar"], ["Addresses"]])
        #expect(r.options.select?[1].parameters == ["Word1", "Word2"])
        #expect(r.options.select?[2].options.top == 2)
        #expect(failure("Orders?$expand=Customer/$ref($select=Name)") == URLParseError("$select is not allowed after $ref in $expand", at: 29))
        #expect(failure("Orders?$expand=Items/$count($count=true)") == URLParseError("$count is not allowed after $count in $expand", at: 28))
        #expect(failure("Employees?$expand=Manager($levels=04)") == URLParseError("expected a positive integer without leading zeros, or max, for $levels, found literal (integer)", at: 34))
        #expect(failure("Products?$top=1&top=2") == URLParseError("duplicate query option $top", at: 16))
        #expect(failure("Products?$frobnicate=1") == URLParseError("unknown system query option '$frobnicate'", at: 9))
        // V2 keeps `$` names as written and unknown ones out.
        #expect(failure("Products?$search=x", .v2) == URLParseError("unknown system query option '$search'", at: 9))
        #expect(try parse("Products?top=1", .v2).options.customOptions == [CustomOption(name: "top", value: "1")])
    }

    /// Literals the V4 grammar adds: geo, signed numbers, `case`.
    @Test func literals() throws {
        let g = try FilterParser.parse("geo.distance(Location,geography'SRID=4326;Point(1 2)') lt 5", version: .v4)
        guard case .binary(.lt, let call, _) = g.kind, case .call(_, let args) = call.kind else { Issue.record("shape"); return }
        #expect(args[1].kind == .literal(.geography("SRID=4326;Point(1 2)")))
        #expect(throws: URLParseError.self) { try FilterParser.parse("Location eq geography'Point(1 2)'", version: .v4) }
        #expect(throws: URLParseError.self) { try FilterParser.parse("Location eq geometry'SRID=0;LineString(1 2)'", version: .v4) }
        #expect(try FilterParser.parse("Price gt +2.5", version: .v4).kind
            == .binary(.gt, FilterExpression(.member(MemberPath(segments: [.property("Price")]))), FilterExpression(.literal(.fractional("2.5")))))
        let c = try FilterParser.parse("case(Price gt 10:'high',true:'low') eq 'high'", version: .v4)
        #expect(FilterPrinter.print(c, version: .v4) == "case(Price gt 10:'high',true:'low') eq 'high'")
    }

    /// Every new construct survives the canonical printer with the model, too.
    @Test func checkedRoundTrips() throws {
        for url in [
            "Customers/1/Orders?$filter=Items/any(i:i/Quantity gt 1)",
            "Products?$filter=Model.PhoneticallySimilar(Word1=Name,Word2=Supplier/Name) and Tags/$count gt 0",
            "Categories?$expand=Products($compute=Price mul 2 as Double;$select=Double;$search=blue)",
            "Sales?$apply=concat(groupby((Region)),aggregate($count as N))",
            "Products?$select=Tags($top=2;$orderby=$this desc)&$search=\"a b\" OR c",
        ] {
            let r = try check(url)
            let printed = RequestPrinter.canonicalURL(r, version: .v4)
            #expect(try check(printed) == r, "\(url) -> \(printed)")
        }
    }
}
