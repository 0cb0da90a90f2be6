import ODataProtocol

/// Local changes: CREATE, UPDATE (PUT replaces, MERGE/PATCH merge) and DELETE applied to the
/// store file and appended to the upload queue in ONE transaction (the caller's), so a change
/// the app was told about is never lost and never half-made. Local reads see it at once; the
/// row carries `@state = pending` (and the `@odatastore.pending` annotation) until uploaded.
///
/// - An entity created without its key gets a local key (negative integers, `local-N` text,
///   random GUIDs), recorded in `ods_local_keys`; later local requests may use it, and the
///   upload replaces it with the service's key everywhere.
/// - Several changes of one entity before an upload become one queued change where that is
///   equivalent: an update of an entity created offline changes nothing in the queue (the
///   create sends the row as it is then), updates not sent yet are widened, a delete removes
///   the updates before it, a delete of an entity created offline removes its create.
/// - What the defining requests do not cover is refused (`.notInScope`); what the service
///   would refuse is refused with the service's status: an unknown property (400), a missing
///   entity (404), an existing key (409), a stale If-Match (412).
///
/// Runs on the database queue.
struct LocalWrite {
    let file: StoreFile
    let scope: OfflineScope
    let serviceRoot: String

    var model: ServiceModel { file.model }
    var schema: StoreSchema { file.schema }
    var queue: ChangeQueue { ChangeQueue(connection: file.connection) }

    func execute(mode: RequestMode, path: String, body: String?, etag: String?) throws(ODataStoreError) -> Response {
        let request = try ResolvedPath.parse(path, model: model, serviceRoot: serviceRoot)
        if !request.options.isEmpty {
            throw ODataStoreError(.unsupported, "query options on a change cannot be evaluated offline (\(path))")
        }
        let resolved = try ResolvedPath.resolve(request, schema: schema)
        guard scope.covers(resolved.table) else {
            throw ODataStoreError(.notInScope, "\(resolved.table.entitySet) is not in the offline store: no defining request brought it down, so it cannot be changed offline")
        }
        do {
            return try file.connection.transaction { () throws -> Response in
                switch mode {
                case .create:
                    return try create(resolved, path: path, body: try Self.object(body))
                case .update, .updateMerge, .updatePatch:
                    return try update(resolved, path: path, body: try Self.object(body), replace: false, etag: etag)
                case .updatePut:
                    return try update(resolved, path: path, body: try Self.object(body), replace: true, etag: etag)
                case .delete:
                    return try delete(resolved, path: path, etag: etag)
                case .read, .function:
                    throw ODataStoreError(.invalidArgument, "not a change")
                }
            }
        } catch let e as ODataStoreError {
            throw e
        } catch let e as SQLiteError {
            throw e.storeError("cannot change the store")
        } catch {
            throw ODataStoreError(.error, "cannot change the store: \(error)")
        }
    }

    // MARK: - Create

    private func create(_ resolved: ResolvedPath, path: String, body: JSONObject) throws -> Response {
        guard resolved.result == .collection, !resolved.isKeyed else {
            throw ODataStoreError(.http, "a create must address an entity set or a collection navigation, not \(path)", httpStatus: 405)
        }
        // Through a navigation: the parent must exist.
        var parent: Parent? = nil
        if resolved.steps.count > 1 {
            let step = resolved.steps[resolved.steps.count - 2]
            guard let link = step.link, resolved.steps.count == 2, let key = step.key else {
                throw ODataStoreError(.unsupported, "a create through more than one navigation cannot be made offline (\(path))")
            }
            guard let row = try Self.row(step.table, key: key, connection: file.connection) else {
                throw ODataStoreError(.notFound, "\(path): the parent entity is not in the offline store", httpStatus: 404)
            }
            parent = Parent(table: step.table, rid: row.rid, link: link)
        }
        let table = resolved.table
        let (rid, keyValues) = try insert(body, table: table, path: path, parent: parent)
        let json = try Self.entityJSON(table, rid: rid, file: file, serviceRoot: serviceRoot)
        var headers: [(name: String, value: String)] = [(name: "Location", value: Self.entityURL(table, keyValues, root: serviceRoot))]
        headers.append((name: "OData-Version", value: model.version == .v2 ? "2.0" : "4.0"))
        headers.append((name: "Content-Type", value: "application/json;odata.metadata=minimal;IEEE754Compatible=true"))
        var r = Response(status: 201, headers: headers, body: Array(json.utf8), json: json, entityCount: 1)
        r.entityRanges = [0..<json.utf8.count]
        r.isLocal = true
        return r
    }

    /// The entity a create goes under (`Parent(key)/Navigation`, or a deep insert's parent).
    struct Parent {
        var table: EntityTable
        var rid: Int64
        var link: NavigationLink
    }

    /// Writes one created entity, its deep-inserted related entities and its bindings, each
    /// a row and a queued create. Related entities whose foreign key the new entity holds
    /// (a to-one with a referential constraint to the target's key) are created first and
    /// the foreign key set; the others are created after it, through the navigation (queued
    /// as creates through it, as a service would make them). Returns the row and its key.
    private func insert(_ body: JSONObject, table: EntityTable, path: String, parent: Parent?) throws -> (Int64, [SQLValue]) {
        var plain = JSONObject()
        var related: [(link: NavigationLink, entities: [JSONObject])] = []
        var values = JSONObject()
        for m in body {
            if let at = m.key.firstIndex(of: "@"), at != m.key.startIndex, m.key[at...] == "@odata.bind" {
                let name = String(m.key[..<at])
                try bind(name, m.value, table: table, into: &values)
                continue
            }
            guard !m.key.hasPrefix("@"), table.column(m.key) == nil, let link = try? schema.link(from: table, navigation: m.key).get() else {
                plain[m.key] = m.value
                continue
            }
            // V2 links an existing entity as {"__metadata": {"uri": ...}} (a deferred link).
            if case .object(let o) = m.value, o.count == 1, case .object(let meta)? = o["__metadata"], case .string(let uri)? = meta["uri"] {
                try bind(m.key, .string(uri), table: table, into: &values)
                continue
            }
            switch m.value {
            case .object(let o): related.append((link, [o]))
            case .array(let items):
                var entities: [JSONObject] = []
                for item in items {
                    guard case .object(let o) = item else {
                        throw ODataStoreError(.http, "\(m.key): a deep insert holds entities (JSON objects)", httpStatus: 400)
                    }
                    entities.append(o)
                }
                related.append((link, entities))
            case .null: continue
            default:
                throw ODataStoreError(.http, "\(m.key) is a navigation property: give an entity, an array of entities, or \(m.key)@odata.bind", httpStatus: 400)
            }
        }
        for (k, v) in try Self.properties(plain, table: table, model: model) { values[k] = v }
        // Related entities the new one points at through its own foreign key: first.
        var after: [(link: NavigationLink, entities: [JSONObject])] = []
        for r in related {
            guard let pairs = Self.foreignKeyHere(r.link) else { after.append(r); continue }
            guard r.entities.count == 1 else {
                throw ODataStoreError(.http, "\(r.link.name) is to one: a deep insert gives one entity", httpStatus: 400)
            }
            let (childRID, _) = try insert(r.entities[0], table: r.link.target, path: r.link.target.entitySet, parent: nil)
            let targetValues = try file.connection.rows(
                "SELECT " + pairs.map { $0.target.quoted }.joined(separator: ", ") + " FROM \(r.link.target.quoted) WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                [.integer(childRID)]).first ?? []
            for (pair, v) in zip(pairs, targetValues) { values[pair.source.pathText] = Self.json(v, column: pair.source) }
        }
        // The parent's key goes into the foreign key.
        if let parent, case .columns(let pairs) = parent.link.join {
            let parentValues = try file.connection.rows(
                "SELECT " + pairs.map { $0.source.quoted }.joined(separator: ", ") + " FROM \(parent.table.quoted) WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                [.integer(parent.rid)]).first ?? []
            for (pair, v) in zip(pairs, parentValues) where values[pair.target.pathText] == nil {
                values[pair.target.pathText] = Self.json(v, column: pair.target)
            }
        }
        // Keys: given, or made locally for the service to replace.
        var localKey = JSONObject()
        for c in table.keyColumns where values[c.pathText] == nil || values[c.pathText] == .null {
            let v = try Self.localKey(for: c, table: table, connection: file.connection)
            values[c.pathText] = v
            localKey[c.pathText] = v
        }
        let keyValues = try table.keyColumns.map { c throws(ODataStoreError) -> SQLValue in try Self.sqlKey(values[c.pathText], c) }
        if try Self.row(table, key: keyValues, connection: file.connection) != nil {
            throw ODataStoreError(.conflict, "\(table.entitySet) already has an entity with this key", httpStatus: 409)
        }
        let rid = try write(values, type: body["@odata.type"]?.stringValue, table: table)
        try setState(table, rid, .pending)
        if let parent, case .linkTable(let name, let reversed) = parent.link.join {
            let (mine, theirs) = reversed ? ("dst", "src") : ("src", "dst")
            try file.connection.run("INSERT OR IGNORE INTO \(SQLName.quote(name)) (\(mine), \(theirs)) VALUES (?1, ?2)",
                                    [.integer(parent.rid), .integer(rid)])
        }
        let tableID = file.tableID(table)
        if !localKey.isEmpty {
            try file.connection.run("INSERT OR REPLACE INTO ods_local_keys (tbl, rid, local_key, server_key) VALUES (?1, ?2, ?3, NULL)",
                                    [.integer(tableID), .integer(rid), .text(JSONValue.object(localKey).serialized())])
        }
        _ = try queue.append(QueuedChange(id: 0, operation: .create, table: tableID, rid: rid, path: path,
                                          parentTable: parent.map { file.tableID($0.table) }, parentRID: parent?.rid,
                                          parentNavigation: parent?.link.name, repeatabilityID: RandomUUID.make()))
        // Related entities that point at the new one: through the navigation, after it.
        for r in after {
            if !r.link.isCollection && r.entities.count != 1 {
                throw ODataStoreError(.http, "\(r.link.name) is to one: a deep insert gives one entity", httpStatus: 400)
            }
            for entity in r.entities {
                _ = try insert(entity, table: r.link.target, path: KeyPredicate.path(table, keyValues) + "/" + r.link.name,
                               parent: Parent(table: table, rid: rid, link: r.link))
            }
        }
        return (rid, keyValues)
    }

    /// The column pairs of a to-one navigation whose foreign key is in its source table (the
    /// referential constraint points at the target's key); nil otherwise.
    static func foreignKeyHere(_ link: NavigationLink) -> [(source: Column, target: Column)]? {
        guard !link.isCollection, case .columns(let pairs) = link.join, !pairs.isEmpty,
              pairs.allSatisfy({ p in link.target.keyColumns.contains { $0.pathText == p.target.pathText } }) else { return nil }
        return pairs
    }

    /// `Nav@odata.bind` (V2: a deferred link in `__metadata`) to an existing entity: sets the
    /// foreign key of a to-one navigation with a referential constraint. Other bindings need
    /// the service's link handling and are refused.
    private func bind(_ name: String, _ value: JSONValue, table: EntityTable, into values: inout JSONObject) throws {
        guard let link = try? schema.link(from: table, navigation: name).get() else {
            throw ODataStoreError(.http, "\(table.entitySet) has no navigation property \(name)", httpStatus: 400)
        }
        guard let pairs = Self.foreignKeyHere(link) else {
            throw ODataStoreError(.unsupported, "\(name)@odata.bind cannot be applied offline: \(name) has no referential constraint to the target's key (create the entity through the navigation instead)")
        }
        guard case .string(let reference) = value else {
            throw ODataStoreError(.http, "\(name)@odata.bind takes one entity's URL", httpStatus: 400)
        }
        let request = try ResolvedPath.parse(DefiningRequest.relative(reference, serviceRoot: serviceRoot), model: model, serviceRoot: serviceRoot)
        let resolved = try ResolvedPath.resolve(request, schema: schema)
        guard resolved.table === link.target, resolved.result == .entity, resolved.steps.count == 1, let key = resolved.steps[0].key else {
            throw ODataStoreError(.http, "\(name)@odata.bind: \(reference) is not an entity of \(link.target.entitySet)", httpStatus: 400)
        }
        for pair in pairs {
            guard let k = link.target.keyColumns.firstIndex(where: { $0.pathText == pair.target.pathText }) else { continue }
            values[pair.source.pathText] = Self.json(key[k], column: pair.source)
        }
    }

    // MARK: - Update

    private func update(_ resolved: ResolvedPath, path: String, body: JSONObject, replace: Bool, etag: String?) throws -> Response {
        let (table, row) = try target(resolved, path: path)
        let ifMatch = etag ?? body["@odata.etag"]?.stringValue
        try checkETag(ifMatch, row: row, path: path)
        // If-Match: * (any version) goes to the service as the app sent it, not as the version
        // the store holds: the service may have moved on since the last download.
        let queuedETag = ifMatch == "*" ? "*" : row.etag
        var values = try Self.properties(body, table: table, model: model)
        // Keys may be repeated in the body, not changed.
        let keyValues = try Self.keyValues(of: row.rid, table: table, connection: file.connection)
        for (c, k) in zip(table.keyColumns, keyValues) {
            if let given = values[c.pathText], try Self.sqlKey(given, c) != k {
                throw ODataStoreError(.http, "\(path): the key property \(c.pathText) cannot be changed", httpStatus: 400)
            }
            values[c.pathText] = Self.json(k, column: c)
        }
        var changed = Array(Set(values.keys.filter { name in !table.keyColumns.contains { $0.pathText == name } })).sorted()
        if replace {
            // PUT: every property the entity's type has; what the body leaves out becomes null.
            for c in table.columns where c.path.count == 1 && values[c.pathText] == nil { values[c.pathText] = .null }
            changed = table.columns.filter { $0.path.count == 1 && !$0.isKey }.map(\.pathText)
        }
        _ = try write(values, type: nil, table: table)
        let tableID = file.tableID(table)
        let pending = try queue.changes(table: tableID, rid: row.rid).filter { $0.firstSent == nil }
        if pending.contains(where: { $0.operation == .create }) {
            // The create is not sent yet: it sends the row as it is then.
        } else if let last = pending.last, last.operation == .merge || last.operation == .replace {
            let operation: QueuedChange.Operation = replace || last.operation == .replace ? .replace : .merge
            try queue.update(id: last.id, operation: operation,
                             properties: operation == .replace ? nil : Array(Set((last.properties ?? []) + changed)).sorted())
            if queuedETag == "*" { try queue.setETag(id: last.id, "*") }
        } else {
            _ = try queue.append(QueuedChange(id: 0, operation: replace ? .replace : .merge, table: tableID, rid: row.rid, path: path,
                                              properties: replace ? nil : changed, etag: queuedETag, repeatabilityID: RandomUUID.make()))
        }
        if row.state != .error { try setState(table, row.rid, .pending) }
        return Self.noContent(model)
    }

    // MARK: - Delete

    private func delete(_ resolved: ResolvedPath, path: String, etag: String?) throws -> Response {
        let (table, row) = try target(resolved, path: path)
        try checkETag(etag, row: row, path: path)
        let tableID = file.tableID(table)
        let queued = try queue.changes(table: tableID, rid: row.rid)
        let unsent = queued.filter { $0.firstSent == nil }
        if unsent.contains(where: { $0.operation == .create }) {
            // Created offline and never sent: the service never hears of it.
            for c in unsent { try queue.remove(id: c.id) }
            try file.connection.run("DELETE FROM ods_local_keys WHERE tbl = ?1 AND rid = ?2", [.integer(tableID), .integer(row.rid)])
        } else {
            // If-Match: * from this delete, or from an update it replaces, goes as sent.
            let queuedETag = etag == "*" || unsent.contains(where: { $0.etag == "*" }) ? "*" : row.etag
            for c in unsent where c.operation == .merge || c.operation == .replace { try queue.remove(id: c.id) }
            let key = try Self.keyValues(of: row.rid, table: table, connection: file.connection)
            var o = JSONObject()
            for (c, k) in zip(table.keyColumns, key) { o[c.pathText] = Self.json(k, column: c) }
            _ = try queue.append(QueuedChange(id: 0, operation: .delete, table: tableID, rid: row.rid, path: path,
                                              entityKey: JSONValue.object(o).serialized(), etag: queuedETag,
                                              repeatabilityID: RandomUUID.make()))
        }
        try Self.removeRow(table, rid: row.rid, file: file)
        return Self.noContent(model)
    }

    // MARK: - Pieces

    struct Row {
        var rid: Int64
        var etag: String?
        var state: RowState
    }

    /// The one entity an update or delete addresses.
    private func target(_ resolved: ResolvedPath, path: String) throws -> (EntityTable, Row) {
        guard resolved.result == .entity, resolved.steps.count == 1, let key = resolved.steps[0].key else {
            throw ODataStoreError(.unsupported, "an offline change must address an entity by its key (Set(key)), not \(path)")
        }
        guard let row = try Self.row(resolved.table, key: key, connection: file.connection) else {
            throw ODataStoreError(.notFound, "\(path) is not in the offline store (not found)", httpStatus: 404)
        }
        return (resolved.table, row)
    }

    private func checkETag(_ etag: String?, row: Row, path: String) throws(ODataStoreError) {
        guard let etag, etag != "*" else { return }
        if etag != row.etag {
            throw ODataStoreError(.conflict, "\(path): the entity has changed (If-Match \(etag) does not match \(row.etag ?? "none"))",
                                  httpStatus: 412)
        }
    }

    /// Upserts the entity `values` (canonical JSON members by property name) and returns its row.
    private func write(_ values: JSONObject, type: String?, table: EntityTable) throws -> Int64 {
        var o = values
        if let type { o["@odata.type"] = .string(type) }
        let writer = EntityWriter(file: file, requestID: 0)
        _ = try writer.writePage(JSONValue.object(o).serialized(), table: table, expand: .none, isCollection: false)
        guard let rid = writer.lastRowID else { throw ODataStoreError(.error, "the entity was not written") }
        return rid
    }

    private func setState(_ table: EntityTable, _ rid: Int64, _ state: RowState) throws(SQLiteError) {
        try file.connection.run("UPDATE \(table.quoted) SET \(SQLName.quote(EntityTable.stateColumn)) = ?2 WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1",
                                [.integer(rid), .integer(state.rawValue)])
    }

    static func noContent(_ model: ServiceModel) -> Response {
        var r = Response(status: 204, headers: [(name: "OData-Version", value: model.version == .v2 ? "2.0" : "4.0")])
        r.isLocal = true
        return r
    }

    static func object(_ body: String?) throws(ODataStoreError) -> JSONObject {
        guard let body else { throw ODataStoreError(.invalidArgument, "this change needs an entity body") }
        guard case .object(let o)? = try? JSONValue.parse(body) else {
            throw ODataStoreError(.invalidArgument, "the body must be a JSON object (an entity)")
        }
        return o
    }

    /// The body's properties by path, checked against the table: unknown members and values
    /// of the wrong kind are the 400 the service would answer. Control information is dropped;
    /// `Nav@odata.bind` to one entity sets the foreign key of a referential constraint.
    static func properties(_ body: JSONObject, table: EntityTable, model: ServiceModel) throws(ODataStoreError) -> JSONObject {
        var out = JSONObject()
        for m in body {
            if m.key.hasPrefix("@") { continue }
            if let at = m.key.firstIndex(of: "@") {
                let name = String(m.key[..<at])
                let annotation = m.key[at...]
                guard annotation == "@odata.bind" else { continue }
                throw ODataStoreError(.unsupported, "\(name)@odata.bind cannot be applied offline yet: set the foreign key property instead")
            }
            guard let column = table.column(m.key) else {
                if let t = model.structuredType(table.entityType), model.navigationProperty(m.key, of: t) != nil {
                    throw ODataStoreError(.unsupported, "a deep insert or update (\(m.key)) cannot be made offline yet")
                }
                throw ODataStoreError(.http, "\(table.entitySet) has no property \(m.key)", httpStatus: 400)
            }
            try check(m.value, column, table: table)
            out[m.key] = m.value
        }
        return out
    }

    /// A value fits its column (what the service would accept): its Edm type's values and
    /// the facets the property states (`PrimitiveValueCheck`).
    static func check(_ v: JSONValue, _ c: Column, table: EntityTable) throws(ODataStoreError) {
        func bad() -> ODataStoreError {
            ODataStoreError(.http, "\(c.pathText) of \(table.entitySet) is \(c.typeName); \(v.serialized().prefix(40)) does not fit", httpStatus: 400)
        }
        if v == .null {
            if !c.nullable && c.kind != .presence { throw ODataStoreError(.http, "\(c.pathText) of \(table.entitySet) cannot be null", httpStatus: 400) }
            return
        }
        if let edm = c.edm, !c.isCollection, let why = PrimitiveValueCheck.problem(v, kind: edm, facets: c.facets) {
            throw ODataStoreError(.http, "\(c.pathText) of \(table.entitySet) is \(c.typeName); \(v.serialized().prefix(40)) is \(why)", httpStatus: 400)
        }
        switch c.kind {
        case .integer:
            switch v {
            case .number(let n): guard Int64(n) != nil else { throw bad() }
            case .string(let s): guard c.edm == .int64, Int64(s) != nil else { throw bad() }
            default: throw bad()
            }
        case .boolean: guard case .bool = v else { throw bad() }
        case .real:
            switch v {
            case .number: break
            case .string(let s): guard ["NaN", "INF", "-INF"].contains(s) else { throw bad() }
            default: throw bad()
            }
        case .decimal:
            switch v {
            case .number: break
            case .string(let s):
                var t = s
                guard t.withUTF8({ OrderedText.decimalParts($0) }) != nil else { throw bad() }
            default: throw bad()
            }
        case .instant, .duration, .text:
            guard case .string = v else { throw bad() }
        case .json:
            break
        case .presence:
            guard case .object(let o) = v else { throw bad() }
            for m in o where !m.key.hasPrefix("@") {
                guard let member = table.column(c.pathText + "/" + m.key) else {
                    throw ODataStoreError(.http, "\(c.pathText) has no property \(m.key)", httpStatus: 400)
                }
                try check(m.value, member, table: table)
            }
        }
    }

    /// The row with these key values.
    static func row(_ table: EntityTable, key: [SQLValue], connection c: SQLiteConnection) throws(SQLiteError) -> Row? {
        let sql = "SELECT \(SQLName.quote(EntityTable.ridColumn)), \(SQLName.quote(EntityTable.etagColumn)), \(SQLName.quote(EntityTable.stateColumn)) FROM \(table.quoted) WHERE "
            + table.keyColumns.enumerated().map { "\($0.element.quoted) = ?\($0.offset + 1)" }.joined(separator: " AND ")
        guard let r = try c.rows(sql, key).first, case .integer(let rid) = r[0] else { return nil }
        var etag: String? = nil
        if case .text(let e) = r[1] { etag = e }
        var state = RowState.synced
        if case .integer(let s) = r[2] { state = RowState(rawValue: s) ?? .synced }
        return Row(rid: rid, etag: etag, state: state)
    }

    /// The key column values of a row, in key order.
    static func keyValues(of rid: Int64, table: EntityTable, connection c: SQLiteConnection) throws(SQLiteError) -> [SQLValue] {
        let sql = "SELECT " + table.keyColumns.map(\.quoted).joined(separator: ", ") + " FROM \(table.quoted) WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1"
        return try c.rows(sql, [.integer(rid)]).first ?? []
    }

    /// A canonical JSON value as the SQL value its key column stores.
    static func sqlKey(_ v: JSONValue?, _ c: Column) throws(ODataStoreError) -> SQLValue {
        switch v {
        case .number(let n)?:
            if c.kind == .integer, let i = Int64(n) { return .integer(i) }
            return .text(n)
        case .string(let s)?:
            if c.kind == .integer, let i = Int64(s) { return .integer(i) }
            return .text(s)
        case .bool(let b)?: return .integer(b ? 1 : 0)
        default: throw ODataStoreError(.http, "the key property \(c.pathText) is missing or null", httpStatus: 400)
        }
    }

    /// A stored value as canonical JSON (Int64 and Decimal as strings).
    static func json(_ v: SQLValue, column c: Column) -> JSONValue {
        switch v {
        case .null: return .null
        case .integer(let i):
            if c.kind == .boolean { return .bool(i != 0) }
            return c.edm == .int64 ? .string(String(i)) : .number(String(i))
        case .real(let d): return .number(String(d))
        case .text(let t): return .string(t)
        case .blob: return .null
        }
    }

    /// A key for an entity the service will key: below every integer key in the table (so
    /// never one the service gives out), `local-N` text, or a random GUID.
    static func localKey(for c: Column, table: EntityTable, connection: SQLiteConnection) throws -> JSONValue {
        switch c.kind {
        case .integer:
            let v = try connection.scalar("SELECT min(coalesce(min(\(c.quoted)), 0), 0) - 1 FROM \(table.quoted)")
            guard case .integer(let n)? = v else { return .number("-1") }
            return c.edm == .int64 ? .string(String(n)) : .number(String(n))
        case .text where c.edm == .guid:
            return .string(RandomUUID.make())
        case .text:
            // Numbered after the table's last row (the row about to be written), not by
            // counting the local keys: that read them all for every create.
            let rid = SQLName.quote(EntityTable.ridColumn)
            guard case .integer(let n)? = try connection.scalar("SELECT coalesce(max(\(rid)), 0) + 1 FROM \(table.quoted)") else {
                return .string("local-1-" + RandomUUID.make().prefix(8))
            }
            return .string("local-\(n)-" + RandomUUID.make().prefix(8))
        default:
            throw ODataStoreError(.http, "\(table.entitySet) needs its key property \(c.pathText): the offline store cannot make a local \(c.typeName) key",
                                  httpStatus: 400)
        }
    }

    /// Removes a row with its links and memberships.
    static func removeRow(_ table: EntityTable, rid: Int64, file: StoreFile) throws(SQLiteError) {
        let c = file.connection
        try c.run("DELETE FROM \(table.quoted) WHERE \(SQLName.quote(EntityTable.ridColumn)) = ?1", [.integer(rid)])
        try c.run("DELETE FROM ods_members WHERE tbl = ?1 AND rid = ?2", [.integer(file.tableID(table)), .integer(rid)])
        for (link, column) in file.schema.linkSides(of: table) {
            try c.run("DELETE FROM \(SQLName.quote(link)) WHERE \(column) = ?1", [.integer(rid)])
        }
    }

    /// The entity of a row as canonical JSON.
    static func entityJSON(_ table: EntityTable, rid: Int64, file: StoreFile, serviceRoot: String) throws(SQLiteError) -> String {
        let s = try file.rowStatement(table)
        defer { s.reset() }
        try s.bind(.integer(rid), at: 1)
        guard try s.step() else { return "" }
        var out: [UInt8] = []
        _ = EntityJSON(table: table, model: file.model, select: nil, serviceRoot: serviceRoot).writeOpen(s, into: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// `<root><Set>(<key>)` in the service's key literal syntax.
    static func entityURL(_ table: EntityTable, _ key: [SQLValue], root: String) -> String {
        let r = root.hasSuffix("/") ? root : root + "/"
        return RequestURL.encode(r + KeyPredicate.path(table, key))
    }
}

/// `Set(key)` paths for stored key values: `Products(7)`, `Customers('O''NEIL')`,
/// `OrderLines(OrderID=1000,LineNo=2)`, V2 literal forms for Int64 (`7L`), GUIDs, DateTime.
enum KeyPredicate {
    static func path(_ table: EntityTable, _ key: [SQLValue], version: ODataVersion? = nil) -> String {
        var parts: [String] = []
        for (i, (name, column)) in zip(table.keyNames, table.keyColumns).enumerated() {
            let v = i < key.count ? key[i] : .null
            var literal: String
            switch v {
            case .integer(let n): literal = String(n) + (column.edm == .int64 && version == .v2 ? "L" : "")
            case .text(let t):
                switch column.edm {
                case .guid?: literal = version == .v2 ? "guid'\(t)'" : t
                case .dateTime?:
                    var s = t
                    if s.hasSuffix("Z") { s.removeLast() }
                    literal = "datetime'\(s)'"
                case .decimal?: literal = t + (version == .v2 ? "M" : "")
                case .dateTimeOffset?, .date?, .timeOfDay?, .duration?:
                    literal = version == .v2 ? "datetimeoffset'\(t)'" : t
                default: literal = "'" + t.replacingAll("'", with: "''") + "'"
                }
            default: literal = "null"
            }
            parts.append(table.keyColumns.count == 1 ? literal : "\(name)=\(literal)")
        }
        return table.entitySet + "(" + parts.joined(separator: ",") + ")"
    }
}
