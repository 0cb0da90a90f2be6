/// A JSON value, kept lossless.
///
/// Numbers keep their literal text (`.number("12345678901234567890")`, `.number("1.50")`), so
/// Edm.Int64 and Edm.Decimal values never pass through a `Double`. Objects keep their member
/// order (see `JSONObject`). A value type: `Sendable`, safe to share between threads.
///
/// Parse with `JSONValue.parse(_:)`, write with `serialized()` / `write(into:)`.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's literal text as it appeared in the document (RFC 8259 number grammar).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    /// Member lookup when `self` is an object; nil otherwise or when the key is absent.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// Element lookup when `self` is an array and `index` is in range; nil otherwise.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    public var isNull: Bool { if case .null = self { return true } else { return false } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The literal text of a number.
    public var numberText: String? { if case .number(let n) = self { return n } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }

    /// The value as a 64-bit integer: an integral number literal, or a string holding one
    /// (the IEEE754Compatible form). Nil when out of range or not integral.
    public var int64Value: Int64? {
        switch self {
        case .number(let n), .string(let n): return Int64(n)
        default: return nil
        }
    }

    /// The value as a Double (lossy by nature): a number, or a string holding a number,
    /// `NaN`, `INF` or `-INF`.
    public var doubleValue: Double? {
        switch self {
        case .number(let n): return Double(n)
        case .string(let s):
            switch s {
            case "NaN": return .nan
            case "INF": return .infinity
            case "-INF": return -.infinity
            default: return Double(s)
            }
        default: return nil
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .number(String(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var o = JSONObject()
        for (k, v) in elements { o[k] = v }
        self = .object(o)
    }
}
