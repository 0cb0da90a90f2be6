import ODataProtocol
import CSQLite

/// Numeric functions with OData's semantics (V4.01 Part 2, 5.1.1.2 and 5.1.1.9):
/// - integers (`ods_int_*`): 64-bit, overflow is an error (SQLite would silently turn the
///   result into an inexact REAL); `div` truncates toward zero; `mod` takes the sign of
///   the left operand; division by zero is an error ("the request fails");
/// - decimals (`ods_dec_*`): exact (`ExactDecimal`), results as decimal text; arguments may
///   be decimal text or integers (promotion);
/// - doubles (`ods_dbl_*`): IEEE 754 with NaN (kept as the text `NaN`) and ±INF; a double
///   divided by zero is ±INF or NaN; arguments may be integers or decimal text (promotion);
/// - `round` rounds half away from zero, `floor`/`ceiling` toward -INF/+INF;
/// - `ods_enum_value(member names, "Name:value,...")`: the numeric value of an enumeration
///   value, for `has` and ordering;
/// - `ods_unbase64`: base64 text as a BLOB, so binary values order by their bytes;
/// - `ods_double`: a JSON-held double (`"INF"`, `"NaN"`, numbers) in the store's form;
/// - `ods_isnum`: 1 for a number, 0 for text (`NaN`) and anything else.
extension SQLFunctions {
    static let numbers: [Entry] = [
        Entry(name: "ods_int_add", arguments: 2) { c, n, v in SQLFunctions.integer(SQLFunctionCall(c, n, v), .add) },
        Entry(name: "ods_int_sub", arguments: 2) { c, n, v in SQLFunctions.integer(SQLFunctionCall(c, n, v), .sub) },
        Entry(name: "ods_int_mul", arguments: 2) { c, n, v in SQLFunctions.integer(SQLFunctionCall(c, n, v), .mul) },
        Entry(name: "ods_int_div", arguments: 2) { c, n, v in SQLFunctions.integer(SQLFunctionCall(c, n, v), .div) },
        Entry(name: "ods_int_mod", arguments: 2) { c, n, v in SQLFunctions.integer(SQLFunctionCall(c, n, v), .mod) },
        Entry(name: "ods_int_neg", arguments: 1) { c, n, v in SQLFunctions.integer(SQLFunctionCall(c, n, v), .neg) },

        Entry(name: "ods_dec_add", arguments: 2) { c, n, v in SQLFunctions.decimal(SQLFunctionCall(c, n, v), .add) },
        Entry(name: "ods_dec_sub", arguments: 2) { c, n, v in SQLFunctions.decimal(SQLFunctionCall(c, n, v), .sub) },
        Entry(name: "ods_dec_mul", arguments: 2) { c, n, v in SQLFunctions.decimal(SQLFunctionCall(c, n, v), .mul) },
        Entry(name: "ods_dec_div", arguments: 2) { c, n, v in SQLFunctions.decimal(SQLFunctionCall(c, n, v), .div) },
        Entry(name: "ods_dec_mod", arguments: 2) { c, n, v in SQLFunctions.decimal(SQLFunctionCall(c, n, v), .mod) },
        Entry(name: "ods_dec_neg", arguments: 1) { c, n, v in SQLFunctions.decimal(SQLFunctionCall(c, n, v), .neg) },
        Entry(name: "ods_dec_round", arguments: 1) { c, n, v in SQLFunctions.decimal(SQLFunctionCall(c, n, v), .round) },
        Entry(name: "ods_dec_floor", arguments: 1) { c, n, v in SQLFunctions.decimal(SQLFunctionCall(c, n, v), .floor) },
        Entry(name: "ods_dec_ceiling", arguments: 1) { c, n, v in SQLFunctions.decimal(SQLFunctionCall(c, n, v), .ceiling) },

        Entry(name: "ods_dbl_add", arguments: 2) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .add) },
        Entry(name: "ods_dbl_sub", arguments: 2) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .sub) },
        Entry(name: "ods_dbl_mul", arguments: 2) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .mul) },
        Entry(name: "ods_dbl_div", arguments: 2) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .div) },
        Entry(name: "ods_dbl_mod", arguments: 2) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .mod) },
        Entry(name: "ods_dbl_neg", arguments: 1) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .neg) },
        Entry(name: "ods_dbl_round", arguments: 1) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .round) },
        Entry(name: "ods_dbl_floor", arguments: 1) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .floor) },
        Entry(name: "ods_dbl_ceiling", arguments: 1) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .ceiling) },
        Entry(name: "ods_double", arguments: 1) { c, n, v in SQLFunctions.double(SQLFunctionCall(c, n, v), .identity) },

        Entry(name: "ods_isnum", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            let t = call.type(0)
            call.result(t == SQLITE_INTEGER || t == SQLITE_FLOAT)
        },
        Entry(name: "ods_enum_value", arguments: 2) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            if call.type(0) == SQLITE_INTEGER { return call.result(call.int64(0)) }
            let members = call.string(1)
            guard let value = SQLFunctions.enumValue(call.string(0), members: members) else { return call.resultNull() }
            call.result(value)
        },
        Entry(name: "ods_unbase64", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            guard let bytes = call.withText(0, { Base64.decode($0) }) else { return call.resultNull() }
            call.result(blob: bytes)
        },
    ]

    enum Operation { case add, sub, mul, div, mod, neg, round, floor, ceiling, identity }

    // MARK: - Integers

    static func integer(_ call: SQLFunctionCall, _ op: Operation) {
        if call.anyNull { return call.resultNull() }
        guard let a = integerArgument(call, 0) else { return call.fail("not an integer") }
        if op == .neg {
            let (r, o) = Int64(0).subtractingReportingOverflow(a)
            return o ? call.fail("integer overflow in negation") : call.result(r)
        }
        guard let b = integerArgument(call, 1) else { return call.fail("not an integer") }
        let r: (partialValue: Int64, overflow: Bool)
        switch op {
        case .add: r = a.addingReportingOverflow(b)
        case .sub: r = a.subtractingReportingOverflow(b)
        case .mul: r = a.multipliedReportingOverflow(by: b)
        case .div:
            guard b != 0 else { return call.fail("division by zero") }
            r = a.dividedReportingOverflow(by: b)
        case .mod:
            guard b != 0 else { return call.fail("modulo by zero") }
            r = b == -1 ? (0, false) : a.remainderReportingOverflow(dividingBy: b)
        default: return call.resultNull()
        }
        if r.overflow { return call.fail("integer overflow") }
        call.result(r.partialValue)
    }

    // MARK: - Decimals

    /// An argument as an exact decimal: INTEGER, decimal text, or a REAL (by its shortest
    /// round-trip digits).
    static func decimalArgument(_ call: SQLFunctionCall, _ i: Int) -> ExactDecimal? {
        switch call.type(i) {
        case SQLITE_INTEGER: return ExactDecimal(call.int64(i))
        case SQLITE_FLOAT:
            let d = call.double(i)
            guard d.isFinite else { return nil }
            return ExactDecimal("\(d)")
        case SQLITE_TEXT: return call.withText(i) { ExactDecimal(text: $0) }
        default: return nil
        }
    }

    static func decimal(_ call: SQLFunctionCall, _ op: Operation) {
        if call.anyNull { return call.resultNull() }
        guard let a = decimalArgument(call, 0) else { return call.fail("not a decimal number") }
        do throws(ExactDecimal.Failure) {
            let r: ExactDecimal
            switch op {
            case .neg: r = a.negated
            case .round: r = try a.rounded(.halfAwayFromZero)
            case .floor: r = try a.rounded(.floor)
            case .ceiling: r = try a.rounded(.ceiling)
            case .identity: r = a
            default:
                guard let b = decimalArgument(call, 1) else { return call.fail("not a decimal number") }
                switch op {
                case .add: r = try a + b
                case .sub: r = try a - b
                case .mul: r = try a * b
                case .div: r = try ExactDecimal.divide(a, b)
                default: r = try ExactDecimal.remainder(a, b)
                }
            }
            call.result(try r.text())
        } catch {
            call.fail(error.message)
        }
    }

    // MARK: - Doubles

    /// An argument as a double: numbers, decimal text, and the texts `NaN`, `INF`, `-INF`
    /// (`Infinity`, `-Infinity`).
    static func doubleArgument(_ call: SQLFunctionCall, _ i: Int) -> Double? {
        switch call.type(i) {
        case SQLITE_INTEGER: return Double(call.int64(i))
        case SQLITE_FLOAT: return call.double(i)
        case SQLITE_TEXT:
            return call.withText(i) { b -> Double? in
                switch String(decoding: b, as: UTF8.self) {
                case "NaN": return .nan
                case "INF", "Infinity", "+INF": return .infinity
                case "-INF", "-Infinity": return -.infinity
                default: return ExactDecimal(text: b)?.double
                }
            }
        default: return nil
        }
    }

    static func double(_ call: SQLFunctionCall, _ op: Operation) {
        if call.anyNull { return call.resultNull() }
        guard let a = doubleArgument(call, 0) else { return call.fail("not a number") }
        switch op {
        case .identity: return call.result(a)
        case .neg: return call.result(-a)
        case .round:
            // Half away from zero (Swift's default rule for `rounded()`).
            return call.result(a.rounded(.toNearestOrAwayFromZero))
        case .floor: return call.result(a.rounded(.down))
        case .ceiling: return call.result(a.rounded(.up))
        default: break
        }
        guard let b = doubleArgument(call, 1) else { return call.fail("not a number") }
        switch op {
        case .add: call.result(a + b)
        case .sub: call.result(a - b)
        case .mul: call.result(a * b)
        case .div: call.result(a / b)
        default: call.result(a.truncatingRemainder(dividingBy: b))
        }
    }

    // MARK: - Enumerations and binary

    /// The value of `Name`, `Name1,Name2` (flags: the values or-ed) or an integer, given the
    /// members as `Name:value,...`; nil for an unknown name.
    static func enumValue(_ text: String, members: String) -> Int64? {
        var table: [Substring: Int64] = [:]
        for entry in members.split(separator: ",") {
            guard let colon = entry.lastIndex(of: ":"), let v = Int64(entry[entry.index(after: colon)...]) else { continue }
            table[entry[..<colon]] = v
        }
        var value: Int64 = 0
        var any = false
        for part in text.split(separator: ",", omittingEmptySubsequences: true) {
            var key = part
            while key.first == " " { key = key.dropFirst() }
            while key.last == " " { key = key.dropLast() }
            if let v = table[key] {
                value |= v
            } else if let v = Int64(key) {
                value |= v
            } else {
                return nil
            }
            any = true
        }
        return any ? value : nil
    }
}
