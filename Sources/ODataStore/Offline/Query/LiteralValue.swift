import ODataProtocol
/// URL literals (key predicates, function parameters) as the SQL values their column stores.
enum LiteralValue {
    static func sqlValue(_ literal: Literal, for column: Column) throws(ODataStoreError) -> SQLValue {
        switch literal {
        case .null: return .null
        case .boolean(let b): return .integer(b ? 1 : 0)
        case .string(let s): return .text(s)
        case .integer(let t), .int64(let t):
            switch column.kind {
            case .integer, .boolean:
                guard let v = Int64(t) else { throw ODataStoreError(.invalidArgument, "\(t) does not fit \(column.typeName)") }
                return .integer(v)
            case .real: return .real(Double(t) ?? 0)
            default: return .text(t)
            }
        case .fractional(let t), .decimal(let t), .double(let t), .single(let t):
            if column.kind == .real { return .real(Double(t) ?? .nan) }
            return .text(t)
        case .guid(let g): return .text(g)
        case .dateTime(let t):
            // Canonical V2 DateTime text carries Z.
            return .text(t.hasSuffix("Z") ? t : t + "Z")
        case .dateTimeOffset(let t), .time(let t), .date(let t), .timeOfDay(let t), .duration(let t):
            return .text(t)
        case .binary(let bytes): return .text(Base64.encode(bytes))
        case .enumMember(_, let value): return .text(value)
        case .geography, .geometry:
            throw ODataStoreError(.unsupported, "a geo literal cannot be evaluated offline: \(LiteralPrinter.print(literal, version: .v4))")
        }
    }
}
