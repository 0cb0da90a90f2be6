import ODataProtocol
/// Answers READ requests from the store file, in the canonical JSON shape, as the service
/// would answer them on the same data: the resource path resolved to a table and a chain of
/// parent rows, `$filter` and `$orderby` translated to SQL (`FilterSQL`), ties broken by key,
/// `$top`/`$skip`/`$count`, `$select`, `$expand` (nested options, any depth), and paging of
/// large results when the request asks for it (`Prefer: odata.maxpagesize=N`).
///
/// Scope: only what the defining requests brought down is visible. Reading a set (or a
/// navigation) no defining request covers fails with `.notInScope`; an entity that was not
/// brought down is a 404 (`.notFound`), as the service answers for an entity that does not exist.
///
/// Runs on the database queue.
struct LocalReader {
    let file: StoreFile
    let scope: OfflineScope
    let serviceRoot: String
    /// The request's parameter aliases (`@p`), typed by the checker.
    private var aliases: [String: FilterExpression] = [:]

    init(file: StoreFile, scope: OfflineScope, serviceRoot: String) {
        self.file = file
        self.scope = scope
        self.serviceRoot = serviceRoot
    }

    var model: ServiceModel { file.model }
    var schema: StoreSchema { file.schema }

    // MARK: - Entry

    /// Nested `$search` and `$levels` inside `$expand` are refused, never ignored (a
    /// defining request may carry them: the service evaluates those).
    static func refuseNestedUnevaluated(_ items: [ExpandItem]) throws(ODataStoreError) {
        for item in items {
            let name = item.path.joined(separator: "/")
            if item.options.search != nil {
                throw ODataStoreError(.unsupported, "$search inside $expand (\(name)) cannot be evaluated offline")
            }
            if item.options.levels != nil {
                throw ODataStoreError(.unsupported, "$levels inside $expand (\(name)) cannot be evaluated offline")
            }
            try refuseNestedUnevaluated(item.options.expand ?? [])
        }
    }

    /// Whether the file can answer `request` completely: every set and navigation on its path,
    /// in its `$filter`/`$orderby` and in its `$expand` (any depth) is covered by the defining
    /// requests (else `.notInScope`), and it asks for nothing the store does not evaluate
    /// (`$search`, `$apply`, nested `$levels`...: `.unsupported`). Returns the `$expand` plan.
    /// The one check of what the file answers: local reads run it, and so does the mixed
    /// store's router (Mixed/), which sends what fails it to the service.
    static func check(_ request: ResourceRequest, _ resolved: ResolvedPath, scope: OfflineScope,
                      schema: StoreSchema) throws(ODataStoreError) -> ExpandPlan {
        for step in resolved.steps where !scope.covers(step.table) {
            throw ODataStoreError(.notInScope, "\(step.table.entitySet) is not in the offline store: no defining request brought it down")
        }
        for (i, step) in resolved.steps.enumerated() where i < resolved.steps.count - 1 {
            if let link = step.link { try scope.check(link) }
        }
        if request.options.search != nil {
            throw ODataStoreError(.unsupported, "$search cannot be evaluated offline")
        }
        try refuseNestedUnevaluated(request.options.expand ?? [])
        // System query options the store does not evaluate ($apply, $compute, the other
        // version's $count/$inlinecount...): refused, never ignored.
        if let other = request.options.otherSystemOptions.first {
            throw ODataStoreError(.unsupported, "\(other.name) cannot be evaluated offline")
        }
        try scope.checkFilterPaths(request.options.filter, table: resolved.table, schema: schema)
        for item in request.options.orderBy ?? [] {
            try scope.checkFilterPaths(item.expression, table: resolved.table, schema: schema)
        }
        let expand = try ExpandPlan.make(request.options.expand, on: resolved.table, schema: schema, select: request.options.select)
        try scope.check(expand, schema: schema)
        return expand
    }

    mutating func read(path: String, headers: [(name: String, value: String)], paging: Paging) throws(ODataStoreError) -> Response {
        let request = try parse(path)
        let resolved = try ResolvedPath.resolve(request, schema: schema)
        let expand = try Self.check(request, resolved, scope: scope, schema: schema)
        aliases = Dictionary(request.options.aliases.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })

        // Narrow down through the path's parent rows to the result's rows.
        var parent: Condition? = nil
        for (i, step) in resolved.steps.enumerated() where i < resolved.steps.count - 1 {
            guard let link = step.link else { continue }
            guard let row = try single(step.table, parent: parent, key: step.key) else {
                throw notFound(path)
            }
            parent = try children(of: link, parentRID: row, table: step.table)
        }
        let last = resolved.steps[resolved.steps.count - 1]
        let pageSize = paging == .follow ? nil : Self.maxPageSize(headers)
        switch resolved.result {
        case .collection:
            return try collection(request, table: resolved.table, parent: parent, key: last.key, expand: expand,
                                  pageSize: pageSize, path: path)
        case .entity:
            return try entity(request, table: resolved.table, parent: parent, key: last.key, expand: expand, path: path)
        case .count:
            var params = SQLParameters()
            let whereSQL = try conditions(request.options, table: resolved.table, alias: "t0", parent: parent, key: last.key, &params)
            let n = try count(resolved.table, whereSQL: whereSQL, params)
            return response(json: "{\"value\":\(n)}", entities: 0, ranges: nil, count: n)
        case .property(let p):
            return try property(p, table: resolved.table, parent: parent, key: last.key, path: path)
        case .propertyCount(let p):
            return try propertyCount(p, table: resolved.table, parent: parent, key: last.key, path: path)
        case .rawValue(let p):
            let binary = resolved.table.columns.first { $0.pathText == p.joined(separator: "/") }?.edm == .binary
            return try rawValue(of: property(p, table: resolved.table, parent: parent, key: last.key, path: path), binary: binary)
        }
    }

    private func parse(_ path: String) throws(ODataStoreError) -> ResourceRequest {
        try ResolvedPath.parse(path, model: model, serviceRoot: serviceRoot)
    }

    private func notFound(_ path: String) -> ODataStoreError {
        ODataStoreError(.notFound, "\(path) is not in the offline store (not found)", httpStatus: 404)
    }

    /// `Prefer: odata.maxpagesize=N` of the request, if any.
    static func maxPageSize(_ headers: [(name: String, value: String)]) -> Int? {
        for h in headers where asciiCaseInsensitiveEquals(h.name, "Prefer") {
            for part in h.value.split(separator: ",") {
                let p = part.drop { $0 == " " }
                if p.hasPrefix("odata.maxpagesize="), let n = Int(p.dropFirst("odata.maxpagesize=".count)), n > 0 { return n }
                if p.hasPrefix("maxpagesize="), let n = Int(p.dropFirst("maxpagesize=".count)), n > 0 { return n }
            }
        }
        return nil
    }

    // MARK: - Conditions

    /// A SQL condition on the result table's alias with its parameter values (bound later in
    /// order, renumbered into the statement's parameters).
    struct Condition {
        /// Builds the SQL for an alias, binding into the statement's parameters.
        let make: (String, inout SQLParameters) -> String
    }

    /// Rows of `link.target` related to the parent row `parentRID` of `table`.
    private func children(of link: NavigationLink, parentRID: Int64, table: EntityTable) throws(ODataStoreError) -> Condition {
        switch link.join {
        case .columns(let pairs):
            let sql = "SELECT " + pairs.map { "p.\($0.source.quoted)" }.joined(separator: ", ")
                + " FROM \(table.quoted) p WHERE p.\(SQLName.quote(EntityTable.ridColumn)) = ?1"
            let values: [SQLValue]
            do {
                values = try file.connection.rows(sql, [.integer(parentRID)]).first ?? []
            } catch {
                throw error.storeError("cannot read the store")
            }
            return columnCondition(pairs, values)
        case .linkTable(let name, let reversed):
            let (mine, theirs) = reversed ? ("dst", "src") : ("src", "dst")
            return Condition { alias, params in
                "\(alias).\(SQLName.quote(EntityTable.ridColumn)) IN (SELECT \(theirs) FROM \(SQLName.quote(name)) WHERE \(mine) = \(params.bind(.integer(parentRID))))"
            }
        }
    }

    private func columnCondition(_ pairs: [(source: Column, target: Column)], _ values: [SQLValue]) -> Condition {
        if values.count != pairs.count || values.contains(.null) { return Condition { _, _ in "0" } }
        return Condition { alias, params in
            zip(pairs, values).map { "\(alias).\($0.0.target.quoted) = \(params.bind($0.1))" }.joined(separator: " AND ")
        }
    }

    /// The WHERE clause (without the keyword) of the rows a step addresses.
    private func conditions(_ options: QueryOptions?, table: EntityTable, alias: String, parent: Condition?, key: [SQLValue]?,
                            _ params: inout SQLParameters) throws(ODataStoreError) -> String {
        var parts: [String] = []
        if let parent { parts.append(parent.make(alias, &params)) }
        if let key {
            for (c, v) in zip(table.keyColumns, key) { parts.append("\(alias).\(c.quoted) = \(params.bind(v))") }
        }
        if let filter = options?.filter {
            var f = FilterSQL(schema: schema, aliases: SQLAliases(startingAt: 100), parameterAliases: aliases)
            parts.append("(" + (try f.condition(filter, in: SQLScope(table: table, alias: alias), &params)) + ")")
        }
        return parts.isEmpty ? "1" : parts.joined(separator: " AND ")
    }

    /// The ORDER BY terms of a request (its `$orderby`, then the key columns it does not
    /// name, for ties and for a deterministic order), each without its direction.
    private func orderTerms(_ options: QueryOptions?, table: EntityTable, alias: String,
                            _ params: inout SQLParameters) throws(ODataStoreError) -> [LocalSkipToken.Term] {
        var terms: [LocalSkipToken.Term] = []
        if let items = options?.orderBy {
            var f = FilterSQL(schema: schema, aliases: SQLAliases(startingAt: 200), parameterAliases: aliases)
            for item in items {
                let term = try f.orderTerm(item.expression, in: SQLScope(table: table, alias: alias), &params)
                terms.append(.init(sql: "(" + term + ")", descending: item.descending))
            }
        }
        for column in table.keyColumns {
            let sql = "\(alias).\(column.quoted)"
            // A key column the $orderby names already orders its ties: again would only cost.
            if let i = terms.firstIndex(where: { $0.sql == "(" + sql + ")" }) {
                terms[i].key = column.kind
            } else {
                terms.append(.init(sql: sql, descending: false, key: column.kind))
            }
        }
        if table.keyColumns.isEmpty { terms.append(.init(sql: "\(alias).\(SQLName.quote(EntityTable.ridColumn))", descending: false, key: .integer)) }
        return terms
    }

    private static func orderClause(_ terms: [LocalSkipToken.Term]) -> String {
        terms.map { $0.descending ? $0.sql + " DESC" : $0.sql }.joined(separator: ", ")
    }

    private func orderBy(_ options: QueryOptions?, table: EntityTable, alias: String, _ params: inout SQLParameters) throws(ODataStoreError) -> String {
        Self.orderClause(try orderTerms(options, table: table, alias: alias, &params))
    }

    // MARK: - Queries

    /// The `@rid` of the one row of `table` the parent condition and key address.
    private func single(_ table: EntityTable, parent: Condition?, key: [SQLValue]?) throws(ODataStoreError) -> Int64? {
        var params = SQLParameters()
        let whereSQL = try conditions(nil, table: table, alias: "t0", parent: parent, key: key, &params)
        let sql = "SELECT t0.\(SQLName.quote(EntityTable.ridColumn)) FROM \(table.quoted) t0 WHERE \(whereSQL) LIMIT 1"
        do {
            guard case .integer(let rid)? = try file.connection.scalar(sql, params.values) else { return nil }
            return rid
        } catch {
            throw error.storeError("cannot read the store")
        }
    }

    private func count(_ table: EntityTable, whereSQL: String, _ params: SQLParameters) throws(ODataStoreError) -> Int64 {
        do {
            guard case .integer(let n)? = try file.connection.scalar("SELECT count(*) FROM \(table.quoted) t0 WHERE \(whereSQL)", params.values) else { return 0 }
            return n
        } catch {
            throw error.storeError("cannot read the store")
        }
    }

    private func collection(_ request: ResourceRequest, table: EntityTable, parent: Condition?, key: [SQLValue]?,
                            expand: ExpandPlan, pageSize: Int?, path: String) throws(ODataStoreError) -> Response {
        let o = request.options
        var params = SQLParameters()
        let whereSQL = try conditions(o, table: table, alias: "t0", parent: parent, key: key, &params)
        let countValue: Int64? = o.count == true ? try count(table, whereSQL: whereSQL, params) : nil
        // Paging: our own skip tokens say how many entities the pages before delivered and
        // where the last of them was in the order (LocalSkipToken).
        var token = LocalSkipToken(delivered: 0, after: nil)
        if let text = o.skipToken {
            guard let t = LocalSkipToken(text) else {
                throw ODataStoreError(.invalidArgument, "$skiptoken=\(ResponseErrors.printable(text, limit: 100)) was not made by the offline store")
            }
            token = t
        }
        let remaining: Int? = o.top.map { max($0 - token.delivered, 0) }  // of $top, after the pages before
        var limit = remaining
        if let pageSize { limit = min(limit ?? Int.max, pageSize) }
        let terms = try orderTerms(o, table: table, alias: "t0", &params)
        var whereClause = whereSQL
        var offset = o.skip ?? 0
        if let after = token.after {
            guard token.fits(terms) else {
                throw ODataStoreError(.invalidArgument, "$skiptoken=\(ResponseErrors.printable(o.skipToken ?? "", limit: 100)) was not made by the offline store for this request")
            }
            // The value condition replaces $skip, which the first page applied.
            whereClause += " AND " + LocalSkipToken.condition(terms: terms, after: after, &params)
            offset = 0
        } else {
            // An offset token (digits alone): after $skip. Each is at most Int.max (a hostile
            // token too): their sum saturates.
            let (sum, overflow) = offset.addingReportingOverflow(token.delivered)
            offset = overflow ? Int.max : sum
        }
        // One row more than a full page tells whether another page follows, unless $top ends
        // with this page (a next link would lead to an empty page the service does not give).
        let probesNext = pageSize != nil && limit == pageSize && (remaining ?? Int.max) > limit!
        let fetch = limit.map { probesNext ? $0 + 1 : $0 }
        // A page that may have a next one also selects its order values, for the next token.
        let orderColumns = EntityJSON.fixedColumns + table.columns.count
        var select = EntityJSON.selectList(table, alias: "t0")
        if probesNext { select += terms.map { ", " + $0.sql }.joined() }
        var sql = "SELECT \(select) FROM \(table.quoted) t0 WHERE \(whereClause) ORDER BY \(Self.orderClause(terms))"
        sql += " LIMIT \(params.bind(.integer(Int64(fetch ?? -1)))) OFFSET \(params.bind(.integer(Int64(offset))))"

        var out: [UInt8] = []
        out.reserveCapacity(4096)
        out.append(UInt8(ascii: "{"))
        if let countValue { out.append(contentsOf: "\"@odata.count\":\(countValue),".utf8) }
        out.append(contentsOf: "\"value\":[".utf8)
        var ranges: [Range<Int>] = []
        let writer = EntityJSON(table: table, model: model, select: o.select, serviceRoot: serviceRoot)
        var more = false
        var last: [SQLValue] = []
        do {
            let s = try file.connection.statement(sql)
            defer { s.reset() }
            try s.bind(params.values)
            while try s.step() {
                if probesNext, ranges.count == limit {
                    more = true
                    break
                }
                if !ranges.isEmpty { out.append(UInt8(ascii: ",")) }
                let start = out.count
                try writeEntity(s, writer: writer, expand: expand, depth: 1, into: &out)
                ranges.append(start..<out.count)
                if probesNext, ranges.count == limit {
                    last = terms.indices.map { s.value(at: orderColumns + $0) }
                }
            }
        } catch {
            throw Self.readFailure(error)
        }
        out.append(UInt8(ascii: "]"))
        var nextLink: String? = nil
        if more {
            let next = LocalSkipToken(delivered: token.delivered.addingReportingOverflow(ranges.count).partialValue, after: last)
            nextLink = Self.withSkipToken(path, next.text, serviceRoot: serviceRoot)
            out.append(contentsOf: ",\"@odata.nextLink\":".utf8)
            JSONWriter.writeString(nextLink!, into: &out)
        }
        out.append(UInt8(ascii: "}"))
        var r = response(json: String(decoding: out, as: UTF8.self), entities: ranges.count, ranges: ranges, count: countValue)
        r.nextLink = nextLink
        return r
    }

    private func entity(_ request: ResourceRequest, table: EntityTable, parent: Condition?, key: [SQLValue]?,
                        expand: ExpandPlan, path: String) throws(ODataStoreError) -> Response {
        var params = SQLParameters()
        let whereSQL = try conditions(nil, table: table, alias: "t0", parent: parent, key: key, &params)
        let sql = "SELECT \(EntityJSON.selectList(table, alias: "t0")) FROM \(table.quoted) t0 WHERE \(whereSQL) LIMIT 1"
        var out: [UInt8] = []
        var etag: String? = nil
        do {
            let s = try file.connection.statement(sql)
            defer { s.reset() }
            try s.bind(params.values)
            guard try s.step() else {
                // A to-one navigation without a related entity: no content, as V4 services answer.
                if parent != nil && key == nil { return response(json: "", entities: 0, ranges: nil, count: nil, status: 204) }
                throw notFound(path)
            }
            etag = s.text(at: 2)
            try writeEntity(s, writer: EntityJSON(table: table, model: model, select: request.options.select, serviceRoot: serviceRoot), expand: expand,
                            depth: 1, into: &out)
        } catch {
            throw Self.readFailure(error)
        }
        var r = response(json: String(decoding: out, as: UTF8.self), entities: 1, ranges: [0..<out.count], count: nil)
        r.etag = etag
        if let etag { r.headerFields = HTTPHeaderFields(r.headers + [("ETag", etag)]) }
        return r
    }

    private func property(_ propertyPath: [String], table: EntityTable, parent: Condition?, key: [SQLValue]?,
                          path: String) throws(ODataStoreError) -> Response {
        let pathText = propertyPath.joined(separator: "/")
        guard let index = table.columns.firstIndex(where: { $0.pathText == pathText }) else {
            throw ODataStoreError(.unsupported, "\(pathText) of \(table.entitySet) cannot be read offline")
        }
        var params = SQLParameters()
        let whereSQL = try conditions(nil, table: table, alias: "t0", parent: parent, key: key, &params)
        let sql = "SELECT \(EntityJSON.selectList(table, alias: "t0")) FROM \(table.quoted) t0 WHERE \(whereSQL) LIMIT 1"
        var out: [UInt8] = []
        do {
            let s = try file.connection.statement(sql)
            defer { s.reset() }
            try s.bind(params.values)
            guard try s.step() else { throw notFound(path) }
            if s.isNull(at: index + EntityJSON.fixedColumns) {
                return response(json: "", entities: 0, ranges: nil, count: nil, status: 204)
            }
            out.append(contentsOf: "{\"value\":".utf8)
            _ = EntityJSON(table: table, model: model, select: nil).writeValue(s, column: index, into: &out)
            out.append(UInt8(ascii: "}"))
        } catch {
            throw Self.readFailure(error)
        }
        return response(json: String(decoding: out, as: UTF8.self), entities: 0, ranges: nil, count: nil)
    }

    // MARK: - Entities with expansions

    private func writeEntity(_ s: SQLiteStatement, writer: EntityJSON, expand: ExpandPlan, depth: Int,
                             into out: inout [UInt8]) throws {
        var wrote = writer.writeOpen(s, into: &out)
        guard !expand.items.isEmpty else {
            out.append(UInt8(ascii: "}"))
            return
        }
        let rid = EntityJSON.rid(s)
        for item in expand.items {
            let link = item.link
            let parent: Condition
            switch link.join {
            case .columns(let pairs):
                let values = pairs.map { pair -> SQLValue in
                    let i = writer.table.columns.firstIndex(of: pair.source).map { $0 + EntityJSON.fixedColumns } ?? 0
                    return s.value(at: i)
                }
                parent = columnCondition(pairs, values)
            case .linkTable:
                parent = try children(of: link, parentRID: rid, table: writer.table)
            }
            let target = link.target
            let o = item.options
            var params = SQLParameters()
            let whereSQL = try conditions(o, table: target, alias: "t0", parent: parent, key: nil, &params)
            let countParams = params  // the count statement has only the WHERE clause's placeholders
            let order = try orderBy(o, table: target, alias: "t0", &params)
            var sql = "SELECT \(EntityJSON.selectList(target, alias: "t0")) FROM \(target.quoted) t0 WHERE \(whereSQL) ORDER BY \(order)"
            if link.isCollection {
                if o.top != nil || o.skip != nil {
                    sql += " LIMIT \(params.bind(.integer(Int64(o.top ?? -1)))) OFFSET \(params.bind(.integer(Int64(o.skip ?? 0))))"
                }
            } else {
                sql += " LIMIT 1"
            }
            if wrote { out.append(UInt8(ascii: ",")) }
            wrote = true
            if link.isCollection, o.count == true {
                let n = try count(target, whereSQL: whereSQL, countParams)
                out.append(contentsOf: "\"\(link.name)@odata.count\":\(n),".utf8)
            }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: link.name.utf8)
            out.append(contentsOf: "\":".utf8)
            let child = EntityJSON(table: target, model: model, select: o.select, serviceRoot: serviceRoot)
            let cs = try file.connection.statement(sql, slot: depth)
            defer { cs.reset() }
            try cs.bind(params.values)
            if link.isCollection {
                out.append(UInt8(ascii: "["))
                var first = true
                while try cs.step() {
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    try writeEntity(cs, writer: child, expand: item.nested, depth: depth + 1, into: &out)
                }
                out.append(UInt8(ascii: "]"))
            } else if try cs.step() {
                try writeEntity(cs, writer: child, expand: item.nested, depth: depth + 1, into: &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The store's error for what a read's statements threw: SQLite's mapped, the store's own
    /// (a 404, a refusal) as they are.
    private static func readFailure(_ error: any Error) -> ODataStoreError {
        switch error {
        case let e as SQLiteError: e.storeError("cannot read the store")
        case let e as ODataStoreError: e
        default: ODataStoreError(.error, "\(error)")
        }
    }

    // MARK: - Responses

    /// `/$count` of a collection property of one entity: its items, as `text/plain` with the
    /// json and count the online engine makes of a service's answer.
    private func propertyCount(_ propertyPath: [String], table: EntityTable, parent: Condition?, key: [SQLValue]?,
                               path: String) throws(ODataStoreError) -> Response {
        let pathText = propertyPath.joined(separator: "/")
        guard let column = table.columns.first(where: { $0.pathText == pathText }) else {
            throw ODataStoreError(.unsupported, "\(pathText) of \(table.entitySet) cannot be read offline")
        }
        guard column.isCollection else {
            throw ODataStoreError(.invalidArgument, "$count needs a collection: \(pathText) is a single value", httpStatus: 400)
        }
        var params = SQLParameters()
        let whereSQL = try conditions(nil, table: table, alias: "t0", parent: parent, key: key, &params)
        let sql = "SELECT json_array_length(t0.\(SQLName.quote(column.sqlName))) FROM \(table.quoted) t0 WHERE \(whereSQL) LIMIT 1"
        let n: Int64
        do {
            let s = try file.connection.statement(sql)
            defer { s.reset() }
            try s.bind(params.values)
            guard try s.step() else { throw notFound(path) }
            n = s.isNull(at: 0) ? 0 : s.int64(at: 0)
        } catch {
            throw Self.readFailure(error)
        }
        return plainText(String(n))
    }

    /// A `text/plain` answer, with the `json` and count the online engine makes of such a
    /// body from a service (`DecodedPayload.plainText`).
    private func plainText(_ text: String) -> Response {
        let body = Array(text.utf8)
        let decoded = DecodedPayload.plainText(body)
        let headers: [(name: String, value: String)] = [(name: "OData-Version", value: model.version == .v2 ? "2.0" : "4.0"),
                                                        (name: "Content-Type", value: "text/plain;charset=utf-8")]
        var r = Response(status: 200, headers: headers, body: body, json: decoded.json, count: decoded.count, entityCount: 0)
        r.isLocal = true
        return r
    }

    /// A property's `$value` as a service sends it: the value's text as `text/plain` (a
    /// string without quotes or escapes, other values as their canonical literal), and the
    /// `json` and count the online engine makes of such a body (`DecodedPayload.plainText`).
    /// A null property stays 204 No Content. An Edm.Binary's is its bytes as
    /// `application/octet-stream`, with `json` "" as for any media body.
    private func rawValue(of property: Response, binary: Bool) throws(ODataStoreError) -> Response {
        guard property.status != 204 else { return property }
        let text: String
        do {
            switch try JSONValue.parse(property.json)["value"] {
            case .string(let s)?: text = s
            case .number(let n)?: text = n
            case .bool(let b)?: text = b ? "true" : "false"
            default: throw ODataStoreError(.unsupported, "the $value of this property cannot be read offline")
            }
        } catch {
            throw Self.readFailure(error)
        }
        let version = (name: "OData-Version", value: model.version == .v2 ? "2.0" : "4.0")
        if binary {
            guard let bytes = Base64.decode(text) else {
                throw ODataStoreError(.error, "the store holds a binary value that is not base64")
            }
            var r = Response(status: 200, headers: [version, (name: "Content-Type", value: "application/octet-stream")], body: bytes)
            r.isLocal = true
            return r
        }
        return plainText(text)
    }

    private func response(json: String, entities: Int, ranges: [Range<Int>]?, count: Int64?, status: Int = 200) -> Response {
        var headers: [(name: String, value: String)] = [(name: "OData-Version", value: model.version == .v2 ? "2.0" : "4.0")]
        if !json.isEmpty {
            headers.append((name: "Content-Type", value: "application/json;odata.metadata=minimal;IEEE754Compatible=true"))
        }
        var r = Response(status: status, headers: headers, body: Array(json.utf8), json: json, count: count, entityCount: entities)
        r.entityRanges = ranges
        r.isLocal = true
        return r
    }

    /// `path` with `$skiptoken=token` (replacing one it has); `token` needs no escaping.
    static func withSkipToken(_ path: String, _ token: String, serviceRoot: String) -> String {
        var relative = DefiningRequest.relative(path, serviceRoot: serviceRoot)
        if let q = relative.firstIndex(of: "?") {
            let base = relative[..<q]
            let options = relative[relative.index(after: q)...].split(separator: "&").filter {
                !$0.hasPrefix("$skiptoken=") && !$0.hasPrefix("%24skiptoken=")
            }
            relative = String(base) + "?" + (options + ["$skiptoken=\(token)"]).joined(separator: "&")
        } else {
            relative += "?$skiptoken=\(token)"
        }
        return (serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/") + relative
    }
}
