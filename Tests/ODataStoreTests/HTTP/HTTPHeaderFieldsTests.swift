import Testing
@testable import ODataStore

/// `HTTPHeaderFields` as `CurlTransfer` fills it from libcurl's header lines.
@Suite("HTTPHeaderFields")
struct HTTPHeaderFieldsTests {
    /// Feeds header lines (CRLF included) the way libcurl's header callback delivers them.
    private func received(_ lines: [String]) -> HTTPHeaderFields {
        let transfer = CurlTransfer(id: 1, easy: CurlEasy()!, maxBodyBytes: 0) { _ in }
        for line in lines {
            var copy = line
            _ = copy.withUTF8 { transfer.receiveHeaderLine($0) }
        }
        return transfer.responseHeaders
    }

    @Test func namesValuesOrderAndCaseInsensitiveLookup() {
        // The header block odatapy behind waitress sends for Products(1).
        let fields = received([
            "HTTP/1.1 200 OK\r\n", "Content-Length: 354\r\n",
            "Content-Type: application/json;odata.metadata=minimal\r\n",
            "Date: Sun, 22 Nov 2026 02:24:46 GMT\r\n", "Etag: W/\"1\"\r\n", "Odata-Version: 4.01\r\n",
            "Server: odatastore-test\r\n", "\r\n",
        ])
        #expect(fields.count == 6)
        #expect(fields[0].name == "Content-Length" && fields[0].value == "354")
        #expect(fields.value(named: "ETAG") == "W/\"1\"")
        #expect(fields.value(named: "odata-version") == "4.01")
        #expect(fields.index(named: "Server") == 5)
        #expect(fields.value(named: "Location") == nil)
        #expect(fields.value(named: "Etag2") == nil)
        #expect(fields.pairs.map(\.name) == ["Content-Length", "Content-Type", "Date", "Etag", "Odata-Version", "Server"])
    }

    @Test func aNewStatusLineStartsOverAndWhitespaceIsTrimmed() {
        let fields = received([
            "HTTP/1.1 100 Continue\r\n", "X-Interim: yes\r\n", "\r\n",
            "HTTP/1.1 201 Created\r\n", "Location:   http://h/odata/Products(5)  \r\n", "X-Empty:\r\n",
            "X-Folded: first\r\n", " \t second part \r\n", "no colon here\r\n", ": no name\r\n", "\r\n",
        ])
        #expect(fields.pairs.map(\.name) == ["Location", "X-Empty", "X-Folded"])
        #expect(fields.value(named: "location") == "http://h/odata/Products(5)")
        #expect(fields.value(named: "X-Empty") == "")
        #expect(fields.value(named: "x-folded") == "first second part")
        #expect(fields.value(named: "X-Interim") == nil)
    }

    @Test func builtFromPairsAndBack() {
        let pairs: [(name: String, value: String)] = [("A", "1"), ("Größe", "naïve"), ("a", "2")]
        let fields = HTTPHeaderFields(pairs)
        #expect(fields.count == 3)
        #expect(fields.value(named: "a") == "1")  // the first match
        #expect(fields[1].name == "Größe" && fields[1].value == "naïve")
        let response = HTTPResponse(status: 200, headers: pairs)
        #expect(response.headers.map(\.value) == ["1", "naïve", "2"])
        #expect(response.header("A") == "1")
    }

    /// RFC 9112 section 6.3: several differing Content-Length values, or one that is not a
    /// length, leave the body's end unknown (the transport then fails the exchange).
    @Test func contentLengthFraming() {
        func problem(_ values: [String]) -> String? {
            HTTPHeaderFields([("Content-Type", "text/plain")] + values.map { ("Content-Length", $0) }).contentLengthProblem()
        }
        #expect(problem([]) == nil && problem(["0"]) == nil && problem(["88000"]) == nil)
        #expect(problem(["100", "100"]) == nil && problem(["100, 100"]) == nil && problem([" 7 "]) == nil)
        #expect(problem(["88000", "100"]) == "two different Content-Length values (88000 and 100)")
        #expect(problem(["100, 101"]) != nil && problem(["99999999999999999999"]) != nil)
        #expect(problem(["abc"]) != nil && problem([""]) != nil && problem(["-1"]) != nil && problem(["1,"]) != nil)
        #expect(HTTPHeaderFields([("content-LENGTH", "5"), ("Content-Length", "6")]).contentLengthProblem() != nil)
    }

    /// What the transport compares with max_response_bytes once the headers are in: only a
    /// length that is the decoded body's, on a response that has one.
    @Test func declaredBodyLength() {
        func declared(_ status: Int, _ fields: [(String, String)]) -> Int? {
            HTTPHeaderFields(fields.map { (name: $0.0, value: $0.1) }).declaredBodyLength(status: status)
        }
        #expect(declared(200, [("Content-Length", "354")]) == 354)
        #expect(declared(400, [("content-length", " 10000000000 ")]) == 10_000_000_000)
        #expect(declared(200, [("Content-Length", "7, 7")]) == 7)
        #expect(declared(200, [("Content-Length", "0")]) == 0)
        #expect(declared(200, [("Content-Encoding", "identity"), ("Content-Length", "9")]) == 9)
        #expect(declared(200, [("Content-Encoding", "gzip"), ("Content-Length", "9")]) == nil)  // compressed size
        #expect(declared(200, [("Transfer-Encoding", "chunked"), ("Content-Length", "9")]) == nil)
        #expect(declared(200, [("Content-Length", "9"), ("Content-Length", "10")]) == nil)
        #expect(declared(200, [("Content-Length", "abc")]) == nil && declared(200, []) == nil)
        #expect(declared(204, [("Content-Length", "9")]) == nil && declared(304, [("Content-Length", "9")]) == nil)
        #expect(declared(302, [("Content-Length", "9")]) == nil && declared(100, [("Content-Length", "9")]) == nil)
    }
}
