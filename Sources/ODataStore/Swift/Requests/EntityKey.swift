/// The key of an entity as Swift values: `7`, `"O'NEIL"`, `["OrderID": 1002, "LineNo": 3]`,
/// `EntityKey(someGuid)`. The store writes it as a key predicate typed by `$metadata` and
/// spelled for the service's version (`Customers('O''NEIL')`, `Items(12L)` in V2), with the
/// protocol layer's `URLText.keyPath`: nothing is pasted into a URL by hand.
public struct EntityKey: Sendable, Equatable, CustomStringConvertible,
    ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral
{
    /// The key in the canonical JSON shape: one value, or an object naming each part.
    public let canonicalJSON: JSONValue

    /// A single-part key.
    public init(_ value: some ODataPrimitive) {
        canonicalJSON = value.canonicalJSON
    }

    /// A compound key (or a single part named explicitly), in any order.
    public init(_ parts: [(name: String, value: any ODataPrimitive)]) {
        var o = JSONObject()
        for (name, value) in parts { o[name] = value.canonicalJSON }
        canonicalJSON = .object(o)
    }

    /// From the canonical JSON form (what `ods_store_key_path` takes).
    public init(canonicalJSON: JSONValue) {
        self.canonicalJSON = canonicalJSON
    }

    public init(integerLiteral value: Int) { self.init(value) }
    public init(stringLiteral value: String) { self.init(value) }
    public init(dictionaryLiteral elements: (String, any ODataPrimitive)...) {
        self.init(elements.map { (name: $0.0, value: $0.1) })
    }

    public var description: String { canonicalJSON.serialized() }

    /// `Set(key)` for the entity set `entitySet`.
    func path(entitySet: String, model: ServiceModel) throws(ODataStoreError) -> String {
        do {
            return try URLText.keyPath(entitySet: entitySet, key: canonicalJSON, model: model, version: model.version)
        } catch {
            throw ODataStoreError(error.kind == .unknownSet ? .notFound : .invalidArgument, error.message)
        }
    }
}

/// Text for a query option in which interpolated values become OData literals:
/// `"Name eq \(name) and Price gt \(minimum)"` writes `name` as `'O''NEIL'` and an
/// `ODataDecimal` as `10.5` (V4) or `10.5M` (V2). The whole text is percent-encoded when the
/// URL is made, so `&`, `#`, `+` and spaces in values reach the service as written.
/// `\(raw: text)` inserts text as it is.
public struct QueryText: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    enum Piece: Sendable, Equatable {
        case text(String)
        case literal(Literal)
    }
    var pieces: [Piece]

    public init(stringLiteral value: String) { pieces = [.text(value)] }

    public init(stringInterpolation: StringInterpolation) { pieces = stringInterpolation.pieces }

    public init(_ text: String) { pieces = [.text(text)] }

    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var pieces: [Piece] = []
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) { pieces.append(.text(literal)) }
        /// The value as an OData literal.
        public mutating func appendInterpolation(_ value: some ODataPrimitive) { pieces.append(.literal(value.literal)) }
        /// `null` for nil.
        public mutating func appendInterpolation(_ value: (some ODataPrimitive)?) {
            pieces.append(.literal(value?.literal ?? .null))
        }
        /// Text inserted as it is (property names, operators).
        public mutating func appendInterpolation(raw text: String) { pieces.append(.text(text)) }
    }

    /// The text for a protocol version (literals spelled for it), not yet percent-encoded.
    public func text(for version: ODataVersion?) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let t): t
            case .literal(let l): LiteralPrinter.print(l, version: version)
            }
        }.joined()
    }

    /// The text with V4 spellings.
    public var description: String { text(for: .v4) }
}

/// Percent-encoding of built paths (the rules of the protocol layer's `PercentEncoding`).
enum URLEscaping {
    enum Context { case pathSegment, queryName, queryValue }

    static func encode(_ s: String, _ context: Context) -> String {
        var out: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for c in s.utf8 {
            let keep: Bool
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
                 UInt8(ascii: "$"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
                 UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "@"):
                keep = true
            case UInt8(ascii: "="): keep = context != .queryName
            case UInt8(ascii: "/"), UInt8(ascii: "?"): keep = context == .queryValue
            default: keep = false
            }
            if keep {
                out.append(c)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
