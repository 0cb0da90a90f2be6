/// Whether a primitive value in the canonical JSON shape (docs/json-shape.md) is a value of its
/// Edm type and fits the facets its property declares: what a service checks before it stores
/// a value, and answers 400 for. The offline store checks local writes with it, so that what
/// the service would refuse at upload is refused when the app writes.
///
/// Lenient where services differ: a facet is checked only when the document states it (CSDL's
/// defaults, e.g. Scale 0 and temporal Precision 0, are not what most services enforce);
/// trailing zeros of a fraction do not count against Scale or Precision; a decimal with an
/// exponent is not checked against its facets; MaxLength counts Unicode scalars (never more
/// than the UTF-16 units a server may count). Pure: no I/O, any thread.
public enum PrimitiveValueCheck {
    /// The facets checked (those of the property's `TypeReference`).
    public struct Facets: Sendable, Hashable {
        public var maxLength: Int?
        public var precision: Int?
        public var scale: Int?

        public init(maxLength: Int? = nil, precision: Int? = nil, scale: Int? = nil) {
            self.maxLength = maxLength
            self.precision = precision
            self.scale = scale
        }

        /// The facets `type` states (MaxLength "max" and Scale "variable" are none).
        public init(_ type: TypeReference) {
            self.init(maxLength: type.maxLengthIsMax ? nil : type.maxLength, precision: type.precision,
                      scale: type.scaleIsVariable ? nil : type.scale)
        }
    }

    /// Nil when `value` (not null) is a value of `kind` that fits `facets`; otherwise what is
    /// wrong with it, for the message of a 400. Kinds without a check here (streams, geo
    /// values, `.other`) always fit.
    public static func problem(_ value: JSONValue, kind: EdmPrimitiveKind, facets: Facets = Facets()) -> String? {
        switch kind {
        case .byte: return integer(value, 0...255, kind)
        case .sbyte: return integer(value, -128...127, kind)
        case .int16: return integer(value, Int64(Int16.min)...Int64(Int16.max), kind)
        case .int32: return integer(value, Int64(Int32.min)...Int64(Int32.max), kind)
        case .int64:
            switch value {
            case .number(let n), .string(let n): return Int64(n) == nil ? "not an Edm.Int64" : nil
            default: return "not an Edm.Int64"
            }
        case .decimal:
            switch value {
            case .number(let n), .string(let n): return decimal(n, facets)
            default: return "not an Edm.Decimal"
            }
        case .string:
            guard case .string(let s) = value else { return "not a string" }
            if let max = facets.maxLength, s.unicodeScalars.count > max {
                return "longer than its MaxLength \(max) (\(s.unicodeScalars.count) characters)"
            }
            return nil
        case .guid:
            guard case .string(let s) = value, TemporalSyntax.isGuid(s) else { return "not an Edm.Guid (8-4-4-4-12 hex digits)" }
            return nil
        case .date:
            guard case .string(let s) = value, TemporalSyntax.isDate(s), dayExists(Array(s.utf8), 0) else {
                return "not an Edm.Date (an existing day, YYYY-MM-DD)"
            }
            return nil
        case .dateTimeOffset, .dateTime:
            // V2 DateTime is UTC with Z in the canonical shape; without an offset it is also taken.
            guard case .string(let s) = value,
                  TemporalSyntax.isDateTime(s, offset: true) || (kind == .dateTime && TemporalSyntax.isDateTime(s, offset: false)),
                  dayExists(Array(s.utf8), 0) else {
                return "not an \(kind.rawValue) (an existing day and time, YYYY-MM-DDThh:mm[:ss[.f]]\(kind == .dateTime ? "[Z]" : " with Z or ±hh:mm"))"
            }
            return fractionProblem(s, facets)
        case .timeOfDay:
            guard case .string(let s) = value, TemporalSyntax.isTimeOfDay(s) else { return "not an Edm.TimeOfDay (hh:mm[:ss[.f]])" }
            return fractionProblem(s, facets)
        case .time:
            // V2 Time: a time of day in the canonical shape, or the duration as the service sent it.
            guard case .string(let s) = value, TemporalSyntax.isTimeOfDay(s) || TemporalSyntax.isDuration(s) else {
                return "not an Edm.Time (hh:mm[:ss[.f]] or a duration such as PT13H20M)"
            }
            return nil
        case .duration:
            guard case .string(let s) = value, TemporalSyntax.isDuration(s) else { return "not an Edm.Duration (such as P1DT2H3M4.5S)" }
            return nil
        case .binary:
            guard case .string(let s) = value, let bytes = Base64.decode(s, .standardPadded) else {
                return "not an Edm.Binary (standard base64 with padding)"
            }
            if let max = facets.maxLength, bytes.count > max { return "longer than its MaxLength \(max) (\(bytes.count) bytes)" }
            return nil
        case .boolean:
            guard case .bool = value else { return "not an Edm.Boolean" }
            return nil
        case .single, .double:
            switch value {
            case .number: return nil
            case .string(let s): return ["NaN", "INF", "-INF"].contains(s) ? nil : "not an \(kind.rawValue)"
            default: return "not an \(kind.rawValue)"
            }
        case .stream, .geography, .geometry, .other:
            return nil
        }
    }

    private static func integer(_ value: JSONValue, _ range: ClosedRange<Int64>, _ kind: EdmPrimitiveKind) -> String? {
        guard case .number(let n) = value, let i = Int64(n) else { return "not an \(kind.rawValue)" }
        return range.contains(i) ? nil : "outside \(kind.rawValue)'s range \(range.lowerBound)...\(range.upperBound)"
    }

    /// `[-+]digits[.digits]` against Precision (all significant digits) and Scale (digits after
    /// the point; with a Scale, the integer part has at most Precision - Scale digits).
    private static func decimal(_ text: String, _ facets: Facets) -> String? {
        var b = Substring(text).utf8[...]
        if let f = b.first, f == UInt8(ascii: "-") || f == UInt8(ascii: "+") { b = b.dropFirst() }
        let digit: (UInt8) -> Bool = { $0 >= 0x30 && $0 <= 0x39 }
        let intPart = b.prefix(while: digit)
        var rest = b.dropFirst(intPart.count)
        var fraction = rest.prefix(0)
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            fraction = rest.prefix(while: digit)
            rest = rest.dropFirst(fraction.count)
            if fraction.isEmpty { return "not an Edm.Decimal" }
        }
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            // An exponent form (a V4 number): a value, but its digits are not checked here.
            var exp = rest.dropFirst()
            if let s = exp.first, s == UInt8(ascii: "-") || s == UInt8(ascii: "+") { exp = exp.dropFirst() }
            return !intPart.isEmpty && !exp.isEmpty && exp.allSatisfy(digit) ? nil : "not an Edm.Decimal"
        }
        guard !intPart.isEmpty, rest.isEmpty else { return "not an Edm.Decimal" }
        let intDigits = intPart.drop(while: { $0 == 0x30 }).count
        var fracDigits = fraction.count
        while fracDigits > 0, fraction[fraction.index(fraction.startIndex, offsetBy: fracDigits - 1)] == 0x30 { fracDigits -= 1 }
        if let scale = facets.scale, fracDigits > scale {
            return "a decimal with \(fracDigits) digits after the point, more than its Scale \(scale) allows"
        }
        if let precision = facets.precision {
            let allowedInt = facets.scale.map { precision - $0 } ?? precision - fracDigits
            if intDigits > max(allowedInt, 0) || intDigits + fracDigits > precision {
                return "a decimal with more digits than its Precision \(precision)\(facets.scale.map { " and Scale \($0)" } ?? "") allow"
            }
        }
        return nil
    }

    /// Fractional seconds (trailing zeros aside) against a temporal Precision.
    private static func fractionProblem(_ s: String, _ facets: Facets) -> String? {
        guard let precision = facets.precision, let dot = s.utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let digits = s.utf8[s.utf8.index(after: dot)...].prefix(while: { $0 >= 0x30 && $0 <= 0x39 })
        var n = digits.count
        while n > 0, digits[digits.index(digits.startIndex, offsetBy: n - 1)] == 0x30 { n -= 1 }
        return n > precision ? "a value with \(n) digits of fractional seconds, more than its Precision \(precision) allows" : nil
    }

    /// The `YYYY-MM-DD` at `i` names a day of the proleptic Gregorian calendar (February 29
    /// only in leap years, no 31st in 30-day months); its shape is already checked.
    private static func dayExists(_ b: [UInt8], _ i: Int) -> Bool {
        func n(_ from: Int, _ count: Int) -> Int { b[from..<(from + count)].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        let year = n(i, 4), month = n(i + 5, 2), day = n(i + 8, 2)
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }
}
