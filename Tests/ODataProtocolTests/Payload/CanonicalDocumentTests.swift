import Testing
@testable import ODataProtocol

/// `CanonicalDocument`: the typed reading of the canonical shape that the C views (and the
/// Swift API) share: entities of a result, members and elements, and the getters' rules.
@Suite struct CanonicalDocumentTests {
    @Test func entitiesOfACollectionAndOfASingleEntity() throws {
        let feed = try PayloadDecoder.decode(Array(CapturedServerBodies.v4Products.utf8), contentType: "application/json",
                                             version: .v4, model: MetadataParser.parse(CapturedServerBodies.v4Metadata),
                                             entitySet: "Products")
        let doc = CanonicalDocument(feed.json)
        let entities = doc.entityRanges(known: feed.entityRanges)
        #expect(entities.count == feed.entityCount)
        for e in entities { #expect(doc.kind(of: e) == .object) }
        // Ranges that do not point at objects are not trusted.
        #expect(doc.entityRanges(known: [0..<3]) == entities)
    }

    @Test func membersElementsAndScalars() {
        let doc = CanonicalDocument(#"{"a":{"b":[1,"2",null,true,"x\"y",1.5,"INF","9007199254740993"]},"c\u0020d":-0,"e":1e400}"#)
        guard let root = doc.root, let a = doc.member("a", of: root), let b = doc.member("b", of: a) else {
            Issue.record("navigation failed")
            return
        }
        #expect(doc.members(of: root).map(\.name) == ["a", "c d", "e"])
        #expect(doc.member("c d", of: root).map { doc.text($0) } == "-0")
        let items = doc.elements(of: b)
        #expect(items.count == 8)
        #expect(doc.int64(items[0]) == .success(1))
        #expect(doc.int64(items[1]) == .success(2))                        // Int64 arrive as strings
        #expect(doc.int64(items[2]) == .failure(.null))
        #expect(doc.int64(items[3]) == .failure(.type))
        #expect(doc.scalarText(items[4]) == "x\"y")
        #expect(doc.int64(items[5]) == .failure(.type))                    // no rounding
        #expect(doc.double(items[5]) == .success(1.5))
        #expect(doc.double(items[6]) == .success(.infinity))
        #expect(doc.int64(items[7]) == .success(9_007_199_254_740_993))   // exact
        #expect(doc.bool(items[3]) == true)
        #expect(doc.double(doc.member("e", of: root)!) == .failure(.type)) // overflows a double
        #expect(doc.elements(of: root).isEmpty && doc.members(of: b).isEmpty)
        #expect(CanonicalDocument("").root == nil)
    }
}
