/// An entity type or a complex type: both hold structural and navigation properties and
/// may derive from a base type. Inherited members are NOT copied in; use
/// `ServiceModel.allProperties(of:)` / `key(of:)` to see the flattened view.
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
    /// derived entity types, which inherit the key).
    public var key: [String]
    public var properties: [StructuralProperty]
    public var navigationProperties: [NavigationProperty]
    /// V2 `m:HasStream` / V4 `HasStream`: a media entity.
    public var hasStream: Bool

    public init(kind: Kind, namespace: String, name: String, baseType: String? = nil,
                isAbstract: Bool = false, isOpen: Bool = false, key: [String] = [],
                properties: [StructuralProperty] = [], navigationProperties: [NavigationProperty] = [],
                hasStream: Bool = false) {
        self.kind = kind
        self.namespace = namespace
        self.name = name
        self.qualifiedName = namespace + "." + name
        self.baseType = baseType
        self.isAbstract = isAbstract
        self.isOpen = isOpen
        self.key = key
        self.properties = properties
        self.navigationProperties = navigationProperties
        self.hasStream = hasStream
    }

    public func property(named n: String) -> StructuralProperty? { properties.first { $0.name == n } }
    public func navigationProperty(named n: String) -> NavigationProperty? { navigationProperties.first { $0.name == n } }
}
