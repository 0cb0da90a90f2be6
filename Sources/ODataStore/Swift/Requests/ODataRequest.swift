/// One request as a value: what to do, where, with which body and options. Build it, change
/// it, keep it, send it as often as you like with `store.send(_:)`.
///
/// ```swift
/// var request = ODataRequest.update(changes, in: "Products", key: 7)
/// request.etag = product.etag          // If-Match
/// request.headers["Accept-Language"] = "de"
/// request.timeout = .seconds(5)
/// let response = try await store.send(request)
/// ```
///
/// Modelled on AsyncHTTPClient's `HTTPClientRequest`: the library's callback `Request` (one
/// object per start, configured through setters) stays for the C layer.
public struct ODataRequest: Sendable {
    public var mode: RequestMode
    public var path: ResourcePath
    public var body: RequestBody?
    /// Sent as `If-Match` by updates and deletes; nil uses the body's `@odata.etag`.
    public var etag: String?
    /// `.follow` reads every page into one response; `store.pages(_:)` reads them one at a time.
    public var paging: Paging
    public var headers: RequestHeaders
    /// Time allowed for each HTTP exchange; nil uses the store's (`StoreOptions.requestTimeout`).
    public var timeout: Duration?
    /// A mixed store's side for this request (docs/mixed.md); `.automatic`: the working mode.
    public var route: RequestRoute = .automatic

    public init(_ mode: RequestMode, _ path: ResourcePath, body: RequestBody? = nil, etag: String? = nil,
                paging: Paging = .none, headers: RequestHeaders = [:], timeout: Duration? = nil) {
        self.mode = mode
        self.path = path
        self.body = body
        self.etag = etag
        self.paging = paging
        self.headers = headers
        self.timeout = timeout
    }

    public static func read(_ path: ResourcePath) -> ODataRequest { ODataRequest(.read, path) }

    /// Creates `entity` in `entitySet` (its properties typed by the model when sent).
    public static func create(_ entity: some Encodable & Sendable, in entitySet: String) -> ODataRequest {
        ODataRequest(.create, ResourcePath(entitySet: entitySet), body: .encodable(entity))
    }

    /// Changes the properties `changes` encodes (MERGE on V2, PATCH on V4; `.updatePut` replaces).
    /// Without `key`, the key is taken from the encoded properties (the model names them).
    public static func update(_ changes: some Encodable & Sendable, in entitySet: String, key: EntityKey? = nil,
                              etag: String? = nil, mode: RequestMode = .update) -> ODataRequest {
        var r = ODataRequest(mode, ResourcePath(entitySet: entitySet, key: key), body: .encodable(changes), etag: etag)
        if key == nil { r.keyFromBody = true }
        return r
    }

    public static func delete(from entitySet: String, key: EntityKey, etag: String? = nil) -> ODataRequest {
        ODataRequest(.delete, ResourcePath(entitySet: entitySet, key: key), etag: etag)
    }

    /// Calls a function or action import (`"ProductsByRating(rating=4)"`, or `"Discount"` with
    /// the action's parameters as the body). GET or POST as `$metadata` declares.
    public static func call(_ operation: ResourcePath, parameters: (any Encodable & Sendable)? = nil) -> ODataRequest {
        ODataRequest(.function, operation, body: parameters.map { .encodable($0) })
    }

    /// Set by `update(_:in:)` without a key: the key comes from the body when sent.
    var keyFromBody = false
}

/// A request body. Encodable values are encoded when the request is sent, typed by the
/// service's model; `.json` is sent as given (canonical JSON, docs/json-shape.md).
public enum RequestBody: Sendable {
    case encodable(any Encodable & Sendable)
    case entity(ODataEntity)
    /// Canonical JSON text as UTF-8 bytes.
    case json([UInt8])

    public static func json(_ text: String) -> RequestBody { .json(Array(text.utf8)) }
}

/// Header fields of a request, in order, names compared without case:
/// `["Accept-Language": "de"]`, `headers["X-Trace"] = id`.
public struct RequestHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (n, v) in elements { self[n] = v }
    }

    /// The value of a field; setting one replaces it (nil removes it).
    public subscript(name: String) -> String? {
        get { fields.first { asciiCaseInsensitiveEquals($0.name, name) }?.value }
        set {
            fields.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
            if let newValue { fields.append((name, newValue)) }
        }
    }

    public var isEmpty: Bool { fields.isEmpty }
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (a: RequestHeaders, b: RequestHeaders) -> Bool {
        a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value)
    }

    public var description: String { "[" + fields.map { "\($0.name): \($0.value)" }.joined(separator: ", ") + "]" }
}
