import Testing
@testable import ODataProtocol

/// `BaseType` chains: resolved once per document (`CSDLLoader+Inheritance.swift`), so loading
/// is linear in the number of types; a chain longer than `ServiceModel.maxInheritanceDepth`
/// refuses the document; cycles are reported as before.
@Suite struct InheritanceDepthTests {
    static let limit = ServiceModel.maxInheritanceDepth

    /// A V4 document with `chains` chains of `depth` base types each: `C<c>T0` has the key,
    /// `C<c>T<i>` derives from `C<c>T<i-1>` and adds `P<i>`; a set on each chain's deepest type.
    static func document(depth: Int, chains: Int = 1) -> String {
        var types = "", sets = ""
        for c in 0..<chains {
            types += #"<EntityType Name="C\#(c)T0"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>"#
            for i in stride(from: 1, through: depth, by: 1) {
                types += #"<EntityType Name="C\#(c)T\#(i)" BaseType="NS.C\#(c)T\#(i - 1)"><Property Name="P\#(i)" Type="Edm.Int32"/></EntityType>"#
            }
            sets += #"<EntitySet Name="S\#(c)" EntityType="NS.C\#(c)T\#(depth)"/>"#
        }
        return """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
            <Schema Namespace="NS" xmlns="http://docs.oasis-open.org/odata/ns/edm">\(types)
            <EntityContainer Name="X">\(sets)</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>
            """
    }

    @Test func chainAtTheLimitLoads() throws {
        let m = try MetadataParser.parse(Self.document(depth: Self.limit), options: .init(strict: true))
        #expect(m.warnings.isEmpty)
        let deepest = try #require(m.entityType(ofSet: "S0"))
        #expect(m.lineage(of: deepest).count == Self.limit + 1)
        #expect(m.key(of: deepest) == ["ID"])  // from the root, 64 types up
        #expect(m.property("ID", of: deepest) != nil && m.property("P1", of: deepest) != nil)
        #expect(m.allProperties(of: deepest).count == Self.limit + 1)
        #expect(m.isType("NS.C0T\(Self.limit)", derivedFrom: "NS.C0T0"))
        let index = PayloadModelIndex(m)
        #expect(index.typeOfSet("S0")?.members.count == Self.limit + 1)
    }

    @Test func chainBeyondTheLimitIsRefused() {
        for strict in [false, true] {
            for depth in [Self.limit + 1, 1000] {
                #expect {
                    _ = try MetadataParser.parse(Self.document(depth: depth), options: .init(strict: strict))
                } throws: { e in
                    guard let e = e as? MetadataError else { return false }
                    // The type where the chain crosses the limit, the limit, and where it is declared.
                    return e.kind == .invalidElement && e.line != nil
                        && e.message == "entity type NS.C0T\(Self.limit + 1) has \(Self.limit + 1) base types (BaseType chain), more than the \(Self.limit) this library loads"
                }
            }
        }
    }

    /// The same through CSDL JSON (the same loader).
    @Test func csdlJSONChainBeyondTheLimitIsRefused() {
        var members = #""T0":{"$Kind":"EntityType","$Key":["ID"],"ID":{"$Type":"Edm.Int32"}}"#
        for i in 1...(Self.limit + 1) { members += #","T\#(i)":{"$Kind":"EntityType","$BaseType":"NS.T\#(i - 1)"}"# }
        let json = #"{"$Version":"4.01","NS":{\#(members)}}"#
        #expect {
            _ = try MetadataParser.parse(Array(json.utf8))
        } throws: { e in
            (e as? MetadataError)?.message.hasPrefix("entity type NS.T\(Self.limit + 1) has \(Self.limit + 1) base types") == true
        }
    }

    /// Many chains at the limit (10,000 types): every type's chain is resolved once.
    @Test func manyDeepChainsLoad() throws {
        let chains = 10_000 / (Self.limit + 1) + 1
        let m = try MetadataParser.parse(Self.document(depth: Self.limit, chains: chains))
        #expect(m.warnings.isEmpty)
        #expect(m.types.count == chains * (Self.limit + 1))
        for c in [0, chains - 1] {
            let t = try #require(m.entityType(ofSet: "S\(c)"))
            #expect(m.key(of: t) == ["ID"])
        }
    }

    /// Cycles and chains into them are warned about as before (each type once), chains past
    /// a cycle keep their key; a missing key under an unknown base type stays unreported.
    @Test func cyclesAndUnknownBasesAsBefore() throws {
        let xml = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
              <Schema Namespace="C" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <EntityType Name="A" BaseType="C.B"/>
                <EntityType Name="B" BaseType="C.A"><Key><PropertyRef Name="a"/></Key><Property Name="a" Type="Edm.Int32"/></EntityType>
                <EntityType Name="D" BaseType="C.A"/>
                <EntityType Name="E" BaseType="C.D"/>
                <EntityType Name="F" BaseType="C.Missing"/>
                <EntityType Name="G" BaseType="C.F"/>
                <EntityType Name="H"/>
              </Schema></edmx:DataServices></edmx:Edmx>
            """
        let m = try MetadataParser.parse(xml)
        let cycles = m.warnings.filter { $0.message.hasSuffix("its base types form a cycle") }.map { $0.message.prefix(3) }
        #expect(cycles.sorted() == ["C.A", "C.B", "C.D", "C.E"])
        #expect(m.warnings.filter { $0.message.contains("has no key") }.map(\.message) == ["entity type C.H has no key"])
        #expect(m.warnings(.danglingReference).map(\.message) == ["C.F: unknown base type C.Missing"])
        let e = try #require(m.type("C.E"))
        #expect(m.key(of: e) == ["a"] && m.lineage(of: e).map(\.name) == ["E", "D", "A", "B"])
    }

    /// A cycle longer than the limit is a chain longer than the limit.
    @Test func longCycleIsRefused() {
        var types = ""
        for i in 0..<200 { types += #"<EntityType Name="T\#(i)" BaseType="C.T\#((i + 1) % 200)"/>"# }
        let xml = #"<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices><Schema Namespace="C" xmlns="http://docs.oasis-open.org/odata/ns/edm">\#(types)</Schema></edmx:DataServices></edmx:Edmx>"#
        #expect {
            _ = try MetadataParser.parse(xml)
        } throws: { e in
            (e as? MetadataError)?.message == "entity type C.T0 has 199 base types (BaseType chain), more than the \(Self.limit) this library loads"
        }
    }

    /// A model built in code is not checked, but its lookups stop after the limit.
    @Test func lookupsStopAtTheLimit() {
        var types: [String: StructuredType] = [:]
        for i in 0..<500 {
            types["N.T\(i)"] = StructuredType(kind: .entity, namespace: "N", name: "T\(i)", baseType: i > 0 ? "N.T\(i - 1)" : nil,
                                              key: i == 0 ? ["ID"] : [])
        }
        let m = ServiceModel(version: .v4, namespaces: ["N"], types: types)
        let deep = types["N.T499"]!
        #expect(m.lineage(of: deep).count == Self.limit + 1)
        #expect(m.key(of: deep).isEmpty)  // the root is out of reach
        #expect(m.key(of: types["N.T\(Self.limit)"]!) == ["ID"])
    }
}
