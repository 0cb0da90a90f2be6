import Testing
import Foundation
@testable import ODataProtocol

@Suite struct BatchBehaviourTests {
    let o2 = PayloadFixtures.olingo2
    let net = PayloadFixtures.odatanetBatch

    @Test func bodyBoundariesFollowRFC2046() throws {
        // The CRLF before the delimiter belongs to the delimiter; the one before it is body.
        let r = try BatchResponse.parse(PayloadFixtures.bytes(o2 + "BatchResponseWithAdditionalLineEnding.batch"),
                                        contentType: "multipart/mixed; boundary=batch_123")
        let part = try #require(r.responses.first)
        #expect(part.status == 500 && part.reason == "Internal Server Error")
        #expect(String(decoding: part.body, as: UTF8.self)
            == "This is the body we need to parse. The trailing line ending is part of the body.\r\n")
        #expect(part.headers["content-type"] == "application/xml;charset=utf-8")
        #expect(part.headers["CONTENT-LENGTH"] == "82" && part.body.count == 82)

        let w = try BatchResponse.parse(PayloadFixtures.bytes(o2 + "BatchResponseWithLinesInBodyWin.batch"), contentType: nil)
        let text = String(decoding: try #require(w.responses.first).body, as: UTF8.self)
        #expect(text.contains("\r\n\r\n"))  // blank lines inside a body are kept
    }

    @Test func fullHTTPCaptureUsesTheBoundaryFromContentType() throws {
        // batchRequest.batch starts with the outer POST request line and headers: with the
        // boundary from its Content-Type they are preamble; boundary lines carry trailing spaces.
        let bytes = try PayloadFixtures.bytes(o2 + "batchRequest.batch")
        let r = try BatchRequest.parse(bytes, contentType: "multipart/mixed; boundary=batch_36522ad7-fc75-4b56-8c71-56071383e77b")
        #expect(r.items.count == 3)
        guard case .changeset(let cs) = r.items[1] else { Issue.record("expected a changeset"); return }
        #expect(cs.map(\.method) == ["POST", "PUT"])
        #expect(cs[1].headers["if-match"] == "xxxxx")
        #expect(String(decoding: cs[1].body, as: UTF8.self) == "<JSON representation of Customer ALFKI> \r\n")
    }

    /// Part and message headers, read as bytes: padding (spaces, tabs) around names and
    /// values trimmed, a colon in a value kept, a folded line joined, UTF-8 values intact;
    /// a line without a colon and a name with a space refused.
    @Test func headerLinesAreReadAsBytes() throws {
        func parse(_ inner: String) throws(BatchError) -> BatchResponse {
            let body = "--b\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 201 Created\r\n" + inner + "\r\n{}\r\n--b--\r\n"
            return try BatchResponse.parse(Array(body.utf8), contentType: "multipart/mixed; boundary=b")
        }
        let r = try parse("Location : \thttp://h/Products(7) \r\nETag:W/\"1\"\r\nX-Folded: one\r\n\t two\r\nX-Name: Zürich ✓\r\nX-Empty:\r\n")
        let part = try #require(r.responses.first)
        #expect(part.status == 201)
        #expect(part.headers.fields.map(\.name) == ["Location", "ETag", "X-Folded", "X-Name", "X-Empty"])
        #expect(part.headers["location"] == "http://h/Products(7)")
        #expect(part.headers["ETag"] == "W/\"1\"")
        #expect(part.headers["X-Folded"] == "one two")
        #expect(part.headers["X-Name"] == "Zürich ✓")
        #expect(part.headers["X-Empty"] == "")
        #expect(String(decoding: part.body, as: UTF8.self) == "{}")
        #expect(throws: BatchError.self) { try parse("No colon here\r\n") }
        #expect(throws: BatchError.self) { try parse("Bad Name: x\r\n") }
        #expect(throws: BatchError.self) { try parse(" : x\r\n") }
    }

    @Test func lfOnlyResponse() throws {
        let path = "apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core/communication/response/batch/batchResponse.batch"
        let bytes = try PayloadFixtures.bytes(path)
        #expect(!bytes.contains(0x0D))
        let r = try BatchResponse.parse(bytes, contentType: nil)
        let created = r.responses[1]
        #expect(created.status == 201 && created.contentID == "2")
        #expect(created.headers["Location"] == "http://localhost:19000/ClientBatchTest/Employees('7')")
        let decoded = try JSONValue.parse(created.body)
        #expect(decoded["d"]?["EmployeeId"] == .string("7"))
    }

    @Test func mixedCaseHeadersAndMediaTypes() throws {
        let r = try BatchRequest.parse(PayloadFixtures.bytes(net + "samplejsonbatch.txt"), contentType: nil)
        guard case .changeset(let cs) = r.items.first else { Issue.record("expected a changeset"); return }
        #expect(cs[0].headers["Content-Type"]?.lowercased().hasPrefix("application/json") == true)
        #expect(cs[0].contentID == "1")
        // The part bodies are JavaScript object literals (unquoted names), not JSON: strict parsing refuses them.
        #expect(String(decoding: cs[0].body, as: UTF8.self).contains("ID: 123456"))
        #expect(throws: JSONError.self) { try JSONValue.parse(cs[0].body) }
    }

    @Test func epilogueIsIgnored() throws {
        let bytes = try PayloadFixtures.bytes(net + "sampleinvalidbatch6.txt")
        #expect(String(decoding: bytes, as: UTF8.self).contains("Extraneous data beyond"))
        let r = try BatchRequest.parse(bytes, contentType: nil)
        #expect(r.requests.map(\.method) == ["POST", "POST"])
    }

    @Test func templatePlaceholderSubstituted() throws {
        let template = try PayloadFixtures.text(net + "UriCompositionReproRequest.txt")
        for slash in ["", "/"] {
            let r = try BatchRequest.parse(Array(template.replacingOccurrences(of: "{InsertForwardSlash}", with: slash).utf8),
                                           contentType: nil)
            #expect(r.requests.map(\.url) == [slash + "Customers", slash + "Orders(91)", slash + "Orders(1)", slash + "Orders(0)"])
        }
    }

    @Test(arguments: ["sampleinvalidbatch.txt", "sampleinvalidbatch1.txt"])
    func invalidRequestsAreRejected(_ name: String) throws {
        let bytes = try PayloadFixtures.bytes(net + name)
        #expect(throws: BatchError.self) { try BatchRequest.parse(bytes, contentType: nil) }
    }

    @Test func notABatchBody() throws {
        // batchWithContent.batch is base64 image data, not multipart.
        let bytes = try PayloadFixtures.bytes(o2 + "batchWithContent.batch")
        #expect(throws: BatchError.self) { try BatchRequest.parse(bytes, contentType: nil) }
        #expect(throws: BatchError.self) { try BatchRequest.parse(bytes, contentType: "multipart/mixed; boundary=x") }
        #expect(throws: BatchError.self) { try BatchResponse.parse(Array("--b\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\n\r\n".utf8), contentType: nil) }
        #expect(throws: BatchError.self) { try BatchRequest.parse(Array("--b\r\n\r\nGET x HTTP/1.1\r\n\r\n--b--".utf8), contentType: nil) }
        #expect(throws: BatchError.self) { try BatchRequest.parse([], contentType: "application/json") }
    }

    @Test func contentIDReferences() throws {
        let wrong = try BatchRequest.parse(PayloadFixtures.bytes(PayloadFixtures.olingo2fit + "batchWithWrongContentId.batch"), contentType: nil)
        #expect(wrong.unresolvedContentIDReferences() == ["wrong"])
        let ok = try BatchRequest.parse(PayloadFixtures.bytes(PayloadFixtures.olingo2fit + "batchWithContentId.batch"), contentType: nil)
        #expect(ok.unresolvedContentIDReferences().isEmpty)
        #expect(ok.requests.map(\.url).contains("$newEmployee/EmployeeName"))
    }

    @Test func writerWireFormat() throws {
        var h = BatchHeaders()
        h.add("Accept", "application/json")
        let batch = BatchRequest(items: [
            .request(BatchRequestPart(method: "GET", url: "Customers?$top=2", headers: h)),
            .changeset([
                BatchRequestPart(method: "POST", url: "Customers", headers: BatchHeaders([("Content-Type", "application/json")]),
                                 body: Array(#"{"ID":"X"}"#.utf8), contentID: "1"),
                BatchRequestPart(method: "PATCH", url: "$1", body: Array(#"{"Name":"n"}"#.utf8), contentID: "2"),
            ]),
        ])
        let (body, ct) = try batch.encoded(boundary: "batch_1")
        #expect(ct == "multipart/mixed; boundary=batch_1")
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.hasPrefix("--batch_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nGET Customers?$top=2 HTTP/1.1\r\nAccept: application/json\r\n\r\n\r\n--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_1_batch_1\r\n\r\n--changeset_1_batch_1\r\n"))
        #expect(text.contains("Content-ID: 1\r\n\r\nPOST Customers HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"ID\":\"X\"}\r\n--changeset_1_batch_1\r\n"))
        #expect(text.hasSuffix("--changeset_1_batch_1--\r\n--batch_1--\r\n"))
        // No bare LF on the wire.
        for (i, b) in body.enumerated() where b == 0x0A { #expect(i > 0 && body[i - 1] == 0x0D) }
        let back = try BatchRequest.parse(body, contentType: ct)
        #expect(back.requests.map(\.method) == ["GET", "POST", "PATCH"])
        #expect(back.requests[2].url == "$1" && back.requests[2].contentID == "2")
        #expect(back.unresolvedContentIDReferences().isEmpty)

        let bad = BatchRequest(items: [.changeset([BatchRequestPart(method: "GET", url: "Customers")])])
        #expect(throws: BatchError.self) { try bad.encoded() }
        // Random boundaries differ between calls.
        #expect(try batch.encoded().contentType != batch.encoded().contentType)
    }
}
