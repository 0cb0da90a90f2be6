/* test_tls.c - HTTPS: certificate verification is on by default (a self-signed service is
 * refused with ODS_ETLS), ca_bundle adds a trusted CA, insecure_skip_tls_verify turns the
 * check off. The service is the real V4 server behind the fault proxy speaking TLS with the
 * test certificate in Tests/servers/tls/. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static char cert[1024], key[1024];

static void trust_test_ca(ods_store_options *o) { o->ca_bundle = cert; }
static void skip_verify(ods_store_options *o) { o->insecure_skip_tls_verify = 1; }

static void read_one(ods_store *store) {
    ods_test_result r;
    ods_test_expect_ok(&r, store, ODS_READ, "Products(5)", NULL, 200);
    ODS_CHECK(strstr(r.json, "\"Name\":\"Product 005\"") != NULL);
    ods_test_result_free(&r);
}

int main(void) {
    const char *root = getenv("ODS_TEST_ROOT");
    ods_test_server *server = NULL, *tls = NULL;
    const char *args[5];
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    ods_test_result r;

    snprintf(cert, sizeof cert, "%s/Tests/servers/tls/localhost.crt", root ? root : ".");
    snprintf(key, sizeof key, "%s/Tests/servers/tls/localhost.key", root ? root : ".");
    args[0] = "--tls-cert";
    args[1] = cert;
    args[2] = "--tls-key";
    args[3] = key;
    args[4] = NULL;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_proxy_start(&tls, ods_test_server_url(server), args) != 0) ods_test_fail(__FILE__, __LINE__, "no TLS proxy");
    ODS_CHECK(strncmp(ods_test_server_url(tls), "https://", 8) == 0);

    /* Default: the self-signed certificate is not trusted; opening fails with ODS_ETLS and so
       does the request that was waiting for it. */
    o.service_root = ods_test_server_url(tls);
    ODS_CHECK_OK(ods_store_open(&store, &o, NULL, NULL));
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(5)", NULL, ods_test_on_complete, &r));
    ods_test_wait(store, &r.waiter, 1, 30000);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ETLS);
    ODS_CHECK_INT_EQ(ods_store_get_state(store), ODS_STORE_FAILED);
    ods_test_result_free(&r);
    ODS_CHECK_OK(ods_store_close(store));

    /* Trusting the test CA. */
    store = ods_test_open_with(ods_test_server_url(tls), ODS_DISPATCH_THREAD, trust_test_ca);
    read_one(store);
    ODS_CHECK_OK(ods_store_close(store));

    /* Verification off (testing only). */
    store = ods_test_open_with(ods_test_server_url(tls), ODS_DISPATCH_THREAD, skip_verify);
    read_one(store);
    ODS_CHECK_OK(ods_store_close(store));

    /* A CA bundle that does not exist is a TLS failure too, not a silent fallback. */
    o.ca_bundle = "/nonexistent/ca.pem";
    ODS_CHECK_OK(ods_store_open(&store, &o, NULL, NULL));
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(5)", NULL, ods_test_on_complete, &r));
    ods_test_wait(store, &r.waiter, 1, 30000);
    ODS_CHECK(r.error_code == ODS_ETLS || r.error_code == ODS_EIO);
    ods_test_result_free(&r);
    ODS_CHECK_OK(ods_store_close(store));

    ODS_CHECK_INT_EQ(ods_test_server_stop(tls), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("tls: ok\n");
    return 0;
}
