/// The OData 4.01 JSON batch format (`{"requests": [...]}` / `{"responses": [...]}`), mapped onto
/// the same `BatchRequest`/`BatchResponse` values as multipart batches. An atomicity group is a
/// changeset; `id` is the Content-ID; a request whose URL starts with `$id` depends on `id`.
/// Bodies: JSON media types are embedded as JSON values, `text/*` as strings, anything else as
/// base64url strings.
extension BatchRequest {
    public static let jsonContentType = "application/json"

    public func encodedJSON() throws(BatchError) -> (body: [UInt8], contentType: String) {
        var requests: [JSONValue] = []
        var n = 0
        var group = 0
        var ids: Set<String> = []
        func entry(_ r: BatchRequestPart, atomicityGroup: String?) throws(BatchError) -> JSONValue {
            n += 1
            let id = r.contentID ?? "r\(n)"
            var o = JSONObject()
            o["id"] = .string(id)
            if let atomicityGroup { o["atomicityGroup"] = .string(atomicityGroup) }
            if r.url.hasPrefix("$") {
                let ref = String(r.url.dropFirst().prefix { $0 != "/" && $0 != "?" })
                if ids.contains(ref) { o["dependsOn"] = .array([.string(ref)]) }
            }
            ids.insert(id)
            o["method"] = .string(r.method)
            o["url"] = .string(r.url)
            var headers = JSONObject()
            for h in r.headers where h.name.lowercased() != "content-length" { headers[h.name.lowercased()] = .string(h.value) }
            if !headers.isEmpty { o["headers"] = .object(headers) }
            if !r.body.isEmpty { o["body"] = try JSONBatchBody.encode(r.body, contentType: r.headers["Content-Type"]) }
            return .object(o)
        }
        for item in items {
            switch item {
            case .request(let r): requests.append(try entry(r, atomicityGroup: nil))
            case .changeset(let rs):
                guard !rs.isEmpty else { throw BatchError("empty changeset") }
                group += 1
                for r in rs {
                    guard r.isModifying else { throw BatchError("\(r.method) \(r.url) is not allowed inside a changeset") }
                    requests.append(try entry(r, atomicityGroup: "g\(group)"))
                }
            }
        }
        var out: [UInt8] = []
        JSONValue.object(JSONObject([("requests", .array(requests))])).write(into: &out)
        return (out, Self.jsonContentType)
    }

    /// Parses a JSON batch request body.
    public static func parseJSON(_ body: [UInt8]) throws(BatchError) -> BatchRequest {
        let entries = try JSONBatchBody.entries(body, member: "requests")
        var items: [BatchRequestItem] = []
        for (group, objects) in entries {
            var parts: [BatchRequestPart] = []
            for o in objects {
                guard let method = o["method"]?.stringValue, let url = o["url"]?.stringValue else {
                    throw BatchError("a JSON batch request needs \"method\" and \"url\"")
                }
                let headers = JSONBatchBody.headers(o["headers"])
                parts.append(BatchRequestPart(method: method.uppercased(), url: url, headers: headers,
                                              body: try JSONBatchBody.decode(o["body"], contentType: headers["Content-Type"]),
                                              contentID: o["id"]?.stringValue))
            }
            if group != nil {
                if let bad = parts.first(where: { !$0.isModifying }) {
                    throw BatchError("\(bad.method) \(bad.url) is not allowed inside an atomicity group")
                }
                items.append(.changeset(parts))
            } else {
                items += parts.map { .request($0) }
            }
        }
        return BatchRequest(items: items)
    }
}

extension BatchResponse {
    /// Parses a JSON batch response body (`{"responses": [...]}`); consecutive responses with the
    /// same `atomicityGroup` form one changeset.
    public static func parseJSON(_ body: [UInt8]) throws(BatchError) -> BatchResponse {
        var items: [BatchResponseItem] = []
        for (group, objects) in try JSONBatchBody.entries(body, member: "responses") {
            var parts: [BatchResponsePart] = []
            for o in objects {
                guard let status = o["status"]?.int64Value, (100...599).contains(status) else {
                    throw BatchError("a JSON batch response needs a numeric \"status\"")
                }
                let headers = JSONBatchBody.headers(o["headers"])
                parts.append(BatchResponsePart(status: Int(status), headers: headers,
                                               body: try JSONBatchBody.decode(o["body"], contentType: headers["Content-Type"]),
                                               contentID: o["id"]?.stringValue))
            }
            if group != nil { items.append(.changeset(parts)) } else { items += parts.map { .response($0) } }
        }
        return BatchResponse(items: items)
    }

    /// The JSON batch form of this response.
    public func encodedJSON() throws(BatchError) -> (body: [UInt8], contentType: String) {
        var responses: [JSONValue] = []
        var group = 0
        var n = 0
        for item in items {
            let (rs, g): ([BatchResponsePart], String?)
            switch item {
            case .response(let r): (rs, g) = ([r], nil)
            case .changeset(let c): group += 1; (rs, g) = (c, "g\(group)")
            }
            for r in rs {
                n += 1
                var o = JSONObject()
                o["id"] = .string(r.contentID ?? "r\(n)")
                if let g { o["atomicityGroup"] = .string(g) }
                o["status"] = .number(String(r.status))
                var headers = JSONObject()
                for h in r.headers where h.name.lowercased() != "content-length" { headers[h.name.lowercased()] = .string(h.value) }
                if !headers.isEmpty { o["headers"] = .object(headers) }
                if !r.body.isEmpty { o["body"] = try JSONBatchBody.encode(r.body, contentType: r.headers["Content-Type"]) }
                responses.append(.object(o))
            }
        }
        var out: [UInt8] = []
        JSONValue.object(JSONObject([("responses", .array(responses))])).write(into: &out)
        return (out, BatchRequest.jsonContentType)
    }
}

enum JSONBatchBody {
    /// Entries of `member`, grouped: runs of the same atomicity group (nil = no group).
    static func entries(_ body: [UInt8], member: String) throws(BatchError) -> [(String?, [JSONObject])] {
        let root: JSONValue
        do { root = try JSONValue.parse(body) } catch { throw BatchError("JSON batch: \(error.message)", offset: error.offset) }
        guard let list = root[member]?.arrayValue else { throw BatchError("a JSON batch body needs a \"\(member)\" array") }
        var groups: [(String?, [JSONObject])] = []
        for v in list {
            guard let o = v.objectValue else { throw BatchError("\"\(member)\" must hold objects") }
            let g = o["atomicityGroup"]?.stringValue
            if let g, let last = groups.last, last.0 == g {
                groups[groups.count - 1].1.append(o)
            } else {
                groups.append((g, [o]))
            }
        }
        return groups
    }

    static func headers(_ v: JSONValue?) -> BatchHeaders {
        var h = BatchHeaders()
        for m in v?.objectValue ?? JSONObject() {
            if let s = m.value.stringValue { h.add(m.key, s) }
        }
        return h
    }

    static func isJSON(_ ct: String?) -> Bool { ct.map { MediaType.essence($0).hasSuffix("json") } ?? false }
    static func isText(_ ct: String?) -> Bool { ct.map { MediaType.essence($0).hasPrefix("text/") } ?? false }

    static func encode(_ body: [UInt8], contentType: String?) throws(BatchError) -> JSONValue {
        if isJSON(contentType) || contentType == nil {
            if let v = try? JSONValue.parse(body) { return v }
            if isJSON(contentType) { throw BatchError("a part declared as JSON has a body that is not JSON") }
        }
        if isText(contentType) || contentType == nil { return .string(String(decoding: body, as: UTF8.self)) }
        return .string(EdmLiteral.base64url(Base64.encode(body)))
    }

    static func decode(_ v: JSONValue?, contentType: String?) throws(BatchError) -> [UInt8] {
        guard let v, !v.isNull || isJSON(contentType) else { return [] }
        if isJSON(contentType) || !(v.stringValue != nil) {
            var out: [UInt8] = []
            v.write(into: &out)
            return out
        }
        let s = v.stringValue ?? ""
        if isText(contentType) || contentType == nil { return Array(s.utf8) }
        guard let bytes = Base64.decode(EdmLiteral.standardBase64(s) ?? "", .standardPadded) else {
            throw BatchError("a binary JSON batch body must be base64url")
        }
        return bytes
    }
}
