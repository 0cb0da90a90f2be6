import CCurl

/// One exchange in flight on a `CurlTransport`'s thread: its easy handle and the response
/// being collected. Confined to the transport thread; libcurl's callbacks reach
/// it through an unretained pointer while the worker's table keeps it alive.
final class CurlTransfer {
    let id: UInt64
    let easy: CurlEasy
    // Confined to the transport thread, never accessed re-entrantly: no dynamic exclusivity checks.
    @exclusivity(unchecked) private var completion: (@Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void)?
    let maxBodyBytes: Int
    let maxCompressionRatio: Int
    let compressionRatioThreshold: Int

    /// Headers of the response being received; reset at each status line (1xx, redirects).
    @exclusivity(unchecked) var responseHeaders = HTTPHeaderFields()
    @exclusivity(unchecked) var body: [UInt8] = []
    /// Set by a callback that stopped the transfer (body too large, ...).
    @exclusivity(unchecked) var callbackFailure: HTTPTransportError?
    /// Takes the body as it arrives when it accepts it (`HTTPBodySink`).
    let sink: (any HTTPBodySink)?
    /// Whether `sink` takes this body: nil until the first body byte.
    @exclusivity(unchecked) var streaming: Bool?
    /// Body bytes the sink took (for the limits).
    @exclusivity(unchecked) var streamedBytes = 0
    /// Restarts the transfer after the sink refused bytes (set by the worker).
    @exclusivity(unchecked) var resume: (@Sendable () -> Void)?
    /// Whether the response has a body (false for HEAD): its declared length is checked
    /// against `maxBodyBytes` when its headers end.
    let expectsBody: Bool

    init(id: UInt64, easy: CurlEasy, maxBodyBytes: Int, maxCompressionRatio: Int = 0, compressionRatioThreshold: Int = 1 << 20,
         sink: (any HTTPBodySink)? = nil, expectsBody: Bool = true,
         completion: @escaping @Sendable (Result<HTTPResponse, HTTPTransportError>) -> Void) {
        self.id = id
        self.sink = sink
        self.easy = easy
        self.maxBodyBytes = maxBodyBytes
        self.maxCompressionRatio = maxCompressionRatio
        self.compressionRatioThreshold = compressionRatioThreshold
        self.completion = completion
        self.expectsBody = expectsBody
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

    /// Handles one header line as libcurl delivers it (CRLF included); false stops the
    /// transfer (`callbackFailure` says why).
    func receiveHeaderLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        HeaderLineParser.receive(line, into: &responseHeaders)
        guard maxBodyBytes > 0, expectsBody, line.count <= 2, line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) else { return true }
        // The end of a header block: a body whose declared length is over the limit fails now,
        // not after the limit's worth of it (or, from a server that then stalls, at the timeout).
        var status = 0
        guard ods_curl_easy_getinfo_long(easy.handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK,
              let declared = responseHeaders.declaredBodyLength(status: status), declared > maxBodyBytes else { return true }
        callbackFailure = .limit(.responseBytes, "the response declares a body of \(declared) bytes (Content-Length), more than the limit of \(maxBodyBytes)")
        return false
    }
}

/// Response header lines as libcurl hands them over, into `HTTPHeaderFields` (also driven by
/// the HTTP fuzz target, `FuzzEntryPoints.httpResponse`).
enum HeaderLineParser {
    static func receive(_ line: UnsafeBufferPointer<UInt8>, into responseHeaders: inout HTTPHeaderFields) {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        if end == 0 { return }  // the blank line that ends a header block
        if end >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            responseHeaders.removeAll()  // a new response begins
            return
        }
        if line[0] == 0x20 || line[0] == 0x09 {
            // obsolete line folding: continues the previous header's value
            responseHeaders.continueLastValue(UnsafeBufferPointer(rebasing: line[Self.trimmed(line, 0, end)]))
            return
        }
        var colon = 0
        while colon < end, line[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < end else { return }
        let name = Self.trimmed(line, 0, colon)
        guard !name.isEmpty else { return }
        let value = Self.trimmed(line, colon + 1, end)
        responseHeaders.append(line: line, name: name, value: value)
    }

    /// `from..<to` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Range<Int> {
        var start = from, end = to
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return start..<end
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
    if transfer.sink != nil {
        if transfer.streaming == nil { transfer.streaming = transfer.beginStreaming() }
        if transfer.streaming == true { return transfer.stream(UnsafeRawBufferPointer(start: data, count: total)) }
    }
    if transfer.maxBodyBytes > 0, transfer.body.count > transfer.maxBodyBytes - total {
        transfer.callbackFailure = .limit(.responseBytes, "the response body is larger than \(transfer.maxBodyBytes) bytes")
        return 0
    }
    transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: total))
    if transfer.maxCompressionRatio > 0, transfer.body.count > transfer.compressionRatioThreshold {
        // The bytes received so far (CURLINFO_SIZE_DOWNLOAD_T counts the body as it came off
        // the wire, before content decoding) against what they decompressed to.
        var received: curl_off_t = 0
        if ods_curl_easy_getinfo_off(transfer.easy.handle, CURLINFO_SIZE_DOWNLOAD_T, &received) == CURLE_OK,
           received > 0, transfer.body.count / Int(received) > transfer.maxCompressionRatio {
            transfer.callbackFailure = .limit(.compressionRatio,
                "the response body decompressed from \(received) to more than \(transfer.body.count) bytes (a ratio over \(transfer.maxCompressionRatio))")
            return 0
        }
    }
    return total
}

extension CurlTransfer {
    /// Asks the sink whether it takes this body (a 2xx final response only).
    func beginStreaming() -> Bool {
        guard let sink, let resume else { return false }
        var status = 0
        guard ods_curl_easy_getinfo_long(easy.handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK,
              (200..<300).contains(status) else { return false }
        return sink.begin(status: status, headers: responseHeaders, resume: resume)
    }

    /// Hands body bytes to the sink under the same limits as a buffered body; pauses the
    /// transfer when the sink refuses them (libcurl offers them again after `resume`).
    func stream(_ bytes: UnsafeRawBufferPointer) -> Int {
        let total = bytes.count
        if maxBodyBytes > 0, streamedBytes > maxBodyBytes - total {
            callbackFailure = .limit(.responseBytes, "the response body is larger than \(maxBodyBytes) bytes")
            return 0
        }
        let after = streamedBytes + total
        if maxCompressionRatio > 0, after > compressionRatioThreshold {
            var received: curl_off_t = 0
            if ods_curl_easy_getinfo_off(easy.handle, CURLINFO_SIZE_DOWNLOAD_T, &received) == CURLE_OK,
               received > 0, after / Int(received) > maxCompressionRatio {
                callbackFailure = .limit(.compressionRatio,
                    "the response body decompressed from \(received) to more than \(after) bytes (a ratio over \(maxCompressionRatio))")
                return 0
            }
        }
        guard let sink, sink.receive(bytes) else { return Int(CURL_WRITEFUNC_PAUSE) }
        streamedBytes = after
        return total
    }
}

/// CURLOPT_HEADERFUNCTION: one header line per call, status lines included.
let curlHeaderCallback: ods_curl_data_cb = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let (total, overflow) = size.multipliedReportingOverflow(by: count)
    if overflow { return 0 }
    guard let data, total > 0 else { return total }
    let go = transfer.receiveHeaderLine(UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: total))
    return go ? total : 0
}
