import ODataProtocol

/// The `$skiptoken` of a page the offline store answered: how many entities the pages before
/// delivered (for `$top`) and the values the last of them had in the request's order (its
/// `$orderby` terms, then the key). The next page starts after that entity, by value, as a
/// service's key-based token does: an entity deleted or added between two page reads neither
/// makes the next page skip one nor repeat one (an offset would).
///
/// Text form: `<delivered>.<value>.<value>...`, each value `n` (null), `i<integer>`,
/// `r<IEEE 754 bits, hex>`, `t<UTF-8, hex>` or `b<bytes, hex>`: only unreserved URI
/// characters, so the next link needs no escaping. A token of digits alone is an offset (what
/// earlier versions made; `$skip` without the value condition).
struct LocalSkipToken: Equatable {
    /// One term of the order a token continues: SQL without its direction (collation
    /// included), and for a key column its kind (a token's value there must be one that
    /// column holds: keys are never NULL, and a text key is never an integer).
    struct Term {
        var sql: String
        var descending: Bool
        var key: ColumnKind?
    }

    /// Entities the pages before this one delivered.
    var delivered: Int
    /// The order values of the last of them; nil for an offset token.
    var after: [SQLValue]?

    init(delivered: Int, after: [SQLValue]?) {
        self.delivered = delivered
        self.after = after
    }

    /// Parses a token; nil for text this type did not make.
    init?(_ text: String) {
        let fields = text.split(separator: ".", omittingEmptySubsequences: false)
        guard let first = fields.first, !first.isEmpty, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        // 1*DIGIT has no bound: past Int.max the offset saturates (an empty page, as $skip).
        delivered = Int(first) ?? Int.max
        if fields.count == 1 {
            after = nil
            return
        }
        var values: [SQLValue] = []
        for field in fields.dropFirst() {
            guard let tag = field.first else { return nil }
            let rest = String(field.dropFirst())
            switch tag {
            case "n" where rest.isEmpty: values.append(.null)
            case "i":
                guard let v = Int64(rest) else { return nil }
                values.append(.integer(v))
            case "r":
                guard rest.utf8.count == 16, let bits = UInt64(rest, radix: 16) else { return nil }
                values.append(.real(Double(bitPattern: bits)))
            case "t":
                guard let bytes = BinaryLiteral.fromHex(rest), let s = String(validating: bytes, as: UTF8.self) else { return nil }
                values.append(.text(s))
            case "b":
                guard let bytes = BinaryLiteral.fromHex(rest) else { return nil }
                values.append(.blob(bytes))
            default: return nil
            }
        }
        after = values
    }

    /// Whether `after` can be the values of a row in the order `terms` give: one per term, and
    /// each key term's of the storage class its column holds. (The other terms are
    /// expressions whose values any class may be.)
    func fits(_ terms: [Term]) -> Bool {
        guard let after, after.count == terms.count else { return after == nil }
        for (term, value) in zip(terms, after) {
            guard let kind = term.key else { continue }
            switch (kind, value) {
            case (.integer, .integer), (.boolean, .integer), (.presence, .integer): continue
            case (.real, .real), (.real, .text("NaN")): continue  // NaN is kept as TEXT (ColumnKind.real)
            case (.text, .text), (.decimal, .text), (.instant, .text), (.duration, .text), (.json, .text): continue
            default: return false
            }
        }
        return true
    }

    var text: String {
        var out = String(delivered)
        for v in after ?? [] {
            out += "."
            switch v {
            case .null: out += "n"
            case .integer(let i): out += "i\(i)"
            case .real(let d):
                let hex = String(d.bitPattern, radix: 16)
                out += "r" + String(repeating: "0", count: 16 - hex.utf8.count) + hex
            case .text(let s): out += "t" + BinaryLiteral.hex(Array(s.utf8))
            case .blob(let b): out += "b" + BinaryLiteral.hex(b)
            }
        }
        return out
    }

    /// The SQL condition (without WHERE) of the rows that come after `after` in the order
    /// `terms` give (each an ORDER BY term without its direction, collation included), with
    /// SQLite's placement of NULL: first when ascending, last when descending. The values are
    /// bound into `params`. The last term is unique (the key), so the order is total.
    ///
    /// Flat form, `(t1 after v1) OR (t1 IS v1 AND t2 after v2) OR ...`: its nesting does not
    /// grow with the number of terms (SQLite's parser stack is small; SQLNesting).
    static func condition(terms: [Term], after: [SQLValue], _ params: inout SQLParameters) -> String {
        precondition(terms.count == after.count)
        let placeholders = after.map { params.bind($0) }
        var alternatives: [String] = []
        for i in terms.indices {
            var parts: [String] = []
            for j in 0..<i { parts.append("\(terms[j].sql) IS \(placeholders[j])") }
            let t = terms[i].sql
            let v = placeholders[i]
            switch (terms[i].descending, after[i] == .null) {
            case (false, false): parts.append("\(t) > \(v)")
            case (false, true): parts.append("\(t) IS NOT NULL")
            case (true, false): parts.append("(\(t) < \(v) OR \(t) IS NULL)")
            case (true, true): continue  // nothing sorts after NULL when descending
            }
            alternatives.append("(" + parts.joined(separator: " AND ") + ")")
        }
        return alternatives.isEmpty ? "0" : "(" + alternatives.joined(separator: " OR ") + ")"
    }
}
