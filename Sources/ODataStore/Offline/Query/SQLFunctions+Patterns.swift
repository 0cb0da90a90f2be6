import CSQLite

/// `ods_matches_pattern(text, pattern)`: OData's `matchesPattern` (V4.01 Part 2, 5.1.1.5.8),
/// 1 when the ECMAScript regular expression matches anywhere in the text, through the
/// store's own engine (`ECMARegex`, Regex/). NULL when an argument is NULL.
///
/// The compiled pattern is kept with the pattern argument for the run of the statement
/// (sqlite3_set_auxdata: the pattern is a bound parameter, compiled once, not per row).
/// An invalid pattern fails the statement with `fail` (the service refuses it too: HTTP
/// 400); a pattern beyond the engine's limits, or an evaluation beyond its step budget (a
/// catastrophic `(a+)+$` on a long value), with `refuse` (`.unsupported`), never a hang.
extension SQLFunctions {
    static let patterns: [Entry] = [
        Entry(name: "ods_matches_pattern", arguments: 2) { c, n, v in
            SQLFunctions.matchesPattern(SQLFunctionCall(c, n, v))
        },
    ]

    /// A compiled pattern with its UTF-8 source, kept as auxiliary data.
    /// Threading: immutable; SQLite releases it on the statement's thread.
    final class CompiledPattern: Sendable {
        let source: [UInt8]
        let regex: ECMARegex

        init(source: [UInt8], regex: ECMARegex) {
            self.source = source
            self.regex = regex
        }
    }

    static func matchesPattern(_ call: SQLFunctionCall) {
        if call.anyNull { return call.resultNull() }
        let regex: ECMARegex
        if let cached = call.auxiliary(1, as: CompiledPattern.self), call.withText(1, { $0.elementsEqual(cached.source) }) {
            regex = cached.regex
        } else {
            let source = call.withText(1) { Array($0) }
            let compiled = source.withUnsafeBufferPointer { b in Result { () throws(RegexError) in try ECMARegex(utf8: b) } }
            switch compiled {
            case .success(let r): regex = r
            case .failure(let error): return report(call, error, pattern: source)
            }
            call.setAuxiliary(1, CompiledPattern(source: source, regex: regex))
        }
        let found = call.withText(0) { b in Result { () throws(RegexError) in try regex.matches(utf8: b) } }
        switch found {
        case .success(let matched): call.result(matched)
        case .failure(let error): report(call, error, pattern: call.withText(1) { Array($0) })
        }
    }

    private static func report(_ call: SQLFunctionCall, _ error: RegexError, pattern: [UInt8]) {
        let message = matchesPatternMessage(error, pattern: String(decoding: pattern, as: UTF8.self))
        if error.isLimit { call.refuse(message) } else { call.fail(message) }
    }

    /// The message of a refused or failed `matchesPattern`, naming the pattern (its first
    /// 200 characters). Limits say that the store cannot evaluate it.
    static func matchesPatternMessage(_ error: RegexError, pattern: String) -> String {
        let shown = pattern.count > 200 ? pattern.prefix(200) + "…" : Substring(pattern)
        if error.isLimit { return "matchesPattern cannot be evaluated offline: \(error), pattern '\(shown)'" }
        return "matchesPattern: \(error), pattern '\(shown)'"
    }
}
