/// Entry points for the fuzz targets (`Sources/ODataFuzzTargets`, package-visible only): the
/// HTTP response handling of the online store, from raw bytes, without a network.
package enum FuzzEntryPoints {
    /// `bytes` as a whole HTTP response (status line, header lines, blank line, body) through
    /// the steps an answer takes: header parsing as libcurl hands lines over, the CSRF token,
    /// the error message of a failure, the decoding of a success with `model`.
    package static func httpResponse(_ bytes: [UInt8], model: ServiceModel?, version: ODataVersion) {
        var headers = HTTPHeaderFields()
        var status = 0
        var i = 0
        var lineStart = 0
        var first = true
        // Header lines up to the first empty line, split as libcurl does (at LF).
        while i < bytes.count {
            if bytes[i] == 0x0A {
                let line = Array(bytes[lineStart...i])
                lineStart = i + 1
                i += 1
                let trimmed = line.filter { $0 != 0x0D && $0 != 0x0A }
                if trimmed.isEmpty { break }
                if first {
                    first = false
                    let parts = String(decoding: trimmed, as: UTF8.self).split(separator: " ")
                    status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                    continue
                }
                line.withUnsafeBufferPointer { HeaderLineParser.receive($0, into: &headers) }
                continue
            }
            i += 1
        }
        let body = lineStart < bytes.count ? Array(bytes[lineStart...]) : []
        let response = HTTPResponse(status: status, headerFields: headers, body: body)
        CSRFToken().update(from: response)
        if !(200..<300).contains(status) {
            _ = ResponseErrors.error(for: response, what: "fuzz", maxText: 4096)
            return
        }
        _ = try? PayloadDecoder.decode(body, contentType: response.header("Content-Type"), version: version, model: model,
                                       entitySet: model?.entitySets.keys.sorted().first)
    }
}
