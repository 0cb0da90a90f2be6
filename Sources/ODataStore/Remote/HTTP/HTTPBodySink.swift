/// Takes a response body as it arrives instead of the transport buffering it whole (the
/// offline download writes a page while it arrives: docs/reliability.md, "Streaming").
///
/// Threading: `begin` and `receive` are called on the transport's thread, one at a time, and
/// must return at once (never wait for a database or a lock held for long). Back-pressure:
/// `receive` refuses bytes it cannot queue now; the transport then pauses the exchange
/// (nothing more is read from the connection) until the sink calls `resume`, from any thread,
/// and offers the same bytes again. The response-size and decompression limits apply to what
/// is offered as they do to a buffered body; the request's timeout runs while paused.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// Before the first body byte of the final response: whether to take this body (else the
    /// transport buffers it in `HTTPResponse.body` as usual). `resume` restarts the exchange
    /// after `receive` refused bytes; it does nothing once the exchange has ended.
    func begin(status: Int, headers: HTTPHeaderFields, resume: @escaping @Sendable () -> Void) -> Bool
    /// Bytes of the body, in order; valid during the call only. False refuses them for now.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool
}
