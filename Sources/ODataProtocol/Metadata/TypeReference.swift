/// A reference to a type from a property, parameter or return type, with its facets.
///
/// `name` is the qualified name as written in the document with aliases already resolved
/// to namespaces (`Edm.String`, `NorthwindModel.Address`); `isCollection` is true for
/// `Collection(...)`.
public struct TypeReference: Sendable, Hashable {
    public var name: String
    public var isCollection: Bool
    public var nullable: Bool
    /// `MaxLength` as a number; nil when absent or `Max`/`max` (see `maxLengthIsMax`).
    public var maxLength: Int?
    public var precision: Int?
    /// `Scale` as a number; nil when absent or `variable`/`floating` (see `scaleIsVariable`).
    public var scale: Int?
    /// True for `MaxLength="Max"` (V2) / `MaxLength="max"` (V4): unbounded.
    public var maxLengthIsMax: Bool
    /// True for `Scale="variable"` (V4) and `Scale="floating"` (4.01): no fixed scale.
    public var scaleIsVariable: Bool

    public init(name: String, isCollection: Bool = false, nullable: Bool = true,
                maxLength: Int? = nil, precision: Int? = nil, scale: Int? = nil,
                maxLengthIsMax: Bool = false, scaleIsVariable: Bool = false) {
        self.name = name
        self.isCollection = isCollection
        self.nullable = nullable
        self.maxLength = maxLength
        self.precision = precision
        self.scale = scale
        self.maxLengthIsMax = maxLengthIsMax
        self.scaleIsVariable = scaleIsVariable
    }

    /// The type as written in CSDL: `Collection(NS.T)` or `NS.T`.
    public var csdlName: String { isCollection ? "Collection(\(name))" : name }

    /// The primitive kind when the (element) type is an `Edm.*` type, nil for structured or enum types.
    public var primitiveKind: EdmPrimitiveKind? { EdmPrimitiveKind(qualifiedName: name) }
}
