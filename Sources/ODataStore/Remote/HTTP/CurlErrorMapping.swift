import CCurl

extension HTTPTransportError {
    /// Maps a failed libcurl transfer to the transport's error kinds. `detail` is libcurl's
    /// error buffer (may be empty); the message always names the curl code.
    static func fromCurl(_ code: CURLcode, detail: String) -> HTTPTransportError {
        let text: String
        if !detail.isEmpty {
            text = detail
        } else if code == CURLE_OUT_OF_MEMORY {
            // libcurl 7.88 also gives up this way, saying nothing more, on a response header
            // line longer than its limit (CURL_MAX_HTTP_HEADER, 100 KB): a hostile or broken
            // server far more often than a full heap. (A response's headers over 300 KB in
            // all fail with CURLE_RECV_ERROR and a message of their own.)
            text = "out of memory, or a response header line longer than libcurl's limit of 100 KB"
        } else {
            text = String(cString: curl_easy_strerror(code))
        }
        let message = "\(text) (curl error \(code.rawValue))"
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            return .unreachable(message)
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout(message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED, CURLE_SSL_CLIENTCERT:
            return .tls(message)
        default:
            // Broken connections (RECV/SEND_ERROR, GOT_NOTHING, PARTIAL_FILE), replies that are
            // not HTTP (WEIRD_SERVER_REPLY, UNSUPPORTED_PROTOCOL for "HTTP/0.9"), malformed
            // URLs, too many redirects, out of memory, ...
            return .io(message)
        }
    }
}
