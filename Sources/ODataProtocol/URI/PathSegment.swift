/// One segment of a resource path: `Employees('2')`, `ne_Manager`, `$count`, `NS.Derived`,
/// `GetProducts(rating=3)`.
///
/// A syntactic parse sets `role` for the `$` segments only and leaves names `.unresolved`;
/// the schema check (`ResourceRequestChecker`) resolves every name. `position` (character
/// offset of the segment in the parsed URL) is not part of equality.
public struct PathSegment: Hashable, Sendable {
    public enum Role: String, Hashable, Sendable {
        case unresolved
        case entitySet, singleton, navigation, property, typeCast
        /// A V2 function import or a V4 function/action import called from the service root.
        case operationImport
        /// A V4 function or action bound to the preceding segment (qualified name).
        case boundOperation
        case count = "$count", value = "$value", ref = "$ref", links = "$links"
        case metadata = "$metadata", batch = "$batch", all = "$all", entity = "$entity"
        /// A `$batch` Content-ID reference such as `$1` (first segment only).
        case contentID
    }

    public var name: String
    /// Key predicate or function parameters, when the segment has parentheses (or, for a V2
    /// function import after the schema check, the parameters taken from the query string).
    public var arguments: SegmentArguments?
    public var role: Role
    public var position: Int

    public init(name: String, arguments: SegmentArguments? = nil, role: Role = .unresolved, position: Int = 0) {
        self.name = name
        self.arguments = arguments
        self.role = role
        self.position = position
    }

    public static func == (a: PathSegment, b: PathSegment) -> Bool {
        a.name == b.name && a.arguments == b.arguments && a.role == b.role
    }
    public func hash(into h: inout Hasher) { h.combine(name); h.combine(arguments); h.combine(role) }
}
