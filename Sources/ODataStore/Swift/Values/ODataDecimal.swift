/// An exact Edm.Decimal: a sign, decimal digits and a scale, never through a `Double`.
///
/// `ODataDecimal("998.59")`, `let price: ODataDecimal = "19.99"`, `= 19.99` (a float literal is read from
/// its shortest decimal spelling, so `19.99` is exactly 19.99), `ODataDecimal(1500)`.
/// Equality and order are numeric (`1.5 == 1.50`); `description` keeps the digits as given
/// (`"1.50"`), which is also how the value is sent. Addition, subtraction and multiplication
/// are exact. In the canonical JSON a Decimal is a string with its digits; `Codable` writes
/// that string and reads a string or a number.
///
/// Foundation's `Decimal` converts both ways in the optional `ODataStoreFoundation` module.
public struct ODataDecimal: Sendable, Hashable, Comparable, LosslessStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    var exact: ExactDecimal

    init(exact: ExactDecimal) { self.exact = exact }

    /// Reads `[+-]digits[.digits][e[+-]digits]`; nil for anything else (`NaN`, `1,5`, "").
    public init?(_ description: String) {
        guard let d = ExactDecimal(description) else { return nil }
        exact = d
    }

    public init<I: BinaryInteger>(_ value: I) {
        // Through the digits: any width, no overflow.
        exact = ExactDecimal(String(value)) ?? ExactDecimal(0)
    }

    /// The decimal with the shortest spelling that reads back as `value` (`0.1` is 0.1,
    /// not 0.1000000000000000055...); nil for NaN and infinities.
    public init?(_ value: Double) {
        guard value.isFinite, let d = ExactDecimal(value.description) else { return nil }
        exact = d
    }

    public init(integerLiteral value: Int64) { self.init(value) }

    /// `let price: ODataDecimal = "19.99"`: the exact digits. A literal that is not a decimal
    /// number is a programming error (it traps, as `Int("x")!` would).
    public init(stringLiteral value: String) {
        guard let d = ExactDecimal(value) else { preconditionFailure("\"\(value)\" is not a decimal number") }
        exact = d
    }

    public init(floatLiteral value: Double) {
        // A literal is always finite.
        exact = ExactDecimal(value.description) ?? ExactDecimal(0)
    }

    /// Plain notation with the digits as given: `-12.50`, `0.001`, `1000`.
    public var description: String { (try? exact.text()) ?? "0" }

    /// The nearest Double.
    public var doubleValue: Double { exact.double }

    /// Digits after the decimal point (`1.50`: 2).
    public var scale: Int { max(exact.scale, 0) }

    public var isZero: Bool { exact.isZero }
    public var isNegative: Bool { exact.negative }

    /// The value rounded half to even to `places` digits after the point.
    public func rounded(toPlaces places: Int) -> ODataDecimal {
        ODataDecimal(exact: (try? exact.rounded(.halfEven, places: max(places, 0))) ?? exact)
    }

    public static func == (a: ODataDecimal, b: ODataDecimal) -> Bool {
        a.exact.reduced == b.exact.reduced
    }

    public func hash(into hasher: inout Hasher) {
        let r = exact.reduced
        hasher.combine(r.digits)
        hasher.combine(r.scale)
        hasher.combine(r.negative)
    }

    public static func < (a: ODataDecimal, b: ODataDecimal) -> Bool {
        guard let d = try? a.exact - b.exact else { return false }
        return d.negative && !d.isZero
    }

    /// Exact. Traps only when a result would need more than 4096 digits.
    public static func + (a: ODataDecimal, b: ODataDecimal) -> ODataDecimal {
        ODataDecimal(exact: checked(try a.exact + b.exact))
    }

    public static func - (a: ODataDecimal, b: ODataDecimal) -> ODataDecimal {
        ODataDecimal(exact: checked(try a.exact - b.exact))
    }

    public static func * (a: ODataDecimal, b: ODataDecimal) -> ODataDecimal {
        ODataDecimal(exact: checked(try a.exact * b.exact))
    }

    public static prefix func - (a: ODataDecimal) -> ODataDecimal { ODataDecimal(exact: a.exact.negated) }

    public static func += (a: inout ODataDecimal, b: ODataDecimal) { a = a + b }
    public static func -= (a: inout ODataDecimal, b: ODataDecimal) { a = a - b }

    private static func checked(_ body: @autoclosure () throws(ExactDecimal.Failure) -> ExactDecimal) -> ExactDecimal {
        do {
            return try body()
        } catch {
            preconditionFailure("ODataDecimal: \(error.message)")
        }
    }
}

extension ODataDecimal: Codable {
    /// A string with the digits (the canonical shape), or a number (JSON from elsewhere).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let text = try? c.decode(String.self) {
            guard let d = ODataDecimal(text) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "\"\(text)\" is not a decimal number")
            }
            self = d
        } else {
            let v = try c.decode(Double.self)
            guard let d = ODataDecimal(v) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(v) is not a decimal number")
            }
            self = d
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
