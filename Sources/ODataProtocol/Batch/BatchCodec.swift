/// Shared pieces of the multipart batch reader and writer.
enum BatchCodec {
    static func boundary(_ body: [UInt8], contentType: String?) throws(BatchError) -> String {
        if let ct = contentType {
            guard MultipartReader.isMultipart(ct) else {
                throw BatchError("batch Content-Type must be multipart/mixed, not '\(MediaType.essence(ct))'")
            }
            if let b = MultipartReader.boundary(fromContentType: ct) { return b }
        }
        guard let b = MultipartReader.sniffBoundary(body) else { throw BatchError("no multipart boundary found", offset: 0) }
        return b
    }

    /// An `application/http` part holding a request.
    static func request(_ b: [UInt8], _ part: MultipartReader.Part) throws(BatchError) -> BatchRequestPart {
        let (line, headers, body) = try httpMessage(b, part)
        let tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard tokens.count >= 2, tokens[0].allSatisfy({ $0.isLetter && $0.isASCII }) else {
            throw BatchError("malformed request line '\(line.prefix(80))'", offset: part.body.lowerBound)
        }
        var urlTokens = tokens.dropFirst()
        if let last = urlTokens.last, last.hasPrefix("HTTP/"), urlTokens.count > 1 { urlTokens = urlTokens.dropLast() }
        let contentID = part.headers["Content-ID"] ?? headers["Content-ID"]
        return BatchRequestPart(method: tokens[0].uppercased(), url: urlTokens.joined(separator: " "), headers: headers,
                                body: Array(b[body]), contentID: contentID)
    }

    /// An `application/http` part holding a response (`HTTP/1.1 201 Created`).
    static func response(_ b: [UInt8], _ part: MultipartReader.Part) throws(BatchError) -> BatchResponsePart {
        let (line, headers, body) = try httpMessage(b, part)
        let tokens = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard tokens.count >= 2, tokens[0].hasPrefix("HTTP/"), tokens[1].count == 3, let status = Int(tokens[1]),
              (100...599).contains(status) else {
            throw BatchError("malformed status line '\(line.prefix(80))'", offset: part.body.lowerBound)
        }
        let reason = tokens.count > 2 ? MultipartReader.trim(String(tokens[2])) : ""
        let contentID = part.headers["Content-ID"] ?? headers["Content-ID"]
        return BatchResponsePart(status: status, reason: reason, headers: headers, body: Array(b[body]), contentID: contentID)
    }

    /// Start line, headers and body range of the HTTP message inside an `application/http` part.
    static func httpMessage(_ b: [UInt8], _ part: MultipartReader.Part) throws(BatchError) -> (String, BatchHeaders, Range<Int>) {
        let ct = part.headers["Content-Type"]
        guard ct != nil else { throw BatchError("part without a Content-Type header", offset: part.body.lowerBound) }
        guard MultipartReader.isHTTP(ct) else {
            throw BatchError("part Content-Type must be application/http, not '\(ct ?? "")'", offset: part.body.lowerBound)
        }
        var i = part.body.lowerBound
        // Tolerate blank lines before the start line.
        while i < part.body.upperBound {
            let (content, next) = MultipartReader.endOfLine(b, from: i, limit: part.body.upperBound)
            if content != i { break }
            i = next
        }
        guard i < part.body.upperBound else { throw BatchError("empty application/http part", offset: part.body.lowerBound) }
        let (content, next) = MultipartReader.endOfLine(b, from: i, limit: part.body.upperBound)
        let line = MultipartReader.trim(String(decoding: b[i..<content], as: UTF8.self))
        let (headers, bodyStart) = try MultipartReader.parseHeaders(b, from: next, limit: part.body.upperBound)
        return (line, headers, bodyStart..<part.body.upperBound)
    }

    static func write(_ r: BatchRequestPart, into out: inout [UInt8]) {
        out += Array("Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n".utf8)
        if let id = r.contentID { out += Array("Content-ID: \(id)\r\n".utf8) }
        out += Array("\r\n\(r.method) \(r.url) HTTP/1.1\r\n".utf8)
        var headers = r.headers
        headers.remove("Content-ID")
        if !r.body.isEmpty { headers.set("Content-Length", String(r.body.count)) }
        for h in headers { out += Array("\(h.name): \(h.value)\r\n".utf8) }
        out += Array("\r\n".utf8)
        out += r.body
        out += Array("\r\n".utf8)
    }

    static func write(_ r: BatchResponsePart, into out: inout [UInt8]) {
        out += Array("Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n".utf8)
        if let id = r.contentID { out += Array("Content-ID: \(id)\r\n".utf8) }
        out += Array("\r\nHTTP/1.1 \(r.status) \(r.reason)\r\n".utf8)
        var headers = r.headers
        headers.remove("Content-ID")
        if !r.body.isEmpty { headers.set("Content-Length", String(r.body.count)) }
        for h in headers { out += Array("\(h.name): \(h.value)\r\n".utf8) }
        out += Array("\r\n".utf8)
        out += r.body
        out += Array("\r\n".utf8)
    }

    static func randomBoundary(_ prefix: String) -> String {
        var g = SystemRandomNumberGenerator()
        let hex = (0..<2).map { _ in String(g.next() as UInt64, radix: 16) }.joined(separator: "-")
        return "\(prefix)_\(hex)"
    }
}
