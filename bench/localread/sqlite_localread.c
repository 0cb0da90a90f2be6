/* sqlite_localread.c - the hand-written baseline of the local-read benchmark (issue 7).
 *
 *   sqlite_localread <store-file> [--category N] [--expect N] [--count N] [--warmup N]
 *                    [--mode json|columns] [--dump FILE]
 *
 * The same read as ods_localread.c, written directly against sqlite3 in C on the same store
 * file: the products of one category, in key order, as the store answers both
 * `Products?$filter=CategoryID eq N` and `Categories(N)/Products`:
 *
 *   SELECT "@etag", "@type", "@extra", "ID", "Name", ... FROM "e:Products"
 *   WHERE "CategoryID" = ?1 ORDER BY "ID"
 *
 * (the store's index on CategoryID, which it creates for the referential constraint of
 * Product.Category, serves the WHERE). The statement is prepared once, and each read binds,
 * steps through the rows and resets it; the best case for the baseline.
 *
 * --mode json (default): each read builds the same JSON text the store hands out, byte for
 * byte ({"value":[{"@odata.etag":...,"ID":1,...}]}: Int64 and Decimal as strings, booleans,
 * nulls, strings escaped as the library's JSONWriter does), in a buffer reused across reads.
 * run.sh compares the two programs' --dump output. The code knows the Products columns and
 * their types (hand-written for this one query, as an application would).
 * --mode columns: reads every column of every row (sqlite3_column_int64 / _text / _bytes)
 * and builds nothing: the floor of any answer.
 *
 * Prints one JSON line: wall and CPU time (getrusage RUSAGE_SELF: user + sys) over the
 * --count timed reads (default 200, after --warmup 20), per read.
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

/* How each selected column becomes JSON (Sources/ODataStore/Offline/Read/EntityJSON.swift). */
enum kind { K_NUMBER, K_INT64_STRING, K_STRING, K_BOOL };

static const struct {
    const char *name;
    enum kind kind;
} COLUMNS[] = {
    {"ID", K_NUMBER},           {"Name", K_STRING},     {"Description", K_STRING},
    {"Price", K_STRING},        /* Edm.Decimal, stored as text: a JSON string (IEEE754Compatible) */
    {"Stock", K_INT64_STRING},  /* Edm.Int64: a JSON string */
    {"Discontinued", K_BOOL},   {"Rating", K_NUMBER},   {"ReleaseDate", K_STRING},
    {"LastModified", K_STRING}, {"UUID", K_STRING},     {"CategoryID", K_NUMBER},
};
#define NCOLUMNS (sizeof COLUMNS / sizeof COLUMNS[0])
#define FIXED 3 /* "@etag", "@type", "@extra" */

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void grow(buf *b, size_t more) {
    if (b->len + more <= b->cap) return;
    while (b->len + more > b->cap) b->cap = b->cap ? b->cap * 2 : 65536;
    b->p = realloc(b->p, b->cap);
    if (b->p == NULL) {
        fprintf(stderr, "sqlite_localread: out of memory\n");
        exit(2);
    }
}

static inline void put(buf *b, const char *s, size_t n) {
    grow(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

#define PUTS(b, lit) put((b), (lit), sizeof(lit) - 1)

/* A JSON string, escaped as JSONWriter.writeEscaped does (", \, control characters). */
static void put_string(buf *b, const unsigned char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    size_t i, run = 0;
    grow(b, n + 2);
    b->p[b->len++] = '"';
    for (i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        put(b, (const char *)s + run, i - run);
        grow(b, 6);
        b->p[b->len++] = '\\';
        switch (c) {
        case '"': b->p[b->len++] = '"'; break;
        case '\\': b->p[b->len++] = '\\'; break;
        case '\n': b->p[b->len++] = 'n'; break;
        case '\r': b->p[b->len++] = 'r'; break;
        case '\t': b->p[b->len++] = 't'; break;
        case '\b': b->p[b->len++] = 'b'; break;
        case '\f': b->p[b->len++] = 'f'; break;
        default:
            b->p[b->len++] = 'u';
            b->p[b->len++] = '0';
            b->p[b->len++] = '0';
            b->p[b->len++] = hex[c >> 4];
            b->p[b->len++] = hex[c & 15];
        }
        run = i + 1;
    }
    put(b, (const char *)s + run, n - run);
    grow(b, 1);
    b->p[b->len++] = '"';
}

static void put_int(buf *b, int64_t v) {
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%" PRId64, v);
    put(b, tmp, (size_t)n);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double tv_ms(struct timeval tv) {
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

static sqlite3_stmt *stmt;
static buf out;
static uint64_t sink;

/* One read; returns the number of rows. */
static long read_json(long category) {
    long rows = 0;
    int rc;
    sqlite3_bind_int64(stmt, 1, category);
    out.len = 0;
    PUTS(&out, "{\"value\":[");
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int first = 1;
        size_t k;
        if (rows++) PUTS(&out, ",");
        PUTS(&out, "{");
        if (sqlite3_column_type(stmt, 0) != SQLITE_NULL) {
            PUTS(&out, "\"@odata.etag\":");
            put_string(&out, sqlite3_column_text(stmt, 0), (size_t)sqlite3_column_bytes(stmt, 0));
            first = 0;
        }
        if (sqlite3_column_type(stmt, 1) != SQLITE_NULL) {
            if (!first) PUTS(&out, ",");
            PUTS(&out, "\"@odata.type\":\"#");
            put(&out, (const char *)sqlite3_column_text(stmt, 1), (size_t)sqlite3_column_bytes(stmt, 1));
            PUTS(&out, "\"");
            first = 0;
        }
        for (k = 0; k < NCOLUMNS; k++) {
            int at = (int)k + FIXED;
            if (!first) PUTS(&out, ",");
            first = 0;
            PUTS(&out, "\"");
            put(&out, COLUMNS[k].name, strlen(COLUMNS[k].name));
            PUTS(&out, "\":");
            if (sqlite3_column_type(stmt, at) == SQLITE_NULL) {
                PUTS(&out, "null");
                continue;
            }
            switch (COLUMNS[k].kind) {
            case K_NUMBER: put_int(&out, sqlite3_column_int64(stmt, at)); break;
            case K_INT64_STRING:
                PUTS(&out, "\"");
                put_int(&out, sqlite3_column_int64(stmt, at));
                PUTS(&out, "\"");
                break;
            case K_BOOL:
                if (sqlite3_column_int64(stmt, at)) PUTS(&out, "true");
                else PUTS(&out, "false");
                break;
            case K_STRING:
                put_string(&out, sqlite3_column_text(stmt, at), (size_t)sqlite3_column_bytes(stmt, at));
                break;
            }
        }
        if (sqlite3_column_type(stmt, 2) != SQLITE_NULL && sqlite3_column_bytes(stmt, 2) > 2) {
            /* members kept in "@extra" (a JSON object): its inside, as EntityJSON writes it */
            const char *extra = (const char *)sqlite3_column_text(stmt, 2);
            size_t n = (size_t)sqlite3_column_bytes(stmt, 2);
            if (!first) PUTS(&out, ",");
            put(&out, extra + 1, n - 2);
        }
        PUTS(&out, "}");
    }
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "sqlite_localread: step: %s\n", sqlite3_errmsg(sqlite3_db_handle(stmt)));
        exit(2);
    }
    PUTS(&out, "]}");
    sqlite3_reset(stmt);
    return rows;
}

static long read_columns(long category) {
    long rows = 0;
    int rc, ncol = sqlite3_column_count(stmt);
    sqlite3_bind_int64(stmt, 1, category);
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int k;
        rows++;
        for (k = 0; k < ncol; k++) {
            switch (sqlite3_column_type(stmt, k)) {
            case SQLITE_INTEGER: sink += (uint64_t)sqlite3_column_int64(stmt, k); break;
            case SQLITE_NULL: sink++; break;
            default: {
                const unsigned char *t = sqlite3_column_text(stmt, k);
                sink += (uint64_t)sqlite3_column_bytes(stmt, k) + (t ? t[0] : 0);
            }
            }
        }
    }
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "sqlite_localread: step: %s\n", sqlite3_errmsg(sqlite3_db_handle(stmt)));
        exit(2);
    }
    sqlite3_reset(stmt);
    return rows;
}

static long arg_long(int argc, char **argv, int *i) {
    char *end = NULL;
    long v;
    if (*i + 1 >= argc) {
        fprintf(stderr, "sqlite_localread: %s needs a value\n", argv[*i]);
        exit(64);
    }
    v = strtol(argv[++*i], &end, 10);
    if (end == argv[*i] || *end != '\0' || v < 0) {
        fprintf(stderr, "sqlite_localread: bad number %s\n", argv[*i]);
        exit(64);
    }
    return v;
}

int main(int argc, char **argv) {
    const char *path = NULL, *dump = NULL;
    long category = 7, expect = 1000, count = 200, warmup = 20, rows = 0;
    int columns_mode = 0, i;
    char sql[1024];
    size_t k, n;
    sqlite3 *db = NULL;
    double t0, t1;
    struct rusage r0, r1;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) dump = argv[++i];
        else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) columns_mode = strcmp(argv[++i], "columns") == 0;
        else if (strcmp(argv[i], "--category") == 0) category = arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--expect") == 0) expect = arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--count") == 0) count = arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--warmup") == 0) warmup = arg_long(argc, argv, &i);
        else if (argv[i][0] != '-' && path == NULL) path = argv[i];
        else {
            fprintf(stderr, "usage: sqlite_localread <store-file> [--category N] [--expect N] [--count N] "
                            "[--warmup N] [--mode json|columns] [--dump FILE]\n");
            return 64;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "sqlite_localread: a store file is required\n");
        return 64;
    }
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite_localread: %s: %s\n", path, sqlite3_errmsg(db));
        return 2;
    }
    n = (size_t)snprintf(sql, sizeof sql, "SELECT \"@etag\", \"@type\", \"@extra\"");
    for (k = 0; k < NCOLUMNS; k++) n += (size_t)snprintf(sql + n, sizeof sql - n, ", \"%s\"", COLUMNS[k].name);
    snprintf(sql + n, sizeof sql - n, " FROM \"e:Products\" WHERE \"CategoryID\" = ?1 ORDER BY \"ID\"");
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite_localread: prepare: %s\n", sqlite3_errmsg(db));
        return 2;
    }

    for (i = 0; i < warmup; i++) rows = columns_mode ? read_columns(category) : read_json(category);
    t0 = now_ms();
    getrusage(RUSAGE_SELF, &r0);
    for (i = 0; i < count; i++) {
        rows = columns_mode ? read_columns(category) : read_json(category);
        if (rows != expect) {
            fprintf(stderr, "sqlite_localread: %ld rows, expected %ld\n", rows, expect);
            return 1;
        }
    }
    getrusage(RUSAGE_SELF, &r1);
    t1 = now_ms();

    if (dump != NULL && !columns_mode) {
        FILE *f = fopen(dump, "w");
        if (f == NULL || fwrite(out.p, 1, out.len, f) != out.len || fclose(f) != 0) {
            fprintf(stderr, "sqlite_localread: cannot write %s\n", dump);
            return 1;
        }
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    {
        double user = tv_ms(r1.ru_utime) - tv_ms(r0.ru_utime), sys = tv_ms(r1.ru_stime) - tv_ms(r0.ru_stime);
        printf("{\"client\":\"sqlite3 (C, %s)\",\"mode\":\"%s\",\"reads\":%ld,\"entities_per_read\":%ld,"
               "\"json_bytes\":%zu,\"wall_ms\":%.3f,\"user_ms\":%.3f,\"sys_ms\":%.3f,\"cpu_ms\":%.3f,"
               "\"wall_us_per_read\":%.2f,\"cpu_us_per_read\":%.2f,\"sink\":%" PRIu64 "}\n",
               columns_mode ? "every column" : "JSON text", columns_mode ? "columns" : "json", count, rows,
               columns_mode ? (size_t)0 : out.len, t1 - t0, user, sys, user + sys,
               count > 0 ? (t1 - t0) * 1e3 / count : 0.0, count > 0 ? (user + sys) * 1e3 / count : 0.0, sink % 10);
    }
    return 0;
}
