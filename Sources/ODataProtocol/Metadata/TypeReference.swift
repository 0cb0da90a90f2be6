/// A reference to a type from a property, parameter or return type, with its facets.
///
/// `name` is the qualified name as written in the document with aliases already resolved
/// to namespaces (`Edm.String`, `NorthwindModel.Address`); `isCollection` is true for
/// `Collection(...)`.
public struct TypeReference: Sendable, Hashable {
    public var name: String
    public var isCollection: Bool
    public var nullable: Bool
    public var maxLength: Int?
    public var precision: Int?
    public var scale: Int?

    public init(name: String, isCollection: Bool = false, nullable: Bool = true,
                maxLength: Int? = nil, precision: Int? = nil, scale: Int? = nil) {
        self.name = name
        self.isCollection = isCollection
        self.nullable = nullable
        self.maxLength = maxLength
        self.precision = precision
        self.scale = scale
    }

    /// The primitive kind when the (element) type is an `Edm.*` type, nil for structured or enum types.
    public var primitiveKind: EdmPrimitiveKind? { EdmPrimitiveKind(qualifiedName: name) }
}
