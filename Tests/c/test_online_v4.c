/* test_online_v4.c - CRUD, function and action imports, ETags and paging against the real
 * OData V4 test service (odatapy), through the public header only.
 * Expected values follow the seed formulas in Tests/servers/README.md. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* Typed accessors, called inside the callback where the entity is valid. */
typedef struct typed {
    ods_test_waiter waiter;
    int64_t stock;
    double price;
    int discontinued;
    char name[64];
    char price_text[32];
    char etag[32];
    int price_type, description_type, missing_type;
    int missing_rc, null_rc, bad_int_rc;
    int header_ok, body_ok, entity_json_ok, header_range_rc;
} typed;

static void on_typed(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    typed *t = context;
    const ods_entity *e;
    const char *s = NULL;
    int64_t ignored;
    (void)request;
    if (error) ods_test_fail(__FILE__, __LINE__, "read failed: %s", error->message);
    ODS_CHECK_INT_EQ(ods_response_entity_count(response), 1);
    ODS_CHECK(ods_response_entity(response, 1) == NULL);
    e = ods_response_entity(response, 0);
    ODS_CHECK(e != NULL);
    ODS_CHECK_OK(ods_entity_get_int64(&t->stock, e, "Stock"));
    ODS_CHECK_OK(ods_entity_get_double(&t->price, e, "Price"));
    ODS_CHECK_OK(ods_entity_get_bool(&t->discontinued, e, "Discontinued"));
    ODS_CHECK_OK(ods_entity_get_string(&s, e, "Name"));
    snprintf(t->name, sizeof t->name, "%s", s);
    ODS_CHECK_OK(ods_entity_get_string(&s, e, "Price"));
    snprintf(t->price_text, sizeof t->price_text, "%s", s);
    snprintf(t->etag, sizeof t->etag, "%s", ods_entity_etag(e) ? ods_entity_etag(e) : "");
    t->price_type = ods_entity_value_type(e, "Price");
    t->description_type = ods_entity_value_type(e, "Description");
    t->missing_type = ods_entity_value_type(e, "NoSuchProperty");
    t->missing_rc = ods_entity_get_string(&s, e, "NoSuchProperty");
    t->null_rc = ods_entity_get_int64(&ignored, e, "Description");
    t->bad_int_rc = ods_entity_get_int64(&ignored, e, "Name");
    {
        /* Headers by index and by name, the raw body, the entity as JSON. */
        size_t i, n = ods_response_header_count(response), body_len = 0, json_len = 0;
        const char *hn = NULL, *hv = NULL, *body = ods_response_body(response, &body_len);
        const char *json = ods_response_json(response, &json_len);
        for (i = 0; i < n; i++) {
            ODS_CHECK_OK(ods_response_header_at(&hn, &hv, response, i));
            if (strcasecmp(hn, "OData-Version") == 0) t->header_ok = hv[0] == '4' && ods_response_header(response, "odata-VERSION") != NULL;
        }
        t->header_range_rc = ods_response_header_at(&hn, &hv, response, n);
        /* a huge index is named as the size_t it is, not as a negative number */
        ODS_CHECK_INT_EQ(ods_response_header_at(&hn, &hv, response, (size_t)-1), t->header_range_rc);
        ODS_CHECK(strstr(ods_error_last()->message, "18446744073709551615") != NULL);
        t->body_ok = body != NULL && body_len == strlen(body) && strstr(body, "\"Stock\"") != NULL &&
                     json_len == strlen(json);
        t->entity_json_ok = ods_entity_json(e) != NULL && ods_entity_json(e)[0] == '{' &&
                            strstr(ods_entity_json(e), "\"Name\":\"") != NULL;
    }
    ods_test_waiter_signal(&t->waiter, NULL);
}

static void check_typed_access(void) {
    typed t;
    memset(&t, 0, sizeof t);
    ods_test_waiter_init(&t.waiter);
    /* Product 50: Stock = 9007199254740993 + 50 (above 2^53), Price = (50*3737 % 100000)/100 = 868.50,
       Description null (50 % 7 != 0 -> not null; use 49 for null). */
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(49)", NULL, on_typed, &t));
    ods_test_wait(store, &t.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(t.stock, 49000);
    ODS_CHECK_STR_EQ(t.name, "Product 049");
    ODS_CHECK_STR_EQ(t.price_text, "831.13"); /* 49*3737 = 183113 -> 831.13 */
    ODS_CHECK(t.price > 831.12 && t.price < 831.14);
    ODS_CHECK_INT_EQ(t.discontinued, 0);
    ODS_CHECK_INT_EQ(t.price_type, ODS_VALUE_STRING);      /* Decimal as a string (IEEE754Compatible) */
    ODS_CHECK_INT_EQ(t.description_type, ODS_VALUE_NULL);  /* 49 % 7 == 0 */
    ODS_CHECK_INT_EQ(t.missing_type, ODS_VALUE_ABSENT);
    ODS_CHECK_INT_EQ(t.missing_rc, ODS_ENOTFOUND);
    ODS_CHECK_INT_EQ(t.null_rc, ODS_ENULL);      /* present and null: not "absent" */
    ODS_CHECK_INT_EQ(t.bad_int_rc, ODS_ETYPE);    /* a string that is no integer */
    ODS_CHECK_STR_EQ(t.etag, "W/\"1\"");
    ODS_CHECK(t.header_ok);
    ODS_CHECK(t.body_ok);
    ODS_CHECK(t.entity_json_ok);
    ODS_CHECK_INT_EQ(t.header_range_rc, ODS_ENOTFOUND);
    ods_test_waiter_destroy(&t.waiter);

    memset(&t, 0, sizeof t);
    ods_test_waiter_init(&t.waiter);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(50)", NULL, on_typed, &t));
    ods_test_wait(store, &t.waiter, 1, 60000);
    ODS_CHECK(t.stock == INT64_C(9007199254740993) + 50); /* exact: never through a double */
    ODS_CHECK_INT_EQ(t.discontinued, 1);
    ods_test_waiter_destroy(&t.waiter);
}

/* READ $metadata: the CSDL document as the service sends it (XML), in the raw body; no JSON. */
typedef struct metadata_read {
    ods_test_waiter waiter;
    int status, failed, has_edmx, is_xml, json_empty, local;
} metadata_read;

static void on_metadata(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    metadata_read *m = context;
    size_t len = 0, json_len = 99;
    const char *body, *type;
    (void)request;
    m->failed = error != NULL;
    if (response) {
        body = ods_response_body(response, &len);
        type = ods_response_header(response, "Content-Type");
        m->status = ods_response_status(response);
        m->has_edmx = body != NULL && len > 100 && strstr(body, "edmx:Edmx") != NULL && strstr(body, "Name=\"Products\"") != NULL;
        m->is_xml = type != NULL && strstr(type, "xml") != NULL;
        (void)ods_response_json(response, &json_len);
        m->json_empty = json_len == 0;
        m->local = ods_response_is_local(response);
    }
    ods_test_waiter_signal(&m->waiter, NULL);
}

static void check_metadata_read(void) {
    metadata_read m;
    memset(&m, 0, sizeof m);
    ods_test_waiter_init(&m.waiter);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "$metadata", NULL, on_metadata, &m));
    ods_test_wait(store, &m.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(m.failed, 0);
    ODS_CHECK_INT_EQ(m.status, 200);
    ODS_CHECK(m.has_edmx);
    ODS_CHECK(m.is_xml);
    ODS_CHECK(m.json_empty);
    ODS_CHECK_INT_EQ(m.local, 0);
    ods_test_waiter_destroy(&m.waiter);
}

static void check_reads(void) {
    ods_test_result r;
    expect_ok(&r, ODS_READ, "Products?$top=5&$orderby=ID desc", NULL, 200);
    ODS_CHECK_INT_EQ(r.entity_count, 5);
    ODS_CHECK(strstr(r.first_entity_json, "\"Name\":\"Product 300\"") != NULL);
    ODS_CHECK(r.next_link == NULL);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_READ, "Products?$count=true&$top=2&$filter=Price gt 500", NULL, 200);
    ODS_CHECK_INT_EQ(r.entity_count, 2);
    ODS_CHECK(r.count > 2 && r.count < 300);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_READ, "Products/$count", NULL, 200);
    ODS_CHECK_INT_EQ(r.count, 300);
    ODS_CHECK_STR_EQ(r.json, "{\"value\":300}");
    ods_test_result_free(&r);

    /* A string key that needs escaping, written the way OData documents show it. */
    expect_ok(&r, ODS_READ, "Customers('O''NEIL')", NULL, 200);
    ODS_CHECK(strstr(r.json, "O'NEIL") != NULL);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_READ, "Categories(3)?$expand=Products($select=ID;$top=2)", NULL, 200);
    ODS_CHECK(strstr(r.json, "\"Products\":[") != NULL);
    ods_test_result_free(&r);

    run(&r, ODS_READ, "Products(999)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ENOTFOUND);
    ODS_CHECK_INT_EQ(r.error_http_status, 404);
    ODS_CHECK_INT_EQ(r.status, 404);
    ods_test_result_free(&r);
}

static void check_crud_and_etags(void) {
    ods_test_result r;
    char etag[64], body[512];
    ods_request *req = NULL;

    expect_ok(&r, ODS_CREATE, "Products",
              "{\"ID\":1001,\"Name\":\"Created\",\"Price\":\"12.50\",\"Stock\":\"9007199254740993\","
              "\"Discontinued\":false,\"ReleaseDate\":\"2024-02-29\",\"CategoryID\":1}", 201);
    ODS_CHECK(strstr(r.json, "\"Stock\":\"9007199254740993\"") != NULL);
    ODS_CHECK(r.etag != NULL);
    snprintf(etag, sizeof etag, "%s", r.etag);
    ods_test_result_free(&r);

    /* Partial update carrying the ETag in the body (as a read handed it out). */
    snprintf(body, sizeof body, "{\"@odata.etag\":\"%s\",\"Name\":\"Renamed\"}", "W/\\\"1\\\"");
    expect_ok(&r, ODS_UPDATE, "Products(1001)", body, 204);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_READ, "Products(1001)", NULL, 200);
    ODS_CHECK(strstr(r.json, "\"Name\":\"Renamed\"") != NULL);
    ODS_CHECK(strcmp(r.etag, etag) != 0);
    snprintf(etag, sizeof etag, "%s", r.etag);
    ods_test_result_free(&r);

    /* Stale ETag: 412 -> ODS_ECONFLICT. */
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_UPDATE_PATCH, "Products(1001)", "{\"Name\":\"Stale\"}"));
    ODS_CHECK_OK(ods_request_set_etag(req, "W/\"1\""));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_wait(store, &r.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ECONFLICT);
    ODS_CHECK_INT_EQ(r.error_http_status, 412);
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FAILED);
    ods_request_free(req);
    ods_test_result_free(&r);

    /* No ETag at all: the service requires one (428). */
    run(&r, ODS_UPDATE, "Products(1001)", "{\"Name\":\"NoEtag\"}");
    ODS_CHECK_INT_EQ(r.error_code, ODS_EPRECONDITION);
    ODS_CHECK_INT_EQ(r.error_http_status, 428);
    ods_test_result_free(&r);

    /* PUT replaces the entity. */
    snprintf(body, sizeof body,
             "{\"@odata.etag\":\"%s\",\"ID\":1001,\"Name\":\"Replaced\",\"Price\":\"1.00\",\"Stock\":\"1\","
             "\"Discontinued\":true,\"ReleaseDate\":\"2024-03-01\",\"CategoryID\":2}",
             "W/\\\"2\\\"");
    expect_ok(&r, ODS_UPDATE_PUT, "Products(1001)", body, 204);
    ods_test_result_free(&r);

    /* Delete with If-Match from set_etag. */
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_DELETE, "Products(1001)", NULL));
    ODS_CHECK_OK(ods_request_set_etag(req, "*"));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_wait(store, &r.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK_INT_EQ(r.status, 204);
    ODS_CHECK_STR_EQ(r.json, "");
    ods_request_free(req);
    ods_test_result_free(&r);

    run(&r, ODS_READ, "Products(1001)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ENOTFOUND);
    ods_test_result_free(&r);
}

static void check_operations(void) {
    ods_test_result r;
    expect_ok(&r, ODS_FUNCTION, "ProductsByRating(rating=4)", NULL, 200);
    ODS_CHECK(r.entity_count > 0);
    ODS_CHECK(strstr(r.json, "\"Rating\":3") == NULL);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_FUNCTION, "TotalStock()", NULL, 200);
    ODS_CHECK(strstr(r.json, "\"54043195572547008\"") != NULL); /* Int64 as a string, exact */
    ods_test_result_free(&r);

    expect_ok(&r, ODS_FUNCTION, "MostExpensive()", NULL, 200);
    ODS_CHECK(strstr(r.json, "\"ID\":107") != NULL);
    ods_test_result_free(&r);

    expect_ok(&r, ODS_FUNCTION, "Discount", "{\"categoryID\":3,\"percent\":10}", 200);
    ODS_CHECK(strstr(r.json, "\"value\":30") != NULL);
    ods_test_result_free(&r);

    /* Not an operation of this service. */
    run(&r, ODS_FUNCTION, "NoSuchFunction()", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EINVAL);
    ods_test_result_free(&r);
}

static void check_paging(void) {
    const char *args[] = {"--page-size", "40", NULL};
    ods_test_server *paged = NULL;
    ods_store *paged_store;
    ods_test_result r;
    ods_request *req = NULL;

    ODS_CHECK(ods_test_server_start_v4(&paged, args) == 0);
    paged_store = ods_test_open(ods_test_server_url(paged), ODS_DISPATCH_THREAD);

    ods_test_result_init(&r);
    ods_test_run(&r, paged_store, ODS_READ, "Products?$count=true", NULL);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK_INT_EQ(r.entity_count, 40);
    ODS_CHECK_INT_EQ(r.count, 300);
    ODS_CHECK(r.next_link != NULL && strstr(r.next_link, "http://") == r.next_link);
    ods_test_result_free(&r);

    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, paged_store, ODS_READ, "Products?$count=true", NULL));
    ODS_CHECK_OK(ods_request_set_paging(req, ODS_PAGING_FOLLOW));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_wait(paged_store, &r.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK_INT_EQ(r.entity_count, 300);
    ODS_CHECK_INT_EQ(r.count, 300);
    ODS_CHECK(r.next_link == NULL);
    ods_request_free(req);
    ods_test_result_free(&r);

    ODS_CHECK_OK(ods_store_close(paged_store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(paged), 0);
}

int main(void) {
    ods_test_server *server = NULL;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    store = ods_test_open(ods_test_server_url(server), ODS_DISPATCH_THREAD);
    ODS_CHECK_INT_EQ(ods_store_odata_version(store), 4);
    ODS_CHECK_INT_EQ(ods_store_get_state(store), ODS_STORE_OPEN);

    check_typed_access();
    check_reads();
    check_metadata_read();
    check_crud_and_etags();
    check_operations();
    check_paging();

    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("online V4: ok\n");
    return 0;
}
