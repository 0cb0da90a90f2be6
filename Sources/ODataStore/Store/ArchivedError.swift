/// A local change the service refused, as the error archive keeps it (`Store.errorArchive()`,
/// the `ErrorArchive` collection of an offline store, `ods_store_error_at`).
public struct ArchivedError: Sendable, Equatable {
    /// Unique in the store; the handle to retry or revert it.
    public var id: Int64
    /// When the service refused it (ISO 8601, UTC).
    public var created: String
    /// The request that was sent: method, path (relative to the service root), body.
    public var method: String
    public var path: String
    public var body: String?
    /// The service's answer: HTTP status (0 for an "uncertain" create that was not sent again),
    /// its OData error code and message.
    public var httpStatus: Int
    public var odataCode: String?
    public var message: String
    /// The entity set of the entity the change was about.
    public var entitySet: String

    public init(id: Int64, created: String, method: String, path: String, body: String?, httpStatus: Int,
                odataCode: String?, message: String, entitySet: String) {
        self.id = id
        self.created = created
        self.method = method
        self.path = path
        self.body = body
        self.httpStatus = httpStatus
        self.odataCode = odataCode
        self.message = message
        self.entitySet = entitySet
    }

    /// The entry as an entity of the `ErrorArchive` collection (canonical JSON).
    var json: JSONValue {
        var o = JSONObject()
        o["ID"] = .string(String(id))
        o["Created"] = .string(created)
        o["RequestMethod"] = .string(method)
        o["RequestURL"] = .string(path)
        o["RequestBody"] = body.map { .string($0) } ?? .null
        o["HTTPStatusCode"] = .number(String(httpStatus))
        o["Code"] = odataCode.map { .string($0) } ?? .null
        o["Message"] = .string(message)
        o["EntitySet"] = .string(entitySet)
        return .object(o)
    }
}
