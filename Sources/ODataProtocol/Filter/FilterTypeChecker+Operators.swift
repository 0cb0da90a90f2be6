/// Operators and canonical functions.
extension FilterTypeChecker {
    func binaryType(_ op: BinaryOperator, _ l: FilterExpression, _ r: FilterExpression, _ e: FilterExpression) throws(URLParseError) -> ExpressionType {
        let lt = l.type ?? .null, rt = r.type ?? .null
        switch op {
        case .and, .or:
            try requireBoolean(l, "a Boolean operand of '\(op.rawValue)'")
            try requireBoolean(r, "a Boolean operand of '\(op.rawValue)'")
            return .primitive(.boolean)
        case .eq, .ne, .gt, .ge, .lt, .le:
            let ordered = op != .eq && op != .ne
            guard TypeCompatibility.comparable(lt, rt, ordered: ordered) else {
                throw fail("cannot compare \(lt) with \(rt) using '\(op.rawValue)'", r)
            }
            return .primitive(.boolean)
        case .has:
            guard case .enumeration(let a) = lt else {
                if lt == .null { return .primitive(.boolean) }
                throw fail("'has' needs an enumeration on its left, found \(lt)", l)
            }
            guard rt == .null || rt == .enumeration(a) || rt == .primitive(.string) else {
                throw fail("expected a member of \(a) after 'has', found \(rt)", r)
            }
            return .primitive(.boolean)
        case .add, .sub, .mul, .div, .divby, .mod:
            if lt == .null || rt == .null { return .null }
            if case .primitive(let a) = lt, case .primitive(let b) = rt {
                if let p = TypeCompatibility.promoted(a, b) {
                    return .primitive(op == .divby ? .decimal : p)
                }
                if op == .add || op == .sub {
                    switch (a, b) {
                    case (.dateTimeOffset, .duration), (.dateTime, .duration), (.dateTime, .time), (.date, .duration):
                        return .primitive(a)
                    case (.duration, .duration): return .primitive(.duration)
                    case (.dateTimeOffset, .dateTimeOffset) where op == .sub, (.date, .date) where op == .sub:
                        return .primitive(.duration)
                    default: break
                    }
                }
                if (op == .mul || op == .div) && a == .duration && TypeCompatibility.numericRank(b) != nil {
                    return .primitive(.duration)
                }
            }
            throw fail("'\(op.rawValue)' cannot combine \(lt) and \(rt)", e)
        }
    }

    func callType(_ name: String, _ args: [FilterExpression], _ e: FilterExpression) throws(URLParseError) -> ExpressionType {
        func arg(_ i: Int, _ allowed: Set<EdmPrimitiveKind>, _ what: String) throws(URLParseError) -> EdmPrimitiveKind? {
            guard i < args.count else { return nil }
            let t = args[i].type ?? .null
            if t == .null { return nil }
            if case .primitive(let k) = t, allowed.contains(k) || k == .other { return k }
            throw fail("\(name) expects \(what) as argument \(i + 1), found \(t)", args[i])
        }
        func isCollection(_ i: Int) -> Bool {
            guard i < args.count else { return false }
            if case .collection = args[i].type ?? .null { return true }
            return false
        }
        func collection(_ i: Int) throws(URLParseError) {
            guard i < args.count else { return }
            let t = args[i].type ?? .null
            if t == .null || isCollection(i) { return }
            throw fail("\(name) expects a collection as argument \(i + 1), found \(t)", args[i])
        }
        let string: Set<EdmPrimitiveKind> = [.string]
        let integer: Set<EdmPrimitiveKind> = [.byte, .sbyte, .int16, .int32, .int64]
        let numeric: Set<EdmPrimitiveKind> = integer.union([.decimal, .single, .double])
        let dates: Set<EdmPrimitiveKind> = [.date, .dateTime, .dateTimeOffset]
        let times: Set<EdmPrimitiveKind> = [.dateTime, .dateTimeOffset, .timeOfDay, .time, .duration]
        let geo: Set<EdmPrimitiveKind> = [.geography, .geometry]
        let bool = ExpressionType.primitive(.boolean)
        switch name {
        case "substringof", "contains", "startswith", "endswith", "matchespattern":
            // 4.01: contains, startswith and endswith also compare collections.
            if name == "contains" || name == "startswith" || name == "endswith", isCollection(0) || isCollection(1) {
                try collection(0)
                try collection(1)
                return bool
            }
            _ = try arg(0, string, "a string")
            _ = try arg(1, string, "a string")
            return bool
        case "length":
            if isCollection(0) { return .primitive(.int32) }
            _ = try arg(0, string, "a string")
            return .primitive(.int32)
        case "indexof":
            if isCollection(0) || isCollection(1) {
                try collection(0)
                try collection(1)
                return .primitive(.int32)
            }
            _ = try arg(0, string, "a string"); _ = try arg(1, string, "a string")
            return .primitive(.int32)
        case "replace":
            for i in 0..<3 { _ = try arg(i, string, "a string") }
            return .primitive(.string)
        case "substring":
            if isCollection(0) {
                _ = try arg(1, integer, "an integer"); _ = try arg(2, integer, "an integer")
                return args[0].type ?? .null
            }
            _ = try arg(0, string, "a string"); _ = try arg(1, integer, "an integer"); _ = try arg(2, integer, "an integer")
            return .primitive(.string)
        case "tolower", "toupper", "trim":
            _ = try arg(0, string, "a string")
            return .primitive(.string)
        case "concat":
            if isCollection(0) || isCollection(1) {
                try collection(0)
                try collection(1)
                return args[0].type ?? .null
            }
            _ = try arg(0, string, "a string"); _ = try arg(1, string, "a string")
            return .primitive(.string)
        case "year", "month", "day":
            _ = try arg(0, dates, "a date or date-time")
            return .primitive(.int32)
        case "hour", "minute", "second":
            _ = try arg(0, times, "a date-time or time of day")
            return .primitive(.int32)
        case "fractionalseconds":
            _ = try arg(0, times, "a date-time or time of day")
            return .primitive(.decimal)
        case "totalseconds":
            _ = try arg(0, [.duration, .time], "a duration")
            return .primitive(.decimal)
        case "date":
            _ = try arg(0, [.dateTimeOffset, .dateTime], "a date-time")
            return .primitive(.date)
        case "time":
            _ = try arg(0, [.dateTimeOffset, .dateTime], "a date-time")
            return .primitive(.timeOfDay)
        case "totaloffsetminutes":
            _ = try arg(0, [.dateTimeOffset], "a date-time offset")
            return .primitive(.int32)
        case "now", "maxdatetime", "mindatetime":
            return .primitive(.dateTimeOffset)
        case "round", "floor", "ceiling":
            let k = try arg(0, numeric, "a number")
            return k.map { .primitive($0) } ?? .null
        case "geo.distance", "geo.length":
            for i in 0..<args.count { _ = try arg(i, geo, "a geo value") }
            return .primitive(.double)
        case "geo.intersects":
            for i in 0..<args.count { _ = try arg(i, geo, "a geo value") }
            return bool
        case "hassubset", "hassubsequence":
            try collection(0)
            try collection(1)
            return bool
        case "case":
            // case(cond:value, …): conditions are Boolean; the type is the values' (the first
            // that is not null), and every value must be comparable with it.
            var result: ExpressionType = .null
            var i = 0
            while i + 1 < args.count {
                try requireBoolean(args[i], "a Boolean condition in case")
                let t = args[i + 1].type ?? .null
                if result == .null {
                    result = t
                } else if t != .null, !TypeCompatibility.comparable(result, t, ordered: false) {
                    throw fail("case values must have one type: \(result) and \(t)", args[i + 1])
                }
                i += 2
            }
            return result
        default:
            throw fail("unknown function '\(name)'", e)
        }
    }
}
