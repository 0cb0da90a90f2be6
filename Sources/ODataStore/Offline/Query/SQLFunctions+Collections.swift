import CSQLite
import ODataProtocol

/// The collection functions of OData 4.01 (Part 2, 5.1.1.5 "String and Collection Functions"
/// and 5.1.1.6 "Collection Functions") over collections held as JSON array text:
/// - `ods_hassubset(a, b, how)`: `b` is `a` with items reordered and/or removed (5.1.1.6.1:
///   each item of `b` takes its own item of `a`, so `[1,2]` has no subset `[1,1,2]`);
/// - `ods_hassubsequence(a, b, how)`: `b` is `a` with items removed, order kept (5.1.1.6.2);
/// - `ods_coll_contains`, `ods_coll_startswith`, `ods_coll_endswith(a, b, how)`: `b` is `a`
///   with items removed from both ends, from the end, from the beginning (5.1.1.5.2,
///   5.1.1.5.6, 5.1.1.5.3); `ods_coll_indexof(a, b, how)`: the zero-based index of the first
///   occurrence of `b` in `a`, or -1 (5.1.1.5.4);
/// - `ods_coll_substring(a, start[, length])`: the items from `start` (5.1.1.5.7, with the
///   string form's rules: a start beyond the end gives `[]`, a negative start counts from the
///   end, a negative length fails); `ods_coll_concat(a, b)`: the items of `a`, then those of
///   `b` (5.1.1.5.1);
/// - `ods_array(v, ...)`: a JSON array of SQL values (INTEGER as its digits, REAL by its
///   shortest round-trip digits, infinities as `"INF"`/`"-INF"`, TEXT as a string), for
///   literal arrays with computed items. SQLite's `json_array` is not used: it writes a REAL
///   with 15 significant digits, which would change doubles.
///
/// Items are equal as OData's `eq` says for their type (5.1.1.1.1), which `how` (bound by
/// `FilterSQL`) names: `i` integers (64-bit exact), `m` decimals (by value: `1.0` eq
/// `1.00`), `d` doubles followed by one letter per operand: `x` when its items may be
/// integers (an item written as integer digits is that integer, compared with doubles
/// exactly; other items are doubles), `d` when they are doubles or decimals (converted to
/// the nearest double, as a comparison does); NaN equals nothing), `s` text by
/// code point (strings, dates, enumeration member names), `g` GUIDs without hex digit case,
/// `b` Booleans, `t` instants across offsets, `h` times of day, `u` durations by length, `y`
/// binary values by their bytes, `f:Name:value,...` flags enumerations by value. A null item
/// equals a null item. Text that does not parse as its type equals only the same text, as
/// the collations order it. Each item becomes a key of the type's value space, so equality
/// is an equivalence (NaN aside) and greedy matching is exact for all six relations.
///
/// A NULL argument gives NULL (5.1.1.4); an argument that is not a JSON array fails the
/// statement.
extension SQLFunctions {
    static let collections: [Entry] = [
        Entry(name: "ods_hassubset", arguments: 3) { c, n, v in
            SQLFunctions.collectionRelation(SQLFunctionCall(c, n, v)) { .boolean(CollectionItems.hasSubset($0, $1)) }
        },
        Entry(name: "ods_hassubsequence", arguments: 3) { c, n, v in
            SQLFunctions.collectionRelation(SQLFunctionCall(c, n, v)) { .boolean(CollectionItems.hasSubsequence($0, $1)) }
        },
        Entry(name: "ods_coll_contains", arguments: 3) { c, n, v in
            SQLFunctions.collectionRelation(SQLFunctionCall(c, n, v)) { .boolean(CollectionItems.indexOf($0, $1) >= 0) }
        },
        Entry(name: "ods_coll_startswith", arguments: 3) { c, n, v in
            SQLFunctions.collectionRelation(SQLFunctionCall(c, n, v)) {
                .boolean($1.count <= $0.count && CollectionItems.indexOf(Array($0.prefix($1.count)), $1) == 0)
            }
        },
        Entry(name: "ods_coll_endswith", arguments: 3) { c, n, v in
            SQLFunctions.collectionRelation(SQLFunctionCall(c, n, v)) {
                .boolean($1.count <= $0.count && CollectionItems.indexOf(Array($0.suffix($1.count)), $1) == 0)
            }
        },
        Entry(name: "ods_coll_indexof", arguments: 3) { c, n, v in
            SQLFunctions.collectionRelation(SQLFunctionCall(c, n, v)) { .integer(Int64(CollectionItems.indexOf($0, $1))) }
        },
        Entry(name: "ods_coll_concat", arguments: 2) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            guard let a = collectionArgument(call, 0), let b = collectionArgument(call, 1) else { return call.fail(notACollection) }
            call.result(JSONValue.array(a + b).serialized())
        },
        Entry(name: "ods_coll_substring", arguments: 2) { c, n, v in SQLFunctions.collectionSubstring(SQLFunctionCall(c, n, v)) },
        Entry(name: "ods_coll_substring", arguments: 3) { c, n, v in SQLFunctions.collectionSubstring(SQLFunctionCall(c, n, v)) },
        Entry(name: "ods_array", arguments: -1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            call.result(JSONValue.array((0..<call.count).map { jsonItem(call, $0) }).serialized())
        },
    ]

    static let notACollection = "a collection value that is not a JSON array"

    enum RelationResult {
        case boolean(Bool)
        case integer(Int64)
    }

    /// Runs a relation between the collections of arguments 0 and 1 under the item equality
    /// argument 2 names.
    static func collectionRelation(_ call: SQLFunctionCall, _ relation: ([CollectionItems.Key?], [CollectionItems.Key?]) -> RelationResult) {
        if call.anyNull { return call.resultNull() }
        guard let a = collectionArgument(call, 0), let b = collectionArgument(call, 1) else { return call.fail(notACollection) }
        guard let how = CollectionItems.Equality(call.string(2)) else { return call.fail("an unknown collection item equality") }
        switch relation(a.map { how.key($0, operand: 0) }, b.map { how.key($0, operand: 1) }) {
        case .boolean(let r): call.result(r)
        case .integer(let r): call.result(r)
        }
    }

    static func collectionArgument(_ call: SQLFunctionCall, _ i: Int) -> [JSONValue]? {
        call.withText(i) { try? JSONValue.parse($0) }?.arrayValue
    }

    static func collectionSubstring(_ call: SQLFunctionCall) {
        if call.anyNull { return call.resultNull() }
        guard let items = collectionArgument(call, 0) else { return call.fail(notACollection) }
        guard let start = integerArgument(call, 1) else { return call.fail("substring needs an integer start") }
        var length: Int64?
        if call.count > 2 {
            guard let l = integerArgument(call, 2) else { return call.fail("substring needs an integer length") }
            length = l
        }
        do {
            let r = try UnicodeText.slice(count: items.count, start: start, length: length)
            call.result(JSONValue.array(Array(items[r])).serialized())
        } catch {
            call.fail("substring with a negative length")
        }
    }

    /// One SQL value as a JSON array item (`ods_array`).
    static func jsonItem(_ call: SQLFunctionCall, _ i: Int) -> JSONValue {
        switch call.type(i) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .number(String(call.int64(i)))
        case SQLITE_FLOAT:
            let d = call.double(i)
            if d.isNaN { return .string("NaN") }
            if d.isInfinite { return .string(d < 0 ? "-INF" : "INF") }
            return .number("\(d)")
        default: return .string(call.string(i))
        }
    }
}

/// Items of collections as keys of their type's value space (`SQLFunctions+Collections`),
/// and the relations OData defines between two collections. Pure.
enum CollectionItems {
    /// An item's value: two items are `eq` exactly when their keys are equal. NaN has no key
    /// (nil): it equals nothing, not even NaN.
    enum Key: Hashable {
        case null
        case integer(Int64)
        /// A double that is not an integer in Int64's range, by its bits (-0 became 0).
        case double(UInt64)
        /// A decimal in normal form (no zero has a sign or an exponent).
        case decimal(negative: Bool, digits: [UInt8], exponent: Int)
        /// Seconds and picoseconds (instants, durations, times of day).
        case time(Int64, Int64)
        case bytes([UInt8])
        /// An item that is not of the type's form: equal only to the same JSON text.
        case other([UInt8])
    }

    /// How the items of the two operands compare (the `how` argument).
    struct Equality {
        enum Mode { case integer, decimal, double, text, guid, boolean, instant, timeOfDay, duration, binary, flags }
        /// In double mode, what each operand's items are: possibly integers (integer digits
        /// exact), or doubles and decimals (the nearest double).
        enum Items { case integers, doubles }

        var mode: Mode
        var items: (Items, Items) = (.doubles, .doubles)
        var members = ""

        init?(_ how: String) {
            let u = Array(how.utf8)
            guard let first = u.first else { return nil }
            switch first {
            case UInt8(ascii: "i"): mode = .integer
            case UInt8(ascii: "m"): mode = .decimal
            case UInt8(ascii: "s"): mode = .text
            case UInt8(ascii: "g"): mode = .guid
            case UInt8(ascii: "b"): mode = .boolean
            case UInt8(ascii: "t"): mode = .instant
            case UInt8(ascii: "h"): mode = .timeOfDay
            case UInt8(ascii: "u"): mode = .duration
            case UInt8(ascii: "y"): mode = .binary
            case UInt8(ascii: "f"):
                mode = .flags
                members = String(decoding: u.dropFirst(2), as: UTF8.self)
            case UInt8(ascii: "d"):
                mode = .double
                func kind(_ c: UInt8) -> Items? {
                    switch c {
                    case UInt8(ascii: "x"): return .integers
                    case UInt8(ascii: "d"): return .doubles
                    default: return nil
                    }
                }
                guard u.count == 3, let a = kind(u[1]), let b = kind(u[2]) else { return nil }
                items = (a, b)
            default: return nil
            }
        }

        /// The key of an item of operand 0 or 1.
        func key(_ v: JSONValue, operand: Int) -> Key? {
            let text: String
            switch v {
            case .null: return .null
            case .bool(let b):
                return mode == .boolean ? .integer(b ? 1 : 0) : .other(Array(v.serialized().utf8))
            case .string(let s): text = s
            case .number(let n): text = n
            case .array, .object: return .other(Array(v.serialized().utf8))
            }
            let other = Key.other(Array(v.serialized().utf8))
            var t = text
            return t.withUTF8 { b -> Key? in
                switch mode {
                case .integer:
                    return Int64(text).map(Key.integer) ?? other
                case .decimal:
                    return OrderedText.decimalParts(b).map(Self.decimalKey) ?? other
                case .double:
                    return doubleKey(text, operand == 0 ? items.0 : items.1, other)
                case .text:
                    if case .string = v { return .bytes(Array(b)) }
                    return other
                case .guid:
                    guard case .string = v else { return other }
                    return .bytes(b.map { $0 &- 65 < 26 ? $0 + 32 : $0 })
                case .boolean:
                    guard case .number = v, let i = Int64(text), i == 0 || i == 1 else { return other }
                    return .integer(i)
                case .instant:
                    return OrderedText.instant(b).map { Key.time($0.seconds, $0.picoseconds) } ?? other
                case .timeOfDay:
                    return TemporalText.timeOfDay(b).map { Key.time($0.totalPicoseconds, 0) } ?? other
                case .duration:
                    return OrderedText.duration(b).map { Key.time($0.seconds, $0.picoseconds) } ?? other
                case .binary:
                    return Base64.decode(b).map(Key.bytes) ?? other
                case .flags:
                    return SQLFunctions.enumValue(text, members: members).map(Key.integer) ?? other
                }
            }
        }

        static func decimalKey(_ d: OrderedText.DecimalParts) -> Key {
            d.isZero ? .decimal(negative: false, digits: [], exponent: 0) : .decimal(negative: d.negative, digits: d.digits, exponent: d.exponent)
        }

        func doubleKey(_ text: String, _ items: Items, _ other: Key) -> Key? {
            let d: Double
            switch (items, text) {
            case (_, "NaN"): return nil
            case (_, "INF"), (_, "Infinity"): d = .infinity
            case (_, "-INF"), (_, "-Infinity"): d = -.infinity
            case (.integers, _) where Int64(text) != nil:
                return .integer(Int64(text) ?? 0)
            default:
                // Correctly rounded, as the decimal-to-double conversion of a comparison.
                guard let x = Double(text) else { return other }
                d = x
            }
            if d.isNaN { return nil }
            if d.rounded(.towardZero) == d, let i = Int64(exactly: d) { return .integer(i) }
            return .double(d.bitPattern)
        }
    }

    /// Whether `b` is `a` with items reordered and/or removed (each item of `b` matches an
    /// item of `a` of its own).
    static func hasSubset(_ a: [Key?], _ b: [Key?]) -> Bool {
        var available: [Key: Int] = [:]
        for case let k? in a { available[k, default: 0] += 1 }
        for k in b {
            guard let k, let n = available[k], n > 0 else { return false }
            available[k] = n - 1
        }
        return true
    }

    /// Whether `b` is `a` with items removed, the order kept.
    static func hasSubsequence(_ a: [Key?], _ b: [Key?]) -> Bool {
        var i = 0
        for k in b {
            guard let k else { return false }
            while i < a.count, a[i] != k { i += 1 }
            if i == a.count { return false }
            i += 1
        }
        return true
    }

    /// The zero-based index of the first occurrence of `b` in `a` as a run of items, or -1.
    static func indexOf(_ a: [Key?], _ b: [Key?]) -> Int {
        guard b.count <= a.count else { return -1 }
        for start in 0...(a.count - b.count) {
            var k = 0
            while k < b.count, let x = a[start + k], x == b[k] { k += 1 }
            if k == b.count { return start }
        }
        return -1
    }
}
