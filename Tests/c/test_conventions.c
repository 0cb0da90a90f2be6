/* test_conventions.c - the header's stated rules, each seen against the real services:
 * a store context released once, after the last callback (ods_store_set_release); options from
 * ods_store_options_init; ODS_CSRF_OFF; a forced odata_version that $metadata contradicts;
 * a V4 service answering in Atom (refused, never an entity without its properties); the unit
 * of ods_store_dispatch's count; typed getters on null. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

typedef struct app_state {
    ods_test_waiter waiter;
    int states_after_release;
    int released;
    int last_state;
    int failed_code;
} app_state;

static void on_state(ods_store *store, int state, const ods_error *error, void *context) {
    app_state *a = context;
    (void)store;
    if (a->released) a->states_after_release++;
    a->last_state = state;
    if (state == ODS_STORE_FAILED && error) a->failed_code = error->code;
    ods_test_waiter_signal(&a->waiter, NULL);
}

static void release_state(void *context) {
    app_state *a = context;
    a->released++;
}

static void check_release(const char *url) {
    ods_store_options o;
    ods_store *store = NULL;
    app_state a;
    memset(&a, 0, sizeof a);
    ods_test_waiter_init(&a.waiter);
    ODS_CHECK_OK(ods_store_options_init(&o, ODS_STORE_OPTIONS_VERSION));
    o.service_root = url;
    o.csrf_protection = ODS_CSRF_OFF;
    ODS_CHECK_OK(ods_store_open(&store, &o, on_state, &a));
    ODS_CHECK_OK(ods_store_set_release(store, release_state));
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&a.waiter, 2, 60000), 0); /* opening, open */
    ODS_CHECK_INT_EQ(a.last_state, ODS_STORE_OPEN);
    {
        /* ODS_CSRF_OFF against a CSRF-protected service: no token is fetched, so the write is
         * refused (with ODS_CSRF_AUTO the store fetches one and retries; test_faults.c). */
        ods_response *r = NULL;
        ODS_CHECK_INT_EQ(ods_store_execute(&r, store, ODS_CREATE, "Categories", "{\"ID\":801,\"Name\":\"no CSRF\"}", 60000),
                         ODS_EFORBIDDEN);
        ODS_CHECK_INT_EQ(ods_error_last()->http_status, 403);
    }
    ODS_CHECK_INT_EQ(a.released, 0);
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(a.released, 1);              /* once, by close */
    ODS_CHECK_INT_EQ(a.states_after_release, 0);  /* after every callback */
    ODS_CHECK_INT_EQ(a.last_state, ODS_STORE_CLOSED);
    ods_test_waiter_destroy(&a.waiter);
}

/* odata_version 2 against a V4 service: the open fails; it never reads V4 as V2. */
static void check_forced_version(const char *v4_url) {
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    ods_test_result r;
    app_state a;
    memset(&a, 0, sizeof a);
    ods_test_waiter_init(&a.waiter);
    o.service_root = v4_url;
    o.odata_version = 2;
    ODS_CHECK_OK(ods_store_open(&store, &o, on_state, &a));
    ods_test_result_init(&r);
    ods_test_run(&r, store, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EPROTOCOL);
    ODS_CHECK(strstr(r.error_message, "odata_version") != NULL);
    ods_test_result_free(&r);
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&a.waiter, 2, 60000), 0);
    ODS_CHECK_INT_EQ(a.last_state, ODS_STORE_FAILED);
    ODS_CHECK_INT_EQ(a.failed_code, ODS_EPROTOCOL);
    ODS_CHECK_OK(ods_store_close(store));
    ods_test_waiter_destroy(&a.waiter);
}

static void check_atom(ods_store *store) {
    ods_request *req = NULL;
    ods_response *r = (ods_response *)1;
    /* $format=xml and an Atom Accept header: the service answers V4 Atom. */
    ODS_CHECK_INT_EQ(ods_store_execute(&r, store, ODS_READ, "Customers('ALFKI')?$format=xml", NULL, 60000), ODS_EPROTOCOL);
    ODS_CHECK(r == NULL);
    ODS_CHECK(strstr(ods_error_last()->message, "Atom") != NULL);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(1)", NULL));
    ODS_CHECK_OK(ods_request_set_header(req, "Accept", "application/atom+xml"));
    ODS_CHECK_OK(ods_request_start(req));
    ODS_CHECK_OK(ods_request_wait(req, 60000));
    ODS_CHECK(ods_request_error(req) != NULL);
    ODS_CHECK_INT_EQ(ods_request_error(req)->code, ODS_EPROTOCOL);
    ods_request_free(req);
}

typedef struct events {
    ods_test_waiter waiter;
} events;

static void on_started(ods_request *request, void *context) {
    (void)request;
    ods_test_waiter_signal(&((events *)context)->waiter, "started");
}

static void on_response(ods_request *request, const ods_response *response, void *context) {
    (void)request;
    (void)response;
    ods_test_waiter_signal(&((events *)context)->waiter, "response");
}

static void on_finished(ods_request *request, void *context) {
    (void)request;
    ods_test_waiter_signal(&((events *)context)->waiter, "finished");
}

static void on_done(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    (void)request;
    (void)response;
    (void)error;
    ods_test_waiter_signal(&((events *)context)->waiter, "completion");
}

/* ods_store_dispatch counts events: a request's `started` is one, its end (response,
 * finished and completion) is one. */
static void check_dispatch_unit(const char *url) {
    ods_store *store = ods_test_open(url, ODS_DISPATCH_QUEUE);
    ods_request *req = NULL;
    ods_request_delegate d;
    events e;
    int delivered = 0;
    char log[256];
    memset(&e, 0, sizeof e);
    ods_test_waiter_init(&e.waiter);
    ODS_CHECK_OK(ods_request_delegate_init(&d, ODS_REQUEST_DELEGATE_VERSION));
    d.started = on_started;
    d.response = on_response;
    d.finished = on_finished;
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(1)", NULL));
    ODS_CHECK_OK(ods_request_set_delegate(req, &d));
    ODS_CHECK_OK(ods_request_set_completion(req, on_done, &e));
    ODS_CHECK_OK(ods_request_start(req));
    while (ods_test_waiter_count(&e.waiter) < 4) {
        int n = ods_store_dispatch(store, 10000);
        ODS_CHECK(n >= 0);
        delivered += n;
    }
    ODS_CHECK_INT_EQ(delivered, 2);
    ods_test_waiter_log(&e.waiter, log, sizeof log);
    ODS_CHECK_STR_EQ(log, "started,response,finished,completion");
    ods_request_free(req);
    ODS_CHECK_OK(ods_store_close(store));
    ods_test_waiter_destroy(&e.waiter);
}

/* The getter rule on a real null (Product 7: Description is null, 7 % 7 == 0). */
static void check_null_rule(ods_store *store) {
    ods_response *r = NULL;
    const ods_entity *e;
    const char *s = "stale";
    int64_t n = 5;
    ODS_CHECK_OK(ods_store_execute(&r, store, ODS_READ, "Products(7)", NULL, 60000));
    e = ods_response_entity(r, 0);
    ODS_CHECK_INT_EQ(ods_entity_value_type(e, "Description"), ODS_VALUE_NULL);
    ODS_CHECK_INT_EQ(ods_entity_get_string(&s, e, "Description"), ODS_ENULL);
    ODS_CHECK(s == NULL);
    ODS_CHECK_INT_EQ(ods_entity_get_int64(&n, e, "Description"), ODS_ENULL);
    ODS_CHECK_INT_EQ(n, 0);
    ODS_CHECK_INT_EQ(ods_entity_get_string(&s, e, "NoSuchProperty"), ODS_ENOTFOUND);
    ods_response_free(r);
}

int main(void) {
    ods_test_server *v4 = NULL, *proxy = NULL;
    ods_store *store;
    if (ods_test_server_start_v4(&v4, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_proxy_start(&proxy, ods_test_server_url(v4), NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=csrf") == 0); /* a CSRF-protected service */
    check_release(ods_test_server_url(proxy));
    check_forced_version(ods_test_server_url(v4));
    check_dispatch_unit(ods_test_server_url(v4));
    store = ods_test_open(ods_test_server_url(v4), ODS_DISPATCH_THREAD);
    check_atom(store);
    check_null_rule(store);
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(v4), 0);
    printf("conventions: ok\n");
    return 0;
}
