/* test_requests.c - request handles and the callback contract: created unstarted and
 * configured, delegate callbacks in order with the request's context, states, unique ids,
 * the store's default delegate, setters refused after start, cancel, freeing a request
 * inside its own callback, close and dispatch refused from a callback, and bad input
 * (unknown modes, malformed paths, invalid JSON bodies) failing synchronously with no
 * callback. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static ods_store *store;

typedef struct tracked {
    ods_test_waiter waiter;
    ods_request *request;
    void *context_seen;
    int entities;
    int status;
    int error_code;
    int state_in_finished;
    int close_rc, dispatch_rc;
    pthread_t thread;
    int free_in_callback;
    char header_value[64];
} tracked;

static void on_started(ods_request *request, void *context) {
    tracked *t = context;
    ODS_CHECK(request == t->request || t->request == NULL);
    t->context_seen = context;
    t->thread = pthread_self();
    ods_test_waiter_signal(&t->waiter, "started");
}

static void on_response(ods_request *request, const ods_response *response, void *context) {
    tracked *t = context;
    const char *v;
    (void)request;
    t->status = ods_response_status(response);
    t->entities = (int)ods_response_entity_count(response);
    v = ods_response_header(response, "content-type"); /* case-insensitive */
    snprintf(t->header_value, sizeof t->header_value, "%s", v ? v : "");
    ods_test_waiter_signal(&t->waiter, "response");
}

static void on_failed(ods_request *request, const ods_error *error, const ods_response *response, void *context) {
    tracked *t = context;
    (void)request;
    t->error_code = error->code;
    t->status = response ? ods_response_status(response) : 0;
    ods_test_waiter_signal(&t->waiter, "failed");
}

static void on_finished(ods_request *request, void *context) {
    tracked *t = context;
    t->state_in_finished = ods_request_get_state(request);
    t->close_rc = ods_store_close(ods_request_store(request));   /* refused from a callback */
    t->dispatch_rc = ods_store_dispatch(ods_request_store(request), 0);
    if (t->free_in_callback) ods_request_free(request);
    ods_test_waiter_signal(&t->waiter, "finished");
}

static const ods_request_delegate delegate = {
    ODS_REQUEST_DELEGATE_VERSION, on_started, on_response, on_failed, on_finished};

static void check_delegate_flow(void) {
    tracked t;
    ods_request *req = NULL;
    char log[128];
    memset(&t, 0, sizeof t);
    ods_test_waiter_init(&t.waiter);

    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products?$top=4", NULL));
    t.request = req;
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_NEW);
    ODS_CHECK_INT_EQ(ods_request_mode(req), ODS_READ);
    ODS_CHECK_STR_EQ(ods_request_path(req), "Products?$top=4");
    ODS_CHECK(ods_request_store(req) == store);
    ODS_CHECK(ods_request_id(req) != 0);
    ODS_CHECK_OK(ods_request_set_delegate(req, &delegate));
    ODS_CHECK_OK(ods_request_set_context(req, &t));
    ODS_CHECK(ods_request_context(req) == &t);
    ODS_CHECK_OK(ods_request_set_header(req, "X-Test", "yes"));
    ODS_CHECK_OK(ods_request_set_header(req, "X-Test", NULL)); /* removed again */
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "X-Test", "a\x1b[31m"), ODS_EINVAL); /* RFC 9110 5.5 */
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "X-Test", "a\x7f"), ODS_EINVAL);
    ODS_CHECK_OK(ods_request_set_header(req, "X-Test", "a\tb")); /* a tab may appear */
    ODS_CHECK_OK(ods_request_set_header(req, "X-Test", NULL));
    /* The HTTP layer's headers are refused, whatever their case. */
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "Content-Length", "5"), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "Content-Length header is the HTTP layer's") != NULL);
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "transfer-encoding", "chunked"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "Connection", "close"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "Upgrade", NULL), ODS_EINVAL);
    ODS_CHECK_OK(ods_request_set_timeout(req, 30000));
    ODS_CHECK_OK(ods_request_start(req));

    /* After start: configuration and a second start are refused. */
    ODS_CHECK_INT_EQ(ods_request_start(req), ODS_ESTATE);
    ODS_CHECK_INT_EQ(ods_request_set_context(req, NULL), ODS_ESTATE);
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "A", "b"), ODS_ESTATE);
    ODS_CHECK_INT_EQ(ods_request_set_paging(req, ODS_PAGING_FOLLOW), ODS_ESTATE);

    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&t.waiter, 3, 60000), 0);
    ods_test_waiter_log(&t.waiter, log, sizeof log);
    ODS_CHECK_STR_EQ(log, "started,response,finished");
    ODS_CHECK(t.context_seen == &t);
    ODS_CHECK(!pthread_equal(t.thread, pthread_self())); /* the store's callback thread */
    ODS_CHECK_INT_EQ(t.status, 200);
    ODS_CHECK_INT_EQ(t.entities, 4);
    ODS_CHECK(strstr(t.header_value, "application/json") != NULL);
    ODS_CHECK_INT_EQ(t.state_in_finished, ODS_REQUEST_FINISHED);
    ODS_CHECK_INT_EQ(t.close_rc, ODS_ESTATE);
    ODS_CHECK_INT_EQ(t.dispatch_rc, ODS_ESTATE);
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FINISHED);
    ODS_CHECK_INT_EQ(ods_request_cancel(req), ODS_ESTATE); /* already done */
    ods_request_free(req);
    ods_test_waiter_destroy(&t.waiter);
}

static void check_failure_flow_and_free_in_callback(void) {
    tracked t;
    ods_request *req = NULL;
    char log[128];
    memset(&t, 0, sizeof t);
    ods_test_waiter_init(&t.waiter);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(4242)", NULL));
    t.request = req;
    ODS_CHECK_OK(ods_request_set_delegate(req, &delegate));
    ODS_CHECK_OK(ods_request_set_context(req, &t));
    ODS_CHECK_OK(ods_request_start(req));
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&t.waiter, 2, 60000), 0);
    ods_test_waiter_log(&t.waiter, log, sizeof log);
    ODS_CHECK_STR_EQ(log, "started,failed");
    ODS_CHECK_INT_EQ(t.error_code, ODS_ENOTFOUND);
    ODS_CHECK_INT_EQ(t.status, 404);
    ods_request_free(req);
    ods_test_waiter_destroy(&t.waiter);

    /* The app frees its handle inside the terminal callback: the library keeps it alive. */
    memset(&t, 0, sizeof t);
    ods_test_waiter_init(&t.waiter);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Categories(2)", NULL));
    t.request = req;
    t.free_in_callback = 1;
    ODS_CHECK_OK(ods_request_set_delegate(req, &delegate));
    ODS_CHECK_OK(ods_request_set_context(req, &t));
    ODS_CHECK_OK(ods_request_start(req));
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&t.waiter, 3, 60000), 0);
    ods_test_waiter_destroy(&t.waiter);

    /* Freed right after start, before any callback: it still runs to its end. */
    memset(&t, 0, sizeof t);
    ods_test_waiter_init(&t.waiter);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Categories(3)", NULL));
    ODS_CHECK_OK(ods_request_set_delegate(req, &delegate));
    ODS_CHECK_OK(ods_request_set_context(req, &t));
    ODS_CHECK_OK(ods_request_start(req));
    ods_request_free(req);
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&t.waiter, 3, 60000), 0);
    ods_test_waiter_destroy(&t.waiter);
}

/* The default delegate gets the request's own context (here the completion's result). */
static int default_started, default_finished;
static void *default_context;
static void default_on_started(ods_request *request, void *context) {
    (void)request;
    default_context = context;
    default_started++;
}
static void default_on_finished(ods_request *request, void *context) {
    (void)request;
    (void)context;
    default_finished++;
}

static void check_default_delegate(void) {
    ods_request_delegate d = ODS_REQUEST_DELEGATE_INIT;
    ods_test_result r;
    tracked t;
    ods_request *req = NULL;
    d.started = default_on_started;
    d.finished = default_on_finished;
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_store_set_default_delegate(store, &d));
    /* schedule: the default delegate runs, then the completion (the last callback). */
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Categories", NULL, ods_test_on_complete, &r));
    ods_test_wait(store, &r.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK_INT_EQ(r.entity_count, 10);
    ODS_CHECK_INT_EQ(default_started, 1);
    ODS_CHECK_INT_EQ(default_finished, 1);
    ODS_CHECK(default_context == &r);
    ods_test_result_free(&r);

    /* A request with its own delegate does not use the default one. */
    memset(&t, 0, sizeof t);
    ods_test_waiter_init(&t.waiter);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Categories(1)", NULL));
    t.request = req;
    ODS_CHECK_OK(ods_request_set_delegate(req, &delegate));
    ODS_CHECK_OK(ods_request_set_context(req, &t));
    ODS_CHECK_OK(ods_request_start(req));
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&t.waiter, 3, 60000), 0);
    ODS_CHECK_INT_EQ(default_started, 1);
    ods_request_free(req);
    ods_test_waiter_destroy(&t.waiter);
    ODS_CHECK_OK(ods_store_set_default_delegate(store, NULL));
}

static void check_unique_ids(void) {
    uint64_t ids[50];
    ods_request *reqs[50];
    int i, j;
    for (i = 0; i < 50; i++) {
        ODS_CHECK_OK(ods_request_new(&reqs[i], store, ODS_READ, "Categories", NULL));
        ids[i] = ods_request_id(reqs[i]);
        for (j = 0; j < i; j++) ODS_CHECK(ids[j] != ids[i]);
    }
    for (i = 0; i < 50; i++) {
        ODS_CHECK_INT_EQ(ods_request_cancel(reqs[i]), ODS_ESTATE); /* not started */
        ods_request_free(reqs[i]);                                  /* never started: no callback */
    }
}

static int should_not_run_calls;
static void should_not_run(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    (void)request; (void)response; (void)error; (void)context;
    should_not_run_calls++;
}

static void check_bad_input(void) {
    ods_request *req = (ods_request *)1;
    uint64_t id = 5;
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, 0, "Products", NULL), ODS_EINVAL);
    ODS_CHECK(req == NULL);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, 99, "Products", NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, NULL, NULL), ODS_EINVAL);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "", NULL)); /* the service document */
    ods_request_free(req);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, "Products(1", NULL), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "malformed") != NULL);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, "Products('unterminated)", NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, "Products\r\nX-Evil: 1", NULL), ODS_EINVAL);
    ODS_CHECK(ods_error_last()->position == 8);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, "http://other.example/odata/Products", NULL), ODS_EINVAL);
    ODS_CHECK(req == NULL);

    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_CREATE, "Products", NULL), ODS_EINVAL);   /* needs a body */
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_CREATE, "Products", "{\"ID\":1,"), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "JSON") != NULL);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_CREATE, "Products", "[1,2]"), ODS_EINVAL);  /* not an object */
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_UPDATE, "Products(1)", "{'single':'quotes'}"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, "Products", "{}"), ODS_EINVAL);       /* READ takes none */
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_CREATE, "Products", "{\"Name\":\"\xff\xfe\"}"), ODS_EINVAL); /* not UTF-8 */

    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products", NULL));
    ODS_CHECK_INT_EQ(ods_request_set_paging(req, 7), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_timeout(req, -5), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "Bad Name", "x"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "X-Ok", "line\r\nbreak"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_header(req, NULL, "x"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_etag(req, "W/\"1\"\n"), ODS_EINVAL);
    {
        ods_request_delegate old = ODS_REQUEST_DELEGATE_INIT;
        old.version = 0;
        ODS_CHECK_INT_EQ(ods_request_set_delegate(req, &old), ODS_EINVAL);
        old.version = 99;
        ODS_CHECK_INT_EQ(ods_request_set_delegate(req, &old), ODS_EINVAL);
    }
    ods_request_free(req);

    /* A failing call never calls its callback. */
    ODS_CHECK_INT_EQ(ods_store_schedule(&id, store, 77, "Products", NULL, should_not_run, NULL), ODS_EINVAL);
    ODS_CHECK(id == 0);
    ODS_CHECK_INT_EQ(ods_store_schedule(&id, store, ODS_CREATE, "Products", "nope", should_not_run, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_cancel(store, 123456789), ODS_ENOTFOUND);
    ods_test_sleep_ms(200);
    ODS_CHECK_INT_EQ(should_not_run_calls, 0);
}

static void check_cancel(const char *v4_url) {
    ods_test_server *proxy = NULL;
    ods_store *slow;
    ods_test_result r, r2;
    uint64_t id = 0;
    ods_request *req = NULL;

    ODS_CHECK(ods_test_proxy_start(&proxy, v4_url, NULL) == 0);
    slow = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=slow&delay_ms=20000&count=-1&match=Products") == 0);

    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, slow, ODS_READ, "Products(1)", NULL));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_sleep_ms(100);
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_RUNNING);
    ODS_CHECK_OK(ods_request_cancel(req));
    ods_test_wait(slow, &r.waiter, 1, 10000);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ECANCELLED);
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_CANCELLED);
    ODS_CHECK_INT_EQ(ods_request_cancel(req), ODS_ESTATE);
    ods_request_free(req);

    ods_test_result_init(&r2);
    ODS_CHECK_OK(ods_store_schedule(&id, slow, ODS_READ, "Products(2)", NULL, ods_test_on_complete, &r2));
    ODS_CHECK_OK(ods_store_cancel(slow, id));
    ods_test_wait(slow, &r2.waiter, 1, 10000);
    ODS_CHECK_INT_EQ(r2.error_code, ODS_ECANCELLED);
    ods_test_sleep_ms(200);
    ODS_CHECK_INT_EQ(r.completions, 1);
    ODS_CHECK_INT_EQ(r2.completions, 1);
    ods_test_result_free(&r);
    ods_test_result_free(&r2);

    ODS_CHECK_OK(ods_store_close(slow));
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
}

int main(void) {
    ods_test_server *server = NULL;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    store = ods_test_open(ods_test_server_url(server), ODS_DISPATCH_THREAD);
    check_delegate_flow();
    check_failure_flow_and_free_in_callback();
    check_default_delegate();
    check_unique_ids();
    check_bad_input();
    check_cancel(ods_test_server_url(server));
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("requests: ok\n");
    return 0;
}
