/// Canonical functions (V4.01 Part 2, 5.1.1.4 to 5.1.1.9; V2: MS-ODATA 2.2.3.6.1.1 and
/// the V2 URI conventions, section 4.5) through the store's `ods_*` SQL functions. A null
/// argument gives null (5.1.1.4). `matchespattern` (5.1.1.5.8) runs the store's own
/// ECMAScript regular-expression engine (`ods_matches_pattern`, Regex/): a literal pattern
/// is bound like every literal and compiled here first, so an invalid one fails before any
/// SQL runs (HTTP 400, as the service answers) and one beyond the engine's limits is
/// refused (`.unsupported`). The collection functions `hassubset` and `hassubsequence`
/// (5.1.1.6) and the collection overloads of `contains`, `startswith`, `endswith`,
/// `indexof`, `substring`, `concat` and `length` (5.1.1.5) are translated in
/// `FilterSQL+Collections`. Functions whose meaning the store cannot reproduce exactly
/// are refused with `.unsupported`: the geo functions.
extension FilterSQL {
    mutating func call(_ name: String, _ args: [FilterExpression], _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        let function = name.lowercased()
        func arity(_ n: ClosedRange<Int>) throws(ODataStoreError) {
            guard n.contains(args.count) else { throw unsupported("\(name) with \(args.count) arguments", e) }
        }
        switch function {
        case "contains", "startswith", "endswith", "substringof":
            try arity(2...2)
            if function != "substringof", Self.hasCollectionArgument(args) { return try collectionRelation(function, args, e, s, &p) }
            var first = try term(args[0], s, &p)
            var second = try term(args[1], s, &p)
            if function == "substringof" { swap(&first, &second) }
            guard case .scalar(let h) = first, case .scalar(let n) = second else {
                throw unsupported("\(name) on collections", e)
            }
            let f = function == "substringof" ? "ods_contains" : "ods_\(function)"
            return .scalar(.boolean("\(f)(\(try stringArgument(h, e, &p)), \(try stringArgument(n, e, &p)))", nullable: h.nullable || n.nullable))
        case "length":
            try arity(1...1)
            switch try term(args[0], s, &p) {
            case .scalar(let x):
                return .scalar(.sql("ods_length(\(try stringArgument(x, e, &p)))", .integer, nullable: x.nullable, type: .primitive(.int32)))
            case .collection(var state):
                // Null when the path leads nowhere (5.1.1.4), unlike `$count`.
                if case .jsonCollection(_, _, _, nil) = state.cursor { return try arrayLength(try jsonArray(state, "length", e, &p), &p) }
                let reached = state.from.isEmpty && state.conditions.isEmpty ? nil : embedCondition(state, "1")
                try count(&state, e, &p)
                guard case .value(let o) = state.cursor else { throw unsupported("length of a collection", e) }
                guard let reached else { return .scalar(o) }
                return .scalar(.sql("CASE WHEN \(reached) THEN \(try render(o, &p)) END", .integer, nullable: true, type: o.type))
            case .array(let v):
                return try arrayLength(v, &p)
            case .structured:
                throw unsupported("length of a structured value", e)
            }
        case "indexof":
            try arity(2...2)
            if Self.hasCollectionArgument(args) { return try collectionRelation(function, args, e, s, &p) }
            let h = try scalar(args[0], s, &p), n = try scalar(args[1], s, &p)
            return .scalar(.sql("ods_indexof(\(try stringArgument(h, e, &p)), \(try stringArgument(n, e, &p)))", .integer,
                                nullable: h.nullable || n.nullable, type: .primitive(.int32)))
        case "substring":
            try arity(2...3)
            if Self.hasCollectionArgument([args[0]]) { return try collectionSubstring(args, e, s, &p) }
            var parts: [String] = []
            var nullable = false
            for (i, a) in args.enumerated() {
                let o = try scalar(a, s, &p)
                nullable = nullable || o.nullable
                if i == 0 {
                    parts.append(try stringArgument(o, e, &p))
                } else {
                    guard o.rep == .integer || o.rep == .null || o.rep == .untyped else { throw unsupported("substring with a non-integer position", e) }
                    parts.append(try render(o, &p))
                }
            }
            return .scalar(.sql("ods_substring(\(parts.joined(separator: ", ")))", .string, nullable: nullable, type: .primitive(.string)))
        case "tolower", "toupper", "trim":
            try arity(1...1)
            let x = try scalar(args[0], s, &p)
            return .scalar(.sql("ods_\(function)(\(try stringArgument(x, e, &p)))", .string, nullable: x.nullable, type: .primitive(.string)))
        case "concat":
            try arity(2...2)
            if Self.hasCollectionArgument(args) { return try collectionConcat(args, e, s, &p) }
            guard case .scalar(let a) = try term(args[0], s, &p), case .scalar(let b) = try term(args[1], s, &p) else {
                throw unsupported("concat of collections", e)
            }
            let sql = "\(SQLText.paren(try stringArgument(a, e, &p))) || \(SQLText.paren(try stringArgument(b, e, &p)))"
            return .scalar(.sql(sql, .string, nullable: a.nullable || b.nullable, type: .primitive(.string)))
        case "replace":
            try arity(3...3)
            var parts: [String] = []
            var nullable = false
            for a in args {
                let o = try scalar(a, s, &p)
                nullable = nullable || o.nullable
                parts.append(try stringArgument(o, e, &p))
            }
            // SQLite's replace() matches bytes exactly (case-sensitive); an empty pattern
            // leaves the string unchanged.
            return .scalar(.sql("replace(\(parts.joined(separator: ", ")))", .string, nullable: nullable, type: .primitive(.string)))
        case "year", "month", "day", "hour", "minute", "second", "totaloffsetminutes":
            try arity(1...1)
            let x = try temporalArgument(args[0], e, s, &p)
            return .scalar(.sql("ods_\(function)(\(x.sql))", .integer, nullable: x.nullable, type: .primitive(.int32)))
        case "fractionalseconds", "totalseconds":
            try arity(1...1)
            let x = try temporalArgument(args[0], e, s, &p)
            return .scalar(.sql("ods_\(function)(\(x.sql))", .decimal, nullable: x.nullable, type: .primitive(.decimal)))
        case "date":
            try arity(1...1)
            let x = try temporalArgument(args[0], e, s, &p)
            return .scalar(.sql("ods_date(\(x.sql))", .date, nullable: x.nullable, type: .primitive(.date)))
        case "time":
            try arity(1...1)
            let x = try temporalArgument(args[0], e, s, &p)
            return .scalar(.sql("ods_time(\(x.sql))", .timeOfDay, nullable: x.nullable, type: .primitive(.timeOfDay)))
        case "now":
            try arity(0...0)
            return .scalar(.sql("ods_now()", .instant, nullable: false, type: .primitive(.dateTimeOffset)))
        case "maxdatetime", "mindatetime":
            try arity(0...0)
            // The latest and earliest instants an Edm.DateTimeOffset can hold (years 0001..9999).
            let text = function == "maxdatetime" ? "9999-12-31T23:59:59.999999999999Z" : "0001-01-01T00:00:00Z"
            return .scalar(Operand(source: .sql(p.bind(.text(text))), rep: .instant, nullable: false, simple: true,
                                   type: .primitive(.dateTimeOffset)))
        case "round", "floor", "ceiling":
            try arity(1...1)
            let x = try scalar(args[0], s, &p)
            switch x.rep {
            case .null: return .scalar(x)
            case .integer: return .scalar(x)
            case .decimal:
                return .scalar(.sql("ods_dec_\(function)(\(try render(x, &p)))", .decimal, nullable: x.nullable, type: x.type))
            case .double:
                return .scalar(.sql("ods_dbl_\(function)(\(try render(x, &p)))", .double, nullable: x.nullable, type: x.type))
            case .untyped:
                return .scalar(.sql("ods_dbl_\(function)(\(try render(x, &p)))", .double, nullable: true, type: nil))
            default:
                throw unsupported("\(name) of a \(x.rep) value", e)
            }
        case "matchespattern":
            try arity(2...2)
            let text = try scalar(args[0], s, &p), pattern = try scalar(args[1], s, &p)
            if case .literal(.string(let source)) = pattern.source {
                do throws(RegexError) {
                    _ = try ECMARegex(source)
                } catch {
                    if error.isLimit { throw unsupported("matchesPattern with this pattern (\(error))", e) }
                    throw SQLFunctions.failure(SQLFunctions.matchesPatternMessage(error, pattern: source))
                }
            }
            return .scalar(.boolean("ods_matches_pattern(\(try stringArgument(text, e, &p)), \(try stringArgument(pattern, e, &p)))",
                                    nullable: text.nullable || pattern.nullable))
        case "geo.distance", "geo.length", "geo.intersects":
            throw unsupported("the geo function \(name)", e)
        case "hassubset", "hassubsequence":
            try arity(2...2)
            return try collectionRelation(function, args, e, s, &p)
        default:
            throw unsupported("the function \(name)", e)
        }
    }

    /// A string argument (strings, and values read from JSON or `@extra` as they are).
    mutating func stringArgument(_ o: Operand, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> String {
        switch o.rep {
        case .string, .null, .untyped: return try render(o, &p)
        default: throw unsupported("a string function applied to a \(o.rep) value", e)
        }
    }

    /// A date, date-time, time of day or duration argument as its text.
    mutating func temporalArgument(_ a: FilterExpression, _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> (sql: String, nullable: Bool) {
        let x = try scalar(a, s, &p)
        switch x.rep {
        case .date, .instant, .timeOfDay, .duration, .null, .untyped: return (try render(x, &p), x.nullable)
        default: throw unsupported("a date and time function applied to a \(x.rep) value", e)
        }
    }
}
