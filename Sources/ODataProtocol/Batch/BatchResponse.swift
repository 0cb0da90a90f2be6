/// A `$batch` response: its items in order (top-level responses and changeset groups).
public struct BatchResponse: Sendable, Equatable {
    public var items: [BatchResponseItem]

    public init(items: [BatchResponseItem] = []) { self.items = items }

    /// All responses in order, changesets flattened.
    public var responses: [BatchResponsePart] {
        items.flatMap { item -> [BatchResponsePart] in
            switch item {
            case .response(let r): return [r]
            case .changeset(let rs): return rs
            }
        }
    }

    /// Parses a multipart batch response body (boundary from `contentType`, or from the body's
    /// first `--` line when `contentType` is nil or names none).
    public static func parse(_ body: [UInt8], contentType: String?) throws(BatchError) -> BatchResponse {
        let boundary = try BatchCodec.boundary(body, contentType: contentType)
        var items: [BatchResponseItem] = []
        for part in try MultipartReader.split(body, 0..<body.count, boundary: boundary) {
            let ct = part.headers["Content-Type"]
            if MultipartReader.isMultipart(ct) {
                guard let inner = ct.flatMap(MultipartReader.boundary(fromContentType:)) else {
                    throw BatchError("changeset without a boundary parameter", offset: part.body.lowerBound)
                }
                var rs: [BatchResponsePart] = []
                for p in try MultipartReader.split(body, part.body, boundary: inner) {
                    rs.append(try BatchCodec.response(body, p))
                }
                items.append(.changeset(rs))
            } else {
                items.append(.response(try BatchCodec.response(body, part)))
            }
        }
        return BatchResponse(items: items)
    }

    /// The multipart body and its Content-Type (used by tests and by servers written with this library).
    public func encoded(boundary: String? = nil) -> (body: [UInt8], contentType: String) {
        let b = boundary ?? BatchCodec.randomBoundary("batchresponse")
        var out: [UInt8] = []
        var n = 0
        for item in items {
            out += Array("--\(b)\r\n".utf8)
            switch item {
            case .response(let r): BatchCodec.write(r, into: &out)
            case .changeset(let rs):
                n += 1
                let cs = "changesetresponse_\(n)_\(b)"
                out += Array("Content-Type: multipart/mixed; boundary=\(cs)\r\n\r\n".utf8)
                for r in rs {
                    out += Array("--\(cs)\r\n".utf8)
                    BatchCodec.write(r, into: &out)
                }
                out += Array("--\(cs)--\r\n".utf8)
            }
        }
        out += Array("--\(b)--\r\n".utf8)
        return (out, "multipart/mixed; boundary=\(b)")
    }
}
