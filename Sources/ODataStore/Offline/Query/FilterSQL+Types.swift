/// `isof` and `cast` (V4.01 Part 2, 5.1.1.10; V2 4.5 "Type Functions"). On entities the
/// `@type` column decides (the derived type's name, NULL for the set's declared type); on
/// complex values kept as JSON their `@odata.type`. On primitive values what the store can
/// decide exactly: the same type, integer widening and narrowing (with range checks),
/// integer to decimal or double, decimal to double, and primitive values to Edm.String in
/// their payload form. An absent (null) value is of no type: `isof` is false for it.
extension FilterSQL {
    mutating func typeFunction(_ fn: TypeFunction, _ operand: FilterExpression?, _ typeName: String, _ e: FilterExpression,
                               _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        let target = model.resolve(typeName)
        let subject: Term
        if let operand {
            subject = try term(operand, s, &p)
        } else {
            subject = .structured(PathState(cursor: .entity(s.table, alias: s.alias)))
        }
        switch (fn, subject) {
        case (.isof, .structured(let state)):
            return .scalar(.boolean(typeTest(state, target, &p), nullable: false))
        case (.isof, .scalar(let o)):
            return .scalar(try primitiveIsof(o, target, e, &p))
        case (.cast, .scalar(let o)):
            return .scalar(try primitiveCast(o, target, e, &p))
        case (.cast, .structured):
            throw unsupported("cast of an entity or complex value", e)
        default:
            throw unsupported("\(fn.rawValue) of a collection", e)
        }
    }

    static let integerRanges: [EdmPrimitiveKind: ClosedRange<Int64>] = [
        .byte: 0...255, .sbyte: -128...127, .int16: Int64(Int16.min)...Int64(Int16.max),
        .int32: Int64(Int32.min)...Int64(Int32.max), .int64: Int64.min...Int64.max,
    ]

    func primitiveKind(_ o: Operand) -> EdmPrimitiveKind? {
        if case .primitive(let k)? = o.type { return k }
        return nil
    }

    mutating func primitiveIsof(_ o: Operand, _ target: String, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> Operand {
        if o.isNullLiteral { return .boolean("0", nullable: false) }
        let present: String
        if o.nullable {
            present = "\(SQLText.paren(try render(o, &p))) IS NOT NULL"
        } else {
            present = "1"
        }
        if case .enumeration(let name) = o.rep, model.enumType(target) != nil {
            return .boolean(name == target ? present : "0", nullable: false)
        }
        guard let k = EdmPrimitiveKind(qualifiedName: target) ?? model.primitiveKind(of: target) else {
            // A primitive value is never an entity or complex value.
            return .boolean("0", nullable: false)
        }
        let source = primitiveKind(o)
        if source == k || (source == nil && rep(kind: k) == o.rep && o.rep != .integer && o.rep != .double) {
            return .boolean(present, nullable: false)
        }
        if o.rep == .integer, let range = Self.integerRanges[k] {
            if let source, let sourceRange = Self.integerRanges[source], range.contains(sourceRange.lowerBound), range.contains(sourceRange.upperBound) {
                return .boolean(present, nullable: false)
            }
            let x = try render(o, &p)
            let sql = "\(SQLText.paren(x)) BETWEEN \(p.bind(.integer(range.lowerBound))) AND \(p.bind(.integer(range.upperBound)))"
            return .boolean(o.nullable ? "COALESCE(\(sql), 0)" : sql, nullable: false)
        }
        if (o.rep == .integer && (k == .decimal || k == .double || k == .single)) || (o.rep == .decimal && (k == .double || k == .single)) {
            return .boolean(present, nullable: false)
        }
        throw unsupported("isof of a \(o.rep) value as \(target)", e)
    }

    mutating func primitiveCast(_ o: Operand, _ target: String, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> Operand {
        guard let k = EdmPrimitiveKind(qualifiedName: target) ?? model.primitiveKind(of: target) else {
            if case .enumeration(let name) = o.rep, name == target { return o }
            throw unsupported("cast of a \(o.rep) value to \(target)", e)
        }
        let targetRep = rep(kind: k)
        let type = ExpressionType.primitive(k)
        if o.isNullLiteral { return .null(targetRep, type: type) }
        let source = primitiveKind(o)
        if source == k { return o }
        if o.rep == .integer, let range = Self.integerRanges[k] {
            if let source, let sourceRange = Self.integerRanges[source], range.contains(sourceRange.lowerBound), range.contains(sourceRange.upperBound) {
                var widened = o
                widened.type = type
                return widened
            }
            // The cast fails (null) when the value does not fit (5.1.1.10.1, rule 4).
            let x = try render(o, &p)
            let sql = "CASE WHEN \(SQLText.paren(x)) BETWEEN \(p.bind(.integer(range.lowerBound))) AND \(p.bind(.integer(range.upperBound))) THEN \(x) END"
            return .sql(sql, .integer, nullable: true, type: type)
        }
        switch (o.rep, targetRep) {
        case (.integer, .decimal):
            return .sql(try render(o, as: .decimal, &p), .decimal, nullable: o.nullable, type: type)
        case (.integer, .double), (.decimal, .double):
            return .sql("CAST(\(try render(o, &p)) AS REAL)", .double, nullable: o.nullable, type: type)
        case (.string, .string):
            return o
        case (.integer, .string):
            return .sql("CAST(\(try render(o, &p)) AS TEXT)", .string, nullable: o.nullable, type: type)
        case (.boolean, .string):
            let x = try render(o, &p)
            return .sql("CASE \(SQLText.paren(x)) WHEN 1 THEN \(p.bind(.text("true"))) WHEN 0 THEN \(p.bind(.text("false"))) END", .string,
                        nullable: o.nullable, type: type)
        case (.decimal, .string), (.guid, .string), (.date, .string), (.timeOfDay, .string), (.instant, .string),
             (.duration, .string), (.enumeration, .string):
            return .sql(try render(o, &p), .string, nullable: o.nullable, type: type)
        default:
            if o.rep == targetRep, o.rep != .integer, o.rep != .double { return o }
            throw unsupported("cast of a \(o.rep) value to \(target)", e)
        }
    }

    // MARK: - Ordering

    /// A `$orderby` value with the collation its representation sorts by.
    mutating func orderSQL(_ o: Operand, _ p: inout SQLParameters) throws(ODataStoreError) -> String {
        let x = try render(o, &p)
        switch o.rep {
        case .decimal: return "\(SQLText.paren(x)) COLLATE ODS_DECIMAL"
        case .instant: return "\(SQLText.paren(x)) COLLATE ODS_INSTANT"
        case .duration: return "\(SQLText.paren(x)) COLLATE ODS_DURATION"
        case .timeOfDay: return "\(SQLText.paren(x)) COLLATE ODS_TIMEOFDAY"
        case .guid: return "\(SQLText.paren(x)) COLLATE NOCASE"
        case .binary: return "ods_unbase64(\(x))"
        case .enumeration(let name):
            guard let t = model.enumType(name) else { return x }
            return "ods_enum_value(\(x), \(p.bind(.text(Self.members(t)))))"
        case .opaque: throw ODataStoreError(.unsupported, "ordering by a geo or stream value cannot be evaluated offline")
        default: return x
        }
    }
}

/// SQLite parses expressions with a fixed-size stack (100 entries in the default build): a
/// nested function call takes about three, a subquery about seven. `check` estimates what a
/// statement built around an expression needs and refuses (`.unsupported`) an expression
/// that would not parse, so a deep `$filter` fails with a clear message instead of an SQL
/// error.
enum SQLNesting {
    /// The estimate's budget, leaving room for the statement around the expression.
    static let budget = 80

    static func cost(_ sql: String) -> Int {
        var stack: [Int] = []
        var total = 0
        var maxTotal = 0
        var inQuote = false
        let bytes = Array(sql.utf8)
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if inQuote {
                if c == UInt8(ascii: "\"") { inQuote = false }
                i += 1
                continue
            }
            switch c {
            case UInt8(ascii: "\""):
                inQuote = true
            case UInt8(ascii: "("):
                var cost = 1
                var j = i - 1
                while j >= 0, bytes[j] == UInt8(ascii: " ") { j -= 1 }
                if j >= 0, Self.isWordByte(bytes[j]) { cost = 3 }
                if bytes[(i + 1)...].starts(with: Array("SELECT".utf8)) { cost = 8 }
                stack.append(cost)
                total += cost
                maxTotal = max(maxTotal, total)
            case UInt8(ascii: ")"):
                total -= stack.popLast() ?? 0
            default:
                break
            }
            i += 1
        }
        return maxTotal
    }

    static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == UInt8(ascii: "_")
    }

    static func check(_ sql: String, _ e: FilterExpression, version: ODataVersion) throws(ODataStoreError) {
        guard cost(sql) <= budget else {
            throw ODataStoreError(.unsupported, "an expression nested this deeply cannot be evaluated offline (SQLite's parser limit)")
        }
    }
}
