
/// SAP Gateway's cross-site request forgery token: fetched with `X-CSRF-Token: Fetch`,
/// sent on every modifying request, fetched again when the service answers 403 with
/// `X-CSRF-Token: Required`.
final class CSRFToken: Sendable {
    private let value = Locked<String?>(nil)

    var current: String? { value.withLock { $0 } }

    func update(from response: HTTPResponse) {
        // A token with CR, LF or NUL could never be sent back (it would split the header):
        // it is not kept, so it cannot break the writes that follow.
        guard let token = response.header("X-CSRF-Token"), !token.isEmpty, isValidFieldValue(token),
              !asciiCaseInsensitiveEquals(token, "Required") else { return }
        value.withLock { $0 = token }
        Log.debug(.csrf, "CSRF token received")
    }

    func invalidate() {
        value.withLock { $0 = nil }
        Log.info(.csrf, "CSRF token required or expired (403): fetching a new one")
    }

    /// True when a 403 response says the token is missing or expired.
    static func isRequired(_ response: HTTPResponse) -> Bool {
        guard response.status == 403, let h = response.header("X-CSRF-Token") else { return false }
        return asciiCaseInsensitiveEquals(h, "Required")
    }
}
