/* test_retries.c - what the store repeats on its own and what it never repeats, through the
 * fault proxy in front of the real V4 service: a GET is retried after a broken connection,
 * a truncated body and 502/503/429 answers (after the server's Retry-After when it gives a
 * short one, reported at once when it asks for a long one); a POST whose connection was reset
 * after the service acted is reported, not sent twice; max_retries -1 retries nothing; a
 * request cancelled while it waits out its backoff ends at once. The proxy's counters show
 * how many attempts reached it. */
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

static void fault(const char *query) {
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    ODS_CHECK(ods_test_proxy_add_fault(proxy, query) == 0);
}

static long faults(void) { return ods_test_proxy_counter(proxy, "faults"); }
static long requests(void) { return ods_test_proxy_counter(proxy, "requests"); }

static int execute(ods_store *s, int mode, const char *path, const char *body) {
    ods_response *r = NULL;
    int rc = ods_store_execute(&r, s, mode, path, body, 60000);
    ods_response_free(r);
    return rc;
}

static void check_reads_are_retried(void) {
    long f0;
    /* One 503 with Retry-After: 0, then the real answer. */
    fault("mode=http503&retry_after=0&match=Products(1)");
    f0 = faults();
    ODS_CHECK_OK(execute(store, ODS_READ, "Products(1)", NULL));
    ODS_CHECK_INT_EQ(faults() - f0, 1);
    /* Two 502s (no Retry-After: backoff), then the answer: max_retries 2 is enough. */
    fault("mode=http503&status=502&retry_after=&count=2&match=Products(2)");
    f0 = faults();
    ODS_CHECK_OK(execute(store, ODS_READ, "Products(2)", NULL));
    ODS_CHECK_INT_EQ(faults() - f0, 2);
    /* Three are not: the third failure is reported. */
    fault("mode=http503&retry_after=0&count=3&match=Products(3)");
    f0 = faults();
    ODS_CHECK_INT_EQ(execute(store, ODS_READ, "Products(3)", NULL), ODS_ESERVER);
    ODS_CHECK_INT_EQ(ods_error_last()->http_status, 503);
    ODS_CHECK_INT_EQ(faults() - f0, 3);
    /* 429 Too Many Requests with Retry-After: 1, honoured. */
    fault("mode=http503&status=429&retry_after=1&match=Products(4)");
    ODS_CHECK_OK(execute(store, ODS_READ, "Products(4)", NULL));
    /* A Retry-After too long to wait for is reported at once, without another attempt. */
    fault("mode=http503&retry_after=3600&match=Products(5)");
    f0 = faults();
    ODS_CHECK_INT_EQ(execute(store, ODS_READ, "Products(5)", NULL), ODS_ESERVER);
    ODS_CHECK_INT_EQ(faults() - f0, 1);
    /* A connection reset and a body cut short: the GET is repeated. */
    fault("mode=reset&match=Products(6)");
    ODS_CHECK_OK(execute(store, ODS_READ, "Products(6)", NULL));
    fault("mode=truncate&match=Products?");
    ODS_CHECK_OK(execute(store, ODS_READ, "Products?$top=50", NULL));
    /* A 500 is the service's answer, not a transient refusal: not repeated. */
    fault("mode=http500&match=Products(7)");
    f0 = faults();
    ODS_CHECK_INT_EQ(execute(store, ODS_READ, "Products(7)", NULL), ODS_ESERVER);
    ODS_CHECK_INT_EQ(faults() - f0, 1);
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
}

static void check_writes_are_not_repeated(void) {
    ods_response *r = NULL;
    long f0, r0;
    /* The service creates the category, then the connection is reset: the client cannot know,
     * so it reports the failure; a second POST would have created it twice. */
    fault("mode=reset_after&match=Categories");
    r0 = requests();
    ODS_CHECK_INT_EQ(execute(store, ODS_CREATE, "Categories", "{\"ID\":951,\"Name\":\"once\"}"), ODS_EIO);
    ODS_CHECK_INT_EQ(requests() - r0, 1);
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    ODS_CHECK_OK(ods_store_execute(&r, store, ODS_READ, "Categories(951)", NULL, 60000)); /* it exists */
    ods_response_free(r);
    /* A POST refused with 503 is not repeated either. */
    fault("mode=http503&retry_after=0&match=Categories");
    f0 = faults();
    ODS_CHECK_INT_EQ(execute(store, ODS_CREATE, "Categories", "{\"ID\":952,\"Name\":\"refused\"}"), ODS_ESERVER);
    ODS_CHECK_INT_EQ(faults() - f0, 1);
    /* A DELETE refused with 503 (the service says it did not act) is. */
    fault("mode=http503&retry_after=0&match=Categories(951)");
    f0 = faults();
    {
        ods_request *req = NULL;
        ODS_CHECK_OK(ods_request_new(&req, store, ODS_DELETE, "Categories(951)", NULL));
        ODS_CHECK_OK(ods_request_set_etag(req, "*"));
        ODS_CHECK_OK(ods_request_start(req));
        ODS_CHECK_OK(ods_request_wait(req, 60000));
        ODS_CHECK(ods_request_error(req) == NULL);
        ods_request_free(req);
    }
    ODS_CHECK_INT_EQ(faults() - f0, 1);
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    ODS_CHECK_INT_EQ(execute(store, ODS_READ, "Categories(951)", NULL), ODS_ENOTFOUND);
}

static void no_retries(ods_store_options *o) { o->max_retries = -1; }

static void check_retries_off(void) {
    ods_store *s = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_QUEUE, no_retries);
    long f0;
    fault("mode=http503&retry_after=0&match=Products(8)");
    f0 = faults();
    ODS_CHECK_INT_EQ(execute(s, ODS_READ, "Products(8)", NULL), ODS_ESERVER);
    ODS_CHECK_INT_EQ(faults() - f0, 1);
    ODS_CHECK_OK(ods_store_close(s));
}

/* Cancelled while it waits out a 20 s Retry-After: it ends at once, and the retry is never sent. */
static void check_cancel_during_backoff(void) {
    ods_request *req = NULL;
    long f0, r0;
    int64_t deadline;
    fault("mode=http503&retry_after=20&match=Products(9)");
    f0 = faults();
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(9)", NULL));
    ODS_CHECK_OK(ods_request_start(req));
    deadline = ods_test_now_ms() + 30000;
    while (faults() == f0) /* the first attempt reached the proxy and got its 503 */
        if (ods_test_now_ms() > deadline) ods_test_fail(__FILE__, __LINE__, "the first attempt never arrived");
    r0 = requests();
    ODS_CHECK_OK(ods_request_cancel(req));
    ODS_CHECK_OK(ods_request_wait(req, 10000));
    ODS_CHECK_INT_EQ(ods_request_error(req)->code, ODS_ECANCELLED);
    ods_request_free(req);
    ODS_CHECK_OK(execute(store, ODS_READ, "Products(10)", NULL)); /* the store goes on */
    ODS_CHECK_INT_EQ(requests() - r0, 1);                       /* only that read: no retry was sent */
}

int main(void) {
    ods_test_server *server = NULL;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_proxy_start(&proxy, ods_test_server_url(server), NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    store = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);
    check_reads_are_retried();
    check_writes_are_not_repeated();
    check_retries_off();
    check_cancel_during_backoff();
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("retries: ok\n");
    return 0;
}
