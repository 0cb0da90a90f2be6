/// Life cycle of a request (`ods_request_state`).
public enum RequestState: Int32, Sendable, Hashable {
    /// Created, not started: configure it, then start it.
    case new = 1
    /// Started, held until the store is open.
    case waiting = 2
    case running = 3
    case finished = 4
    case failed = 5
    /// Reported to the app as a failure with `ErrorCode.cancelled`.
    case cancelled = 6

    public var isTerminal: Bool { self == .finished || self == .failed || self == .cancelled }
}
