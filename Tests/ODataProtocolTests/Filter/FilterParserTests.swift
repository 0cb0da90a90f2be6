import Testing
@testable import ODataProtocol

func prop(_ names: String...) -> FilterExpression {
    FilterExpression(.member(MemberPath(segments: names.map { .property($0) })))
}
func lit(_ l: Literal) -> FilterExpression { FilterExpression(.literal(l)) }
func bin(_ op: BinaryOperator, _ a: FilterExpression, _ b: FilterExpression) -> FilterExpression {
    FilterExpression(.binary(op, a, b))
}
func int(_ s: String) -> FilterExpression { lit(.integer(s)) }

@Suite struct FilterParserTests {
    func p(_ s: String, _ v: ODataVersion? = nil) throws -> FilterExpression { try FilterParser.parse(s, version: v) }

    func failure(_ s: String, _ v: ODataVersion?) -> URLParseError? {
        do { _ = try FilterParser.parse(s, version: v); return nil } catch { return error }
    }

    @Test func precedenceAndAssociativity() throws {
        // and binds tighter than or.
        #expect(try p("a eq 1 or b eq 2 and c eq 3") ==
                bin(.or, bin(.eq, prop("a"), int("1")), bin(.and, bin(.eq, prop("b"), int("2")), bin(.eq, prop("c"), int("3")))))
        // Multiplicative over additive over relational over equality.
        #expect(try p("a add b mul c gt d eq true") ==
                bin(.eq, bin(.gt, bin(.add, prop("a"), bin(.mul, prop("b"), prop("c"))), prop("d")), lit(.boolean(true))))
        // Left associativity.
        #expect(try p("a sub b sub c") == bin(.sub, bin(.sub, prop("a"), prop("b")), prop("c")))
        #expect(try p("a div b mul c mod d") == bin(.mod, bin(.mul, bin(.div, prop("a"), prop("b")), prop("c")), prop("d")))
        #expect(try p("a or b or c") == bin(.or, bin(.or, prop("a"), prop("b")), prop("c")))
        // Unary binds tighter than every binary operator except has/in (primary).
        #expect(try p("not a eq b") == bin(.eq, FilterExpression(.unary(.not, prop("a"))), prop("b")))
        #expect(try p("-a mul b") == bin(.mul, FilterExpression(.unary(.negate, prop("a"))), prop("b")))
        #expect(try p("-a in (1,2)", .v4) == FilterExpression(.unary(.negate, FilterExpression(.inList(prop("a"), [int("1"), int("2")])))))
        #expect(try p("not Style has NS.Color'Red'", .v4) ==
                FilterExpression(.unary(.not, bin(.has, prop("Style"), lit(.enumMember(type: "NS.Color", value: "Red"))))))
        // Grouping leaves no node.
        #expect(try p("(a eq 1)") == p("a eq 1"))
        #expect(try p("((a add b)) mul c") == bin(.mul, bin(.add, prop("a"), prop("b")), prop("c")))
        // Negative numbers are literals; '-' with a space is negation.
        #expect(try p("a gt -5") == bin(.gt, prop("a"), int("-5")))
        #expect(try p("a gt - 5") == bin(.gt, prop("a"), FilterExpression(.unary(.negate, int("5")))))
    }

    @Test func v2Literals() throws {
        func one(_ s: String) throws -> Literal? {
            if case .literal(let l) = try p(s, .v2).kind { return l }
            return nil
        }
        #expect(try one("12L") == .int64("12"))
        #expect(try one("1.5M") == .decimal("1.5"))
        #expect(try one("1.5m") == .decimal("1.5"))
        #expect(try one("2.0d") == .double("2.0"))
        #expect(try one("1E+10D") == .double("1E+10"))
        #expect(try one("1f") == .single("1"))
        #expect(try one("X'0A1B'") == .binary([0x0A, 0x1B]))
        #expect(try one("binary'0a1b'") == .binary([0x0A, 0x1B]))
        #expect(try one("datetime'2013-09-16T00:00'") == .dateTime("2013-09-16T00:00"))
        #expect(try one("datetimeoffset'2002-10-10T17:00:00Z'") == .dateTimeOffset("2002-10-10T17:00:00Z"))
        #expect(try one("time'PT13H20M'") == .time("PT13H20M"))
        #expect(try one("guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff'") == .guid("12345678-aaaa-bbbb-cccc-ddddeeeeffff"))
        #expect(try one("'O''Neil'") == .string("O'Neil"))
        #expect(try one("null") == .null)
        #expect(try one("-7") == .integer("-7"))
        #expect(try one("3.25") == .fractional("3.25"))
        // V4-only spellings are errors in V2 mode.
        #expect(failure("2024-01-02", .v2) != nil)
        #expect(failure("Name eq 12345678-aaaa-bbbb-cccc-ddddeeeeffff", .v2) != nil)
        #expect(failure("duration'P1D'", .v2)?.message == "unknown literal prefix 'duration'")
        #expect(failure("datetime'2013-13-01T00:00'", .v2)?.message.hasPrefix("invalid datetime literal") == true)
    }

    @Test func v4Literals() throws {
        func one(_ s: String) throws -> Literal? {
            if case .literal(let l) = try p(s, .v4).kind { return l }
            return nil
        }
        #expect(try one("2024-01-02") == .date("2024-01-02"))
        #expect(try one("13:20:00") == .timeOfDay("13:20:00"))
        #expect(try one("13:20:00.125") == .timeOfDay("13:20:00.125"))
        #expect(try one("2012-12-03T07:16:23Z") == .dateTimeOffset("2012-12-03T07:16:23Z"))
        #expect(try one("2012-12-03T07:16:23.5-08:00") == .dateTimeOffset("2012-12-03T07:16:23.5-08:00"))
        #expect(try one("duration'P1DT2H'") == .duration("P1DT2H"))
        #expect(try one("binary'AQID'") == .binary([1, 2, 3]))
        #expect(try one("f89dee73-af9f-4cd4-b330-db93c25ff3c7") == .guid("f89dee73-af9f-4cd4-b330-db93c25ff3c7"))
        #expect(try one("NaN") == .double("NaN"))
        #expect(try one("-INF") == .double("-INF"))
        #expect(try one("Microsoft.OData.SampleService.Models.TripPin.PersonGender'Female'") ==
                .enumMember(type: "Microsoft.OData.SampleService.Models.TripPin.PersonGender", value: "Female"))
        #expect(failure("12L", .v4)?.message == "unexpected 'L' after number")
        #expect(failure("guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff'", .v4)?.message == "unknown literal prefix 'guid'")
    }

    @Test func functionsByVersion() throws {
        #expect(try p("substringof('Walter',EmployeeName)", .v2).kind == .call("substringof", [lit(.string("Walter")), prop("EmployeeName")]))
        #expect(failure("substringof('Walter',EmployeeName)", .v4)?.message == "unknown function 'substringof'")
        #expect(failure("contains(Name,'x')", .v2)?.message == "unknown function 'contains'")
        #expect(try p("contains(Name,'x') and year(BirthDate) eq 1970 and date(Created) eq 2024-01-02 and Created lt now()", .v4).height > 1)
        #expect(try p("fractionalseconds(T) gt 0 and totaloffsetminutes(D) eq 60 and D lt maxdatetime()", .v4).height > 1)
        #expect(try p("round(Freight) eq 32 and floor(Freight) eq 32 and ceiling(Freight) eq 33", .v2).height > 1)
        #expect(try p("substring(CompanyName,1,2) eq 'lf' and replace(Name,' ','') eq 'x' and trim(Name) eq concat('a','b')", .v2).height > 1)
        #expect(failure("length()", .v4)?.message == "length expects 1 argument, found 0")
        #expect(failure("substring(Name)", .v4)?.message == "substring expects 2 to 3 arguments, found 1")
        #expect(try p("isof('NS.Derived')", .v2).kind == .typeFunction(.isof, nil, "NS.Derived"))
        #expect(try p("cast(Price,'Edm.Int32') gt 5", .v2) ==
                bin(.gt, FilterExpression(.typeFunction(.cast, prop("Price"), "Edm.Int32")), int("5")))
        #expect(try p("isof(Person,NS.Employee)", .v4).kind == .typeFunction(.isof, prop("Person"), "NS.Employee"))
    }

    @Test func lambdasPathsAliases() throws {
        let e = try p("Items/any(d:d/Price gt 5 and d/Tags/all(t:t ne 'x'))", .v4)
        guard case .member(let m) = e.kind, let lambda = m.lambda else { Issue.record("no lambda"); return }
        #expect(m.segments == [.property("Items")])
        #expect(lambda.kind == .any && lambda.variable == "d")
        guard case .binary(.and, let left, let right)? = lambda.predicate?.kind else { Issue.record("no and"); return }
        #expect(left == bin(.gt, FilterExpression(.member(MemberPath(root: .rangeVariable("d"), segments: [.property("Price")]))), int("5")))
        guard case .member(let inner) = right.kind else { Issue.record("no inner"); return }
        #expect(inner.root == .rangeVariable("d"))
        #expect(inner.lambda?.predicate == bin(.ne, FilterExpression(.member(MemberPath(root: .rangeVariable("t"), segments: []))), lit(.string("x"))))
        // Outside the lambda `d` is a plain property again.
        #expect(try p("Items/any(d:d eq 1) and d eq 2", .v4).kind == .binary(.and,
            FilterExpression(.member(MemberPath(segments: [.property("Items")], lambda: Lambda(kind: .any, variable: "d",
                predicate: bin(.eq, FilterExpression(.member(MemberPath(root: .rangeVariable("d"), segments: []))), int("1")))))),
            bin(.eq, prop("d"), int("2"))))
        #expect(try p("Items/any()", .v4).kind == .member(MemberPath(segments: [.property("Items")], lambda: Lambda(kind: .any, variable: nil, predicate: nil))))
        #expect(try p("Items/$count gt 2", .v4) == bin(.gt, FilterExpression(.member(MemberPath(segments: [.property("Items"), .count]))), int("2")))
        #expect(try p("$it/Address/City eq @city", .v4) ==
                bin(.eq, FilterExpression(.member(MemberPath(root: .it, segments: [.property("Address"), .property("City")]))), FilterExpression(.alias("city"))))
        #expect(try p("NS.Employee/Salary gt 5", .v4) ==
                bin(.gt, FilterExpression(.member(MemberPath(segments: [.typeCast("NS.Employee"), .property("Salary")]))), int("5")))
        let root = try p("$root/People('russellwhyte')/FirstName eq FirstName", .v4)
        guard case .binary(.eq, let r, _) = root.kind, case .member(let rm) = r.kind else { Issue.record("no $root"); return }
        #expect(rm.root == .root)
        #expect(rm.segments == [.keyed("People", .positional(.literal(.string("russellwhyte")))), .property("FirstName")])
        #expect(failure("Items/all()", .v4) != nil)
        #expect(failure("Items/any(d:d/Price gt 5)", .v2) != nil)
    }

    @Test func errorsNamePositionAndExpectation() {
        #expect(failure("(Price gt 5", .v4) == URLParseError("expected ')', found end of input", at: 11))
        #expect(failure("Price gt", .v4) == URLParseError("expected an expression, found end of input", at: 8))
        #expect(failure("startswith(Name,'A'", .v4) == URLParseError("expected ')', found end of input", at: 19))
        #expect(failure("Name eq 'abc", .v4) == URLParseError(#"unterminated string literal (expected closing "'")"#, at: 8))
        #expect(failure("Name eq 'x' foo", .v4) == URLParseError("expected end of expression, found 'foo'", at: 12))
        #expect(failure("Name eq #", .v4) == URLParseError("unexpected character '#'", at: 8))
        // `in` takes a list or any collection-valued expression (4.01 ABNF inExpr); a list in
        // parentheses holds primitive literals only.
        #expect(failure("Price in", .v4) == URLParseError("expected an expression, found end of input", at: 8))
        #expect(failure("Price in (1,Price)", .v4) == URLParseError("expected a primitive literal in the list after 'in' (a JSON array [...] takes expressions)", at: 12))
        #expect(failure("Price in(1)", .v4) == URLParseError("expected whitespace after 'in'", at: 8))
        // Positions count characters, not UTF-8 bytes.
        #expect(failure("Name eq 'Straße' and (", .v4)?.position == 22)
    }

    @Test func orderBy() throws {
        let items = try FilterParser.parseOrderBy("Name desc,Price,year(Date) asc", version: .v4)
        #expect(items == [
            OrderByItem(expression: prop("Name"), descending: true),
            OrderByItem(expression: prop("Price")),
            OrderByItem(expression: FilterExpression(.call("year", [prop("Date")]))),
        ])
    }

    @Test func nestingLimits() throws {
        let deep = String(repeating: "(", count: 10_000) + "a eq 1" + String(repeating: ")", count: 10_000)
        #expect(failure(deep, .v4)?.message == "expression nested too deeply (limit 100)")
        let nots = String(repeating: "not ", count: 10_000) + "a"
        #expect(failure(nots, .v4)?.message == "expression nested too deeply (limit 100)")
        let minus = String(repeating: "-", count: 10_000) + "a"
        #expect(failure(minus, .v4)?.message == "expression nested too deeply (limit 100)")
        let calls = String(repeating: "tolower(", count: 5_000) + "a" + String(repeating: ")", count: 5_000)
        #expect(failure(calls, .v4)?.message == "expression nested too deeply (limit 100)")
        let lambdas = (0..<500).map { "x\($0)/any(v\($0):v\($0)/" }.joined() + "p eq 1" + String(repeating: ")", count: 500)
        #expect(failure(lambdas, .v4)?.message == "expression nested too deeply (limit 100)")
        // Long flat chains are fine up to the tree-height limit.
        let chain = (0..<900).map { "Id eq \($0)" }.joined(separator: " or ")
        let e = try p(chain, .v4)
        #expect(e.height == 901)
        #expect(try p(FilterPrinter.print(e, version: .v4), .v4) == e)
        let tooLong = (0..<2000).map { "Id eq \($0)" }.joined(separator: " or ")
        #expect(failure(tooLong, .v4)?.message.hasPrefix("expression nested too deeply (tree height limit") == true)
        let wide = "Id in (" + (0..<5000).map(String.init).joined(separator: ",") + ")"
        #expect(try p(wide, .v4).height == 2)
    }

    @Test func printerSpellings() throws {
        let e = try p("Id eq guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff' and B eq X'0a1b' and C eq 12L and D eq datetimeoffset'2002-10-10T17:00:00Z'", .v2)
        #expect(FilterPrinter.print(e, version: .v2) ==
                "Id eq guid'12345678-aaaa-bbbb-cccc-ddddeeeeffff' and B eq binary'0A1B' and C eq 12L and D eq datetimeoffset'2002-10-10T17:00:00Z'")
        #expect(FilterPrinter.print(e, version: .v4) ==
                "Id eq 12345678-aaaa-bbbb-cccc-ddddeeeeffff and B eq binary'Chs' and C eq 12 and D eq 2002-10-10T17:00:00Z")
        #expect(FilterPrinter.print(try p("-(5)", .v4), version: .v4) == "-(5)")
        #expect(FilterPrinter.print(try p("(a or b) and not (c eq d)", .v4), version: .v4) == "(a or b) and not (c eq d)")
        #expect(FilterPrinter.print(try p("a sub (b sub c)", .v4), version: .v4) == "a sub (b sub c)")
    }
}
