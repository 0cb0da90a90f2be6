/// Which side answered a request (`ods_source`).
public enum ResponseSource: Int32, Sendable, Hashable {
    /// The service, over HTTP.
    case online = 1
    /// The store file (no request went to the service).
    case offline = 2
}

/// What the service answered, as delivered to delegates and completions.
///
/// A value type: keep it as long as you like. `json` is the payload in the library's one JSON
/// shape (docs/json-shape.md), whatever the service's OData version.
public struct Response: Sendable {
    /// The fields, shared by copies until one of them is changed (copy on write): a response
    /// is passed through several layers and closures on its way to the callbacks, and copying
    /// ten fields with reference counts each time was a measurable part of a GET's CPU.
    /// Safety of `@unchecked Sendable`: a `Storage` shared by several values is never
    /// mutated (`mutableStorage()` copies it first), so concurrent readers see a fixed state.
    private final class Storage: @unchecked Sendable {
        var status: Int
        var headerFields: HTTPHeaderFields
        var body: [UInt8]
        var json: String
        var etag: String?
        var nextLink: String?
        var deltaLink: String?
        var count: Int64?
        var entityCount: Int
        var entityRanges: [Range<Int>]?
        var isLocal = false

        init(status: Int, headerFields: HTTPHeaderFields, body: [UInt8], json: String, etag: String?,
             nextLink: String?, deltaLink: String?, count: Int64?, entityCount: Int, entityRanges: [Range<Int>]?) {
            self.status = status
            self.headerFields = headerFields
            self.body = body
            self.json = json
            self.etag = etag
            self.nextLink = nextLink
            self.deltaLink = deltaLink
            self.count = count
            self.entityCount = entityCount
            self.entityRanges = entityRanges
        }

        func copy() -> Storage {
            let c = Storage(status: status, headerFields: headerFields, body: body, json: json, etag: etag, nextLink: nextLink,
                            deltaLink: deltaLink, count: count, entityCount: entityCount, entityRanges: entityRanges)
            c.isLocal = isLocal
            return c
        }
    }

    private var storage: Storage

    private mutating func mutableStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// HTTP status of the (last) exchange.
    public var status: Int {
        get { storage.status }
        set { mutableStorage().status = newValue }
    }
    /// Response header fields as received.
    public var headerFields: HTTPHeaderFields {
        get { storage.headerFields }
        set { mutableStorage().headerFields = newValue }
    }
    /// The raw body as received (of the last page when pages were followed).
    public var body: [UInt8] {
        get { storage.body }
        set { mutableStorage().body = newValue }
    }
    /// The payload in the canonical shape; "" when there is no body (204).
    public var json: String {
        get { storage.json }
        set { mutableStorage().json = newValue }
    }
    /// ETag header, or the single entity's ETag.
    public var etag: String? {
        get { storage.etag }
        set { mutableStorage().etag = newValue }
    }
    /// Absolute URL of the next page, nil on the last page.
    public var nextLink: String? {
        get { storage.nextLink }
        set { mutableStorage().nextLink = newValue }
    }
    /// Delta link for change tracking, when the service sent one.
    public var deltaLink: String? {
        get { storage.deltaLink }
        set { mutableStorage().deltaLink = newValue }
    }
    /// Total count ($inlinecount / $count=true), when the service sent one.
    public var count: Int64? {
        get { storage.count }
        set { mutableStorage().count = newValue }
    }
    /// Number of entities in `json`: the collection's length, 1 for an entity, else 0.
    public var entityCount: Int {
        get { storage.entityCount }
        set { mutableStorage().entityCount = newValue }
    }
    /// Where the entities are in `json` (UTF-8 byte offsets) when the decoder recorded it
    /// (`DecodedPayload.entityRanges`); nil otherwise.
    public var entityRanges: [Range<Int>]? {
        get { storage.entityRanges }
        set { mutableStorage().entityRanges = newValue }
    }

    /// True when the offline store answered from its file (no request went to the service).
    public var isLocal: Bool {
        get { storage.isLocal }
        set { mutableStorage().isLocal = newValue }
    }

    /// Which side answered (`ods_response_source`): the store file or the service. A mixed
    /// store's router sets it for each request; other stores answer from their one side.
    public var source: ResponseSource { isLocal ? .offline : .online }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                json: String = "", etag: String? = nil, nextLink: String? = nil,
                deltaLink: String? = nil, count: Int64? = nil, entityCount: Int = 0) {
        self.init(status: status, headerFields: HTTPHeaderFields(headers), body: body, json: json, etag: etag,
                  nextLink: nextLink, deltaLink: deltaLink, count: count, entityCount: entityCount)
    }

    public init(status: Int, headerFields: HTTPHeaderFields, body: [UInt8] = [],
                json: String = "", etag: String? = nil, nextLink: String? = nil,
                deltaLink: String? = nil, count: Int64? = nil, entityCount: Int = 0) {
        storage = Storage(status: status, headerFields: headerFields, body: body, json: json, etag: etag,
                          nextLink: nextLink, deltaLink: deltaLink, count: count, entityCount: entityCount,
                          entityRanges: nil)
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
