/* curl_get.c - the plain-libcurl baseline of the online GET benchmark (issue 2).
 *
 *   curl_get <service-root-url> [--v2] [--count N] [--warmup N] [--inflight N] [--products N]
 *
 * The same work as ods_get.c without the library: libcurl's multi interface, `--inflight`
 * easy handles reused for every request (keep-alive connections, at most `--inflight` to the
 * host), GETs of `Products(<id>)` with the headers libodatastore sends
 * (Sources/ODataStore/Online/ProtocolHeaders.swift and CurlWorker.swift: Accept,
 * OData-Version/OData-MaxVersion or DataServiceVersion/MaxDataServiceVersion on V2,
 * User-Agent, Accept-Encoding as libcurl fills it). Each body is read fully into a buffer
 * and checked (HTTP 200, the body holds `"ID":<id>`), but NOT parsed or converted: the
 * library additionally decodes every payload into its canonical JSON, this program does not.
 *
 * Prints one JSON line: wall time and the process's CPU (getrusage RUSAGE_SELF, user + sys)
 * over the timed `--count` requests (after `--warmup` requests on the same connections).
 */
#define _POSIX_C_SOURCE 200809L

#include <curl/curl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct slot {
    CURL *easy;
    char *body;
    size_t length, capacity;
    int id;            /* product asked for */
    char url[512];
} slot;

static CURLM *multi;
static slot *slots;
static int target, issued, done, failures, products = 300;
static const char *root;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double tv_ms(struct timeval tv) {
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    slot *s = context;
    size_t n = size * count;
    if (s->length + n + 1 > s->capacity) {
        size_t capacity = s->capacity ? s->capacity : 1024;
        char *grown;
        while (capacity < s->length + n + 1) capacity *= 2;
        grown = realloc(s->body, capacity);
        if (grown == NULL) return 0;
        s->body = grown;
        s->capacity = capacity;
    }
    memcpy(s->body + s->length, data, n);
    s->length += n;
    s->body[s->length] = '\0';
    return n;
}

/* Starts the slot's next request of the phase; 0 when none remain. */
static int start(slot *s) {
    if (issued >= target) return 0;
    s->id = issued % products + 1;
    issued++;
    snprintf(s->url, sizeof s->url, "%sProducts(%d)", root, s->id);
    s->length = 0;
    curl_easy_setopt(s->easy, CURLOPT_URL, s->url);
    if (curl_multi_add_handle(multi, s->easy) != CURLM_OK) {
        fprintf(stderr, "curl_get: curl_multi_add_handle failed\n");
        exit(2);
    }
    return 1;
}

/* "ID":<id> or "ID": <id> followed by a non-digit (V4 and V2 JSON). */
static int has_id(const char *body, int id) {
    const char *p = body;
    while ((p = strstr(p, "\"ID\":")) != NULL) {
        char *end = NULL;
        long v;
        p += 5;
        while (*p == ' ') p++;
        v = strtol(p, &end, 10);
        if (end != p && v == id) return 1;
    }
    return 0;
}

static void check(slot *s, CURLcode result) {
    long status = 0;
    curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
    if (result != CURLE_OK) {
        fprintf(stderr, "curl_get: Products(%d): %s\n", s->id, curl_easy_strerror(result));
        failures++;
    } else if (status != 200) {
        fprintf(stderr, "curl_get: Products(%d): HTTP %ld\n", s->id, status);
        failures++;
    } else if (s->length == 0 || !has_id(s->body, s->id)) {
        fprintf(stderr, "curl_get: Products(%d): the body has no matching ID\n", s->id);
        failures++;
    }
}

static void run_phase(int count, int inflight) {
    int i;
    target = count;
    issued = 0;
    done = 0;
    for (i = 0; i < inflight; i++) start(&slots[i]);
    while (done < target) {
        int running = 0, remaining = 0;
        CURLMsg *message;
        curl_multi_perform(multi, &running);
        while ((message = curl_multi_info_read(multi, &remaining)) != NULL) {
            slot *s = NULL;
            if (message->msg != CURLMSG_DONE) continue;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&s);
            check(s, message->data.result);
            curl_multi_remove_handle(multi, s->easy);
            done++;
            start(s);
        }
        if (done < target) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
}

static long arg_long(int argc, char **argv, int *i) {
    char *end = NULL;
    long v;
    if (*i + 1 >= argc) {
        fprintf(stderr, "curl_get: %s needs a value\n", argv[*i]);
        exit(64);
    }
    v = strtol(argv[++*i], &end, 10);
    if (end == argv[*i] || *end != '\0' || v < 0) {
        fprintf(stderr, "curl_get: bad number %s\n", argv[*i]);
        exit(64);
    }
    return v;
}

int main(int argc, char **argv) {
    int count = 1000, warmup = 50, inflight = 8, v2 = 0, i;
    struct curl_slist *headers = NULL;
    double t0, t1, user_ms, sys_ms;
    struct rusage r0, r1;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--count") == 0) count = (int)arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--warmup") == 0) warmup = (int)arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--inflight") == 0) inflight = (int)arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--products") == 0) products = (int)arg_long(argc, argv, &i);
        else if (strcmp(argv[i], "--v2") == 0) v2 = 1;
        else if (argv[i][0] != '-' && root == NULL) root = argv[i];
        else {
            fprintf(stderr, "usage: curl_get <service-root-url> [--v2] [--count N] [--warmup N] "
                            "[--inflight N] [--products N]\n");
            return 64;
        }
    }
    if (root == NULL || inflight < 1 || products < 1 || root[0] == '\0' || root[strlen(root) - 1] != '/') {
        fprintf(stderr, "curl_get: a service root URL ending in / is required (and --inflight, --products >= 1)\n");
        return 64;
    }

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return 2;
    multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_NOTHING);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)inflight);
    curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)inflight);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)inflight);

    if (v2) {
        headers = curl_slist_append(headers, "DataServiceVersion: 2.0");
        headers = curl_slist_append(headers, "MaxDataServiceVersion: 2.0");
        headers = curl_slist_append(headers, "Accept: application/json");
    } else {
        headers = curl_slist_append(headers, "OData-Version: 4.0");
        headers = curl_slist_append(headers, "OData-MaxVersion: 4.0");
        headers = curl_slist_append(headers, "Accept: application/json;odata.metadata=minimal;IEEE754Compatible=true");
    }
    headers = curl_slist_append(headers, "Expect:");

    slots = calloc((size_t)inflight, sizeof *slots);
    if (slots == NULL || headers == NULL) return 2;
    for (i = 0; i < inflight; i++) {
        slot *s = &slots[i];
        s->easy = curl_easy_init();
        if (s->easy == NULL) return 2;
        curl_easy_setopt(s->easy, CURLOPT_PRIVATE, (char *)s);
        curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(s->easy, CURLOPT_USERAGENT, "libodatastore/0.1.0");
        curl_easy_setopt(s->easy, CURLOPT_ACCEPT_ENCODING, "");
        curl_easy_setopt(s->easy, CURLOPT_PROXY, "");
        curl_easy_setopt(s->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
        curl_easy_setopt(s->easy, CURLOPT_TIMEOUT_MS, 60000L);
        curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
        curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
    }

    if (warmup > 0) run_phase(warmup, inflight);

    t0 = now_ms();
    getrusage(RUSAGE_SELF, &r0);
    run_phase(count, inflight);
    getrusage(RUSAGE_SELF, &r1);
    t1 = now_ms();

    user_ms = tv_ms(r1.ru_utime) - tv_ms(r0.ru_utime);
    sys_ms = tv_ms(r1.ru_stime) - tv_ms(r0.ru_stime);
    printf("{\"client\":\"libcurl\",\"requests\":%d,\"inflight\":%d,\"failures\":%d,\"wall_ms\":%.3f,"
           "\"user_ms\":%.3f,\"sys_ms\":%.3f,\"cpu_ms\":%.3f,\"cpu_ms_per_request\":%.4f,"
           "\"voluntary_switches\":%ld,\"involuntary_switches\":%ld}\n",
           count, inflight, failures, t1 - t0, user_ms, sys_ms, user_ms + sys_ms,
           count > 0 ? (user_ms + sys_ms) / count : 0.0,
           r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw);

    for (i = 0; i < inflight; i++) {
        curl_easy_cleanup(slots[i].easy);
        free(slots[i].body);
    }
    free(slots);
    curl_slist_free_all(headers);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return failures == 0 ? 0 : 1;
}
