/// A response body converted to the canonical JSON shape (docs/json-shape.md): OData V4 JSON,
/// minimal metadata, `IEEE754Compatible=true`, whatever the service's version or format.
public struct DecodedPayload: Sendable, Equatable {
    /// The canonical JSON text (compact UTF-8).
    public var json: String
    /// `@odata.count` of the top-level collection (`$count=true` / V2 `$inlinecount=allpages`).
    public var count: Int64?
    /// The top-level next link, exactly as the server sent it (may be relative).
    public var nextLink: String?
    /// The top-level delta link, exactly as the server sent it.
    public var deltaLink: String?
    /// The ETag of a single-entity result.
    public var etag: String?
    /// Elements of `value` for a collection result (entities, deleted-entity entries, links or
    /// values), 1 for a single entity, 0 for a single primitive or complex value.
    public var entityCount: Int
    /// Where the entities are in `json` (UTF-8 byte offsets), when the decoder recorded them;
    /// nil when it did not (consumers then find them in `json` themselves). A single-entity
    /// result is one range covering the whole text.
    public var entityRanges: [Range<Int>]?

    public init(json: String, count: Int64? = nil, nextLink: String? = nil, deltaLink: String? = nil,
                etag: String? = nil, entityCount: Int = 0, entityRanges: [Range<Int>]? = nil) {
        self.json = json
        self.count = count
        self.nextLink = nextLink
        self.deltaLink = deltaLink
        self.etag = etag
        self.entityCount = entityCount
        self.entityRanges = entityRanges
    }
}

/// What the request addressed, when the caller knows it; `.automatic` infers it from the body
/// (rules in docs/json-shape.md).
public enum PayloadTarget: Sendable, Equatable {
    case automatic
    /// An entity set, a single entity, a navigation or an operation returning entities.
    case entities
    /// A property or an operation result that is a primitive or complex value (or a collection of
    /// them), typed by `type` when given. Written as `{"value": ...}`.
    case value(TypeReference?)
    /// Entity references (`$ref` in V4, `$links` in V2): `{"@odata.id": ...}` or `{"value":[...]}`.
    case references
}
