/// The collection functions of OData 4.01 (Part 2, 5.1.1.6.1 `hassubset`, 5.1.1.6.2
/// `hassubsequence`) and the collection overloads of `contains`, `startswith`, `endswith`,
/// `indexof`, `substring`, `concat` and `length` (5.1.1.5.1 to 5.1.1.5.7), over collections
/// of primitive or enumeration values held as JSON, literal arrays (`["a","b"]`, `[1,2]`,
/// items of any expression) and the collections `concat` and `substring` compute.
///
/// A collection operand is JSON array text in SQL; the relations are `ods_*` functions
/// (`SQLFunctions+Collections`) that compare items one by one with the rules of `eq` for
/// the two operands' item types, promoted as in a comparison (5.1.1.18: an Int32
/// collection against decimals compares as decimals), named by a bound argument. Pure SQL
/// over `json_each` cannot decide `hassubsequence` without recursion, and counting equal
/// items decides `hassubset` only where B's items equal each other as they equal A's (two
/// decimals can equal one double); the functions turn each item into a key of its type's
/// value space and match keys (a multiset, greedily in order), which is exact.
///
/// Nulls (5.1.1.4): a null operand gives null: the `null` literal, or a path through an
/// absent to-one entity or a null complex value (5.1.1.15). A collection property of an
/// existing instance is never null (absent it is empty). Null items are items: a null item
/// equals a null item, as `eq` says.
///
/// Refused: collections of entities or of complex values (OData's `eq` does not compare
/// them offline), type-cast collections, items of unknown type, items of types `eq` cannot
/// compare (strings with numbers, say) in a relation or a `concat`, and a comparison with
/// doubles of a concatenation of integers and decimals (integers compare with doubles
/// exactly, decimals as doubles, and such items no longer say which they are).
extension FilterSQL {
    /// A collection operand.
    struct ArrayValue {
        enum Source {
            /// SQL whose value is JSON array text, NULL when the collection is null.
            case json(String)
            /// The items of a literal array, rendered when the other operand fixes their
            /// representation.
            case items([Operand])
        }

        var source: Source
        /// The representation of the items (the common one of a concatenation); `.null`
        /// when only null items (or none) are known; nil for complex values.
        var element: Rep?
        var nullable: Bool
        /// The representations the items of a `.json` source are written in (one, or the
        /// operands' of a concatenation); literal items are rendered in the one needed.
        var origins: Set<Rep> = []

        /// The representations the items are written in once rendered in `target`.
        func origins(rendered target: Rep?) -> Set<Rep> {
            guard case .items(let operands) = source else { return origins }
            var out: Set<Rep> = []
            for o in operands where o.rep != .null {
                // In a double context integer items stay integers (exact); decimals become doubles.
                out.insert(target == .double && o.rep == .integer ? .integer : (target ?? o.rep))
            }
            return out
        }
    }

    /// Whether a call is a collection overload (an argument the checker typed as a collection).
    static func hasCollectionArgument(_ args: [FilterExpression]) -> Bool {
        args.contains { if case .collection? = $0.type { return true } else { return false } }
    }

    /// A literal array `[a, b, ...]`: its items are primitive values of one type family.
    mutating func arrayLiteral(_ items: [FilterExpression], _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> ArrayValue {
        var operands: [Operand] = []
        var element: Rep = .null
        for item in items {
            let o = try scalar(item, s, &p)
            operands.append(o)
            element = try commonItemRep(element, o.rep, e)
        }
        return ArrayValue(source: .items(operands), element: element, nullable: false)
    }

    /// The representation items of two kinds are compared (or joined) in.
    func commonItemRep(_ a: Rep, _ b: Rep, _ e: FilterExpression) throws(ODataStoreError) -> Rep {
        if a == .null { return b }
        if b == .null { return a }
        let r = try compareMode(a, b, relational: false, e).0
        if r == .untyped || r == .opaque { throw unsupported("collection items of unknown or incomparable type", e) }
        return r
    }

    /// An argument of a collection function as a collection operand.
    mutating func arrayArgument(_ a: FilterExpression, _ name: String, _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> ArrayValue {
        switch try term(a, s, &p) {
        case .array(let v):
            return v
        case .collection(let state):
            return try jsonArray(state, name, e, &p)
        case .scalar(let o) where o.isNullLiteral:
            return ArrayValue(source: .json("NULL"), element: .null, nullable: true)
        case .scalar:
            throw unsupported("\(name) of a value that is not a collection", e)
        case .structured:
            throw unsupported("\(name) of a structured value", e)
        }
    }

    /// The JSON text of a collection property: empty when absent from an existing instance,
    /// NULL when the path leads nowhere (an absent to-one entity, a null complex value).
    mutating func jsonArray(_ state: PathState, _ name: String, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> ArrayValue {
        guard case .jsonCollection(let base, let path, let element, let cast) = state.cursor else {
            throw unsupported("\(name) of a collection of entities", e)
        }
        if cast != nil { throw unsupported("\(name) of a type-cast collection", e) }
        var sql = path.isEmpty ? base : "json_extract(\(base), \(p.bind(.text(Self.jsonPath(path)))))"
        sql = "COALESCE(\(sql), json_array())"
        var nullable = false
        if !path.isEmpty {
            // A member of a complex value held as JSON: null when that value is null.
            let parent = path.count == 1 ? base : "json_extract(\(base), \(p.bind(.text(Self.jsonPath(Array(path.dropLast()))))))"
            sql = "CASE WHEN \(parent) IS NOT NULL THEN \(sql) END"
            nullable = true
        }
        if !state.from.isEmpty || !state.conditions.isEmpty {
            sql = embed(state, sql)
            nullable = true
        }
        let r = rep(typeName: element)
        return ArrayValue(source: .json(sql), element: r, nullable: nullable, origins: r.map { [$0] } ?? [])
    }

    /// The collection as SQL JSON text, literal items rendered in representation `target`.
    mutating func render(_ v: ArrayValue, items target: Rep?, _ p: inout SQLParameters) throws(ODataStoreError) -> String {
        switch v.source {
        case .json(let sql):
            return sql
        case .items(let operands):
            var parts: [String] = []
            for o in operands { parts.append(try render(o, as: target ?? o.rep, &p)) }
            return "ods_array(\(parts.joined(separator: ", ")))"
        }
    }

    // MARK: - Functions

    /// `hassubset`, `hassubsequence`, and `contains`, `startswith`, `endswith`, `indexof` of
    /// two collections.
    mutating func collectionRelation(_ function: String, _ args: [FilterExpression], _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        guard args.count == 2 else { throw unsupported("\(function) with \(args.count) arguments", e) }
        let a = try arrayArgument(args[0], function, e, s, &p)
        let b = try arrayArgument(args[1], function, e, s, &p)
        let (target, how) = try itemEquality(a, b, e)
        let sql = "\(Self.relationFunctions[function] ?? "ods_\(function)")(\(try render(a, items: target, &p)), \(try render(b, items: target, &p)), \(p.bind(.text(how))))"
        let nullable = a.nullable || b.nullable
        if function == "indexof" { return .scalar(.sql(sql, .integer, nullable: nullable, type: .primitive(.int32))) }
        return .scalar(.boolean(sql, nullable: nullable))
    }

    static let relationFunctions = ["hassubset": "ods_hassubset", "hassubsequence": "ods_hassubsequence", "contains": "ods_coll_contains",
                                    "startswith": "ods_coll_startswith", "endswith": "ods_coll_endswith", "indexof": "ods_coll_indexof"]

    /// The representation literal items are rendered in and the `how` argument of the
    /// relation functions: `eq` of the promoted item type (`SQLFunctions+Collections`).
    func itemEquality(_ a: ArrayValue, _ b: ArrayValue, _ e: FilterExpression) throws(ODataStoreError) -> (Rep, String) {
        guard let ra = a.element, let rb = b.element else { throw unsupported("a comparison of collections of complex values", e) }
        let pair = ra == .null ? (rb, rb) : (rb == .null ? (ra, ra) : (ra, rb))
        if pair.0 == .null { return (.null, "s") }
        let (target, mode) = try compareMode(pair.0, pair.1, relational: false, e)
        if case .enumValues(let t) = mode { return (target, "f:" + Self.members(t)) }
        switch target {
        case .integer: return (target, "i")
        case .decimal: return (target, "m")
        case .double:
            // Integer items compare with doubles exactly, decimals as doubles (5.1.1.18): the
            // function tells them apart by their digits, which it cannot in one operand with both.
            var letters = "d"
            for v in [a, b] {
                let o = v.origins(rendered: .double)
                if o.contains(.integer) && o.contains(.decimal) {
                    throw unsupported("a comparison with doubles of a concatenation of integers and decimals", e)
                }
                letters += o.contains(.integer) ? "x" : "d"
            }
            return (target, letters)
        case .string, .date, .enumeration: return (target, "s")
        case .guid: return (target, "g")
        case .boolean: return (target, "b")
        case .instant: return (target, "t")
        case .timeOfDay: return (target, "h")
        case .duration: return (target, "u")
        case .binary: return (target, "y")
        default: throw unsupported("a comparison of collections of \(target) values", e)
        }
    }

    /// `concat` of two collections: the items of the first, then those of the second. Items
    /// keep their values; the result's item type is the one both promote to (5.1.1.18), so
    /// `concat(Nums,[1.5])` holds integers and a decimal, compared as decimals.
    mutating func collectionConcat(_ args: [FilterExpression], _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        guard args.count == 2 else { throw unsupported("concat with \(args.count) arguments", e) }
        let a = try arrayArgument(args[0], "concat", e, s, &p)
        let b = try arrayArgument(args[1], "concat", e, s, &p)
        let element: Rep?
        switch (a.element, b.element) {
        case (nil, nil), (nil, .null?), (.null?, nil): element = nil
        case let (x?, y?):
            guard let common = try? commonItemRep(x, y, e) else { throw unsupported("concat of collections of \(x) and \(y) items", e) }
            element = common
        default:
            throw unsupported("concat of collections of complex and primitive values", e)
        }
        if case .items(let x) = a.source, case .items(let y) = b.source {
            return .array(ArrayValue(source: .items(x + y), element: element, nullable: false))
        }
        let sql = "ods_coll_concat(\(try render(a, items: element, &p)), \(try render(b, items: element, &p)))"
        return .array(ArrayValue(source: .json(sql), element: element, nullable: a.nullable || b.nullable,
                                 origins: a.origins(rendered: element).union(b.origins(rendered: element))))
    }

    /// `substring` of a collection: the items from `start`, at most `length` of them.
    mutating func collectionSubstring(_ args: [FilterExpression], _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        guard args.count == 2 || args.count == 3 else { throw unsupported("substring with \(args.count) arguments", e) }
        let a = try arrayArgument(args[0], "substring", e, s, &p)
        var parts = [try render(a, items: a.element, &p)]
        var nullable = a.nullable
        for position in args.dropFirst() {
            let o = try scalar(position, s, &p)
            guard o.rep == .integer || o.rep == .null || o.rep == .untyped else { throw unsupported("substring with a non-integer position", e) }
            nullable = nullable || o.nullable
            parts.append(try render(o, &p))
        }
        return .array(ArrayValue(source: .json("ods_coll_substring(\(parts.joined(separator: ", ")))"), element: a.element, nullable: nullable,
                                 origins: a.origins(rendered: a.element)))
    }

    /// `length` of a computed collection (a literal array, `concat`, `substring`).
    mutating func arrayLength(_ v: ArrayValue, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        .scalar(.sql("json_array_length(\(try render(v, items: v.element, &p)))", .integer, nullable: v.nullable, type: .primitive(.int32)))
    }
}
