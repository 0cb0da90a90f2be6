/* ods_localwrite.c - the library side of the local-write benchmark (issue 8).
 *
 *   ods_localwrite <store-file> --service URL [--count N]
 *
 * Reopens an existing offline store (made by `odatastore offline init --define Products`)
 * through the public header only (the service need not run), then makes --count (default
 * 10,000) single-entity creates, one at a time: ods_store_schedule(ODS_CREATE, "Products",
 * body) and wait for its completion (each create is acknowledged when it is durable: the
 * row, the queued change and the local key in one SQLite transaction, WAL, synchronous=FULL).
 * The products have no ID: the service would key them, so each gets a local key.
 *
 * Prints one JSON line: wall time and CPU time (getrusage RUSAGE_SELF, all threads: user +
 * sys) over the creates only, per create and creates per second, and the queue length after.
 */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int store_state;
static int done, code, status;
static char message[512];

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double tv_ms(struct timeval tv) { return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3; }

static void on_state(ods_store *store, int state, const ods_error *error, void *context) {
    (void)store;
    (void)context;
    if (state == ODS_STORE_FAILED) fprintf(stderr, "ods_localwrite: the store failed to open: %s\n", error ? error->message : "?");
    pthread_mutex_lock(&mutex);
    store_state = state;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&mutex);
}

static void on_done(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    (void)request;
    (void)context;
    pthread_mutex_lock(&mutex);
    code = error != NULL ? (error->code != 0 ? error->code : -1) : ODS_OK;
    status = response != NULL ? ods_response_status(response) : 0;
    if (error != NULL) snprintf(message, sizeof message, "%s", error->message ? error->message : "?");
    done = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&mutex);
}

int main(int argc, char **argv) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    const char *store_path = NULL, *service = NULL;
    long count = 10000, i;
    ods_store *store = NULL;
    ods_offline_info info = ODS_OFFLINE_INFO_INIT;
    char body[256];
    double t0, t1;
    struct rusage r0, r1;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--service") == 0 && i + 1 < argc) service = argv[++i];
        else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) count = strtol(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && store_path == NULL) store_path = argv[i];
        else {
            fprintf(stderr, "usage: ods_localwrite <store-file> --service URL [--count N]\n");
            return 64;
        }
    }
    if (store_path == NULL || service == NULL || count <= 0) {
        fprintf(stderr, "ods_localwrite: a store file and --service are required\n");
        return 64;
    }
    options.kind = ODS_STORE_OFFLINE;
    options.service_root = service;
    options.store_path = store_path;
    if (ods_store_open(&store, &options, on_state, NULL) != ODS_OK) {
        fprintf(stderr, "ods_localwrite: ods_store_open: %s\n", ods_error_last()->message);
        return 2;
    }
    pthread_mutex_lock(&mutex);
    while (store_state != ODS_STORE_OPEN && store_state != ODS_STORE_FAILED) pthread_cond_wait(&cond, &mutex);
    pthread_mutex_unlock(&mutex);
    if (store_state == ODS_STORE_FAILED) return 2;

    t0 = now_ms();
    getrusage(RUSAGE_SELF, &r0);
    for (i = 1; i <= count; i++) {
        snprintf(body, sizeof body,
                 "{\"Name\":\"Written %ld\",\"Price\":\"%ld.50\",\"Stock\":\"%ld\",\"Discontinued\":false,\"CategoryID\":%ld}",
                 i, i % 1000, i, i % 10 + 1);
        pthread_mutex_lock(&mutex);
        done = 0;
        pthread_mutex_unlock(&mutex);
        if (ods_store_schedule(NULL, store, ODS_CREATE, "Products", body, on_done, NULL) != ODS_OK) {
            fprintf(stderr, "ods_localwrite: ods_store_schedule: %s\n", ods_error_last()->message);
            return 2;
        }
        pthread_mutex_lock(&mutex);
        while (!done) pthread_cond_wait(&cond, &mutex);
        pthread_mutex_unlock(&mutex);
        if (code != ODS_OK || status != 201) {
            fprintf(stderr, "ods_localwrite: create %ld: code %d, HTTP %d: %s\n", i, code, status, message);
            return 1;
        }
    }
    getrusage(RUSAGE_SELF, &r1);
    t1 = now_ms();
    if (ods_store_offline_info(&info, store) != ODS_OK) {
        fprintf(stderr, "ods_localwrite: ods_store_offline_info: %s\n", ods_error_last()->message);
        return 2;
    }
    if (ods_store_close(store) != ODS_OK) return 2;
    {
        double user = tv_ms(r1.ru_utime) - tv_ms(r0.ru_utime), sys = tv_ms(r1.ru_stime) - tv_ms(r0.ru_stime);
        double wall = t1 - t0;
        printf("{\"client\":\"libodatastore (C API)\",\"creates\":%ld,\"wall_ms\":%.3f,\"user_ms\":%.3f,\"sys_ms\":%.3f,"
               "\"per_second\":%.1f,\"wall_us_per_create\":%.2f,\"cpu_us_per_create\":%.2f,\"file_bytes\":%lld}\n",
               count, wall, user, sys, count * 1e3 / wall, wall * 1e3 / count, (user + sys) * 1e3 / count,
               (long long)info.size_bytes);
    }
    return 0;
}
