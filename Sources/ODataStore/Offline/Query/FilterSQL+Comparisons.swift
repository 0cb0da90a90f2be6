/// Comparison operators, `in` and `has` (V4.01 Part 2, 5.1.1.1):
/// - `eq`/`ne` are null-safe (`null eq null` is true, null differs from every value), NaN
///   equals nothing, not even NaN;
/// - `gt`/`ge`/`lt`/`le` are false when an operand is null (5.1.1.1.3: "If any operand is
///   null, the operator returns false"; V2's lifted relational operators say the same) or NaN;
/// - numbers compare by value after promotion (5.1.1.18); decimals and instants through the
///   store's collations, strings by code point, GUIDs without regard to hex digit case.
///
/// Every comparison yields 0 or 1, never NULL.
extension FilterSQL {
    enum CompareMode: Equatable {
        /// SQLite's own comparison (integers, booleans, strings and dates as text).
        case native
        /// Texts compared under a collation (`ODS_DECIMAL`, `ODS_INSTANT`, `NOCASE`, ...).
        case collate(String)
        /// Doubles: numbers compare natively, the text `NaN` compares false.
        case double
        /// Enumeration values by their numeric values.
        case enumValues(EnumType)
        /// Binary values by their bytes.
        case blob
    }

    mutating func compare(_ op: BinaryOperator, _ l: Term, _ r: Term, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> Operand {
        switch (l, r) {
        case (.scalar(let a), .scalar(let b)):
            return try compareScalars(op, a, b, e, &p)
        case (.structured(let st), .scalar(let b)) where b.isNullLiteral:
            return Self.nullComparison(op, exists: exists(st, &p))
        case (.scalar(let a), .structured(let st)) where a.isNullLiteral:
            return Self.nullComparison(op, exists: exists(st, &p))
        case (.collection(let st), .scalar(let b)) where b.isNullLiteral:
            // A collection is never null (it may be empty); a path to it through an absent
            // entity is.
            return Self.nullComparison(op, exists: embedCondition(st, "1"))
        case (.scalar(let a), .collection(let st)) where a.isNullLiteral:
            return Self.nullComparison(op, exists: embedCondition(st, "1"))
        default:
            throw unsupported("a comparison of structured values or collections", e)
        }
    }

    static func nullComparison(_ op: BinaryOperator, exists: String) -> Operand {
        switch op {
        case .eq: return .boolean(exists == "1" ? "0" : (exists == "0" ? "1" : "NOT \(SQLText.paren(exists))"), nullable: false)
        case .ne: return .boolean(exists, nullable: false)
        default: return .boolean(exists == "1" || exists == "0" ? "0" : "(\(SQLText.paren(exists)) AND 0)", nullable: false)
        }
    }

    /// A constant false that still mentions `x`'s SQL, so the parameters bound while `x` was
    /// translated stay referenced by the statement.
    static func falseMentioning(_ x: Operand) -> String {
        guard case .sql(let sql) = x.source else { return "0" }
        return "(\(SQLText.paren(sql)) IS NULL AND 0)"
    }

    /// A NULL that still mentions `x`'s SQL (see `falseMentioning`).
    static func nullMentioning(_ x: Operand) -> String {
        guard case .sql(let sql) = x.source else { return "NULL" }
        return "CASE WHEN \(SQLText.paren(sql)) IS NULL THEN NULL END"
    }

    static func sqlOperator(_ op: BinaryOperator) -> String {
        switch op {
        case .eq: return "="
        case .ne: return "<>"
        case .gt: return ">"
        case .ge: return ">="
        case .lt: return "<"
        default: return "<="
        }
    }

    mutating func compareScalars(_ op: BinaryOperator, _ a: Operand, _ b: Operand, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> Operand {
        let relational = op != .eq && op != .ne
        if a.isNullLiteral || b.isNullLiteral {
            if a.isNullLiteral && b.isNullLiteral {
                return .boolean(op == .eq ? "1" : "0", nullable: false)
            }
            let x = a.isNullLiteral ? b : a
            if relational { return .boolean(Self.falseMentioning(x), nullable: false) }
            let xs = SQLText.paren(try render(x, &p))
            return .boolean(op == .eq ? "\(xs) IS NULL" : "\(xs) IS NOT NULL", nullable: false)
        }
        let (target, mode) = try compareMode(a.rep, b.rep, relational: relational, e)
        let ls = try side(a, target, mode, e, &p)
        let rs = try side(b, target, mode, e, &p)
        var lc = SQLText.paren(ls)
        if case .collate(let c) = mode { lc = "\(lc) COLLATE \(c)" }
        let rp = SQLText.paren(rs)
        let nanA = mode == .double && a.mayBeNaN
        let nanB = mode == .double && b.mayBeNaN
        let nullable = a.nullable || b.nullable

        func equality() -> String {
            var sql = nullable ? "\(lc) IS \(rp)" : "\(lc) = \(rp)"
            if nanA && nanB {
                sql = nullable ? "\(sql) AND (\(SQLText.paren(ls)) IS NULL OR ods_isnum(\(ls)))" : "\(sql) AND ods_isnum(\(ls))"
            }
            return sql
        }

        switch op {
        case .eq:
            return .boolean(equality(), nullable: false)
        case .ne:
            if !nullable && !(nanA && nanB) { return .boolean("\(lc) <> \(rp)", nullable: false) }
            return .boolean("NOT (\(equality()))", nullable: false)
        default:
            var parts = ["\(lc) \(Self.sqlOperator(op)) \(rp)"]
            var coalesce = false
            for (x, xs, nan) in [(a, ls, nanA), (b, rs, nanB)] {
                if nan {
                    parts.append("ods_isnum(\(xs))")
                } else if x.nullable {
                    if x.simple { parts.append("\(xs) IS NOT NULL") } else { coalesce = true }
                }
            }
            let sql = SQLText.balanced(parts, "AND")
            return .boolean(coalesce ? "COALESCE(\(sql), 0)" : sql, nullable: false)
        }
    }

    /// How two representations compare, and the representation both sides are rendered in.
    func compareMode(_ a: Rep, _ b: Rep, relational: Bool, _ e: FilterExpression) throws(ODataStoreError) -> (Rep, CompareMode) {
        func numeric(_ r: Rep) -> Bool { r == .integer || r == .decimal || r == .double }
        switch (a, b) {
        case (.untyped, .untyped):
            return (.untyped, .native)
        case (.untyped, let x), (let x, .untyped):
            return try compareMode(x, x, relational: relational, e)
        case _ where numeric(a) && numeric(b):
            if a == .double || b == .double { return (.double, .double) }
            if a == .decimal || b == .decimal { return (.decimal, .collate("ODS_DECIMAL")) }
            return (.integer, .native)
        case (.boolean, .boolean), (.string, .string), (.date, .date):
            return (a, .native)
        case (.enumeration(let x), .enumeration(let y)) where x == y:
            return try enumMode(x, relational: relational, e)
        case (.enumeration(let x), .string), (.string, .enumeration(let x)):
            return try enumMode(x, relational: relational, e)
        case (.guid, .guid):
            return (.guid, .collate("NOCASE"))
        case (.date, .instant), (.instant, .date), (.instant, .instant):
            return (.instant, .collate("ODS_INSTANT"))
        case (.timeOfDay, .timeOfDay):
            return (.timeOfDay, .collate("ODS_TIMEOFDAY"))
        case (.duration, .duration):
            return (.duration, .collate("ODS_DURATION"))
        case (.binary, .binary):
            return relational ? (.binary, .blob) : (.binary, .native)
        default:
            throw unsupported("a comparison of \(a) with \(b)", e)
        }
    }

    func enumMode(_ type: String, relational: Bool, _ e: FilterExpression) throws(ODataStoreError) -> (Rep, CompareMode) {
        let t = model.enumType(type)
        if let t, relational || t.isFlags { return (.enumeration(type), .enumValues(t)) }
        if relational { throw unsupported("ordering values of the unknown enumeration \(type)", e) }
        return (.enumeration(type), .native)
    }

    /// One side of a comparison in the mode's form.
    mutating func side(_ o: Operand, _ target: Rep, _ mode: CompareMode, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> String {
        switch mode {
        case .enumValues(let t):
            if case .literal(let l) = o.source {
                switch l {
                case .enumMember(_, let v), .string(let v): return p.bind(.integer(try enumValue(v, t.qualifiedName, e)))
                case .integer(let v), .int64(let v): return p.bind(.integer(Int64(v) ?? 0))
                default: break
                }
            }
            return "ods_enum_value(\(try render(o, as: target, &p)), \(p.bind(.text(Self.members(t)))))"
        case .blob:
            return "ods_unbase64(\(try render(o, as: target, &p)))"
        default:
            return try render(o, as: target, &p)
        }
    }

    // MARK: - in

    /// `x in (a, b, ...)`: true when `x` equals one of the items (with `eq`'s rules).
    /// Literal items of one kind become SQL's `IN` (index-friendly).
    mutating func inList(_ l: Term, _ items: [FilterExpression], _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Operand {
        guard case .scalar(let a) = l else { throw unsupported("'in' on a structured value", e) }
        if items.isEmpty { return .boolean(Self.falseMentioning(a), nullable: false) }
        var operands: [Operand] = []
        for item in items { operands.append(try scalar(item, s, &p)) }
        var modes: [(Rep, CompareMode)] = []
        var allLiterals = !a.isNullLiteral
        for o in operands {
            guard case .literal = o.source, allLiterals else { allLiterals = false; break }
            modes.append(try compareMode(a.rep, o.rep, relational: false, e))
        }
        if allLiterals, let first = modes.first, modes.allSatisfy({ $0.0 == first.0 && $0.1 == first.1 }), first.1 != .blob {
            let (target, mode) = first
            let ls = try side(a, target, mode, e, &p)
            var lc = SQLText.paren(ls)
            if case .collate(let c) = mode { lc = "\(lc) COLLATE \(c)" }
            var list: [String] = []
            for o in operands where !(mode == .double && o.mayBeNaN) { list.append(try side(o, target, mode, e, &p)) }
            if list.isEmpty { return .boolean("(\(SQLText.paren(ls)) IS NULL AND 0)", nullable: false) }
            var parts = ["\(lc) IN (\(list.joined(separator: ", ")))"]
            var coalesce = false
            if mode == .double && a.mayBeNaN {
                parts.append("ods_isnum(\(ls))")
            } else if a.nullable {
                if a.simple { parts.append("\(ls) IS NOT NULL") } else { coalesce = true }
            }
            let sql = SQLText.balanced(parts, "AND")
            return .boolean(coalesce ? "COALESCE(\(sql), 0)" : sql, nullable: false)
        }
        var alternatives: [String] = []
        for o in operands { alternatives.append(try render(try compareScalars(.eq, a, o, e, &p), &p)) }
        return .boolean(SQLText.balanced(alternatives, "OR"), nullable: false)
    }

    // MARK: - has

    /// `x has NS.Flags'A,B'`: the right operand's flags are all set in the left one
    /// (5.1.1.1.10); null when an operand is null.
    mutating func has(_ a: Operand, _ b: Operand, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> Operand {
        if a.isNullLiteral || b.isNullLiteral {
            let other = a.isNullLiteral ? b : a
            return .sql(Self.nullMentioning(other), .boolean, nullable: true, type: .primitive(.boolean))
        }
        guard case .enumeration(let name) = a.rep, let t = model.enumType(name) else {
            throw unsupported("'has' on a value that is not of a known enumeration type", e)
        }
        let members = Self.members(t)
        let left = "ods_enum_value(\(try render(a, &p)), \(p.bind(.text(members))))"
        let right: String
        switch b.source {
        case .literal(.enumMember(_, let v)), .literal(.string(let v)):
            right = p.bind(.integer(try enumValue(v, name, e)))
        case .sql(let sql) where b.simple:
            right = "ods_enum_value(\(sql), \(p.bind(.text(members))))"
        default:
            throw unsupported("'has' with a computed right operand", e)
        }
        return .boolean("(\(left) & \(right)) = \(right)", nullable: a.nullable || b.nullable)
    }
}
