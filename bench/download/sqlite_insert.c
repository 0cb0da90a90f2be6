/* sqlite_insert.c - what SQLite alone costs on the download path (bench/download/run.sh).
 *
 *   sqlite_insert <new-db-file> --mode returning|upsert|insert [--members] [--rows N] [--page N]
 *
 * Writes N rows (default 100000) shaped like the test service's products into the offline
 * store's own table layout (the "e:Products" table with its "@rid" rowid, the unique key index
 * and the CategoryID index, as `odatastore offline init` creates them), WAL and
 * synchronous=FULL like the store, one transaction per --page rows (default 10000), with one
 * prepared statement reused for every row. The row values are made before the clock starts:
 * only SQLite's work (and binding) is timed. Modes:
 *
 *   returning  INSERT ... ON CONFLICT ("ID") DO UPDATE SET ... RETURNING "@rid"  (what the
 *              store's EntityWriter runs today for each entity)
 *   upsert     the same without RETURNING (the row id from sqlite3_last_insert_rowid)
 *   insert     a plain INSERT
 *   --members  also one INSERT OR IGNORE INTO ods_members (request, tbl, rid) per row, as the
 *              store records which defining request brought each row down
 *   --late-index  create the two indexes after the rows are in (timed too): a first download
 *              into an empty table could load first and index once (mode insert only)
 *   --late-secondary  only the CategoryID index after the rows are in (timed too); the key
 *              index from the start, as a download that must find repeated entities needs it
 *
 * Prints one JSON line: CPU (getrusage, user + sys) and wall time per row.
 */
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void check(sqlite3 *db, int rc, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "sqlite_insert: %s: %s\n", what, sqlite3_errmsg(db));
        exit(2);
    }
}

static void exec(sqlite3 *db, const char *sql) { check(db, sqlite3_exec(db, sql, NULL, NULL, NULL), sql); }

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double tv_ms(struct timeval tv) { return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3; }

/* Collations the store declares on Price and LastModified (only their names matter here:
 * nothing is compared by them while inserting). */
static int bytewise(void *ctx, int n1, const void *a, int n2, const void *b) {
    int c = memcmp(a, b, (size_t)(n1 < n2 ? n1 : n2));
    (void)ctx;
    return c ? c : n1 - n2;
}

typedef struct row {
    char name[32], description[64], price[24], date[24], modified[32], uuid[48];
    int64_t id, stock;
    int discontinued, rating, category;
} row;

int main(int argc, char **argv) {
    const char *path = NULL, *mode = "returning";
    long rows = 100000, page = 10000, i;
    int members = 0, late_index = 0, late_secondary = 0, returning, upsert;
    sqlite3 *db;
    sqlite3_stmt *st, *mem = NULL;
    row *data;
    double t0, t1;
    struct rusage r0, r1;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) mode = argv[++i];
        else if (strcmp(argv[i], "--members") == 0) members = 1;
        else if (strcmp(argv[i], "--late-index") == 0) late_index = 1;
        else if (strcmp(argv[i], "--late-secondary") == 0) late_secondary = 1;
        else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows = atol(argv[++i]);
        else if (strcmp(argv[i], "--page") == 0 && i + 1 < argc) page = atol(argv[++i]);
        else if (argv[i][0] != '-' && path == NULL) path = argv[i];
        else {
            fprintf(stderr, "usage: sqlite_insert <new-db-file> --mode returning|upsert|insert [--members] [--rows N] [--page N]\n");
            return 64;
        }
    }
    if (path == NULL || rows < 1 || page < 1) return 64;
    returning = strcmp(mode, "returning") == 0;
    upsert = returning || strcmp(mode, "upsert") == 0;
    if (!upsert && strcmp(mode, "insert") != 0) return 64;

    data = calloc((size_t)rows, sizeof *data);
    for (i = 0; i < rows; i++) {  /* Tests/servers/seed.py's formulas, roughly */
        long n = i + 1;
        row *r = &data[i];
        r->id = n;
        snprintf(r->name, sizeof r->name, "Product %03ld", n);
        if (n % 7) snprintf(r->description, sizeof r->description, "Description of product %ld", n);
        snprintf(r->price, sizeof r->price, "%ld.%02ld", (n * 3737) % 100000 / 100, (n * 3737) % 100);
        r->stock = n % 50 ? n * 1000 : 9007199254740993LL + n;
        r->discontinued = n % 5 == 0;
        r->rating = n % 11 ? (int)(n % 5 + 1) : -1;
        snprintf(r->date, sizeof r->date, "20%02ld-%02ld-%02ld", 20 + n / 365 % 80, n / 28 % 12 + 1, n % 28 + 1);
        snprintf(r->modified, sizeof r->modified, "2024-01-01T%02ld:00:00Z", n % 24);
        snprintf(r->uuid, sizeof r->uuid, "%08lx-ef37-5878-a93d-8c5321885e54", (unsigned long)((uint32_t)n * 2654435761u));
        r->category = (int)((n - 1) % 100 + 1);
    }

    remove(path);
    check(NULL, sqlite3_open(path, &db), "open");
    sqlite3_create_collation(db, "ODS_DECIMAL", SQLITE_UTF8, NULL, bytewise);
    sqlite3_create_collation(db, "ODS_INSTANT", SQLITE_UTF8, NULL, bytewise);
    exec(db, "PRAGMA journal_mode = WAL");
    exec(db, "PRAGMA synchronous = FULL");
    exec(db, "PRAGMA foreign_keys = ON");
    exec(db, "CREATE TABLE \"e:Products\" (\"@rid\" INTEGER PRIMARY KEY, \"@type\" TEXT, \"@etag\" TEXT, \"@extra\" TEXT, "
             "\"@state\" INTEGER NOT NULL DEFAULT 0, \"ID\" INTEGER, \"Name\" TEXT, \"Description\" TEXT, "
             "\"Price\" TEXT COLLATE ODS_DECIMAL, \"Stock\" INTEGER, \"Discontinued\" INTEGER, \"Rating\" INTEGER, "
             "\"ReleaseDate\" TEXT, \"LastModified\" TEXT COLLATE ODS_INSTANT, \"UUID\" TEXT, \"CategoryID\" INTEGER)");
    if (late_index && upsert) {
        fprintf(stderr, "sqlite_insert: --late-index needs --mode insert (an upsert needs the key index)\n");
        return 64;
    }
    if (!late_index) {
        exec(db, "CREATE UNIQUE INDEX \"e:Products@key\" ON \"e:Products\" (\"ID\")");
        if (!late_secondary) exec(db, "CREATE INDEX \"e:Products@CategoryID\" ON \"e:Products\" (\"CategoryID\")");
    }
    exec(db, "CREATE TABLE ods_members (request INTEGER NOT NULL, tbl INTEGER NOT NULL, rid INTEGER NOT NULL, "
             "PRIMARY KEY (request, tbl, rid)) WITHOUT ROWID");
    exec(db, "CREATE INDEX ods_members_row ON ods_members (tbl, rid)");
    {
        const char *cols = "(\"@type\", \"@etag\", \"@extra\", \"ID\", \"Name\", \"Description\", \"Price\", \"Stock\", "
                           "\"Discontinued\", \"Rating\", \"ReleaseDate\", \"LastModified\", \"UUID\", \"CategoryID\") "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
        char sql[2048];
        snprintf(sql, sizeof sql, "INSERT INTO \"e:Products\" %s%s%s", cols,
                 upsert ? " ON CONFLICT (\"ID\") DO UPDATE SET \"@type\" = excluded.\"@type\", \"@etag\" = excluded.\"@etag\", "
                          "\"@extra\" = excluded.\"@extra\", \"Name\" = excluded.\"Name\", \"Description\" = excluded.\"Description\", "
                          "\"Price\" = excluded.\"Price\", \"Stock\" = excluded.\"Stock\", \"Discontinued\" = excluded.\"Discontinued\", "
                          "\"Rating\" = excluded.\"Rating\", \"ReleaseDate\" = excluded.\"ReleaseDate\", "
                          "\"LastModified\" = excluded.\"LastModified\", \"UUID\" = excluded.\"UUID\", "
                          "\"CategoryID\" = excluded.\"CategoryID\""
                        : "",
                 returning ? " RETURNING \"@rid\"" : "");
        check(db, sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL), "prepare");
        if (members)
            check(db, sqlite3_prepare_v3(db, "INSERT OR IGNORE INTO ods_members (request, tbl, rid) VALUES (?1, ?2, ?3)", -1,
                                         SQLITE_PREPARE_PERSISTENT, &mem, NULL), "prepare members");
    }

    t0 = now_ms();
    getrusage(RUSAGE_SELF, &r0);
    for (i = 0; i < rows; i++) {
        row *r = &data[i];
        int64_t rid;
        if (i % page == 0) exec(db, "BEGIN IMMEDIATE");
        sqlite3_bind_null(st, 1);
        sqlite3_bind_text(st, 2, "W/\"1\"", 5, SQLITE_STATIC);
        sqlite3_bind_null(st, 3);
        sqlite3_bind_int64(st, 4, r->id);
        sqlite3_bind_text(st, 5, r->name, -1, SQLITE_STATIC);
        if (r->description[0]) sqlite3_bind_text(st, 6, r->description, -1, SQLITE_STATIC);
        else sqlite3_bind_null(st, 6);
        sqlite3_bind_text(st, 7, r->price, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, r->stock);
        sqlite3_bind_int(st, 9, r->discontinued);
        if (r->rating >= 0) sqlite3_bind_int(st, 10, r->rating);
        else sqlite3_bind_null(st, 10);
        sqlite3_bind_text(st, 11, r->date, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 12, r->modified, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 13, r->uuid, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 14, r->category);
        if (returning) {
            check(db, sqlite3_step(st), "step");
            rid = sqlite3_column_int64(st, 0);
        } else {
            check(db, sqlite3_step(st), "step");
            rid = sqlite3_last_insert_rowid(db);
        }
        sqlite3_reset(st);
        if (mem != NULL) {
            sqlite3_bind_int64(mem, 1, 1);
            sqlite3_bind_int64(mem, 2, 1);
            sqlite3_bind_int64(mem, 3, rid);
            check(db, sqlite3_step(mem), "members");
            sqlite3_reset(mem);
        }
        if (i % page == page - 1 || i == rows - 1) exec(db, "COMMIT");
    }
    if (late_index) {
        exec(db, "BEGIN IMMEDIATE");
        exec(db, "CREATE UNIQUE INDEX \"e:Products@key\" ON \"e:Products\" (\"ID\")");
        exec(db, "CREATE INDEX \"e:Products@CategoryID\" ON \"e:Products\" (\"CategoryID\")");
        exec(db, "COMMIT");
    } else if (late_secondary) {
        exec(db, "BEGIN IMMEDIATE");
        exec(db, "CREATE INDEX \"e:Products@CategoryID\" ON \"e:Products\" (\"CategoryID\")");
        exec(db, "COMMIT");
    }
    getrusage(RUSAGE_SELF, &r1);
    t1 = now_ms();
    sqlite3_finalize(st);
    if (mem) sqlite3_finalize(mem);
    sqlite3_close(db);
    {
        double cpu = tv_ms(r1.ru_utime) + tv_ms(r1.ru_stime) - tv_ms(r0.ru_utime) - tv_ms(r0.ru_stime);
        printf("{\"client\":\"sqlite3 insert (C)\",\"mode\":\"%s\",\"members\":%d,\"late_index\":%d,\"late_secondary\":%d,\"rows\":%ld,\"page\":%ld,"
               "\"wall_ms\":%.3f,\"cpu_ms\":%.3f,\"cpu_us_per_row\":%.3f,\"wall_us_per_row\":%.3f}\n",
               mode, members, late_index, late_secondary, rows, page, t1 - t0, cpu, cpu * 1e3 / rows, (t1 - t0) * 1e3 / rows);
    }
    free(data);
    return 0;
}
