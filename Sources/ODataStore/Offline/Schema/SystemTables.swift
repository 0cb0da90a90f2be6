/// The store's own tables (names start with `ods_`; entity tables start with `e:` and link
/// tables with `l:`, so no OData name can clash with them).
///
/// | table | holds |
/// |---|---|
/// | `ods_store` | name/value facts: format, service root, OData version, the `$metadata` document the store was made from, creation time |
/// | `ods_tables` | a small id for each entity table (used by `ods_members`) |
/// | `ods_defining_requests` | each defining request: its path, its entity set, download state, where an interrupted download resumes (`next_link`), the delta link, counts, last download, and the kind of the download in progress when it is a refresh (`refresh`: `full` replaces what it brought down, `delta` applies the service's changes) |
/// | `ods_members` | which rows each defining request brought down, so rows two requests share are kept until neither needs them (`request` 0: rows the store wrote itself, from local writes and upload answers; `-id`: rows of a full refresh of `id` in progress not seen again yet) |
/// | `ods_member_ranges` | the same as runs of row ids (format 2): rows `lo`...`hi` of table `tbl` are members of `request`. A download writes a range instead of one `ods_members` row per entity for the rows it inserts (a first download inserts every row, with consecutive row ids); rows it finds already there get `ods_members` rows. A row is a member of a request when either table says so. A range may still cover the ids of rows removed since (removing a row does not cut ranges); `EntityWriter` cuts the ranges covering a new row's id before it records the row, so a reused row id never inherits a membership |
/// | `ods_queue` | local changes waiting for upload, in order: the operation, the row it changed (`tbl`, `rid`), the properties changed, the ETag the entity had, the parent of a create through a navigation, the key of a deleted entity, the Repeatability-Request-ID and when it was first sent |
/// | `ods_errors` | the error archive: changes the service refused, with the request sent and the service's answer |
/// | `ods_local_keys` | keys made locally for created entities the service will key, and the service's key once uploaded |
enum SystemTables {
    /// `PRAGMA application_id` of a store file: "ODST".
    static let applicationID: Int32 = 0x4F44_5354
    /// `PRAGMA user_version`: the file format. A newer number than this library knows is refused.
    static let formatVersion: Int32 = 2

    /// The statements that create a new file: format 1 and the migrations after it.
    static var current: [String] { version1 + migrations.flatMap { $0 } }

    /// The statements that create format 1.
    static let version1: [String] = [
        "CREATE TABLE ods_store (name TEXT PRIMARY KEY, value) WITHOUT ROWID",
        "CREATE TABLE ods_tables (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
        """
        CREATE TABLE ods_defining_requests (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            entity_set TEXT NOT NULL,
            added TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'downloading', 'complete')),
            next_link TEXT,
            delta_link TEXT,
            entities INTEGER NOT NULL DEFAULT 0,
            bytes INTEGER NOT NULL DEFAULT 0,
            expected INTEGER,
            last_download TEXT,
            refresh TEXT CHECK (refresh IN ('full', 'delta')))
        """,
        "CREATE TABLE ods_members (request INTEGER NOT NULL, tbl INTEGER NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (request, tbl, rid)) WITHOUT ROWID",
        "CREATE INDEX ods_members_row ON ods_members (tbl, rid)",
        """
        CREATE TABLE ods_queue (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created TEXT NOT NULL,
            mode INTEGER NOT NULL,
            tbl INTEGER NOT NULL,
            rid INTEGER NOT NULL,
            path TEXT NOT NULL,
            properties TEXT,
            entity_key TEXT,
            parent_tbl INTEGER,
            parent_rid INTEGER,
            parent_nav TEXT,
            etag TEXT,
            repeatability_id TEXT NOT NULL,
            first_sent TEXT,
            state INTEGER NOT NULL DEFAULT 0)
        """,
        "CREATE INDEX ods_queue_row ON ods_queue (tbl, rid)",
        """
        CREATE TABLE ods_errors (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            queue_id INTEGER NOT NULL,
            created TEXT NOT NULL,
            mode INTEGER NOT NULL,
            tbl INTEGER NOT NULL,
            rid INTEGER NOT NULL,
            method TEXT NOT NULL,
            path TEXT NOT NULL,
            body TEXT,
            http_status INTEGER NOT NULL,
            odata_code TEXT,
            message TEXT NOT NULL,
            properties TEXT,
            entity_key TEXT,
            parent_tbl INTEGER,
            parent_rid INTEGER,
            parent_nav TEXT,
            etag TEXT)
        """,
        "CREATE TABLE ods_local_keys (tbl INTEGER NOT NULL, rid INTEGER NOT NULL, local_key TEXT NOT NULL, server_key TEXT, PRIMARY KEY (tbl, rid)) WITHOUT ROWID",
    ]

    /// Indexes that speed up the store's own work without changing what a format holds: made
    /// when missing each time a file is opened (a file made by an older build gains them).
    /// `ods_errors_row`: whether a row has an archived change, asked for every change the
    /// upload confirms (without it each answer read the whole archive).
    static let indexes: [String] = [
        "CREATE INDEX IF NOT EXISTS ods_errors_row ON ods_errors (tbl, rid)",
    ]

    /// Migrations from format n to n + 1 (index n - 1).
    /// 1 -> 2: `ods_member_ranges` (an empty table: the per-row memberships of format 1 keep
    /// their meaning).
    static let migrations: [[String]] = [
        [
            "CREATE TABLE ods_member_ranges (request INTEGER NOT NULL, tbl INTEGER NOT NULL, lo INTEGER NOT NULL, hi INTEGER NOT NULL)",
            "CREATE INDEX ods_member_ranges_request ON ods_member_ranges (request, tbl, hi)",
            "CREATE INDEX ods_member_ranges_row ON ods_member_ranges (tbl, lo)",
            "UPDATE ods_store SET value = 2 WHERE name = 'format'",
        ],
    ]
}
