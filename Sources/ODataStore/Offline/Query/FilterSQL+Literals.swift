import ODataProtocol
/// Literals: bound as parameters in the form the operation needs, and the conversions
/// between representations (numeric promotion, V4.01 Part 2, 5.1.1.18: an Int64 against a
/// Decimal is compared as a decimal, a Decimal against a Double as a double).
extension FilterSQL {
    func literalOperand(_ l: Literal, _ e: FilterExpression) -> Operand {
        if l == .null { return .null(type: e.type) }
        return Operand(source: .literal(l), rep: literalRep(l), nullable: false, simple: true, type: e.type)
    }

    func literalRep(_ l: Literal) -> Rep {
        switch l {
        case .null: return .null
        case .boolean: return .boolean
        case .string: return .string
        case .integer(let t), .int64(let t): return Int64(t) != nil ? .integer : .decimal
        case .fractional(let t): return t.contains("e") || t.contains("E") ? .double : .decimal
        case .decimal: return .decimal
        case .double, .single: return .double
        case .guid: return .guid
        case .dateTime, .dateTimeOffset: return .instant
        case .date: return .date
        case .timeOfDay, .time: return .timeOfDay
        case .duration: return .duration
        case .binary: return .binary
        case .enumMember(let type, _): return .enumeration(model.resolve(type))
        case .geography, .geometry: return .opaque
        }
    }

    /// The operand as SQL in its own representation.
    mutating func render(_ o: Operand, _ p: inout SQLParameters) throws(ODataStoreError) -> String {
        try render(o, as: o.rep, &p)
    }

    /// The operand as SQL in representation `target` (promotion and conversions).
    mutating func render(_ o: Operand, as target: Rep, _ p: inout SQLParameters) throws(ODataStoreError) -> String {
        switch o.source {
        case .null:
            return "NULL"
        case .literal(let l):
            return p.bind(try literalValue(l, as: target))
        case .sql(let sql):
            return try convert(sql, from: o.rep, to: target)
        }
    }

    func convert(_ sql: String, from: Rep, to: Rep) throws(ODataStoreError) -> String {
        if from == to { return sql }
        switch (from, to) {
        case (.integer, .decimal): return "CAST(\(sql) AS TEXT)"
        case (.integer, .double), (.boolean, .integer): return sql
        case (.decimal, .double): return "CAST(\(sql) AS REAL)"
        case (.untyped, _): return fromJSON(sql, to)
        case (.date, .instant), (.enumeration, .string), (.string, .enumeration), (.null, _): return sql
        default:
            throw ODataStoreError(.unsupported, "a conversion of \(from) to \(to) cannot be evaluated offline")
        }
    }

    /// The bound value of a literal in representation `target`.
    func literalValue(_ l: Literal, as target: Rep) throws(ODataStoreError) -> SQLValue {
        switch (l, target) {
        case (.null, _): return .null
        case (.boolean(let b), _): return .integer(b ? 1 : 0)
        case (.integer(let t), .double), (.int64(let t), .double):
            if let v = Int64(t) { return .integer(v) }
            return doubleValue(t)
        case (.integer(let t), .decimal), (.int64(let t), .decimal), (.fractional(let t), .decimal), (.decimal(let t), .decimal):
            return .text(t)
        case (.integer(let t), _), (.int64(let t), _):
            if let v = Int64(t) { return .integer(v) }
            return .text(t)
        case (.fractional(let t), _) where literalRep(l) == .decimal && target != .double:
            return .text(t)
        case (.decimal(let t), _) where target != .double:
            return .text(t)
        case (.fractional(let t), _), (.decimal(let t), _), (.double(let t), _), (.single(let t), _):
            return doubleValue(t)
        case (.string(let s), .enumeration(let type)):
            return .text(try enumNames(s, type))
        case (.string(let s), _):
            return .text(s)
        case (.guid(let g), _):
            return .text(g.lowercased())
        case (.dateTime(let t), _), (.dateTimeOffset(let t), _), (.date(let t), _), (.timeOfDay(let t), _), (.duration(let t), _):
            return .text(t)
        case (.time(let t), _):
            return .text(Self.timeOfDayText(fromDuration: t))
        case (.binary(let bytes), _):
            return .text(Base64.encode(bytes))  // standard, padded: as the store keeps Edm.Binary
        case (.enumMember(let type, let value), _):
            return .text(try enumNames(value, model.resolve(type)))
        case (.geography, _), (.geometry, _):
            throw ODataStoreError(.unsupported, "a geo literal cannot be evaluated offline: \(LiteralPrinter.print(l, version: .v4))")
        }
    }

    /// A double literal's value: `NaN` as the text the store keeps for NaN, `INF`/`-INF` as
    /// infinities, other digits to the nearest double.
    func doubleValue(_ t: String) -> SQLValue {
        switch t {
        case "NaN": return .text("NaN")
        case "INF": return .real(.infinity)
        case "-INF": return .real(-.infinity)
        default:
            if let d = ExactDecimal(t) { return .real(d.double) }
            return .real(Double(t) ?? .nan)
        }
    }

    /// An enumeration value as the member names the service writes (`Red`, `Red,Blue`):
    /// numeric values become names.
    func enumNames(_ value: String, _ type: String) throws(ODataStoreError) -> String {
        guard let enumType = model.enumType(type) else { return value }
        var names: [String] = []
        for part in value.split(separator: ",") {
            var trimmed = part[...]
            while trimmed.first == " " { trimmed = trimmed.dropFirst() }
            while trimmed.last == " " { trimmed = trimmed.dropLast() }
            let name = String(trimmed)
            if enumType.members.contains(where: { $0.name == name }) {
                names.append(name)
            } else if let v = Int64(name) {
                if let m = enumType.members.first(where: { $0.value == v }) {
                    names.append(m.name)
                } else if enumType.isFlags {
                    for m in enumType.members where m.value != 0 && v & m.value == m.value { names.append(m.name) }
                } else {
                    throw ODataStoreError(.unsupported, "\(v) is not a member of \(type); the comparison cannot be evaluated offline")
                }
            } else {
                names.append(name)
            }
        }
        return names.joined(separator: ",")
    }

    /// The numeric value of an enumeration literal (member names or a number).
    func enumValue(_ value: String, _ type: String, _ e: FilterExpression) throws(ODataStoreError) -> Int64 {
        guard let enumType = model.enumType(type), let v = SQLFunctions.enumValue(value, members: Self.members(enumType)) else {
            throw unsupported("the enumeration value \(value) of \(type)", e)
        }
        return v
    }

    /// `Name:value,...`: the members of an enumeration as `ods_enum_value` reads them.
    static func members(_ t: EnumType) -> String {
        t.members.map { "\($0.name):\($0.value)" }.joined(separator: ",")
    }

    /// V2 `time'PT13H20M'` in the form V2 Time values are stored (`13:20:00`).
    static func timeOfDayText(fromDuration t: String) -> String {
        var text = t
        let d = text.withUTF8 { OrderedText.duration($0) }
        guard let d, d.seconds >= 0, d.seconds < 86_400 else { return t }
        let s = Int(d.seconds)
        return TemporalText.timeText(s / 3600, (s % 3600) / 60, s % 60, d.picoseconds)
    }
}
