/// One segment of a resource path: `Employees('2')`, `ne_Manager`, `$count`, `NS.Derived`,
/// `GetProducts(rating=3)`, `ProductsByCategoryId(categoryId=2)(3)`, `$filter(Price gt 5)`,
/// the key segment `1` of `Customers/1`.
///
/// A syntactic parse sets `role` for the `$` segments and key segments only and leaves names
/// `.unresolved`; the schema check (`ResourceRequestChecker`) resolves every name and folds key
/// segments into the segment they key (`Customers/1` becomes `Customers(1)`). `position`
/// (character offset of the segment in the parsed URL) is not part of equality.
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
        /// V4 key-as-segment (4.01 Part 2, 4.3.6): `name` is the key value as written in the
        /// path, unquoted (`1`, `O'Neil`). The schema check folds it into the segment it keys,
        /// or makes it an ordinal `index`.
        case key
        /// V4 index of a member of an ordered collection (4.10): `Addresses/0`, `…/-1`.
        case index
        /// V4 filter segment `$filter(expr)` (4.12); `filter` holds the expression.
        case filter = "$filter"
        /// V4 `$each` (4.12): the operation that follows applies to each member.
        case each = "$each"
        /// V4 `$query` (4.17): query options in the request body.
        case query = "$query"
        /// V4 `$crossjoin(Set1,Set2,…)` (4.15); `crossjoin` names the sets.
        case crossjoin = "$crossjoin"
    }

    public var name: String
    /// Key predicate or function parameters, when the segment has parentheses (or, for a V2
    /// function import after the schema check, the parameters taken from the query string).
    public var arguments: SegmentArguments?
    /// A key predicate in a second pair of parentheses: after function parameters
    /// (`ProductsByCategoryId(categoryId=2)(3)`) or a filter segment (`$filter(…)(3)`); after
    /// the schema check also the key of a type cast (`Products/NS.Derived(1)`) or of a
    /// function called without parentheses.
    public var key: SegmentArguments?
    /// The expression of a `$filter(…)` segment.
    public var filter: FilterExpression?
    /// The entity sets of `$crossjoin(…)`.
    public var crossjoin: [String]?
    public var role: Role
    public var position: Int

    public init(name: String, arguments: SegmentArguments? = nil, role: Role = .unresolved, position: Int = 0,
                key: SegmentArguments? = nil, filter: FilterExpression? = nil, crossjoin: [String]? = nil) {
        self.name = name
        self.arguments = arguments
        self.role = role
        self.position = position
        self.key = key
        self.filter = filter
        self.crossjoin = crossjoin
    }

    public static func == (a: PathSegment, b: PathSegment) -> Bool {
        a.name == b.name && a.arguments == b.arguments && a.role == b.role && a.key == b.key
            && a.filter == b.filter && a.crossjoin == b.crossjoin
    }
    public func hash(into h: inout Hasher) {
        h.combine(name); h.combine(arguments); h.combine(role); h.combine(key); h.combine(filter); h.combine(crossjoin)
    }
}
