/// How far an upload is: reported after each change the service answered.
public struct UploadProgress: Sendable, Equatable {
    /// Changes answered so far in this upload (confirmed or moved to the error archive).
    public var sent: Int
    /// Changes this upload set out to send.
    public var total: Int
    /// Of `sent`, those the service refused (now in the error archive).
    public var failed: Int

    public init(sent: Int, total: Int, failed: Int) {
        self.sent = sent
        self.total = total
        self.failed = failed
    }
}

/// What an upload did.
public struct UploadResult: Sendable, Equatable {
    /// Changes the service confirmed (they left the queue).
    public var confirmed: Int
    /// Changes the service refused: moved to the error archive.
    public var failed: Int
    /// Changes still queued: they wait behind a refused change of the same entity, or arrived
    /// during the upload.
    public var remaining: Int

    public init(confirmed: Int, failed: Int, remaining: Int) {
        self.confirmed = confirmed
        self.failed = failed
        self.remaining = remaining
    }
}
