/* test_faults.c - what the library does when the network or the service misbehaves, and
 * authentication, through the fault proxy in front of the real V4 service (never a mock):
 * connection reset, garbage, truncated body, a 500 with an HTML body, a 503, a body that is
 * not JSON, a slow service and the request timeout, HTTP Basic and Bearer authentication,
 * store-wide and per-request headers, and SAP's X-CSRF-Token fetch-and-retry. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static ods_test_server *proxy;
static ods_store *store;

static void run(ods_test_result *r, int mode, const char *path, const char *body) {
    ods_test_result_init(r);
    ods_test_run(r, store, mode, path, body);
    ODS_CHECK_INT_EQ(r->completions, 1);
}

static void fault(const char *query) {
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    ODS_CHECK(ods_test_proxy_add_fault(proxy, query) == 0);
}

static void check_network_faults(void) {
    ods_test_result r;

    fault("mode=reset&count=-1&match=Products"); /* -1: libcurl retries a reused connection once */
    run(&r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EIO);
    ods_test_result_free(&r);

    fault("mode=close&count=-1&match=Products");
    run(&r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EIO);
    ods_test_result_free(&r);

    fault("mode=garbage&count=-1&match=Products");
    run(&r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK(r.error_code == ODS_EIO || r.error_code == ODS_EPROTOCOL);
    ods_test_result_free(&r);

    fault("mode=truncate&count=-1&match=Products"); /* -1: a GET is retried (test_retries.c) */
    run(&r, ODS_READ, "Products?$top=50", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EIO);
    ods_test_result_free(&r);

    /* The store keeps working after each of them. */
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    run(&r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ods_test_result_free(&r);
}

static void check_service_faults(void) {
    ods_test_result r;

    fault("mode=http500&match=Products");
    run(&r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ESERVER);
    ODS_CHECK_INT_EQ(r.error_http_status, 500);
    ODS_CHECK_INT_EQ(r.status, 500);
    ODS_CHECK(strstr(r.error_message, "500") != NULL);
    ODS_CHECK(r.odata_code == NULL); /* an HTML body has no OData error */
    ods_test_result_free(&r);

    fault("mode=http503&count=-1&retry_after=0&match=Products"); /* every retry too */
    run(&r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ESERVER);
    ODS_CHECK_INT_EQ(r.error_http_status, 503);
    ods_test_result_free(&r);

    fault("mode=badjson&match=Products");
    run(&r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EPROTOCOL);
    ods_test_result_free(&r);

    /* An OData error body from the real service: code and message are passed on. */
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    run(&r, ODS_READ, "Products?$filter=NoSuchProperty eq 1", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EHTTP);
    ODS_CHECK_INT_EQ(r.error_http_status, 400);
    ODS_CHECK(r.odata_code != NULL);
    ODS_CHECK(strstr(r.json, "\"error\"") != NULL);
    ods_test_result_free(&r);
}

static void check_timeout(void) {
    ods_test_result r;
    ods_request *req = NULL;
    int64_t t0;
    fault("mode=slow&delay_ms=5000&match=Products");
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(1)", NULL));
    ODS_CHECK_OK(ods_request_set_timeout(req, 300));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    t0 = ods_test_now_ms();
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_wait(store, &r.waiter, 1, 10000);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ETIMEOUT);
    ODS_CHECK(ods_test_now_ms() - t0 < 4500);
    ods_request_free(req);
    ods_test_result_free(&r);
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
}

static void basic_auth(ods_store_options *o) {
    static const char *headers[] = {"X-App: odatastore-tests", NULL};
    o->auth = ODS_AUTH_BASIC;
    o->username = "user";
    o->password = "password";
    o->headers = headers;
}

static void bearer_auth(ods_store_options *o) {
    o->auth = ODS_AUTH_BEARER;
    o->bearer_token = "t0k3n";
}

static void check_authentication(void) {
    ods_test_result r;
    ods_store *authed;
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *plain = NULL;

    /* The proxy answers 401 unless the request carries the accepted Authorization. */
    fault("mode=auth");
    run(&r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EUNAUTHORIZED);
    ODS_CHECK_INT_EQ(r.error_http_status, 401);
    ods_test_result_free(&r);

    authed = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, basic_auth);
    ods_test_result_init(&r);
    ods_test_run(&r, authed, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ods_test_result_free(&r);
    ODS_CHECK_OK(ods_store_close(authed));

    fault("mode=auth&authorization=Bearer%20t0k3n");
    authed = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, bearer_auth);
    ods_test_result_init(&r);
    ods_test_run(&r, authed, ODS_READ, "Products(2)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ods_test_result_free(&r);
    ODS_CHECK_OK(ods_store_close(authed));

    /* Opening fails when $metadata itself needs a login the store does not have. */
    o.service_root = ods_test_server_url(proxy);
    ODS_CHECK_OK(ods_store_open(&plain, &o, NULL, NULL));
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_store_schedule(NULL, plain, ODS_READ, "Products(1)", NULL, ods_test_on_complete, &r));
    ods_test_wait(plain, &r.waiter, 1, 30000);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EUNAUTHORIZED);
    ODS_CHECK_INT_EQ(ods_store_get_state(plain), ODS_STORE_FAILED);
    ods_test_result_free(&r);
    ODS_CHECK_OK(ods_store_close(plain));
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
}

static void no_csrf(ods_store_options *o) {
    o->csrf_protection = 1;
}

static void check_csrf(void) {
    ods_test_result r;
    ods_store *csrf_store, *unprotected;
    long faults_before;

    fault("mode=csrf");
    /* A new store: its $metadata request fetches a token (and the session cookie). */
    csrf_store = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);
    ods_test_result_init(&r);
    ods_test_run(&r, csrf_store, ODS_CREATE, "Customers",
                 "{\"CustomerID\":\"CSRF1\",\"CompanyName\":\"Token Ltd\",\"City\":\"Walldorf\"}");
    if (r.error_code) ods_test_fail(__FILE__, __LINE__, "create with CSRF: %s", r.error_message);
    ODS_CHECK_INT_EQ(r.status, 201);
    ods_test_result_free(&r);

    /* The token expires: the next change gets 403 Required, fetches a new one, retries. */
    faults_before = ods_test_proxy_counter(proxy, "faults");
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=csrf_expire") == 0);
    ods_test_result_init(&r);
    ods_test_run(&r, csrf_store, ODS_UPDATE, "Customers('CSRF1')", "{\"City\":\"Berlin\"}");
    if (r.error_code) ods_test_fail(__FILE__, __LINE__, "update after expiry: %s", r.error_message);
    ODS_CHECK(ods_test_proxy_counter(proxy, "faults") == faults_before + 1); /* exactly one 403 */
    ods_test_result_free(&r);

    ods_test_result_init(&r);
    ods_test_run(&r, csrf_store, ODS_DELETE, "Customers('CSRF1')", NULL);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ods_test_result_free(&r);
    ODS_CHECK_OK(ods_store_close(csrf_store));

    /* With CSRF handling off, the 403 reaches the app. */
    unprotected = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, no_csrf);
    ods_test_result_init(&r);
    ods_test_run(&r, unprotected, ODS_CREATE, "Customers", "{\"CustomerID\":\"CSRF2\",\"CompanyName\":\"X\"}");
    ODS_CHECK_INT_EQ(r.error_code, ODS_EFORBIDDEN);
    ODS_CHECK_INT_EQ(r.error_http_status, 403);
    ods_test_result_free(&r);
    ODS_CHECK_OK(ods_store_close(unprotected));
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
}

int main(void) {
    ods_test_server *server = NULL;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_proxy_start(&proxy, ods_test_server_url(server), NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    store = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);

    check_network_faults();
    check_service_faults();
    check_timeout();
    check_authentication();
    check_csrf();

    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("faults: ok\n");
    return 0;
}
