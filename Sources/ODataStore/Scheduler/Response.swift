/// What the service answered, as delivered to delegates and completions.
///
/// A value type: keep it as long as you like. `json` is the payload in the library's one JSON
/// shape (docs/json-shape.md), whatever the service's OData version.
public struct Response: Sendable {
    /// HTTP status of the (last) exchange.
    public var status: Int
    /// Response header fields as received.
    public var headerFields: HTTPHeaderFields
    /// The raw body as received (of the last page when pages were followed).
    public var body: [UInt8]
    /// The payload in the canonical shape; "" when there is no body (204).
    public var json: String
    /// ETag header, or the single entity's ETag.
    public var etag: String?
    /// Absolute URL of the next page, nil on the last page.
    public var nextLink: String?
    /// Delta link for change tracking, when the service sent one.
    public var deltaLink: String?
    /// Total count ($inlinecount / $count=true), when the service sent one.
    public var count: Int64?
    /// Number of entities in `json`: the collection's length, 1 for an entity, else 0.
    public var entityCount: Int
    /// Where the entities are in `json` (UTF-8 byte offsets) when the decoder recorded it
    /// (`DecodedPayload.entityRanges`); nil otherwise.
    public var entityRanges: [Range<Int>]?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                json: String = "", etag: String? = nil, nextLink: String? = nil,
                deltaLink: String? = nil, count: Int64? = nil, entityCount: Int = 0) {
        self.init(status: status, headerFields: HTTPHeaderFields(headers), body: body, json: json, etag: etag,
                  nextLink: nextLink, deltaLink: deltaLink, count: count, entityCount: entityCount)
    }

    public init(status: Int, headerFields: HTTPHeaderFields, body: [UInt8] = [],
                json: String = "", etag: String? = nil, nextLink: String? = nil,
                deltaLink: String? = nil, count: Int64? = nil, entityCount: Int = 0) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.json = json
        self.etag = etag
        self.nextLink = nextLink
        self.deltaLink = deltaLink
        self.count = count
        self.entityCount = entityCount
    }

    /// Response header lines as received, as Strings (made on each call).
    public var headers: [(name: String, value: String)] {
        get { headerFields.pairs }
        set { headerFields = HTTPHeaderFields(newValue) }
    }

    /// First header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headerFields.value(named: name)
    }
}
