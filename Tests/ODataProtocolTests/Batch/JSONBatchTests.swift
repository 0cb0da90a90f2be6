import Testing
import Foundation
@testable import ODataProtocol

@Suite struct JSONBatchTests {
    /// Every real multipart request converts to the JSON batch format and back with the same
    /// structure and bodies (JSON bodies compared as JSON values).
    @Test func multipartFixturesRoundTripThroughJSON() throws {
        let files = PayloadFixtures.files(extensions: [".batch"]) + PayloadFixtures.files(under: PayloadFixtures.odatanetBatch, extensions: [".txt"])
        var converted = 0
        for f in files where !f.lowercased().contains("response") {
            guard let r = try? BatchRequest.parse(PayloadFixtures.bytes(f), contentType: nil) else { continue }
            let encoded: (body: [UInt8], contentType: String)
            do { encoded = try r.encodedJSON() } catch {
                // Only parts declared as JSON whose bodies are not JSON (odata.net's JavaScript literals, Olingo's
                // "malformed JSON" fixture, placeholders) cannot be written as JSON batch.
                #expect(error.message.contains("not JSON"), "\(f): \(error)")
                continue
            }
            let back = try BatchRequest.parseJSON(encoded.body)
            #expect(Self.shape(back) == Self.shape(r), "\(f)")
            for (a, b) in zip(back.requests, r.requests) {
                #expect(b.contentID == nil || a.contentID == b.contentID, "\(f)")
                if JSONBatchBody.isJSON(b.headers["Content-Type"]) {
                    #expect(try JSONValue.parse(a.body) == JSONValue.parse(b.body), "\(f)")
                } else {
                    #expect(a.body == b.body, "\(f)")
                }
            }
            converted += 1
        }
        #expect(converted >= 25)
    }

    /// Grouping, methods and URLs (ids and body sizes aside: JSON bodies are re-serialized compactly).
    static func shape(_ r: BatchRequest) -> [String] {
        r.items.map { item in
            switch item {
            case .request(let p): return "\(p.method) \(p.url)"
            case .changeset(let ps): return "{" + ps.map { "\($0.method) \($0.url)" }.joined(separator: " | ") + "}"
            }
        }
    }

    @Test func jsonBatchWireForm() throws {
        let batch = BatchRequest(items: [
            .request(BatchRequestPart(method: "GET", url: "Customers('A')", headers: BatchHeaders([("Accept", "application/json")]))),
            .changeset([
                BatchRequestPart(method: "POST", url: "Customers", headers: BatchHeaders([("Content-Type", "application/json")]),
                                 body: Array(#"{"ID":"B"}"#.utf8), contentID: "1"),
                BatchRequestPart(method: "PUT", url: "$1/Photo/$value", headers: BatchHeaders([("Content-Type", "image/png")]),
                                 body: [0x89, 0x50, 0xFF, 0xFE], contentID: "2"),
            ]),
        ])
        let (body, ct) = try batch.encodedJSON()
        #expect(ct == "application/json")
        #expect(String(decoding: body, as: UTF8.self) == #"{"requests":[{"id":"r1","method":"GET","url":"Customers('A')","headers":{"accept":"application/json"}},{"id":"1","atomicityGroup":"g1","method":"POST","url":"Customers","headers":{"content-type":"application/json"},"body":{"ID":"B"}},{"id":"2","atomicityGroup":"g1","dependsOn":["1"],"method":"PUT","url":"$1/Photo/$value","headers":{"content-type":"image/png"},"body":"iVD__g=="}]}"#)
        #expect(try BatchRequest.parseJSON(body).requests[2].body == [0x89, 0x50, 0xFF, 0xFE])
    }

    @Test func jsonBatchResponses() throws {
        // The real multipart responses, converted to JSON and read back.
        let r = try BatchResponse.parse(PayloadFixtures.bytes(PayloadFixtures.odatanetBatch + "sampleresponse2.txt"), contentType: nil)
        let (body, _) = try r.encodedJSON()
        let back = try BatchResponse.parseJSON(body)
        #expect(back.items.count == r.items.count)
        #expect(back.responses.map(\.status) == [201, 200, 400, 200, 204, 200])
        let text = #"{"responses":[{"id":"1","atomicityGroup":"g","status":201,"headers":{"location":"Customers('B')"},"body":{"ID":"B"}},{"id":"2","atomicityGroup":"g","status":204},{"id":"3","status":404,"body":{"error":{"code":"","message":"nope"}}}]}"#
        let parsed = try BatchResponse.parseJSON(Array(text.utf8))
        #expect(parsed.items.count == 2)
        guard case .changeset(let cs) = parsed.items[0] else { Issue.record("expected a changeset"); return }
        #expect(cs.map(\.status) == [201, 204] && cs[0].headers["Location"] == "Customers('B')")
        #expect(ErrorBodyDecoder.decode(parsed.responses[2].body, contentType: "application/json")?.message == "nope")
        #expect(throws: BatchError.self) { try BatchResponse.parseJSON(Array(#"{"responses":[{"id":"1"}]}"#.utf8)) }
        #expect(throws: BatchError.self) { try BatchRequest.parseJSON(Array(#"{"requests":[{"atomicityGroup":"g","method":"GET","url":"x"}]}"#.utf8)) }
    }
}
