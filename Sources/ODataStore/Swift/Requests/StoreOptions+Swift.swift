extension StoreOptions {
    /// Time allowed for each HTTP exchange (`requestTimeoutMilliseconds` as a `Duration`).
    public var requestTimeout: Duration {
        get { .milliseconds(requestTimeoutMilliseconds) }
        set { requestTimeoutMilliseconds = Self.milliseconds(newValue) }
    }

    /// Time allowed to connect (`connectTimeoutMilliseconds` as a `Duration`).
    public var connectTimeout: Duration {
        get { .milliseconds(connectTimeoutMilliseconds) }
        set { connectTimeoutMilliseconds = Self.milliseconds(newValue) }
    }

    /// Sets a header sent with every request (replacing one of the same name, compared
    /// without case); nil removes it.
    public mutating func setHeader(_ name: String, _ value: String?) {
        headers.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
        if let value { headers.append((name, value)) }
    }

    /// Rounded up to whole milliseconds; negative durations become -1 (refused when the
    /// store is made).
    static func milliseconds(_ d: Duration) -> Int {
        let (s, atto) = d.components
        guard s >= 0, atto >= 0 else { return -1 }
        let ms = s * 1000 + (atto + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(clamping: ms)
    }
}
