/// The operation a request performs (`ods_mode`).
public enum RequestMode: Int32, Sendable, Hashable {
    case read = 1
    case create = 2
    /// Partial update: MERGE on V2, PATCH on V4.
    case update = 3
    /// Full replacement with PUT.
    case updatePut = 4
    /// Partial update with MERGE (sent as PATCH to V4 services, which have no MERGE).
    case updateMerge = 5
    case updatePatch = 6
    case delete = 7
    /// A function or action import: GET or POST as the service's `$metadata` declares.
    case function = 8

    /// True for modes that change data on the service.
    public var isModifying: Bool {
        switch self {
        case .read: false
        case .function: false // decided per call from $metadata; see OnlineEngine
        default: true
        }
    }

    /// True for modes that must carry an entity body.
    public var requiresBody: Bool {
        switch self {
        case .create, .update, .updatePut, .updateMerge, .updatePatch: true
        default: false
        }
    }
}
