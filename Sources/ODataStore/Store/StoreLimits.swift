/// Bounds on what a service (or a caller) can make a store hold. Every field has a default
/// that a well-behaved service never reaches; `ods_store_options` can raise or lower each.
/// Reaching one fails the request (or the open) with `ErrorCode.limit` and a message naming
/// the option.
public struct StoreLimits: Sendable, Equatable {
    public static let defaultMaxResponseBytes = 64 << 20
    public static let defaultMaxCompressionRatio = 100
    public static let defaultMaxErrorMessageBytes = 4096
    public static let defaultMaxPages = 1000
    public static let defaultMaxPendingRequests = 10_000
    public static let defaultMaxHeldRequests = 10_000
    /// A body is checked against `maxCompressionRatio` once it has decompressed past this.
    public static let compressionRatioThreshold = 1 << 20

    /// Largest response body after decompression (bytes); also the largest `metadataPath`
    /// file and the sum of the pages of one request that follows next links.
    public var maxResponseBytes = StoreLimits.defaultMaxResponseBytes
    /// Largest ratio of decompressed to received body bytes (past `compressionRatioThreshold`).
    public var maxCompressionRatio = StoreLimits.defaultMaxCompressionRatio
    /// Longest text taken from a service's error body into an error's message (bytes).
    public var maxErrorMessageBytes = StoreLimits.defaultMaxErrorMessageBytes
    /// Most pages one request following next links reads.
    public var maxPages = StoreLimits.defaultMaxPages
    /// Most requests started and not yet ended in one store.
    public var maxPendingRequests = StoreLimits.defaultMaxPendingRequests
    /// Most requests held while the store opens, or while a logon waits for the app's reply
    /// (each hold counted on its own); one more fails with `ErrorCode.limit`, "too many held
    /// requests".
    public var maxHeldRequests = StoreLimits.defaultMaxHeldRequests
    /// Retries of an exchange that is safe to repeat (see `RetryPolicy`); 0 retries nothing.
    public var maxRetries = 2

    public init() {}

    /// Nil when every limit is usable, else the reason.
    func validationProblem() -> String? {
        if maxResponseBytes <= 0 { return "max_response_bytes must be positive" }
        if maxCompressionRatio <= 0 { return "max_compression_ratio must be positive" }
        if maxErrorMessageBytes < 64 { return "max_error_message_bytes must be at least 64" }
        if maxPages <= 0 { return "max_pages must be positive" }
        if maxPendingRequests <= 0 { return "max_pending_requests must be positive" }
        if maxHeldRequests <= 0 { return "max_held_requests must be positive" }
        if maxRetries < 0 || maxRetries > 10 { return "max_retries must be between 0 and 10" }
        return nil
    }
}
