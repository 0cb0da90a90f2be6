/* ods_download.c - the library side of the first-download benchmark (issue 7), without the CLI.
 *
 *   ods_download <service-root-url> --store FILE [--define PATH ...] [--page-size N] [--expect N]
 *
 * Opens a NEW offline store on the service through the public header only (the store file
 * must not exist), with the defining requests given (default "Products"; --expect checks the
 * first one), and waits until the store
 * is open: loading $metadata, creating the file and downloading every page into it. Then it
 * checks that the defining request is complete with --expect entities (when given), and
 * closes the store. --page-size is ods_store_options.download_page_size (V4: Prefer:
 * odata.maxpagesize; 0 = the library's default 1000, -1 = the service's own page size).
 *
 * Prints one JSON line on stdout: wall time and the process's CPU time (getrusage
 * RUSAGE_SELF, all threads: user + sys) from ods_store_open to the open store (the whole
 * download, $metadata included), the same for ods_store_close, the number of progress
 * reports (pages), the store's size, and the process's peak RSS (ru_maxrss). Process start
 * and library loading are not included: `odatastore offline init`, measured from outside by
 * run.sh, is the figure with everything.
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
static long progress_reports;
static int64_t last_total_entities;

static void die(const char *what) {
    const ods_error *e = ods_error_last();
    fprintf(stderr, "ods_download: %s: %s (%d)\n", what, e->message, e->code);
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
        fprintf(stderr, "ods_download: the store failed to open: %s\n", error ? error->message : "?");
    pthread_mutex_lock(&mutex);
    store_state = state;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&mutex);
}

static void on_progress(ods_store *store, const ods_download_progress *progress, void *context) {
    (void)store;
    (void)context;
    pthread_mutex_lock(&mutex);
    progress_reports++;
    last_total_entities = progress->total_entities;
    pthread_mutex_unlock(&mutex);
}

static long arg_long(int argc, char **argv, int *i) {
    char *end = NULL;
    long v;
    if (*i + 1 >= argc) {
        fprintf(stderr, "ods_download: %s needs a value\n", argv[*i]);
        exit(64);
    }
    v = strtol(argv[++*i], &end, 10);
    if (end == argv[*i] || *end != '\0') {
        fprintf(stderr, "ods_download: bad number %s\n", argv[*i]);
        exit(64);
    }
    return v;
}

int main(int argc, char **argv) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    ods_offline_info info = ODS_OFFLINE_INFO_INIT;
    ods_defining_request_info request = ODS_DEFINING_REQUEST_INFO_INIT;
    const char *root = NULL, *store_path = NULL;
    const char *defining[9] = {NULL};
    int ndefining = 0;
    long page_size = 10000, expect = -1;
    ods_store *store = NULL;
    double t0, t1, t2;
    struct rusage r0, r1, r2;
    int i, ok = 1;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--store") == 0 && i + 1 < argc) store_path = argv[++i];
        else if (strcmp(argv[i], "--define") == 0 && i + 1 < argc && ndefining < 8) defining[ndefining++] = argv[++i];
        else if (strcmp(argv[i], "--page-size") == 0) page_size = arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--expect") == 0) expect = arg_long(argc, argv, &i);
        else if (argv[i][0] != '-' && root == NULL) root = argv[i];
        else {
            fprintf(stderr, "usage: ods_download <service-root-url> --store FILE [--define PATH] "
                            "[--page-size N] [--expect N]\n");
            return 64;
        }
    }
    if (root == NULL || store_path == NULL) {
        fprintf(stderr, "ods_download: a service root URL and --store are required\n");
        return 64;
    }
    if (fopen(store_path, "r") != NULL) {
        fprintf(stderr, "ods_download: %s exists: the benchmark measures a first download\n", store_path);
        return 64;
    }

    if (ndefining == 0) defining[0] = "Products";
    options.kind = ODS_STORE_OFFLINE;
    options.service_root = root;
    options.store_path = store_path;
    options.defining_requests = defining;
    options.download_progress = on_progress;
    options.download_page_size = (int)page_size;

    t0 = now_ms();
    getrusage(RUSAGE_SELF, &r0);
    if (ods_store_open(&store, &options, on_state, NULL) != ODS_OK) die("ods_store_open");
    pthread_mutex_lock(&mutex);
    while (store_state != ODS_STORE_OPEN && store_state != ODS_STORE_FAILED) pthread_cond_wait(&cond, &mutex);
    pthread_mutex_unlock(&mutex);
    getrusage(RUSAGE_SELF, &r1);
    t1 = now_ms();
    if (store_state == ODS_STORE_FAILED) return 2;

    if (ods_store_offline_info(&info, store) != ODS_OK) die("ods_store_offline_info");
    if (ods_store_defining_request(&request, store, 0) != ODS_OK) die("ods_store_defining_request");
    if (!request.complete) {
        fprintf(stderr, "ods_download: the defining request is not complete\n");
        ok = 0;
    }
    if (expect >= 0 && request.entities != expect) {
        fprintf(stderr, "ods_download: %" PRId64 " entities downloaded, expected %ld\n", request.entities, expect);
        ok = 0;
    }
    {
        int64_t entities = request.entities, bytes = request.bytes, size = info.size_bytes;
        double open_wall = t1 - t0;
        double open_user = tv_ms(r1.ru_utime) - tv_ms(r0.ru_utime);
        double open_sys = tv_ms(r1.ru_stime) - tv_ms(r0.ru_stime);
        if (ods_store_close(store) != ODS_OK) die("ods_store_close");
        getrusage(RUSAGE_SELF, &r2);
        t2 = now_ms();
        printf("{\"client\":\"libodatastore (C API)\",\"entities\":%" PRId64 ",\"response_bytes\":%" PRId64 ","
               "\"page_size\":%ld,\"progress_reports\":%ld,\"wall_ms\":%.3f,\"user_ms\":%.3f,\"sys_ms\":%.3f,"
               "\"cpu_ms\":%.3f,\"close_wall_ms\":%.3f,\"close_cpu_ms\":%.3f,\"store_bytes_open\":%" PRId64 ","
               "\"maxrss_kb\":%ld,\"ok\":%d}\n",
               entities, bytes, page_size, progress_reports, open_wall, open_user, open_sys, open_user + open_sys,
               t2 - t1, tv_ms(r2.ru_utime) + tv_ms(r2.ru_stime) - tv_ms(r1.ru_utime) - tv_ms(r1.ru_stime), size,
               r2.ru_maxrss, ok);
    }
    (void)last_total_entities;
    return ok ? 0 : 1;
}
