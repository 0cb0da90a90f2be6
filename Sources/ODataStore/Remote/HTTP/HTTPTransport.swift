/// What the online store needs from an HTTP client. `CurlTransport` is the implementation.
///
/// Threading: `send` and `cancel` may be called from any thread. `completion` is called
/// exactly once per `send`, on the transport's own thread, never while the transport holds
/// an internal lock; it must return quickly (hand work off, do not block).
public protocol HTTPTransport: Sendable {
    /// Starts an exchange and returns its id (unique for this transport).
    @discardableResult
    func send(_ request: HTTPRequest,
              completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) -> UInt64
    /// Starts an exchange after at least `delayMilliseconds` (a retry's backoff); until then
    /// it holds no connection and `cancel` ends it at once.
    @discardableResult
    func send(_ request: HTTPRequest, delayMilliseconds: Int,
              completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) -> UInt64
    /// Cancels an exchange; its completion gets `.cancelled` unless it already completed.
    func cancel(_ id: UInt64)
    /// Cancels everything in flight (each completion gets `.cancelled` or `.closed`), stops
    /// the thread and returns after it has exited. Further `send`s complete with `.closed`.
    func shutdown()
}
