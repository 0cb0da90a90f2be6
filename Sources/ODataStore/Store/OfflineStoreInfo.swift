/// What an offline store holds, as `Store.offlineInfo()` reports it.
public struct OfflineStoreInfo: Sendable, Equatable {
    /// The store file.
    public var path: String
    /// Size of the file and its write-ahead log, in bytes.
    public var sizeInBytes: Int64
    /// When the last download of any defining request finished (ISO 8601, UTC), nil when none has.
    public var lastDownload: String?
    public var definingRequests: [DefiningRequestInfo]

    public init(path: String, sizeInBytes: Int64, lastDownload: String?, definingRequests: [DefiningRequestInfo]) {
        self.path = path
        self.sizeInBytes = sizeInBytes
        self.lastDownload = lastDownload
        self.definingRequests = definingRequests
    }
}

/// One defining request of an offline store.
public struct DefiningRequestInfo: Sendable, Equatable {
    /// As stored: relative to the service root.
    public var path: String
    /// The entity set its entities are stored in.
    public var entitySet: String
    /// Its download finished (an interrupted one resumes when the store is opened again).
    public var isComplete: Bool
    /// Top-level entities and response bytes brought down by its downloads.
    public var entities: Int64
    public var bytes: Int64
    /// The count the service announced, when it did.
    public var expectedEntities: Int64?
    /// When its last download finished (ISO 8601, UTC), nil when never.
    public var lastDownload: String?

    public init(path: String, entitySet: String, isComplete: Bool, entities: Int64, bytes: Int64,
                expectedEntities: Int64?, lastDownload: String?) {
        self.path = path
        self.entitySet = entitySet
        self.isComplete = isComplete
        self.entities = entities
        self.bytes = bytes
        self.expectedEntities = expectedEntities
        self.lastDownload = lastDownload
    }
}
