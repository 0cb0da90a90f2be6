/// Arithmetic operators (V4.01 Part 2, 5.1.1.2) through the store's checked functions:
/// integers stay exact 64-bit values (overflow fails instead of becoming a REAL), `div` on
/// integers truncates toward zero, `mod` takes the sign of the left operand, `divby` divides
/// as decimals, decimals are exact, doubles follow IEEE 754 (a division by zero is ±INF or
/// NaN); numeric operands are promoted as 5.1.1.18 says; the date and time operands of
/// 5.1.1.2.1/5.1.1.2.2 (DateTimeOffset ± Duration, Date ± Duration, Duration ± Duration,
/// DateTimeOffset − DateTimeOffset, Date − Date, Duration × or ÷ a number). A null operand
/// gives null.
extension FilterSQL {
    mutating func arithmetic(_ op: BinaryOperator, _ a: Operand, _ b: Operand, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> Operand {
        let resultType = e.type
        if a.isNullLiteral || b.isNullLiteral {
            let rep = resultType.flatMap(repOf) ?? .null
            let other = a.isNullLiteral ? b : a
            if case .sql = other.source { return .sql(Self.nullMentioning(other), rep, nullable: true, type: resultType) }
            return .null(rep, type: resultType)
        }
        let nullable = a.nullable || b.nullable
        var a = a, b = b
        // A dynamic (untyped) operand takes the other operand's numeric representation.
        if a.rep == .untyped, Self.isNumeric(b.rep) { a = .sql(fromJSON(try render(a, &p), b.rep), b.rep, nullable: true) }
        if b.rep == .untyped, Self.isNumeric(a.rep) { b = .sql(fromJSON(try render(b, &p), a.rep), a.rep, nullable: true) }

        switch (a.rep, b.rep, op) {
        case (.instant, .duration, .add), (.date, .duration, .add), (.instant, .timeOfDay, .add):
            return .sql("ods_dt_add(\(try render(a, &p)), \(try render(b, &p)))", a.rep, nullable: nullable, type: resultType)
        case (.instant, .duration, .sub), (.date, .duration, .sub), (.instant, .timeOfDay, .sub):
            return .sql("ods_dt_sub(\(try render(a, &p)), \(try render(b, &p)))", a.rep, nullable: nullable, type: resultType)
        case (.instant, .instant, .sub), (.date, .date, .sub):
            return .sql("ods_dt_diff(\(try render(a, &p)), \(try render(b, &p)))", .duration, nullable: nullable, type: resultType)
        case (.duration, .duration, .add), (.duration, .duration, .sub):
            let f = op == .add ? "ods_dur_add" : "ods_dur_sub"
            return .sql("\(f)(\(try render(a, &p)), \(try render(b, &p)))", .duration, nullable: nullable, type: resultType)
        case (.duration, let n, .mul) where Self.isNumeric(n), (.duration, let n, .div) where Self.isNumeric(n),
             (.duration, let n, .divby) where Self.isNumeric(n):
            let f = op == .mul ? "ods_dur_mul" : "ods_dur_div"
            return .sql("\(f)(\(try render(a, &p)), \(try render(b, &p)))", .duration,
                        nullable: nullable, type: resultType)
        case (let n, .duration, .mul) where Self.isNumeric(n):
            return .sql("ods_dur_mul(\(try render(b, &p)), \(try render(a, &p)))", .duration,
                        nullable: nullable, type: resultType)
        default:
            break
        }
        guard Self.isNumeric(a.rep), Self.isNumeric(b.rep) else {
            throw unsupported("'\(op.rawValue)' on \(a.rep) and \(b.rep)", e)
        }
        var mode: Rep = a.rep == .double || b.rep == .double ? .double : (a.rep == .decimal || b.rep == .decimal ? .decimal : .integer)
        if op == .divby && mode == .integer { mode = .decimal }
        let prefix = mode == .double ? "ods_dbl_" : (mode == .decimal ? "ods_dec_" : "ods_int_")
        let name: String
        switch op {
        case .add: name = "add"
        case .sub: name = "sub"
        case .mul: name = "mul"
        case .div, .divby: name = "div"
        default: name = "mod"
        }
        // The functions take every numeric form (promotion happens inside them).
        let x = try render(a, &p)
        let y = try render(b, &p)
        return .sql("\(prefix)\(name)(\(x), \(y))", mode, nullable: nullable, type: resultType)
    }

    mutating func negate(_ a: Operand, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) -> Operand {
        if a.isNullLiteral { return a }
        let f: String
        switch a.rep {
        case .integer: f = "ods_int_neg"
        case .decimal: f = "ods_dec_neg"
        case .double: f = "ods_dbl_neg"
        case .duration: f = "ods_dur_neg"
        default: throw unsupported("negation of a \(a.rep) value", e)
        }
        return .sql("\(f)(\(try render(a, &p)))", a.rep, nullable: a.nullable, type: a.type)
    }

    static func isNumeric(_ r: Rep) -> Bool { r == .integer || r == .decimal || r == .double }

    /// The representation of values of a checked type.
    func repOf(_ t: ExpressionType) -> Rep? {
        switch t {
        case .primitive(let k): return rep(kind: k)
        case .enumeration(let n): return .enumeration(n)
        case .null: return .null
        default: return nil
        }
    }
}
