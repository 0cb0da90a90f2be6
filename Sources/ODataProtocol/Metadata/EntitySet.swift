/// An entity set (or a V4 singleton) of the entity container.
public struct EntitySet: Sendable, Hashable {
    public var name: String
    /// Qualified name of the entity type.
    public var entityType: String
    public var isSingleton: Bool
    /// V4 `NavigationPropertyBinding`s: navigation path -> target set name.
    public var navigationBindings: [String: String]
    /// SAP annotations on the set (`creatable`, `updatable`, `deletable`, `pageable`, `addressable`, ...).
    public var sapAnnotations: [String: String]

    public init(name: String, entityType: String, isSingleton: Bool = false,
                navigationBindings: [String: String] = [:], sapAnnotations: [String: String] = [:]) {
        self.name = name
        self.entityType = entityType
        self.isSingleton = isSingleton
        self.navigationBindings = navigationBindings
        self.sapAnnotations = sapAnnotations
    }
}
