/// A response body converted to the canonical JSON shape (docs/json-shape.md): OData V4 JSON,
/// minimal metadata, `IEEE754Compatible=true`, whatever the service's version or format.
public struct DecodedPayload: Sendable, Equatable {
    /// The canonical JSON text as UTF-8 bytes (compact, valid UTF-8). The decoders produce
    /// bytes; consumers that can work on bytes (the offline download writing a page) read
    /// these and no `String` is made.
    public var utf8: [UInt8]
    /// The canonical JSON text as a `String`, made from `utf8` at each read (a copy, and the
    /// standard library validates the UTF-8 again: O(n)): read it once.
    public var json: String {
        get { String(decoding: utf8, as: UTF8.self) }
        set { utf8 = Array(newValue.utf8) }
    }
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
    /// Where the entities are in `utf8` (byte offsets), when the decoder recorded them;
    /// nil when it did not (consumers then find them in the text themselves). A single-entity
    /// result is one range covering the whole text.
    public var entityRanges: [Range<Int>]?
    /// Where the members of the objects are in `utf8`, when the caller asked the decoder to
    /// record them and it could (`PayloadDecoder.decode(..., spans: true)`, JSON bodies); nil otherwise.
    public var spans: PayloadSpans?

    public init(json: String, count: Int64? = nil, nextLink: String? = nil, deltaLink: String? = nil,
                etag: String? = nil, entityCount: Int = 0, entityRanges: [Range<Int>]? = nil) {
        self.init(utf8: Array(json.utf8), count: count, nextLink: nextLink, deltaLink: deltaLink, etag: etag,
                  entityCount: entityCount, entityRanges: entityRanges)
    }

    public init(utf8: [UInt8], count: Int64? = nil, nextLink: String? = nil, deltaLink: String? = nil,
                etag: String? = nil, entityCount: Int = 0, entityRanges: [Range<Int>]? = nil) {
        self.utf8 = utf8
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

    /// True when the answer must be entities: the target says so, or it is automatic and an
    /// entity type is declared (an entity set's or a navigation's path). Such an answer is a
    /// JSON object (one entity, or a collection under "value"); a bare array or primitive,
    /// or an empty 200 to a read, is no OData answer.
    public func expectsEntities(declaredEntityType: Bool) -> Bool {
        switch self {
        case .entities: return true
        case .automatic: return declaredEntityType
        case .value, .references: return false
        }
    }
}
