import ODataProtocol
/// A Swift type that stands for one Edm primitive value: how it reads from and writes to a
/// scalar of the canonical JSON shape (docs/json-shape.md), and how it is spelled as a URL
/// literal in keys and `$filter`.
///
/// `ODataDecoder` and `ODataEncoder` use this in place of a type's `Codable` conformance, so a
/// value keeps its exact form (`ODataDecimal`, `Int64` as strings; dates as ISO 8601 text).
/// The library's value types and the standard library's numbers, `String`, `Bool`,
/// `Duration` and `[UInt8]` (Edm.Binary, base64) conform; `ODataStoreFoundation` adds
/// `Decimal`, `Date`, `UUID` and `Data`. Conform your own types (a wrapper around a key, an
/// enum member) the same way.
public protocol ODataPrimitive: Sendable {
    /// Reads the value from a scalar of the canonical JSON: a `.string`, `.number` or `.bool`
    /// (never null, an object or an array). Nil when the scalar is not a value of this type.
    init?(canonicalJSON value: JSONValue)
    /// The value as the canonical JSON writes it.
    var canonicalJSON: JSONValue { get }
    /// The value as a literal in a URL (typed keys, `$filter` text built with `QueryText`).
    var literal: Literal { get }
}

extension String: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard case .string(let s) = value else { return nil }
        self = s
    }
    public var canonicalJSON: JSONValue { .string(self) }
    public var literal: Literal { .string(self) }
}

extension Bool: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        switch value {
        case .bool(let b): self = b
        case .string("true"): self = true
        case .string("false"): self = false
        default: return nil
        }
    }
    public var canonicalJSON: JSONValue { .bool(self) }
    public var literal: Literal { .boolean(self) }
}

/// Integers from a JSON number or a string of digits (Int64 is a string in the shape).
private func integerText(_ value: JSONValue) -> String? {
    switch value {
    case .number(let t), .string(let t): return t
    default: return nil
    }
}

extension Int: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard let t = integerText(value), let v = Int(t) else { return nil }
        self = v
    }
    public var canonicalJSON: JSONValue { .number(String(self)) }
    public var literal: Literal { Int32(exactly: self) != nil ? .integer(String(self)) : .int64(String(self)) }
}

extension Int64: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard let t = integerText(value), let v = Int64(t) else { return nil }
        self = v
    }
    /// Edm.Int64 is a string in the canonical shape (IEEE754Compatible): exact beyond 2^53.
    public var canonicalJSON: JSONValue { .string(String(self)) }
    public var literal: Literal { .int64(String(self)) }
}

extension Int32: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard let t = integerText(value), let v = Int32(t) else { return nil }
        self = v
    }
    public var canonicalJSON: JSONValue { .number(String(self)) }
    public var literal: Literal { .integer(String(self)) }
}

extension Int16: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard let t = integerText(value), let v = Int16(t) else { return nil }
        self = v
    }
    public var canonicalJSON: JSONValue { .number(String(self)) }
    public var literal: Literal { .integer(String(self)) }
}

extension Int8: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard let t = integerText(value), let v = Int8(t) else { return nil }
        self = v
    }
    public var canonicalJSON: JSONValue { .number(String(self)) }
    public var literal: Literal { .integer(String(self)) }
}

extension UInt8: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard let t = integerText(value), let v = UInt8(t) else { return nil }
        self = v
    }
    public var canonicalJSON: JSONValue { .number(String(self)) }
    public var literal: Literal { .integer(String(self)) }
}

extension Double: ODataPrimitive {
    /// A number, a string holding one (a Decimal or Int64), or `NaN`, `INF`, `-INF`.
    public init?(canonicalJSON value: JSONValue) {
        guard let v = value.doubleValue else { return nil }
        self = v
    }
    public var canonicalJSON: JSONValue {
        if isNaN { return .string("NaN") }
        if isInfinite { return .string(self < 0 ? "-INF" : "INF") }
        return .number(description)
    }
    public var literal: Literal {
        if isNaN { return .double("NaN") }
        if isInfinite { return .double(self < 0 ? "-INF" : "INF") }
        return .double(description)
    }
}

extension Float: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        switch value {
        case .number(let t), .string(let t):
            switch t {
            case "NaN": self = .nan
            case "INF": self = .infinity
            case "-INF": self = -.infinity
            default:
                guard let v = Float(t) else { return nil }
                self = v
            }
        default: return nil
        }
    }
    public var canonicalJSON: JSONValue {
        if isNaN { return .string("NaN") }
        if isInfinite { return .string(self < 0 ? "-INF" : "INF") }
        return .number(description)
    }
    public var literal: Literal {
        if isNaN { return .single("NaN") }
        if isInfinite { return .single(self < 0 ? "-INF" : "INF") }
        return .single(description)
    }
}

extension ODataDecimal: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        switch value {
        case .string(let t), .number(let t):
            guard let d = ODataDecimal(t) else { return nil }
            self = d
        default: return nil
        }
    }
    public var canonicalJSON: JSONValue { .string(description) }
    public var literal: Literal { .decimal(description) }
}

extension ODataDate: ODataPrimitive {
    /// `2020-01-02`, or the date part of a date-time (V2 services send dates as DateTime).
    public init?(canonicalJSON value: JSONValue) {
        guard case .string(let s) = value, let d = ODataDate(lenient: s) else { return nil }
        self = d
    }
    public var canonicalJSON: JSONValue { .string(description) }
    public var literal: Literal { .date(description) }
}

extension ODataTimeOfDay: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard case .string(let s) = value, let t = ODataTimeOfDay(s) else { return nil }
        self = t
    }
    public var canonicalJSON: JSONValue { .string(description) }
    public var literal: Literal { .timeOfDay(description) }
}

extension ODataDateTimeOffset: ODataPrimitive {
    /// A date-time (without offset: UTC), or a date read as midnight UTC.
    public init?(canonicalJSON value: JSONValue) {
        guard case .string(let s) = value, let t = ODataDateTimeOffset(lenient: s) else { return nil }
        self = t
    }
    public var canonicalJSON: JSONValue { .string(description) }
    public var literal: Literal { .dateTimeOffset(description) }
}

extension ODataGuid: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard case .string(let s) = value, let g = ODataGuid(s) else { return nil }
        self = g
    }
    public var canonicalJSON: JSONValue { .string(description) }
    public var literal: Literal { .guid(description) }
}

extension Duration: ODataPrimitive {
    /// An Edm.Duration (`P1DT2H`, `-PT0.5S`); also a V2 Edm.Time as the shape writes it
    /// (`13:20:00`, the time since midnight).
    public init?(canonicalJSON value: JSONValue) {
        guard case .string(let s) = value else { return nil }
        if let d = TemporalParsing.duration(s) {
            self = d
        } else if let t = ODataTimeOfDay(s) {
            self = t.sinceMidnight
        } else {
            return nil
        }
    }
    public var canonicalJSON: JSONValue { .string(TemporalParsing.durationText(self)) }
    public var literal: Literal { .duration(TemporalParsing.durationText(self)) }
}

extension Array: ODataPrimitive where Element == UInt8 {
    /// Edm.Binary: standard base64 (the canonical shape); base64url is accepted too.
    public init?(canonicalJSON value: JSONValue) {
        guard case .string(let s) = value, let bytes = BinaryText.decode(s) else { return nil }
        self = bytes
    }
    public var canonicalJSON: JSONValue { .string(Base64.encode(self)) }
    public var literal: Literal { .binary(self) }
}

/// Base64 reading for Edm.Binary (standard or URL-safe alphabet, padding optional).
enum BinaryText {
    static func decode(_ s: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        var padding = false
        for c in s.utf8 {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - 97 + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - 48 + 52)
            case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
            case UInt8(ascii: "="):
                padding = true
                continue
            default: return nil
            }
            if padding { return nil }
            acc = (acc << 6) | v
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((acc >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }
}

// MARK: - Codable

/// `Codable` for the library's value types: their canonical text in a single value, as the
/// canonical JSON writes them (so `JSONEncoder`/`JSONDecoder` users get the same form).
/// `ODataDecoder`/`ODataEncoder` read and write them through `ODataPrimitive` instead.
public protocol ODataTextCodable: Codable, LosslessStringConvertible {}

extension ODataTextCodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let value = Self(text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "\"\(text)\" is not a value of \(Self.self)")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

extension ODataDate: ODataTextCodable {}
extension ODataTimeOfDay: ODataTextCodable {}
extension ODataDateTimeOffset: ODataTextCodable {}
extension ODataGuid: ODataTextCodable {}
