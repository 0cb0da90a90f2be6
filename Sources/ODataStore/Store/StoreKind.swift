/// What kind of store to open (`ods_store_kind`).
public enum StoreKind: Int32, Sendable, Hashable {
    /// Every request goes to the service over HTTP.
    case online = 0
    /// A local SQLite database filled by defining requests (not available yet).
    case offline = 1
    /// Per-request routing between offline and online (not available yet).
    case mixed = 2
}
