/// Turns HTTP failures and transport failures into `ODataStoreError`s with the detail the
/// app needs: status, the service's OData error code and message.
enum ResponseErrors {
    static func error(for response: HTTPResponse, what: String) -> ODataStoreError {
        let detail = ErrorBodyDecoder.decode(response.body, contentType: response.header("Content-Type"))
        var message = "\(what): HTTP \(response.status)"
        let reason = HTTPStatusText.text(response.status)
        if !reason.isEmpty { message += " " + reason }
        if let m = detail?.message, !m.isEmpty {
            message += ": " + m
        } else if !response.body.isEmpty, detail == nil {
            let snippet = String(decoding: response.body.prefix(200), as: UTF8.self)
                .filter { $0 != "\n" && $0 != "\r" }
            message += " (" + snippet + (response.body.count > 200 ? "..." : "") + ")"
        }
        return ODataStoreError(ErrorCode.forHTTPStatus(response.status), message, httpStatus: response.status,
                               odataCode: detail?.code, odataMessage: detail?.message)
    }

    static func error(for error: HTTPTransportError, what: String) -> ODataStoreError {
        switch error {
        case .unreachable(let m): ODataStoreError(.offline, "\(what): the service cannot be reached: \(m)")
        case .timeout(let m): ODataStoreError(.timeout, "\(what): timed out: \(m)")
        case .cancelled: .cancelled
        case .tls(let m): ODataStoreError(.tls, "\(what): TLS failure: \(m)")
        case .io(let m): ODataStoreError(.io, "\(what): connection failed: \(m)")
        case .closed: ODataStoreError(.closed, "\(what): the store is closed")
        }
    }
}
