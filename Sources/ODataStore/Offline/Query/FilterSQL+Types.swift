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
        // Rendered once and always mentioned, so its parameters stay referenced.
        let x = try render(o, &p)
        let present = "\(SQLText.paren(x)) IS NOT NULL"
        let absent = "(\(SQLText.paren(x)) IS NULL AND 0)"
        if case .enumeration(let name) = o.rep, model.enumType(target) != nil {
            return .boolean(name == target ? present : absent, nullable: false)
        }
        guard let k = EdmPrimitiveKind(qualifiedName: target) ?? model.primitiveKind(of: target) else {
            // A primitive value is never an entity or complex value.
            return .boolean(absent, nullable: false)
        }
        let source = primitiveKind(o)
        if source == k || (source == nil && rep(kind: k) == o.rep && o.rep != .integer && o.rep != .double) {
            return .boolean(present, nullable: false)
        }
        if o.rep == .integer, let range = Self.integerRanges[k] {
            if let source, let sourceRange = Self.integerRanges[source], range.contains(sourceRange.lowerBound), range.contains(sourceRange.upperBound) {
                return .boolean(present, nullable: false)
            }
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
        var x = try render(o, &p)
        // ORDER BY 1 means "by the first column", and SQLite folds `x AND 0` into a 0:
        // Boolean terms are wrapped so that they are never an integer literal.
        if Int(x) != nil || o.rep == .boolean { x = "CAST(\(x) AS INTEGER)" }
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

/// SQLite parses statements with a fixed-size stack (100 entries in the default build) and
/// fails with "parser stack overflow" beyond it. `check` estimates what an expression needs,
/// from measurements on SQLite 3.40 (see FilterSQLRandomTests): a nested function call
/// about three entries, plus two for each argument before it; `NOT (` two; a parenthesis
/// after an operator three; a subquery eight. An expression over `budget` is refused
/// (`.unsupported`) rather than sent to SQLite; the budget leaves room for a statement that
/// embeds the expression in a subquery or two.
enum SQLNesting {
    static let budget = 80

    static func cost(_ sql: String) -> Int {
        var stack: [(cost: Int, commas: Int, call: Bool)] = []
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
                var j = i - 1
                while j >= 0, bytes[j] == UInt8(ascii: " ") { j -= 1 }
                var k = j
                while k >= 0, isWordByte(bytes[k]) { k -= 1 }
                let word = k < j ? Array(bytes[(k + 1)...j]) : []
                var cost: Int
                var call = false
                if j < 0 || bytes[j] == UInt8(ascii: "(") || bytes[j] == UInt8(ascii: ",") {
                    cost = 1
                } else if word.isEmpty {
                    cost = 3
                } else if word == Array("NOT".utf8) {
                    cost = 2
                } else if keywords.contains(word) {
                    cost = 3
                } else {
                    cost = 3
                    call = true
                }
                if bytes[(i + 1)...].starts(with: Array("SELECT".utf8)) {
                    cost = 8
                    call = false
                }
                cost += 2 * (stack.last?.commas ?? 0)
                stack.append((cost, 0, call))
                total += cost
                maxTotal = max(maxTotal, total)
            case UInt8(ascii: ","):
                // Arguments before a nested call wait on the stack; FROM lists do not.
                if let last = stack.last, last.call { stack[stack.count - 1].commas += 1 }
            case UInt8(ascii: ")"):
                total -= stack.popLast()?.cost ?? 0
            default:
                break
            }
            i += 1
        }
        return maxTotal
    }

    /// Words before a parenthesis that do not make it a function call.
    static let keywords: Set<[UInt8]> = Set(["NOT", "AND", "OR", "IN", "IS", "WHEN", "THEN", "ELSE", "EXISTS", "WHERE", "SELECT"].map { Array($0.utf8) })

    static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == UInt8(ascii: "_")
    }

    static func check(_ sql: String) throws(ODataStoreError) {
        guard cost(sql) <= budget else {
            throw ODataStoreError(.unsupported, "an expression nested this deeply cannot be evaluated offline (SQLite's parser limit)")
        }
    }
}
