/* ods_get.c - the libodatastore side of the online GET benchmark (issue 2).
 *
 *   ods_get <service-root-url> [--count N] [--warmup N] [--inflight N] [--products N]
 *           [--dispatch thread|queue]
 *
 * Opens an online store on the service (through the public header only), waits until it is
 * open, runs `--warmup` single-entity GETs, then times `--count` GETs of `Products(<id>)`
 * (id cycling through 1..--products) with exactly `--inflight` requests in flight: each
 * completion starts the next request. Every response is checked (no error, HTTP 200, one
 * entity whose ID is the one asked for); any failure makes the program exit non-zero, so
 * the benchmark cannot pass by failing fast.
 *
 * Prints one JSON line on stdout: wall time and the process's CPU time (getrusage
 * RUSAGE_SELF, all threads: user + sys) over the timed interval only (store opening,
 * $metadata and warm-up excluded). The same measurement as curl_get.c.
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

typedef struct bench {
    ods_store *store;
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int store_state;    /* last ods_store_state seen */
    int target;         /* requests in the current phase */
    int issued;         /* started in the current phase */
    int done;           /* completed (checked) in the current phase */
    int failures;       /* over the whole run */
    int products;
} bench;

static bench B;

static void die(const char *what) {
    const ods_error *e = ods_error_last();
    fprintf(stderr, "ods_get: %s: %s (%d)\n", what, e->message, e->code);
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
        fprintf(stderr, "ods_get: the store failed to open: %s\n", error ? error->message : "?");
    pthread_mutex_lock(&B.mutex);
    B.store_state = state;
    pthread_cond_broadcast(&B.cond);
    pthread_mutex_unlock(&B.mutex);
}

static void on_done(ods_request *request, const ods_response *response, const ods_error *error, void *context);

/* Starts the next request of the phase, if any remain. Called without the lock. */
static void issue_next(void) {
    char path[64];
    intptr_t id;
    int rc;
    pthread_mutex_lock(&B.mutex);
    if (B.issued >= B.target) {
        pthread_mutex_unlock(&B.mutex);
        return;
    }
    id = B.issued % B.products + 1;
    B.issued++;
    pthread_mutex_unlock(&B.mutex);
    snprintf(path, sizeof path, "Products(%d)", (int)id);
    rc = ods_store_schedule(NULL, B.store, ODS_READ, path, NULL, on_done, (void *)id);
    if (rc != ODS_OK) die("ods_store_schedule");
}

/* Completion: check the response, count it, start the next one. */
static void on_done(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    intptr_t id = (intptr_t)context;
    int ok = 0;
    (void)request;
    if (error != NULL) {
        fprintf(stderr, "ods_get: Products(%d) failed: %s\n", (int)id, error->message);
    } else if (ods_response_status(response) != 200) {
        fprintf(stderr, "ods_get: Products(%d): HTTP %d\n", (int)id, ods_response_status(response));
    } else if (ods_response_entity_count(response) != 1) {
        fprintf(stderr, "ods_get: Products(%d): %zu entities\n", (int)id, ods_response_entity_count(response));
    } else {
        int64_t got = -1;
        const ods_entity *entity = ods_response_entity(response, 0);
        if (entity == NULL || ods_entity_get_int64(&got, entity, "ID") != ODS_OK || got != id)
            fprintf(stderr, "ods_get: Products(%d): the entity's ID is %" PRId64 "\n", (int)id, got);
        else
            ok = 1;
    }
    pthread_mutex_lock(&B.mutex);
    if (!ok) B.failures++;
    B.done++;
    if (B.done == B.target) pthread_cond_broadcast(&B.cond);
    pthread_mutex_unlock(&B.mutex);
    issue_next();
}

/* Runs one phase of `count` requests with `inflight` in flight; returns when all completed. */
static void run_phase(int count, int inflight, int queue_mode) {
    int i;
    pthread_mutex_lock(&B.mutex);
    B.target = count;
    B.issued = 0;
    B.done = 0;
    pthread_mutex_unlock(&B.mutex);
    for (i = 0; i < inflight && i < count; i++) issue_next();
    if (queue_mode) {
        for (;;) {
            int finished;
            pthread_mutex_lock(&B.mutex);
            finished = B.done >= B.target;
            pthread_mutex_unlock(&B.mutex);
            if (finished) break;
            if (ods_store_dispatch(B.store, -1) < 0) die("ods_store_dispatch");
        }
    } else {
        pthread_mutex_lock(&B.mutex);
        while (B.done < B.target) pthread_cond_wait(&B.cond, &B.mutex);
        pthread_mutex_unlock(&B.mutex);
    }
}

static long arg_long(int argc, char **argv, int *i) {
    char *end = NULL;
    long v;
    if (*i + 1 >= argc) {
        fprintf(stderr, "ods_get: %s needs a value\n", argv[*i]);
        exit(64);
    }
    v = strtol(argv[++*i], &end, 10);
    if (end == argv[*i] || *end != '\0' || v < 0) {
        fprintf(stderr, "ods_get: bad number %s\n", argv[*i]);
        exit(64);
    }
    return v;
}

int main(int argc, char **argv) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    const char *root = NULL;
    int count = 1000, warmup = 50, inflight = 8, queue_mode = 0, i;
    double t0, t1;
    struct rusage r0, r1;
    double user_ms, sys_ms, wall_ms;

    B.products = 300;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--count") == 0) count = (int)arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--warmup") == 0) warmup = (int)arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--inflight") == 0) inflight = (int)arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--products") == 0) B.products = (int)arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--dispatch") == 0 && i + 1 < argc) queue_mode = strcmp(argv[++i], "queue") == 0;
        else if (argv[i][0] != '-' && root == NULL) root = argv[i];
        else {
            fprintf(stderr, "usage: ods_get <service-root-url> [--count N] [--warmup N] [--inflight N] "
                            "[--products N] [--dispatch thread|queue]\n");
            return 64;
        }
    }
    if (root == NULL || inflight < 1 || B.products < 1) {
        fprintf(stderr, "ods_get: a service root URL is required (and --inflight, --products >= 1)\n");
        return 64;
    }

    pthread_mutex_init(&B.mutex, NULL);
    pthread_cond_init(&B.cond, NULL);
    options.service_root = root;
    options.max_connections = inflight;
    options.dispatch = queue_mode ? ODS_DISPATCH_QUEUE : ODS_DISPATCH_THREAD;
    if (ods_store_open(&B.store, &options, on_state, NULL) != ODS_OK) die("ods_store_open");

    /* Wait until the store is open ($metadata loaded): not part of the measurement. */
    if (queue_mode) {
        for (;;) {
            int state;
            pthread_mutex_lock(&B.mutex);
            state = B.store_state;
            pthread_mutex_unlock(&B.mutex);
            if (state == ODS_STORE_OPEN) break;
            if (state == ODS_STORE_FAILED) return 2;
            if (ods_store_dispatch(B.store, 1000) < 0) die("ods_store_dispatch");
        }
    } else {
        pthread_mutex_lock(&B.mutex);
        while (B.store_state != ODS_STORE_OPEN && B.store_state != ODS_STORE_FAILED)
            pthread_cond_wait(&B.cond, &B.mutex);
        pthread_mutex_unlock(&B.mutex);
        if (B.store_state == ODS_STORE_FAILED) return 2;
    }

    if (warmup > 0) run_phase(warmup, inflight, queue_mode);

    t0 = now_ms();
    getrusage(RUSAGE_SELF, &r0);
    run_phase(count, inflight, queue_mode);
    getrusage(RUSAGE_SELF, &r1);
    t1 = now_ms();

    if (ods_store_close(B.store) != ODS_OK) die("ods_store_close");

    wall_ms = t1 - t0;
    user_ms = tv_ms(r1.ru_utime) - tv_ms(r0.ru_utime);
    sys_ms = tv_ms(r1.ru_stime) - tv_ms(r0.ru_stime);
    printf("{\"client\":\"libodatastore\",\"dispatch\":\"%s\",\"requests\":%d,\"inflight\":%d,"
           "\"failures\":%d,\"wall_ms\":%.3f,\"user_ms\":%.3f,\"sys_ms\":%.3f,\"cpu_ms\":%.3f,"
           "\"cpu_ms_per_request\":%.4f,\"voluntary_switches\":%ld,\"involuntary_switches\":%ld}\n",
           queue_mode ? "queue" : "thread", count, inflight, B.failures, wall_ms, user_ms, sys_ms,
           user_ms + sys_ms, count > 0 ? (user_ms + sys_ms) / count : 0.0,
           r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw);
    return B.failures == 0 ? 0 : 1;
}
