/* test_values.c - nested data from C without a JSON parser (ods_value_*, ods_entity_get_value,
 * ods_entity_value, ods_response_value) and keeping a response after its callback
 * (ods_response_dup / ods_response_free), against the real V4 service (odatapy): an entity
 * with its expanded to-one navigation, a category with its expanded products, $count. Complex
 * values and collections of primitives (the test service declares none) come from the fault
 * proxy's canned answer, decoded by the same path as every response. Expected values follow
 * the seed formulas in Tests/servers/README.md. */
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

/* Keeps the response of a completion past the callback. */
typedef struct kept {
    ods_test_waiter waiter;
    ods_response *response;
    int error_code;
} kept;

static void keep_response(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    kept *k = context;
    (void)request;
    k->error_code = error ? error->code : 0;
    if (response) ODS_CHECK_OK(ods_response_dup(&k->response, response));
    ods_test_waiter_signal(&k->waiter, NULL);
}

/* Reads `path` and returns its response, kept with ods_response_dup inside the callback. */
static ods_response *read_kept(const char *path) {
    kept k;
    memset(&k, 0, sizeof k);
    ods_test_waiter_init(&k.waiter);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, path, NULL, keep_response, &k));
    ods_test_wait(store, &k.waiter, 1, 60000);
    ods_test_waiter_destroy(&k.waiter);
    if (k.error_code != 0) ods_test_fail(__FILE__, __LINE__, "%s failed with %d", path, k.error_code);
    ODS_CHECK(k.response != NULL);
    return k.response;
}

static int64_t int_of(const ods_value *v) {
    int64_t n = -1;
    ODS_CHECK_OK(ods_value_get_int64(&n, v));
    return n;
}

static const char *string_of(const ods_value *v) {
    const char *s = NULL;
    ODS_CHECK_OK(ods_value_get_string(&s, v));
    return s;
}

/* Products(12)?$expand=Category: the nested entity, read after the callback returned. */
static void check_expanded_to_one(void) {
    ods_response *r = read_kept("Products(12)?$expand=Category");
    ods_response *again = NULL;
    const ods_entity *product = ods_response_entity(r, 0);
    const ods_value *category = NULL, *root;
    const ods_entity *category_entity;
    const char *name = NULL;
    int64_t id = 0;
    ODS_CHECK(product != NULL);
    ODS_CHECK_OK(ods_entity_get_value(&category, product, "Category"));
    ODS_CHECK_INT_EQ(ods_value_get_type(category), ODS_VALUE_OBJECT);
    category_entity = ods_value_entity(category);
    ODS_CHECK(category_entity != NULL);
    ODS_CHECK(ods_entity_value(category_entity) == category); /* one object, two handle types */
    ODS_CHECK_OK(ods_entity_get_int64(&id, category_entity, "ID"));
    ODS_CHECK_INT_EQ(id, 2); /* (12 - 1) % 10 + 1 */
    ODS_CHECK_OK(ods_entity_get_string(&name, category_entity, "Name"));
    ODS_CHECK(name != NULL && strlen(name) > 0);
    /* The same value always gives the same pointer. */
    ODS_CHECK(ods_value_member(ods_entity_value(product), "Category") == category);
    /* The root value is the entity itself. */
    root = ods_response_value(r);
    ODS_CHECK(root == ods_entity_value(product));
    ODS_CHECK_INT_EQ(ods_value_get_type(root), ODS_VALUE_OBJECT);
    ODS_CHECK(ods_value_count(root) >= 10); /* its members, the etag annotation included */
    /* A second reference keeps it alive after the first is gone. */
    ODS_CHECK_OK(ods_response_dup(&again, r));
    ODS_CHECK(again == r);
    ods_response_free(r);
    ODS_CHECK_OK(ods_entity_get_int64(&id, category_entity, "ID"));
    ODS_CHECK_INT_EQ(id, 2);
    ods_response_free(again);
}

/* Categories(3)?$expand=Products($orderby=ID): an array of entities inside an entity. */
static void check_expanded_to_many(void) {
    ods_response *r = read_kept("Categories(3)?$expand=Products($orderby=ID)");
    const ods_entity *category = ods_response_entity(r, 0);
    const ods_value *products = NULL;
    size_t i, n;
    ODS_CHECK_OK(ods_entity_get_value(&products, category, "Products"));
    ODS_CHECK_INT_EQ(ods_value_get_type(products), ODS_VALUE_ARRAY);
    n = ods_value_count(products);
    ODS_CHECK_INT_EQ(n, 30); /* 30 products per category */
    for (i = 0; i < n; i++) {
        const ods_value *p = ods_value_at(products, i);
        const ods_entity *e = ods_value_entity(p);
        int64_t id = 0, stock = 0;
        double price = 0;
        int discontinued = -1;
        ODS_CHECK(p != NULL && e != NULL);
        ODS_CHECK_OK(ods_entity_get_int64(&id, e, "ID"));
        ODS_CHECK_INT_EQ(id, 3 + 10 * (int64_t)i);
        ODS_CHECK_INT_EQ(int_of(ods_value_member(p, "ID")), id);
        ODS_CHECK_OK(ods_entity_get_int64(&stock, e, "Stock"));
        ODS_CHECK_INT_EQ(stock, id % 50 == 0 ? 9007199254740993LL + id : id * 1000);
        ODS_CHECK_OK(ods_value_get_double(&price, ods_value_member(p, "Price")));
        ODS_CHECK(price > ((id * 3737) % 100000) / 100.0 - 0.001 && price < ((id * 3737) % 100000) / 100.0 + 0.001);
        ODS_CHECK_OK(ods_value_get_bool(&discontinued, ods_value_member(p, "Discontinued")));
        ODS_CHECK_INT_EQ(discontinued, id % 5 == 0);
    }
    ODS_CHECK(ods_value_at(products, n) == NULL);
    ODS_CHECK(ods_value_at(products, (size_t)-1) == NULL);
    ODS_CHECK(ods_value_entity(products) == NULL); /* an array is no entity */
    ODS_CHECK(ods_value_member(products, "ID") == NULL);
    ods_response_free(r);
}

/* $count: a value result, no entity; the root value is {"value": 300}. */
static void check_value_result(void) {
    ods_response *r = read_kept("Products/$count");
    const ods_value *root = ods_response_value(r);
    ODS_CHECK_INT_EQ(ods_response_entity_count(r), 0);
    ODS_CHECK_INT_EQ(int_of(ods_value_member(root, "value")), 300);
    ods_response_free(r);
}

/* A canned 200 answer with this JSON body for requests whose target contains `match`. */
static void respond(const char *match, const char *body) {
    char *spec = malloc(strlen(body) * 2 + 512), *o;
    const char *p;
    ODS_CHECK(spec != NULL);
    o = spec + sprintf(spec, "{\"mode\":\"respond\",\"match\":\"%s\",\"headers\":[[\"Content-Type\",\"application/json\"],"
                             "[\"OData-Version\",\"4.0\"]],\"body\":\"", match);
    for (p = body; *p; p++) {
        if (*p == '"' || *p == '\\') *o++ = '\\';
        *o++ = *p;
    }
    strcpy(o, "\"}");
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    ODS_CHECK(ods_test_proxy_add_fault_json(proxy, spec) == 0);
    free(spec);
}

/* Complex values, collections of primitives and of complex values, nulls, Int64 strings,
 * escapes: members by index, every getter's status rule. */
static void check_nested_shapes(void) {
    ods_response *r;
    const ods_entity *e;
    const ods_value *address, *tags, *history, *v, *member = NULL;
    const char *name = NULL, *s = NULL;
    int64_t n = 7;
    double d = 7;
    int b = 7;
    size_t i;
    respond("Products(7)",
            "{\"ID\":7,\"Name\":\"Caf\\u00e9 \\\"7\\\"\","
            "\"Address\":{\"Street\":\"Main St 1\",\"Geo\":{\"Lat\":52.5,\"Lon\":-13.25},\"Zip\":null},"
            "\"Tags\":[\"a\",\"b\\u0026c\",\"\"],"
            "\"History\":[{\"Year\":2020,\"Amount\":\"9007199254740993\"},{\"Year\":2021,\"Amount\":\"12.50\"}],"
            "\"Flags\":[true,false],\"Huge\":1e400,\"Frac\":1.5,\"Big\":\"99999999999999999999\"}");
    r = read_kept("Products(7)");
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    e = ods_response_entity(r, 0);
    ODS_CHECK(e != NULL);
    ODS_CHECK_OK(ods_entity_get_string(&s, e, "Name"));
    ODS_CHECK_STR_EQ(s, "Caf\xc3\xa9 \"7\"");

    ODS_CHECK_OK(ods_entity_get_value(&address, e, "Address"));
    ODS_CHECK_INT_EQ(ods_value_get_type(address), ODS_VALUE_OBJECT);
    ODS_CHECK_INT_EQ(ods_value_count(address), 3);
    ODS_CHECK_OK(ods_value_member_at(&name, &member, address, 0));
    ODS_CHECK_STR_EQ(name, "Street");
    ODS_CHECK_STR_EQ(string_of(member), "Main St 1");
    ODS_CHECK_OK(ods_value_member_at(&name, &member, address, 1));
    ODS_CHECK_STR_EQ(name, "Geo");
    ODS_CHECK_OK(ods_value_get_double(&d, ods_value_member(member, "Lon")));
    ODS_CHECK(d == -13.25);
    ODS_CHECK_INT_EQ(ods_value_member_at(&name, &member, address, 3), ODS_ENOTFOUND);
    ODS_CHECK(name == NULL && member == NULL);
    ODS_CHECK_OK(ods_value_member_at(NULL, &member, address, 2)); /* either out may be NULL */
    ODS_CHECK_INT_EQ(ods_value_get_type(member), ODS_VALUE_NULL);
    /* null: ODS_ENULL from every getter, *out cleared. */
    s = "stale";
    ODS_CHECK_INT_EQ(ods_value_get_string(&s, member), ODS_ENULL);
    ODS_CHECK(s == NULL);
    ODS_CHECK_INT_EQ(ods_value_get_int64(&n, member), ODS_ENULL);
    ODS_CHECK_INT_EQ(n, 0);
    ODS_CHECK_INT_EQ(ods_value_get_double(&d, member), ODS_ENULL);
    ODS_CHECK_INT_EQ(ods_value_get_bool(&b, member), ODS_ENULL);
    ODS_CHECK_INT_EQ(b, 0);
    /* An object is read as text by get_string only. */
    ODS_CHECK_OK(ods_value_get_string(&s, address));
    ODS_CHECK(s != NULL && s[0] == '{');
    ODS_CHECK_STR_EQ(ods_value_json(address), s);
    ODS_CHECK_INT_EQ(ods_value_get_int64(&n, address), ODS_ETYPE);
    ODS_CHECK_INT_EQ(ods_value_member_at(&name, &member, ods_value_member(address, "Street"), 0), ODS_ETYPE);

    ODS_CHECK_OK(ods_entity_get_value(&tags, e, "Tags"));
    ODS_CHECK_INT_EQ(ods_value_count(tags), 3);
    ODS_CHECK_STR_EQ(string_of(ods_value_at(tags, 1)), "b&c");
    ODS_CHECK_STR_EQ(string_of(ods_value_at(tags, 2)), "");
    ODS_CHECK_INT_EQ(ods_value_get_int64(&n, ods_value_at(tags, 0)), ODS_ETYPE);

    ODS_CHECK_OK(ods_entity_get_value(&history, e, "History"));
    ODS_CHECK_INT_EQ(ods_value_count(history), 2);
    for (i = 0; i < 2; i++) {
        const ods_entity *h = ods_value_entity(ods_value_at(history, i));
        ODS_CHECK_OK(ods_entity_get_int64(&n, h, "Year"));
        ODS_CHECK_INT_EQ(n, 2020 + (int64_t)i);
    }
    ODS_CHECK_OK(ods_value_get_int64(&n, ods_value_member(ods_value_at(history, 0), "Amount")));
    ODS_CHECK_INT_EQ(n, 9007199254740993LL); /* exact: never through a double */
    ODS_CHECK_INT_EQ(ods_value_get_int64(&n, ods_value_member(ods_value_at(history, 1), "Amount")), ODS_ETYPE);
    ODS_CHECK_OK(ods_value_get_double(&d, ods_value_member(ods_value_at(history, 1), "Amount")));
    ODS_CHECK(d == 12.5);

    v = ods_value_member(ods_entity_value(e), "Flags");
    ODS_CHECK_OK(ods_value_get_bool(&b, ods_value_at(v, 0)));
    ODS_CHECK_INT_EQ(b, 1);
    ODS_CHECK_OK(ods_value_get_string(&s, ods_value_at(v, 1)));
    ODS_CHECK_STR_EQ(s, "false");
    ODS_CHECK_INT_EQ(ods_value_get_bool(&b, ods_value_member(ods_entity_value(e), "Frac")), ODS_ETYPE);
    /* Numbers that do not fit: ODS_ETYPE, not a wrapped or rounded value. */
    ODS_CHECK_INT_EQ(ods_entity_get_int64(&n, e, "Frac"), ODS_ETYPE);
    ODS_CHECK_INT_EQ(ods_entity_get_int64(&n, e, "Big"), ODS_ETYPE);
    ODS_CHECK_INT_EQ(ods_entity_get_double(&d, e, "Huge"), ODS_ETYPE);
    ODS_CHECK_INT_EQ(ods_entity_get_value(&v, e, "Nope"), ODS_ENOTFOUND);
    ODS_CHECK(v == NULL);
    ods_response_free(r);
}

static void check_null_arguments(void) {
    const ods_value *v = (const ods_value *)1;
    const char *s = "x";
    int64_t n = 1;
    double d = 1;
    int b = 1;
    ods_response *r = (ods_response *)1;
    ODS_CHECK(ods_response_value(NULL) == NULL);
    ODS_CHECK_INT_EQ(ods_response_dup(&r, NULL), ODS_EINVAL);
    ODS_CHECK(r == NULL);
    ods_response_free(NULL);
    ODS_CHECK_INT_EQ(ods_entity_get_value(&v, NULL, "x"), ODS_EINVAL);
    ODS_CHECK(v == NULL);
    ODS_CHECK(ods_entity_value(NULL) == NULL);
    ODS_CHECK_INT_EQ(ods_value_get_type(NULL), ODS_VALUE_ABSENT);
    ODS_CHECK(ods_value_json(NULL) == NULL);
    ODS_CHECK_INT_EQ(ods_value_count(NULL), 0);
    ODS_CHECK(ods_value_at(NULL, 0) == NULL);
    ODS_CHECK(ods_value_member(NULL, "x") == NULL);
    ODS_CHECK_INT_EQ(ods_value_member_at(&s, &v, NULL, 0), ODS_EINVAL);
    ODS_CHECK(s == NULL && v == NULL);
    ODS_CHECK(ods_value_entity(NULL) == NULL);
    ODS_CHECK_INT_EQ(ods_value_get_string(&s, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_value_get_int64(&n, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(n, 0);
    ODS_CHECK_INT_EQ(ods_value_get_double(&d, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_value_get_bool(&b, NULL), ODS_EINVAL);
}

int main(void) {
    ods_test_server *server = NULL;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_proxy_start(&proxy, ods_test_server_url(server), NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    store = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);
    check_null_arguments();
    check_expanded_to_one();
    check_expanded_to_many();
    check_value_result();
    check_nested_shapes();
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("values: ok\n");
    return 0;
}
