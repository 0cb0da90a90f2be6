/// When an exchange is tried again, and after how long: only what is safe to repeat, a
/// bounded number of times, with jittered exponential backoff, and as the server asks
/// (`Retry-After`).
///
/// - A GET whose connection broke (reset, closed, cut short, garbage: `HTTPTransportError.io`)
///   or that got 502, 503, 504 or 429 is retried: reading twice changes nothing.
/// - PUT and DELETE are retried only on 429 and 503, where the server says it did not act;
///   a broken connection leaves open whether it did, and a DELETE repeated after it did
///   would report a 404 for a request that succeeded.
/// - POST, PATCH and MERGE are never retried (a repeated create makes two entities).
/// - Timeouts, TLS failures and unreachable services are not retried (repeating does not
///   help within one request's time, and an offline service is the app's to handle).
/// - `Retry-After` in seconds is honoured when it is at most `maxRetryAfterSeconds`; a
///   longer one is reported instead of waited for. An HTTP-date value uses the backoff.
struct RetryPolicy: Sendable {
    /// Retries after the first attempt (0: none).
    var maxRetries: Int
    var baseDelayMilliseconds = 200
    var maxDelayMilliseconds = 5_000
    var maxRetryAfterSeconds = 30

    static let defaultMaxRetries = 2

    /// The delay before retry number `retry` (0-based) of `method` after a transport failure,
    /// or nil when it must not be retried.
    func delay(after error: HTTPTransportError, method: String, retry: Int) -> Int? {
        guard retry < maxRetries, method == "GET" || method == "HEAD" else { return nil }
        guard case .io = error else { return nil }
        return backoff(retry)
    }

    /// The delay before retry number `retry` after a response, or nil when the response is
    /// the answer (success, or an error to report).
    func delay(after response: HTTPResponse, method: String, retry: Int) -> Int? {
        guard retry < maxRetries else { return nil }
        let status = response.status
        let read = method == "GET" || method == "HEAD"
        let refused = status == 429 || status == 503
        guard refused && (read || method == "PUT" || method == "DELETE") || read && (status == 502 || status == 504) else {
            return nil
        }
        return wait(retryAfter: response.header("Retry-After"), retry: retry)
    }

    /// The delay before trying again a request of any method that the service refused
    /// without acting on it (429 Too Many Requests, 503 Service Unavailable, 408 Request
    /// Timeout), as `Retry-After` asks or with the backoff; nil when it must not be tried
    /// again (no retries left, another status, or a `Retry-After` too long to wait for).
    /// The upload uses it for creates and `$batch` requests, which `delay(after:method:retry:)`
    /// never repeats on its own: each change carries its Repeatability-Request-ID.
    func delayAfterRefusal(status: Int, retryAfter: String?, retry: Int) -> Int? {
        guard retry < maxRetries, status == 429 || status == 503 || status == 408 else { return nil }
        return wait(retryAfter: retryAfter, retry: retry)
    }

    /// `Retry-After` in seconds when it is at most `maxRetryAfterSeconds` (nil: too long to
    /// wait, report it instead), else the backoff.
    private func wait(retryAfter value: String?, retry: Int) -> Int? {
        if let value {
            let text = value.utf8.filter { $0 != 0x20 && $0 != 0x09 }
            if !text.isEmpty, text.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                guard text.count <= 6, let seconds = Int(String(decoding: text, as: UTF8.self)),
                      seconds <= maxRetryAfterSeconds else { return nil }  // too long to wait: report it
                return seconds * 1000
            }
        }
        return backoff(retry)
    }

    /// base * 2^retry, jittered to 50%..150%, capped.
    func backoff(_ retry: Int) -> Int {
        let base = min(maxDelayMilliseconds, baseDelayMilliseconds << min(retry, 16))
        var rng = SystemRandomNumberGenerator()
        return min(maxDelayMilliseconds, base / 2 + Int.random(in: 0...base, using: &rng))
    }
}
