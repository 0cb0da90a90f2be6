/// A `$batch` request: its items in order. Value type, `Sendable`.
///
/// Write it with `encoded(boundary:)` (multipart/mixed, CRLF line breaks, the same wire form
/// for V2 and V4) or `encodedJSON()` (the V4.01 JSON batch format); read one with `parse`.
public struct BatchRequest: Sendable, Equatable {
    public var items: [BatchRequestItem]

    public init(items: [BatchRequestItem] = []) { self.items = items }

    /// All requests in order, changesets flattened.
    public var requests: [BatchRequestPart] {
        items.flatMap { item -> [BatchRequestPart] in
            switch item {
            case .request(let r): return [r]
            case .changeset(let rs): return rs
            }
        }
    }

    /// Parses a multipart batch request body. The boundary comes from `contentType`
    /// (`multipart/mixed; boundary=...`), or, when that is nil, from the body's first `--` line.
    /// Changesets may contain only modifying requests (a GET inside one is an error).
    public static func parse(_ body: [UInt8], contentType: String?) throws(BatchError) -> BatchRequest {
        let boundary = try BatchCodec.boundary(body, contentType: contentType)
        var items: [BatchRequestItem] = []
        for part in try MultipartReader.split(body, 0..<body.count, boundary: boundary) {
            let ct = part.headers["Content-Type"]
            if MultipartReader.isMultipart(ct) {
                guard let inner = ct.flatMap(MultipartReader.boundary(fromContentType:)) else {
                    throw BatchError("changeset without a boundary parameter", offset: part.body.lowerBound)
                }
                var requests: [BatchRequestPart] = []
                for p in try MultipartReader.split(body, part.body, boundary: inner) {
                    if MultipartReader.isMultipart(p.headers["Content-Type"]) {
                        throw BatchError("changesets cannot be nested", offset: p.body.lowerBound)
                    }
                    let r = try BatchCodec.request(body, p)
                    guard r.isModifying else {
                        throw BatchError("\(r.method) \(r.url) is not allowed inside a changeset", offset: p.body.lowerBound)
                    }
                    requests.append(r)
                }
                items.append(.changeset(requests))
            } else {
                items.append(.request(try BatchCodec.request(body, part)))
            }
        }
        return BatchRequest(items: items)
    }

    /// The multipart body and its Content-Type. `boundary` defaults to a random `batch_<hex>`;
    /// changeset boundaries are derived from it. Throws when a changeset holds a GET/HEAD
    /// or is empty.
    public func encoded(boundary: String? = nil) throws(BatchError) -> (body: [UInt8], contentType: String) {
        let b = boundary ?? BatchCodec.randomBoundary("batch")
        var out: [UInt8] = []
        var changesetNumber = 0
        for item in items {
            out += Array("--\(b)\r\n".utf8)
            switch item {
            case .request(let r):
                BatchCodec.write(r, into: &out)
            case .changeset(let rs):
                guard !rs.isEmpty else { throw BatchError("empty changeset") }
                if let bad = rs.first(where: { !$0.isModifying }) {
                    throw BatchError("\(bad.method) \(bad.url) is not allowed inside a changeset")
                }
                changesetNumber += 1
                let cs = boundary == nil ? BatchCodec.randomBoundary("changeset") : "changeset_\(changesetNumber)_\(b)"
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

    /// Content-ID references (`$id` at the start of a URL) that name no Content-ID defined by
    /// an earlier request of the batch.
    public func unresolvedContentIDReferences() -> [String] {
        var defined: Set<String> = []
        var missing: [String] = []
        for r in requests {
            if r.url.hasPrefix("$") {
                let id = String(r.url.dropFirst().prefix { $0 != "/" && $0 != "?" })
                if !id.isEmpty, !["metadata", "batch", "crossjoin", "all", "entity", "root"].contains(id), !defined.contains(id) {
                    missing.append(id)
                }
            }
            if let id = r.contentID { defined.insert(id) }
        }
        return missing
    }
}
