import ODataStore

/// Renders canonical JSON as a text table for people: one row per entity (or the single
/// entity / value), one column per top-level property; nested values as compact JSON.
enum Table {
    static let maxWidth = 40

    static func render(_ json: String) -> String {
        guard !json.isEmpty, let value = try? JSONValue.parse(json) else { return json }
        var rows: [JSONObject] = []
        if case .array(let items)? = value["value"] {
            for item in items {
                if case .object(let o) = item { rows.append(o) } else {
                    var o = JSONObject()
                    o["value"] = item
                    rows.append(o)
                }
            }
        } else if case .object(let o) = value {
            rows = [o]
        }
        var columns: [String] = []
        for r in rows {
            for m in r where !m.key.hasPrefix("@") && !columns.contains(m.key) { columns.append(m.key) }
        }
        guard !columns.isEmpty else { return "(no rows)" }
        let cells: [[String]] = rows.map { r in columns.map { c in text(r[c]) } }
        var widths = columns.map { $0.count }
        for row in cells { for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) } }
        func line(_ values: [String]) -> String {
            var text = values.enumerated().map { i, v in v + String(repeating: " ", count: widths[i] - v.count) }.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        var out = [line(columns), line(widths.map { String(repeating: "-", count: $0) })]
        out += cells.map(line)
        out.append("(\(rows.count) row\(rows.count == 1 ? "" : "s"))")
        return out.joined(separator: "\n")
    }

    private static func text(_ v: JSONValue?) -> String {
        var s: String
        switch v {
        case nil: s = ""
        case .null?: s = "null"
        case .string(let t)?: s = t
        case .number(let n)?: s = n
        case .bool(let b)?: s = b ? "true" : "false"
        case let other?: s = other.serialized()
        }
        s = String(s.map { $0 == "\n" || $0 == "\t" ? " " : $0 })
        if s.count > maxWidth { s = String(s.prefix(maxWidth - 1)) + "…" }
        return s
    }
}
