import CSQLite

/// String functions (`contains`, `startswith`, `endswith`, `length`, `indexof`,
/// `substring`, `tolower`, `toupper`, `trim`), by code point and case-sensitive: SQLite's
/// `LIKE` ignores ASCII case and treats `%`/`_` as wildcards, its `lower`/`upper` only
/// know ASCII. See `UnicodeText`.
extension SQLFunctions {
    static let strings: [Entry] = [
        Entry(name: "ods_contains", arguments: 2) { c, n, v in
            SQLFunctions.matching(SQLFunctionCall(c, n, v), UnicodeText.contains)
        },
        Entry(name: "ods_startswith", arguments: 2) { c, n, v in
            SQLFunctions.matching(SQLFunctionCall(c, n, v), UnicodeText.hasPrefix)
        },
        Entry(name: "ods_endswith", arguments: 2) { c, n, v in
            SQLFunctions.matching(SQLFunctionCall(c, n, v), UnicodeText.hasSuffix)
        },
        Entry(name: "ods_length", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            call.result(Int64(call.withText(0) { UnicodeText.length($0) }))
        },
        Entry(name: "ods_indexof", arguments: 2) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            let needle = Array(call.withText(1) { Array($0) })
            let index = call.withText(0) { h in needle.withUnsafeBufferPointer { UnicodeText.indexOf(h, $0) } }
            call.result(Int64(index))
        },
        Entry(name: "ods_substring", arguments: 2) { c, n, v in
            SQLFunctions.substring(SQLFunctionCall(c, n, v))
        },
        Entry(name: "ods_substring", arguments: 3) { c, n, v in
            SQLFunctions.substring(SQLFunctionCall(c, n, v))
        },
        Entry(name: "ods_tolower", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            call.result(UnicodeText.lowercased(call.string(0)))
        },
        Entry(name: "ods_toupper", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            call.result(UnicodeText.uppercased(call.string(0)))
        },
        Entry(name: "ods_trim", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            call.result(UnicodeText.trimmed(call.string(0)))
        },
    ]

    static func matching(_ call: SQLFunctionCall, _ test: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        if call.anyNull { return call.resultNull() }
        // Copy the second argument: reading one argument's text may move the other's.
        let needle = call.withText(1) { Array($0) }
        let found = call.withText(0) { h in needle.withUnsafeBufferPointer { test(h, $0) } }
        call.result(found)
    }

    static func substring(_ call: SQLFunctionCall) {
        if call.anyNull { return call.resultNull() }
        guard let start = integerArgument(call, 1) else { return call.fail("substring needs an integer start") }
        var length: Int64?
        if call.count > 2 {
            guard let l = integerArgument(call, 2) else { return call.fail("substring needs an integer length") }
            length = l
        }
        call.withText(0) { b in
            do {
                let r = try UnicodeText.substring(b, start: start, length: length)
                call.result(bytes: UnsafeBufferPointer(rebasing: b[r]))
            } catch {
                call.fail("substring with a negative length")
            }
        }
    }

    /// An argument that must be an integer: INTEGER, an integral REAL or integer text.
    static func integerArgument(_ call: SQLFunctionCall, _ i: Int) -> Int64? {
        switch call.type(i) {
        case SQLITE_INTEGER: return call.int64(i)
        case SQLITE_FLOAT:
            let d = call.double(i)
            guard d.rounded(.towardZero) == d, let v = Int64(exactly: d) else { return nil }
            return v
        default:
            return Int64(call.string(i))
        }
    }
}
