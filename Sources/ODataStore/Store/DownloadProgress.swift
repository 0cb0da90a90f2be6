/// How far a download is, reported after every page written to the store file (and once
/// when each defining request is finished). Counts include what earlier, interrupted runs
/// brought down.
public struct DownloadProgress: Sendable, Equatable {
    /// The defining request this page belonged to, as stored (relative to the service root).
    public var definingRequest: String
    /// Its position among the defining requests being downloaded (0-based), and their number.
    public var requestIndex: Int
    public var requestCount: Int
    /// Entities (top-level, expanded ones not counted) and response bytes of this defining request so far.
    public var entities: Int64
    public var bytes: Int64
    /// The total the service announced (`$count` / `$inlinecount`), when it did.
    public var expectedEntities: Int64?
    /// The same over every defining request being downloaded.
    public var totalEntities: Int64
    public var totalBytes: Int64
    /// True in the last report of a defining request.
    public var requestFinished: Bool

    public init(definingRequest: String, requestIndex: Int, requestCount: Int, entities: Int64, bytes: Int64,
                expectedEntities: Int64?, totalEntities: Int64, totalBytes: Int64, requestFinished: Bool) {
        self.definingRequest = definingRequest
        self.requestIndex = requestIndex
        self.requestCount = requestCount
        self.entities = entities
        self.bytes = bytes
        self.expectedEntities = expectedEntities
        self.totalEntities = totalEntities
        self.totalBytes = totalBytes
        self.requestFinished = requestFinished
    }
}
