/* test_online_v2.c - CRUD (MERGE), a function import, paging, inline count and an ETag
 * conflict against the real OData V2 test service (pyslet), through the public header.
 * V2 payloads arrive converted to the library's one JSON shape (docs/json-shape.md). */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static ods_store *store;

static void run(ods_test_result *r, int mode, const char *path, const char *body) {
    ods_test_run_once(r, store, mode, path, body);
}

static void expect_ok(ods_test_result *r, int mode, const char *path, const char *body, int status) {
    ods_test_expect_ok(r, store, mode, path, body, status);
}

static void check_reads(void) {
    ods_test_result r;
    expect_ok(&r, ODS_READ, "Products(1)", NULL, 200);
    ODS_CHECK_INT_EQ(r.entity_count, 1);
    ODS_CHECK(strstr(r.json, "\"Name\":\"Product 001\"") != NULL);
    ODS_CHECK(strstr(r.json, "\"Price\":\"37.37\"") != NULL);
    /* V2 /Date(ms)/ becomes ISO 8601: ReleaseDate = 2020-01-01 + 1 day. */
    ODS_CHECK(strstr(r.json, "\"ReleaseDate\":\"2020-01-02T00:00:00") != NULL);
    ODS_CHECK(strstr(r.json, "__metadata") == NULL);
    ODS_CHECK(r.etag != NULL);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_READ, "Products(50)", NULL, 200);
    ODS_CHECK(strstr(r.json, "\"Stock\":\"9007199254741043\"") != NULL); /* Int64 exact */
    ods_test_result_free(&r);

    /* pyslet pages at 100 and writes __next as an object; the library hands out the URL. */
    expect_ok(&r, ODS_READ, "Products?$inlinecount=allpages", NULL, 200);
    ODS_CHECK_INT_EQ(r.entity_count, 100);
    ODS_CHECK_INT_EQ(r.count, 300);
    ODS_CHECK(r.next_link != NULL && strstr(r.next_link, "skiptoken") != NULL);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_READ, "Products?$filter=Price gt 900&$top=3", NULL, 200);
    ODS_CHECK(r.entity_count > 0 && r.entity_count <= 3);
    ods_test_result_free(&r);

    run(&r, ODS_READ, "Products(999)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ENOTFOUND);
    ODS_CHECK_INT_EQ(r.error_http_status, 404);
    ods_test_result_free(&r);
}

static void check_paging(void) {
    ods_test_result r;
    ods_request *req = NULL;
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products?$inlinecount=allpages", NULL));
    ODS_CHECK_OK(ods_request_set_paging(req, ODS_PAGING_FOLLOW));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_wait(store, &r.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK_INT_EQ(r.entity_count, 300);
    ODS_CHECK_INT_EQ(r.count, 300);
    ODS_CHECK(r.next_link == NULL);
    ods_request_free(req);
    ods_test_result_free(&r);
}

static void check_crud(void) {
    ods_test_result r;
    ods_request *req = NULL;
    char etag[64];

    expect_ok(&r, ODS_CREATE, "Products",
              "{\"ID\":2001,\"Name\":\"Created V2\",\"Price\":\"12.50\",\"Stock\":\"9007199254740993\","
              "\"Discontinued\":false,\"ReleaseDate\":\"2024-02-29T00:00:00\",\"Version\":1}", 201);
    if (!strstr(r.json, "\"Stock\":\"9007199254740993\"") || !strstr(r.json, "\"ReleaseDate\":\"2024-02-29T00:00:00"))
        ods_test_fail(__FILE__, __LINE__, "unexpected entity %s", r.json);
    ODS_CHECK(r.etag != NULL);
    snprintf(etag, sizeof etag, "%s", r.etag);
    ods_test_result_free(&r);

    /* ODS_UPDATE is MERGE on V2. */
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_UPDATE, "Products(2001)", "{\"Name\":\"Merged\"}"));
    ODS_CHECK_OK(ods_request_set_etag(req, etag));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_wait(store, &r.waiter, 1, 60000);
    if (r.error_code) ods_test_fail(__FILE__, __LINE__, "MERGE failed: %s", r.error_message);
    ODS_CHECK_INT_EQ(r.status, 204);
    ods_request_free(req);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_READ, "Products(2001)", NULL, 200);
    ODS_CHECK(strstr(r.json, "\"Name\":\"Merged\"") != NULL);
    ODS_CHECK(strstr(r.json, "\"Price\":\"12.50\"") != NULL); /* MERGE kept the rest */
    ODS_CHECK(strcmp(r.etag, etag) != 0);
    ods_test_result_free(&r);

    /* The old ETag is stale now: 412. */
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_UPDATE, "Products(2001)", "{\"Name\":\"Stale\"}"));
    ODS_CHECK_OK(ods_request_set_etag(req, etag));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_wait(store, &r.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ECONFLICT);
    ODS_CHECK_INT_EQ(r.error_http_status, 412);
    ods_request_free(req);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_DELETE, "Products(2001)", NULL, 204);
    ods_test_result_free(&r);
    run(&r, ODS_READ, "Products(2001)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ENOTFOUND);
    ods_test_result_free(&r);
}

static void check_function_imports(void) {
    ods_test_result r;
    expect_ok(&r, ODS_FUNCTION, "ProductsByRating?rating=4", NULL, 200);
    ODS_CHECK(r.entity_count > 0);
    ODS_CHECK(strstr(r.json, "\"Rating\":3") == NULL);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_FUNCTION, "TotalStock", NULL, 200);
    if (!strstr(r.json, "{\"value\":\"")) ods_test_fail(__FILE__, __LINE__, "TotalStock gave %s", r.json); /* Edm.Int64 as a string */
    ods_test_result_free(&r);
}

int main(void) {
    ods_test_server *server = NULL;
    if (ods_test_server_start_v2(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V2 server");
    store = ods_test_open(ods_test_server_url(server), ODS_DISPATCH_THREAD);
    ODS_CHECK_INT_EQ(ods_store_odata_version(store), 2);

    check_reads();
    check_paging();
    check_crud();
    check_function_imports();

    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("online V2: ok\n");
    return 0;
}
