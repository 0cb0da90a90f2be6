/// The parsed `$metadata` of one service, in one model for V2 and V4.
///
/// Immutable and `Sendable`: build it once (see `MetadataParser`) and share it between threads.
/// Type lookups take namespace-qualified names; aliases are resolved at load time.
public struct ServiceModel: Sendable {
    /// The fields, shared by copies until one of them changes (copy on write): a model is
    /// handed to every request, decode and lookup, and copying fourteen fields with reference
    /// counts each time was a measurable part of a request's CPU. `@unchecked Sendable`: a
    /// `Storage` that more than one value shares is never mutated (`makeUnique()` copies it).
    private final class Storage: @unchecked Sendable {
        var version: ODataVersion
        var declaredVersion: String?
        var maxDataServiceVersion: String?
        var referencedNamespaces: [String]
        var warnings: [MetadataError]
        var namespaces: [String]
        var aliases: [String: String]
        var types: [String: StructuredType]
        var enumTypes: [String: EnumType]
        var typeDefinitions: [String: String]
        var entitySets: [String: EntitySet]
        var containerName: String
        var operationImports: [String: Operation]
        var operations: [String: [Operation]]

        init(version: ODataVersion,
             declaredVersion: String?,
             maxDataServiceVersion: String?,
             referencedNamespaces: [String],
             warnings: [MetadataError],
             namespaces: [String],
             aliases: [String: String],
             types: [String: StructuredType],
             enumTypes: [String: EnumType],
             typeDefinitions: [String: String],
             entitySets: [String: EntitySet],
             containerName: String,
             operationImports: [String: Operation],
             operations: [String: [Operation]]) {
            self.version = version
            self.declaredVersion = declaredVersion
            self.maxDataServiceVersion = maxDataServiceVersion
            self.referencedNamespaces = referencedNamespaces
            self.warnings = warnings
            self.namespaces = namespaces
            self.aliases = aliases
            self.types = types
            self.enumTypes = enumTypes
            self.typeDefinitions = typeDefinitions
            self.entitySets = entitySets
            self.containerName = containerName
            self.operationImports = operationImports
            self.operations = operations
        }

        func copy() -> Storage {
            Storage(version: version,
                    declaredVersion: declaredVersion,
                    maxDataServiceVersion: maxDataServiceVersion,
                    referencedNamespaces: referencedNamespaces,
                    warnings: warnings,
                    namespaces: namespaces,
                    aliases: aliases,
                    types: types,
                    enumTypes: enumTypes,
                    typeDefinitions: typeDefinitions,
                    entitySets: entitySets,
                    containerName: containerName,
                    operationImports: operationImports,
                    operations: operations)
        }
    }

    private var storage: Storage

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// The protocol family: `.v2` for EDMX 1.0 documents (DataServiceVersion 1.0, 2.0 and
    /// 3.0) and bare Microsoft-namespace `Schema`s, `.v4` for OASIS EDMX 4.0/4.01.
    public var version: ODataVersion {
        get { storage.version }
        _modify { makeUnique(); yield &storage.version }
    }
    /// The version the document states: `m:DataServiceVersion` ("1.0", "2.0", "3.0") for
    /// EDMX 1.0 documents, the `edmx:Edmx` `Version` ("4.0", "4.01") for V4; nil when the
    /// document does not say (bare `Schema`, missing attribute).
    public var declaredVersion: String? {
        get { storage.declaredVersion }
        _modify { makeUnique(); yield &storage.declaredVersion }
    }
    /// EDMX 1.0 documents: `m:MaxDataServiceVersion`, if present (e.g. "3.0").
    public var maxDataServiceVersion: String? {
        get { storage.maxDataServiceVersion }
        _modify { makeUnique(); yield &storage.maxDataServiceVersion }
    }
    /// Namespaces included from other documents through `edmx:Reference`/`edmx:Include`
    /// (vocabularies, ...). Their aliases are in `aliases`; their types are not loaded.
    public var referencedNamespaces: [String] {
        get { storage.referencedNamespaces }
        _modify { makeUnique(); yield &storage.referencedNamespaces }
    }
    /// Problems the parser tolerated (dangling references, skipped elements, duplicate
    /// names, constructs of the other protocol version), in document order.
    /// `MetadataParser.Options.strict` turns the first one into a thrown error instead.
    public var warnings: [MetadataError] {
        get { storage.warnings }
        _modify { makeUnique(); yield &storage.warnings }
    }
    /// Schema namespaces in document order, and alias -> namespace.
    public var namespaces: [String] {
        get { storage.namespaces }
        _modify { makeUnique(); yield &storage.namespaces }
    }
    public var aliases: [String: String] {
        get { storage.aliases }
        _modify { makeUnique(); yield &storage.aliases }
    }
    /// Entity and complex types by qualified name.
    public var types: [String: StructuredType] {
        get { storage.types }
        _modify { makeUnique(); yield &storage.types }
    }
    public var enumTypes: [String: EnumType] {
        get { storage.enumTypes }
        _modify { makeUnique(); yield &storage.enumTypes }
    }
    /// V4 `TypeDefinition`s: qualified name -> underlying primitive type name.
    public var typeDefinitions: [String: String] {
        get { storage.typeDefinitions }
        _modify { makeUnique(); yield &storage.typeDefinitions }
    }
    /// Entity sets and singletons of the (default) entity container, by name. V2 sets of
    /// other (non-default) containers are included under their URL form
    /// `Container.SetName`, which is also their `EntitySet.name`.
    public var entitySets: [String: EntitySet] {
        get { storage.entitySets }
        _modify { makeUnique(); yield &storage.entitySets }
    }
    /// The container's name (V2 the default container, `m:IsDefaultEntityContainer`).
    public var containerName: String {
        get { storage.containerName }
        _modify { makeUnique(); yield &storage.containerName }
    }
    /// Operations callable from the service root (V2 function imports, V4 function/action
    /// imports, resolved to their operation), by URL name.
    public var operationImports: [String: Operation] {
        get { storage.operationImports }
        _modify { makeUnique(); yield &storage.operationImports }
    }
    /// All V4 functions/actions (bound and unbound) by qualified name; overloads share a name.
    public var operations: [String: [Operation]] {
        get { storage.operations }
        _modify { makeUnique(); yield &storage.operations }
    }

    public init(version: ODataVersion, namespaces: [String] = [], aliases: [String: String] = [:],
                types: [String: StructuredType] = [:], enumTypes: [String: EnumType] = [:],
                typeDefinitions: [String: String] = [:], entitySets: [String: EntitySet] = [:],
                containerName: String = "", operationImports: [String: Operation] = [:],
                operations: [String: [Operation]] = [:], declaredVersion: String? = nil,
                maxDataServiceVersion: String? = nil, referencedNamespaces: [String] = [],
                warnings: [MetadataError] = []) {
        storage = Storage(version: version,
                          declaredVersion: declaredVersion,
                          maxDataServiceVersion: maxDataServiceVersion,
                          referencedNamespaces: referencedNamespaces,
                          warnings: warnings,
                          namespaces: namespaces,
                          aliases: aliases,
                          types: types,
                          enumTypes: enumTypes,
                          typeDefinitions: typeDefinitions,
                          entitySets: entitySets,
                          containerName: containerName,
                          operationImports: operationImports,
                          operations: operations)
    }

    /// Resolves an alias-qualified name (`self.Person`, `Alias.Type`) to its namespace-qualified form.
    public func resolve(_ qualifiedName: String) -> String {
        guard let dot = qualifiedName.lastIndex(of: ".") else { return qualifiedName }
        let prefix = String(qualifiedName[..<dot])
        if let ns = aliases[prefix] { return ns + qualifiedName[dot...] }
        return qualifiedName
    }

    public func structuredType(_ qualifiedName: String) -> StructuredType? { types[resolve(qualifiedName)] }

    public func entityType(ofSet set: String) -> StructuredType? {
        guard let s = entitySets[set] else { return nil }
        return structuredType(s.entityType)
    }

    /// The most base types a structured type may have (the length of its `BaseType` chain):
    /// `MetadataParser` refuses a document with a deeper chain, and the inherited-member
    /// lookups (`lineage(of:)`, `firstInLineage`) stop after this many base types, so none
    /// costs more than that many steps. Real services derive a few levels deep.
    public static let maxInheritanceDepth = 64

    /// The base-type chain of `type`, starting with the type itself (stops on cycles, and
    /// after `maxInheritanceDepth` base types). O(depth²) name comparisons for the cycle check,
    /// which for the usual one to three levels is cheaper than a set.
    public func lineage(of type: StructuredType) -> [StructuredType] {
        var chain = [type]
        var current = type
        while chain.count <= Self.maxInheritanceDepth, let b = current.baseType, let base = structuredType(b),
              !chain.contains(where: { $0.qualifiedName == base.qualifiedName }) {
            chain.append(base)
            current = base
        }
        return chain
    }

    /// Key property names, inherited from the root of the base-type chain when not declared.
    public func key(of type: StructuredType) -> [String] {
        for t in lineage(of: type) where !t.key.isEmpty { return t.key }
        return []
    }

    /// Structural properties including inherited ones, base type first.
    public func allProperties(of type: StructuredType) -> [StructuralProperty] {
        lineage(of: type).reversed().flatMap(\.properties)
    }

    /// Navigation properties including inherited ones, base type first.
    public func allNavigationProperties(of type: StructuredType) -> [NavigationProperty] {
        lineage(of: type).reversed().flatMap(\.navigationProperties)
    }

    public func property(_ name: String, of type: StructuredType) -> StructuralProperty? {
        firstInLineage(of: type) { $0.property(named: name) }
    }

    public func navigationProperty(_ name: String, of type: StructuredType) -> NavigationProperty? {
        firstInLineage(of: type) { $0.navigationProperty(named: name) }
    }

    /// Walks `type` and its base types (at most `maxInheritanceDepth`, which also stops on
    /// cycles) without allocating, returning the first non-nil result of `body`.
    @inlinable
    public func firstInLineage<T>(of type: StructuredType, _ body: (StructuredType) -> T?) -> T? {
        if let r = body(type) { return r }
        var next = type.baseType
        var steps = 0
        while let b = next, steps < Self.maxInheritanceDepth, let base = types[b] ?? structuredType(b) {
            if let r = body(base) { return r }
            next = base.baseType
            steps += 1
        }
        return nil
    }

    /// The primitive kind of a type name, looking through V4 type definitions and enums
    /// (enums report nil: they are not primitive).
    public func primitiveKind(of typeName: String) -> EdmPrimitiveKind? {
        if let k = EdmPrimitiveKind(qualifiedName: typeName) { return k }
        if let underlying = typeDefinitions[resolve(typeName)] { return EdmPrimitiveKind(qualifiedName: underlying) }
        return nil
    }
}

/// Two models are equal when every part is, warnings included (positions too).
extension ServiceModel: Equatable {
    public static func == (a: ServiceModel, b: ServiceModel) -> Bool {
        if a.storage === b.storage { return true }
        return a.version == b.version
            && a.declaredVersion == b.declaredVersion
            && a.maxDataServiceVersion == b.maxDataServiceVersion
            && a.referencedNamespaces == b.referencedNamespaces
            && a.warnings == b.warnings
            && a.namespaces == b.namespaces
            && a.aliases == b.aliases
            && a.types == b.types
            && a.enumTypes == b.enumTypes
            && a.typeDefinitions == b.typeDefinitions
            && a.entitySets == b.entitySets
            && a.containerName == b.containerName
            && a.operationImports == b.operationImports
            && a.operations == b.operations
    }
}
