import CCurl

/// One exchange in flight on a `CurlTransport`'s thread: its easy handle and the response
/// being collected. Confined to the transport thread; libcurl's callbacks reach
/// it through an unretained pointer while the worker's table keeps it alive.
final class CurlTransfer {
    let id: UInt64
    let easy: CurlEasy
    private var completion: (@Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void)?
    let maxBodyBytes: Int

    /// Headers of the response being received; reset at each status line (1xx, redirects).
    var responseHeaders: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// Set by a callback that stopped the transfer (body too large, ...).
    var callbackFailure: HTTPTransportError?

    init(id: UInt64, easy: CurlEasy, maxBodyBytes: Int,
         completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) {
        self.id = id
        self.easy = easy
        self.maxBodyBytes = maxBodyBytes
        self.completion = completion
        easy.errorBuffer[0] = 0
    }

    var errorText: String { easy.errorText }

    /// Calls the completion the first time only; later calls do nothing.
    func complete(_ result: Result<HTTPResponse, HTTPTransportError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }

    // MARK: - Response header parsing

    /// Handles one header line as libcurl delivers it (CRLF included).
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        if end == 0 { return }  // the blank line that ends a header block
        let bytes = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if bytes.starts(with: "HTTP/".utf8) {
            responseHeaders.removeAll(keepingCapacity: true)  // a new response begins
            return
        }
        if bytes[0] == 0x20 || bytes[0] == 0x09 {
            // obsolete line folding: continues the previous header's value
            if !responseHeaders.isEmpty {
                let more = Self.trimmed(bytes)
                responseHeaders[responseHeaders.count - 1].value += " " + String(decoding: more, as: UTF8.self)
            }
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = Self.trimmed(UnsafeRawBufferPointer(rebasing: bytes[0..<colon]))
        let value = Self.trimmed(UnsafeRawBufferPointer(rebasing: bytes[(colon + 1)...]))
        guard !name.isEmpty else { return }
        responseHeaders.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }
}

// MARK: - libcurl callbacks (C calling convention; no Swift error or trap crosses them)

/// CURLOPT_WRITEFUNCTION: appends body bytes. Returning less than given aborts the transfer
/// with CURLE_WRITE_ERROR.
let curlWriteCallback: ods_curl_data_cb = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let (total, overflow) = size.multipliedReportingOverflow(by: count)
    if overflow { return 0 }
    if total == 0 { return 0 }
    guard let data else { return 0 }
    if transfer.maxBodyBytes > 0, transfer.body.count > transfer.maxBodyBytes - total {
        transfer.callbackFailure = .io("response body exceeds the limit of \(transfer.maxBodyBytes) bytes")
        return 0
    }
    transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: total))
    return total
}

/// CURLOPT_HEADERFUNCTION: one header line per call, status lines included.
let curlHeaderCallback: ods_curl_data_cb = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let (total, overflow) = size.multipliedReportingOverflow(by: count)
    if overflow { return 0 }
    guard let data, total > 0 else { return total }
    transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: total))
    return total
}
