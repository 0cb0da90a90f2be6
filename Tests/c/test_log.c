/* test_log.c - the process-wide log callback (ods_log_set) against the real V4 service,
 * through the fault proxy: NULL and level handling; a request's start and finish lines
 * with its status; the level filter; a retry with its reason and delay; no secret in any
 * message with basic auth, a bearer token and a logon reply; the same lines from the V2
 * service, a 404 with its status; set and unset from several
 * threads while requests run, with each thread's context freed right after its unset
 * (a call after that would read freed memory: memcheck runs this test). */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static ods_test_server *proxy;

/* ---- collected lines: "<level> <category> <message>\n" ---------------------------- */

#define LIVE 0x10601060u

typedef struct collector {
    unsigned magic;
    pthread_mutex_t mutex;
    char *text;
    size_t length, capacity;
    int max_level_seen;
} collector;

static collector *collector_new(void) {
    collector *c = calloc(1, sizeof *c);
    ODS_CHECK(c != NULL);
    c->magic = LIVE;
    pthread_mutex_init(&c->mutex, NULL);
    return c;
}

static void collector_free(collector *c) {
    c->magic = 0;
    pthread_mutex_destroy(&c->mutex);
    free(c->text);
    free(c);
}

static void collector_clear(collector *c) {
    pthread_mutex_lock(&c->mutex);
    c->length = 0;
    if (c->text) c->text[0] = '\0';
    c->max_level_seen = 0;
    pthread_mutex_unlock(&c->mutex);
}

static void on_log(int level, const char *category, const char *message, void *context) {
    collector *c = context;
    size_t need;
    if (c == NULL || c->magic != LIVE) ods_test_fail(__FILE__, __LINE__, "log callback with a dead context");
    if (category == NULL || message == NULL) ods_test_fail(__FILE__, __LINE__, "NULL log strings");
    if (level < ODS_LOG_ERROR || level > ODS_LOG_DEBUG) ods_test_fail(__FILE__, __LINE__, "level %d", level);
    pthread_mutex_lock(&c->mutex);
    need = c->length + strlen(category) + strlen(message) + 8;
    if (need > c->capacity) {
        size_t cap = need * 2 + 256;
        char *grown = realloc(c->text, cap);
        if (grown == NULL) ods_test_fail(__FILE__, __LINE__, "out of memory");
        c->text = grown;
        c->capacity = cap;
    }
    c->length += (size_t)sprintf(c->text + c->length, "%d %s %s\n", level, category, message);
    if (level > c->max_level_seen) c->max_level_seen = level;
    pthread_mutex_unlock(&c->mutex);
}

static int has(collector *c, const char *needle) {
    int found;
    pthread_mutex_lock(&c->mutex);
    found = c->text != NULL && strstr(c->text, needle) != NULL;
    pthread_mutex_unlock(&c->mutex);
    return found;
}

static void expect(collector *c, const char *needle) {
    if (!has(c, needle)) ods_test_fail(__FILE__, __LINE__, "no log line has \"%s\"; log:\n%s", needle, c->text ? c->text : "");
}

static void expect_not(collector *c, const char *needle) {
    if (has(c, needle)) ods_test_fail(__FILE__, __LINE__, "a log line has \"%s\"; log:\n%s", needle, c->text);
}

static void get(ods_store *store, const char *path) {
    ods_response *r = NULL;
    ODS_CHECK_OK(ods_store_execute(&r, store, ODS_READ, path, NULL, 60000));
    ods_response_free(r);
}

/* ---- NULL and levels ---------------------------------------------------------------- */

static void check_arguments(void) {
    collector *c = collector_new();
    ODS_CHECK_INT_EQ(ods_log_get_level(), ODS_LOG_OFF);
    ODS_CHECK_INT_EQ(ods_log_set(5, on_log, c), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_log_set(-1, on_log, c), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_log_get_level(), ODS_LOG_OFF);
    ODS_CHECK_OK(ods_log_set(ODS_LOG_INFO, on_log, c));
    ODS_CHECK_INT_EQ(ods_log_get_level(), ODS_LOG_INFO);
    ODS_CHECK_INT_EQ(ods_log_set(99, NULL, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_log_get_level(), ODS_LOG_INFO); /* a refused call changes nothing */
    ODS_CHECK_OK(ods_log_set(ODS_LOG_DEBUG, NULL, c));   /* NULL callback: off */
    ODS_CHECK_INT_EQ(ods_log_get_level(), ODS_LOG_OFF);
    ODS_CHECK_OK(ods_log_set(ODS_LOG_OFF, on_log, c));   /* level off: off */
    ODS_CHECK_INT_EQ(ods_log_get_level(), ODS_LOG_OFF);
    /* Every value of the ods_log_level enum is a level ods_log_set takes and reports back. */
    for (ods_log_level level = ODS_LOG_ERROR; level <= ODS_LOG_DEBUG; level++) {
        ODS_CHECK_OK(ods_log_set(level, on_log, c));
        ODS_CHECK_INT_EQ(ods_log_get_level(), (int)level);
    }
    ODS_CHECK_OK(ods_log_set(ODS_LOG_OFF, NULL, NULL));
    collector_free(c);
}

/* ---- requests, levels, retries ------------------------------------------------------ */

static void with_basic(ods_store_options *o) {
    o->auth = ODS_AUTH_BASIC;
    o->username = "alice";
    o->password = "S3cr3t-pass";
}

static void with_bearer(ods_store_options *o) { o->auth = ODS_AUTH_BEARER; o->bearer_token = "tok-Bearer-XYZ123"; }

static void check_secrets_absent(collector *c) {
    expect_not(c, "S3cr3t");
    expect_not(c, "YWxpY2U6UzNjcjN0LXBhc3M");  /* base64 of alice:S3cr3t-pass */
    expect_not(c, "tok-Bearer-XYZ123");
    expect_not(c, "Pr0mpt-Secret");
    expect_not(c, "logonuser");
    expect_not(c, "bG9nb251c2VyOlByMG1wdC1TZWNyZXQ");
    expect_not(c, "Authorization");
}

static void check_requests(collector *c) {
    ods_store *store;
    ODS_CHECK_OK(ods_log_set(ODS_LOG_DEBUG, on_log, c));
    store = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, with_basic);
    get(store, "Products(1)");
    expect(c, "3 store store opening: online store");
    if (!has(c, "3 store store open\n") && !has(c, "3 store store open,")) ods_test_fail(__FILE__, __LINE__, "no store open line:\n%s", c->text);
    expect(c, "4 http GET ");
    expect(c, "/Products(1) started");
    expect(c, "3 http GET ");
    expect(c, "/Products(1) -> 200 in ");
    ODS_CHECK_INT_EQ(c->max_level_seen, ODS_LOG_DEBUG);

    /* info: the finish line, no debug line */
    ODS_CHECK_OK(ods_log_set(ODS_LOG_INFO, on_log, c));
    collector_clear(c);
    get(store, "Products(3)");
    expect(c, "/Products(3) -> 200 in ");
    expect_not(c, "started");
    ODS_CHECK_INT_EQ(c->max_level_seen, ODS_LOG_INFO);

    /* warning: nothing for a successful GET */
    ODS_CHECK_OK(ods_log_set(ODS_LOG_WARNING, on_log, c));
    collector_clear(c);
    get(store, "Products(4)");
    ODS_CHECK_INT_EQ(c->max_level_seen, 0);

    /* a retry: reason and delay */
    ODS_CHECK_OK(ods_log_set(ODS_LOG_INFO, on_log, c));
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=http503&retry_after=0&match=Products(2)") == 0);
    collector_clear(c);
    get(store, "Products(2)");
    expect(c, "/Products(2) -> 503 in ");
    expect(c, "3 retry GET ");
    expect(c, "/Products(2): retry 1 in 0 ms after HTTP 503 (Retry-After: 0)");
    expect(c, "/Products(2) -> 200 in ");
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);

    ODS_CHECK_OK(ods_log_set(ODS_LOG_DEBUG, on_log, c));
    ODS_CHECK_OK(ods_store_close(store));
    expect(c, "3 store store closing");
    expect(c, "3 store store closed");
    store = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, with_bearer);
    get(store, "Products(1)");
    ODS_CHECK_OK(ods_store_close(store));
    check_secrets_absent(c);
    ODS_CHECK_OK(ods_log_set(ODS_LOG_OFF, NULL, NULL));
}

/* ---- logon: the prompt and the reply's kind, never the credentials -------------------- */

static void on_logon(ods_store *store, const ods_logon_info *info, void *context) {
    (void)context;
    if (ods_store_logon_basic(store, info->id, "logonuser", "Pr0mpt-Secret") != ODS_OK)
        ods_test_fail(__FILE__, __LINE__, "logon reply failed");
}

static void with_logon(ods_store_options *o) { o->logon = on_logon; }

static void check_logon(collector *c) {
    ods_store *store;
    collector_clear(c);
    ODS_CHECK_OK(ods_log_set(ODS_LOG_DEBUG, on_log, c));
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    ODS_CHECK(ods_test_proxy_add_fault_json(proxy,
        "{\"mode\":\"auth\",\"count\":-1,\"authorization\":\"Basic bG9nb251c2VyOlByMG1wdC1TZWNyZXQ=\"}") == 0);
    store = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, with_logon);
    get(store, "Products(1)");
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    expect(c, "3 logon logon prompt ");
    expect(c, "answered with basic credentials");
    expect(c, "-> 401 in ");
    check_secrets_absent(c);
    ODS_CHECK_OK(ods_log_set(ODS_LOG_OFF, NULL, NULL));
}

/* ---- the V2 service: the same lines ----------------------------------------------- */

static void check_v2(collector *c) {
    ods_test_server *v2 = NULL;
    ods_store *store;
    ods_response *r = NULL;
    if (ods_test_server_start_v2(&v2, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V2 server");
    collector_clear(c);
    ODS_CHECK_OK(ods_log_set(ODS_LOG_INFO, on_log, c));
    store = ods_test_open_with(ods_test_server_url(v2), ODS_DISPATCH_THREAD, with_basic);
    get(store, "Products(1)");
    /* a failed request: its finish line has the status */
    ODS_CHECK_INT_EQ(ods_store_execute(&r, store, ODS_READ, "Products(999)", NULL, 60000), ODS_ENOTFOUND);
    ods_response_free(r);
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_OK(ods_log_set(ODS_LOG_OFF, NULL, NULL));
    expect(c, "/$metadata -> 200 in ");
    expect(c, "/Products(1) -> 200 in ");
    expect(c, "/Products(999) -> 404 in ");
    check_secrets_absent(c);
    ODS_CHECK_INT_EQ(ods_test_server_stop(v2), 0);
}

/* ---- set and unset from several threads while requests run ------------------------- */

static ods_store *shared_store;
static pthread_mutex_t stop_mutex = PTHREAD_MUTEX_INITIALIZER;
static int stop_requests; /* under stop_mutex (C99: no atomics) */

static int stopping(void) {
    int s;
    pthread_mutex_lock(&stop_mutex);
    s = stop_requests;
    pthread_mutex_unlock(&stop_mutex);
    return s;
}

static void *setter(void *arg) {
    int i;
    (void)arg;
    for (i = 0; i < 200; i++) {
        collector *c = collector_new();
        ODS_CHECK_OK(ods_log_set(i % 2 ? ODS_LOG_DEBUG : ODS_LOG_INFO, on_log, c));
        ods_test_sleep_ms(1);
        ODS_CHECK_OK(ods_log_set(ODS_LOG_OFF, NULL, NULL));
        /* No call with `c` runs or begins now: freeing it is safe (memcheck would see a
         * use after free, and on_log checks the magic). */
        collector_free(c);
    }
    return NULL;
}

static void *requester(void *arg) {
    (void)arg;
    while (!stopping()) get(shared_store, "Products(1)");
    return NULL;
}

static void check_threads(void) {
    pthread_t setters[4], requesters[2];
    int i;
    shared_store = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);
    for (i = 0; i < 2; i++) ODS_CHECK(pthread_create(&requesters[i], NULL, requester, NULL) == 0);
    for (i = 0; i < 4; i++) ODS_CHECK(pthread_create(&setters[i], NULL, setter, NULL) == 0);
    for (i = 0; i < 4; i++) pthread_join(setters[i], NULL);
    pthread_mutex_lock(&stop_mutex);
    stop_requests = 1;
    pthread_mutex_unlock(&stop_mutex);
    for (i = 0; i < 2; i++) pthread_join(requesters[i], NULL);
    ODS_CHECK_INT_EQ(ods_log_get_level(), ODS_LOG_OFF);
    ODS_CHECK_OK(ods_store_close(shared_store));
}

int main(void) {
    ods_test_server *server = NULL;
    collector *c;
    check_arguments();
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_proxy_start(&proxy, ods_test_server_url(server), NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    c = collector_new();
    check_requests(c);
    check_logon(c);
    check_v2(c);
    collector_free(c);
    check_threads();
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("log: ok\n");
    return 0;
}
