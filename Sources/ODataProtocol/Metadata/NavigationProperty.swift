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
    /// Filled on both ends of a relationship: V2 from the association's constraint (whichever
    /// end is principal); V4 from the navigation property's own `ReferentialConstraint`s or,
    /// when it has none, reversed from its `Partner`'s.
    public var referentialConstraints: [(property: String, referencedProperty: String)]
    /// V4 `ContainsTarget`: the targets are contained in (addressed through) this entity.
    public var containsTarget: Bool
    /// V2 only: the qualified association name and the from/to role names.
    public var association: String?
    public var fromRole: String?
    public var toRole: String?

    public init(name: String, targetType: String, isCollection: Bool, nullable: Bool = true,
                partner: String? = nil,
                referentialConstraints: [(property: String, referencedProperty: String)] = [],
                association: String? = nil, fromRole: String? = nil, toRole: String? = nil,
                containsTarget: Bool = false) {
        self.name = name
        self.targetType = targetType
        self.isCollection = isCollection
        self.nullable = nullable
        self.partner = partner
        self.referentialConstraints = referentialConstraints
        self.association = association
        self.fromRole = fromRole
        self.toRole = toRole
        self.containsTarget = containsTarget
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.targetType == b.targetType && a.isCollection == b.isCollection
            && a.nullable == b.nullable && a.partner == b.partner && a.association == b.association
            && a.fromRole == b.fromRole && a.toRole == b.toRole && a.containsTarget == b.containsTarget
            && a.referentialConstraints.elementsEqual(b.referentialConstraints, by: { $0 == $1 })
    }

    public func hash(into h: inout Hasher) {
        h.combine(name); h.combine(targetType); h.combine(isCollection)
    }
}
