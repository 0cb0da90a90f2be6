import Testing
import Foundation
@testable import ODataProtocol

@Suite struct PayloadLimitsTests {
    func nested(_ depth: Int) -> [UInt8] {
        Array((String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
    }

    /// Deep nesting is an error with a position, never a stack overflow, in every decoder.
    @Test func deepNestingIsRefusedCleanly() throws {
        for version in [ODataVersion.v2, .v4] {
            let ok = try PayloadDecoder.decode(nested(PayloadDecoder.maxDepth - 1), contentType: nil, version: version,
                                               model: nil, entitySet: nil)
            #expect(ok.json.hasSuffix("1" + String(repeating: "}", count: PayloadDecoder.maxDepth - 1)))
            #expect {
                _ = try PayloadDecoder.decode(self.nested(100_000), contentType: nil, version: version, model: nil, entitySet: nil)
            } throws: { e in
                (e as? PayloadError)?.kind == .malformed && (e as? PayloadError)?.message.contains("nesting") == true
            }
        }
        let deepArrays = Array((String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)).utf8)
        #expect(throws: PayloadError.self) {
            try PayloadDecoder.decode(deepArrays, contentType: "application/json", version: .v4, model: nil, entitySet: nil)
        }
        let deepXML = Array((String(repeating: "<a>", count: 5_000) + String(repeating: "</a>", count: 5_000)).utf8)
        #expect(throws: PayloadError.self) {
            try PayloadDecoder.decode(deepXML, contentType: "application/atom+xml", version: .v2, model: nil, entitySet: nil)
        }
    }

    @Test func unsupportedAndEmptyBodies() {
        #expect {
            try PayloadDecoder.decode(Array("42".utf8), contentType: "text/plain", version: .v2, model: nil, entitySet: nil)
        } throws: { ($0 as? PayloadError)?.kind == .unsupportedContentType }
        #expect(throws: PayloadError.self) { try PayloadDecoder.decode([], contentType: "application/json", version: .v4, model: nil, entitySet: nil) }
        #expect(throws: PayloadError.self) { try PayloadDecoder.decode([], contentType: "application/atom+xml", version: .v2, model: nil, entitySet: nil) }
        // An XML error body handed to the payload decoder is reported as such.
        let err = Array(#"<error xmlns="http://docs.oasis-open.org/odata/ns/metadata"><code>1</code><message>m</message></error>"#.utf8)
        #expect { try PayloadDecoder.decode(err, contentType: "application/xml", version: .v2, model: nil, entitySet: nil) }
            throws: { ($0 as? PayloadError)?.message.contains("1: m") == true }
    }
}
