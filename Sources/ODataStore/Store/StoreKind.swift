/// What kind of store to open (`ods_store_kind`).
public enum StoreKind: Int32, Sendable, Hashable {
    /// Every request goes to the service over HTTP.
    case online = 0
    /// A local SQLite database filled by defining requests (docs/offline.md).
    case offline = 1
    /// An offline store and the service behind one handle, a side chosen per request by the
    /// working mode and what the defining requests cover (docs/mixed.md).
    case mixed = 2
}
