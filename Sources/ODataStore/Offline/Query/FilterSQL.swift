/// Translates typed `$filter` and `$orderby` expressions (as `ResourceRequestChecker` returns
/// them) into SQL over the offline store's tables. Pure: no I/O; every literal (strings,
/// numbers, dates, type names, JSON paths, enumeration members) is bound as a parameter
/// through `SQLParameters`, never pasted into the SQL text, which therefore never contains a
/// quote character. Identifiers go through `SQLName.quote`.
///
/// Semantics are OData's, not SQLite's defaults (docs/offline-queries.md has the whole list
/// with spec references):
/// - `eq`/`ne` are null-safe; `gt`/`ge`/`lt`/`le` with a null operand are false; `and`,
///   `or`, `not` follow V4's three-valued logic, V2's lifted operators treat a null operand
///   of `and`/`or` as false; arithmetic and functions with a null operand give null;
/// - strings compare by code point, case-sensitively; string functions count code points
///   and map case by Unicode's rules (`ods_*` functions, `SQLFunctions`);
/// - Edm.Decimal compares and sorts exactly (`ODS_DECIMAL`) and computes exactly; instants
///   compare across offsets (`ODS_INSTANT`); durations and times of day by their length;
/// - integers stay 64-bit exact: overflow and division by zero fail the statement instead of
///   turning into a REAL or NULL; numeric operands are promoted as 5.1.1.18 says;
/// - what the store cannot evaluate locally throws `.unsupported` naming the construct.
///
/// The `$filter` condition is a 0/1 value, never NULL. Comparisons of a plain column with a
/// literal stay plain (`t0."Stock" > ?1`), so SQLite can use an index for them.
struct FilterSQL {
    let schema: StoreSchema
    var aliases: SQLAliases
    /// Values of the request's parameter aliases (`@p` → expression), as the request's query
    /// options hold them, for `$filter=Price gt @p&@p=5`.
    var parameterAliases: [String: FilterExpression]
    private var aliasDepth = 0

    init(schema: StoreSchema, aliases: SQLAliases, parameterAliases: [String: FilterExpression] = [:]) {
        self.schema = schema
        self.aliases = aliases
        self.parameterAliases = parameterAliases
    }

    var model: ServiceModel { schema.model }

    /// V2's lifted operators (MS-ODATA 2.2.3.6.1.1.5): a null operand of `and`/`or` counts as false.
    var isV2: Bool { schema.model.version == .v2 }

    /// A boolean SQL condition (0 or 1, never NULL) equivalent to the `$filter` predicate `e`
    /// evaluated on the row `scope` names: true exactly where OData's value is true (false
    /// and null exclude, V4.01 Part 2, 5.1.2 "System Query Option $filter").
    mutating func condition(_ e: FilterExpression, in scope: SQLScope, _ parameters: inout SQLParameters) throws(ODataStoreError) -> String {
        let sql = try truth(e, scope, &parameters)
        try SQLNesting.check(sql)
        return sql
    }

    /// One `$orderby` term: a SQL value expression with the collation its type sorts by
    /// (`... COLLATE ODS_DECIMAL`), without the direction. Nulls sort first ascending and
    /// last descending, as OData's Protocol (11.2.6.2) asks and SQLite does.
    mutating func orderTerm(_ e: FilterExpression, in scope: SQLScope, _ parameters: inout SQLParameters) throws(ODataStoreError) -> String {
        let t = try term(e, scope, &parameters)
        guard case .scalar(let o) = t else { throw unsupported("ordering by a structured value", e) }
        let sql = try orderSQL(o, &parameters)
        try SQLNesting.check(sql)
        return sql
    }

    // MARK: - Errors

    func unsupported(_ what: String, _ e: FilterExpression?) -> ODataStoreError {
        var construct = e.map { FilterPrinter.print($0, version: model.version) } ?? ""
        if construct.count > 200 { construct = String(construct.prefix(200)) + "…" }
        return ODataStoreError(.unsupported, construct.isEmpty ? "\(what) cannot be evaluated offline"
                                                               : "\(what) cannot be evaluated offline: \(construct)")
    }

    // MARK: - Expressions

    /// The SQL for any expression node.
    mutating func term(_ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        switch e.kind {
        case .literal(let l):
            return .scalar(literalOperand(l, e))
        case .alias(let name):
            let value = try aliasValue(name, e)
            aliasDepth += 1
            defer { aliasDepth -= 1 }
            return try term(value, s, &p)
        case .member(let m):
            return try member(m, e, s, &p)
        case .unary(.not, let x):
            let b = try boolean(x, s, &p)
            return .scalar(.boolean("NOT \(SQLText.paren(b.sql))", nullable: b.nullable))
        case .unary(.negate, let x):
            return .scalar(try negate(try scalar(x, s, &p), e, &p))
        case .binary, .inList:
            return try chain(e, s, &p)
        case .call(let name, let args):
            return try call(name, args, e, s, &p)
        case .typeFunction(let fn, let operand, let typeName):
            return try typeFunction(fn, operand, typeName, e, s, &p)
        case .array(let items):
            return .array(try arrayLiteral(items, e, s, &p))
        case .object:
            throw unsupported("a JSON object", e)
        }
    }

    mutating func aliasValue(_ name: String, _ e: FilterExpression) throws(ODataStoreError) -> FilterExpression {
        guard let value = parameterAliases[name] else { throw unsupported("parameter alias @\(name) without a value", e) }
        guard aliasDepth < 8 else { throw unsupported("parameter alias @\(name) (refers to itself)", e) }
        return value
    }

    /// A scalar (primitive or enumeration) operand.
    mutating func scalar(_ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Operand {
        switch try term(e, s, &p) {
        case .scalar(let o): return o
        case .structured: throw unsupported("a structured value used as a primitive value", e)
        case .collection, .array: throw unsupported("a collection used as a single value", e)
        }
    }

    /// A Boolean operand rendered to SQL (1, 0 or NULL).
    mutating func boolean(_ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> (sql: String, nullable: Bool) {
        let o = try scalar(e, s, &p)
        switch o.rep {
        case .boolean, .null, .untyped: break
        default: throw unsupported("a non-Boolean value used as a condition", e)
        }
        return (try render(o, &p), o.nullable)
    }

    /// A condition that is 1 exactly where `e` is true, else 0 (never NULL). `and`/`or`
    /// chains are split so that plain comparisons stay plain (index-friendly): a conjunction
    /// is true exactly when each operand is true, a disjunction when one is.
    mutating func truth(_ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> String {
        if case .binary(let op, _, _) = e.kind, op == .and || op == .or {
            var operands: [FilterExpression] = []
            var x = e
            while case .binary(let o, let l, let r) = x.kind, o == op {
                operands.append(r)
                x = l
            }
            operands.append(x)
            var parts: [String] = []
            for operand in operands.reversed() { parts.append(try truth(operand, s, &p)) }
            return SQLText.balanced(parts, op == .and ? "AND" : "OR")
        }
        if case .alias(let name) = e.kind {
            let value = try aliasValue(name, e)
            aliasDepth += 1
            defer { aliasDepth -= 1 }
            return try truth(value, s, &p)
        }
        let b = try boolean(e, s, &p)
        return b.nullable ? "COALESCE(\(b.sql), 0)" : b.sql
    }

    /// Binary operators and `in` along the left spine, bottom-up in a loop (chains of a
    /// thousand `or` do not recurse a thousand times); runs of `and`/`or` become one
    /// balanced SQL expression, so SQLite's parser sees a shallow tree.
    mutating func chain(_ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        let spine = e.leftSpine
        guard let leaf = spine.last else { return try term(e, s, &p) }
        var acc = try term(leaf, s, &p)
        var pending: (op: BinaryOperator, parts: [(sql: String, nullable: Bool)])?
        func flush(_ acc: inout Term, _ pending: inout (op: BinaryOperator, parts: [(sql: String, nullable: Bool)])?) {
            guard let run = pending else { return }
            acc = .scalar(logical(run.op, run.parts))
            pending = nil
        }
        for node in spine.dropLast().reversed() {
            switch node.kind {
            case .binary(let op, _, let r) where op == .and || op == .or:
                let right = try boolean(r, s, &p)
                if let run = pending, run.op == op {
                    pending?.parts.append(right)
                } else {
                    flush(&acc, &pending)
                    let left = try booleanSQL(acc, node, &p)
                    pending = (op, [left, right])
                }
            case .binary(let op, _, let r):
                flush(&acc, &pending)
                let right = try term(r, s, &p)
                acc = try binary(op, acc, right, node, &p)
            case .inList(_, let items):
                flush(&acc, &pending)
                acc = .scalar(try inList(acc, items, node, s, &p))
            default:
                break
            }
        }
        flush(&acc, &pending)
        return acc
    }

    mutating func booleanSQL(_ t: Term, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> (sql: String, nullable: Bool) {
        guard case .scalar(let o) = t else { throw unsupported("a structured value used as a condition", e) }
        switch o.rep {
        case .boolean, .null, .untyped: return (try render(o, &p), o.nullable)
        default: throw unsupported("a non-Boolean value used as a condition", e)
        }
    }

    /// `and`/`or` over operands: V4's three-valued logic is SQL's (5.1.1.1.7, 5.1.1.1.8:
    /// "null and false" is false, "null or true" is true, other combinations with null are
    /// null); V2 treats a null operand as false.
    func logical(_ op: BinaryOperator, _ parts: [(sql: String, nullable: Bool)]) -> Operand {
        var texts: [String] = []
        var nullable = false
        for part in parts {
            if isV2 && part.nullable {
                texts.append("COALESCE(\(part.sql), 0)")
            } else {
                texts.append(part.sql)
                nullable = nullable || part.nullable
            }
        }
        return .boolean(SQLText.balanced(texts, op == .and ? "AND" : "OR"), nullable: nullable)
    }

    mutating func binary(_ op: BinaryOperator, _ l: Term, _ r: Term, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        switch op {
        case .eq, .ne, .gt, .ge, .lt, .le:
            return .scalar(try compare(op, l, r, e, &p))
        case .has:
            guard case .scalar(let a) = l, case .scalar(let b) = r else { throw unsupported("'has' on a structured value", e) }
            return .scalar(try has(a, b, e, &p))
        case .add, .sub, .mul, .div, .divby, .mod:
            guard case .scalar(let a) = l, case .scalar(let b) = r else { throw unsupported("arithmetic on a structured value", e) }
            return .scalar(try arithmetic(op, a, b, e, &p))
        case .and, .or:
            let a = try booleanSQL(l, e, &p), b = try booleanSQL(r, e, &p)
            return .scalar(logical(op, [a, b]))
        }
    }
}

/// What an expression node translates to.
enum Term {
    /// A primitive or enumeration value.
    case scalar(Operand)
    /// An entity or complex value reached by a member path (for `eq null`, `isof`).
    case structured(FilterSQL.PathState)
    /// A collection reached by a member path (for `$count`, `length`, lambdas, collection
    /// functions).
    case collection(FilterSQL.PathState)
    /// A collection an expression computes (a literal array, `concat`, `substring`), for the
    /// collection functions.
    case array(FilterSQL.ArrayValue)
}

/// How a value is represented in SQL (see `ColumnKind`), which decides how it compares,
/// computes and sorts.
enum Rep: Hashable {
    /// The `null` literal.
    case null
    /// INTEGER 0/1.
    case boolean
    /// INTEGER, 64-bit exact (Byte ... Int64).
    case integer
    /// TEXT with exact digits, `ODS_DECIMAL`.
    case decimal
    /// REAL, or the TEXT `NaN` (Single, Double).
    case double
    /// TEXT, compared by code point.
    case string
    /// TEXT, compared without ASCII case (`NOCASE`: hex digits).
    case guid
    /// TEXT `YYYY-MM-DD`.
    case date
    /// TEXT `hh:mm:ss[.f]` (TimeOfDay, and V2 Time as the store keeps it), `ODS_TIMEOFDAY`.
    case timeOfDay
    /// TEXT ISO 8601 date-time (DateTimeOffset, V2 DateTime), `ODS_INSTANT`.
    case instant
    /// TEXT ISO 8601 duration, `ODS_DURATION`.
    case duration
    /// TEXT standard base64.
    case binary
    /// TEXT member names (qualified enumeration type name).
    case enumeration(String)
    /// A value whose type the model does not give (a dynamic property of an open type), as
    /// `json_extract` returns it.
    case untyped
    /// A geography, geometry or stream value (JSON): only comparable with null.
    case opaque
}

/// A scalar operand: SQL text, or a literal not bound yet (it is bound in the form the
/// operation needs: `5` as the INTEGER 5 against an Int64, as the TEXT `5` against a decimal).
struct Operand {
    enum Source {
        case sql(String)
        case literal(Literal)
        case null
    }

    var source: Source
    var rep: Rep
    var nullable: Bool
    /// Cheap to repeat (a column or a parameter), so guards may mention it again.
    var simple: Bool
    /// The Edm type the checker gave it (nil when unknown).
    var type: ExpressionType?

    static func boolean(_ sql: String, nullable: Bool) -> Operand {
        Operand(source: .sql(sql), rep: .boolean, nullable: nullable, simple: false, type: .primitive(.boolean))
    }

    static func sql(_ sql: String, _ rep: Rep, nullable: Bool, type: ExpressionType? = nil) -> Operand {
        Operand(source: .sql(sql), rep: rep, nullable: nullable, simple: false, type: type)
    }

    static func null(_ rep: Rep = .null, type: ExpressionType? = nil) -> Operand {
        Operand(source: .null, rep: rep, nullable: true, simple: true, type: type)
    }

    var isNullLiteral: Bool {
        if case .null = source { return true }
        return false
    }

    /// True when the value can be NaN (a double that is not a known non-NaN literal).
    var mayBeNaN: Bool {
        guard rep == .double else { return false }
        switch source {
        case .literal(.double(let t)), .literal(.single(let t)): return t == "NaN"
        case .literal: return false
        case .null: return false
        case .sql: return true
        }
    }
}

/// Small helpers for assembling SQL text.
enum SQLText {
    /// `x` in parentheses unless it is a plain column, parameter or call.
    static func paren(_ x: String) -> String {
        if isAtomic(x) { return x }
        return "(\(x))"
    }

    static func isAtomic(_ x: String) -> Bool {
        // t0."Name", ?12, NULL, ods_f(...) with balanced outer parentheses.
        var depth = 0
        var inQuote = false
        var sawParen = false
        for (i, c) in x.utf8.enumerated() {
            if inQuote {
                if c == UInt8(ascii: "\"") { inQuote = false }
                continue
            }
            switch c {
            case UInt8(ascii: "\""): inQuote = true
            case UInt8(ascii: "("):
                depth += 1
                sawParen = true
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 && i != x.utf8.count - 1 { return false }
            case UInt8(ascii: " "):
                if depth == 0 { return false }
            default:
                if depth == 0 && sawParen { return false }
            }
        }
        return true
    }

    /// Operands joined by `AND`/`OR`, grouped as a balanced tree for long runs.
    static func balanced(_ parts: [String], _ op: String) -> String {
        if parts.count == 1 { return parts[0] }
        if parts.count <= 8 { return parts.map(paren).joined(separator: " \(op) ") }
        let mid = parts.count / 2
        return "(\(balanced(Array(parts[..<mid]), op))) \(op) (\(balanced(Array(parts[mid...]), op)))"
    }

    static func and(_ parts: [String]) -> String {
        let kept = parts.filter { $0 != "1" }
        if kept.isEmpty { return "1" }
        // A "0" among other parts keeps them: their parameters must stay referenced.
        return balanced(kept, "AND")
    }
}
