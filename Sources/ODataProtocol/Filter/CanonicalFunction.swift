/// The canonical functions of `$filter`/`$orderby`, with their arity and the protocol versions
/// that define them (OData V2 URI Conventions section 4.5; V4.01 URL Conventions 5.1.1.4 ff.).
/// `cast` and `isof` are not here: they take a type name and parse as `.typeFunction`.
/// In V4 the names compare without case (4.01 Part 2, 5.1.1): look them up lower-cased.
public struct CanonicalFunction: Sendable, Hashable {
    public var name: String
    public var minArguments: Int
    public var maxArguments: Int
    public var inV2: Bool
    public var inV4: Bool

    public func available(in version: ODataVersion?) -> Bool {
        switch version {
        case .v2: return inV2
        case .v4: return inV4
        case nil: return true
        }
    }

    public static func named(_ name: String) -> CanonicalFunction? { table[name] }

    private static func f(_ n: String, _ a: Int, _ b: Int, v2: Bool = true, v4: Bool = true) -> (String, CanonicalFunction) {
        (n, CanonicalFunction(name: n, minArguments: a, maxArguments: b, inV2: v2, inV4: v4))
    }

    public static let table: [String: CanonicalFunction] = Dictionary(uniqueKeysWithValues: [
        f("substringof", 2, 2, v4: false), f("replace", 3, 3, v4: false),
        f("contains", 2, 2, v2: false), f("startswith", 2, 2), f("endswith", 2, 2),
        f("length", 1, 1), f("indexof", 2, 2), f("substring", 2, 3),
        f("tolower", 1, 1), f("toupper", 1, 1), f("trim", 1, 1), f("concat", 2, 2),
        f("matchespattern", 2, 2, v2: false),
        f("year", 1, 1), f("month", 1, 1), f("day", 1, 1), f("hour", 1, 1), f("minute", 1, 1), f("second", 1, 1),
        f("fractionalseconds", 1, 1, v2: false), f("totalseconds", 1, 1, v2: false),
        f("date", 1, 1, v2: false), f("time", 1, 1, v2: false), f("totaloffsetminutes", 1, 1, v2: false),
        f("now", 0, 0, v2: false), f("maxdatetime", 0, 0, v2: false), f("mindatetime", 0, 0, v2: false),
        f("round", 1, 1), f("floor", 1, 1), f("ceiling", 1, 1),
        f("geo.distance", 2, 2, v2: false), f("geo.length", 1, 1, v2: false), f("geo.intersects", 2, 2, v2: false),
        f("hassubset", 2, 2, v2: false), f("hassubsequence", 2, 2, v2: false),
        // case(cond:value, …) parses on its own (ExpressionParser.parseCase); listed for its arity.
        f("case", 2, Int.max, v2: false),
    ])
}
