/// The parenthesized part of a path segment: a key predicate (`('2')`, `(OrderID=7,ProductID=5)`)
/// or the parameters of a function call (`(p='x',q=@a)`, `()`).
///
/// A syntactic parse cannot tell keys from parameters; the schema check does (see
/// `PathSegment.role`).
public enum SegmentArguments: Hashable, Sendable {
    /// `()`.
    case empty
    /// One unnamed value: a single-part key `('2')`, `(1)`.
    case positional(ArgumentValue)
    /// `name=value` pairs, in the order written.
    case named([NamedArgument])

    /// The named pairs (empty for `.empty`; nil for `.positional`).
    public var namedArguments: [NamedArgument]? {
        switch self {
        case .empty: return []
        case .positional: return nil
        case .named(let n): return n
        }
    }
}

public struct NamedArgument: Hashable, Sendable {
    public var name: String
    public var value: ArgumentValue
    public init(name: String, value: ArgumentValue) { self.name = name; self.value = value }
}

/// A key or parameter value: a literal, or a V4 parameter alias `@a` whose value is a query
/// option of the request.
public enum ArgumentValue: Hashable, Sendable {
    case literal(Literal)
    case alias(String)
}
