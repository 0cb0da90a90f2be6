/* test_paths.c - building request paths from values instead of pasting them (ods_url_quote_string,
 * ods_store_key_path) and the path rules of the header: every customer of the seed whose key
 * needs escaping ("O'NEIL", "A&B", "SP ACE", "PLUS+1", "HASH#1", "PCT%20", "Q?X", "ZOË",
 * "ÄÖÜ", "日本") is read back by key and by $filter from the real V4 service, and from the
 * real V2 service where pyslet allows it (it unescapes non-ASCII and '%' keys twice, see
 * Tests/servers/README.md: those go through $filter there); compound and typed keys in both
 * versions; what is refused. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static const char *const customers[] = {"O'NEIL", "A&B", "SP ACE", "PLUS+1", "HASH#1", "PCT%20", "Q?X",
                                        "ZO\xc3\x8b", "\xc3\x84\xc3\x96\xc3\x9c", "\xe6\x97\xa5\xe6\x9c\xac", NULL};

static char *quote(const char *value) {
    char *out = NULL;
    ODS_CHECK_OK(ods_url_quote_string(&out, value));
    ODS_CHECK(out != NULL);
    return out;
}

static void check_quote_string(void) {
    char *q = (char *)1;
    q = quote("A&B 'x'");
    ODS_CHECK_STR_EQ(q, "'A%26B%20''x'''");
    ods_free(q);
    q = quote("#%?/+\"");
    ODS_CHECK_STR_EQ(q, "'%23%25%3F%2F%2B%22'");
    ods_free(q);
    q = quote("");
    ODS_CHECK_STR_EQ(q, "''");
    ods_free(q);
    q = quote("\xc3\xa9");
    ODS_CHECK_STR_EQ(q, "'%C3%A9'");
    ods_free(q);
    q = (char *)1;
    ODS_CHECK_INT_EQ(ods_url_quote_string(&q, NULL), ODS_EINVAL);
    ODS_CHECK(q == NULL);
    ODS_CHECK_INT_EQ(ods_url_quote_string(NULL, "x"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_url_quote_string(&q, "\xff\xfe"), ODS_EINVAL); /* not UTF-8 */
}

/* The customer read through `path` is `id`. */
static void expect_customer(ods_store *store, const char *path, const char *id, int collection) {
    ods_response *r = NULL;
    const char *got = NULL;
    int rc = ods_store_execute(&r, store, ODS_READ, path, NULL, 60000);
    if (rc != ODS_OK) ods_test_fail(__FILE__, __LINE__, "%s: %s", path, ods_error_last()->message);
    ODS_CHECK_INT_EQ(ods_response_entity_count(r), 1);
    ODS_CHECK_OK(ods_entity_get_string(&got, ods_response_entity(r, 0), "CustomerID"));
    if (strcmp(got, id) != 0) ods_test_fail(__FILE__, __LINE__, "%s gave %s, expected %s", path, got, id);
    (void)collection;
    ods_response_free(r);
}

static char *key_json_string(const char *value) {
    /* A JSON string for an ASCII/UTF-8 value with a quote or backslash at most. */
    char *out = malloc(strlen(value) * 2 + 3), *o = out;
    const char *p;
    ODS_CHECK(out != NULL);
    *o++ = '"';
    for (p = value; *p; p++) {
        if (*p == '"' || *p == '\\') *o++ = '\\';
        *o++ = *p;
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

static void check_customers(ods_store *store, int v2) {
    int i;
    for (i = 0; customers[i]; i++) {
        const char *id = customers[i];
        char *key = key_json_string(id), *path = NULL, *literal = quote(id), filter[512];
        int ascii_plain = 1;
        const char *p;
        for (p = id; *p; p++)
            if ((unsigned char)*p >= 0x80 || *p == '%') ascii_plain = 0;
        ODS_CHECK_OK(ods_store_key_path(&path, store, "Customers", key));
        ODS_CHECK(strncmp(path, "Customers('", 11) == 0);
        if (!v2 || ascii_plain) expect_customer(store, path, id, 0);
        snprintf(filter, sizeof filter, "Customers?$filter=CustomerID eq %s", literal);
        expect_customer(store, filter, id, 1);
        ods_free(path);
        ods_free(literal);
        free(key);
    }
}

static void check_key_paths(ods_store *store, int v2) {
    char *path = (char *)1;
    ODS_CHECK_OK(ods_store_key_path(&path, store, "Products", "3"));
    ODS_CHECK_STR_EQ(path, "Products(3)");
    ods_free(path);
    ODS_CHECK_OK(ods_store_key_path(&path, store, "Products", "{\"ID\":3}"));
    ODS_CHECK_STR_EQ(path, "Products(3)");
    ods_free(path);
    /* Compound keys in $metadata's order, whatever the object's order. */
    ODS_CHECK_OK(ods_store_key_path(&path, store, "OrderLines", "{\"LineNo\":2,\"OrderID\":1000}"));
    ODS_CHECK_STR_EQ(path, "OrderLines(OrderID=1000,LineNo=2)");
    {
        ods_response *r = NULL;
        int64_t n = 0;
        ODS_CHECK_OK(ods_store_execute(&r, store, ODS_READ, path, NULL, 60000));
        ODS_CHECK_OK(ods_entity_get_int64(&n, ods_response_entity(r, 0), "ProductID"));
        ODS_CHECK_INT_EQ(n, (1 * 7) % 300 + 1); /* line n = 1 */
        ods_response_free(r);
    }
    ods_free(path);
    /* Refused: unknown set, wrong names, missing or extra keys, wrong types, out of range. */
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "NoSuchSet", "1"), ODS_ENOTFOUND);
    ODS_CHECK(path == NULL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "Products", "\"3\""), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "Products", "4294967297"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "Products", "1.5"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "Products", "{\"Id\":3}"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "Products", "{\"ID\":3,\"Name\":\"x\"}"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "OrderLines", "1000"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "OrderLines", "{\"OrderID\":1000}"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "Customers", "12"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "Customers", "{\"CustomerID\":null}"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, "Products", "not json"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, store, NULL, "1"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(NULL, store, "Products", "1"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_key_path(&path, NULL, "Products", "1"), ODS_EINVAL);
    ODS_CHECK(path == NULL);
    (void)v2;
}

/* The header's path rules, each one seen. */
static void check_path_rules(ods_store *store) {
    ods_request *req = NULL;
    ods_response *r = NULL;
    /* "" and "/" are the service document. */
    ODS_CHECK_OK(ods_store_execute(&r, store, ODS_READ, "", NULL, 60000));
    ODS_CHECK_INT_EQ(ods_response_status(r), 200);
    ODS_CHECK(strstr(ods_response_json(r, NULL), "Customers") != NULL);
    ods_response_free(r);
    /* A raw '#': refused, with the byte position. */
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, "Customers('HASH#1')", NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_error_last()->position, 15);
    /* Spaces and non-ASCII are encoded for the caller; %XX escapes are kept. */
    expect_customer(store, "Customers('SP ACE')", "SP ACE", 0);
    expect_customer(store, "Customers('SP%20ACE')", "SP ACE", 0);
    /* '+' in the query is a plus, not a space. */
    expect_customer(store, "Customers?$filter=CustomerID eq 'PLUS+1'", "PLUS+1", 1);
}

int main(void) {
    ods_test_server *v4 = NULL, *v2 = NULL;
    ods_store *store;
    check_quote_string();
    if (ods_test_server_start_v4(&v4, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_server_start_v2(&v2, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V2 server");

    store = ods_test_open(ods_test_server_url(v4), ODS_DISPATCH_THREAD);
    check_key_paths(store, 0);
    check_customers(store, 0);
    check_path_rules(store);
    ODS_CHECK_OK(ods_store_close(store));

    store = ods_test_open(ods_test_server_url(v2), ODS_DISPATCH_QUEUE);
    check_key_paths(store, 1);
    check_customers(store, 1);
    ODS_CHECK_OK(ods_store_close(store));

    ODS_CHECK_INT_EQ(ods_test_server_stop(v2), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(v4), 0);
    printf("paths: ok\n");
    return 0;
}
