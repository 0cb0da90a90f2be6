/// Turns HTTP failures and transport failures into `ODataStoreError`s with the detail the
/// app needs: status, the service's OData error code and message.
enum ResponseErrors {
    /// `maxText` bounds what is taken from the body (the message and the OData code and
    /// message, each); control characters (CR, LF, ESC, ...) become spaces, so a service's
    /// text can neither forge log lines nor drive a terminal.
    static func error(for response: HTTPResponse, what: String,
                      maxText: Int = StoreLimits.defaultMaxErrorMessageBytes) -> ODataStoreError {
        let detail = ErrorBodyDecoder.decode(response.body, contentType: response.header("Content-Type"))
        let odataCode = detail.map { printable($0.code, limit: maxText) }
        let odataMessage = detail.map { printable($0.message, limit: maxText) }
        var message = "\(what): HTTP \(response.status)"
        let reason = HTTPStatusText.text(response.status)
        if !reason.isEmpty { message += " " + reason }
        if (300..<400).contains(response.status) {
            message += " (redirects are not followed"
            if let location = response.header("Location") {
                message += "; Location: " + printable(URLRedaction.redactingPassword(location), limit: 300)
            }
            message += ")"
        }
        if let m = odataMessage, !m.isEmpty {
            message += ": " + m
        } else if !response.body.isEmpty, detail == nil {
            let snippet = printable(String(decoding: response.body.prefix(200), as: UTF8.self), limit: 200)
            message += " (" + snippet + (response.body.count > 200 ? "..." : "") + ")"
        }
        return ODataStoreError(ErrorCode.forHTTPStatus(response.status), message, httpStatus: response.status,
                               odataCode: odataCode, odataMessage: odataMessage)
    }

    /// `text` with every control character (C0, DEL, C1) replaced by a space and cut to at most
    /// `limit` UTF-8 bytes at a character boundary ("..." marks a cut).
    static func printable(_ text: String, limit: Int) -> String {
        var out = String.UnicodeScalarView()
        var bytes = 0
        var cut = false
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let clean: Unicode.Scalar = (v < 0x20 || (v >= 0x7F && v < 0xA0)) ? " " : scalar
            let n = UTF8.width(clean)
            if bytes + n > limit {
                cut = true
                break
            }
            out.append(clean)
            bytes += n
        }
        return String(out) + (cut ? "..." : "")
    }

    static func error(for error: HTTPTransportError, what: String) -> ODataStoreError {
        switch error {
        case .unreachable(let m): ODataStoreError(.offline, "\(what): the service cannot be reached: \(m)")
        case .timeout(let m): ODataStoreError(.timeout, "\(what): timed out: \(m)")
        case .cancelled: .cancelled
        case .tls(let m): ODataStoreError(.tls, "\(what): TLS failure: \(m)")
        case .io(let m): ODataStoreError(.io, "\(what): connection failed: \(m)")
        case .closed: ODataStoreError(.closed, "\(what): the store is closed")
        case .limit(.responseBytes, let m): ODataStoreError(.limit, "\(what): \(m) (max_response_bytes)")
        case .limit(.compressionRatio, let m): ODataStoreError(.limit, "\(what): \(m) (max_compression_ratio)")
        case .limit(.heldRequests, let m): ODataStoreError(.limit, "\(what): too many held requests: \(m)")
        }
    }
}
