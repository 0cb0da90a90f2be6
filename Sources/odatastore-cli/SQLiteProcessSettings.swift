import CSQLite

/// SQLite's process-wide options, which the command may set because it owns its process (the
/// library never does: an application's own SQLite shares them).
///
/// Memory statistics off (`SQLITE_CONFIG_MEMSTATUS`): Debian's SQLite counts every allocation
/// under a global mutex, about 1,260 instructions per entity of a first download
/// (docs/benchmarks.md, "Offline store: first download"). Nothing the command does reads those
/// statistics. SQLite accepts this only before it initializes (the first store opened); later
/// it is refused with SQLITE_MISUSE and changes nothing.
enum SQLiteProcessSettings {
    /// Applies the settings once (thread-safe: a global's lazy initialization); true when SQLite accepted them.
    static let applied: Bool = ods_sqlite3_config_memstatus(0) == SQLITE_OK
}
