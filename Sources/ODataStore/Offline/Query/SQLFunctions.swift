import CSQLite

/// The SQL functions and collations the offline store registers on its connection so SQL
/// follows OData's semantics: exact decimals (`ODS_DECIMAL`), instants across offsets
/// (`ODS_INSTANT`), durations (`ODS_DURATION`), Unicode-correct case mapping, and the
/// canonical functions SQLite lacks. All deterministic.
///
/// The table definitions name the collations, so they are registered before any statement
/// touches a store table (`StoreFile.open`).
enum SQLFunctions {
    typealias Compare = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32

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
    }

    static func bytes(_ p: UnsafeRawPointer?, _ n: Int32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: p?.assumingMemoryBound(to: UInt8.self), count: p == nil ? 0 : Int(n))
    }

    private static func collation(_ c: SQLiteConnection, _ name: String, _ compare: Compare) throws(SQLiteError) {
        let rc = sqlite3_create_collation_v2(c.handle, name, SQLITE_UTF8, nil, compare, nil)
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: c.lastMessage, sql: nil) }
    }
}
