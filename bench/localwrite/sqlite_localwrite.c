/* sqlite_localwrite.c - the hand-written baseline of the local-write benchmark (issue 8).
 *
 *   sqlite_localwrite <store-file> [--count N] [--rows entity|store]
 *
 * The same inserts done with raw sqlite3 in C, with the same durability as the offline
 * store (journal_mode=WAL, synchronous=FULL, one transaction per entity), into a copy of the
 * same store file:
 *   --rows entity (default)  the entity row only: the store's own products table
 *                            ("e:Products", with its unique key index and foreign-key index),
 *                            the values the library writes (a negative local ID, the name,
 *                            price, stock, flag, category, and the row's pending state), one
 *                            prepared INSERT per transaction. No queue row, no local-key row.
 *   --rows store             every row the library writes for a create, as it writes them
 *                            (checked against the library's file by run.sh): the entity row,
 *                            its membership row (ods_members, request 0), its local key
 *                            (ods_local_keys) and the queued change (ods_queue: time, mode,
 *                            table, row, path, a random Repeatability-Request-ID): four
 *                            prepared INSERTs per transaction. The SQLite work of a create,
 *                            without parsing, JSON, scheduling or threads.
 *
 * Prints one JSON line as ods_localwrite does (file_bytes: the file and its WAL).
 */
#define _POSIX_C_SOURCE 200809L

#include <sqlite3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double tv_ms(struct timeval tv) { return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3; }

static void check(sqlite3 *db, int rc, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "sqlite_localwrite: %s: %s\n", what, sqlite3_errmsg(db));
        exit(2);
    }
}

int main(int argc, char **argv) {
    const char *path = NULL, *rows = "entity";
    long count = 10000, i;
    int store_rows;
    sqlite3 *db = NULL;
    sqlite3_stmt *begin, *insert, *commit, *member = NULL, *local_key = NULL, *queue = NULL;
    char name[64], price[32], key[64], created[32], uuid[40], *journal = NULL;
    sqlite3_int64 table_id = 0;
    double t0, t1;
    struct rusage r0, r1;
    struct stat st;
    long long bytes;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) count = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows = argv[++i];
        else if (argv[i][0] != '-' && path == NULL) path = argv[i];
        else {
            fprintf(stderr, "usage: sqlite_localwrite <store-file> [--count N] [--rows entity|store]\n");
            return 64;
        }
    }
    if (path == NULL || count <= 0) return 64;
    if (strcmp(rows, "entity") != 0 && strcmp(rows, "store") != 0) return 64;
    store_rows = strcmp(rows, "store") == 0;
    check(db, sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), "open");
    sqlite3_busy_timeout(db, 5000);
    check(db, sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL), "journal_mode");
    check(db, sqlite3_exec(db, "PRAGMA synchronous = FULL", NULL, NULL, NULL), "synchronous");
    {
        sqlite3_stmt *q;
        check(db, sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &q, NULL), "journal_mode?");
        if (sqlite3_step(q) == SQLITE_ROW) journal = strdup((const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    check(db, sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, NULL), "prepare begin");
    check(db, sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL), "prepare commit");
    check(db, sqlite3_prepare_v2(db,
        "INSERT INTO \"e:Products\" (\"ID\", \"Name\", \"Price\", \"Stock\", \"Discontinued\", \"CategoryID\", \"@state\") "
        "VALUES (?1, ?2, ?3, ?4, 0, ?5, 1)", -1, &insert, NULL), "prepare insert");
    if (store_rows) {
        sqlite3_stmt *q;
        check(db, sqlite3_prepare_v2(db, "SELECT id FROM ods_tables WHERE name = 'e:Products'", -1, &q, NULL), "table id");
        if (sqlite3_step(q) == SQLITE_ROW) table_id = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
        check(db, sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO ods_members (request, tbl, rid) VALUES (0, ?1, ?2)", -1, &member, NULL),
              "prepare member");
        check(db, sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO ods_local_keys (tbl, rid, local_key, server_key) VALUES (?1, ?2, ?3, NULL)",
                                     -1, &local_key, NULL), "prepare local key");
        check(db, sqlite3_prepare_v2(db,
            "INSERT INTO ods_queue (id, created, mode, tbl, rid, path, properties, entity_key, parent_tbl, parent_rid, parent_nav, "
            "etag, repeatability_id, first_sent) VALUES (NULL, ?1, 2, ?2, ?3, 'Products', NULL, NULL, NULL, NULL, NULL, NULL, ?4, NULL)",
            -1, &queue, NULL), "prepare queue");
        srand(1);
    }

    t0 = now_ms();
    getrusage(RUSAGE_SELF, &r0);
    for (i = 1; i <= count; i++) {
        snprintf(name, sizeof name, "Written %ld", i);
        snprintf(price, sizeof price, "%ld.50", i % 1000);
        check(db, sqlite3_step(begin), "begin");
        sqlite3_reset(begin);
        sqlite3_bind_int64(insert, 1, -i);
        sqlite3_bind_text(insert, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 3, price, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 4, i);
        sqlite3_bind_int64(insert, 5, i % 10 + 1);
        check(db, sqlite3_step(insert), "insert");
        sqlite3_reset(insert);
        if (store_rows) {
            sqlite3_int64 rid = sqlite3_last_insert_rowid(db);
            time_t now = time(NULL);
            struct tm parts;
            gmtime_r(&now, &parts);
            strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &parts);
            snprintf(key, sizeof key, "{\"ID\":%ld}", -i);
            snprintf(uuid, sizeof uuid, "%08x-%04x-4%03x-%04x-%04x%08x", (unsigned)rand(), (unsigned)rand() & 0xffff,
                     (unsigned)rand() & 0xfff, ((unsigned)rand() & 0x3fff) | 0x8000, (unsigned)rand() & 0xffff, (unsigned)rand());
            sqlite3_bind_int64(member, 1, table_id);
            sqlite3_bind_int64(member, 2, rid);
            check(db, sqlite3_step(member), "member");
            sqlite3_reset(member);
            sqlite3_bind_int64(local_key, 1, table_id);
            sqlite3_bind_int64(local_key, 2, rid);
            sqlite3_bind_text(local_key, 3, key, -1, SQLITE_TRANSIENT);
            check(db, sqlite3_step(local_key), "local key");
            sqlite3_reset(local_key);
            sqlite3_bind_text(queue, 1, created, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(queue, 2, table_id);
            sqlite3_bind_int64(queue, 3, rid);
            sqlite3_bind_text(queue, 4, uuid, -1, SQLITE_TRANSIENT);
            check(db, sqlite3_step(queue), "queue");
            sqlite3_reset(queue);
        }
        check(db, sqlite3_step(commit), "commit");
        sqlite3_reset(commit);
    }
    getrusage(RUSAGE_SELF, &r1);
    t1 = now_ms();
    {
        /* Before closing (which checkpoints the WAL into the file), as ods_localwrite does. */
        char wal[4096];
        bytes = stat(path, &st) == 0 ? (long long)st.st_size : -1;
        snprintf(wal, sizeof wal, "%s-wal", path);
        if (bytes >= 0 && stat(wal, &st) == 0) bytes += (long long)st.st_size;
    }
    sqlite3_finalize(begin);
    sqlite3_finalize(insert);
    sqlite3_finalize(commit);
    sqlite3_finalize(member);
    sqlite3_finalize(local_key);
    sqlite3_finalize(queue);
    sqlite3_close(db);
    {
        double user = tv_ms(r1.ru_utime) - tv_ms(r0.ru_utime), sys = tv_ms(r1.ru_stime) - tv_ms(r0.ru_stime);
        double wall = t1 - t0;
        printf("{\"client\":\"sqlite3 in C\",\"rows\":\"%s\",\"journal_mode\":\"%s\",\"creates\":%ld,\"wall_ms\":%.3f,\"user_ms\":%.3f,\"sys_ms\":%.3f,"
               "\"per_second\":%.1f,\"wall_us_per_create\":%.2f,\"cpu_us_per_create\":%.2f,\"file_bytes\":%lld}\n",
               rows, journal ? journal : "?", count, wall, user, sys, count * 1e3 / wall, wall * 1e3 / count, (user + sys) * 1e3 / count, bytes);
    }
    free(journal);
    return 0;
}
