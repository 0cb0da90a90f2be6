import Testing
import Foundation
@testable import ODataProtocol

@Suite struct ErrorBodyTests {
    func detail(_ path: String, _ ct: String? = nil) throws -> ODataErrorDetail? {
        ErrorBodyDecoder.decode(try PayloadFixtures.bytes(path), contentType: ct)
    }

    @Test func v4JSONErrors() throws {
        let o4 = PayloadFixtures.olingo4
        #expect(try detail(o4 + "500error.json", "application/json") == ODataErrorDetail(code: "500", message: "Internal Server Error"))
        #expect(try detail(o4 + "500error1.json")?.message == "Internal Server Error")
        let full = try #require(try detail(o4 + "error.json"))
        #expect(full.code == "501" && full.message == "Unsupported functionality" && full.target == "query")
        #expect(full.details == [ODataErrorDetail(code: "301", message: "$search query option not supported", target: "$search")])
        let fit = PayloadFixtures.olingo4fit + "src/main/resources/V40/"
        #expect(try detail(fit + "badRequest.json")?.code == "400")
        // notFound.json carries code 501: callers must map the HTTP status, not the body code.
        #expect(try detail(fit + "notFound.json")?.code == "501")
        let v3 = try #require(try detail(fit + "unsupportedMediaType.json"))
        #expect(v3.code == "" && v3.message.contains("Unsupported media type") || !v3.message.isEmpty)
    }

    @Test func v2JSONError() {
        let body = Array(#"{"error":{"code":"SY/530","message":{"lang":"en","value":"Resource not found"}}}"#.utf8)
        #expect(ErrorBodyDecoder.decode(body, contentType: "application/json") == ODataErrorDetail(code: "SY/530", message: "Resource not found"))
    }

    @Test func xmlErrorsInBatchResponses() throws {
        let net = PayloadFixtures.odatanetBatch
        let r = try BatchResponse.parse(PayloadFixtures.bytes(net + "sampleinvalidresponse5.txt"), contentType: nil)
        let part = try #require(r.responses.first)
        #expect(part.status == 404)
        #expect(ErrorBodyDecoder.decode(part.body, contentType: part.headers["Content-Type"])
            == ODataErrorDetail(code: "", message: "Resource not found for the segment 'Orders'."))
        // V2 namespace, declared the V2 way.
        let v2 = Array(#"<?xml version="1.0" encoding="utf-8"?><error xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"><code>005056A509B11EE1B9A8FEC11C21578E</code><message xml:lang="en">Invalid Function Import Parameter</message><innererror/></error>"#.utf8)
        #expect(ErrorBodyDecoder.decode(v2, contentType: "application/xml")
            == ODataErrorDetail(code: "005056A509B11EE1B9A8FEC11C21578E", message: "Invalid Function Import Parameter"))
    }

    @Test func notAnError() {
        #expect(ErrorBodyDecoder.decode(Array("<html>oops</html>".utf8), contentType: "text/html") == nil)
        #expect(ErrorBodyDecoder.decode(Array(#"{"value":[]}"#.utf8), contentType: "application/json") == nil)
        #expect(ErrorBodyDecoder.decode([], contentType: nil) == nil)
        #expect(ErrorBodyDecoder.decode(Array("{\"error\":".utf8), contentType: "application/json") == nil)
    }
}
