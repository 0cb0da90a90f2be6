/* test_harness.c - the C test support code works against the real test servers.
 *
 * Starts the V4 (odatapy) and V2 (pyslet) services and the fault proxy through
 * support/test_server.h, talks to them with support/test_http.h (not through the library),
 * drives a proxy fault through its control endpoint, and checks the callback waiter with
 * signals from several threads. The library's own tests build on these pieces. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "support/test_http.h"
#include "support/test_server.h"
#include "support/test_support.h"

#define SIGNAL_THREADS 4
#define SIGNALS_PER_THREAD 100

static void get(ods_test_http_response *out, const char *root, const char *path) {
    char url[1024];
    snprintf(url, sizeof url, "%s%s", root, path);
    if (ods_test_http(out, "GET", url, NULL, NULL, NULL, 30000) != 0)
        ods_test_fail(__FILE__, __LINE__, "GET %s failed", url);
}

static void check_service(const char *root, const char *namespace_name) {
    ods_test_http_response r;
    get(&r, root, "$metadata");
    ODS_CHECK_INT_EQ(r.status, 200);
    ODS_CHECK(strstr(r.body, namespace_name) != NULL);
    ods_test_http_response_free(&r);
}

static void *signal_many(void *arg) {
    ods_test_waiter *waiter = arg;
    int i;
    for (i = 0; i < SIGNALS_PER_THREAD; i++) ods_test_waiter_signal(waiter, NULL);
    return NULL;
}

static void check_waiter(void) {
    ods_test_waiter waiter;
    pthread_t threads[SIGNAL_THREADS];
    char log[64];
    int i;
    ods_test_waiter_init(&waiter);
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&waiter, 1, 10), -1);
    for (i = 0; i < SIGNAL_THREADS; i++)
        ODS_CHECK(pthread_create(&threads[i], NULL, signal_many, &waiter) == 0);
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&waiter, SIGNAL_THREADS * SIGNALS_PER_THREAD, 30000), 0);
    for (i = 0; i < SIGNAL_THREADS; i++) ODS_CHECK(pthread_join(threads[i], NULL) == 0);
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&waiter), SIGNAL_THREADS * SIGNALS_PER_THREAD);
    ods_test_waiter_destroy(&waiter);

    ods_test_waiter_init(&waiter);
    ods_test_waiter_signal(&waiter, "started");
    ods_test_waiter_signal(&waiter, "response");
    ods_test_waiter_signal(&waiter, "finished");
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&waiter, 3, 0), 0);
    ods_test_waiter_log(&waiter, log, sizeof log);
    ODS_CHECK_STR_EQ(log, "started,response,finished");
    ods_test_waiter_destroy(&waiter);
}

int main(void) {
    ods_test_server *v4 = NULL, *v2 = NULL, *proxy = NULL;
    ods_test_http_response r;

    check_waiter();

    if (ods_test_server_start_v4(&v4, NULL) != 0) return 1;
    if (ods_test_server_start_v2(&v2, NULL) != 0) return 1;
    printf("v4 at %s, v2 at %s\n", ods_test_server_url(v4), ods_test_server_url(v2));
    check_service(ods_test_server_url(v4), "ODataStoreTest");
    check_service(ods_test_server_url(v2), "ODataStoreTestV2");

    /* Seed data the C tests may rely on: product 107 is the most expensive one. */
    get(&r, ods_test_server_url(v4), "Products(107)");
    ODS_CHECK_INT_EQ(r.status, 200);
    ODS_CHECK(strstr(r.body, "998.59") != NULL);
    ods_test_http_response_free(&r);

    if (ods_test_proxy_start(&proxy, ods_test_server_url(v4), NULL) != 0) return 1;
    printf("proxy at %s\n", ods_test_server_url(proxy));
    check_service(ods_test_server_url(proxy), "ODataStoreTest");

    /* One 503, then the service again. */
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=http503&count=1") == 0);
    get(&r, ods_test_server_url(proxy), "Categories");
    ODS_CHECK_INT_EQ(r.status, 503);
    ods_test_http_response_free(&r);
    get(&r, ods_test_server_url(proxy), "Categories");
    ODS_CHECK_INT_EQ(r.status, 200);
    ods_test_http_response_free(&r);
    ODS_CHECK_INT_EQ(ods_test_proxy_counter(proxy, "faults"), 1);

    /* A rule from JSON that lasts until cleared. */
    ODS_CHECK(ods_test_proxy_add_fault_json(proxy, "{\"mode\":\"http500\",\"count\":-1,\"match\":\"Categories\"}") == 0);
    get(&r, ods_test_server_url(proxy), "Categories");
    ODS_CHECK_INT_EQ(r.status, 500);
    ods_test_http_response_free(&r);
    get(&r, ods_test_server_url(proxy), "Products(1)");
    ODS_CHECK_INT_EQ(r.status, 200);
    ods_test_http_response_free(&r);
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    get(&r, ods_test_server_url(proxy), "Categories");
    ODS_CHECK_INT_EQ(r.status, 200);
    ods_test_http_response_free(&r);

    ODS_CHECK(ods_test_server_stop(proxy) == 0);
    ODS_CHECK(ods_test_server_stop(v2) == 0);
    ODS_CHECK(ods_test_server_stop(v4) == 0);
    ODS_CHECK(ods_test_server_stop(NULL) == 0);
    puts("harness: servers, proxy faults and waiter ok");
    return 0;
}
