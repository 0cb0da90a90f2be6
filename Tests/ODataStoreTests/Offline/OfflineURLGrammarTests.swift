import Testing
@testable import ODataProtocol
@testable import ODataStore

/// The OData 4.01 URL constructs the parser added (issue 11) against the offline store: the
/// ones it evaluates give the same answer as their older spellings, the others are refused
/// with `.unsupported` (a valid request the store cannot answer), never ignored.
@Suite("Offline: the 4.01 URL constructs are evaluated or refused, never answered wrongly")
struct OfflineURLGrammarTests {
    @Test func evaluatedSpellings() throws {
        let h = try FilterSQLTests.products()
        #expect(try h.keys("Products?$filter=$this/Name eq 'Apple'") == h.keys("Products?$filter=Name eq 'Apple'"))
        #expect(try h.keys("Products?$filter=Name EQ 'Apple' OR Rating Eq 3") == h.keys("Products?$filter=Name eq 'Apple' or Rating eq 3"))
        #expect(try h.keys("Products?$filter=ID in [1, 3]") == h.keys("Products?$filter=ID in (1,3)"))
        #expect(try h.keys("Products?filter=ID gt %2B2&OrderBy=ID DESC") == h.keys("Products?$filter=ID gt 2&$orderby=ID desc"))
    }

    /// Key-as-segment folds into parentheses in the schema check, so the store resolves it
    /// exactly as the parenthesized key.
    @Test func keyAsSegmentResolvesLikeParentheses() throws {
        let model = try OfflineFixtures.v4()
        let schema = StoreSchema(model: model)
        func resolve(_ url: String) throws -> ResolvedPath {
            try ResolvedPath.resolve(try ResourceRequestParser(version: .v4).parse(url, checkingAgainst: model), schema: schema)
        }
        for (segments, parentheses) in [("Products/1", "Products(1)"), ("OrderLines/1/2", "OrderLines(OrderID=1,LineNo=2)"),
                                        ("Categories/1/Products", "Categories(1)/Products"), ("Customers/ALFKI", "Customers('ALFKI')"),
                                        ("Categories/1/Products/7/Name", "Categories(1)/Products(7)/Name")] {
            let a = try resolve(segments), b = try resolve(parentheses)
            #expect(a.result == b.result, "\(segments)")
            #expect(a.steps.map(\.key) == b.steps.map(\.key), "\(segments)")
        }
    }

    @Test func refusedAsUnsupported() throws {
        let model = try OfflineFixtures.v4()
        let schema = StoreSchema(model: model)
        for url in [
            "Products?$apply=aggregate(Price with sum as Total)",
            "Products?$compute=Price mul 2 as Double",
            "Categories?$expand=Products($filter=$it/Name eq 'x')",
            "Categories?$expand=Products(@p=1;$filter=Stock gt @p)",
            "Products/$filter(Price gt 1)",
            "Categories(1)/Products/$filter(Price gt 1)/$count",
            "Products/$each",
        ] {
            let request = try ResourceRequestParser(version: .v4).parse(url, checkingAgainst: model)
            do {
                _ = try ResolvedPath.resolve(request, schema: schema)
                Issue.record("\(url) resolved")
            } catch {
                #expect(error.code == .unsupported, "\(url): \(error)")
                #expect(error.message.contains("cannot be evaluated offline") || error.message.contains("not available offline"), "\(url): \(error.message)")
            }
        }
        let h = try FilterSQLTests.products()
        for (url, construct) in [
            (#"Products?$filter=Category eq {"ID":1}"#, "a JSON object"),
            ("Products?$filter=case(Price gt 1:1,true:0) eq 1", "the function case"),
            ("Categories?$filter=Products/$filter(Price gt 1)/$count gt 0", "a $filter(…) path segment"),
            ("Categories?$filter=Products(1)/Name eq 'x'", "a key predicate in a path"),
            ("Products?$filter=Name/@Core.Description eq 'x'", "the annotation @Core.Description"),
            ("Products?$filter=geo.distance(geography'SRID=0;Point(1 2)',geography'SRID=0;Point(1 2)') lt 1", "geo.distance"),
        ] {
            let e = h.translationError(url)
            #expect(e?.code == .unsupported, "\(url): \(e?.message ?? "translated")")
            #expect(e?.message.contains(construct) == true, "\(url): \(e?.message ?? "-")")
        }
    }
}
