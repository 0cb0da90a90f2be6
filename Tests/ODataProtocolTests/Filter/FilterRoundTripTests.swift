import Testing
@testable import ODataProtocol

/// Property-based round trip: thousands of random well-typed trees (seeded, so every run sees
/// the same cases) are type-checked, printed, parsed again and compared — as bare `$filter`
/// text and inside a whole percent-encoded request URL.
@Suite struct FilterRoundTripTests {
    static let cases = 3000

    func run(_ version: ODataVersion, seed: UInt64) throws {
        let model = RandomTreeModel.model(version)
        let checker = FilterTypeChecker(model: model)
        var gen = RandomTrees(seed: seed, version: version)
        for i in 0..<Self.cases {
            let tree = gen.boolean(gen.rng.int(0...5))
            let typed: FilterExpression
            do {
                typed = try checker.checkPredicate(tree, context: "Test.Item")
            } catch {
                Issue.record("case \(i): generated tree does not type-check: \(error): \(FilterPrinter.print(tree, version: version))")
                return
            }
            let text = FilterPrinter.print(tree, version: version)
            let parsed: FilterExpression
            do {
                parsed = try FilterParser.parse(text, version: version)
            } catch {
                Issue.record("case \(i): \(text): \(error)")
                return
            }
            #expect(parsed == tree, "case \(i): \(text)")
            // The reparsed tree types the same way.
            #expect(try checker.checkPredicate(parsed, context: "Test.Item").type == typed.type)
            // And through a whole URL, percent-encoded.
            var request = ResourceRequest(segments: [PathSegment(name: "Items")])
            request.options.filter = tree
            request.options.orderBy = [OrderByItem(expression: gen.number(2), descending: gen.rng.chance(0.5))]
            let url = RequestPrinter.canonicalURL(request, version: version)
            let back = try ResourceRequestParser(version: version).parse(url, checkingAgainst: model)
            #expect(back.options.filter == tree, "case \(i): \(url)")
            #expect(back.options.orderBy == request.options.orderBy, "case \(i): \(url)")
            if parsed != tree || back.options.filter != tree { return }
        }
    }

    @Test func v4RoundTrip() throws { try run(.v4, seed: 0x0DA7A_4) }
    @Test func v2RoundTrip() throws { try run(.v2, seed: 0x0DA7A_2) }
}
