import Foundation
import Testing
@testable import ODataProtocol

/// The URL conformance cases in Tests/Fixtures/conformance (written for this project from the
/// OData 4.01 URL Conventions, its ABNF and the V2 URI Conventions; each group cites its
/// section): every case is parsed grammar-only and against the spec-shaped model, and must be
/// accepted or refused as the file says; whatever is accepted must print to a canonical URL
/// that parses back to an equal request, with and without the model.
@Suite struct ConformanceCaseTests {
    struct Case: CustomStringConvertible {
        enum Expect { case valid, invalid(Int?), schemaInvalid }
        var expect: Expect
        var url: String
        var line: Int
        var description: String { "line \(line): \(url)" }
    }

    static func cases(_ version: ODataVersion) throws -> [Case] {
        let text = try FixtureFiles.text("conformance/url-cases-\(version == .v2 ? "v2" : "v4").txt")
        var out: [Case] = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.isEmpty, !line.hasPrefix("#"), let space = line.firstIndex(of: " ") else { continue }
            let status = line[..<space]
            let url = String(line[line.index(after: space)...])
            let expect: Case.Expect
            switch status {
            case "ok": expect = .valid
            case "no": expect = .invalid(nil)
            case "schema-no": expect = .schemaInvalid
            default:
                guard status.hasPrefix("no@"), let p = Int(status.dropFirst(3)) else {
                    Issue.record("line \(n + 1): unknown status \(status)")
                    continue
                }
                expect = .invalid(p)
            }
            out.append(Case(expect: expect, url: url, line: n + 1))
        }
        return out
    }

    static func model(_ version: ODataVersion) throws -> ServiceModel {
        let path = "conformance/spec-model-\(version == .v2 ? "v2" : "v4").xml"
        return try MetadataParser.parse(Array(try Data(contentsOf: FixtureFiles.url(path))))
    }

    func run(_ version: ODataVersion) throws {
        let model = try Self.model(version)
        #expect(model.version == version)
        let parser = ResourceRequestParser(version: version)
        var counts = (valid: 0, invalid: 0, schema: 0)
        for c in try Self.cases(version) {
            let grammar = Result { () throws(URLParseError) in try parser.parse(c.url) }
            let checked = Result { () throws(URLParseError) in try parser.parse(c.url, checkingAgainst: model) }
            switch c.expect {
            case .valid:
                counts.valid += 1
                #expect(throws: Never.self, "\(c) (grammar-only)") { try grammar.get() }
                #expect(throws: Never.self, "\(c) (against the model)") { try checked.get() }
            case .invalid(let position):
                counts.invalid += 1
                guard case .failure(let e) = grammar else { Issue.record("\(c): accepted grammar-only"); continue }
                if let position { #expect(e.position == position, "\(c): \(e)") }
                #expect(e.position >= 0 && e.position <= c.url.count, "\(c): \(e)")
                if case .success = checked { Issue.record("\(c): accepted against the model") }
            case .schemaInvalid:
                counts.schema += 1
                #expect(throws: Never.self, "\(c) (grammar-only)") { try grammar.get() }
                if case .success = checked { Issue.record("\(c): accepted against the model") }
            }
            // Round trips of whatever was accepted.
            if case .success(let r) = grammar {
                let canonical = RequestPrinter.canonicalURL(r, version: version)
                do {
                    let again = try parser.parse(canonical)
                    #expect(again == r, "\(c): canonical \(canonical)")
                } catch {
                    Issue.record("\(c): canonical \(canonical) does not parse: \(error)")
                }
                _ = RequestJSON.describe(r, version: version, checked: false)
            }
            if case .success(let r) = checked {
                let canonical = RequestPrinter.canonicalURL(r, version: version)
                do {
                    let again = try parser.parse(canonical, checkingAgainst: model)
                    #expect(again == r, "\(c): canonical \(canonical)")
                } catch {
                    Issue.record("\(c): canonical \(canonical) does not check: \(error)")
                }
                #expect(RequestJSON.describe(r, version: version, checked: true).hasPrefix("{"))
            }
        }
        #expect(counts.valid > 50 && counts.invalid > 40 && counts.schema > 20)
    }

    @Test func v4Cases() throws { try run(.v4) }
    @Test func v2Cases() throws { try run(.v2) }
}
