/// A V4 enumeration type (also found in some SAP V2 documents with V4 vocabularies).
public struct EnumType: Sendable, Hashable {
    public var qualifiedName: String
    public var name: String
    public var namespace: String
    /// Underlying integer type, `Edm.Int32` when not stated.
    public var underlyingType: String
    public var isFlags: Bool
    /// Members in document order with their values (implicit values filled in).
    public var members: [(name: String, value: Int64)]

    public init(namespace: String, name: String, underlyingType: String = "Edm.Int32",
                isFlags: Bool = false, members: [(name: String, value: Int64)] = []) {
        self.namespace = namespace
        self.name = name
        self.qualifiedName = namespace + "." + name
        self.underlyingType = underlyingType
        self.isFlags = isFlags
        self.members = members
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.qualifiedName == b.qualifiedName && a.underlyingType == b.underlyingType && a.isFlags == b.isFlags
            && a.members.elementsEqual(b.members, by: { $0 == $1 })
    }
    public func hash(into h: inout Hasher) { h.combine(qualifiedName) }
}
