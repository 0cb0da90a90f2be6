/// A queued change as the HTTP request that sends it: the same request whether it goes on its
/// own or as a part of a `$batch` changeset (where a Content-ID reference, `$1`, may stand for
/// an entity created earlier in the same changeset).
struct ChangeRequest: Sendable {
    var change: QueuedChange
    var table: EntityTable
    var method: String
    /// Relative to the service root: `Products`, `Products(7)`, `Categories(3)/Products`, or
    /// in a changeset `$1`, `$1/Products`.
    var path: String
    /// The change's own headers: Accept, Content-Type, If-Match, Prefer,
    /// Repeatability-Request-ID and Repeatability-First-Sent.
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The entity sent, in the canonical JSON shape (kept in the error archive, compared on a
    /// read-back).
    var entity: JSONObject?
    /// A create that leaves the key out for the service to give (the row has a local key).
    var localKey: Bool
    /// Sent before (its answer never came): the same Repeatability-Request-ID again.
    var repeated: Bool
    /// Its Content-ID inside a `$batch`.
    var contentID: String?
    /// Repeatability-First-Sent: the first attempt's time.
    var firstSent: String

    var what: String { "\(method) \(path)" }
    var bodyText: String? { entity.map { JSONValue.object($0).serialized() } }
    var rowKey: UploadRowKey { UploadRowKey(table: change.table, rid: change.rid) }
}

/// A row of the store file, by table id and `@rid`.
struct UploadRowKey: Hashable, Sendable {
    var table: Int64
    var rid: Int64
}

/// Builds the request of a queued change from its row as it is now (keys the service gave
/// earlier creates are in place). Database thread only.
struct ChangeRequestBuilder {
    let file: StoreFile
    let version: ODataVersion
    let model: ServiceModel?
    let serviceRoot: String
    /// The model's flattened types, shared by every request of the store.
    var schema: PayloadSchema? = nil

    /// How the request names an entity created earlier in the same changeset.
    enum Reference {
        case none
        /// The change's own entity: its URL is `$<id>` (its key is the service's to give).
        case entity(String)
        /// A create under that entity: `$<id>/<navigation>`.
        case parent(String)
    }

    /// - Parameters:
    ///   - createdInChangeset: the entity's create goes in the same changeset, just before:
    ///     a change of it that has no ETag (the entity had none when the app changed it)
    ///     sends `If-Match: *`, which within the atomic changeset can only match the entity
    ///     that create made.
    ///   - unsent: foreign key properties left out of the body: they name an entity created
    ///     in the same changeset whose key the service gives (the navigation in the URL, or a
    ///     bind, relates the two instead).
    ///   - binds: `Navigation@odata.bind` members to add, with their Content-ID reference (V4).
    func build(_ change: QueuedChange, table: EntityTable, localKey: Bool, firstSent: String,
               reference: Reference = .none, createdInChangeset: Bool = false,
               unsent: Set<String> = [], binds: [(navigation: String, contentID: String)] = []) throws(ODataStoreError) -> ChangeRequest {
        var path: String
        var method: String
        var entity: JSONObject? = nil
        switch change.operation {
        case .delete:
            guard let keyText = change.entityKey, case .object(let key)? = try? JSONValue.parse(keyText) else {
                throw ODataStoreError(.error, "queued delete \(change.id) has no key")
            }
            let values = table.keyColumns.map { c -> SQLValue in (try? LocalWrite.sqlKey(key[c.pathText], c)) ?? .null }
            path = KeyPredicate.path(table, values, version: version)
            method = "DELETE"
        case .create, .merge, .replace:
            let json = try sql { () throws(SQLiteError) in try LocalWrite.entityJSON(table, rid: change.rid, file: file, serviceRoot: serviceRoot) }
            guard case .object(let row)? = try? JSONValue.parse(json) else {
                throw ODataStoreError(.error, "queued change \(change.id): its entity is no longer in the store")
            }
            var body = JSONObject()
            let properties = change.operation == .merge ? change.properties.map(Set.init) : nil
            for m in row where !m.key.hasPrefix("@") {
                if change.operation == .create, localKey, table.keyColumns.contains(where: { $0.pathText == m.key }) { continue }
                if change.operation == .create, m.value == .null { continue }
                if let properties, !properties.contains(m.key) { continue }
                if unsent.contains(m.key) { continue }
                body[m.key] = m.value
            }
            for b in binds { body[b.navigation + "@odata.bind"] = .string("$" + b.contentID) }
            if let type = row["@odata.type"] { body["@odata.type"] = type }
            entity = body
            if change.operation == .create {
                path = table.entitySet
                if let parentTable = change.parentTable, let parentRID = change.parentRID, let nav = change.parentNavigation,
                   let parent = file.table(id: parentTable) {
                    let key = try sql { () throws(SQLiteError) in try LocalWrite.keyValues(of: parentRID, table: parent, connection: file.connection) }
                    path = KeyPredicate.path(parent, key, version: version) + "/" + nav
                }
                method = "POST"
            } else {
                let key = try sql { () throws(SQLiteError) in try LocalWrite.keyValues(of: change.rid, table: table, connection: file.connection) }
                path = KeyPredicate.path(table, key, version: version)
                method = change.operation == .replace ? "PUT" : (version == .v2 ? "MERGE" : "PATCH")
            }
        }
        switch reference {
        case .none: break
        case .entity(let id): path = "$" + id
        case .parent(let id): path = "$" + id + "/" + (change.parentNavigation ?? "")
        }

        var headers: [(name: String, value: String)] = [("Accept", ProtocolHeaders.accept(version))]
        var body: [UInt8] = []
        if let entity {
            do {
                let encoded = try PayloadEncoder.encodeEntity(JSONValue.object(entity), version: version, model: model,
                                                              entitySet: table.entitySet, schema: schema)
                body = encoded.body
                headers.append(("Content-Type", encoded.contentType))
            } catch {
                throw ODataStoreError(.invalidArgument, "queued change \(change.id) cannot be sent: \(error)")
            }
        }
        if change.operation != .create {
            if let etag = OnlineExchange.usableETag(change.etag) {
                headers.append(("If-Match", etag))
            } else if createdInChangeset {
                headers.append(("If-Match", "*"))
            }
        } else {
            headers.append(("Prefer", "return=representation"))
        }
        headers.append(("Repeatability-Request-ID", change.repeatabilityID))
        headers.append(("Repeatability-First-Sent", firstSent))
        return ChangeRequest(change: change, table: table, method: method, path: path, headers: headers, body: body,
                             entity: entity, localKey: localKey, repeated: change.firstSent != nil, contentID: nil,
                             firstSent: firstSent)
    }

    private func sql<T>(_ body: () throws(SQLiteError) -> T) throws(ODataStoreError) -> T {
        do { return try body() } catch { throw error.storeError("cannot read the store during the upload") }
    }
}

/// What the service's answer to one change means for it.
enum ChangeAnswer: Sendable {
    /// Done: the change leaves the queue with this answer.
    case confirmed(Response)
    /// Refused (4xx): the change goes to the error archive (after a read-back, for a repeat).
    case refused(ODataStoreError)
    /// Not acted on, try later (429, 503, 408): `Retry-After` as the service sent it.
    case deferred(ODataStoreError, retryAfter: String?)
    /// Not acted on, and trying again now would not help (the service could not be reached,
    /// or refused the credentials): the upload stops, the change stays queued as it was.
    case notDone(ODataStoreError)
    /// No answer, or one that does not say (a broken connection, a 5xx, an unreadable body):
    /// it may have happened. The upload stops; the change stays queued and is sent again with
    /// the same Repeatability-Request-ID (or, a create the service keys, archived as uncertain).
    case unknown(ODataStoreError)

    var error: ODataStoreError? {
        switch self {
        case .confirmed: nil
        case .refused(let e), .deferred(let e, _), .notDone(let e), .unknown(let e): e
        }
    }

    /// The answer to `request` in an HTTP response (of its own, or a part of a `$batch` one).
    static func from(status: Int, headerFields: HTTPHeaderFields, body: [UInt8], request: ChangeRequest,
                     service: ServiceSession.ServiceState, maxErrorText: Int) -> ChangeAnswer {
        let raw = HTTPResponse(status: status, headerFields: headerFields, body: body)
        guard (200..<300).contains(status) else {
            let error = ResponseErrors.error(for: raw, what: request.what, maxText: maxErrorText)
            switch status {
            case 408, 429, 503: return .deferred(error, retryAfter: raw.header("Retry-After"))
            case 401: return .notDone(error)
            case 400..<500: return .refused(error)
            default: return .unknown(error)
            }
        }
        var response = Response(raw: raw)
        response.etag = OnlineExchange.usableETag(raw.header("ETag"))
        guard !body.isEmpty, status != 204 else { return .confirmed(response) }
        let contentType = raw.header("Content-Type") ?? ""
        guard ASCIIMatch.contains(contentType, lowercased: "json") || ASCIIMatch.contains(contentType, lowercased: "xml") else {
            return .unknown(ODataStoreError(.protocol, "\(request.what): HTTP \(status) with a body that is not OData (Content-Type \"\(ResponseErrors.printable(contentType, limit: 100))\")",
                                            httpStatus: status))
        }
        do {
            let payload = try PayloadDecoder.decode(body, contentType: contentType, version: service.version ?? .v4, model: service.model,
                                                    entitySet: request.table.entitySet, schema: service.schema)
            response.json = payload.json
            response.etag = OnlineExchange.usableETag(payload.etag ?? raw.header("ETag"))
            response.entityCount = payload.entityCount
            return .confirmed(response)
        } catch {
            return .unknown(ODataStoreError(.protocol, "\(request.what): the answer (HTTP \(status)) is not valid OData: \(error)", httpStatus: status))
        }
    }

    static func from(_ error: HTTPTransportError, request what: String) -> ChangeAnswer {
        let e = ResponseErrors.error(for: error, what: what)
        if case .unreachable = error { return .notDone(e) }
        return .unknown(e)
    }
}

/// Compares what a change sent with the entity the service has now: the read-back check of a
/// change sent again whose first attempt may have worked (a create refused with a 4xx, an update
/// answered 412). Numbers compare by value (`2.5` and `"2.50"`); anything else exactly.
enum ReadBack {
    static func matches(sent: JSONObject, server: JSONObject) -> Bool {
        for m in sent where !m.key.contains("@") {
            guard let theirs = server[m.key], same(m.value, theirs) else { return false }
        }
        return true
    }

    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if a == b { return true }
        if let x = number(a), let y = number(b) { return x == y }
        if case .object(let x) = a, case .object(let y) = b { return matches(sent: x, server: y) }
        return false
    }

    /// A number's digits without sign noise, leading zeros or trailing fraction zeros.
    static func number(_ v: JSONValue) -> String? {
        let text: String
        switch v {
        case .number(let n): text = n
        case .string(let s): text = s
        default: return nil
        }
        var s = Substring(text)
        var negative = false
        if s.first == "-" { negative = true; s = s.dropFirst() } else if s.first == "+" { s = s.dropFirst() }
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), s.filter({ $0 == "." }).count <= 1 else { return nil }
        var whole = s.prefix { $0 != "." }
        var fraction = s.contains(".") ? s.drop { $0 != "." }.dropFirst() : ""
        while whole.first == "0" { whole = whole.dropFirst() }
        while fraction.last == "0" { fraction = fraction.dropLast() }
        let digits = (whole.isEmpty ? "0" : String(whole)) + (fraction.isEmpty ? "" : "." + fraction)
        return (negative && digits != "0" ? "-" : "") + digits
    }
}
