import Foundation
import Testing
@testable import ODataProtocol

/// Rebuilds a tree from events, to compare streaming with `XMLDocument.parse`.
private func tree(from events: [XMLEvent]) -> XMLElement? {
    var stack: [XMLElement] = []
    var root: XMLElement?
    for e in events {
        switch e {
        case .start(let t):
            stack.append(XMLElement(name: t.name, namespace: t.namespace, attributes: t.attributes,
                                    line: t.line, column: t.column))
        case .text(let s):
            if !stack.isEmpty { stack[stack.count - 1].text += s }
        case .end:
            guard let done = stack.popLast() else { return nil }
            if stack.isEmpty { root = done } else { stack[stack.count - 1].children.append(done) }
        }
    }
    return root
}

@Suite("XML layer: streaming")
struct XMLStreamingTests {
    @Test(arguments: [MetadataFixture.tripPinOlingo, .rmtSampleFlight, .northwindBareSchema])
    func pullReaderMatchesTree(_ fixture: MetadataFixture) throws {
        let bytes = try fixture.bytes()
        let expected = try XMLDocument.parse(bytes).root
        for chunk in [64, 1000, 1 << 20] {
            let reader = try XMLPullReader(bytes: bytes, chunkSize: chunk)
            var events: [XMLEvent] = []
            while let e = try reader.next() { events.append(e) }
            #expect(reader.currentDepth == 0)
            // Text arrives as one event per run: never two texts in a row.
            for (a, b) in zip(events, events.dropFirst()) {
                if case .text = a, case .text = b { Issue.record("adjacent text events") }
            }
            #expect(tree(from: events) == expected)
        }
    }

    @Test func readElementAndSkip() throws {
        let bytes = try MetadataFixture.tripPinOASIS.bytes()
        let doc = try XMLDocument.parse(bytes)
        let edm = "http://docs.oasis-open.org/odata/ns/edm"
        let schema = try #require(doc.root.children.last?.children.first)
        let expectedTypes = schema.children("EntityType", namespace: edm)
        let reader = try XMLPullReader(bytes: bytes, chunkSize: 128)
        var entityTypes: [XMLElement] = []
        var skipped = 0
        while let e = try reader.next() {
            guard case .start(let tag) = e else { continue }
            if tag.isNamed("EntityType", namespace: edm) {
                entityTypes.append(try reader.readElement(tag))
            } else if tag.isNamed("ComplexType", namespace: edm) {
                try reader.skipElement()
                skipped += 1
            }
        }
        #expect(entityTypes == expectedTypes)
        #expect(skipped == schema.children("ComplexType", namespace: edm).count)
    }

    @Test func pushParserAcceptsAnySplit() throws {
        // Multi-byte characters split across feeds must come out intact.
        let xml = "<r a=\"é€𝄞\">naïve <b>€</b> 𝄞</r>"
        let bytes = Array(xml.utf8)
        let parser = try XMLPushParser()
        var events: [XMLEvent] = []
        for b in bytes {
            try parser.feed([b])
            while let e = parser.nextEvent() { events.append(e) }
        }
        try parser.finish()
        while let e = parser.nextEvent() { events.append(e) }
        #expect(parser.isFinished)
        #expect(tree(from: events) == (try XMLDocument.parse(bytes).root))
        #expect(throws: XMLError.self) { try parser.feed([0x20]) }
    }

    @Test func pullReaderErrorsAfterGoodEvents() throws {
        let reader = try XMLPullReader(string: "<a><b>text</b><c></a>")
        var starts = 0
        #expect(throws: XMLError.self) {
            while let e = try reader.next() { if case .start = e { starts += 1 } }
        }
        #expect(starts >= 2)
        #expect(throws: XMLError.self) { try reader.next() }
    }

    @Test func pushParserRefusesDoctypeMidStream() throws {
        let parser = try XMLPushParser()
        try parser.feed(Array("<?xml version=\"1.0\"?>\n".utf8))
        #expect {
            try parser.feed(Array("<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>".utf8))
            try parser.finish()
        } throws: { error in
            (error as? XMLError)?.kind == .doctypeNotAllowed
        }
    }
}
