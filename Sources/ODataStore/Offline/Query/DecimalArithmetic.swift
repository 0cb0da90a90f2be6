/// Exact decimal arithmetic for Edm.Decimal in the store's SQL functions (`ods_dec_*`):
/// a sign, an unbounded integer coefficient and a scale (value = ±coefficient × 10^-scale).
///
/// Addition, subtraction, multiplication, `mod`, `round`, `floor` and `ceiling` are exact.
/// Division is exact when the quotient has at most `divisionPrecision` significant digits,
/// otherwise rounded half-to-even to that many digits: what Python's `decimal` module does
/// in its default context (28 digits), so results agree with odatapy's. OData leaves the
/// precision of a non-terminating quotient to the service (V4.01 Part 2, 5.1.1.2.5 "the
/// result is computed with maximal decimal scale").
///
/// Sizes are bounded (`maxDigits`): an operation whose exact result would need more digits
/// fails instead of allocating without limit (`1e99999 add 1`). Pure; never traps.
struct ExactDecimal: Equatable, Sendable {
    /// Decimal digits of the coefficient, least significant first, without leading zeros
    /// (empty for zero).
    var digits: [UInt8]
    var scale: Int
    var negative: Bool

    static let maxDigits = 4096
    static let divisionPrecision = 28
    /// The largest exponent accepted when parsing (`1e100000`).
    static let maxExponent = 100_000

    enum Failure: Error, Equatable {
        case invalid
        case tooLarge
        case divisionByZero

        var message: String {
            switch self {
            case .invalid: "not a decimal number"
            case .tooLarge: "decimal result out of range"
            case .divisionByZero: "division by zero"
            }
        }
    }

    var isZero: Bool { digits.isEmpty }

    init(digits: [UInt8], scale: Int, negative: Bool) {
        var d = digits
        while let last = d.last, last == 0 { d.removeLast() }
        self.digits = d
        self.scale = scale
        self.negative = d.isEmpty ? false : negative
    }

    init(_ value: Int64) {
        var m = value.magnitude
        var d: [UInt8] = []
        while m > 0 {
            d.append(UInt8(m % 10))
            m /= 10
        }
        self.init(digits: d, scale: 0, negative: value < 0)
    }

    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (digits may be absent before the point).
    init?(text b: UnsafeBufferPointer<UInt8>) {
        var i = 0
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        var mostSignificantFirst: [UInt8] = []
        var sawDigit = false
        while i < b.count, b[i] &- 48 < 10 {
            if !(mostSignificantFirst.isEmpty && b[i] == 48) { mostSignificantFirst.append(b[i] - 48) }
            sawDigit = true
            i += 1
        }
        var fractionDigits = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var any = false
            while i < b.count, b[i] &- 48 < 10 {
                if !(mostSignificantFirst.isEmpty && b[i] == 48) { mostSignificantFirst.append(b[i] - 48) }
                fractionDigits += 1
                any = true
                i += 1
            }
            guard any else { return nil }
            sawDigit = true
        }
        guard sawDigit, mostSignificantFirst.count <= Self.maxDigits, fractionDigits <= Self.maxDigits else { return nil }
        var exponent = 0
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            var expNegative = false
            if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
                expNegative = b[i] == UInt8(ascii: "-")
                i += 1
            }
            var any = false
            while i < b.count, b[i] &- 48 < 10 {
                any = true
                if exponent <= Self.maxExponent { exponent = exponent * 10 + Int(b[i] - 48) }
                i += 1
            }
            guard any, exponent <= Self.maxExponent else { return nil }
            if expNegative { exponent = -exponent }
        }
        guard i == b.count else { return nil }
        self.init(digits: mostSignificantFirst.reversed(), scale: fractionDigits - exponent, negative: negative)
    }

    init?(_ text: String) {
        var t = text
        guard let d = t.withUTF8({ ExactDecimal(text: $0) }) else { return nil }
        self = d
    }

    var negated: ExactDecimal { ExactDecimal(digits: digits, scale: scale, negative: !negative) }

    /// The same value without trailing zeros after the point (`1.500` → `1.5`).
    var reduced: ExactDecimal {
        var d = digits
        var s = scale
        while s > 0, let last = d.first, last == 0 {
            d.removeFirst()
            s -= 1
        }
        return ExactDecimal(digits: d, scale: s, negative: negative)
    }

    // MARK: - Text

    /// Plain notation, no exponent: `-12.50`, `0.001`, `1000` (a negative scale is written out
    /// with zeros). Zero is `0` (whatever its scale).
    func text() throws(Failure) -> String {
        if isZero { return "0" }
        if scale <= 0 {
            guard digits.count - scale <= Self.maxDigits else { throw .tooLarge }
            var out = negative ? "-" : ""
            for d in digits.reversed() { out.unicodeScalars.append(Unicode.Scalar(48 + d)) }
            out += String(repeating: "0", count: -scale)
            return out
        }
        guard scale <= Self.maxDigits else { throw .tooLarge }
        var padded = digits
        while padded.count < scale + 1 { padded.append(0) }
        var out = negative ? "-" : ""
        for (k, d) in padded.enumerated().reversed() {
            if k == scale - 1 { out += "." }
            out.unicodeScalars.append(Unicode.Scalar(48 + d))
        }
        return out
    }

    /// The nearest Double (correctly rounded by the standard library's parser).
    var double: Double {
        guard let t = try? text() else { return negative ? -.infinity : .infinity }
        return Double(t) ?? .nan
    }

    // MARK: - Arithmetic

    static func + (a: ExactDecimal, b: ExactDecimal) throws(Failure) -> ExactDecimal {
        let s = max(a.scale, b.scale)
        let x = try a.coefficient(atScale: s)
        let y = try b.coefficient(atScale: s)
        if a.negative == b.negative {
            return try checked(ExactDecimal(digits: Magnitude.add(x, y), scale: s, negative: a.negative))
        }
        switch Magnitude.compare(x, y) {
        case 0: return ExactDecimal(digits: [], scale: s, negative: false)
        case 1: return ExactDecimal(digits: Magnitude.subtract(x, y), scale: s, negative: a.negative)
        default: return ExactDecimal(digits: Magnitude.subtract(y, x), scale: s, negative: b.negative)
        }
    }

    static func - (a: ExactDecimal, b: ExactDecimal) throws(Failure) -> ExactDecimal {
        try a + b.negated
    }

    static func * (a: ExactDecimal, b: ExactDecimal) throws(Failure) -> ExactDecimal {
        guard a.digits.count + b.digits.count <= Self.maxDigits else { throw .tooLarge }
        let (s, overflow) = a.scale.addingReportingOverflow(b.scale)
        guard !overflow, abs(s) <= 4 * Self.maxExponent else { throw .tooLarge }
        return ExactDecimal(digits: Magnitude.multiply(a.digits, b.digits), scale: s, negative: a.negative != b.negative)
    }

    /// `a / b` with `precision` significant digits, rounded half to even.
    static func divide(_ a: ExactDecimal, _ b: ExactDecimal, precision: Int = divisionPrecision) throws(Failure) -> ExactDecimal {
        guard !b.isZero else { throw .divisionByZero }
        if a.isZero { return ExactDecimal(digits: [], scale: 0, negative: false) }
        // q = A * 10^k / B with at least precision + 2 digits; value = q * 10^-(sa - sb + k).
        let k = max(0, precision + 2 - (a.digits.count - b.digits.count))
        guard a.digits.count + k <= 2 * Self.maxDigits else { throw .tooLarge }
        let dividend = [UInt8](repeating: 0, count: k) + a.digits
        let (q, r) = Magnitude.divide(dividend, b.digits)
        var scale = a.scale - b.scale + k
        var kept = q
        var exact = r.isEmpty
        if kept.count > precision {
            let drop = kept.count - precision
            let dropped = Array(kept[0..<drop])
            kept.removeFirst(drop)
            // Compare the dropped part with one half of a unit in the last kept place.
            let first = dropped[drop - 1]
            let restZero = dropped[0..<(drop - 1)].allSatisfy { $0 == 0 } && r.isEmpty
            exact = exact && first == 0 && restZero
            let roundUp: Bool
            if first > 5 || (first == 5 && !restZero) {
                roundUp = true
            } else if first == 5 {
                roundUp = (kept.first ?? 0) % 2 == 1
            } else {
                roundUp = false
            }
            if roundUp { kept = Magnitude.add(kept, [1]) }
            scale -= drop
            // 9.99... rounded up to 10.00...: one digit too many, and it is a zero.
            if kept.count > precision {
                kept.removeFirst()
                scale -= 1
            }
        }
        if exact {
            // An exact quotient keeps no more places than it needs, down to the operands'
            // scale difference (Python's "ideal exponent": 1 / 4 is 0.25, 1.00 / 1 is 1.00).
            let ideal = a.scale - b.scale
            while scale > ideal, let last = kept.first, last == 0 {
                kept.removeFirst()
                scale -= 1
            }
        }
        guard abs(scale) <= 4 * Self.maxExponent else { throw .tooLarge }
        return ExactDecimal(digits: kept, scale: scale, negative: a.negative != b.negative)
    }

    /// The remainder of truncated division: its sign is the sign of `a` (V4.01 Part 2,
    /// 5.1.1.2.6 "The sign of the result is the same as the sign of the left operand").
    static func remainder(_ a: ExactDecimal, _ b: ExactDecimal) throws(Failure) -> ExactDecimal {
        guard !b.isZero else { throw .divisionByZero }
        let s = max(a.scale, b.scale)
        let x = try a.coefficient(atScale: s)
        let y = try b.coefficient(atScale: s)
        let (_, r) = Magnitude.divide(x, y)
        return ExactDecimal(digits: r, scale: s, negative: a.negative)
    }

    enum Rounding { case halfAwayFromZero, halfEven, floor, ceiling, truncate }

    /// The value rounded to `places` digits after the point (0: an integer).
    func rounded(_ mode: Rounding, places: Int = 0) throws(Failure) -> ExactDecimal {
        guard scale > places else { return self }
        let drop = scale - places
        if drop > digits.count {
            // |value| < 0.5 units of the last place: only the direction matters.
            let up: Bool
            switch mode {
            case .floor: up = negative && !isZero
            case .ceiling: up = !negative && !isZero
            default: up = false
            }
            return ExactDecimal(digits: up ? [1] : [], scale: places, negative: negative)
        }
        let dropped = Array(digits[0..<drop])
        var kept = Array(digits[drop...])
        let nonZero = dropped.contains { $0 != 0 }
        let first = dropped[drop - 1]
        let restZero = dropped[0..<(drop - 1)].allSatisfy { $0 == 0 }
        let up: Bool
        switch mode {
        case .halfAwayFromZero: up = first >= 5
        case .halfEven: up = first > 5 || (first == 5 && (!restZero || (kept.first ?? 0) % 2 == 1))
        case .floor: up = negative && nonZero
        case .ceiling: up = !negative && nonZero
        case .truncate: up = false
        }
        if up { kept = Magnitude.add(kept, [1]) }
        return ExactDecimal(digits: kept, scale: places, negative: negative)
    }

    /// The coefficient written at a larger scale (zeros appended).
    private func coefficient(atScale s: Int) throws(Failure) -> [UInt8] {
        let shift = s - scale
        guard shift >= 0 else { return digits }
        guard !isZero else { return [] }
        guard shift + digits.count <= Self.maxDigits else { throw .tooLarge }
        return [UInt8](repeating: 0, count: shift) + digits
    }

    private static func checked(_ d: ExactDecimal) throws(Failure) -> ExactDecimal {
        guard d.digits.count <= maxDigits else { throw .tooLarge }
        return d
    }
}

/// Unsigned integers as decimal digit arrays, least significant digit first, no leading zeros.
enum Magnitude {
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        var i = a.count - 1
        while i >= 0 {
            if a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
            i -= 1
        }
        return 0
    }

    static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(max(a.count, b.count) + 1)
        var carry: UInt8 = 0
        for i in 0..<max(a.count, b.count) {
            let s = (i < a.count ? a[i] : 0) + (i < b.count ? b[i] : 0) + carry
            out.append(s % 10)
            carry = s / 10
        }
        if carry > 0 { out.append(carry) }
        return trimmed(out)
    }

    /// `a - b` for `a >= b`.
    static func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(a.count)
        var borrow: Int = 0
        for i in 0..<a.count {
            var d = Int(a[i]) - (i < b.count ? Int(b[i]) : 0) - borrow
            if d < 0 { d += 10; borrow = 1 } else { borrow = 0 }
            out.append(UInt8(d))
        }
        return trimmed(out)
    }

    static func multiply(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        guard !a.isEmpty, !b.isEmpty else { return [] }
        var acc = [Int](repeating: 0, count: a.count + b.count)
        for i in 0..<a.count where a[i] != 0 {
            for j in 0..<b.count {
                acc[i + j] += Int(a[i]) * Int(b[j])
            }
            // Keep the accumulators small.
            if i % 64 == 63 { normalize(&acc) }
        }
        normalize(&acc)
        return trimmed(acc.map { UInt8($0) })
    }

    private static func normalize(_ acc: inout [Int]) {
        var carry = 0
        for k in 0..<acc.count {
            let v = acc[k] + carry
            acc[k] = v % 10
            carry = v / 10
        }
    }

    /// Long division: quotient and remainder of `a / b` (`b` not zero).
    static func divide(_ a: [UInt8], _ b: [UInt8]) -> (quotient: [UInt8], remainder: [UInt8]) {
        guard !b.isEmpty else { return ([], a) }
        if compare(a, b) < 0 { return ([], a) }
        var quotient = [UInt8](repeating: 0, count: a.count)
        var remainder: [UInt8] = []
        var i = a.count - 1
        while i >= 0 {
            // remainder = remainder * 10 + a[i]
            remainder.insert(a[i], at: 0)
            remainder = trimmed(remainder)
            var q: UInt8 = 0
            while compare(remainder, b) >= 0 {
                remainder = subtract(remainder, b)
                q += 1
            }
            quotient[i] = q
            i -= 1
        }
        return (trimmed(quotient), remainder)
    }

    static func trimmed(_ a: [UInt8]) -> [UInt8] {
        var a = a
        while let last = a.last, last == 0 { a.removeLast() }
        return a
    }
}
