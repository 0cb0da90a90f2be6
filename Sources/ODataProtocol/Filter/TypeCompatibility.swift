/// Type rules shared by the `$filter` type checker and the key/parameter checks: numeric
/// promotion (OData V4.01 Part 2, 5.1.1.18: Double > Single > Decimal > Int64 > Int32 > Int16),
/// comparability, and which literal may stand for a value of which Edm type.
public enum TypeCompatibility {
    /// Promotion rank of a numeric kind; nil for non-numeric kinds.
    public static func numericRank(_ k: EdmPrimitiveKind) -> Int? {
        switch k {
        case .byte, .sbyte: return 0
        case .int16: return 1
        case .int32: return 2
        case .int64: return 3
        case .decimal: return 4
        case .single: return 5
        case .double: return 6
        default: return nil
        }
    }

    public static func isNumeric(_ t: ExpressionType) -> Bool {
        if case .primitive(let k) = t { return numericRank(k) != nil }
        return false
    }

    /// The common type of two numeric operands after promotion.
    public static func promoted(_ a: EdmPrimitiveKind, _ b: EdmPrimitiveKind) -> EdmPrimitiveKind? {
        guard let ra = numericRank(a), let rb = numericRank(b) else { return nil }
        let k = ra >= rb ? a : b
        return numericRank(k) == 0 ? .int16 : k
    }

    /// Temporal kinds that compare with each other: V2 DateTime and DateTimeOffset (and V4
    /// Date) as points in time; Edm.Time (V2), TimeOfDay and Duration within their own kind.
    static func temporalFamily(_ k: EdmPrimitiveKind) -> Int? {
        switch k {
        case .dateTime, .dateTimeOffset, .date: return 1
        case .timeOfDay: return 2
        case .time, .duration: return 3
        default: return nil
        }
    }

    /// Whether `eq`/`ne` (and, unless `ordered` rules them out, `lt`...) may compare values of
    /// these types.
    public static func comparable(_ a: ExpressionType, _ b: ExpressionType, ordered: Bool) -> Bool {
        switch (a, b) {
        case (.null, _), (_, .null): return true
        case (.primitive(let x), .primitive(let y)):
            if x == .other || y == .other { return true }
            if numericRank(x) != nil && numericRank(y) != nil { return true }
            if let fx = temporalFamily(x), let fy = temporalFamily(y) { return fx == fy }
            if x == .geography || x == .geometry || x == .stream { return false }
            return x == y
        case (.enumeration(let x), .enumeration(let y)): return x == y
        case (.enumeration, .primitive(.string)), (.primitive(.string), .enumeration): return true
        case (.structured(let x), .structured(let y)): return !ordered && x == y
        // 4.01: collections compare for equality element by element (`Sizes eq [1,2]`).
        case (.collection(let x), .collection(let y)): return !ordered && comparable(x, y, ordered: false)
        default: return false
        }
    }

    /// Whether a literal can be the value of a key property or parameter of primitive kind `k`.
    public static func literal(_ l: Literal, fits k: EdmPrimitiveKind) -> Bool {
        switch l {
        case .null: return true
        case .boolean: return k == .boolean
        case .string: return k == .string || k == .other
        case .integer(let t):
            switch k {
            case .byte: return UInt8(t) != nil
            case .sbyte: return Int8(t) != nil
            case .int16: return Int16(t) != nil
            case .int32: return Int32(t) != nil
            case .int64: return Int64(t) != nil
            case .decimal, .single, .double, .other: return true
            default: return false
            }
        case .int64: return k == .int64 || k == .decimal || k == .single || k == .double
        case .fractional, .decimal, .double, .single: return k == .decimal || k == .single || k == .double
        case .guid: return k == .guid
        case .dateTime: return k == .dateTime || k == .dateTimeOffset
        case .dateTimeOffset: return k == .dateTimeOffset || k == .dateTime
        case .time: return k == .time || k == .timeOfDay || k == .duration
        case .date: return k == .date
        case .timeOfDay: return k == .timeOfDay || k == .time
        case .duration: return k == .duration || k == .time
        case .binary: return k == .binary
        case .enumMember: return false
        case .geography: return k == .geography
        case .geometry: return k == .geometry
        }
    }
}
