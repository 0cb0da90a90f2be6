/// Where a store delivers callbacks (`ods_dispatch_mode`).
public enum DispatchMode: Int32, Sendable, Hashable {
    /// On the store's own serial callback thread, one at a time.
    case thread = 0
    /// Queued; the host drains them with `Store.dispatch(timeoutMilliseconds:)` on a thread
    /// of its choosing and can wait on `Store.eventFileDescriptor`.
    case queue = 1
}
