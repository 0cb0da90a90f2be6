// Readable `print(...)` output for the library's values: what a developer wants to see in a
// log or a debugger, never a dump of internal storage.

extension Response: CustomStringConvertible, CustomDebugStringConvertible {
    /// `Response(200, 3 entities, count 300, next page, 1.2 KiB)`.
    public var description: String {
        var parts = ["\(status)"]
        if isLocal { parts.append("local") }
        if entityCount > 0 || !json.isEmpty { parts.append("\(entityCount) entit\(entityCount == 1 ? "y" : "ies")") }
        if let count { parts.append("count \(count)") }
        if let etag { parts.append("ETag \(etag)") }
        if nextLink != nil { parts.append("next page") }
        if deltaLink != nil { parts.append("delta link") }
        let size = json.utf8.count
        parts.append(size < 1024 ? "\(size) bytes" : "\(size / 1024).\(size % 1024 * 10 / 1024) KiB")
        return "Response(" + parts.joined(separator: ", ") + ")"
    }

    /// The description and the start of the JSON.
    public var debugDescription: String {
        let head = json.count > 300 ? String(json.prefix(300)) + "…" : json
        return description + " " + head
    }
}

extension Response {
    /// Decodes the canonical JSON (`[Product].self` for a collection, `Product.self` for an
    /// entity, `Int64.self` for a value). For `ODataEntity`/`ODataValue` typed by the model,
    /// use `store.read(_:from:)` or `store.decode(_:from:path:)`.
    public func decode<T: Decodable>(_ type: T.Type) throws(ODataStoreError) -> T {
        try ODataDecoder().decode(T.self, from: try ODataDecoder.parse(json), resultType: .unknown)
    }

    /// The canonical JSON as UTF-8 bytes.
    public var jsonBytes: [UInt8] { Array(json.utf8) }

    /// The entities, typed by the JSON alone (see `store.read(ODataEntity.self, ...)` for
    /// typing by the model).
    public func entities() throws(ODataStoreError) -> [ODataEntity] {
        let root = try ODataDecoder.parse(json)
        if let items = DecodingContext.wrapped(root)?.arrayValue {
            return items.compactMap { if case .object(let o) = $0 { ValueTyping.entity(o, typeName: nil, model: nil) } else { nil } }
        }
        if case .object(let o) = root { return [ValueTyping.entity(o, typeName: nil, model: nil)] }
        return []
    }
}

extension ODataStoreError {
    /// `not found (HTTP 404, ResourceNotFound): Products(999): No entity with that key`:
    /// what went wrong, the HTTP status and the service's code, then the message.
    var summaryText: String {
        var context: [String] = []
        if httpStatus != 0 { context.append("HTTP \(httpStatus)") }
        if let odataCode, !odataCode.isEmpty { context.append(odataCode) }
        if position >= 0 { context.append("at position \(position)") }
        let kind = String(describing: code.text)
        return kind + (context.isEmpty ? "" : " (" + context.joined(separator: ", ") + ")") + ": " + message
    }
}

extension StoreState: CustomStringConvertible {
    public var description: String {
        switch self {
        case .opening: "opening"
        case .open: "open"
        case .closing: "closing"
        case .closed: "closed"
        case .failed: "failed"
        }
    }
}

extension RequestMode: CustomStringConvertible {
    public var description: String {
        switch self {
        case .read: "read"
        case .create: "create"
        case .update: "update"
        case .updatePut: "updatePut"
        case .updateMerge: "updateMerge"
        case .updatePatch: "updatePatch"
        case .delete: "delete"
        case .function: "function"
        }
    }
}

extension DownloadProgress: CustomStringConvertible {
    /// `[1/3] Products: 120/300 entities, 48 KiB`.
    public var description: String {
        var out = "[\(requestIndex + 1)/\(requestCount)] \(definingRequest): \(entities)"
        if let expectedEntities { out += "/\(expectedEntities)" }
        out += " entities, \(bytes / 1024) KiB"
        if requestFinished { out += ", done" }
        return out
    }
}

extension Store: CustomStringConvertible {
    /// `Store(online, http://host/odata/, V4, open)`.
    public var description: String {
        var parts = ["\(options.kind)", options.serviceRoot]
        if let v = odataVersion { parts.append(v == .v2 ? "V2" : "V4") }
        if let path = options.storePath, options.kind != .online { parts.append(path) }
        parts.append("\(state)")
        return "Store(" + parts.joined(separator: ", ") + ")"
    }
}

extension StoreKind: CustomStringConvertible {
    public var description: String {
        switch self {
        case .online: "online"
        case .offline: "offline"
        case .mixed: "mixed"
        }
    }
}
