/// An entity type or a complex type: both hold structural and navigation properties and
/// may derive from a base type. Inherited members are NOT copied in; use
/// `ServiceModel.allProperties(of:)` / `key(of:)` to see the flattened view.
///
/// Member lookups by name (`property(named:)`, `navigationProperty(named:)`) go through
/// dictionaries that are kept in step with the arrays whenever they change.
public struct StructuredType: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case entity, complex }

    public var kind: Kind
    /// Namespace-qualified name, e.g. `RMTSAMPLEFLIGHT.Travelagency`.
    public var qualifiedName: String
    public var name: String
    public var namespace: String
    /// Qualified name of the base type, if any.
    public var baseType: String?
    public var isAbstract: Bool
    public var isOpen: Bool
    /// Key property names as declared on this type (empty for complex types and for
    /// derived entity types, which inherit the key). For a V4 key on a path into a complex
    /// property (`<PropertyRef Name="Address/Zip" Alias="Zip"/>`) the entry is the alias,
    /// as used in key predicates; `keyAliases` maps it back to the path.
    public var key: [String]
    /// V4 key aliases: alias -> property path (`"Zip": "Address/Zip"`).
    public var keyAliases: [String: String]
    public var properties: [StructuralProperty] {
        didSet { propertyIndex = Self.index(properties.map(\.name)) }
    }
    public var navigationProperties: [NavigationProperty] {
        didSet { navigationIndex = Self.index(navigationProperties.map(\.name)) }
    }
    /// V2 `m:HasStream` / V4 `HasStream`: a media entity.
    public var hasStream: Bool
    /// SAP annotations on the type (`content-version`, `semantics`, `label`, ...), by local name.
    public var sapAnnotations: [String: String]

    private var propertyIndex: [String: Int]
    private var navigationIndex: [String: Int]

    public init(kind: Kind, namespace: String, name: String, baseType: String? = nil,
                isAbstract: Bool = false, isOpen: Bool = false, key: [String] = [],
                properties: [StructuralProperty] = [], navigationProperties: [NavigationProperty] = [],
                hasStream: Bool = false, keyAliases: [String: String] = [:],
                sapAnnotations: [String: String] = [:]) {
        self.kind = kind
        self.namespace = namespace
        self.name = name
        self.qualifiedName = namespace + "." + name
        self.baseType = baseType
        self.isAbstract = isAbstract
        self.isOpen = isOpen
        self.key = key
        self.keyAliases = keyAliases
        self.properties = properties
        self.navigationProperties = navigationProperties
        self.hasStream = hasStream
        self.sapAnnotations = sapAnnotations
        self.propertyIndex = Self.index(properties.map(\.name))
        self.navigationIndex = Self.index(navigationProperties.map(\.name))
    }

    public func property(named n: String) -> StructuralProperty? {
        guard let i = propertyIndex[n], i < properties.count else { return nil }
        return properties[i]
    }

    public func navigationProperty(named n: String) -> NavigationProperty? {
        guard let i = navigationIndex[n], i < navigationProperties.count else { return nil }
        return navigationProperties[i]
    }

    /// True when a property declared on this type is a concurrency token (V2
    /// `ConcurrencyMode="Fixed"`). See `ServiceModel.hasETag(_:)` for the inherited view.
    public var declaresConcurrencyToken: Bool { properties.contains { $0.concurrencyToken } }

    /// First occurrence wins, as for lookups in document order.
    private static func index(_ names: [String]) -> [String: Int] {
        var d: [String: Int] = [:]
        d.reserveCapacity(names.count)
        for (i, n) in names.enumerated() where d[n] == nil { d[n] = i }
        return d
    }
}
