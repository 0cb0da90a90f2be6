/// A value bound to or read from SQLite, by storage class.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue: CustomStringConvertible {
    var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let v): "'" + v.replacingAll("'", with: "''") + "'"
        case .blob(let b): "X'" + b.map { String($0, radix: 16) }.joined() + "'"
        }
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard let first = target.utf8.first else { return self }
        // Most strings (SQL names, keys) do not hold an ASCII target's first byte at all: a
        // byte scan says so without the character-by-character search (for an ASCII target a
        // missing byte means no match: no other character equals an ASCII one).
        if target.utf8.allSatisfy({ $0 < 0x80 }), !utf8.contains(first) { return self }
        guard contains(target) else { return self }
        var out = ""
        var rest = self[...]
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        out += rest
        return out
    }
}

/// SQL identifiers: every table and column name the store makes is quoted, so names from
/// `$metadata` (or paths such as `Address/City`) can never change a statement's meaning.
enum SQLName {
    static func quote(_ name: String) -> String {
        "\"" + name.replacingAll("\"", with: "\"\"") + "\""
    }
}
