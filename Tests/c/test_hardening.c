/* test_hardening.c - the online store against hostile servers and careless callers (issue 10,
 * "found when the library was probed from outside"). Every fault comes from the fault proxy
 * in front of the real V4 service (Tests/servers/fault_proxy.py), never from a mock:
 *   1. header injection through user_agent, and the password's error message;
 *   2. memory the server can make the library hold: a gzip bomb (size and ratio), a large
 *      body, a large error body, endless next links;
 *   3. requests pending without bound;
 *   5. paths that leave the service root ("..", full URLs elsewhere);
 *   6. a 200 answer that is not OData (text/html, no Content-Type);
 *   7. a redirect, service roots with '#', '?' or a password, control characters in an error
 *      message, a bare CR in an ETag or X-CSRF-Token, "@odata.count": 1e999, an Int32 key out
 *      of range.
 * (Item 4, metadata_path, is in test_store.c.) */
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

static void fault_json(const char *json) {
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    ODS_CHECK(ods_test_proxy_add_fault_json(proxy, json) == 0);
}

static void run_on(ods_store *s, ods_test_result *r, int mode, const char *path, const char *body) {
    ods_test_run_once(r, s, mode, path, body);
}

static int open_fails(ods_store_options *o) {
    ods_store *s = NULL;
    int rc = ods_store_open(&s, o, NULL, NULL);
    ODS_CHECK(rc != ODS_OK);
    ODS_CHECK(s == NULL);
    return rc;
}

/* 1. A CR LF in user_agent would put a second request on the wire. */
static void check_header_injection(void) {
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    o.service_root = ods_test_server_url(proxy);
    o.user_agent = "odatastore\r\n\r\nDELETE /odata/Products(1) HTTP/1.1\r\nHost: x";
    ODS_CHECK_INT_EQ(open_fails(&o), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "user_agent") != NULL);

    o.user_agent = NULL;
    o.auth = ODS_AUTH_BASIC;
    o.username = "user";
    o.password = "pass\r\nX-Evil: 1";
    ODS_CHECK_INT_EQ(open_fails(&o), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "password") != NULL);
    ODS_CHECK(strstr(ods_error_last()->message, "username") == NULL);
    ODS_CHECK(strstr(ods_error_last()->message, "X-Evil") == NULL); /* never echoed */
}

static void small_limits(ods_store_options *o) {
    o->max_response_bytes = 1 << 20;
    o->max_pages = 5;
    o->max_error_message_bytes = 100;
}

/* 2. Memory the server decides. */
static void check_response_limits(void) {
    ods_test_result r;
    ods_store *small;

    /* A 1 MB gzip body that inflates to 1 GiB: the default limit stops it. */
    fault_json("{\"mode\":\"gzipbomb\",\"inflated_bytes\":1073741824,\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ELIMIT);
    ODS_CHECK(strstr(r.error_message, "max_response_bytes") != NULL || strstr(r.error_message, "max_compression_ratio") != NULL);
    ods_test_result_free(&r);

    /* 8 MiB from 8 KB: below the size limit, far above the ratio. */
    fault_json("{\"mode\":\"gzipbomb\",\"inflated_bytes\":8388608,\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ELIMIT);
    ODS_CHECK(strstr(r.error_message, "max_compression_ratio") != NULL);
    ods_test_result_free(&r);

    /* 70 MB of valid JSON (whitespace) against the default 64 MiB. */
    fault_json("{\"mode\":\"respond\",\"headers\":[[\"Content-Type\",\"application/json\"],[\"OData-Version\",\"4.0\"]],"
               "\"body\":\"{\\\"value\\\":[{PAD}]}\",\"pad_bytes\":70000000,\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ELIMIT);
    ODS_CHECK(strstr(r.error_message, "max_response_bytes") != NULL);
    ods_test_result_free(&r);

    /* The same with a limit the app chose, and a body just under it passes. */
    small = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, small_limits);
    fault_json("{\"mode\":\"respond\",\"headers\":[[\"Content-Type\",\"application/json\"],[\"OData-Version\",\"4.0\"]],"
               "\"body\":\"{\\\"value\\\":[{PAD}]}\",\"pad_bytes\":1048577,\"match\":\"Products\",\"count\":-1}");
    run_on(small, &r, ODS_READ, "Products", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ELIMIT);
    ods_test_result_free(&r);
    fault_json("{\"mode\":\"respond\",\"headers\":[[\"Content-Type\",\"application/json\"],[\"OData-Version\",\"4.0\"]],"
               "\"body\":\"{\\\"value\\\":[{PAD}]}\",\"pad_bytes\":1000000,\"match\":\"Products\"}");
    run_on(small, &r, ODS_READ, "Products", NULL);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK_INT_EQ(r.entity_count, 0);
    ods_test_result_free(&r);
    /* A body that declares more than the limit fails at its headers: not after the limit's
       worth of it, nor (this server then sends nothing more) at the request's timeout. */
    fault_json("{\"mode\":\"respond\",\"headers\":[[\"Content-Type\",\"application/json\"],[\"OData-Version\",\"4.0\"]],"
               "\"body\":\"{\\\"value\\\":[\",\"declared_length\":10000000000,\"match\":\"Products\"}");
    run_on(small, &r, ODS_READ, "Products", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ELIMIT);
    ODS_CHECK(r.error_message != NULL && strstr(r.error_message, "declares a body of 10000000000 bytes") != NULL);
    ods_test_result_free(&r);

    /* A 1 MB error message is cut to max_error_message_bytes (100 here). */
    fault_json("{\"mode\":\"respond\",\"status\":400,\"headers\":[[\"Content-Type\",\"application/json\"]],"
               "\"body\":\"{\\\"error\\\":{\\\"code\\\":\\\"E1\\\",\\\"message\\\":\\\"x{PAD}y\\\"}}\","
               "\"pad_bytes\":1000000,\"match\":\"Products\"}");
    run_on(small, &r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EHTTP);
    ODS_CHECK(r.error_message != NULL && strlen(r.error_message) < 400);
    ODS_CHECK_STR_EQ(r.odata_code, "E1");
    ODS_CHECK(strlen(r.json) < 400);
    ods_test_result_free(&r);
    /* ... and to 4096 bytes by default. */
    run_on(store, &r, ODS_READ, "Products(1)", NULL); /* the rule was used up: a real answer */
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ods_test_result_free(&r);
    fault_json("{\"mode\":\"respond\",\"status\":400,\"headers\":[[\"Content-Type\",\"application/json\"]],"
               "\"body\":\"{\\\"error\\\":{\\\"code\\\":\\\"E1\\\",\\\"message\\\":\\\"x{PAD}y\\\"}}\","
               "\"pad_bytes\":1000000,\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EHTTP);
    ODS_CHECK(strlen(r.error_message) < 4096 + 300);
    ods_test_result_free(&r);

    /* Endless unique next links: max_pages (5 here, 1000 by default). */
    fault_json("{\"mode\":\"endless\",\"count\":-1,\"match\":\"Categories\"}");
    {
        ods_request *req = NULL;
        long faults_before = ods_test_proxy_counter(proxy, "faults");
        ods_test_result_init(&r);
        ODS_CHECK_OK(ods_request_new(&req, small, ODS_READ, "Categories", NULL));
        ODS_CHECK_OK(ods_request_set_paging(req, ODS_PAGING_FOLLOW));
        ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
        ODS_CHECK_OK(ods_request_start(req));
        ods_test_wait(small, &r.waiter, 1, 60000);
        ODS_CHECK_INT_EQ(r.error_code, ODS_ELIMIT);
        ODS_CHECK(strstr(r.error_message, "max_pages") != NULL);
        ods_request_free(req);
        ods_test_result_free(&r);
        ODS_CHECK_INT_EQ(ods_test_proxy_counter(proxy, "faults") - faults_before, 5); /* 5 pages, no 6th */

        ods_test_result_init(&r);
        ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Categories", NULL));
        ODS_CHECK_OK(ods_request_set_paging(req, ODS_PAGING_FOLLOW));
        ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
        ODS_CHECK_OK(ods_request_start(req));
        ods_test_wait(store, &r.waiter, 1, 120000);
        ODS_CHECK_INT_EQ(r.error_code, ODS_ELIMIT);
        ods_request_free(req);
        ods_test_result_free(&r);
    }
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    ODS_CHECK_OK(ods_store_close(small));
}

static void few_pending(ods_store_options *o) {
    o->max_pending_requests = 40;
}

typedef struct counter {
    ods_test_waiter waiter;
    int cancelled;
} counter;

static void count_completion(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    counter *c = context;
    (void)request;
    (void)response;
    if (error && error->code == ODS_ECANCELLED) c->cancelled++;
    ods_test_waiter_signal(&c->waiter, NULL);
}

/* 3. A server that never answers: the store accepts a bounded number of requests. */
static void check_pending_limit(void) {
    ods_store *s = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, few_pending);
    counter c;
    int i, rc;
    memset(&c, 0, sizeof c);
    ods_test_waiter_init(&c.waiter);
    fault_json("{\"mode\":\"hang\",\"count\":-1,\"match\":\"Products\"}");
    for (i = 0; i < 40; i++) ODS_CHECK_OK(ods_store_schedule(NULL, s, ODS_READ, "Products(1)", NULL, count_completion, &c));
    rc = ods_store_schedule(NULL, s, ODS_READ, "Products(1)", NULL, count_completion, &c);
    ODS_CHECK_INT_EQ(rc, ODS_ELIMIT);
    ODS_CHECK(strstr(ods_error_last()->message, "max_pending_requests") != NULL);
    ODS_CHECK_OK(ods_store_close(s));
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&c.waiter), 40); /* every accepted one ended, none more */
    ODS_CHECK_INT_EQ(c.cancelled, 40);
    ods_test_waiter_destroy(&c.waiter);

    /* Many pending requests close promptly (the ctest time limit bounds it; nothing is timed). */
    s = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);
    memset(&c, 0, sizeof c);
    ods_test_waiter_init(&c.waiter);
    for (i = 0; i < 10000; i++) ODS_CHECK_OK(ods_store_schedule(NULL, s, ODS_READ, "Products(1)", NULL, count_completion, &c));
    ODS_CHECK_INT_EQ(ods_store_schedule(NULL, s, ODS_READ, "Products(1)", NULL, count_completion, &c), ODS_ELIMIT);
    ODS_CHECK_OK(ods_store_close(s));
    ODS_CHECK_INT_EQ(c.cancelled, 10000);
    ods_test_waiter_destroy(&c.waiter);
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
}

/* 5. Requests stay under the service root. */
static void check_paths_under_root(void) {
    ods_request *req = NULL;
    char url[512], origin[256];
    const char *escapes[] = {"../../admin/secret", "Products/../../admin", "./Products", "Products/..",
                             "%2e%2e/admin", "Products/%2E%2E/%2e%2E/x", "..", "Products(1)/../..?$top=1", NULL};
    int i;
    for (i = 0; escapes[i]; i++) {
        ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, escapes[i], NULL), ODS_EINVAL);
        ODS_CHECK(req == NULL);
    }
    /* ".." inside a literal or the query is data, not a segment. */
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Customers('..')?$filter=Name eq '../x'", NULL));
    ods_request_free(req);
    ODS_CHECK(ods_test_url_origin(ods_test_server_url(proxy), origin, sizeof origin) == 0);
    snprintf(url, sizeof url, "%s/admin/secret", origin);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, url, NULL), ODS_EINVAL);
    snprintf(url, sizeof url, "%s/odatax/Products", origin);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, url, NULL), ODS_EINVAL);
    snprintf(url, sizeof url, "%sProducts(1)", ods_test_server_url(proxy));
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, url, NULL));
    ods_request_free(req);
}

/* 6. A 200 that is not OData (an SSO login page) is not an empty success. */
static void check_not_odata(void) {
    ods_test_result r;
    fault_json("{\"mode\":\"respond\",\"headers\":[[\"Content-Type\",\"text/html\"]],"
               "\"body\":\"{\\\"value\\\":[]}\",\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EPROTOCOL);
    ODS_CHECK_INT_EQ(r.error_http_status, 200);
    ods_test_result_free(&r);
    fault_json("{\"mode\":\"respond\",\"body\":\"{\\\"value\\\":[]}\",\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EPROTOCOL);
    ods_test_result_free(&r);
    /* $value answers with the media's own type. */
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    run_on(store, &r, ODS_READ, "Products(1)/Name/$value", NULL);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ods_test_result_free(&r);
}

static int contains_control(const char *s) {
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return 1;
    return 0;
}

/* 7. The smaller ones. */
static void check_smaller(void) {
    ods_test_result r;
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    char *out = NULL;

    /* A redirect is not a server failure: ODS_EHTTP with its status. */
    fault_json("{\"mode\":\"respond\",\"status\":302,\"headers\":[[\"Location\",\"http://127.0.0.1:9/login\"]],\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EHTTP);
    ODS_CHECK_INT_EQ(r.error_http_status, 302);
    ods_test_result_free(&r);

    /* Service roots: a fragment, a query, a password. */
    o.service_root = "http://127.0.0.1:9/odata/#frag";
    ODS_CHECK_INT_EQ(open_fails(&o), ODS_EINVAL);
    o.service_root = "http://127.0.0.1:9/odata/?sap-client=100";
    ODS_CHECK_INT_EQ(open_fails(&o), ODS_EINVAL);
    o.service_root = "http://me:s3cr3t@127.0.0.1:9/odata/";
    ODS_CHECK_INT_EQ(open_fails(&o), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "s3cr3t") == NULL);
    o.service_root = "ftp://me:s3cr3t@127.0.0.1:9/odata/";
    ODS_CHECK_INT_EQ(open_fails(&o), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "s3cr3t") == NULL);

    /* Control characters in the service's error text never reach the app's terminal. */
    fault_json("{\"mode\":\"respond\",\"status\":400,\"headers\":[[\"Content-Type\",\"application/json\"]],"
               "\"body\":\"{\\\"error\\\":{\\\"code\\\":\\\"E\\\\r\\\\n1\\\",\\\"message\\\":\\\"bad\\\\r\\\\nX-Injected: 1\\\\u001b[31mred\\\"}}\","
               "\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EHTTP);
    ODS_CHECK(!contains_control(r.error_message));
    ODS_CHECK(!contains_control(r.odata_code));
    ODS_CHECK(strstr(r.error_message, "red") != NULL);
    ods_test_result_free(&r);

    /* A bare CR in an ETag header is not kept; in an X-CSRF-Token it is not sent back. */
    fault_json("{\"mode\":\"respond\",\"headers\":[[\"Content-Type\",\"application/json\"],[\"OData-Version\",\"4.0\"],"
               "[\"ETag\",\"W/\\\"1\\r2\\\"\"],[\"X-CSRF-Token\",\"tok\\rX-Evil: 1\"]],"
               "\"body\":\"{\\\"ID\\\":1,\\\"Name\\\":\\\"x\\\"}\",\"match\":\"Categories(1)\"}");
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Categories(1)", NULL, ods_test_on_complete, &r));
    ods_test_wait(store, &r.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK(r.etag == NULL);
    ods_test_result_free(&r);
    run_on(store, &r, ODS_CREATE, "Categories", "{\"ID\":901,\"Name\":\"after a bad token\"}");
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK_INT_EQ(r.status, 201);
    ods_test_result_free(&r);

    /* "@odata.count": 1e999 is not a count. */
    fault_json("{\"mode\":\"respond\",\"headers\":[[\"Content-Type\",\"application/json\"],[\"OData-Version\",\"4.0\"]],"
               "\"body\":\"{\\\"@odata.count\\\":1e999,\\\"value\\\":[]}\",\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products?$count=true", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EPROTOCOL);
    ods_test_result_free(&r);
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);

    /* A key the server sends out of its type's range would name another entity. */
    fault_json("{\"mode\":\"respond\",\"headers\":[[\"Content-Type\",\"application/json\"],[\"OData-Version\",\"4.0\"]],"
               "\"body\":\"{\\\"ID\\\":4294967297,\\\"Name\\\":\\\"x\\\"}\",\"match\":\"Products\"}");
    run_on(store, &r, ODS_READ, "Products(1)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EPROTOCOL);
    ODS_CHECK(strstr(r.error_message, "4294967297") != NULL);
    ods_test_result_free(&r);
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);

    /* ... and ods_store_check_url refuses one written in a path. */
    ODS_CHECK_INT_EQ(ods_store_check_url(&out, store, "Products(4294967297)"), ODS_ESYNTAX);
    ODS_CHECK(out == NULL);
    ODS_CHECK_INT_EQ(ods_store_check_url(&out, store, "Products(2147483648)"), ODS_ESYNTAX);
    ODS_CHECK_OK(ods_store_check_url(&out, store, "Products(2147483647)"));
    ods_free(out);
}

int main(void) {
    ods_test_server *server = NULL;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_proxy_start(&proxy, ods_test_server_url(server), NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    store = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);

    check_header_injection();
    check_paths_under_root();
    check_not_odata();
    check_smaller();
    check_response_limits();
    check_pending_limit();

    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("hardening: ok\n");
    return 0;
}
