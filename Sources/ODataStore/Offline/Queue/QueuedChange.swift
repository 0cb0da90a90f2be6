/// One local change waiting for upload (a row of `ods_queue`).
///
/// A change names the row it changed (`tbl`, `rid`) rather than a URL and a body: the URL and
/// the body are built when it is sent, from the row as it is then, so keys the service gave
/// to entities created offline (and foreign keys pointing at them) are already in place, and
/// several local changes of one entity go out as one request with its latest values.
struct QueuedChange: Sendable, Equatable {
    enum Operation: Int64, Sendable {
        case create = 2
        /// Send the listed properties (PATCH on V4, MERGE on V2).
        case merge = 3
        /// Replace the entity (PUT).
        case replace = 4
        case delete = 7
    }

    var id: Int64
    var operation: Operation
    /// `ods_tables` id and `@rid` of the row (of a deleted row: its former row id).
    var table: Int64
    var rid: Int64
    /// As the app wrote the request, for the error archive and status output.
    var path: String
    /// The properties a merge sends (top-level names), nil for create/replace/delete.
    var properties: [String]?
    /// A deleted entity's key values as canonical JSON (`{"ID":7}`), taken when it was
    /// deleted, with any local key mapped when its create is uploaded.
    var entityKey: String?
    /// A create through a navigation (`Categories(1)/Products`): the parent row and navigation.
    var parentTable: Int64?
    var parentRID: Int64?
    var parentNavigation: String?
    /// The ETag the entity had when the app changed it: sent as If-Match.
    var etag: String?
    /// OData 4.01 Repeatability-Request-ID, the same for every attempt.
    var repeatabilityID: String
    /// When the change was first sent (Repeatability-First-Sent); nil before.
    var firstSent: String?

    static let columns = "id, mode, tbl, rid, path, properties, entity_key, parent_tbl, parent_rid, parent_nav, etag, repeatability_id, first_sent"

    init(id: Int64, operation: Operation, table: Int64, rid: Int64, path: String, properties: [String]? = nil,
         entityKey: String? = nil, parentTable: Int64? = nil, parentRID: Int64? = nil, parentNavigation: String? = nil,
         etag: String? = nil, repeatabilityID: String, firstSent: String? = nil) {
        self.id = id
        self.operation = operation
        self.table = table
        self.rid = rid
        self.path = path
        self.properties = properties
        self.entityKey = entityKey
        self.parentTable = parentTable
        self.parentRID = parentRID
        self.parentNavigation = parentNavigation
        self.etag = etag
        self.repeatabilityID = repeatabilityID
        self.firstSent = firstSent
    }

    init?(_ row: [SQLValue]) {
        func int(_ i: Int) -> Int64? { if case .integer(let v) = row[i] { return v }; return nil }
        func text(_ i: Int) -> String? { if case .text(let v) = row[i] { return v }; return nil }
        guard row.count >= 13, let id = int(0), let mode = int(1).flatMap(Operation.init(rawValue:)), let tbl = int(2),
              let rid = int(3), let path = text(4), let rep = text(11) else { return nil }
        self.init(id: id, operation: mode, table: tbl, rid: rid, path: path,
                  properties: text(5).flatMap { try? JSONValue.parse($0).arrayValue?.compactMap(\.stringValue) },
                  entityKey: text(6), parentTable: int(7), parentRID: int(8), parentNavigation: text(9), etag: text(10),
                  repeatabilityID: rep, firstSent: text(12))
    }
}
