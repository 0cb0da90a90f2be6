import Glibc
import ODataProtocol

/// A decoded page and the spans its decoder recorded (`PayloadSpans`): where each member's
/// key and value are in the canonical JSON. Borrowed for one `writePage` call.
struct SpanPage {
    let spans: PayloadSpans
    let page: UnsafeBufferPointer<UInt8>
    /// A scanner over the page used only to decode tokens (`string`, `unescape`, `equals`): it never scans here.
    let u: JSONScanner

    /// The members of object `o`, in the order of the text.
    @inline(__always)
    func members(of o: Int) -> Slice<UnsafeBufferPointer<PayloadSpans.Member>> {
        let obj = spans.objects[o]
        return spans.members[Int(obj.firstMember)..<Int(obj.firstMember + obj.memberCount)]
    }

    /// The string value in `vs..<ve` (quotes included) as a token; nil when it is not a string.
    @inline(__always)
    func string(_ vs: Int, _ ve: Int) -> JSONScanner.StringToken? {
        guard ve - vs >= 2, page[vs] == UInt8(ascii: "\"") else { return nil }
        let base = page.baseAddress! + vs + 1
        let escaped = memchr(base, 0x5C, ve - vs - 2) != nil
        return JSONScanner.StringToken(start: vs + 1, end: ve - 1, escaped: escaped)
    }

    /// A scanner positioned at `offset`, for a value the spans do not describe.
    func scanner(at offset: Int) -> JSONScanner {
        var s = JSONScanner(base: page.baseAddress!, count: page.count, maxDepth: PayloadDecoder.maxDepth + 2)
        s.pos = offset
        return s
    }
}

/// A member position of the spans path's cache: the key's bytes in the page and its column
/// (or expansion: -2 - item; -1: neither).
struct SpanKey {
    var start: Int
    var end: Int
    var index: Int
}

/// The spans path's memo for one table while one page is written (`EntityWriter.spanTables`):
/// the column of each member ordinal the page's decoder gave (`PayloadSpans.Member.ordinal`),
/// so a declared property's column is one array read per member (no name compared), and the
/// position cache (`SpanKey`) for the members that have no ordinal. Owned by one writer, on
/// the database thread; made per page (the ordinals and offsets are the page's).
final class SpanTableMemo {
    /// `SpanKey` per position among the members read by name, as in the last entity.
    var keys: [SpanKey] = []
    /// Per ordinal: its column when the member is a column read as one value, -1 when it is
    /// not (a flattened complex value's presence column, an expansion, a name with no
    /// column: read by name), `unresolved` until the first member with that ordinal.
    private(set) var columns: UnsafeMutablePointer<Int32>
    private(set) var count = 0
    /// Each column's kind, by column index.
    let kinds: UnsafeMutablePointer<ColumnKind>
    private let kindCount: Int
    static let unresolved = Int32.min

    init(kinds: [ColumnKind]) {
        kindCount = kinds.count
        self.kinds = .allocate(capacity: max(kinds.count, 1))
        self.kinds.initialize(from: kinds, count: kinds.count)
        columns = .allocate(capacity: 1)
    }

    deinit {
        kinds.deinitialize(count: kindCount)
        kinds.deallocate()
        columns.deallocate()
    }

    /// Makes room for ordinals below `n` (new ones unresolved).
    func grow(to n: Int) {
        guard n > count else { return }
        let p = UnsafeMutablePointer<Int32>.allocate(capacity: n)
        p.update(from: columns, count: count)
        (p + count).initialize(repeating: Self.unresolved, count: n - count)
        columns.deallocate()
        columns = p
        count = n
    }
}

/// The writer's path through a page with spans: each entity's members come from its object's
/// spans instead of the scanner, with the same decisions, member by member, as the scanning
/// path in `EntityWriter.swift` (the two must stay in step: `SpanWriterTests` writes every
/// fixture both ways and compares the stores). Values the spans do not describe (an object
/// the decoder copied without recording it) are read by the scanning path from their offset.
extension EntityWriter {
    /// Writes the entities of the array whose `[` is at `start`; `candidate` is the index its
    /// first object element has in the spans. `each` gets each element's row id (nil for `null`,
    /// and for an entity of the page's own array, `top`, that waits to be written: `write`).
    func entities(inArrayAt start: Int, candidate: Int, _ sp: SpanPage, table: EntityTable, expand: ExpandPlan,
                  top: Bool = false, each: (Int64?) -> Void) throws(JSONError) {
        let page = sp.page
        var p = start + 1
        var c = candidate
        guard p < page.count else { throw JSONError(offset: p, message: "unterminated array") }
        if page[p] == UInt8(ascii: "]") { return }
        while true {
            if page[p] == UInt8(ascii: "{"), let o = sp.spans.object(at: p, candidate: c) {
                each(try entity(object: o, sp, table: table, expand: expand, top: top))
                p = Int(sp.spans.objects[o].end)
                c = Int(sp.spans.objects[o].subtreeEnd)
            } else {
                var s = sp.scanner(at: p)
                each(try entity(&s, page, table: table, expand: expand, top: top))
                p = s.pos
            }
            guard p < page.count else { throw JSONError(offset: p, message: "unterminated array") }
            if page[p] == UInt8(ascii: ",") {
                p += 1
                continue
            }
            if page[p] == UInt8(ascii: "]") { return }
            throw JSONError(offset: p, message: "expected ',' or ']' in array")
        }
    }

    /// The entity value at `vs` (`candidate`: the index its object has in the spans): an
    /// object, or null for a to-one navigation that has none.
    private func entity(at vs: Int, candidate: Int, _ sp: SpanPage, table: EntityTable, expand: ExpandPlan) throws(JSONError) -> Int64? {
        if sp.page[vs] == UInt8(ascii: "{"), let o = sp.spans.object(at: vs, candidate: candidate) {
            return try entity(object: o, sp, table: table, expand: expand)
        }
        var s = sp.scanner(at: vs)
        return try entity(&s, sp.page, table: table, expand: expand)
    }

    /// Whether `bytes` are exactly `text` (one length check and a `memcmp`).
    @inline(__always)
    static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, are text: StaticString) -> Bool {
        bytes.count == text.utf8CodeUnitCount && memcmp(bytes.baseAddress!, text.utf8Start, bytes.count) == 0
    }

    /// The memo of `table` for this page (made on first use).
    @inline(__always)
    private func spanTable(_ table: EntityTable, _ id: ObjectIdentifier) -> SpanTableMemo {
        if let last = lastSpanTable, last.table == id { return last.memo }
        let memo: SpanTableMemo
        if let m = spanTables[id] {
            memo = m
        } else {
            memo = SpanTableMemo(kinds: columnKinds(table))
            spanTables[id] = memo
        }
        lastSpanTable = (id, memo)
        return memo
    }

    /// The column member `m` (with an ordinal) is read into as one value, or -1; resolved by
    /// its name once per page and ordinal.
    private func column(ordinal: Int, _ m: PayloadSpans.Member, _ sp: SpanPage, table: EntityTable,
                        memo: SpanTableMemo) -> Int {
        memo.grow(to: ordinal + 1)
        let name = sp.u.string(JSONScanner.StringToken(start: Int(m.keyStart), end: Int(m.keyEnd), escaped: false))
        var column: Int32 = -1
        if let index = topLevel(table)[name], memo.kinds[index] != .presence { column = Int32(index) }
        memo.columns[ordinal] = column
        return Int(column)
    }

    /// `entity(_:_:table:expand:)` for the recorded object `o`.
    func entity(object o: Int, _ sp: SpanPage, table: EntityTable, expand: ExpandPlan, top: Bool = false) throws(JSONError) -> Int64? {
        let members = sp.members(of: o)
        guard !members.isEmpty else {
            throw JSONError(offset: Int(sp.spans.objects[o].start) + 1, message: "an entity without properties")
        }
        var d = draft(for: table)
        defer { giveBack(&d) }
        let memo = spanTable(table, ObjectIdentifier(table))
        // The cells are moved out of the draft while its members are read, and written through
        // a pointer: no uniqueness check of the array per value.
        var cells: [CellValue?] = []
        swap(&cells, &d.cells)
        try cells.withUnsafeMutableBufferPointer { (cells) throws(JSONError) in
            var position = 0
            for m in members {
                // A declared property the decoder numbered, with a column: one array read finds
                // it. This loop does nothing else, so that it keeps its state in registers.
                let ordinal = Int(m.ordinal)
                if ordinal < memo.count {
                    let c = Int(memo.columns[ordinal])
                    if c >= 0 {
                        cells[c] = try cell(m, memo.kinds[c], sp)
                        continue
                    }
                }
                try member(m, sp, table: table, expand: expand, memo: memo, &d, cells, position: &position)
            }
        }
        swap(&cells, &d.cells)
        return try write(table, &d, page: sp.page, at: Int(sp.spans.objects[o].end), top: top)
    }

    /// A member of an entity (`entity(object:)`) that is not a column found by its ordinal:
    /// an ordinal met for the first time, control information, annotations, flattened complex
    /// values, expansions, unknown members, the members of a page with no ordinals (V2, or a
    /// type beyond the decoder's 16). The members read by name are found by their position
    /// among them (`position`, the memo's `keys`), as in the last entity, before any hashing.
    @inline(never)
    private func member(_ m: PayloadSpans.Member, _ sp: SpanPage, table: EntityTable, expand: ExpandPlan, memo: SpanTableMemo,
                        _ d: inout EntityDraft, _ cells: UnsafeMutableBufferPointer<CellValue?>,
                        position: inout Int) throws(JSONError) {
        let page = sp.page
        let u = sp.u
        let base = page.baseAddress!
        let ordinal = Int(m.ordinal)
        if ordinal < PayloadSpans.ordinalLimit, ordinal >= memo.count || memo.columns[ordinal] == SpanTableMemo.unresolved {
            let c = column(ordinal: ordinal, m, sp, table: table, memo: memo)
            if c >= 0 {
                cells[c] = try cell(m, memo.kinds[c], sp)
                return
            }
        }
        let ks = Int(m.keyStart)
        let ke = Int(m.keyEnd)
        let vs = Int(m.valueStart)
        let ve = Int(m.valueEnd)
        // The common case first: a property at the position it had in the last entity.
        if position < memo.keys.count, !m.keyEscaped {
            let c = memo.keys[position]
            if c.index >= 0, c.end - c.start == ke - ks, ShortBytes.equal(base + c.start, base + ks, count: ke - ks) {
                position += 1
                let kind = memo.kinds[c.index]
                if kind != .presence {
                    cells[c.index] = try value(vs, ve, sp, kind)
                    return
                }
                try complex(at: vs, candidate: Int(m.firstObject), sp, table: table, prefix: table.columns[c.index].pathText,
                            presence: c.index, into: cells)
                return
            }
        }
        let key = JSONScanner.StringToken(start: ks, end: ke, escaped: m.keyEscaped)
        let keyBytes = UnsafeBufferPointer(rebasing: page[key.start..<key.end])
        if !key.escaped, let first = keyBytes.first, first == UInt8(ascii: "@") {
            if Self.bytes(keyBytes, are: "@odata.etag") {
                d.etag = try text(vs, ve, sp)
            } else if u.equals(key, "@odata.removed") {
                d.removed = true
            } else if u.equals(key, "@odata.id"), let t = sp.string(vs, ve) {
                d.odataID = u.string(t)
                appendExtra(&d, page, key, vs, ve)
            } else if u.equals(key, "@odata.type") {
                guard let t = sp.string(vs, ve) else { throw JSONError(offset: vs, message: "expected a string") }
                var name = u.string(t)
                if name.hasPrefix("#") { name.removeFirst() }
                if name != table.entityType { d.type = arenaText(name) }
            } else {
                appendExtra(&d, page, key, vs, ve)
            }
            return
        }
        if !key.escaped, let at = keyBytes.firstIndex(of: UInt8(ascii: "@")) {
            // A property annotation: a nested next link means the expansion is partial.
            let name = String(decoding: UnsafeBufferPointer(rebasing: keyBytes[..<at]), as: UTF8.self)
            let annotation = String(decoding: UnsafeBufferPointer(rebasing: keyBytes[at...]), as: UTF8.self)
            if annotation == "@odata.nextLink" { d.incomplete.insert(name) }
            if !(expand.item(named: name) != nil && annotation.hasPrefix("@odata.")) {
                appendExtra(&d, page, key, vs, ve)
            }
            return
        }
        // A property or an expanded navigation: find its column (cached by position).
        var index = -1
        if position < memo.keys.count, !key.escaped, memo.keys[position].end - memo.keys[position].start == keyBytes.count,
           ShortBytes.equal(base + memo.keys[position].start, base + ks, count: ke - ks) {
            index = memo.keys[position].index
        } else {
            let name = u.string(key)
            index = topLevel(table)[name] ?? -1
            if index < 0, let item = expand.item(named: name) {
                index = -2 - (expand.items.firstIndex { $0.link.name == item.link.name } ?? 0)
            }
            let entry = SpanKey(start: ks, end: ke, index: index)
            if position < memo.keys.count { memo.keys[position] = entry } else { memo.keys.append(entry) }
        }
        position += 1
        if index >= 0 {
            let kind = memo.kinds[index]
            if kind == .presence {
                try complex(at: vs, candidate: Int(m.firstObject), sp, table: table, prefix: table.columns[index].pathText,
                            presence: index, into: cells)
            } else {
                cells[index] = try value(vs, ve, sp, kind)
            }
        } else if index <= -2 {
            let item = expand.items[-2 - index]
            var children: [Int64] = []
            if page[vs] == UInt8(ascii: "[") {
                try entities(inArrayAt: vs, candidate: Int(m.firstObject), sp, table: item.link.target, expand: item.nested) {
                    if let rid = $0 { children.append(rid) }
                }
            } else if let rid = try entity(at: vs, candidate: Int(m.firstObject), sp, table: item.link.target, expand: item.nested) {
                children.append(rid)
            }
            d.navigations.append((item, children, item.isComplete))
        } else {
            // A member the schema does not know (an open type's dynamic property).
            appendExtra(&d, page, key, vs, ve)
        }
    }

    /// A flattened complex value at `vs`: its presence column and its members' columns.
    private func complex(at vs: Int, candidate: Int, _ sp: SpanPage, table: EntityTable, prefix: String,
                         presence: Int, into cells: UnsafeMutableBufferPointer<CellValue?>) throws(JSONError) {
        guard sp.page[vs] == UInt8(ascii: "{"), let o = sp.spans.object(at: vs, candidate: candidate) else {
            var s = sp.scanner(at: vs)
            return try complex(&s, sp.page, table: table, prefix: prefix, presence: presence, into: cells)
        }
        cells[presence] = .integer(1)
        for m in sp.members(of: o) {
            let name = sp.u.string(JSONScanner.StringToken(start: Int(m.keyStart), end: Int(m.keyEnd), escaped: m.keyEscaped))
            if name.hasPrefix("@") { continue }  // @odata.type of a complex value: only non-derived complex types are flattened
            let path = prefix + "/" + name
            guard let index = table.columns.firstIndex(where: { $0.pathText == path }) else { continue }
            let kind = table.columns[index].kind
            if kind == .presence {
                try complex(at: Int(m.valueStart), candidate: Int(m.firstObject), sp, table: table, prefix: path,
                            presence: index, into: cells)
            } else {
                cells[index] = try value(Int(m.valueStart), Int(m.valueEnd), sp, kind)
            }
        }
    }

    // MARK: - Values

    /// `value` of member `m` for a column of `kind`: what the decoder said of the value
    /// (`PayloadSpans.plainString`) spares the search for escapes, and the common values are
    /// read here without the general switch.
    @inline(__always)
    private func cell(_ m: PayloadSpans.Member, _ kind: ColumnKind, _ sp: SpanPage) throws(JSONError) -> CellValue {
        let vs = Int(m.valueStart)
        let ve = Int(m.valueEnd)
        if m.valueKind == PayloadSpans.plainString {
            switch kind {
            case .json: return .raw(vs..<ve)
            case .real: return try value(vs, ve, sp, kind)  // INF, NaN: rare
            case .integer:
                if let v = JSONNumber.int64(UnsafeBufferPointer(rebasing: sp.page[(vs + 1)..<(ve - 1)])) { return .integer(v) }
            default: break
            }
            return .raw((vs + 1)..<(ve - 1))
        }
        let first = sp.page[vs]
        if first == UInt8(ascii: "n") { return .null }
        if kind != .json {
            if first == UInt8(ascii: "t") { return .integer(1) }
            if first == UInt8(ascii: "f") { return .integer(0) }
        }
        if kind == .integer, first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) {
            if let v = JSONNumber.int64(UnsafeBufferPointer(rebasing: sp.page[vs..<ve])) { return .integer(v) }
            return .raw(vs..<ve)
        }
        return try value(vs, ve, sp, kind)
    }

    private func text(_ vs: Int, _ ve: Int, _ sp: SpanPage) throws(JSONError) -> CellValue {
        if sp.page[vs] == UInt8(ascii: "n") { return .null }
        guard let t = sp.string(vs, ve) else { throw JSONError(offset: vs, message: "expected a string") }
        if !t.escaped { return .raw(t.start..<t.end) }
        return unescaped(t, sp.u)
    }

    /// The value in `vs..<ve` as a column of `kind` stores it.
    private func value(_ vs: Int, _ ve: Int, _ sp: SpanPage, _ kind: ColumnKind) throws(JSONError) -> CellValue {
        let page = sp.page
        let first = page[vs]
        if kind == .json {
            return first == UInt8(ascii: "n") ? .null : .raw(vs..<ve)
        }
        switch first {
        case UInt8(ascii: "n"):
            return .null
        case UInt8(ascii: "t"):
            return .integer(1)
        case UInt8(ascii: "f"):
            return .integer(0)
        case UInt8(ascii: "\""):
            guard let t = sp.string(vs, ve) else { throw JSONError(offset: vs, message: "unterminated string") }
            let bytes = UnsafeBufferPointer(rebasing: page[t.start..<t.end])
            switch kind {
            case .integer:
                if !t.escaped, let v = JSONNumber.int64(bytes) { return .integer(v) }
            case .real:
                if sp.u.equals(t, "INF") { return .real(.infinity) }
                if sp.u.equals(t, "-INF") { return .real(-.infinity) }
                if !t.escaped, !sp.u.equals(t, "NaN"), let v = JSONNumber.double(bytes) { return .real(v) }
            default: break
            }
            if !t.escaped { return .raw(t.start..<t.end) }
            return unescaped(t, sp.u)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return .raw(vs..<ve)
        default:
            let bytes = UnsafeBufferPointer(rebasing: page[vs..<ve])
            switch kind {
            case .integer, .boolean:
                if let v = JSONNumber.int64(bytes) { return .integer(v) }
                return .raw(vs..<ve)
            case .real:
                return JSONNumber.double(bytes).map { .real($0) } ?? .raw(vs..<ve)
            default:
                return .raw(vs..<ve)
            }
        }
    }

    /// Adds `"key":value` (both as in the page) to the entity's object of unknown members.
    private func appendExtra(_ d: inout EntityDraft, _ page: UnsafeBufferPointer<UInt8>, _ key: JSONScanner.StringToken,
                             _ vs: Int, _ ve: Int) {
        d.appendExtra(key: UnsafeBufferPointer(rebasing: page[key.start..<key.end]), value: UnsafeBufferPointer(rebasing: page[vs..<ve]))
    }
}
