import CSQLite

/// The SQL functions and collations the offline store registers on its connection so SQL
/// follows OData's semantics: exact decimals (`ODS_DECIMAL`), instants across offsets
/// (`ODS_INSTANT`), durations (`ODS_DURATION`), times of day (`ODS_TIMEOFDAY`),
/// Unicode-correct string functions, checked integer arithmetic, exact decimal arithmetic,
/// IEEE doubles with NaN and infinities, OData's date and time functions and its collection
/// functions over JSON arrays (`ods_*`, listed in `register`). `FilterSQL` is their one user.
///
/// Every function is deterministic (except `ods_now`), returns NULL when an argument is NULL
/// (OData V4.01 Part 2, 5.1.1.4: "If a parameter of a canonical function is null, the
/// function returns null"), accepts any storage class and any bytes without trapping, and
/// reports what OData defines as a failed request (integer overflow, division by zero, a
/// negative `substring` length) as an SQL error whose message starts with `errorPrefix`.
///
/// The table definitions name the collations, so they are registered before any statement
/// touches a store table (`StoreFile.open`).
enum SQLFunctions {
    typealias Compare = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32
    typealias Function = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    /// Start of the message of every error an `ods_*` function raises for a request the
    /// service would refuse too (`failure`).
    static let errorPrefix = "OData evaluation failed: "
    /// Start of the message of an error an `ods_*` function raises for a request the store
    /// cannot evaluate although the service may (a `matchesPattern` beyond the engine's step
    /// budget): the request fails with `.unsupported`.
    static let refusalPrefix = "OData evaluation refused: "

    /// The store error of a message raised with `errorPrefix`: the request's fault, reported
    /// as the service reports a request it cannot evaluate, HTTP 400 (`ODS_EHTTP`).
    static func failure(_ message: some StringProtocol) -> ODataStoreError {
        ODataStoreError(.http, "the request cannot be evaluated: \(message)", httpStatus: 400)
    }

    /// The store error of a message raised with `refusalPrefix`.
    static func refusal(_ message: some StringProtocol) -> ODataStoreError {
        ODataStoreError(.unsupported, String(message))
    }

    static func register(on connection: SQLiteConnection) throws(SQLiteError) {
        try collation(connection, "ODS_DECIMAL") { _, n1, p1, n2, p2 in
            Int32(OrderedText.compareDecimal(SQLFunctions.bytes(p1, n1), SQLFunctions.bytes(p2, n2)))
        }
        try collation(connection, "ODS_INSTANT") { _, n1, p1, n2, p2 in
            Int32(OrderedText.compareInstant(SQLFunctions.bytes(p1, n1), SQLFunctions.bytes(p2, n2)))
        }
        try collation(connection, "ODS_DURATION") { _, n1, p1, n2, p2 in
            Int32(OrderedText.compareDuration(SQLFunctions.bytes(p1, n1), SQLFunctions.bytes(p2, n2)))
        }
        try collation(connection, "ODS_TIMEOFDAY") { _, n1, p1, n2, p2 in
            Int32(OrderedText.compareTimeOfDay(SQLFunctions.bytes(p1, n1), SQLFunctions.bytes(p2, n2)))
        }
        for f in functions {
            try function(connection, f.name, f.arguments, deterministic: f.deterministic, f.body)
        }
    }

    struct Entry {
        let name: String
        let arguments: Int32
        var deterministic = true
        let body: Function
    }

    /// Every function, by name and number of arguments.
    static let functions: [Entry] = strings + patterns + numbers + temporal + collections

    static func bytes(_ p: UnsafeRawPointer?, _ n: Int32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: p?.assumingMemoryBound(to: UInt8.self), count: p == nil ? 0 : max(0, Int(n)))
    }

    private static func collation(_ c: SQLiteConnection, _ name: String, _ compare: Compare) throws(SQLiteError) {
        let rc = sqlite3_create_collation_v2(c.handle, name, SQLITE_UTF8, nil, compare, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: c.lastMessage, sql: nil) }
    }

    private static func function(_ c: SQLiteConnection, _ name: String, _ n: Int32, deterministic: Bool, _ body: Function) throws(SQLiteError) {
        var flags = SQLITE_UTF8 | SQLITE_INNOCUOUS
        if deterministic { flags |= SQLITE_DETERMINISTIC }
        let rc = sqlite3_create_function_v2(c.handle, name, n, flags, nil, body, nil, nil, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: c.lastMessage, sql: nil) }
    }
}

/// One call of an `ods_*` function: typed access to the arguments (out-of-range indexes
/// read as NULL) and the result setters.
struct SQLFunctionCall {
    let context: OpaquePointer?
    let count: Int
    let values: UnsafeMutablePointer<OpaquePointer?>?

    init(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        self.context = context
        self.count = values == nil ? 0 : max(0, Int(count))
        self.values = values
    }

    private func value(_ i: Int) -> OpaquePointer? {
        guard i >= 0, i < count, let values else { return nil }
        return values[i]
    }

    func type(_ i: Int) -> Int32 {
        guard let v = value(i) else { return SQLITE_NULL }
        return sqlite3_value_type(v)
    }

    func isNull(_ i: Int) -> Bool { type(i) == SQLITE_NULL }

    /// True when any argument is NULL (the function then returns NULL).
    var anyNull: Bool { (0..<count).contains { isNull($0) } }

    func int64(_ i: Int) -> Int64 { value(i).map { sqlite3_value_int64($0) } ?? 0 }
    func double(_ i: Int) -> Double { value(i).map { sqlite3_value_double($0) } ?? 0 }

    /// The argument's bytes as text (numbers converted by SQLite), valid until the next
    /// access to the same argument.
    func withText<T>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        guard let v = value(i), let p = sqlite3_value_text(v) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        let n = Int(sqlite3_value_bytes(v))
        return body(UnsafeBufferPointer(start: p, count: max(0, n)))
    }

    func string(_ i: Int) -> String { withText(i) { String(decoding: $0, as: UTF8.self) } }

    // MARK: - Results

    static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    func resultNull() { sqlite3_result_null(context) }
    func result(_ v: Int64) { sqlite3_result_int64(context, v) }
    func result(_ v: Bool) { sqlite3_result_int64(context, v ? 1 : 0) }

    /// A double; NaN as the text `NaN`, as the store keeps it (SQLite turns a NaN REAL into NULL).
    func result(_ v: Double) {
        if v.isNaN { result("NaN") } else { sqlite3_result_double(context, v) }
    }

    func result(_ s: String) {
        var s = s
        s.withUTF8 { result(bytes: $0) }
    }

    func result(bytes b: UnsafeBufferPointer<UInt8>) {
        guard let base = b.baseAddress, b.count > 0 else {
            sqlite3_result_text64(context, "", 0, Self.transient, UInt8(SQLITE_UTF8))
            return
        }
        UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: b.count) {
            sqlite3_result_text64(context, $0, UInt64(b.count), Self.transient, UInt8(SQLITE_UTF8))
        }
    }

    func result(blob b: [UInt8]) {
        b.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else {
                sqlite3_result_zeroblob(context, 0)
                return
            }
            sqlite3_result_blob64(context, base, UInt64(raw.count), Self.transient)
        }
    }

    /// Fails the statement: the request is one the service would refuse too.
    func fail(_ message: String) {
        sqlite3_result_error(context, SQLFunctions.errorPrefix + message, -1)
    }

    /// Fails the statement: the store cannot evaluate the request (`.unsupported`).
    func refuse(_ message: String) {
        sqlite3_result_error(context, SQLFunctions.refusalPrefix + message, -1)
    }

    // MARK: - Auxiliary data

    /// The object kept with argument `i` by `setAuxiliary` (sqlite3_get_auxdata), if SQLite
    /// still has it: it does while the argument is the same constant (a bound parameter) in
    /// one run of the statement.
    func auxiliary<T: AnyObject>(_ i: Int, as type: T.Type) -> T? {
        guard let p = sqlite3_get_auxdata(context, Int32(i)) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(p).takeUnretainedValue() as? T
    }

    /// Keeps `object` with argument `i` (sqlite3_set_auxdata); SQLite releases it when it
    /// discards it, at the latest when the statement is reset or finalized.
    func setAuxiliary(_ i: Int, _ object: AnyObject) {
        let p = Unmanaged.passRetained(object).toOpaque()
        sqlite3_set_auxdata(context, Int32(i), p) { p in
            if let p { Unmanaged<AnyObject>.fromOpaque(p).release() }
        }
    }
}
