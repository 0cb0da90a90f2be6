/* test_offline.c - the offline store through the public header: defining requests
 * downloaded from the real V2 service (pyslet) with progress, store info, local reads
 * (ods_response_is_local), scope and unsupported requests, reopening with the service
 * stopped (queue dispatch), and a download cancelled mid-way through the fault proxy and
 * resumed by the next open. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static const char *definitions[] = {"Products?$expand=Category", "Customers", NULL};
static const char *const *current_definitions;

/* --- opening and progress ------------------------------------------------------------- */

typedef struct opening {
    ods_test_waiter opened;      /* signalled on OPEN or FAILED */
    ods_test_waiter progressed;  /* signalled on each progress report */
    int state;
    int error_code;
    int reports;
    int finished_reports;
    int64_t last_entities;
    int64_t last_expected;
    int64_t last_total;
    int bad_store_handle;
    ods_store *store;
} opening;

static void on_state(ods_store *store, int state, const ods_error *error, void *context) {
    opening *o = context;
    (void)store;
    if (state == ODS_STORE_OPEN || state == ODS_STORE_FAILED) {
        o->state = state;
        o->error_code = error ? error->code : 0;
        ods_test_waiter_signal(&o->opened, NULL);
    }
}

static void on_progress(ods_store *store, const ods_download_progress *p, void *context) {
    opening *o = context;
    if (store == NULL || p == NULL || p->version < 1 || p->defining_request == NULL) o->bad_store_handle = 1;
    o->reports++;
    if (p->request_finished) o->finished_reports++;
    if (current_definitions && current_definitions[0] && strcmp(p->defining_request, current_definitions[0]) == 0) {
        o->last_entities = p->entities;
        o->last_expected = p->expected_entities;
    }
    o->last_total = p->total_entities;
    ods_test_waiter_signal(&o->progressed, NULL);
}

static char store_path[512];

/* Starts opening an offline store on `url`; returns at once (wait on o->opened). */
static void start_open(opening *o, const char *url, int dispatch, const char *const *defs) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    memset(o, 0, sizeof *o);
    ods_test_waiter_init(&o->opened);
    ods_test_waiter_init(&o->progressed);
    options.kind = ODS_STORE_OFFLINE;
    options.service_root = url;
    options.dispatch = dispatch;
    options.store_path = store_path;
    options.defining_requests = defs;
    options.download_progress = on_progress;
    options.download_progress_context = o;
    options.download_page_size = 50;
    current_definitions = defs;
    ODS_CHECK_OK(ods_store_open(&o->store, &options, on_state, o));
}

static ods_store *open_offline(opening *o, const char *url, int dispatch, const char *const *defs) {
    start_open(o, url, dispatch, defs);
    ods_test_wait(o->store, &o->opened, 1, 120000);
    if (o->state != ODS_STORE_OPEN)
        ods_test_fail(__FILE__, __LINE__, "offline store did not open: %s", ods_strerror(o->error_code));
    return o->store;
}

static void close_opening(opening *o) {
    ODS_CHECK_OK(ods_store_close(o->store));
    ods_test_waiter_destroy(&o->opened);
    ods_test_waiter_destroy(&o->progressed);
}

/* --- local reads ---------------------------------------------------------------------- */

typedef struct local_result {
    ods_test_waiter waiter;
    int error_code;
    int http_status;
    int is_local;
    char *json;
} local_result;

static void on_local(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    local_result *r = context;
    (void)request;
    r->error_code = error ? error->code : 0;
    r->http_status = error ? error->http_status : ods_response_status(response);
    r->is_local = response ? ods_response_is_local(response) : -1;
    r->json = response ? ods_test_strdup(ods_response_json(response, NULL)) : NULL;
    ods_test_waiter_signal(&r->waiter, NULL);
}

static void read_local(local_result *r, ods_store *store, int mode, const char *path, const char *body) {
    memset(r, 0, sizeof *r);
    ods_test_waiter_init(&r->waiter);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, mode, path, body, on_local, r));
    ods_test_wait(store, &r->waiter, 1, 60000);
    ods_test_waiter_destroy(&r->waiter);
}

static void expect_local(ods_store *store, const char *path, const char *fragment) {
    local_result r;
    read_local(&r, store, ODS_READ, path, NULL);
    if (r.error_code != 0) ods_test_fail(__FILE__, __LINE__, "%s failed: %s", path, ods_strerror(r.error_code));
    ODS_CHECK_INT_EQ(r.is_local, 1);
    ODS_CHECK_INT_EQ(r.http_status, 200);
    if (!r.json || !strstr(r.json, fragment)) ods_test_fail(__FILE__, __LINE__, "%s gave %s, no %s", path, r.json, fragment);
    free(r.json);
}

static void expect_failure(ods_store *store, int mode, const char *path, const char *body, int code) {
    local_result r;
    read_local(&r, store, mode, path, body);
    if (r.error_code != code)
        ods_test_fail(__FILE__, __LINE__, "%s: %s, expected %s", path, ods_strerror(r.error_code), ods_strerror(code));
    free(r.json);
}

static void check_reads(ods_store *store) {
    expect_local(store, "Products(7)", "\"Name\":\"Product 007\"");
    expect_local(store, "Products(50)", "\"Stock\":\"9007199254741043\""); /* Int64 exact */
    expect_local(store, "Products(1)/Category", "\"Name\":\"Beverages\"");
    expect_local(store, "Products/$count", "{\"value\":300}");
    expect_local(store, "Products?$top=2&$skip=10", "\"Name\":\"Product 012\"");
    expect_local(store, "Customers('O''NEIL')", "\"CompanyName\":\"Company O'NEIL\"");
    expect_local(store, "Products(3)?$select=Description", "Gr\xC3\xB6\xC3\x9F" "e 3");
    expect_failure(store, ODS_READ, "Products(999)", NULL, ODS_ENOTFOUND);
    expect_failure(store, ODS_READ, "OrderLines", NULL, ODS_ENOTINSCOPE);
    expect_failure(store, ODS_FUNCTION, "TotalStock", NULL, ODS_EUNSUPPORTED);
    /* Local writes are refused as the service would refuse them (test_upload.c has the rest). */
    expect_failure(store, ODS_CREATE, "Customers", "{\"CustomerID\":\"O'NEIL\",\"CompanyName\":\"x\"}", ODS_ECONFLICT);
    expect_failure(store, ODS_CREATE, "OrderLines", "{\"OrderID\":1,\"LineNo\":1}", ODS_ENOTINSCOPE);
}

static void check_info(ods_store *store) {
    ods_offline_info info = ODS_OFFLINE_INFO_INIT;
    ods_defining_request_info d = ODS_DEFINING_REQUEST_INFO_INIT;
    ods_defining_request_info bad = ODS_DEFINING_REQUEST_INFO_INIT;
    ODS_CHECK_OK(ods_store_offline_info(&info, store));
    ODS_CHECK_INT_EQ(info.defining_request_count, 2);
    ODS_CHECK(info.size_bytes > 0);
    ODS_CHECK(info.last_download > 1700000000);
    ODS_CHECK_OK(ods_store_defining_request(&d, store, 0));
    ODS_CHECK_STR_EQ(d.path, definitions[0]);
    ODS_CHECK_STR_EQ(d.entity_set, "Products");
    ODS_CHECK_INT_EQ(d.complete, 1);
    ODS_CHECK_INT_EQ(d.entities, 300);
    ODS_CHECK_INT_EQ(d.expected_entities, 300);
    ODS_CHECK(d.bytes > 0 && d.last_download > 0);
    ODS_CHECK_OK(ods_store_defining_request(&d, store, 1));
    ODS_CHECK_STR_EQ(d.path, "Customers");
    ODS_CHECK_INT_EQ(d.entities, 20);
    ODS_CHECK_INT_EQ(ods_store_defining_request(&d, store, 2), ODS_EINVAL);
    bad.version = 0;
    ODS_CHECK_INT_EQ(ods_store_defining_request(&bad, store, 0), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_offline_info(NULL, store), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_offline_info(&info, NULL), ODS_EINVAL);
    /* No download runs on an open, complete store. */
    ODS_CHECK_INT_EQ(ods_store_cancel_download(store), ODS_ESTATE);
    ODS_CHECK_INT_EQ(ods_store_cancel_download(NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_response_is_local(NULL), ODS_EINVAL);
}

static void check_online_store_refuses(const char *url) {
    ods_store *online = ods_test_open(url, ODS_DISPATCH_THREAD);
    ods_offline_info info = ODS_OFFLINE_INFO_INIT;
    local_result r;
    ODS_CHECK_INT_EQ(ods_store_cancel_download(online), ODS_EUNSUPPORTED);
    ODS_CHECK_INT_EQ(ods_store_offline_info(&info, online), ODS_EUNSUPPORTED);
    read_local(&r, online, ODS_READ, "Products(7)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK_INT_EQ(r.is_local, 0);
    free(r.json);
    ODS_CHECK_OK(ods_store_close(online));
}

/* A download stopped with ods_store_cancel_download is resumed by the next open. */
static void check_cancel_and_resume(const char *v2_url) {
    ods_test_server *proxy = NULL;
    opening o;
    static const char *products[] = {"Products", NULL};
    ods_defining_request_info d = ODS_DEFINING_REQUEST_INFO_INIT;
    snprintf(store_path, sizeof store_path, "/tmp/ods-test-offline-cancel-%ld.store", (long)getpid());
    unlink(store_path);
    if (ods_test_proxy_start(&proxy, v2_url, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    /* The second page waits 30 s at the proxy: the download is surely in flight when cancelled. */
    ODS_CHECK_OK(ods_test_proxy_add_fault_json(proxy, "{\"mode\":\"slow\",\"delay_ms\":30000,\"match\":\"skiptoken\",\"count\":1}"));
    start_open(&o, ods_test_server_url(proxy), ODS_DISPATCH_THREAD, products);
    ods_test_wait(o.store, &o.progressed, 1, 60000);   /* the first page is written */
    ODS_CHECK_OK(ods_store_cancel_download(o.store));
    ods_test_wait(o.store, &o.opened, 1, 60000);
    ODS_CHECK_INT_EQ(o.state, ODS_STORE_FAILED);
    ODS_CHECK_INT_EQ(o.error_code, ODS_ECANCELLED);
    ODS_CHECK_INT_EQ(o.last_entities, 100);             /* pyslet's first page */
    {
        /* The open failed: the file queries say so (ODS_ESTATE, as before the file was
         * open) rather than answer from a file the failed store closed. */
        ods_offline_info info = ODS_OFFLINE_INFO_INIT;
        int64_t pending = -1;
        ODS_CHECK_INT_EQ(ods_store_offline_info(&info, o.store), ODS_ESTATE);
        ODS_CHECK_INT_EQ(ods_store_defining_request(&d, o.store, 0), ODS_ESTATE);
        ODS_CHECK_INT_EQ(ods_store_pending_count(&pending, o.store), ODS_ESTATE);
    }
    close_opening(&o);

    /* Reopen: the download resumes after the first page and completes. */
    ODS_CHECK_OK(ods_test_proxy_clear_faults(proxy));
    open_offline(&o, ods_test_server_url(proxy), ODS_DISPATCH_THREAD, products);
    ODS_CHECK_INT_EQ(o.last_entities, 300);
    ODS_CHECK_OK(ods_store_defining_request(&d, o.store, 0));
    ODS_CHECK_INT_EQ(d.entities, 300);
    ODS_CHECK_INT_EQ(d.complete, 1);
    expect_local(o.store, "Products(300)", "\"Name\":\"Product 300\"");
    close_opening(&o);
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    unlink(store_path);
}

/* Two stores opened at once on one new file: both open (the one that finds the file being
 * made by the other opens it as the existing store it becomes; one used to fail with "table
 * ods_store already exists", or "a SQLite database of another application"). */
static void check_two_stores_create_one_file(const char *url) {
    static const char *customers[] = {"Customers", NULL};
    char wal[600], shm[600];
    snprintf(store_path, sizeof store_path, "/tmp/ods-test-offline-twice-%ld.store", (long)getpid());
    snprintf(wal, sizeof wal, "%s-wal", store_path);
    snprintf(shm, sizeof shm, "%s-shm", store_path);
    for (int round = 0; round < 5; round++) {
        opening a, b;
        unlink(store_path), unlink(wal), unlink(shm);
        start_open(&a, url, ODS_DISPATCH_THREAD, customers);
        start_open(&b, url, ODS_DISPATCH_THREAD, customers);
        ods_test_wait(a.store, &a.opened, 1, 120000);
        ods_test_wait(b.store, &b.opened, 1, 120000);
        ODS_CHECK_INT_EQ(a.state, ODS_STORE_OPEN);
        ODS_CHECK_INT_EQ(b.state, ODS_STORE_OPEN);
        expect_local(a.store, "Customers('ALFKI')", "\"CustomerID\":\"ALFKI\"");
        expect_local(b.store, "Customers('ALFKI')", "\"CustomerID\":\"ALFKI\"");
        close_opening(&a);
        close_opening(&b);
    }
    unlink(store_path), unlink(wal), unlink(shm);
}

int main(void) {
    ods_test_server *server = NULL;
    opening o;
    if (ods_test_server_start_v2(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V2 server");
    snprintf(store_path, sizeof store_path, "/tmp/ods-test-offline-%ld.store", (long)getpid());
    unlink(store_path);

    open_offline(&o, ods_test_server_url(server), ODS_DISPATCH_THREAD, definitions);
    ODS_CHECK_INT_EQ(o.bad_store_handle, 0);
    ODS_CHECK(o.reports >= 4);                  /* 3 pages of products, 1 of customers */
    ODS_CHECK_INT_EQ(o.finished_reports, 2);
    ODS_CHECK_INT_EQ(o.last_entities, 300);
    ODS_CHECK_INT_EQ(o.last_expected, 300);
    ODS_CHECK_INT_EQ(o.last_total, 320);
    ODS_CHECK_INT_EQ(ods_store_odata_version(o.store), 2);
    check_info(o.store);
    check_reads(o.store);
    close_opening(&o);
    check_online_store_refuses(ods_test_server_url(server));
    check_cancel_and_resume(ods_test_server_url(server));
    check_two_stores_create_one_file(ods_test_server_url(server));

    /* Reopen the first store with the service stopped, in queue mode: all from the file. */
    snprintf(store_path, sizeof store_path, "/tmp/ods-test-offline-%ld.store", (long)getpid());
    {
        char url[256];
        snprintf(url, sizeof url, "%s", ods_test_server_url(server));
        ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
        /* No service_root: the file knows its service. */
        open_offline(&o, NULL, ODS_DISPATCH_QUEUE, NULL);
        ODS_CHECK_INT_EQ(o.reports, 0);
        ODS_CHECK_INT_EQ(ods_store_cancel_download(o.store), ODS_ESTATE); /* nothing to download */
        check_reads(o.store);
        close_opening(&o);
        open_offline(&o, url, ODS_DISPATCH_THREAD, NULL);
        close_opening(&o);
    }
    unlink(store_path);
    printf("offline: ok\n");
    return 0;
}
