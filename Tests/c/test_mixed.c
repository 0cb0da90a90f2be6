/* test_mixed.c - mixed stores through the public header, against the real V2 service
 * (pyslet): routing by what the defining requests cover (keys, navigation, full URLs,
 * $expand into a set no defining request covers, function imports, writes), which side
 * answered (ods_response_source), forced routes (ods_request_set_route), the working mode
 * (ods_store_set_mode / ods_store_get_mode) switched while requests are in flight (held by
 * the fault proxy), offline calls delegated to the store file, the service stopped (covered
 * sets answer, others fail with ODS_EOFFLINE), and hostile callers (NULL, bad values, an
 * online store). */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

/* Products and Customers are covered; Categories and OrderLines are not. */
static const char *definitions[] = {"Products", "Customers", NULL};
static char store_path[512];

typedef struct routed {
    ods_test_waiter done;
    int error_code;
    int source;          /* ods_response_source of the response, 0 without one */
    size_t entity_count;
} routed;

static void on_routed(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    routed *r = context;
    (void)request;
    r->error_code = error ? error->code : 0;
    r->source = response ? ods_response_source(response) : 0;
    r->entity_count = response ? ods_response_entity_count(response) : 0;
    ods_test_waiter_signal(&r->done, NULL);
}

/* Starts a request with `route` (ODS_ROUTE_AUTO: none set); wait on r->done. */
static void start_routed(routed *r, ods_store *store, int mode, const char *path, const char *body, int route) {
    ods_request *req = NULL;
    memset(r, 0, sizeof *r);
    ods_test_waiter_init(&r->done);
    ODS_CHECK_OK(ods_request_new(&req, store, mode, path, body));
    if (route != ODS_ROUTE_AUTO) ODS_CHECK_OK(ods_request_set_route(req, route));
    ODS_CHECK_OK(ods_request_set_completion(req, on_routed, r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_request_free(req);   /* the store keeps a started request until its last callback */
}

static void run_routed(routed *r, ods_store *store, int mode, const char *path, const char *body, int route) {
    start_routed(r, store, mode, path, body, route);
    ods_test_wait(store, &r->done, 1, 60000);
}

/* The side that answers a successful request. */
static int source_of(ods_store *store, int mode, const char *path, const char *body) {
    routed r;
    run_routed(&r, store, mode, path, body, ODS_ROUTE_AUTO);
    if (r.error_code != 0)
        ods_test_fail(__FILE__, __LINE__, "%s failed: %s", path, ods_strerror(r.error_code));
    return r.source;
}

static int error_of(ods_store *store, int mode, const char *path, const char *body, int route) {
    routed r;
    run_routed(&r, store, mode, path, body, route);
    return r.error_code;
}

static ods_store *open_mixed(const char *url, int dispatch) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    options.kind = ODS_STORE_MIXED;
    options.service_root = url;
    options.dispatch = dispatch;
    options.store_path = store_path;
    options.defining_requests = definitions;
    ODS_CHECK_OK(ods_store_open(&store, &options, NULL, NULL));
    return store;
}

static void check_routing(ods_store *store, const char *root) {
    char url[512];
    int64_t pending = -1;
    int mode = -1;
    ODS_CHECK_OK(ods_store_get_mode(&mode, store));
    ODS_CHECK_INT_EQ(mode, ODS_MODE_MIXED);
    /* Covered: keys, properties, $count, options on the covered set, full URLs. */
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Products(7)", NULL), ODS_SOURCE_OFFLINE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Products(7)/Name", NULL), ODS_SOURCE_OFFLINE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Products/$count", NULL), ODS_SOURCE_OFFLINE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Products?$filter=Price gt 100&$orderby=Name&$top=3", NULL), ODS_SOURCE_OFFLINE);
    snprintf(url, sizeof url, "%sCustomers?$top=2", root);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, url, NULL), ODS_SOURCE_OFFLINE);
    /* Not covered: another set, navigation into it, $expand into it, a path through it,
     * a function import. */
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "OrderLines?$top=2", NULL), ODS_SOURCE_ONLINE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Products(1)/Category", NULL), ODS_SOURCE_ONLINE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Products?$expand=Category&$top=2", NULL), ODS_SOURCE_ONLINE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Categories(1)/Products?$top=2", NULL), ODS_SOURCE_ONLINE);
    snprintf(url, sizeof url, "%sCategories", root);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, url, NULL), ODS_SOURCE_ONLINE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_FUNCTION, "TotalStock", NULL), ODS_SOURCE_ONLINE);
    /* Forced sides. */
    {
        routed r;
        run_routed(&r, store, ODS_READ, "Products(7)", NULL, ODS_ROUTE_ONLINE);
        ODS_CHECK_INT_EQ(r.error_code, 0);
        ODS_CHECK_INT_EQ(r.source, ODS_SOURCE_ONLINE);
    }
    ODS_CHECK_INT_EQ(error_of(store, ODS_READ, "OrderLines", NULL, ODS_ROUTE_OFFLINE), ODS_ENOTINSCOPE);
    /* Writes to covered sets go to the local queue. */
    ODS_CHECK_INT_EQ(source_of(store, ODS_UPDATE, "Products(7)", "{\"Name\":\"Mixed seven\"}"), ODS_SOURCE_OFFLINE);
    ODS_CHECK_OK(ods_store_pending_count(&pending, store));
    ODS_CHECK_INT_EQ(pending, 1);
    /* Working modes. */
    ODS_CHECK_OK(ods_store_set_mode(store, ODS_MODE_ONLINE));
    ODS_CHECK_OK(ods_store_get_mode(&mode, store));
    ODS_CHECK_INT_EQ(mode, ODS_MODE_ONLINE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Products(7)", NULL), ODS_SOURCE_ONLINE);
    ODS_CHECK_OK(ods_store_set_mode(store, ODS_MODE_OFFLINE));
    ODS_CHECK_INT_EQ(error_of(store, ODS_READ, "OrderLines", NULL, ODS_ROUTE_AUTO), ODS_ENOTINSCOPE);
    ODS_CHECK_OK(ods_store_set_mode(store, ODS_MODE_MIXED));
}

/* Hostile callers: NULL, unknown values, an online store, a started request. */
static void check_hostile(ods_store *mixed, const char *root) {
    ods_store *online = ods_test_open(root, ODS_DISPATCH_THREAD);
    ods_request *req = NULL;
    int mode = 123;
    ODS_CHECK_INT_EQ(ods_store_set_mode(NULL, ODS_MODE_ONLINE), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_set_mode(mixed, 3), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_set_mode(mixed, -1), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_get_mode(NULL, mixed), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_get_mode(&mode, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(mode, 0);   /* *out set before anything else */
    ODS_CHECK_INT_EQ(ods_store_set_mode(online, ODS_MODE_OFFLINE), ODS_EUNSUPPORTED);
    ODS_CHECK_OK(ods_store_get_mode(&mode, online));
    ODS_CHECK_INT_EQ(mode, ODS_MODE_ONLINE);
    ODS_CHECK_INT_EQ(ods_request_set_route(NULL, ODS_ROUTE_ONLINE), ODS_EINVAL);
    ODS_CHECK_OK(ods_request_new(&req, online, ODS_READ, "Products", NULL));
    ODS_CHECK_INT_EQ(ods_request_set_route(req, ODS_ROUTE_OFFLINE), ODS_EUNSUPPORTED);
    ODS_CHECK_OK(ods_request_set_route(req, ODS_ROUTE_AUTO));
    ods_request_free(req);
    ODS_CHECK_OK(ods_request_new(&req, mixed, ODS_READ, "Products", NULL));
    ODS_CHECK_INT_EQ(ods_request_set_route(req, 7), ODS_EINVAL);
    ODS_CHECK_OK(ods_request_start(req));
    ODS_CHECK_INT_EQ(ods_request_set_route(req, ODS_ROUTE_ONLINE), ODS_ESTATE);
    ODS_CHECK_OK(ods_request_wait(req, 30000));
    ods_request_free(req);
    ODS_CHECK_INT_EQ(ods_response_source(NULL), ODS_EINVAL);
    {   /* an online store's responses come from the service */
        routed r;
        run_routed(&r, online, ODS_READ, "Products(1)", NULL, ODS_ROUTE_AUTO);
        ODS_CHECK_INT_EQ(r.error_code, 0);
        ODS_CHECK_INT_EQ(r.source, ODS_SOURCE_ONLINE);
    }
    ods_store_close(online);
}

/* Requests held by the proxy finish online although the mode switches to offline. */
static void check_switch_in_flight(const char *upstream) {
    ods_test_server *proxy = NULL;
    ods_store *store;
    routed slow[3], after;
    int i;
    ODS_CHECK_INT_EQ(ods_test_proxy_start(&proxy, upstream, NULL), 0);
    store = open_mixed(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);
    /* Wait until it is open: a request held while it opens is routed when it is (by the mode
     * then), and these must start executing before the switch. */
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Products(1)", NULL), ODS_SOURCE_OFFLINE);
    ODS_CHECK_INT_EQ(ods_test_proxy_add_fault_json(proxy, "{\"mode\":\"slow\",\"count\":-1,\"delay_ms\":2500,\"match\":\"OrderLines\"}"), 0);
    for (i = 0; i < 3; i++) start_routed(&slow[i], store, ODS_READ, "OrderLines?$top=2", NULL, ODS_ROUTE_AUTO);
    ods_test_sleep_ms(300);
    for (i = 0; i < 3; i++) ODS_CHECK_INT_EQ(ods_test_waiter_count(&slow[i].done), 0);   /* in flight */
    ODS_CHECK_OK(ods_store_set_mode(store, ODS_MODE_OFFLINE));
    run_routed(&after, store, ODS_READ, "OrderLines?$top=2", NULL, ODS_ROUTE_AUTO);
    ODS_CHECK_INT_EQ(after.error_code, ODS_ENOTINSCOPE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Products(2)", NULL), ODS_SOURCE_OFFLINE);
    for (i = 0; i < 3; i++) {
        ods_test_wait(store, &slow[i].done, 1, 60000);
        ODS_CHECK_INT_EQ(slow[i].error_code, 0);
        ODS_CHECK_INT_EQ(slow[i].source, ODS_SOURCE_ONLINE);
        ODS_CHECK_INT_EQ(slow[i].entity_count, 2);
    }
    ods_store_close(store);
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
}

int main(void) {
    ods_test_server *server = NULL;
    ods_store *store;
    char root[256];
    routed held;
    int64_t pending = -1;
    if (ods_test_server_start_v2(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V2 server");
    snprintf(root, sizeof root, "%s", ods_test_server_url(server));
    snprintf(store_path, sizeof store_path, "/tmp/ods-test-mixed-%ld.store", (long)getpid());
    unlink(store_path);

    store = open_mixed(root, ODS_DISPATCH_THREAD);
    check_routing(store, root);
    check_hostile(store, root);
    ods_store_close(store);
    /* ods_store_set_mode on a closed handle: not a live store. */
    ODS_CHECK_INT_EQ(ods_store_set_mode(store, ODS_MODE_ONLINE), ODS_EINVAL);

    snprintf(store_path, sizeof store_path, "/tmp/ods-test-mixed-switch-%ld.store", (long)getpid());
    unlink(store_path);
    check_switch_in_flight(root);
    unlink(store_path);

    /* The service stopped: the file reopens without it, in queue mode; a request made while
     * it opens is held; covered sets answer, the rest fails with ODS_EOFFLINE. */
    snprintf(store_path, sizeof store_path, "/tmp/ods-test-mixed-%ld.store", (long)getpid());
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    store = open_mixed(root, ODS_DISPATCH_QUEUE);
    start_routed(&held, store, ODS_READ, "Products?$top=3", NULL, ODS_ROUTE_AUTO);
    ods_test_wait(store, &held.done, 1, 60000);
    ODS_CHECK_INT_EQ(held.error_code, 0);
    ODS_CHECK_INT_EQ(held.source, ODS_SOURCE_OFFLINE);
    ODS_CHECK_INT_EQ(held.entity_count, 3);
    ODS_CHECK_INT_EQ(source_of(store, ODS_READ, "Customers?$top=1", NULL), ODS_SOURCE_OFFLINE);
    ODS_CHECK_INT_EQ(source_of(store, ODS_UPDATE, "Products(8)", "{\"Name\":\"Offline eight\"}"), ODS_SOURCE_OFFLINE);
    ODS_CHECK_OK(ods_store_pending_count(&pending, store));
    ODS_CHECK_INT_EQ(pending, 2);
    ODS_CHECK_INT_EQ(error_of(store, ODS_READ, "OrderLines", NULL, ODS_ROUTE_AUTO), ODS_EOFFLINE);
    ODS_CHECK_INT_EQ(error_of(store, ODS_READ, "Products?$expand=Category", NULL, ODS_ROUTE_AUTO), ODS_EOFFLINE);
    ODS_CHECK_INT_EQ(error_of(store, ODS_FUNCTION, "TotalStock", NULL, ODS_ROUTE_AUTO), ODS_EOFFLINE);
    ODS_CHECK_INT_EQ(error_of(store, ODS_READ, "Products(1)", NULL, ODS_ROUTE_ONLINE), ODS_EOFFLINE);
    ods_store_close(store);
    unlink(store_path);
    printf("test_mixed: ok\n");
    return 0;
}
