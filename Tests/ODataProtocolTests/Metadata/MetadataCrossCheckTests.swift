import Testing
@testable import ODataProtocol

/// The same service described by different documents must give the same model.
@Suite("Metadata: cross-checks between documents")
struct MetadataCrossCheckTests {
    /// Two independent copies of TripPin (OASIS TC, Olingo): identical models; they differ
    /// only in the OASIS copy's vocabulary references (and comments/whitespace).
    @Test func tripPinCopiesAgree() throws {
        let a = try MetadataParser.parse(MetadataFixture.tripPinOASIS.bytes())
        let b = try MetadataParser.parse(MetadataFixture.tripPinOlingo.bytes())
        #expect(a.version == b.version && a.declaredVersion == b.declaredVersion)
        #expect(a.namespaces == b.namespaces && a.containerName == b.containerName)
        #expect(a.types == b.types)
        #expect(a.enumTypes == b.enumTypes)
        #expect(a.typeDefinitions == b.typeDefinitions)
        #expect(a.entitySets == b.entitySets)
        #expect(a.operations == b.operations)
        #expect(a.operationImports == b.operationImports)
        #expect(a.referencedNamespaces == ["Org.OData.Core.V1", "Org.OData.Measures.V1", "Org.OData.Capabilities.V1"])
        #expect(b.referencedNamespaces.isEmpty)
    }

    /// Northwind as V2 (services.odata.org via pyodata), V3 (OASIS), bare CSDL 1.0
    /// (odata.net) and V4 (OASIS, Olingo): the version-independent parts of the model agree.
    @Test func northwindAcrossVersions() throws {
        let v2 = try MetadataParser.parse(MetadataFixture.northwindV2.bytes())
        let v3 = try MetadataParser.parse(MetadataFixture.northwindV3.bytes())
        let v4 = try MetadataParser.parse(MetadataFixture.northwindV4OASIS.bytes())
        let v4b = try MetadataParser.parse(MetadataFixture.northwindV4Olingo.bytes())
        let bare = try MetadataParser.parse(MetadataFixture.northwindBareSchema.bytes())

        // Same entity set names in the V2, V3 and both V4 copies. odata.net's older copy
        // names 11 of the 26 sets differently (Region vs Regions, ...): 15 in common
        // (python3 xml.etree set intersection).
        let names = Set(v4.entitySets.keys)
        #expect(names.count == 26)
        for m in [v2, v3, v4b] { #expect(Set(m.entitySets.keys) == names) }
        #expect(Set(bare.entitySets.keys).intersection(names).count == 15)

        for m in [v2, v3, v4b] {
            for (name, set) in v4.entitySets {
                let other = try #require(m.entitySets[name])
                #expect(other.entityType == set.entityType, "\(name)")
                // V2 bindings come from association sets, V4 ones are declared: same result.
                #expect(other.navigationBindings == set.navigationBindings, "\(name)")
                let t4 = try #require(v4.structuredType(set.entityType))
                let t = try #require(m.structuredType(set.entityType))
                #expect(Set(t.key) == Set(t4.key), "\(name)")
                #expect(t.properties.map(\.name) == t4.properties.map(\.name), "\(name)")
                // V2/V3 Edm.DateTime became Edm.DateTimeOffset in V4.
                let v4Names = t.properties.map { $0.type.name == "Edm.DateTime" ? "Edm.DateTimeOffset" : $0.type.name }
                #expect(v4Names == t4.properties.map(\.type.name), "\(name)")
                #expect(t.properties.map(\.type.nullable) == t4.properties.map(\.type.nullable), "\(name)")
                #expect(t.properties.map(\.type.maxLength) == t4.properties.map(\.type.maxLength), "\(name)")
                for n4 in t4.navigationProperties {
                    let n = try #require(t.navigationProperty(named: n4.name), "\(name)/\(n4.name)")
                    #expect(n.targetType == n4.targetType && n.isCollection == n4.isCollection, "\(name)/\(n4.name)")
                    #expect(n.partner == n4.partner, "\(name)/\(n4.name)")
                    #expect(constraintStrings(n) == constraintStrings(n4), "\(name)/\(n4.name)")
                }
                #expect(t.navigationProperties.count == t4.navigationProperties.count)
            }
        }
        // The odata.net copy's tables: same keys and navigation targets for the sets in common.
        for name in Set(bare.entitySets.keys).intersection(names).sorted() {
            let t4 = try #require(v4.entityType(ofSet: name))
            let t = try #require(bare.entityType(ofSet: name))
            #expect(Set(bare.key(of: t)) == Set(v4.key(of: t4)), "\(name)")
            #expect(t.navigationProperties.count == t4.navigationProperties.count, "\(name)")
        }
    }
}
