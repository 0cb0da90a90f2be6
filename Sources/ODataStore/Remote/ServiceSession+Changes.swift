/// Sending a request that changes data (the offline store's upload: one change, or a
/// `$batch` of them), with what every modifying request needs from the session: the SAP CSRF
/// token, fetched again and the request sent once more when the service says it expired
/// (403 with `X-CSRF-Token: Required`: the service did not act on the request).
///
/// Nothing else is repeated here: the retry policy never repeats a POST, PATCH or MERGE, and
/// the upload decides what to send again (every change carries its
/// Repeatability-Request-ID).
extension ServiceSession {
    /// Sends `request` after `delayMilliseconds`; `record` is told each transfer's id (for
    /// cancellation). `completion` runs once, on the transport's thread.
    func sendChange(_ request: HTTPRequest, delayMilliseconds: Int = 0, record: @escaping @Sendable (UInt64) -> Void,
                    completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) {
        sendChange(request, delayMilliseconds: delayMilliseconds, tokenRefetched: false, record: record, completion: completion)
    }

    private func sendChange(_ request: HTTPRequest, delayMilliseconds: Int, tokenRefetched: Bool,
                            record: @escaping @Sendable (UInt64) -> Void,
                            completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) {
        var withToken = request
        if options.csrfProtection, let token = csrf.current { withToken.headers.append(("X-CSRF-Token", token)) }
        send(withToken, delayMilliseconds: delayMilliseconds, record: record) { [self] result in
            guard case .success(let response) = result else { return completion(result) }
            csrf.update(from: response)
            guard options.csrfProtection, !tokenRefetched, CSRFToken.isRequired(response) else { return completion(result) }
            csrf.invalidate()
            var headers = merged(baseHeaders(version: odataVersion ?? .v4), [])
            headers.append(("X-CSRF-Token", "Fetch"))
            let fetch = HTTPRequest(method: "GET", url: serviceRoot, headers: headers, timeoutMilliseconds: request.timeoutMilliseconds)
            send(fetch, record: record) { [self] fetched in
                switch fetched {
                case .success(let r):
                    csrf.update(from: r)
                    sendChange(request, delayMilliseconds: 0, tokenRefetched: true, record: record, completion: completion)
                case .failure(let e):
                    completion(.failure(e))
                }
            }
        }
    }
}
