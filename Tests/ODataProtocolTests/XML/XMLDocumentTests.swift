import Foundation
import Testing
@testable import ODataProtocol

private let edmxV4 = "http://docs.oasis-open.org/odata/ns/edmx"
private let edmV4 = "http://docs.oasis-open.org/odata/ns/edm"

private func countElements(_ e: XMLElement) -> Int { 1 + e.children.reduce(0) { $0 + countElements($1) } }

@Suite("XML layer: XMLDocument")
struct XMLDocumentTests {
    @Test func parsesRealDocumentWithNamespaces() throws {
        let doc = try XMLDocument.parse(MetadataFixture.tripPinOASIS.bytes())
        #expect(doc.root.isNamed("Edmx", namespace: edmxV4))
        #expect(doc.root.attribute("Version") == "4.0")
        // python3 xml.etree: sum(1 for _ in root.iter()) == 235, len(list(root)) == 4
        #expect(countElements(doc.root) == 235)
        #expect(doc.root.children.count == 4)
        let schema = try #require(doc.root.child("DataServices", namespace: edmxV4)?.child("Schema", namespace: edmV4))
        #expect(schema.attribute("Namespace") == "Microsoft.OData.SampleService.Models.TripPin")
        #expect(schema.children("EnumType", namespace: edmV4).count == 1)
        #expect(schema.line > 10)
        // Attributes in the xml: namespace keep it (xml:lang, xml:base for Atom).
        let v2 = try XMLDocument.parse(MetadataFixture.gwsampleBasic.bytes()).root
        let v2Schema = try #require(v2.children.first?.children.first)
        #expect(v2Schema.attribute("lang", namespace: "http://www.w3.org/XML/1998/namespace") == "en")
        #expect(v2Schema.attribute("schema-version", namespace: "http://www.sap.com/Protocols/SAPData") == "1")
    }

    @Test func bomCRLFAndOldNamespace() throws {
        let bytes = try MetadataFixture.northwindBareSchema.bytes()
        #expect(bytes.prefix(3) == [0xEF, 0xBB, 0xBF])
        let doc = try XMLDocument.parse(bytes)
        #expect(doc.root.isNamed("Schema", namespace: "http://schemas.microsoft.com/ado/2006/04/edm"))
        // python3 xml.etree: 397 elements, 38 children of the root
        #expect(countElements(doc.root) == 397)
        #expect(doc.root.children.count == 38)
    }

    @Test func attributesTextEntitiesAndCDATA() throws {
        let xml = """
            <?xml version="1.0"?>
            <a:root xmlns:a="urn:a" xmlns="urn:default" plain="x &amp; y &lt; z &#38;#38; &#x41;" a:q='"q"'>
              <child>one &amp; <![CDATA[<two>]]> &#233;</child><!-- comment --><?pi data?>
              <empty/>
            </a:root>
            """
        let root = try XMLDocument.parse(xml).root
        #expect(root.name == "root" && root.namespace == "urn:a")
        #expect(root.attribute("plain") == "x & y < z &#38; A")
        #expect(root.attribute("q", namespace: "urn:a") == "\"q\"")
        #expect(root.attribute("q") == nil)
        #expect(root.children.map(\.name) == ["child", "empty"])
        #expect(root.children[0].namespace == "urn:default")
        #expect(root.children[0].text == "one & <two> é")
        #expect(root.children[1].text == "")
        #expect(root.children[1].line == 4)
    }

    @Test func declaredLegacyEncoding() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><p>caf".utf8)
        bytes.append(0xE9)
        bytes += Array("</p>".utf8)
        #expect(try XMLDocument.parse(bytes).root.text == "café")
    }

    @Test func notWellFormedReportsPosition() {
        let xml = "<a>\n  <b>\n</a>"
        #expect {
            try XMLDocument.parse(xml)
        } throws: { error in
            guard let e = error as? XMLError else { return false }
            return e.kind == .notWellFormed && e.line == 3 && e.column > 0 && !e.message.isEmpty
                && e.description.contains("line 3")
        }
    }

    @Test(arguments: ["", "   ", "\u{FEFF}"])
    func emptyInput(_ text: String) {
        #expect {
            try XMLDocument.parse(text)
        } throws: { error in
            (error as? XMLError)?.kind == .empty
        }
    }

    @Test func invalidUTF8IsAnError() {
        var bytes = Array("<a>".utf8)
        bytes += [0xC3, 0x28, 0xFF]
        bytes += Array("</a>".utf8)
        #expect(throws: XMLError.self) { try XMLDocument.parse(bytes) }
    }

    @Test func truncatedDocumentIsAnError() throws {
        let bytes = try MetadataFixture.tripPinOASIS.bytes()
        #expect(throws: XMLError.self) { try XMLDocument.parse(bytes.prefix(bytes.count / 2)) }
    }

    @Test func excessiveNestingIsRefused() {
        let depth = 5000
        let xml = String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        #expect(throws: XMLError.self) { try XMLDocument.parse(xml) }
    }

    /// libxml2 refuses lookahead beyond 10 MB without XML_PARSE_HUGE; documents larger than
    /// that must still parse when handed over in one piece (large SAP $metadata documents).
    @Test func documentsLargerThanTenMegabytes() throws {
        let text = String(repeating: "x", count: 1000)
        var xml = "<root>"
        xml.reserveCapacity(12_200_000)
        for i in 0..<12_000 { xml += "<e i=\"\(i)\">\(text)</e>" }
        xml += "</root>"
        let bytes = Array(xml.utf8)
        #expect(bytes.count > 12_000_000)
        let root = try XMLDocument.parse(bytes).root
        #expect(root.children.count == 12_000)
        #expect(root.children.last?.attribute("i") == "11999" && root.children.last?.text == text)
        let parser = try XMLPushParser()
        try parser.feed(bytes)
        try parser.finish()
        var starts = 0
        while let e = parser.nextEvent() { if case .start = e { starts += 1 } }
        #expect(starts == 12_001)
    }

    @Test func parsesConcurrently() async throws {
        let fixtures = MetadataFixture.allCases
        let inputs = try fixtures.map { try $0.bytes() }
        let expected = try inputs.map { try XMLDocument.parse($0) }
        try await withThrowingTaskGroup(of: (Int, XMLDocument).self) { group in
            for round in 0..<4 {
                for (i, bytes) in inputs.enumerated() {
                    group.addTask {
                        // Interleave failing parses with good ones on the same threads.
                        _ = try? XMLDocument.parse(bytes.prefix(bytes.count / (round + 2)))
                        return (i, try XMLDocument.parse(bytes))
                    }
                }
            }
            for try await (i, doc) in group { #expect(doc == expected[i]) }
        }
    }
}

/// DTDs, entity expansion and external entities (XXE).
@Suite("XML layer: hardening")
struct XMLHardeningTests {
    @Test func externalEntityIsNotResolved() throws {
        // The Olingo XXE sample is a harmless file whose text ("some text") must never show up.
        let target = MetadataFixture.url(MetadataFixture.xxePath)
        let sample = try String(contentsOf: target, encoding: .utf8)
        #expect(sample.contains("some text"))
        for uri in [target.absoluteString, target.path, "http://127.0.0.1:9/xxe.xml"] {
            let xml = """
                <?xml version="1.0" encoding="utf-8"?>
                <!DOCTYPE edmx:Edmx [ <!ENTITY xxe SYSTEM "\(uri)"> ]>
                <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">&xxe;</edmx:Edmx>
                """
            #expect {
                try XMLDocument.parse(xml)
            } throws: { error in
                guard let e = error as? XMLError else { return false }
                return e.kind == .doctypeNotAllowed && e.line == 2 && !e.description.contains("some text")
            }
        }
    }

    @Test func externalDTDAndParameterEntitiesAreRefused() {
        let target = MetadataFixture.url(MetadataFixture.xxePath).path
        for xml in [
            "<!DOCTYPE a SYSTEM \"\(target)\"><a/>",
            "<!DOCTYPE a [<!ENTITY % p SYSTEM \"\(target)\"> %p;]><a/>",
        ] {
            #expect {
                try XMLDocument.parse(xml)
            } throws: { error in
                (error as? XMLError)?.kind == .doctypeNotAllowed
            }
        }
    }

    @Test func billionLaughsDoesNotExpand() {
        var decls = "<!ENTITY lol0 \"lol\">"
        for i in 1...12 {
            let prev = "&lol\(i - 1);"
            decls += "<!ENTITY lol\(i) \"\(String(repeating: prev, count: 10))\">"
        }
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE lolz [\(decls)]><lolz>&lol12;</lolz>"
        #expect {
            try XMLDocument.parse(xml)
        } throws: { error in
            (error as? XMLError)?.kind == .doctypeNotAllowed
        }
        // Without a DOCTYPE an entity reference is simply undeclared: an error, no expansion.
        #expect(throws: XMLError.self) { try XMLDocument.parse("<lolz>&lol12;</lolz>") }
    }

    @Test func xxeSampleItselfIsPlainXML() throws {
        let doc = try XMLDocument.parse(MetadataFixture.bytes(MetadataFixture.xxePath))
        #expect(doc.root.name == "external.entity")
        #expect(doc.root.text == "some text")
    }

    /// libxml2's default handler would print to stderr; nothing may reach file descriptor 2.
    @Test func nothingIsPrintedToStderr() throws {
        let tmp = FileManager.default.temporaryDirectory
            .appendingPathComponent("odatastore-xml-stderr-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt")
        #expect(FileManager.default.createFile(atPath: tmp.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: tmp) }
        let handle = try FileHandle(forWritingTo: tmp)
        fflush(nil)
        let savedStderr = dup(2)
        dup2(handle.fileDescriptor, 2)
        var utf16 = [UInt8]([0xFF, 0xFE])  // UTF-16LE BOM, then an unpaired surrogate
        for u in Array("<a>".utf16) + [0xD800, 0x0041] + Array("</a>".utf16) {
            utf16 += [UInt8(u & 0xFF), UInt8(u >> 8)]
        }
        var bad: [[UInt8]] = [Array("<a><b></a>".utf8), utf16, Array("<a>&undefined;</a>".utf8),
                              Array("<?xml version=\"1.0\" encoding=\"no-such-encoding\"?><a/>".utf8),
                              Array("<!DOCTYPE a [<!ENTITY e SYSTEM \"/etc/passwd\">]><a>&e;</a>".utf8),
                              Array("<a xmlns:p=\"not a uri\"><p:b/><q:c/></a>".utf8)]
        bad.append(Array("<?xml version=\"1.0\" encoding=\"EUC-JP\"?><a>".utf8) + [0xFF, 0xFF, 0xFF] + Array("</a>".utf8))
        for b in bad { _ = try? XMLDocument.parse(b) }
        for b in bad { _ = try? XMLPullReader(bytes: b).next() }
        fflush(nil)
        dup2(savedStderr, 2)
        close(savedStderr)
        try handle.close()
        // Swift Testing reports progress on stderr from other threads meanwhile, so look for
        // libxml2's own format ("<domain> error : ...", "<domain> warning : ...").
        let printed = try String(contentsOf: tmp, encoding: .utf8)
        let libxml2Lines = printed.split(separator: "\n").filter { $0.contains(" error : ") || $0.contains("warning : ") }
        #expect(libxml2Lines.isEmpty, "libxml2 printed: \(libxml2Lines)")
    }
}
