import Testing
@testable import ODataStore

/// `RetryPolicy`: only what is safe to repeat, a bounded number of times, after the server's
/// Retry-After when it is short enough.
@Suite("Retry policy")
struct RetryPolicyTests {
    let policy = RetryPolicy(maxRetries: 2)

    func response(_ status: Int, retryAfter: String? = nil) -> HTTPResponse {
        HTTPResponse(status: status, headers: retryAfter.map { [("Retry-After", $0)] } ?? [])
    }

    @Test func readsAreRetriedWritesAreNot() {
        #expect(policy.delay(after: .io("reset"), method: "GET", retry: 0) != nil)
        #expect(policy.delay(after: .io("reset"), method: "GET", retry: 2) == nil)  // bounded
        for method in ["POST", "PATCH", "MERGE", "PUT", "DELETE"] {
            #expect(policy.delay(after: .io("reset"), method: method, retry: 0) == nil, "\(method)")
        }
        for error in [HTTPTransportError.timeout("t"), .tls("x"), .unreachable("u"), .cancelled, .closed] {
            #expect(policy.delay(after: error, method: "GET", retry: 0) == nil)
        }
        for status in [502, 503, 504, 429] { #expect(policy.delay(after: response(status), method: "GET", retry: 0) != nil) }
        for status in [200, 404, 500, 501] { #expect(policy.delay(after: response(status), method: "GET", retry: 0) == nil) }
        #expect(policy.delay(after: response(503), method: "DELETE", retry: 0) != nil)
        #expect(policy.delay(after: response(502), method: "DELETE", retry: 0) == nil)
        #expect(policy.delay(after: response(503), method: "POST", retry: 0) == nil)
        #expect(RetryPolicy(maxRetries: 0).delay(after: response(503), method: "GET", retry: 0) == nil)
    }

    @Test func retryAfterAndBackoff() {
        #expect(policy.delay(after: response(503, retryAfter: "3"), method: "GET", retry: 0) == 3000)
        #expect(policy.delay(after: response(503, retryAfter: " 0 "), method: "GET", retry: 0) == 0)
        #expect(policy.delay(after: response(503, retryAfter: "3600"), method: "GET", retry: 0) == nil)
        #expect(policy.delay(after: response(503, retryAfter: "99999999999999999999"), method: "GET", retry: 0) == nil)
        // An HTTP-date is not parsed: the backoff applies.
        let dated = policy.delay(after: response(503, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"), method: "GET", retry: 0)
        #expect(dated.map { $0 >= 100 && $0 <= 300 } == true)
        for retry in 0..<20 {
            let d = policy.backoff(retry)
            let base = min(5000, 200 << min(retry, 16))
            #expect(d >= base / 2 && d <= min(5000, base / 2 + base))
        }
    }
}
