/// Life cycle of a store (`ods_store_state`).
public enum StoreState: Int32, Sendable, Hashable {
    case opening = 1
    case open = 2
    case closing = 3
    case closed = 4
    /// Opening failed; requests fail with the open error.
    case failed = 5
}
