/* test_entities.c - the entity views of a response (ods_response_entity*, ods_entity_*)
 * against the real OData V4 test service (odatapy): single entities and collection
 * elements, escaped and non-ASCII strings, nested values, and names that are absent.
 * Expected values follow the seed formulas in Tests/servers/README.md. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static ods_store *store;

/* What a check callback saw; filled inside the callback, where the response is valid. */
typedef struct seen {
    ods_test_waiter waiter;
    void (*inspect)(struct seen *, const ods_response *);
    char failure[256];
} seen;

static void on_response(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    seen *s = context;
    (void)request;
    if (error != NULL)
        snprintf(s->failure, sizeof s->failure, "request failed: %s", error->message);
    else
        s->inspect(s, response);
    ods_test_waiter_signal(&s->waiter, NULL);
}

static void read_and_inspect(const char *path, void (*inspect)(seen *, const ods_response *)) {
    seen s;
    memset(&s, 0, sizeof s);
    s.inspect = inspect;
    ods_test_waiter_init(&s.waiter);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, path, NULL, on_response, &s));
    ods_test_wait(store, &s.waiter, 1, 60000);
    ods_test_waiter_destroy(&s.waiter);
    if (s.failure[0] != '\0') ods_test_fail(__FILE__, __LINE__, "%s: %s", path, s.failure);
}

static const char *string_of(const ods_entity *e, const char *property) {
    const char *s = NULL;
    ODS_CHECK_OK(ods_entity_get_string(&s, e, property));
    return s;
}

static int64_t int_of(const ods_entity *e, const char *property) {
    int64_t v = 0;
    ODS_CHECK_OK(ods_entity_get_int64(&v, e, property));
    return v;
}

/* Product 3: a non-ASCII description; the ETag W/"1" arrives escaped in JSON. */
static void inspect_single(seen *s, const ods_response *response) {
    const ods_entity *e;
    const char *json;
    size_t len;
    (void)s;
    ODS_CHECK_INT_EQ(ods_response_entity_count(response), 1);
    ODS_CHECK(ods_response_entity(response, 1) == NULL);
    ODS_CHECK(ods_response_entity(response, (size_t)-1) == NULL);
    e = ods_response_entity(response, 0);
    ODS_CHECK(e != NULL);
    ODS_CHECK(ods_response_entity(response, 0) == e); /* the same view each time */
    ODS_CHECK_INT_EQ(int_of(e, "ID"), 3);
    ODS_CHECK_STR_EQ(string_of(e, "Description"), "Gr\xc3\xb6\xc3\x9f" "e 3 \xe2\x80\x93 na\xc3\xafve caf\xc3\xa9");
    ODS_CHECK_STR_EQ(ods_entity_etag(e), "W/\"1\"");
    ODS_CHECK_STR_EQ(string_of(e, "@odata.etag"), "W/\"1\"");
    ODS_CHECK_STR_EQ(string_of(e, "Stock"), "3000");      /* Int64 as a string */
    ODS_CHECK_STR_EQ(string_of(e, "Rating"), "4");        /* a number as spelled */
    ODS_CHECK_STR_EQ(string_of(e, "Discontinued"), "false");
    ODS_CHECK_INT_EQ(ods_entity_value_type(e, "Discontinued"), ODS_VALUE_BOOL);
    ODS_CHECK_INT_EQ(ods_entity_value_type(e, "Rating"), ODS_VALUE_NUMBER);
    ODS_CHECK_INT_EQ(ods_entity_value_type(e, "id"), ODS_VALUE_ABSENT); /* names are case-sensitive */
    ODS_CHECK_INT_EQ(ods_entity_value_type(e, "I"), ODS_VALUE_ABSENT);
    ODS_CHECK_INT_EQ(ods_entity_value_type(e, "IDX"), ODS_VALUE_ABSENT);
    ODS_CHECK_INT_EQ(ods_entity_value_type(e, ""), ODS_VALUE_ABSENT);
    /* The single entity is the whole canonical JSON. */
    json = ods_response_json(response, &len);
    ODS_CHECK_STR_EQ(ods_entity_json(e), json);
}

/* Elements of a collection, each its own view. */
static void inspect_collection(seen *s, const ods_response *response) {
    size_t i;
    (void)s;
    ODS_CHECK_INT_EQ(ods_response_entity_count(response), 3);
    ODS_CHECK(ods_response_entity(response, 3) == NULL);
    for (i = 0; i < 3; i++) {
        const ods_entity *e = ods_response_entity(response, i);
        const char *json;
        char expected[32];
        double price = 0;
        int discontinued = -1;
        ODS_CHECK(e != NULL);
        ODS_CHECK_INT_EQ(int_of(e, "ID"), (int64_t)(i + 1));
        ODS_CHECK_OK(ods_entity_get_double(&price, e, "Price"));
        ODS_CHECK(price > ((int)(i + 1) * 3737 % 100000) / 100.0 - 0.001 &&
                  price < ((int)(i + 1) * 3737 % 100000) / 100.0 + 0.001);
        ODS_CHECK_OK(ods_entity_get_bool(&discontinued, e, "Discontinued"));
        ODS_CHECK_INT_EQ(discontinued, 0);
        json = ods_entity_json(e);
        ODS_CHECK(json != NULL && json[0] == '{' && json[strlen(json) - 1] == '}');
        snprintf(expected, sizeof expected, "\"ID\":%d,", (int)(i + 1));
        ODS_CHECK(strstr(json, expected) != NULL);
        ODS_CHECK(strstr(json, "\"value\"") == NULL); /* only the element, not the collection */
    }
}

/* An expanded navigation: an array value inside the entity. */
static void inspect_expanded(seen *s, const ods_response *response) {
    const ods_entity *e;
    const char *products;
    int64_t ignored;
    (void)s;
    ODS_CHECK_INT_EQ(ods_response_entity_count(response), 1);
    e = ods_response_entity(response, 0);
    ODS_CHECK(e != NULL);
    ODS_CHECK_STR_EQ(string_of(e, "Name"), "Confections");
    ODS_CHECK_INT_EQ(ods_entity_value_type(e, "Products"), ODS_VALUE_ARRAY);
    products = string_of(e, "Products");
    ODS_CHECK(strncmp(products, "[{", 2) == 0 && strstr(products, "\"ID\":3,") != NULL);
    ODS_CHECK(string_of(e, "Products") == products); /* cached: the same pointer */
    ODS_CHECK_INT_EQ(ods_entity_get_int64(&ignored, e, "Products"), ODS_ETYPE);
    ODS_CHECK_INT_EQ(ignored, 0); /* *out cleared on failure */
    /* A property of the nested entities is not a property of the outer one. */
    ODS_CHECK_INT_EQ(ods_entity_value_type(e, "Price"), ODS_VALUE_ABSENT);
}

/* A value that is not an entity: no entity views. */
static void inspect_count(seen *s, const ods_response *response) {
    (void)s;
    ODS_CHECK_INT_EQ(ods_response_entity_count(response), 0);
    ODS_CHECK(ods_response_entity(response, 0) == NULL);
}

/* The entity created below: escapes of every kind in its name. */
static void inspect_escaped(seen *s, const ods_response *response) {
    const ods_entity *e;
    (void)s;
    ODS_CHECK_INT_EQ(ods_response_entity_count(response), 1);
    e = ods_response_entity(response, 0);
    ODS_CHECK(e != NULL);
    ODS_CHECK_STR_EQ(string_of(e, "Name"), "q\"b\\s/t\tu\xc3\xa9 \xf0\x9f\x98\x80");
    ODS_CHECK_INT_EQ(int_of(e, "ID"), 2001);
}

int main(void) {
    ods_test_server *server = NULL;
    ods_test_result r;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    store = ods_test_open(ods_test_server_url(server), ODS_DISPATCH_THREAD);

    read_and_inspect("Products(3)", inspect_single);
    read_and_inspect("Products?$top=3&$orderby=ID", inspect_collection);
    read_and_inspect("Categories(3)?$expand=Products($top=2)", inspect_expanded);
    read_and_inspect("Products/$count", inspect_count);

    ods_test_expect_ok(&r, store, ODS_CREATE, "Products",
                       "{\"ID\":2001,\"Name\":\"q\\\"b\\\\s\\/t\\tu\\u00e9 \\ud83d\\ude00\",\"Price\":\"1.00\","
                       "\"Stock\":\"1\",\"Discontinued\":false,\"ReleaseDate\":\"2024-02-29\",\"CategoryID\":1}",
                       201);
    ods_test_result_free(&r);
    read_and_inspect("Products(2001)", inspect_escaped);

    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("entities: ok\n");
    return 0;
}
