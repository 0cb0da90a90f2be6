/// Where a store delivers callbacks (`ods_dispatch_mode`).
public enum DispatchMode: Int32, Sendable, Hashable {
    /// On the store's own serial callback thread, one at a time.
    case thread = 0
    /// Queued; the host drains them with `Store.dispatch(timeoutMilliseconds:)` on a thread
    /// of its choosing and can wait on `Store.eventFileDescriptor`.
    case queue = 1
    /// As `.thread` (one at a time, in order, never two at once), but a batch of callbacks the
    /// transport thread produces while the callback thread is idle runs on the transport
    /// thread itself: an answer whose callback starts the next request then costs one thread
    /// wake-up instead of three. For callbacks that return quickly and do not block: the
    /// store's I/O waits while they run.
    case threadInline = 2
}
