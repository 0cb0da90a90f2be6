/// The parsed `$metadata` of one service, in one model for V2 and V4.
///
/// Immutable and `Sendable`: build it once (see `MetadataParser`) and share it between threads.
/// Type lookups take namespace-qualified names; aliases are resolved at load time.
public struct ServiceModel: Sendable {
    public var version: ODataVersion
    /// Schema namespaces in document order, and alias -> namespace.
    public var namespaces: [String]
    public var aliases: [String: String]
    /// Entity and complex types by qualified name.
    public var types: [String: StructuredType]
    public var enumTypes: [String: EnumType]
    /// V4 `TypeDefinition`s: qualified name -> underlying primitive type name.
    public var typeDefinitions: [String: String]
    /// Entity sets and singletons of the (default) entity container, by name.
    public var entitySets: [String: EntitySet]
    /// The container's name (V2 the default container, `m:IsDefaultEntityContainer`).
    public var containerName: String
    /// Operations callable from the service root (V2 function imports, V4 function/action
    /// imports, resolved to their operation), by URL name.
    public var operationImports: [String: Operation]
    /// All V4 functions/actions (bound and unbound) by qualified name; overloads share a name.
    public var operations: [String: [Operation]]

    public init(version: ODataVersion, namespaces: [String] = [], aliases: [String: String] = [:],
                types: [String: StructuredType] = [:], enumTypes: [String: EnumType] = [:],
                typeDefinitions: [String: String] = [:], entitySets: [String: EntitySet] = [:],
                containerName: String = "", operationImports: [String: Operation] = [:],
                operations: [String: [Operation]] = [:]) {
        self.version = version
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

    /// The base-type chain of `type`, starting with the type itself (stops on cycles).
    public func lineage(of type: StructuredType) -> [StructuredType] {
        var chain = [type]
        var seen: Set<String> = [type.qualifiedName]
        var current = type
        while let b = current.baseType, let base = structuredType(b), seen.insert(base.qualifiedName).inserted {
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
        for t in lineage(of: type) { if let p = t.property(named: name) { return p } }
        return nil
    }

    public func navigationProperty(_ name: String, of type: StructuredType) -> NavigationProperty? {
        for t in lineage(of: type) { if let p = t.navigationProperty(named: name) { return p } }
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
