/* test_download.c - downloading into an open offline store and changing its defining
 * requests through the public header, against the real services:
 *
 *   V4 (odatapy, thread dispatch): a change, a delete and a create made on the service after
 *   the store was opened, brought down by ods_store_download (a delta: odatapy gives delta
 *   links) with progress reports; a local change that stays on top of the fresh data; a
 *   defining request added (in scope at once, empty), downloaded alone by path, removed
 *   (out of scope again, its entities gone from the file).
 *   V4 through the fault proxy: a download held at the proxy (a second one and an upload
 *   refused with ODS_ESTATE, removing a defining request too), cancelled (ODS_ECANCELLED),
 *   resumed; one running when the store is closed (its completion comes before
 *   ods_store_close returns).
 *   V2 (pyslet, queue dispatch): a full download (no delta) that brings a change and drops an
 *   entity deleted on the service.
 *   Hostile callers: NULL arguments and an empty path list (ODS_EINVAL), an online store
 *   (ODS_EUNSUPPORTED), a path that is not a defining request (the completion says
 *   ODS_ENOTFOUND), a bad defining request (ODS_ESYNTAX / ODS_EINVAL, nothing added),
 *   removing an unknown one (ODS_ENOTFOUND) or the last one (ODS_EINVAL).
 */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

#define BOUND_MS 60000

/* --- opening offline stores ----------------------------------------------------------- */

static char store_path[512];
static const char *const *open_definitions;

static void configure_offline(ods_store_options *o) {
    o->kind = ODS_STORE_OFFLINE;
    o->store_path = store_path;
    o->defining_requests = open_definitions;
}

static void set_store_path(const char *name) {
    char path[560];
    snprintf(store_path, sizeof store_path, "/tmp/ods-test-download-%s-%ld.store", name, (long)getpid());
    unlink(store_path);
    snprintf(path, sizeof path, "%s-wal", store_path);
    unlink(path);
    snprintf(path, sizeof path, "%s-shm", store_path);
    unlink(path);
}

static ods_store *open_offline(const char *url, int dispatch, const char *name, const char *const *defs) {
    set_store_path(name);
    open_definitions = defs;
    return ods_test_open_with(url, dispatch, configure_offline);
}

/* --- requests ------------------------------------------------------------------------- */

static ods_response *execute_ok(ods_store *store, int mode, const char *path, const char *body) {
    ods_response *r = NULL;
    int rc = ods_store_execute(&r, store, mode, path, body, BOUND_MS);
    if (rc != ODS_OK)
        ods_test_fail(__FILE__, __LINE__, "%s: %s: %s", path, ods_strerror(rc), ods_error_last()->message);
    return r;
}

static int execute_status(ods_store *store, int mode, const char *path, const char *body) {
    ods_response *r = NULL;
    int rc = ods_store_execute(&r, store, mode, path, body, BOUND_MS);
    ods_response_free(r);
    return rc;
}

/* A change on the service, If-Match: * (someone else changing it). */
static void on_service(ods_store *online, int mode, const char *path, const char *body) {
    ods_test_result r;
    ods_request *req = NULL;
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, online, mode, path, body));
    if (mode != ODS_CREATE) ODS_CHECK_OK(ods_request_set_etag(req, "*"));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_wait(online, &r.waiter, 1, BOUND_MS);
    if (r.error_code != 0) ods_test_fail(__FILE__, __LINE__, "%s on the service: %s", path, r.error_message);
    ods_request_free(req);
    ods_test_result_free(&r);
}

static void expect_string(ods_store *store, const char *path, const char *name, const char *expected) {
    ods_response *r = execute_ok(store, ODS_READ, path, NULL);
    const char *value = NULL;
    ODS_CHECK_OK(ods_entity_get_string(&value, ods_response_entity(r, 0), name));
    if (strcmp(value, expected) != 0)
        ods_test_fail(__FILE__, __LINE__, "%s: %s is \"%s\", expected \"%s\"", path, name, value, expected);
    ods_response_free(r);
}

static size_t count_of(ods_store *store, const char *path) {
    ods_response *r = execute_ok(store, ODS_READ, path, NULL);
    size_t n = ods_response_entity_count(r);
    ods_response_free(r);
    return n;
}

static size_t defining_request_count(ods_store *store) {
    ods_offline_info info = ODS_OFFLINE_INFO_INIT;
    ODS_CHECK_OK(ods_store_offline_info(&info, store));
    return info.defining_request_count;
}

/* --- download callbacks --------------------------------------------------------------- */

#define MAX_PATHS 8

typedef struct download_run {
    ods_test_waiter done;
    ods_store *expected_store;
    int reports;
    int finished_reports;             /* reports with request_finished */
    char finished[MAX_PATHS][64];     /* the defining requests reported finished, in order */
    int64_t last_total_entities;
    int bad_callback;                 /* a wrong store, a NULL or unversioned struct, a report after the end */
    int completions;
    int status;
    int error_code;
    char *error_message;
} download_run;

static void download_run_init(download_run *d, ods_store *store) {
    memset(d, 0, sizeof *d);
    ods_test_waiter_init(&d->done);
    d->expected_store = store;
    d->status = 1;
}

static void download_run_free(download_run *d) {
    free(d->error_message);
    ods_test_waiter_destroy(&d->done);
}

static void on_download_progress(ods_store *store, const ods_download_progress *p, void *context) {
    download_run *d = context;
    if (store != d->expected_store || p == NULL || p->version < 1 || p->defining_request == NULL || d->completions != 0 ||
        p->request_index >= p->request_count || p->total_entities < d->last_total_entities) {
        d->bad_callback = 1;
        return;
    }
    d->reports++;
    d->last_total_entities = p->total_entities;
    if (p->request_finished && d->finished_reports < MAX_PATHS) {
        snprintf(d->finished[d->finished_reports], sizeof d->finished[0], "%s", p->defining_request);
        d->finished_reports++;
    }
}

static void on_download_done(ods_store *store, int status, const ods_error *error, void *context) {
    download_run *d = context;
    if (store != d->expected_store) d->bad_callback = 1;
    if ((status == ODS_OK) != (error == NULL) || (error && error->code != status)) d->bad_callback = 1;
    d->completions++;
    d->status = status;
    d->error_code = error ? error->code : 0;
    d->error_message = error ? ods_test_strdup(error->message) : NULL;
    ods_test_waiter_signal(&d->done, "download");
}

static int never_called;
static void on_download_never(ods_store *store, int status, const ods_error *error, void *context) {
    (void)store, (void)status, (void)error, (void)context;
    never_called++;
}
static void on_upload_never(ods_store *store, int status, const ods_upload_result *result, const ods_error *error,
                            void *context) {
    (void)store, (void)status, (void)result, (void)error, (void)context;
    never_called++;
}

/* Downloads `paths` (NULL: all) and waits; checks the callbacks' contract. */
static void download(download_run *d, ods_store *store, const char *const *paths) {
    download_run_init(d, store);
    ODS_CHECK_OK(ods_store_download(store, paths, on_download_progress, on_download_done, d));
    ods_test_wait(store, &d->done, 1, BOUND_MS);
    ODS_CHECK_INT_EQ(d->completions, 1);
    ODS_CHECK_INT_EQ(d->bad_callback, 0);
}

/* ------------------------------------------------------------------------------------- */
/* V4 (odatapy): delta download, local changes on top, add / remove defining requests      */
/* ------------------------------------------------------------------------------------- */

static const char *v4_definitions[] = {"Products", "Categories", NULL};

static void check_v4(const char *url) {
    ods_store *online = ods_test_open(url, ODS_DISPATCH_THREAD);
    ods_store *store = open_offline(url, ODS_DISPATCH_THREAD, "v4", v4_definitions);
    const char *customers[] = {"Customers", NULL};
    const char *empty[] = {NULL};
    download_run d;
    size_t products = count_of(store, "Products");

    /* Hostile callers first: nothing starts, no callback comes. */
    ODS_CHECK_INT_EQ(ods_store_download(NULL, NULL, NULL, on_download_never, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_download(store, empty, NULL, on_download_never, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_download(online, NULL, NULL, on_download_never, NULL), ODS_EUNSUPPORTED);
    ODS_CHECK_INT_EQ(ods_store_add_defining_request(NULL, "Customers"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_add_defining_request(store, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_add_defining_request(online, "Customers"), ODS_EUNSUPPORTED);
    ODS_CHECK_INT_EQ(ods_store_remove_defining_request(NULL, "Products"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_remove_defining_request(store, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_remove_defining_request(online, "Products"), ODS_EUNSUPPORTED);
    ODS_CHECK_INT_EQ(ods_store_remove_defining_request(store, "Customers"), ODS_ENOTFOUND);
    ODS_CHECK(strstr(ods_error_last()->message, "Customers") != NULL);
    {
        /* Bad defining requests are refused as at open, with nothing added. */
        int rc = ods_store_add_defining_request(store, "Nowhere");
        ODS_CHECK(rc == ODS_EINVAL || rc == ODS_ESYNTAX || rc == ODS_ENOTFOUND);
        rc = ods_store_add_defining_request(store, "Products?$filter=Name eq");
        ODS_CHECK(rc == ODS_ESYNTAX || rc == ODS_EINVAL);
        ODS_CHECK_INT_EQ(defining_request_count(store), 2);
    }
    /* A path that is not a defining request: the download fails through its completion. */
    download(&d, store, customers);  /* a set of the service, not added yet */
    if (d.status != ODS_ENOTFOUND)
        ods_test_fail(__FILE__, __LINE__, "download of a path that is no defining request: %d %s", d.status,
                      d.error_message ? d.error_message : "");
    ODS_CHECK(d.error_message != NULL && strstr(d.error_message, "Customers") != NULL);
    download_run_free(&d);

    /* A local change, then changes on the service. */
    ods_response_free(execute_ok(store, ODS_UPDATE, "Products(7)", "{\"Name\":\"Seven offline\"}"));
    on_service(online, ODS_UPDATE, "Products(7)", "{\"Name\":\"Seven online\"}");
    on_service(online, ODS_UPDATE, "Products(8)", "{\"Name\":\"Eight online\"}");
    on_service(online, ODS_UPDATE, "Categories(2)", "{\"Name\":\"Two online\"}");
    on_service(online, ODS_DELETE, "Products(9)", NULL);
    
    download(&d, store, NULL);
    if (d.status != ODS_OK) ods_test_fail(__FILE__, __LINE__, "download: %s", d.error_message);
    ODS_CHECK(d.reports >= 2);
    ODS_CHECK_INT_EQ(d.finished_reports, 2);
    ODS_CHECK_STR_EQ(d.finished[0], "Products");
    ODS_CHECK_STR_EQ(d.finished[1], "Categories");
    download_run_free(&d);
    expect_string(store, "Products(8)", "Name", "Eight online");
    expect_string(store, "Categories(2)", "Name", "Two online");
    ODS_CHECK_INT_EQ(execute_status(store, ODS_READ, "Products(9)", NULL), ODS_ENOTFOUND);
    ODS_CHECK_INT_EQ((long long)count_of(store, "Products"), (long long)(products - 1));
    /* The local change stays on top until uploaded. */
    expect_string(store, "Products(7)", "Name", "Seven offline");

    /* Add a defining request: in scope at once, empty until its download. */
    ODS_CHECK_INT_EQ(execute_status(store, ODS_READ, "Customers", NULL), ODS_ENOTINSCOPE);
    ODS_CHECK_OK(ods_store_add_defining_request(store, "Customers"));
    ODS_CHECK_OK(ods_store_add_defining_request(store, "Customers"));  /* again: no error */
    ODS_CHECK_INT_EQ(defining_request_count(store), 3);
    ODS_CHECK_INT_EQ((long long)count_of(store, "Customers"), 0);
    download(&d, store, customers);
    if (d.status != ODS_OK) ods_test_fail(__FILE__, __LINE__, "download: %s", d.error_message);
    ODS_CHECK_INT_EQ(d.finished_reports, 1);
    ODS_CHECK_STR_EQ(d.finished[0], "Customers");
    download_run_free(&d);
    ODS_CHECK(count_of(store, "Customers") > 0);
    expect_string(store, "Customers('ALFKI')", "CustomerID", "ALFKI");

    /* Remove it: out of scope again. */
    ODS_CHECK_OK(ods_store_remove_defining_request(store, "Customers"));
    ODS_CHECK_INT_EQ(defining_request_count(store), 2);
    ODS_CHECK_INT_EQ(execute_status(store, ODS_READ, "Customers", NULL), ODS_ENOTINSCOPE);
    ODS_CHECK_INT_EQ(ods_store_remove_defining_request(store, "Customers"), ODS_ENOTFOUND);
    ODS_CHECK_OK(ods_store_remove_defining_request(store, "Categories"));
    /* The last one stays. */
    ODS_CHECK_INT_EQ(ods_store_remove_defining_request(store, "Products"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(defining_request_count(store), 1);
    ODS_CHECK_INT_EQ(execute_status(store, ODS_READ, "Categories(2)", NULL), ODS_ENOTINSCOPE);
    ODS_CHECK_OK(ods_store_close(store));

    /* Reopened from the file: the set of defining requests is what it was changed to. */
    {
        static const char *only_products[] = {"Products", NULL};
        open_definitions = only_products;
        store = ods_test_open_with(url, ODS_DISPATCH_THREAD, configure_offline);
        ODS_CHECK_INT_EQ(defining_request_count(store), 1);
        expect_string(store, "Products(7)", "Name", "Seven offline");
        ODS_CHECK_OK(ods_store_close(store));
    }
    ODS_CHECK_OK(ods_store_close(online));
    set_store_path("v4");
}

/* ------------------------------------------------------------------------------------- */
/* V4 through the fault proxy: held, refused while running, cancelled, closed              */
/* ------------------------------------------------------------------------------------- */

static const char *proxy_definitions[] = {"Products", "Customers", NULL};

static void check_held_cancelled_closed(const char *v4_url) {
    ods_test_server *proxy = NULL;
    ods_store *store;
    const char *customers[] = {"Customers", NULL};
    download_run d, second, closing;

    if (ods_test_proxy_start(&proxy, v4_url, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    store = open_offline(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, "proxy", proxy_definitions);

    /* Held at the proxy: the download runs until cancelled. */
    ODS_CHECK_OK(ods_test_proxy_add_fault(proxy, "mode=hang&match=Products&count=1"));
    download_run_init(&d, store);
    ODS_CHECK_OK(ods_store_download(store, NULL, on_download_progress, on_download_done, &d));
    download_run_init(&second, store);
    ODS_CHECK_INT_EQ(ods_store_download(store, NULL, on_download_progress, on_download_never, &second), ODS_ESTATE);
    ODS_CHECK_INT_EQ(ods_store_upload(store, NULL, on_upload_never, NULL), ODS_ESTATE);
    ODS_CHECK_INT_EQ(ods_store_remove_defining_request(store, "Customers"), ODS_ESTATE);
    /* Reads go on meanwhile. */
    ODS_CHECK(count_of(store, "Customers") > 0);
    ODS_CHECK_OK(ods_store_cancel_download(store));
    ods_test_wait(store, &d.done, 1, BOUND_MS);
    ODS_CHECK_INT_EQ(d.completions, 1);
    ODS_CHECK_INT_EQ(d.bad_callback, 0);
    ODS_CHECK_INT_EQ(d.status, ODS_ECANCELLED);
    ODS_CHECK_INT_EQ(d.error_code, ODS_ECANCELLED);
    download_run_free(&d);
    download_run_free(&second);
    ODS_CHECK_INT_EQ(ods_store_cancel_download(store), ODS_ESTATE);
    ODS_CHECK(count_of(store, "Products") > 0);  /* nothing lost */

    /* The next one goes through. */
    ODS_CHECK_OK(ods_test_proxy_clear_faults(proxy));
    download(&d, store, NULL);
    if (d.status != ODS_OK) ods_test_fail(__FILE__, __LINE__, "download: %s", d.error_message);
    ODS_CHECK_INT_EQ(d.finished_reports, 2);
    download_run_free(&d);

    /* Closing the store while a download is held: its completion comes before close returns. */
    ODS_CHECK_OK(ods_test_proxy_add_fault(proxy, "mode=hang&match=Customers&count=1"));
    download_run_init(&closing, store);
    ODS_CHECK_OK(ods_store_download(store, customers, on_download_progress, on_download_done, &closing));
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(closing.completions, 1);
    ODS_CHECK_INT_EQ(closing.bad_callback, 0);
    ODS_CHECK_INT_EQ(closing.status, ODS_ECANCELLED);
    download_run_free(&closing);

    /* Reopened: everything is there; the interrupted download resumes on the next one. */
    ODS_CHECK_OK(ods_test_proxy_clear_faults(proxy));
    open_definitions = proxy_definitions;
    store = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, configure_offline);
    ODS_CHECK(count_of(store, "Customers") > 0);
    download(&d, store, NULL);
    if (d.status != ODS_OK) ods_test_fail(__FILE__, __LINE__, "download: %s", d.error_message);
    download_run_free(&d);
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    set_store_path("proxy");
}

/* ------------------------------------------------------------------------------------- */
/* V2 (pyslet), queue dispatch: a full download                                            */
/* ------------------------------------------------------------------------------------- */

static const char *v2_definitions[] = {"Products", NULL};

static void check_v2(const char *url) {
    ods_store *online = ods_test_open(url, ODS_DISPATCH_THREAD);
    ods_store *store = open_offline(url, ODS_DISPATCH_QUEUE, "v2", v2_definitions);
    size_t products = count_of(store, "Products");
    download_run d;

    ODS_CHECK_INT_EQ(ods_store_odata_version(store), 2);
    on_service(online, ODS_UPDATE, "Products(3)", "{\"Name\":\"Three online\"}");
    on_service(online, ODS_DELETE, "Products(4)", NULL);
    /* In queue mode the callbacks come through ods_store_dispatch (ods_test_wait). */
    download(&d, store, NULL);
    if (d.status != ODS_OK) ods_test_fail(__FILE__, __LINE__, "download: %s", d.error_message);
    ODS_CHECK_INT_EQ(d.finished_reports, 1);
    ODS_CHECK_INT_EQ(d.last_total_entities, (long long)(products - 1));
    download_run_free(&d);
    expect_string(store, "Products(3)", "Name", "Three online");
    ODS_CHECK_INT_EQ(execute_status(store, ODS_READ, "Products(4)", NULL), ODS_ENOTFOUND);
    ODS_CHECK_INT_EQ((long long)count_of(store, "Products"), (long long)(products - 1));
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_OK(ods_store_close(online));
    set_store_path("v2");
}

int main(void) {
    ods_test_server *v4 = NULL, *v2 = NULL;
    if (ods_test_server_start_v4(&v4, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    check_v4(ods_test_server_url(v4));
    check_held_cancelled_closed(ods_test_server_url(v4));
    ODS_CHECK_INT_EQ(ods_test_server_stop(v4), 0);

    if (ods_test_server_start_v2(&v2, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V2 server");
    check_v2(ods_test_server_url(v2));
    ODS_CHECK_INT_EQ(ods_test_server_stop(v2), 0);

    ODS_CHECK_INT_EQ(never_called, 0);
    printf("download: ok\n");
    return 0;
}
