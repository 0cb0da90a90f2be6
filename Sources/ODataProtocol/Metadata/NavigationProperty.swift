/// A navigation property, in one shape for both versions.
///
/// For V2 the association and its ends are resolved when the document is loaded:
/// `targetType` is the entity type at the `ToRole` end and `isCollection` reflects its
/// multiplicity (`*`). For V4 they come from `Type` and `Partner`.
public struct NavigationProperty: Sendable, Hashable {
    public var name: String
    /// Qualified name of the target entity type.
    public var targetType: String
    public var isCollection: Bool
    public var nullable: Bool
    /// The navigation property on the target type that points back, if known.
    public var partner: String?
    /// Referential constraints: (property on this type, property on the target type).
    public var referentialConstraints: [(property: String, referencedProperty: String)]
    /// V2 only: the qualified association name and the from/to role names.
    public var association: String?
    public var fromRole: String?
    public var toRole: String?

    public init(name: String, targetType: String, isCollection: Bool, nullable: Bool = true,
                partner: String? = nil,
                referentialConstraints: [(property: String, referencedProperty: String)] = [],
                association: String? = nil, fromRole: String? = nil, toRole: String? = nil) {
        self.name = name
        self.targetType = targetType
        self.isCollection = isCollection
        self.nullable = nullable
        self.partner = partner
        self.referentialConstraints = referentialConstraints
        self.association = association
        self.fromRole = fromRole
        self.toRole = toRole
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.targetType == b.targetType && a.isCollection == b.isCollection
            && a.nullable == b.nullable && a.partner == b.partner && a.association == b.association
            && a.fromRole == b.fromRole && a.toRole == b.toRole
            && a.referentialConstraints.elementsEqual(b.referentialConstraints, by: { $0 == $1 })
    }

    public func hash(into h: inout Hasher) {
        h.combine(name); h.combine(targetType); h.combine(isCollection)
    }
}
