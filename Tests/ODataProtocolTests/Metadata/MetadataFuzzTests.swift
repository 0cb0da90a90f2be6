import Testing
@testable import ODataProtocol

/// Writes an element tree back as XML (namespaces declared on every element that needs them).
private func serialize(_ e: XMLElement, into out: inout String, prefixes: [String: String]) {
    func escape(_ s: String) -> String {
        var r = ""
        for c in s {
            switch c {
            case "&": r += "&amp;"
            case "<": r += "&lt;"
            case "\"": r += "&quot;"
            case ">": r += "&gt;"
            default: r.append(c)
            }
        }
        return r
    }
    out += "<\(e.name) xmlns=\"\(escape(e.namespace))\""
    for (uri, p) in prefixes.sorted(by: { $0.value < $1.value }) { out += " xmlns:\(p)=\"\(escape(uri))\"" }
    for a in e.attributes {
        let name = a.namespace.isEmpty ? a.name : "\(prefixes[a.namespace] ?? "x"):\(a.name)"
        out += " \(name)=\"\(escape(a.value))\""
    }
    out += ">" + escape(e.text)
    for c in e.children { serialize(c, into: &out, prefixes: [:]) }
    out += "</\(e.name)>"
}

private func serialize(_ root: XMLElement) -> [UInt8] {
    var namespaces: Set<String> = []
    func collect(_ e: XMLElement) {
        for a in e.attributes where !a.namespace.isEmpty { namespaces.insert(a.namespace) }
        e.children.forEach(collect)
    }
    collect(root)
    var prefixes: [String: String] = [:]
    for (i, ns) in namespaces.sorted().enumerated() {
        prefixes[ns] = ns == "http://www.w3.org/XML/1998/namespace" ? "xml" : "p\(i)"
    }
    prefixes["http://www.w3.org/XML/1998/namespace"] = nil
    var out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
    serialize(root, into: &out, prefixes: prefixes)
    return Array(out.utf8)
}

/// Tree-level mutations: the result is well-formed, so it reaches the CSDL loader.
private func mutateTree(_ root: XMLElement, valuePool: [String: [String]], rng: inout SeededRandom) -> XMLElement {
    var root = root
    // Walk down a random path and change something there.
    func mutate(_ e: inout XMLElement, depth: Int) {
        if !e.children.isEmpty, depth < 12, Int.random(in: 0..<3, using: &rng) != 0 {
            let i = Int.random(in: 0..<e.children.count, using: &rng)
            mutate(&e.children[i], depth: depth + 1)
            return
        }
        switch Int.random(in: 0..<8, using: &rng) {
        case 0 where !e.attributes.isEmpty:  // remove an attribute
            e.attributes.remove(at: Int.random(in: 0..<e.attributes.count, using: &rng))
        case 1 where !e.attributes.isEmpty:  // replace a value with another value of the same attribute name
            let i = Int.random(in: 0..<e.attributes.count, using: &rng)
            if let pool = valuePool[e.attributes[i].name], let v = pool.randomElement(using: &rng) {
                e.attributes[i].value = v
            }
        case 2 where !e.attributes.isEmpty:  // garbage value
            let i = Int.random(in: 0..<e.attributes.count, using: &rng)
            e.attributes[i].value = ["", " ", "Collection(", "Collection()", "Edm.", ".", "a.b.c.d", "-1",
                                     "99999999999999999999", "max", "variable", "true", "Collection(Collection(Edm.String))",
                                     "x/y/z", "/", "Self.", "é𝄞"].randomElement(using: &rng) ?? ""
        case 3 where !e.children.isEmpty:  // duplicate a child
            let i = Int.random(in: 0..<e.children.count, using: &rng)
            e.children.insert(e.children[i], at: Int.random(in: 0...e.children.count, using: &rng))
        case 4 where !e.children.isEmpty:  // remove a child
            e.children.remove(at: Int.random(in: 0..<e.children.count, using: &rng))
        case 5 where e.children.count > 1:  // swap children
            e.children.swapAt(Int.random(in: 0..<e.children.count, using: &rng), Int.random(in: 0..<e.children.count, using: &rng))
        case 6:  // rename the element to another CSDL element name
            e.name = ["EntityType", "ComplexType", "Property", "NavigationProperty", "Key", "PropertyRef", "Association",
                      "End", "EntityContainer", "EntitySet", "Singleton", "FunctionImport", "Function", "Action",
                      "Parameter", "ReturnType", "EnumType", "Member", "Schema", "DataServices", "Edmx"]
                .randomElement(using: &rng) ?? e.name
        default:  // move the namespace
            e.namespace = ["http://docs.oasis-open.org/odata/ns/edm", "http://schemas.microsoft.com/ado/2008/09/edm",
                           "http://docs.oasis-open.org/odata/ns/edmx", "urn:other", ""].randomElement(using: &rng) ?? ""
        }
    }
    mutate(&root, depth: 0)
    return root
}

/// Byte-level mutations: flips, truncation, splicing, duplicated/removed spans.
private func mutateBytes(_ bytes: [UInt8], other: [UInt8], rng: inout SeededRandom) -> [UInt8] {
    var b = bytes
    guard !b.isEmpty else { return b }
    switch Int.random(in: 0..<6, using: &rng) {
    case 0:  // byte flips
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
        }
    case 1:  // truncation
        b.removeLast(Int.random(in: 1...b.count, using: &rng))
    case 2:  // splice a piece of another document in
        let from = Int.random(in: 0..<other.count, using: &rng)
        let piece = other[from..<min(other.count, from + Int.random(in: 1...2000, using: &rng))]
        b.insert(contentsOf: piece, at: Int.random(in: 0...b.count, using: &rng))
    case 3, 4:  // duplicate or remove the span between two tag starts
        let starts = b.indices.filter { b[$0] == UInt8(ascii: "<") }
        guard starts.count > 2 else { break }
        let i = Int.random(in: 0..<(starts.count - 1), using: &rng)
        let j = min(starts.count - 1, i + Int.random(in: 1...6, using: &rng))
        let span = Array(b[starts[i]..<starts[j]])
        if Int.random(in: 0..<2, using: &rng) == 0 {
            b.insert(contentsOf: span, at: starts[j])
        } else {
            b.removeSubrange(starts[i]..<starts[j])
        }
    default:  // duplicate an attribute (a well-formedness error) or drop a quote
        let quotes = b.indices.filter { b[$0] == UInt8(ascii: "\"") }
        guard let q = quotes.randomElement(using: &rng) else { break }
        b.remove(at: q)
    }
    return b
}

/// Everything a caller might do with a model: none of it may trap or loop.
private func exercise(_ m: ServiceModel) -> Int {
    var n = 0
    for (name, set) in m.entitySets {
        if let t = m.entityType(ofSet: name) {
            n += m.key(of: t).count + m.allProperties(of: t).count + m.allNavigationProperties(of: t).count
            n += m.keyProperties(of: t).count + (m.hasETag(t) ? 1 : 0) + m.concurrencyTokens(of: t).count
            n += m.boundOperations(for: t.qualifiedName, isCollection: true).count
            for nav in t.navigationProperties { n += m.navigationTarget(ofSet: name, path: nav.name) == nil ? 0 : 1 }
            for p in t.properties { n += m.primitiveKind(of: p.type.name) == nil ? 0 : 1 }
        }
        n += set.navigationBindings.count
    }
    for t in m.types.values {
        n += m.lineage(of: t).count + m.derivedTypes(of: t.qualifiedName).count
        n += m.property("x", of: t) == nil ? 0 : 1
    }
    for e in m.warnings { n += e.description.count > 0 ? 1 : 0 }
    return n
}

@Suite("Metadata: fuzz")
struct MetadataFuzzTests {
    /// Mutations per XML document: 13 documents x 140 = 1820 (half tree-level, half
    /// byte-level), plus 2 x 150 for the CSDL JSON forms: 2120 in all.
    static let rounds = 140
    static let jsonRounds = 150

    /// A few thousand seeded mutations of the real documents: the parser must return a model
    /// or throw `MetadataError`, never trap or hang (the time limit catches a hang).
    @Test(.timeLimit(.minutes(5)), arguments: MetadataFixture.allCases)
    func mutatedDocumentsNeverCrash(_ fixture: MetadataFixture) throws {
        let original = try fixture.bytes()
        let tree = try XMLDocument.parse(original).root
        var pool: [String: [String]] = [:]
        func collect(_ e: XMLElement) {
            for a in e.attributes { pool[a.name, default: []].append(a.value) }
            e.children.forEach(collect)
        }
        collect(tree)
        let others = MetadataFixture.allCases
        var rng = SeededRandom(seed: 0x0DA7A5 &+ UInt64(others.firstIndex(of: fixture) ?? 0) &* 7919)
        var loaded = 0, rejected = 0, work = 0

        for round in 0..<Self.rounds {
            let input: [UInt8]
            if round % 2 == 0 {
                var mutated = tree
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    mutated = mutateTree(mutated, valuePool: pool, rng: &rng)
                }
                input = serialize(mutated)
            } else {
                let other = try (others.randomElement(using: &rng) ?? fixture).bytes()
                input = mutateBytes(original, other: other, rng: &rng)
                // The streaming reader must cope with the same bytes.
                if let reader = try? XMLPullReader(bytes: input, chunkSize: 257) {
                    while let e = try? reader.next() { _ = e }
                }
            }
            do {
                let model = try MetadataParser.parse(input, options: .init(strict: round % 7 == 0))
                work += exercise(model)
                loaded += 1
            } catch {
                #expect(!error.description.isEmpty)
                rejected += 1
            }
        }
        #expect(loaded + rejected == Self.rounds)
        // Tree mutations mostly keep documents loadable; byte mutations mostly do not.
        #expect(loaded > 0 && rejected > 0)
        #expect(work > 0)
    }

    /// CSDL JSON: TripPin and Northwind written as JSON, then mutated as bytes (JSON syntax)
    /// or as values (a member's value replaced by one of another JSON type or removed).
    @Test(.timeLimit(.minutes(5)), arguments: [MetadataFixture.tripPinOASIS, .northwindV4OASIS])
    func mutatedJSONNeverCrashes(_ fixture: MetadataFixture) throws {
        let json = CSDLXMLToJSON.convert(try XMLDocument.parse(fixture.bytes()).root)
        let original = Array(json.text.utf8)
        var rng = SeededRandom(seed: fixture == .tripPinOASIS ? 0x15_0A : 0x15_0B)
        var loaded = 0, rejected = 0, work = 0
        for round in 0..<Self.jsonRounds {
            var input: [UInt8]
            if round % 2 == 0 {
                var v = json
                for _ in 0..<Int.random(in: 1...3, using: &rng) { v = v.mutated(depth: 0, rng: &rng) }
                input = Array(v.text.utf8)
            } else {
                input = mutateBytes(original, other: original, rng: &rng)
                if input.first != UInt8(ascii: "{") { input.insert(UInt8(ascii: "{"), at: 0) }
            }
            do {
                work += exercise(try MetadataParser.parse(input, options: .init(strict: round % 5 == 0)))
                loaded += 1
            } catch {
                #expect(!error.description.isEmpty)
                rejected += 1
            }
        }
        #expect(loaded + rejected == Self.jsonRounds && loaded > 0 && rejected > 0 && work > 0)
    }

    /// Inheritance cycles and self-references must not make lookups loop. (The limit only
    /// catches a hang: Swift Testing counts it from the test's start, which on a 2-core CI
    /// machine includes waiting behind the other tests of the run; 1 minute was exceeded by
    /// that wait alone, 129 s, while the test itself takes milliseconds.)
    @Test(.timeLimit(.minutes(5)))
    func baseTypeCyclesTerminate() throws {
        let xml = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
              <Schema Namespace="C" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <EntityType Name="A" BaseType="C.B"><Property Name="a" Type="C.A"/>
                  <NavigationProperty Name="n" Type="C.A" Partner="n"/></EntityType>
                <EntityType Name="B" BaseType="C.A"><Key><PropertyRef Name="a"/></Key></EntityType>
                <EntityType Name="S" BaseType="C.S"/>
                <EntityContainer Name="X"><EntitySet Name="As" EntityType="C.A">
                  <NavigationPropertyBinding Path="n/n/n/C.B/n" Target="As"/></EntitySet>
                  <EntitySet Name="Ss" EntityType="C.S"/></EntityContainer>
              </Schema></edmx:DataServices></edmx:Edmx>
            """
        let m = try MetadataParser.parse(xml)
        #expect(m.warnings.filter { $0.message.contains("cycle") }.count == 3)
        #expect(exercise(m) > 0)
        let a = try #require(m.type("C.A"))
        #expect(m.lineage(of: a).map(\.name) == ["A", "B"])
        #expect(m.key(of: a) == ["a"])
        #expect(m.isType("C.A", derivedFrom: "C.B") && m.isType("C.B", derivedFrom: "C.A"))
    }
}
