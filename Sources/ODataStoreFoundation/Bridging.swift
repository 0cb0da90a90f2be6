// Foundation conveniences for the ODataStore Swift API: Foundation's value types as Edm
// values (Decimal, Date, UUID, Data), URLs and Data where the core takes Strings and bytes.
// A separate module so the core, and the C library built on it, stay off full Foundation.
import Foundation
@_exported import ODataStore

// MARK: - Edm values

extension Decimal: ODataPrimitive {
    /// From the exact digits (a string in the canonical shape) or a number.
    public init?(canonicalJSON value: JSONValue) {
        switch value {
        case .string(let t), .number(let t):
            guard let d = ODataDecimal(t), let v = Decimal(string: d.description, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
            self = v
        default: return nil
        }
    }
    public var canonicalJSON: JSONValue { ODataDecimal(self).canonicalJSON }
    public var literal: Literal { ODataDecimal(self).literal }
}

extension ODataDecimal {
    /// The same digits as a Foundation `Decimal`.
    public init(_ value: Decimal) {
        // Decimal's description is plain notation with "." whatever the locale.
        self = ODataDecimal(value.description) ?? 0
    }

    /// The value as a Foundation `Decimal` (38 significant digits at most).
    public var decimalValue: Decimal {
        Decimal(string: description, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }
}

extension Decimal {
    public init(_ value: ODataDecimal) { self = value.decimalValue }
}

extension Date: ODataPrimitive {
    /// An Edm.DateTimeOffset (or V2 DateTime) as its instant; an Edm.Date as midnight UTC.
    public init?(canonicalJSON value: JSONValue) {
        guard let v = ODataDateTimeOffset(canonicalJSON: value) else { return nil }
        self.init(v)
    }
    /// ISO 8601 in UTC; typed by `$metadata` when sent (an Edm.Date property gets the date).
    public var canonicalJSON: JSONValue { ODataDateTimeOffset(self).canonicalJSON }
    public var literal: Literal { ODataDateTimeOffset(self).literal }
}

extension Date {
    /// The instant of a date-time.
    public init(_ value: ODataDateTimeOffset) {
        self.init(timeIntervalSince1970: Double(value.secondsSince1970) + Double(value.time.picoseconds) / 1e12)
    }

    /// Midnight UTC of a date.
    public init(_ value: ODataDate) {
        self.init(timeIntervalSince1970: Double(value.daysSince1970 * 86_400))
    }
}

extension ODataDateTimeOffset {
    /// The instant of `date` (to the microsecond), shown at `offsetMinutes` (default UTC).
    public init(_ date: Date, offsetMinutes: Int = 0) {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let seconds = (micros / 1_000_000).rounded(.down)
        let fraction = Int64(micros - seconds * 1_000_000) * 1_000_000
        self.init(secondsSince1970: Int64(seconds), picoseconds: fraction, offsetMinutes: offsetMinutes)
    }
}

extension ODataDate {
    /// The date of `date` in UTC.
    public init(_ date: Date) {
        self = ODataDateTimeOffset(date).date
    }
}

extension UUID: ODataPrimitive {
    public init?(canonicalJSON value: JSONValue) {
        guard case .string(let s) = value, let u = UUID(uuidString: s) else { return nil }
        self = u
    }
    /// Lowercase, as OData services write GUIDs.
    public var canonicalJSON: JSONValue { .string(uuidString.lowercased()) }
    public var literal: Literal { .guid(uuidString.lowercased()) }
}

extension ODataGuid {
    public init(_ uuid: UUID) { self = ODataGuid(uuid.uuidString)! }
}

extension UUID {
    public init(_ guid: ODataGuid) { self = UUID(uuidString: guid.description)! }
}

extension Data: ODataPrimitive {
    /// Edm.Binary: base64 (standard or URL-safe).
    public init?(canonicalJSON value: JSONValue) {
        guard let bytes = [UInt8](canonicalJSON: value) else { return nil }
        self.init(bytes)
    }
    public var canonicalJSON: JSONValue { [UInt8](self).canonicalJSON }
    public var literal: Literal { .binary([UInt8](self)) }
}

// MARK: - URLs, Data, Duration

extension StoreOptions {
    /// Options for the service at `serviceRoot`.
    public init(serviceRoot: URL) {
        self.init(serviceRoot: serviceRoot.absoluteString)
    }

    /// The service root as a URL.
    public var serviceRootURL: URL? { URL(string: serviceRoot) }
}

extension Response {
    /// The canonical JSON (docs/json-shape.md) as UTF-8 `Data`, for `JSONDecoder` and
    /// `JSONSerialization` users (Int64 and Decimal values are strings in it).
    public var data: Data { Data(json.utf8) }

    /// The body exactly as the service sent it.
    public var bodyData: Data { Data(body) }

    /// The next page's URL.
    public var nextURL: URL? { nextLink.flatMap(URL.init(string:)) }
}

extension RequestBody {
    /// Canonical JSON as `Data`.
    public static func json(_ data: Data) -> RequestBody { .json([UInt8](data)) }
}

extension ODataDecoder {
    /// Decodes canonical JSON from `Data`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(ODataStoreError) -> T {
        try decode(T.self, from: [UInt8](data))
    }
}

extension ODataEncoder {
    /// The value as canonical JSON `Data`.
    public func encodeData<T: Encodable>(_ value: T) throws(ODataStoreError) -> Data {
        Data(try encodeText(value).utf8)
    }
}

extension ResourcePath {
    /// A URL under the service root (a next link, a URL from elsewhere).
    public init(_ url: URL) { self.init(url.absoluteString) }
}
