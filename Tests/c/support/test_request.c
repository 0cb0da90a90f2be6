#define _POSIX_C_SOURCE 200809L

#include "test_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ods_test_strdup(const char *s) {
    char *copy;
    size_t n;
    if (!s) return NULL;
    n = strlen(s) + 1;
    copy = malloc(n);
    if (!copy) ods_test_fail(__FILE__, __LINE__, "out of memory");
    memcpy(copy, s, n);
    return copy;
}

void ods_test_result_init(ods_test_result *r) {
    memset(r, 0, sizeof *r);
    r->count = -1;
    ods_test_waiter_init(&r->waiter);
}

void ods_test_result_free(ods_test_result *r) {
    free(r->error_message);
    free(r->odata_code);
    free(r->json);
    free(r->etag);
    free(r->next_link);
    free(r->first_entity_json);
    ods_test_waiter_destroy(&r->waiter);
}

void ods_test_on_complete(ods_request *request, const ods_response *response,
                          const ods_error *error, void *context) {
    ods_test_result *r = context;
    r->completions++;
    r->request_id = ods_request_id(request);
    r->thread = pthread_self();
    if (error) {
        r->error_code = error->code;
        r->error_message = ods_test_strdup(error->message);
        r->error_http_status = error->http_status;
        r->odata_code = ods_test_strdup(error->odata_code);
    }
    if (response) {
        const ods_entity *first;
        r->status = ods_response_status(response);
        r->json = ods_test_strdup(ods_response_json(response, NULL));
        r->etag = ods_test_strdup(ods_response_etag(response));
        r->next_link = ods_test_strdup(ods_response_next_link(response));
        r->count = ods_response_count(response);
        r->entity_count = ods_response_entity_count(response);
        first = ods_response_entity(response, 0);
        if (first) r->first_entity_json = ods_test_strdup(ods_entity_json(first));
    }
    ods_test_waiter_signal(&r->waiter, error ? "failed" : "completed");
}

void ods_test_wait(ods_store *store, ods_test_waiter *waiter, int count, long timeout_ms) {
    int64_t deadline = ods_test_now_ms() + timeout_ms;
    if (ods_store_fd(store) < 0) {
        ods_error_clear();
        if (ods_test_waiter_wait(waiter, count, timeout_ms) != 0)
            ods_test_fail(__FILE__, __LINE__, "timed out waiting for %d callbacks (got %d)", count,
                          ods_test_waiter_count(waiter));
        return;
    }
    while (ods_test_waiter_count(waiter) < count) {
        int64_t left = deadline - ods_test_now_ms();
        int n;
        if (left <= 0)
            ods_test_fail(__FILE__, __LINE__, "timed out dispatching for %d callbacks (got %d)", count,
                          ods_test_waiter_count(waiter));
        n = ods_store_dispatch(store, (int)(left > 1000 ? 1000 : left));
        if (n < 0) ods_test_fail(__FILE__, __LINE__, "ods_store_dispatch: %s", ods_error_last()->message);
    }
}

void ods_test_run(ods_test_result *r, ods_store *store, int mode, const char *path, const char *body) {
    uint64_t id = 0;
    int rc = ods_store_schedule(&id, store, mode, path, body, ods_test_on_complete, r);
    if (rc != ODS_OK)
        ods_test_fail(__FILE__, __LINE__, "ods_store_schedule(%s): %s: %s", path, ods_strerror(rc),
                      ods_error_last()->message);
    ods_test_wait(store, &r->waiter, 1, 60000);
    if (r->request_id != id)
        ods_test_fail(__FILE__, __LINE__, "completion for request %llu, scheduled %llu",
                      (unsigned long long)r->request_id, (unsigned long long)id);
}

void ods_test_run_once(ods_test_result *r, ods_store *store, int mode, const char *path, const char *body) {
    ods_test_result_init(r);
    ods_test_run(r, store, mode, path, body);
    if (r->completions != 1)
        ods_test_fail(__FILE__, __LINE__, "%s: the completion ran %d times", path, r->completions);
}

void ods_test_expect_ok(ods_test_result *r, ods_store *store, int mode, const char *path, const char *body,
                        int status) {
    ods_test_run_once(r, store, mode, path, body);
    if (r->error_code != 0) ods_test_fail(__FILE__, __LINE__, "%s failed: %s", path, r->error_message);
    if (r->status != status) ods_test_fail(__FILE__, __LINE__, "%s: HTTP %d, expected %d", path, r->status, status);
}

typedef struct open_wait {
    ods_test_waiter waiter;
    int state;
    struct open_wait *next;
} open_wait;

/* The state callback may run until the store is closed, so its context lives until exit. */
static open_wait *open_waits;
static pthread_mutex_t open_waits_mutex = PTHREAD_MUTEX_INITIALIZER;

static void free_open_waits(void) {
    while (open_waits) {
        open_wait *next = open_waits->next;
        ods_test_waiter_destroy(&open_waits->waiter);
        free(open_waits);
        open_waits = next;
    }
}

static void on_state(ods_store *store, int state, const ods_error *error, void *context) {
    open_wait *w = context;
    (void)store;
    (void)error;
    if (state == ODS_STORE_OPEN || state == ODS_STORE_FAILED) {
        w->state = state;
        ods_test_waiter_signal(&w->waiter, NULL);
    }
}

ods_store *ods_test_open_with(const char *url, int dispatch, void (*configure)(ods_store_options *)) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    open_wait *w = calloc(1, sizeof *w);
    if (!w) ods_test_fail(__FILE__, __LINE__, "out of memory");
    ods_test_waiter_init(&w->waiter);
    pthread_mutex_lock(&open_waits_mutex);
    if (!open_waits) atexit(free_open_waits);
    w->next = open_waits;
    open_waits = w;
    pthread_mutex_unlock(&open_waits_mutex);
    options.service_root = url;
    options.dispatch = dispatch;
    if (configure) configure(&options);
    if (ods_store_open(&store, &options, on_state, w) != ODS_OK)
        ods_test_fail(__FILE__, __LINE__, "ods_store_open(%s): %s", url, ods_error_last()->message);
    ods_test_wait(store, &w->waiter, 1, 60000);
    if (w->state != ODS_STORE_OPEN) ods_test_fail(__FILE__, __LINE__, "store on %s did not open", url);
    return store;
}

ods_store *ods_test_open(const char *url, int dispatch) {
    return ods_test_open_with(url, dispatch, NULL);
}
