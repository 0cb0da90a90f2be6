/* ods_localread.c - the library side of the local-read benchmark (issue 7).
 *
 *   ods_localread <store-file> --service URL [--category N] [--expect N] [--path PATH]
 *                 [--count N] [--warmup N] [--dump FILE]
 *
 * Reopens an existing offline store (made by `odatastore offline init --define Products
 * --define Categories`) through the public header only: no defining requests, no network
 * (the service need not run). Then reads the products of one category, one read at a time:
 * ods_store_schedule, wait for the completion, take the response's JSON text
 * (ods_response_json) and check the entity count (--expect, default 1000). --warmup reads
 * (default 20), then --count timed reads (default 200).
 *
 * Which request: the indexed `$filter` of the issue, `Products?$filter=CategoryID eq N`,
 * when the store evaluates `$filter` locally; while it answers ODS_EUNSUPPORTED (local
 * $filter not implemented yet), the navigation read `Categories(N)/Products`, which the store
 * answers from the same index (CategoryID is the referential constraint of Product.Category).
 * The JSON line says which one was measured ("path", "filter_supported"). --path forces one.
 *
 * Prints one JSON line: wall time and CPU time (getrusage RUSAGE_SELF, all threads: user +
 * sys) over the timed reads only (store opening and warm-up excluded), per read.
 * --dump writes the JSON text of the last read, for the comparison with the hand-written
 * sqlite3 baseline (sqlite_localread.c), which must produce the same bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int store_state;

typedef struct read_result {
    int done;
    int code;         /* ODS_OK or the error code */
    size_t entities;
    size_t json_len;
    int is_local;
    char *copy;       /* the JSON text, when asked for */
    int want_copy;
    char message[512];
} read_result;

static read_result R;

static void die(const char *what) {
    const ods_error *e = ods_error_last();
    fprintf(stderr, "ods_localread: %s: %s (%d)\n", what, e->message, e->code);
    exit(2);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double tv_ms(struct timeval tv) {
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

static void on_state(ods_store *store, int state, const ods_error *error, void *context) {
    (void)store;
    (void)context;
    if (state == ODS_STORE_FAILED)
        fprintf(stderr, "ods_localread: the store failed to open: %s\n", error ? error->message : "?");
    pthread_mutex_lock(&mutex);
    store_state = state;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&mutex);
}

static void on_done(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    size_t len = 0;
    const char *json = NULL;
    (void)request;
    (void)context;
    pthread_mutex_lock(&mutex);
    if (error != NULL) {
        R.code = error->code != 0 ? error->code : -1;
        snprintf(R.message, sizeof R.message, "%s", error->message ? error->message : "?");
    } else {
        R.code = ODS_OK;
        json = ods_response_json(response, &len);
        R.json_len = json ? len : 0;
        R.entities = ods_response_entity_count(response);
        R.is_local = ods_response_is_local(response);
        if (R.want_copy && json) {
            free(R.copy);
            R.copy = malloc(len + 1);
            memcpy(R.copy, json, len);
            R.copy[len] = '\0';
        }
    }
    R.done = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&mutex);
}

/* One read, waited for. Returns the completion's code. */
static int read_once(ods_store *store, const char *path, int want_copy) {
    int rc;
    pthread_mutex_lock(&mutex);
    R.done = 0;
    R.want_copy = want_copy;
    pthread_mutex_unlock(&mutex);
    rc = ods_store_schedule(NULL, store, ODS_READ, path, NULL, on_done, NULL);
    if (rc != ODS_OK) return rc;
    pthread_mutex_lock(&mutex);
    while (!R.done) pthread_cond_wait(&cond, &mutex);
    rc = R.code;
    pthread_mutex_unlock(&mutex);
    return rc;
}

static long arg_long(int argc, char **argv, int *i) {
    char *end = NULL;
    long v;
    if (*i + 1 >= argc) {
        fprintf(stderr, "ods_localread: %s needs a value\n", argv[*i]);
        exit(64);
    }
    v = strtol(argv[++*i], &end, 10);
    if (end == argv[*i] || *end != '\0' || v < 0) {
        fprintf(stderr, "ods_localread: bad number %s\n", argv[*i]);
        exit(64);
    }
    return v;
}

int main(int argc, char **argv) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    const char *store_path = NULL, *service = NULL, *forced = NULL, *dump = NULL;
    long category = 7, expect = 1000, count = 200, warmup = 20;
    char filter_path[128], nav_path[128];
    const char *path;
    int filter_supported = -1, i, rc;
    ods_store *store = NULL;
    double t0, t1;
    struct rusage r0, r1;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--service") == 0 && i + 1 < argc) service = argv[++i];
        else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) forced = argv[++i];
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) dump = argv[++i];
        else if (strcmp(argv[i], "--category") == 0) category = arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--expect") == 0) expect = arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--count") == 0) count = arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--warmup") == 0) warmup = arg_long(argc, argv, &i);
        else if (argv[i][0] != '-' && store_path == NULL) store_path = argv[i];
        else {
            fprintf(stderr, "usage: ods_localread <store-file> --service URL [--category N] [--expect N] "
                            "[--path PATH] [--count N] [--warmup N] [--dump FILE]\n");
            return 64;
        }
    }
    if (store_path == NULL || service == NULL) {
        fprintf(stderr, "ods_localread: a store file and --service (the URL it was made from) are required\n");
        return 64;
    }
    snprintf(filter_path, sizeof filter_path, "Products?$filter=CategoryID eq %ld", category);
    snprintf(nav_path, sizeof nav_path, "Categories(%ld)/Products", category);

    options.kind = ODS_STORE_OFFLINE;
    options.service_root = service;
    options.store_path = store_path;
    if (ods_store_open(&store, &options, on_state, NULL) != ODS_OK) die("ods_store_open");
    pthread_mutex_lock(&mutex);
    while (store_state != ODS_STORE_OPEN && store_state != ODS_STORE_FAILED) pthread_cond_wait(&cond, &mutex);
    pthread_mutex_unlock(&mutex);
    if (store_state == ODS_STORE_FAILED) return 2;

    if (forced != NULL) {
        path = forced;
    } else {
        rc = read_once(store, filter_path, 0);
        if (rc == ODS_OK) {
            filter_supported = 1;
            path = filter_path;
        } else if (rc == ODS_EUNSUPPORTED) {
            filter_supported = 0;
            fprintf(stderr, "ods_localread: %s: %s; measuring %s instead\n", filter_path, R.message, nav_path);
            path = nav_path;
        } else {
            fprintf(stderr, "ods_localread: %s failed (%d): %s\n", filter_path, rc, R.message);
            return 2;
        }
    }

    for (i = 0; i < warmup; i++) {
        rc = read_once(store, path, 0);
        if (rc != ODS_OK) {
            fprintf(stderr, "ods_localread: %s failed (%d): %s\n", path, rc, R.message);
            return 2;
        }
    }
    if (warmup > 0 && (R.entities != (size_t)expect || !R.is_local)) {
        fprintf(stderr, "ods_localread: %s gave %zu entities (local %d), expected %ld\n", path, R.entities, R.is_local, expect);
        return 1;
    }

    t0 = now_ms();
    getrusage(RUSAGE_SELF, &r0);
    for (i = 0; i < count; i++) {
        rc = read_once(store, path, dump != NULL && i == count - 1);
        if (rc != ODS_OK || R.entities != (size_t)expect || !R.is_local) {
            fprintf(stderr, "ods_localread: %s: code %d, %zu entities\n", path, rc, R.entities);
            return 1;
        }
    }
    getrusage(RUSAGE_SELF, &r1);
    t1 = now_ms();

    if (dump != NULL && R.copy != NULL) {
        FILE *f = fopen(dump, "w");
        if (f == NULL || fwrite(R.copy, 1, strlen(R.copy), f) != strlen(R.copy) || fclose(f) != 0) {
            fprintf(stderr, "ods_localread: cannot write %s\n", dump);
            return 1;
        }
    }
    if (ods_store_close(store) != ODS_OK) die("ods_store_close");
    {
        double user = tv_ms(r1.ru_utime) - tv_ms(r0.ru_utime), sys = tv_ms(r1.ru_stime) - tv_ms(r0.ru_stime);
        printf("{\"client\":\"libodatastore (C API)\",\"path\":\"%s\",\"filter_supported\":%d,\"reads\":%ld,"
               "\"entities_per_read\":%zu,\"json_bytes\":%zu,\"wall_ms\":%.3f,\"user_ms\":%.3f,\"sys_ms\":%.3f,"
               "\"cpu_ms\":%.3f,\"wall_us_per_read\":%.2f,\"cpu_us_per_read\":%.2f,\"maxrss_kb\":%ld}\n",
               path, filter_supported, count, R.entities, R.json_len, t1 - t0, user, sys, user + sys,
               count > 0 ? (t1 - t0) * 1e3 / count : 0.0, count > 0 ? (user + sys) * 1e3 / count : 0.0, r1.ru_maxrss);
    }
    return 0;
}
