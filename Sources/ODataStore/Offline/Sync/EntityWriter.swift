import CSQLite
import Glibc
import ODataProtocol

/// Writes entities from the canonical JSON of a page into the store's tables: each entity
/// upserted by key (only the properties the page carries are changed, so a `$select`ed page
/// never blanks columns another defining request filled), expanded navigation entities into
/// their own tables with their links, and each row recorded as brought down by the defining
/// request: the rows a download inserts as runs of row ids (`MemberRanges`), the rows it finds
/// already there as `ods_members` rows.
///
/// A downloaded page comes with the decoder's `PayloadSpans` (where each member's key and
/// value are): the writer then takes members from those, without scanning the text again
/// (`EntityWriter+Spans.swift`). Otherwise (Atom bodies, the store's own writes, values the
/// spans do not describe) the JSON is walked once with the protocol layer's scanner. Either
/// way values go straight from the page's bytes into bound statement parameters (text
/// without escapes is never copied into a String). Used on the database thread, inside the
/// caller's transaction.
final class EntityWriter {
    let file: StoreFile
    /// The defining request the rows belong to (`ods_defining_requests.id`).
    let requestID: Int64
    /// Rows written so far (expanded entities included).
    private(set) var rowsWritten = 0
    /// Top-level entities written so far.
    private(set) var entitiesWritten = 0
    /// The row id of the last single entity written (`isCollection: false`).
    private(set) var lastRowID: Int64?
    /// The `@odata.id` of each removed-entity entry of a delta page, in order (not written:
    /// `StoreRefresh.applyRemovals` removes them).
    private(set) var removedIDs: [String] = []
    /// Downloads (`requestID` > 0) never overwrite a row with local changes; the store's own
    /// writes (upload answers, reverts: request 0) do.
    private var protectsLocalChanges: Bool { requestID != 0 }
    /// The unescaped and made text of the page being written (`CellValue.arena` ranges):
    /// emptied when a page starts, so it holds at most one page's such values.
    var arena: [UInt8] = []
    var sqliteFailure: SQLiteError?
    /// Prepared statements and lookup tables, shared by every writer of the store file.
    let shared: Shared

    init(file: StoreFile, requestID: Int64) {
        self.file = file
        self.requestID = requestID
        self.shared = file.writerShared
    }

    /// What the writers of one store file share (database thread only): a local write and
    /// each upload answer make a writer of their own, and preparing the upsert statement again
    /// for each (with building its SQL text) was about half of a local create's instructions
    /// (bench/localwrite). Statements are used bind-step-reset within one call, never left
    /// open across calls, so writers can share them.
    final class Shared {
        /// Per table: the column index of the top-level member seen at each position of the
        /// last entity, so the common case (every entity lists its members in the same order)
        /// finds columns by comparing bytes instead of hashing Strings.
        var memberCache: [ObjectIdentifier: [(name: [UInt8], index: Int)]] = [:]
        var topLevelIndex: [ObjectIdentifier: [String: Int]] = [:]
        var columnKinds: [ObjectIdentifier: [ColumnKind]] = [:]
        var membersStatement: SQLiteStatement?
        var upsertStatements: [UpsertKey: SQLiteStatement] = [:]
        /// The upserts of several rows at once (`EntityWriter+Batch.swift`).
        var batchStatements: [BatchKey: SQLiteStatement] = [:]

        struct BatchKey: Hashable {
            let upsert: UpsertKey
            let rows: Int
        }
        var keyLookups: [ObjectIdentifier: (statement: SQLiteStatement, columns: [Int])] = [:]
        /// Per table id: no range of `ods_member_ranges` covers a row id above this (read once
        /// per file, raised as writers add ranges; a rolled-back range leaves it too high,
        /// which only costs a needless `MemberRanges.cut`).
        var rangesCoverUpTo: [Int64: Int64] = [:]

        /// Drops the statements (before the connection closes).
        func finalize() {
            membersStatement = nil
            upsertStatements.removeAll()
            batchStatements.removeAll()
            keyLookups.removeAll()
        }
    }

    struct UpsertKey: Hashable {
        let table: ObjectIdentifier
        let present: [Int]
        /// Downloads' upserts leave rows with local changes alone; the store's own do not.
        let protects: Bool
    }

    enum Failure: Error {
        case json(JSONError)
        case sqlite(SQLiteError)
        case store(ODataStoreError)
    }

    /// Upserts one entity (canonical JSON) by key as the store's own row (no defining
    /// request: `ods_members` request 0) and returns its row id.
    @discardableResult
    static func upsert(_ json: String, table: EntityTable, file: StoreFile) throws(ODataStoreError) -> Int64 {
        let writer = EntityWriter(file: file, requestID: 0)
        _ = try writer.writePage(json, table: table, expand: .none, isCollection: false)
        guard let rid = writer.lastRowID else { throw ODataStoreError(.error, "the entity was not written") }
        return rid
    }

    /// Writes a page: a collection (`{"value":[...]}`) or one entity. Returns the number of
    /// top-level entities it held.
    func writePage(_ json: String, table: EntityTable, expand: ExpandPlan, isCollection: Bool) throws(ODataStoreError) -> Int {
        var text = json
        return try text.withUTF8 { page in Result { () throws(ODataStoreError) in
            try writePage(page, spans: nil, table: table, expand: expand, isCollection: isCollection)
        } }.get()
    }

    /// `writePage` for the text as UTF-8 bytes (a decoded page's `DecodedPayload.utf8`: no `String` is made).
    func writePage(_ json: [UInt8], table: EntityTable, expand: ExpandPlan, isCollection: Bool) throws(ODataStoreError) -> Int {
        try json.withUnsafeBufferPointer { page in Result { () throws(ODataStoreError) in
            try writePage(page, spans: nil, table: table, expand: expand, isCollection: isCollection)
        } }.get()
    }

    /// `writePage` for a decoded page: its bytes, and its `spans` when the decoder recorded them.
    func writePage(_ payload: DecodedPayload, table: EntityTable, expand: ExpandPlan, isCollection: Bool) throws(ODataStoreError) -> Int {
        try payload.utf8.withUnsafeBufferPointer { page in Result { () throws(ODataStoreError) in
            try writePage(page, spans: payload.spans, table: table, expand: expand, isCollection: isCollection)
        } }.get()
    }

    private func writePage(_ page: UnsafeBufferPointer<UInt8>, spans: PayloadSpans?, table: EntityTable, expand: ExpandPlan,
                           isCollection: Bool) throws(ODataStoreError) -> Int {
        let result: Result<Int, Failure> = {
            guard let base = page.baseAddress, !page.isEmpty else { return .success(0) }
            var s = JSONScanner(base: base, count: page.count, maxDepth: PayloadDecoder.maxDepth + 2)
            pending.reset(batching: isCollection && requestID != 0)
            arena.removeAll(keepingCapacity: true)
            defer { pending.reset(batching: false) }
            do throws(Failure) {
                let n: Int
                if let spans, let root = spans.root(count: page.count) {
                    let sp = SpanPage(spans: spans, page: page, u: s)
                    n = try self.page(sp, root: root, table: table, expand: expand, isCollection: isCollection)
                } else {
                    n = try self.page(&s, page, table: table, expand: expand, isCollection: isCollection)
                }
                do throws(SQLiteError) { try flushPending(page: page) } catch { throw .sqlite(error) }
                return .success(n)
            } catch {
                return .failure(error)
            }
        }()
        switch result {
        case .success(let n):
            do throws(SQLiteError) {
                try flushRanges()
            } catch {
                throw error.storeError("cannot store the downloaded entities")
            }
            return n
        case .failure(.json(let e)):
            if let f = sqliteFailure { throw f.storeError("cannot store the downloaded entities") }
            throw ODataStoreError(.protocol, "the downloaded page is not valid canonical JSON: \(e)")
        case .failure(.sqlite(let e)): throw e.storeError("cannot store the downloaded entities")
        case .failure(.store(let e)): throw e
        }
    }

    private func page(_ s: inout JSONScanner, _ page: UnsafeBufferPointer<UInt8>, table: EntityTable, expand: ExpandPlan,
                      isCollection: Bool) throws(Failure) -> Int {
        do throws(JSONError) {
            if !isCollection {
                lastRowID = try entity(&s, page, table: table, expand: expand)
                entitiesWritten += 1
                return 1
            }
            var n = 0
            guard try s.beginObject() else { return 0 }
            repeat {
                let key = try s.readKey()
                if s.equals(key, "value"), try s.peek() == UInt8(ascii: "[") {
                    if try s.beginArray() {
                        repeat {
                            _ = try entity(&s, page, table: table, expand: expand, top: true)
                            n += 1
                            entitiesWritten += 1
                        } while try s.nextElement()
                    }
                } else {
                    try s.skipValue()
                }
            } while try s.nextMember()
            return n
        } catch {
            throw .json(error)
        }
    }

    /// `page` from the decoder's spans: the root object's `value` array (a collection) or the
    /// root object itself (one entity), as the scanning `page` above reads them.
    private func page(_ sp: SpanPage, root: Int, table: EntityTable, expand: ExpandPlan,
                      isCollection: Bool) throws(Failure) -> Int {
        spanTables.removeAll(keepingCapacity: true)
        lastSpanTable = nil
        do throws(JSONError) {
            if !isCollection {
                lastRowID = try entity(object: root, sp, table: table, expand: expand)
                entitiesWritten += 1
                return 1
            }
            var n = 0
            for m in sp.members(of: root) {
                let key = JSONScanner.StringToken(start: Int(m.keyStart), end: Int(m.keyEnd), escaped: m.keyEscaped)
                guard sp.u.equals(key, "value"), sp.page[Int(m.valueStart)] == UInt8(ascii: "[") else { continue }
                try entities(inArrayAt: Int(m.valueStart), candidate: Int(m.firstObject), sp, table: table, expand: expand, top: true) { _ in
                    n += 1
                    entitiesWritten += 1
                }
            }
            return n
        } catch {
            throw .json(error)
        }
    }

    // MARK: - One entity

    /// Writes the entity at the scanner (an object, or null for a to-one navigation that has
    /// none: returns nil) and returns its row id.
    func entity(_ s: inout JSONScanner, _ page: UnsafeBufferPointer<UInt8>, table: EntityTable,
                expand: ExpandPlan, top: Bool = false) throws(JSONError) -> Int64? {
        if try s.peek() == UInt8(ascii: "n") {
            _ = try s.scanLiteral()
            return nil
        }
        var d = draft(for: table)
        defer { giveBack(&d) }
        let id = ObjectIdentifier(table)
        var cache = shared.memberCache[id] ?? []
        var cacheChanged = false
        let kinds = columnKinds(table)
        var position = 0
        guard try s.beginObject() else { throw s.fail("an entity without properties") }
        repeat {
            let key = try s.readKey()
            let keyBytes = UnsafeBufferPointer(rebasing: page[key.start..<key.end])
            if !key.escaped, let first = keyBytes.first, first == UInt8(ascii: "@") {
                if s.equals(key, "@odata.etag") {
                    d.etag = try text(&s, page)
                } else if s.equals(key, "@odata.removed") {
                    d.removed = true
                    try s.skipValue()
                } else if s.equals(key, "@odata.id"), try s.peek() == UInt8(ascii: "\"") {
                    let before = s.pos
                    d.odataID = s.string(try s.scanString())
                    s.pos = before
                    try appendExtra(&d, &s, page, key)
                } else if s.equals(key, "@odata.type") {
                    let t = try s.scanString()
                    var name = s.string(t)
                    if name.hasPrefix("#") { name.removeFirst() }
                    if name != table.entityType { d.type = arenaText(name) }
                } else {
                    try appendExtra(&d, &s, page, key)
                }
                continue
            }
            if !key.escaped, let at = keyBytes.firstIndex(of: UInt8(ascii: "@")) {
                // A property annotation: a nested next link means the expansion is partial.
                let name = String(decoding: UnsafeBufferPointer(rebasing: keyBytes[..<at]), as: UTF8.self)
                let annotation = String(decoding: UnsafeBufferPointer(rebasing: keyBytes[at...]), as: UTF8.self)
                if annotation == "@odata.nextLink" { d.incomplete.insert(name) }
                if expand.item(named: name) != nil && annotation.hasPrefix("@odata.") {
                    try s.skipValue()
                } else {
                    try appendExtra(&d, &s, page, key)
                }
                continue
            }
            // A property or an expanded navigation: find its column (cached by position).
            var index = -1
            if position < cache.count, !key.escaped, Self.same(cache[position].name, keyBytes) {
                index = cache[position].index
            } else {
                cacheChanged = true
                let name = s.string(key)
                index = topLevel(table)[name] ?? -1
                if index < 0, let item = expand.item(named: name) {
                    index = -2 - (expand.items.firstIndex { $0.link.name == item.link.name } ?? 0)
                }
                let entry = (name: Array(keyBytes), index: index)
                if position < cache.count { cache[position] = entry } else { cache.append(entry) }
            }
            position += 1
            if index >= 0 {
                let kind = kinds[index]
                if kind == .presence {
                    try d.cells.withUnsafeMutableBufferPointer { (cells) throws(JSONError) in
                        try complex(&s, page, table: table, prefix: table.columns[index].pathText, presence: index, into: cells)
                    }
                } else {
                    d.cells[index] = try value(&s, page, kind)
                }
            } else if index <= -2 {
                let item = expand.items[-2 - index]
                var children: [Int64] = []
                switch try s.peek() {
                case UInt8(ascii: "["):
                    if try s.beginArray() {
                        repeat {
                            if let rid = try entity(&s, page, table: item.link.target, expand: item.nested) { children.append(rid) }
                        } while try s.nextElement()
                    }
                default:
                    if let rid = try entity(&s, page, table: item.link.target, expand: item.nested) { children.append(rid) }
                }
                d.navigations.append((item, children, item.isComplete))
            } else {
                // A member the schema does not know (an open type's dynamic property).
                try appendExtra(&d, &s, page, key)
            }
        } while try s.nextMember()
        if cacheChanged { shared.memberCache[id] = cache }
        return try write(table, &d, page: page, at: s.pos, top: top)
    }

    /// A draft for an entity of `table`, its cells from `cellPool` when one of the right size
    /// waits there (no allocation per entity); the caller gives them back to the pool.
    @inline(__always)
    func draft(for table: EntityTable) -> EntityDraft {
        var cells = cellPool.popLast() ?? []
        if cells.count == table.columns.count {
            cells.withUnsafeMutableBufferPointer { c in
                for i in c.indices { c[i] = nil }
            }
        } else {
            cells = [CellValue?](repeating: nil, count: table.columns.count)
        }
        return EntityDraft(cells: cells)
    }

    /// Writes the row of an entity whose members were read (either path), its membership and
    /// the links of its expanded navigations, and returns its row id (nil for a removed-entity
    /// entry of a delta page, which is only noted, and for an entity of a collection page's
    /// top level without expanded navigations, which waits to be written with the next ones:
    /// `EntityWriter+Batch.swift`; `top` says the entity is not inside another).
    @inline(__always)
    func write(_ table: EntityTable, _ d: inout EntityDraft, page: UnsafeBufferPointer<UInt8>, at offset: Int,
               top: Bool) throws(JSONError) -> Int64? {
        if d.removed {
            if let odataID = d.odataID { removedIDs.append(odataID) }
            return nil
        }
        let rid: Int64
        do throws(SQLiteError) {
            if top, pending.batching, d.navigations.isEmpty {
                try hold(table, &d, page: page)
                rowsWritten += 1
                return nil
            }
            // Whatever waits is written first: rows are written in the page's order.
            try flushPending(page: page)
            let written = try upsert(table, d, page: page)
            // A row written outside a batch (an entity with expansions, or inside one) can be
            // a new row of the batches' table: their remembered largest row id is stale.
            if written.inserted { pending.largest = nil }
            rid = written.rid
            try recordMembership(table, rid: rid, inserted: written.inserted)
            for nav in d.navigations {
                try link(nav.item.link, parent: rid, children: nav.children,
                         replace: nav.complete && !d.incomplete.contains(nav.item.link.name))
            }
        } catch {
            // Carried out through the scanner's error type; `writePage` reports it as SQLite's.
            sqliteFailure = error
            throw JSONError(offset: offset, message: "\(error)")
        }
        rowsWritten += 1
        return rid
    }

    /// Whether the bytes of `a` and `b` are the same (the member names of the cache).
    static func same(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let q = b.baseAddress, !a.isEmpty else { return true }
        return a.withUnsafeBufferPointer { memcmp($0.baseAddress!, q, a.count) == 0 }
    }

    /// The kind of each column of `table`, by column index (not copying `Column` values,
    /// with their strings, for each value).
    func columnKinds(_ table: EntityTable) -> [ColumnKind] {
        let id = ObjectIdentifier(table)
        if let k = lastKinds, k.table == id { return k.kinds }
        let kinds = shared.columnKinds[id] ?? table.columns.map(\.kind)
        shared.columnKinds[id] = kinds
        lastKinds = (id, kinds)
        return kinds
    }

    private var lastKinds: (table: ObjectIdentifier, kinds: [ColumnKind])?

    /// The spans path's memo per table (`EntityWriter+Spans.swift`): columns by member
    /// ordinal, and where each member of the last entity was. Valid for one page only (the
    /// ordinals and offsets are the page's): emptied when a page starts.
    var spanTables: [ObjectIdentifier: SpanTableMemo] = [:]
    /// The entry of `spanTables` read or written last: nearly every entity of a page is of
    /// the page's table, so this one comparison replaces hashing the table's identifier per
    /// entity (about 100 instructions per V4 entity).
    var lastSpanTable: (table: ObjectIdentifier, memo: SpanTableMemo)?
    /// Cell arrays to reuse, one per level of expansion being written (no allocation per entity).
    var cellPool: [[CellValue?]] = []

    /// Returns the cells of a draft that was written (or held with no cells left: `hold`) to
    /// `cellPool`, moved out of it.
    @inline(__always)
    func giveBack(_ d: inout EntityDraft) {
        guard !d.cells.isEmpty else { return }
        var cells: [CellValue?] = []
        swap(&cells, &d.cells)
        cellPool.append(cells)
    }
    /// Entities of the top level of a collection page waiting to be upserted together.
    var pending = PendingRows()
    /// The most rows one upsert statement writes (`EntityWriter+Batch.swift`; 1: one per
    /// statement, as before batches; tests compare the two).
    var maxBatchRows = 32

    func topLevel(_ table: EntityTable) -> [String: Int] {
        let id = ObjectIdentifier(table)
        if let d = shared.topLevelIndex[id] { return d }
        var d: [String: Int] = [:]
        for (i, c) in table.columns.enumerated() where c.path.count == 1 { d[c.path[0]] = i }
        shared.topLevelIndex[id] = d
        return d
    }

    /// A flattened complex value: its presence column and its members' columns.
    func complex(_ s: inout JSONScanner, _ page: UnsafeBufferPointer<UInt8>, table: EntityTable, prefix: String,
                         presence: Int, into cells: UnsafeMutableBufferPointer<CellValue?>) throws(JSONError) {
        if try s.peek() == UInt8(ascii: "n") {
            _ = try s.scanLiteral()
            cells[presence] = .null
            for (i, c) in table.columns.enumerated() where c.pathText.hasPrefix(prefix + "/") { cells[i] = .null }
            return
        }
        cells[presence] = .integer(1)
        guard try s.beginObject() else { return }
        repeat {
            let key = try s.readKey()
            let name = s.string(key)
            if name.hasPrefix("@") {
                try s.skipValue()  // @odata.type of a complex value: only non-derived complex types are flattened
                continue
            }
            let path = prefix + "/" + name
            guard let index = table.columns.firstIndex(where: { $0.pathText == path }) else {
                try s.skipValue()
                continue
            }
            let kind = table.columns[index].kind
            if kind == .presence {
                try complex(&s, page, table: table, prefix: path, presence: index, into: cells)
            } else {
                cells[index] = try value(&s, page, kind)
            }
        } while try s.nextMember()
    }

    // MARK: - Values

    private func text(_ s: inout JSONScanner, _ page: UnsafeBufferPointer<UInt8>) throws(JSONError) -> CellValue {
        if try s.peek() == UInt8(ascii: "n") {
            _ = try s.scanLiteral()
            return .null
        }
        let t = try s.scanString()
        if !t.escaped { return .raw(t.start..<t.end) }
        return unescaped(t, s)
    }

    /// The value at the scanner as a column of `kind` stores it.
    private func value(_ s: inout JSONScanner, _ page: UnsafeBufferPointer<UInt8>, _ kind: ColumnKind) throws(JSONError) -> CellValue {
        let first = try s.peek()
        if kind == .json {
            let start = s.pos
            if first == UInt8(ascii: "n") {
                _ = try s.scanLiteral()
                return .null
            }
            try s.skipValue()
            return .raw(start..<s.pos)
        }
        switch first {
        case UInt8(ascii: "n"):
            _ = try s.scanLiteral()
            return .null
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            let v = try s.scanLiteral()
            return .integer(v == .bool(true) ? 1 : 0)
        case UInt8(ascii: "\""):
            let t = try s.scanString()
            let bytes = UnsafeBufferPointer(rebasing: page[t.start..<t.end])
            switch kind {
            case .integer:
                if !t.escaped, let v = JSONNumber.int64(bytes) { return .integer(v) }
            case .real:
                if s.equals(t, "INF") { return .real(.infinity) }
                if s.equals(t, "-INF") { return .real(-.infinity) }
                if !t.escaped, !s.equals(t, "NaN"), let v = JSONNumber.double(bytes) { return .real(v) }
            default: break
            }
            if !t.escaped { return .raw(t.start..<t.end) }
            return unescaped(t, s)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let start = s.pos
            try s.skipValue()
            return .raw(start..<s.pos)
        default:
            let r = try s.scanNumber()
            let bytes = UnsafeBufferPointer(rebasing: page[r])
            switch kind {
            case .integer, .boolean:
                if let v = JSONNumber.int64(bytes) { return .integer(v) }
                return .raw(r)
            case .real:
                return JSONNumber.double(bytes).map { .real($0) } ?? .raw(r)
            default:
                return .raw(r)
            }
        }
    }

    private func appendExtra(_ d: inout EntityDraft, _ s: inout JSONScanner, _ page: UnsafeBufferPointer<UInt8>,
                             _ key: JSONScanner.StringToken) throws(JSONError) {
        s.skipWhitespace()
        let start = s.pos
        try s.skipValue()
        d.appendExtra(key: UnsafeBufferPointer(rebasing: page[key.start..<key.end]), value: UnsafeBufferPointer(rebasing: page[start..<s.pos]))
    }

    // MARK: - SQL

    // Prepared statements held by the writers of the file (`Shared`; measured in bench/download:
    // 30% fewer instructions per entity): no SQL-text lookup per entity, and no RETURNING (its
    // ephemeral table cost about a third of SQLite's time per row): the row id is the new
    // last-insert rowid, or, when the upsert took its update path, looked up by key.
    private var lastUpsert: (table: ObjectIdentifier, present: [Int], statement: SQLiteStatement)?
    private var tableIDCache: (ObjectIdentifier, Int64)?

    private func tableID(_ table: EntityTable) -> Int64 {
        let id = ObjectIdentifier(table)
        if let c = tableIDCache, c.0 == id { return c.1 }
        let v = file.tableID(table)
        tableIDCache = (id, v)
        return v
    }

    /// Whether `present` lists exactly the indexes of the cells that are set.
    static func matches(_ present: [Int], _ cells: [CellValue?]) -> Bool {
        var k = 0
        for i in cells.indices where cells[i] != nil {
            guard k < present.count, present[k] == i else { return false }
            k += 1
        }
        return k == present.count
    }

    static func present(_ cells: [CellValue?]) -> [Int] {
        var present: [Int] = []
        present.reserveCapacity(cells.count)
        for (i, c) in cells.enumerated() where c != nil { present.append(i) }
        return present
    }

    /// Binds the row's values from parameter `base + 1` on. The draft is read where it is,
    /// through a pointer: a draft passed as a value (even `borrowing`, read out of an array
    /// of drafts) was copied and destroyed once per row, retaining and releasing its members.
    @inline(__always)
    func bindRow(_ st: SQLiteStatement, _ present: [Int], _ d: UnsafePointer<EntityDraft>, page: UnsafeBufferPointer<UInt8>,
                 arena: UnsafeBufferPointer<UInt8>, base: Int = 0) throws(SQLiteError) {
        try d.pointee.type.bind(st, at: base + 1, page: page, arena: arena)
        try d.pointee.etag.bind(st, at: base + 2, page: page, arena: arena)
        if d.pointee.extra.isEmpty {
            try st.bind(.null, at: base + 3)
        } else {
            try d.pointee.extra.withUnsafeBufferPointer { (e) throws(SQLiteError) in try st.bindText(e, at: base + 3) }
        }
        try d.pointee.cells.withUnsafeBufferPointer { (cells) throws(SQLiteError) in
            for (k, i) in present.enumerated() {
                try cells[i]!.bind(st, at: base + 4 + k, page: page, arena: arena)
            }
        }
    }

    /// `t` (a string with escapes) unescaped into the page's arena.
    func unescaped(_ t: JSONScanner.StringToken, _ u: JSONScanner) -> CellValue {
        let start = arena.count
        u.unescape(t, into: &arena)
        return .arena(start..<arena.count)
    }

    /// `text` put into the page's arena.
    func arenaText(_ text: String) -> CellValue {
        let start = arena.count
        arena.append(contentsOf: text.utf8)
        return .arena(start..<arena.count)
    }

    func upsert(_ table: EntityTable, _ d: EntityDraft, page: UnsafeBufferPointer<UInt8>) throws(SQLiteError) -> (rid: Int64, inserted: Bool) {
        let cells = d.cells
        let id = ObjectIdentifier(table)
        let st: SQLiteStatement
        let present: [Int]
        if let last = lastUpsert, last.table == id, Self.matches(last.present, cells) {
            (st, present) = (last.statement, last.present)
        } else {
            present = Self.present(cells)
            st = try upsertStatement(table, present)
            lastUpsert = (id, present, st)
        }
        defer { st.reset() }
        try withUnsafePointer(to: d) { (d) throws(SQLiteError) in
            try arena.withUnsafeBufferPointer { (arena) throws(SQLiteError) in try bindRow(st, present, d, page: page, arena: arena) }
        }
        // SQLite never hands out row id 0 (a new row gets the largest id plus one, at least
        // 1): a 0 after the step means the upsert took its update path.
        sqlite3_set_last_insert_rowid(file.connection.handle, 0)
        _ = try st.step()
        let after = file.connection.lastInsertRowID
        if after != 0 { return (after, true) }
        // The update path (the row was there): find its row id by key.
        return (try rowID(table, cells, page: page), false)
    }

    /// The row id of the row of `table` with the key in `cells`.
    func rowID(_ table: EntityTable, _ cells: [CellValue?], page: UnsafeBufferPointer<UInt8>) throws(SQLiteError) -> Int64 {
        let id = ObjectIdentifier(table)
        let lookup: (statement: SQLiteStatement, columns: [Int])
        if let l = shared.keyLookups[id] { lookup = l } else {
            let columns = table.keyColumns.map { k in table.columns.firstIndex { $0.pathText == k.pathText } ?? -1 }
            let sql = "SELECT \(SQLName.quote(EntityTable.ridColumn)) FROM \(table.quoted) WHERE "
                + table.keyColumns.enumerated().map { "\($0.element.quoted) = ?\($0.offset + 1)" }.joined(separator: " AND ")
            lookup = (try file.connection.prepare(sql), columns)
            shared.keyLookups[id] = lookup
        }
        defer { lookup.statement.reset() }
        try arena.withUnsafeBufferPointer { (arena) throws(SQLiteError) in
            for (k, i) in lookup.columns.enumerated() {
                try (i >= 0 ? cells[i] ?? .null : .null).bind(lookup.statement, at: k + 1, page: page, arena: arena)
            }
        }
        guard try lookup.statement.step() else { throw SQLiteError(code: 1, message: "upserted row not found", sql: nil) }
        return lookup.statement.int64(at: 0)
    }

    // MARK: - Membership

    /// The run of row ids this writer inserted for its defining request and has not recorded
    /// yet, in the table it wrote last (`flushRanges` records it); those of other tables it
    /// wrote into in between wait in `parkedRuns`.
    private var run: (tbl: Int64, lo: Int64, hi: Int64)?
    private var parkedRuns: [Int64: (lo: Int64, hi: Int64)] = [:]
    /// `Shared.rangesCoverUpTo` of the table written last.
    private var coverCache: (tbl: Int64, upTo: Int64)?

    /// Records `rid` of `table` as a member of the writer's request: a row a download
    /// inserted joins the run of row ids it is writing (`MemberRanges`), any other row gets
    /// an `ods_members` row (one statement prepared once per store file, integers bound
    /// directly).
    func recordMembership(_ table: EntityTable, rid: Int64, inserted: Bool) throws(SQLiteError) {
        let tid = tableID(table)
        if inserted {
            // A new row: no range may cover its id (it may be the id of a removed row).
            if try coveredUpTo(tid) >= rid { try MemberRanges(file: file).cut(tbl: tid, rid: rid) }
            if requestID != 0 {
                if let r = run, r.tbl == tid, r.hi + 1 == rid {
                    run = (tid, r.lo, rid)
                    return
                }
                if let r = run {
                    if r.tbl == tid {
                        try addRange(tid, r.lo, r.hi)
                    } else {
                        parkedRuns[r.tbl] = (r.lo, r.hi)
                    }
                }
                run = (tid, rid, rid)
                if let parked = parkedRuns.removeValue(forKey: tid) {
                    if parked.hi + 1 == rid { run = (tid, parked.lo, rid) } else { try addRange(tid, parked.lo, parked.hi) }
                }
                return
            }
        }
        let members: SQLiteStatement
        if let m = shared.membersStatement { members = m } else {
            members = try file.connection.prepare("INSERT OR IGNORE INTO ods_members (request, tbl, rid) VALUES (?1, ?2, ?3)")
            shared.membersStatement = members
        }
        defer { members.reset() }
        try members.bind(.integer(requestID), at: 1)
        try members.bind(.integer(tid), at: 2)
        try members.bind(.integer(rid), at: 3)
        _ = try members.step()
    }

    /// Writes the runs of inserted row ids still open (at the end of each page, inside its
    /// transaction, before anything reads memberships).
    private func flushRanges() throws(SQLiteError) {
        if let r = run { parkedRuns[r.tbl] = (r.lo, r.hi) }
        run = nil
        for tid in parkedRuns.keys.sorted() {
            guard let r = parkedRuns[tid] else { continue }
            try addRange(tid, r.lo, r.hi)
        }
        parkedRuns.removeAll()
    }

    private func addRange(_ tid: Int64, _ lo: Int64, _ hi: Int64) throws(SQLiteError) {
        try MemberRanges(file: file).add(request: requestID, tbl: tid, lo: lo, hi: hi)
        let upTo = max(try coveredUpTo(tid), hi)
        shared.rangesCoverUpTo[tid] = upTo
        coverCache = (tid, upTo)
    }

    /// No range of table `tid` covers a row id above this.
    private func coveredUpTo(_ tid: Int64) throws(SQLiteError) -> Int64 {
        if let c = coverCache, c.tbl == tid { return c.upTo }
        let upTo: Int64
        if let v = shared.rangesCoverUpTo[tid] { upTo = v } else {
            upTo = try MemberRanges(file: file).maxCovered(tbl: tid)
            shared.rangesCoverUpTo[tid] = upTo
        }
        coverCache = (tid, upTo)
        return upTo
    }

    /// `INSERT` of `rows` rows (`VALUES (?1, ...)`; more rows: `VALUES (?, ...), (?, ...)`, the same numbering).
    private func insertSQL(_ table: EntityTable, _ present: [Int], rows: Int = 1) -> String {
        var names = [EntityTable.typeColumn, EntityTable.etagColumn, EntityTable.extraColumn].map(SQLName.quote)
        names += present.map { table.columns[$0].quoted }
        let n = names.count
        if rows == 1 {
            return "INSERT INTO \(table.quoted) (\(names.joined(separator: ", "))) VALUES (\((1...n).map { "?\($0)" }.joined(separator: ", ")))"
        }
        // Several rows: parameters numbered in order (`?`; SQLite looks each `?N` up in a list).
        let tuple = "(" + [String](repeating: "?", count: n).joined(separator: ", ") + ")"
        let tuples = [String](repeating: tuple, count: rows)
        return "INSERT INTO \(table.quoted) (\(names.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))"
    }

    private func upsertStatement(_ table: EntityTable, _ present: [Int]) throws(SQLiteError) -> SQLiteStatement {
        let key = UpsertKey(table: ObjectIdentifier(table), present: present, protects: protectsLocalChanges)
        if let st = shared.upsertStatements[key] { return st }
        let st = try file.connection.prepare(upsertSQL(table, present))
        shared.upsertStatements[key] = st
        return st
    }

    func upsertSQL(_ table: EntityTable, _ present: [Int], rows: Int = 1) -> String {
        var names = [EntityTable.typeColumn, EntityTable.etagColumn, EntityTable.extraColumn].map(SQLName.quote)
        names += present.map { table.columns[$0].quoted }
        let keys = table.keyColumns.map(\.quoted).joined(separator: ", ")
        let updates = names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        var sql = insertSQL(table, present, rows: rows) + " "
            + "ON CONFLICT (\(keys)) DO UPDATE SET \(updates)"
        if protectsLocalChanges { sql += " WHERE \(SQLName.quote(EntityTable.stateColumn)) = 0" }
        return sql
    }

    /// Records the expanded relationship of `parent` (link tables only: column joins need nothing).
    private func link(_ link: NavigationLink, parent: Int64, children: [Int64], replace: Bool) throws(SQLiteError) {
        guard case .linkTable(let table, let reversed) = link.join else { return }
        let t = SQLName.quote(table)
        let (mine, theirs) = reversed ? ("dst", "src") : ("src", "dst")
        if replace || !link.isCollection {
            try file.connection.run("DELETE FROM \(t) WHERE \(mine) = ?1", [.integer(parent)])
        }
        for child in children {
            try file.connection.run("INSERT OR IGNORE INTO \(t) (\(mine), \(theirs)) VALUES (?1, ?2)", [.integer(parent), .integer(child)])
        }
    }
}

