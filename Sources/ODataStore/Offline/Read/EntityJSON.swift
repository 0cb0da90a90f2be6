import CSQLite
import Glibc

/// Writes rows of an entity table as entities in the canonical JSON shape
/// (docs/json-shape.md): `@odata.etag`, `@odata.type` for derived types, the properties
/// (flattened complex values nested again, Int64 and Decimal as strings), the members kept
/// in `@extra`, then expanded navigation properties (written by the caller).
///
/// A row is read from a statement whose columns are `EntityJSON.selectList(table)`.
struct EntityJSON {
    let table: EntityTable
    let model: ServiceModel
    /// Top-level property names to write; nil writes them all.
    let selected: Set<String>?

    /// `@rid, @type, @etag, @extra, @state, <every column>` qualified with `alias`.
    static func selectList(_ table: EntityTable, alias: String) -> String {
        ([EntityTable.ridColumn, EntityTable.typeColumn, EntityTable.etagColumn, EntityTable.extraColumn, EntityTable.stateColumn]
            .map { "\(alias).\(SQLName.quote($0))" }
            + table.columns.map { "\(alias).\($0.quoted)" }).joined(separator: ", ")
    }

    static let fixedColumns = 5

    /// The instance annotations that tell an app an entity has local changes not uploaded yet,
    /// or a change the service refused (it is in the error archive).
    static let pendingAnnotation = "@odatastore.pending"
    static let errorAnnotation = "@odatastore.error"

    /// V2 projections: the service root, for the `@odata.id` of entities whose keys `$select`
    /// left out (nil for V4, where services send the key properties with any `$select`).
    let v2Root: String?

    init(table: EntityTable, model: ServiceModel, select: [SelectItem]?, serviceRoot: String? = nil) {
        self.table = table
        self.model = model
        if let select, !select.isEmpty, !select.contains(where: { $0.path.first == "*" }) {
            // "NS.Derived/Prop" selects Prop of derived entities.
            var names = Set(select.compactMap { item in item.path.first(where: { !$0.contains(".") }) })
            if model.version == .v4 {
                // V4 services send the key properties with any $select (they identify the entity).
                names.formUnion(table.keyColumns.map { $0.path[0] })
                v2Root = nil
            } else {
                // V2 services send what was selected and the entity's URI (SAP: __metadata.uri).
                v2Root = serviceRoot
            }
            selected = names
        } else {
            selected = nil
            v2Root = nil
        }
    }

    /// The entity's URI as V2 services write it: `<root><Set>(<key>)` (`Products(7)`,
    /// `Flights(carrid='LH',connid='0400',fldate=datetime'2026-06-01T00:00:00')`).
    func v2EntityID(_ s: SQLiteStatement, root: String) -> String {
        var parts: [String] = []
        for (name, column) in zip(table.keyNames, table.keyColumns) {
            guard let i = table.columns.firstIndex(of: column) else { continue }
            let at = i + Self.fixedColumns
            var literal: String
            switch column.kind {
            case .integer:
                literal = String(s.int64(at: at)) + (column.edm == .int64 ? "L" : "")
            case .decimal:
                literal = (s.text(at: at) ?? "0") + "M"
            case .instant:
                var t = s.text(at: at) ?? ""
                if t.hasSuffix("Z") { t.removeLast() }
                literal = column.edm == .dateTimeOffset ? "datetimeoffset'\(t)'" : "datetime'\(t)'"
            default:
                let text = s.text(at: at) ?? ""
                literal = column.edm == .guid ? "guid'\(text)'" : "'" + text.replacingAll("'", with: "''") + "'"
            }
            parts.append(table.keyColumns.count == 1 ? literal : "\(name)=\(literal)")
        }
        let root = root.hasSuffix("/") ? root : root + "/"
        return RequestURL.encode(root + table.entitySet + "(" + parts.joined(separator: ",") + ")")
    }

    /// The row's `@rid`.
    static func rid(_ s: SQLiteStatement) -> Int64 { s.int64(at: 0) }

    /// Writes the row's entity object without its closing brace (the caller adds expanded
    /// navigation properties, then `}`). Returns whether a member was written (for commas).
    func writeOpen(_ s: SQLiteStatement, into out: inout [UInt8]) -> Bool {
        out.append(UInt8(ascii: "{"))
        var first = true
        func comma() {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
        }
        if let root = v2Root, let selected, !table.keyColumns.allSatisfy({ selected.contains($0.path[0]) }) {
            comma()
            out.append(contentsOf: "\"@odata.id\":".utf8)
            JSONWriter.writeString(v2EntityID(s, root: root), into: &out)
        }
        if let etag = s.text(at: 2) {
            comma()
            out.append(contentsOf: "\"@odata.etag\":".utf8)
            JSONWriter.writeString(etag, into: &out)
        }
        let type = s.text(at: 1)
        if let type {
            comma()
            out.append(contentsOf: "\"@odata.type\":".utf8)
            JSONWriter.writeString("#" + type, into: &out)
        }
        // The row's own type and its base types: only their properties apply to it.
        let applicable = applicableTypes(type)
        var i = 0
        let columns = table.columns
        while i < columns.count {
            let c = columns[i]
            guard c.path.count == 1 else { i += 1; continue }
            if let applicable, !applicable.contains(c.declaringType) { i = skipMembers(after: i); continue }
            if let selected, !selected.contains(c.path[0]) { i = skipMembers(after: i); continue }
            comma()
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: c.path[0].utf8)
            out.append(contentsOf: "\":".utf8)
            i = writeValue(s, column: i, into: &out)
        }
        if let extra = s.withText(at: 3, { Array($0) }), extra.count > 2, extra.first == UInt8(ascii: "{"), extra.last == UInt8(ascii: "}") {
            comma()
            out.append(contentsOf: extra[1..<(extra.count - 1)])
        }
        switch RowState(rawValue: s.int64(at: 4)) {
        case .pending?:
            comma()
            out.append(contentsOf: "\"\(Self.pendingAnnotation)\":true".utf8)
        case .error?:
            comma()
            out.append(contentsOf: "\"\(Self.pendingAnnotation)\":true,\"\(Self.errorAnnotation)\":true".utf8)
        default:
            break
        }
        return !first
    }

    /// nil when every column applies (the row is of the set's declared type and no derived
    /// type adds properties).
    private func applicableTypes(_ type: String?) -> Set<String>? {
        guard !table.derivedTypes.isEmpty else { return nil }
        let name = type ?? table.entityType
        guard let t = model.structuredType(name) else { return nil }
        return Set(model.lineage(of: t).map(\.qualifiedName))
    }

    /// The index after the column at `i` and the members flattened below it.
    private func skipMembers(after i: Int) -> Int {
        let prefix = table.columns[i].path
        var j = i + 1
        while j < table.columns.count, table.columns[j].path.count > prefix.count,
              Array(table.columns[j].path.prefix(prefix.count)) == prefix { j += 1 }
        return j
    }

    /// Writes the value of the column at `i` (a flattened complex value with its members) and
    /// returns the index of the next column to look at.
    func writeValue(_ s: SQLiteStatement, column i: Int, into out: inout [UInt8]) -> Int {
        let c = table.columns[i]
        let at = i + Self.fixedColumns
        if c.kind == .presence {
            let end = skipMembers(after: i)
            if s.isNull(at: at) {
                out.append(contentsOf: "null".utf8)
                return end
            }
            out.append(UInt8(ascii: "{"))
            var j = i + 1
            var first = true
            while j < end {
                let m = table.columns[j]
                if m.path.count != c.path.count + 1 { j += 1; continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: m.path[m.path.count - 1].utf8)
                out.append(contentsOf: "\":".utf8)
                j = writeValue(s, column: j, into: &out)
            }
            out.append(UInt8(ascii: "}"))
            return end
        }
        Self.writeScalar(s, at: at, column: c, into: &out)
        return i + 1
    }

    /// Writes one stored value as canonical JSON.
    static func writeScalar(_ s: SQLiteStatement, at index: Int, column c: Column, into out: inout [UInt8]) {
        switch s.type(at: index) {
        case SQLITE_NULL:
            out.append(contentsOf: "null".utf8)
        case SQLITE_INTEGER:
            let v = s.int64(at: index)
            switch c.kind {
            case .boolean: out.append(contentsOf: (v != 0 ? "true" : "false").utf8)
            case .real: writeDouble(Double(v), into: &out)
            case .decimal, .text, .instant, .duration:
                out.append(UInt8(ascii: "\"")); out.append(contentsOf: String(v).utf8); out.append(UInt8(ascii: "\""))
            default:
                if c.edm == .int64 {
                    out.append(UInt8(ascii: "\"")); out.append(contentsOf: String(v).utf8); out.append(UInt8(ascii: "\""))
                } else {
                    out.append(contentsOf: String(v).utf8)
                }
            }
        case SQLITE_FLOAT:
            writeDouble(s.double(at: index), into: &out)
        default:
            if c.kind == .json {
                _ = s.withText(at: index) { out.append(contentsOf: $0) }
                return
            }
            out.append(UInt8(ascii: "\""))
            _ = s.withText(at: index) { JSONWriter.writeEscaped($0, into: &out) }
            out.append(UInt8(ascii: "\""))
        }
    }

    /// A double as JSON: the shortest text that reads back the same; INF, -INF and NaN as the
    /// canonical shape's strings.
    static func writeDouble(_ v: Double, into out: inout [UInt8]) {
        if v.isNaN { out.append(contentsOf: "\"NaN\"".utf8); return }
        if v.isInfinite { out.append(contentsOf: (v < 0 ? "\"-INF\"" : "\"INF\"").utf8); return }
        var text = v.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        out.append(contentsOf: text.utf8)
    }
}
