import Testing
import Foundation
@testable import ODataProtocol

/// The streaming Atom decoder against the tree-walking reader it replaced (`AtomTreeDecoder`):
/// same canonical JSON, same counts, links and etag, same error, on every XML fixture, on
/// reordered and duplicated variants of the Atom ones, and on seeded mutants.
@Suite struct AtomStreamingEquivalenceTests {
    typealias Outcome = Result<DecodedPayload, PayloadError>

    struct Setting {
        var model: ServiceModel?
        var set: String?
        var target: PayloadTarget = .automatic
    }

    static let settings: [Setting] = [
        Setting(model: PayloadModels.refScenario, set: nil),
        Setting(model: PayloadModels.refScenario, set: "Employees"),
        Setting(model: PayloadModels.refScenario, set: "Rooms"),
        Setting(model: nil, set: nil),
    ]

    func streamed(_ body: [UInt8], _ s: Setting) -> Outcome {
        Result { () throws(PayloadError) in
            try PayloadDecoder.decode(body, contentType: "application/atom+xml", version: .v2, model: s.model,
                                      entitySet: s.set, target: s.target)
        }
    }

    func reference(_ body: [UInt8], _ s: Setting) -> Outcome {
        let index = s.model.map(PayloadModelIndex.init)
        let declared = s.set.flatMap { index?.typeOfSet($0) }
        return Result { () throws(PayloadError) in
            try AtomTreeDecoder.decode(body, model: s.model, index: index, declared: declared, target: s.target)
        }
    }

    /// Compares both decoders on `body`; returns true when they agree.
    @discardableResult
    func same(_ body: [UInt8], _ s: Setting, _ label: String) -> Bool {
        let a = streamed(body, s), b = reference(body, s)
        switch (a, b) {
        case (.success(let x), .success(let y)):
            #expect(x == y, "\(label) [set \(s.set ?? "-"), model \(s.model == nil ? "no" : "yes")]")
            if x != y { diff(x.json, y.json, label) }
            return x == y
        case (.failure(let x), .failure(let y)):
            #expect(x.kind == y.kind && x.message == y.message, "\(label): \(x) vs \(y)")
            return x.kind == y.kind && x.message == y.message
        default:
            Issue.record("\(label): streamed \(a) vs reference \(b)")
            return false
        }
    }

    func diff(_ a: String, _ b: String, _ label: String) {
        let x = Array(a.utf8), y = Array(b.utf8)
        var i = 0
        while i < min(x.count, y.count), x[i] == y[i] { i += 1 }
        let lo = max(0, i - 80)
        print("\(label): first difference at \(i)\n  streamed:  \(String(decoding: x[lo..<min(x.count, i + 80)], as: UTF8.self))\n"
              + "  reference: \(String(decoding: y[lo..<min(y.count, i + 80)], as: UTF8.self))")
    }

    static func atomFixtures() throws -> [(String, [UInt8])] {
        try PayloadFixtures.files(extensions: [".xml"]).compactMap { f in
            let b = try PayloadFixtures.bytes(f)
            return String(decoding: b.prefix(3000), as: UTF8.self).contains("http://www.w3.org/2005/Atom") ? (f, b) : nil
        }
    }

    @Test func everyXMLFixture() throws {
        let files = PayloadFixtures.files(extensions: [".xml", ".edmx"])
        #expect(files.count > 30)
        var atom = 0
        for f in files {
            let body = try PayloadFixtures.bytes(f)
            if String(decoding: body.prefix(3000), as: UTF8.self).contains("http://www.w3.org/2005/Atom") { atom += 1 }
            for s in Self.settings { same(body, s, f) }
        }
        #expect(atom == 23)
        for s in Self.settings { same(Array(CapturedServerBodies.v2ProductsAtom.utf8), s, "pyslet products") }
    }

    /// Entity declarations stay inert on the streaming path: a DOCTYPE (billion laughs, external
    /// entity) stops the parse before any entity is declared.
    @Test func doctypesAreRefused() throws {
        let entry = try PayloadFixtures.text(PayloadFixtures.olingo2 + "RoomContentOnly.xml")
        let body = entry.replacingOccurrences(of: "<d:Name>Room 1</d:Name>", with: "<d:Name>&lol9;</d:Name>")
        var laughs = #"<!DOCTYPE entry [<!ENTITY lol "lol">"#
        for i in 1...9 { laughs += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i == 1 ? "" : String(i - 1));", count: 10) + "\">" }
        laughs += #"<!ENTITY xxe SYSTEM "file:///etc/passwd">]>"#
        let doc = body.replacingOccurrences(of: "<entry ", with: laughs + "<entry ")
        #expect(doc.contains("<!DOCTYPE"))
        for s in Self.settings {
            #expect(throws: PayloadError.self) { try self.streamed(Array(doc.utf8), s).get() }
            same(Array(doc.utf8), s, "billion laughs")
            if case .failure(let e) = streamed(Array(doc.utf8), s) { #expect(e.kind == .malformed && e.message.contains("DOCTYPE")) }
        }
        let xxe = try PayloadFixtures.bytes(PayloadFixtures.olingo2 + "xxe.xml")
        for s in Self.settings { same(xxe, s, "xxe.xml") }
    }

    /// Atom lets `atom:category` come after the properties and inline links it types: the
    /// streaming decoder then types with the declared type and, when the category names another,
    /// decodes again with the categories known (the reference always sees the whole entry).
    @Test func categoryAfterTheValuesItTypes() throws {
        var changed = 0, secondPasses = 0
        for (f, body) in try Self.atomFixtures() {
            let text = String(decoding: body, as: UTF8.self)
            let moved = Self.moveCategoriesToEntryEnd(text)
            guard moved != text else { continue }
            changed += 1
            for s in Self.settings {
                same(Array(moved.utf8), s, f + " (category last)")
                if Self.needsSecondPass(Array(moved.utf8), s) { secondPasses += 1 }
            }
        }
        #expect(changed >= 15)
        #expect(secondPasses >= 10)  // the replay path is exercised
    }

    /// Repeated properties and inline links are refused, as JSON refuses a repeated member
    /// (docs/json-shape.md "Duplicate properties"), naming the member.
    @Test func repeatedMembers() throws {
        var changed = 0
        for (f, body) in try Self.atomFixtures() {
            let text = String(decoding: body, as: UTF8.self)
            for variant in [Self.repeatFirstProperty(text), Self.repeatRelatedLinks(text)] where variant != text {
                changed += 1
                for s in Self.settings {
                    same(Array(variant.utf8), s, f + " (repeated)")
                    guard case .failure(let e) = streamed(Array(variant.utf8), s) else {
                        Issue.record("\(f) (repeated): decoded"); continue
                    }
                    #expect(e.kind == .invalid && e.message.hasPrefix("duplicate property \""), "\(f): \(e)")
                }
            }
        }
        #expect(changed >= 15)
    }

    /// Links resolved against other `xml:base` values: relative, without a path, without a
    /// trailing slash, non-ASCII, and on every entry; hrefs made absolute paths.
    @Test func otherBases() throws {
        var changed = 0
        for (f, body) in try Self.atomFixtures() where body.count < 100_000 {
            let text = String(decoding: body, as: UTF8.self)
            guard let r = text.range(of: #"xml:base=""#), let end = text[r.upperBound...].firstIndex(of: "\"") else { continue }
            let original = String(text[r.lowerBound...end])
            for base in ["svc/Ref.svc", "http://host", "https://hôst/ß/Ref.svc/", ""] {
                let rebased = text.replacingOccurrences(of: original, with: #"xml:base=""# + base + #"""#)
                let onEntries = rebased.replacingOccurrences(of: "<entry>", with: #"<entry xml:base="e/">"#)
                let rooted = rebased.replacingOccurrences(of: #"href=""#, with: #"href="/"#)
                for variant in [rebased, onEntries, rooted] {
                    changed += 1
                    for s in Self.settings.prefix(2) { same(Array(variant.utf8), s, f + " (base \(base))") }
                }
            }
        }
        #expect(changed >= 60)
    }

    @Test func valueAndLinksRoots() throws {
        let o2 = PayloadFixtures.olingo2
        let employees = Setting(model: PayloadModels.refScenario, set: "Employees")
        var values = 0
        for f in PayloadFixtures.files(under: o2, extensions: [".xml"]) {
            let body = try PayloadFixtures.bytes(f)
            let text = String(decoding: body, as: UTF8.self)
            // Every d: property element of the fixture, as a property response of its own.
            var rest = text[...]
            var n = 0
            while n < 40, let open = rest.range(of: "<d:"), let nameEnd = rest[open.upperBound...].firstIndex(where: { $0 == ">" || $0 == " " || $0 == "/" }) {
                let name = rest[open.upperBound..<nameEnd]
                let close = "</d:\(name)>"
                guard let end = rest[open.lowerBound...].range(of: close) else { rest = rest[nameEnd...]; continue }
                let element = String(rest[open.lowerBound..<end.upperBound])
                let doc = #"<?xml version="1.0"?>"# + element.replacingOccurrences(
                    of: "<d:\(name)", with: "<d:\(name) xmlns:d=\"http://schemas.microsoft.com/ado/2007/08/dataservices\" "
                        + "xmlns:m=\"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata\"", options: [], range: nil)
                for s in Self.settings + [employees,
                                          Setting(model: PayloadModels.refScenario, set: nil,
                                                  target: .value(TypeReference(name: "RefScenario.c_Location", isCollection: false,
                                                                               nullable: true)))] {
                    same(Array(doc.utf8), s, "\(f): <d:\(name)>")
                    if case .success(let r) = streamed(Array(doc.utf8), s), r.json.hasPrefix(#"{"value":"#) { values += 1 }
                }
                rest = rest[end.upperBound...]
                n += 1
            }
        }
        #expect(values > 500)
        let links = #"<links xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices"><uri>http://host/Employees('1')</uri><uri>http://host/Employees('2')</uri></links>"#
        let uri = #"<uri xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices">http://host/Employees('1')</uri>"#
        let plainLinks = #"<links><uri>a<b>c</b>d</uri>x<uri/></links>"#
        for doc in [links, uri, plainLinks] {
            for s in Self.settings { same(Array(doc.utf8), s, doc) }
        }
    }

    /// The byte fast paths of `AtomLiteral.write` against its `String` conversion, for every
    /// character data of the Atom fixtures and variants of it, in every primitive kind.
    @Test func literalConversions() throws {
        var texts = Set<String>()
        for (_, body) in try Self.atomFixtures() {
            for piece in String(decoding: body, as: UTF8.self).split(separator: "<") {
                guard let gt = piece.firstIndex(of: ">") else { continue }
                texts.insert(String(piece[piece.index(after: gt)...]))
            }
        }
        var variants: [String] = ["1", "-0", "007", "1.5E+10", "NaN", "-INF", "true", "0", " false ", "1999-01-01T00:00",
                                  "1999-13-01T00:00", "99999999999999999999-01-01T00:00:00", "-0001-01-01T00:00:00.123",
                                  "2000-02-30T24:00:60", "PT13H20M", "AQID", "AQ-_"]
        for t in texts {
            let more: [String] = [t, " " + t, t + "\t", t + "Z", t + "z", t + ".5", t + ".", t + "+01:00", "-" + t, "+" + t,
                                  t + "e5", t + "E-2", "0" + t, "." + t, t + "d", String(t.dropLast()), String(t.dropLast(3)),
                                  t + ":60", t + "é", "\u{212A}" + t]
            variants += more
        }
        #expect(variants.count > 1000)
        for t in variants {
            for kind in EdmPrimitiveKind.allCases {
                var fast = AtomByteWriter(capacity: 0)
                Array(t.utf8).withUnsafeBufferPointer { AtomLiteral.write($0, kind, into: &fast) }
                var reference: [UInt8] = []
                AtomLiteral.value(t, kind).write(into: &reference)
                #expect(Array(fast.span(0..<fast.count)) == reference, "\(kind) \(t.debugDescription)")
            }
        }
    }

    /// The word-at-a-time JSON string escaping against `JSONWriter`'s, on every byte value in
    /// every position of a word, and on the fixtures' text.
    @Test func stringEscaping() throws {
        var inputs: [[UInt8]] = try Self.atomFixtures().map(\.1)
        for b in 0...255 {
            for position in 0..<17 {
                var s = Array("abcdefghijklmnopq".utf8)
                s[position] = UInt8(b)
                inputs.append(s)
                inputs.append(Array(s.prefix(position + 1)))
            }
        }
        for input in inputs {
            var fast = AtomByteWriter(capacity: 0)
            input.withUnsafeBufferPointer { fast.appendEscaped($0) }
            var reference: [UInt8] = []
            input.withUnsafeBufferPointer { JSONWriter.writeEscaped($0, into: &reference) }
            #expect(Array(fast.span(0..<fast.count)) == reference)
        }
    }

    @Test func seededMutants() throws {
        let inputs = try Self.atomFixtures().map(\.1).filter { $0.count < 40_000 }
        var rng = SeededRandom(seed: 0x57EA)
        var agreed = 0, decoded = 0
        for n in 0..<3000 {
            let m = MutationFuzzTests.mutate(inputs[n % inputs.count], &rng)
            let s = Self.settings[n % Self.settings.count]
            if same(m, s, "mutant \(n)") { agreed += 1 }
            if case .success = streamed(m, s) { decoded += 1 }
        }
        #expect(agreed == 3000)
        #expect(decoded > 300)  // mutants that still decode are compared too, not only errors
    }

    /// True when the first streaming pass over `body` hit a late category that changed a type.
    static func needsSecondPass(_ body: [UInt8], _ s: Setting) -> Bool {
        let index = s.model.map(PayloadModelIndex.init)
        let sink = AtomEventSink(AtomStreamDecoder(index: index, declared: s.set.flatMap { index?.typeOfSet($0) },
                                                   target: s.target, capacity: 0))
        guard (try? AtomDecoder.parse(body, into: sink)) != nil else { return false }
        return sink.decoder.conflict
    }

    // MARK: Variants of real documents

    /// Moves the first `<category .../>` of every entry to just before its `</entry>`.
    static func moveCategoriesToEntryEnd(_ text: String) -> String {
        var out = ""
        var rest = text[...]
        while let c = rest.range(of: "<category ") {
            guard let close = rest[c.lowerBound...].range(of: "/>"),
                  let entryEnd = rest[close.upperBound...].range(of: "</entry>") else { break }
            let category = rest[c.lowerBound..<close.upperBound]
            // Only when no other entry starts in between (nested inline entries keep their own).
            if rest[close.upperBound..<entryEnd.lowerBound].contains("<entry") {
                out += rest[..<close.upperBound]
                rest = rest[close.upperBound...]
                continue
            }
            out += rest[..<c.lowerBound]
            out += rest[close.upperBound..<entryEnd.lowerBound]
            out += category
            out += "</entry>"
            rest = rest[entryEnd.upperBound...]
        }
        return out + rest
    }

    /// Repeats each entry's first `d:` property with another value after the properties.
    static func repeatFirstProperty(_ text: String) -> String {
        guard let p = text.range(of: "<m:properties>"),
              let open = text[p.upperBound...].range(of: "<d:"),
              let nameEnd = text[open.upperBound...].firstIndex(where: { $0 == ">" || $0 == " " || $0 == "/" }) else { return text }
        let name = text[open.upperBound..<nameEnd]
        return text.replacingOccurrences(of: "</m:properties>", with: "<d:\(name)>repeated</d:\(name)></m:properties>")
    }

    /// Repeats the first related link that holds an inline feed or entry (the same name twice,
    /// the copy after the original).
    static func repeatRelatedLinks(_ text: String) -> String {
        guard let inline = text.range(of: "<m:inline"),
              let start = text[..<inline.lowerBound].range(of: "<link ", options: .backwards) else { return text }
        // The matching </link>: count the non-empty <link> elements opened inside.
        var level = 0
        var i = start.lowerBound
        while i < text.endIndex {
            if text[i...].hasPrefix("</link>") {
                level -= 1
                if level == 0 {
                    let end = text.index(i, offsetBy: 7)
                    let link = text[start.lowerBound..<end]
                    return String(text[..<end]) + link + text[end...]
                }
            } else if text[i...].hasPrefix("<link "), let close = text[i...].firstIndex(of: ">"),
                      text[text.index(before: close)] != "/" {
                level += 1
            }
            i = text.index(after: i)
        }
        return text
    }
}
