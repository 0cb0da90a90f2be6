/// Why an exchange produced no HTTP response at all.
public enum HTTPTransportError: Error, Sendable, Equatable {
    /// DNS failure, connection refused, host unreachable: the service cannot be reached.
    case unreachable(String)
    /// The exchange exceeded its time limit (connect or total).
    case timeout(String)
    /// `cancel` was called before the exchange completed.
    case cancelled
    /// TLS handshake or certificate verification failed.
    case tls(String)
    /// The connection broke mid-exchange, or the peer sent something that is not HTTP.
    case io(String)
    /// The transport is shut down.
    case closed
    /// The response went past one of the configuration's limits and was abandoned.
    case limit(HTTPLimit, String)
}

/// The limits of a `CurlTransport` that a response can reach.
public enum HTTPLimit: Sendable, Equatable {
    /// `CurlTransportConfiguration.maxResponseBodyBytes`.
    case responseBytes
    /// `CurlTransportConfiguration.maxCompressionRatio`.
    case compressionRatio
    /// `StoreLimits.maxHeldRequests`: too many exchanges wait for a logon (never sent).
    case heldRequests
}
