/* test_store.c - the store's life cycle through the public header: state callbacks in order,
 * requests held until open, an unreachable service, a local $metadata file, ods_store_fd and
 * ods_store_dispatch refused in thread mode, and close reporting closing/closed. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

typedef struct states {
    ods_test_waiter waiter;
    ods_store *store_seen;
    int failed_code;
    int opening_state; /* ods_store_get_state called from the OPENING callback */
    void *opening_context;
} states;

static void on_state(ods_store *store, int state, const ods_error *error, void *context) {
    states *s = context;
    static const char *names[] = {"?", "opening", "open", "closing", "closed", "failed"};
    s->store_seen = store;
    if (state == ODS_STORE_OPENING) {
        /* The handle is usable from the first callback, which may come before ods_store_open
         * has returned (it used to be "not a live handle" until then). */
        s->opening_state = ods_store_get_state(store);
        s->opening_context = ods_store_context(store);
    }
    if (state == ODS_STORE_FAILED) {
        ODS_CHECK(error != NULL);
        s->failed_code = error->code;
    } else {
        ODS_CHECK(error == NULL);
    }
    ods_test_waiter_signal(&s->waiter, state >= 1 && state <= 5 ? names[state] : "?");
}

static void check_life_cycle(const char *url) {
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    states s;
    ods_test_result r;
    char log[256];
    int marker = 0;

    memset(&s, 0, sizeof s);
    ods_test_waiter_init(&s.waiter);
    o.service_root = url;
    ODS_CHECK_OK(ods_store_open(&store, &o, on_state, &s));
    ODS_CHECK(ods_store_context(store) == &s);
    /* Started before the store is open: held, then run. */
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Categories(1)", NULL, ods_test_on_complete, &r));
    ods_test_wait(store, &r.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK(strstr(r.json, "\"ID\":1") != NULL);
    ods_test_result_free(&r);
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&s.waiter, 2, 10000), 0);
    ODS_CHECK_INT_EQ(ods_store_get_state(store), ODS_STORE_OPEN);
    ODS_CHECK(s.store_seen == store);
    ODS_CHECK(s.opening_state == ODS_STORE_OPENING || s.opening_state == ODS_STORE_OPEN);
    ODS_CHECK(s.opening_context == &s);

    ODS_CHECK_INT_EQ(ods_store_fd(store), ODS_ESTATE);
    ODS_CHECK_INT_EQ(ods_store_dispatch(store, 0), ODS_ESTATE);
    (void)marker;

    ODS_CHECK_OK(ods_store_close(store));
    /* Close reported closing and closed before it returned. */
    ods_test_waiter_log(&s.waiter, log, sizeof log);
    ODS_CHECK_STR_EQ(log, "opening,open,closing,closed");
    ods_test_waiter_destroy(&s.waiter);
}

static void check_unreachable(void) {
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    states s;
    ods_test_result r;
    char log[256];

    memset(&s, 0, sizeof s);
    ods_test_waiter_init(&s.waiter);
    o.service_root = "http://127.0.0.1:9/odata/"; /* discard port: nothing listens */
    o.connect_timeout_ms = 2000;
    ODS_CHECK_OK(ods_store_open(&store, &o, on_state, &s));
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products", NULL, ods_test_on_complete, &r));
    ods_test_wait(store, &r.waiter, 1, 30000);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EOFFLINE); /* the held request fails with the open error */
    ODS_CHECK(strstr(r.error_message, "$metadata") != NULL);
    ods_test_result_free(&r);
    ODS_CHECK_INT_EQ(ods_test_waiter_wait(&s.waiter, 2, 10000), 0);
    ODS_CHECK_INT_EQ(ods_store_get_state(store), ODS_STORE_FAILED);
    ODS_CHECK_INT_EQ(s.failed_code, ODS_EOFFLINE);

    /* A request started on a failed store still gets its one terminal callback. */
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products", NULL, ods_test_on_complete, &r));
    ods_test_wait(store, &r.waiter, 1, 30000);
    ODS_CHECK_INT_EQ(r.error_code, ODS_EOFFLINE);
    ODS_CHECK_INT_EQ(r.completions, 1);
    ods_test_result_free(&r);

    ODS_CHECK_OK(ods_store_close(store));
    ods_test_waiter_log(&s.waiter, log, sizeof log);
    ODS_CHECK_STR_EQ(log, "opening,failed,closing,closed");
    ods_test_waiter_destroy(&s.waiter);
}

static char metadata_file[512];

static void use_local_metadata(ods_store_options *o) {
    o->metadata_path = metadata_file;
    o->odata_version = 2;
}

static void check_local_metadata(const char *v2_url) {
    const char *root = getenv("ODS_TEST_ROOT");
    ods_store *store;
    ods_test_result r;
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    states s;

    snprintf(metadata_file, sizeof metadata_file, "%s/Tests/servers/v2_metadata.xml", root ? root : ".");
    store = ods_test_open_with(v2_url, ODS_DISPATCH_THREAD, use_local_metadata);
    ODS_CHECK_INT_EQ(ods_store_odata_version(store), 2);
    ods_test_result_init(&r);
    ods_test_run(&r, store, ODS_READ, "Products(3)", NULL);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ODS_CHECK(strstr(r.json, "\"Price\":\"112.11\"") != NULL); /* 3*3737 = 11211 */
    ods_test_result_free(&r);
    ODS_CHECK_OK(ods_store_close(store));

    /* A file that cannot be used fails ods_store_open itself (checked with stat(), which
     * never blocks), and the state callback is never called: missing, not a regular file
     * (a device that never ends, a FIFO that nobody writes), larger than max_response_bytes. */
    memset(&s, 0, sizeof s);
    ods_test_waiter_init(&s.waiter);
    o.service_root = v2_url;
    o.metadata_path = "/nonexistent/metadata.xml";
    store = NULL;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, on_state, &s), ODS_EIO);
    ODS_CHECK(store == NULL);
    ODS_CHECK(strstr(ods_error_last()->message, "/nonexistent/metadata.xml") != NULL);
    o.metadata_path = "/dev/zero";
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, on_state, &s), ODS_EIO);
    ODS_CHECK(strstr(ods_error_last()->message, "regular file") != NULL);
    {
        char fifo[256];
        snprintf(fifo, sizeof fifo, "/tmp/ods_test_fifo_%ld", (long)getpid());
        unlink(fifo);
        ODS_CHECK(mkfifo(fifo, 0600) == 0);
        o.metadata_path = fifo;
        ODS_CHECK_INT_EQ(ods_store_open(&store, &o, on_state, &s), ODS_EIO);
        unlink(fifo);
    }
    o.metadata_path = metadata_file;
    o.max_response_bytes = 1000;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, on_state, &s), ODS_ELIMIT);
    ODS_CHECK(strstr(ods_error_last()->message, "max_response_bytes") != NULL);
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&s.waiter), 0);
    ods_test_waiter_destroy(&s.waiter);
}

int main(void) {
    ods_test_server *v4 = NULL, *v2 = NULL;
    if (ods_test_server_start_v4(&v4, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_server_start_v2(&v2, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V2 server");
    check_life_cycle(ods_test_server_url(v4));
    check_unreachable();
    check_local_metadata(ods_test_server_url(v2));
    ODS_CHECK_INT_EQ(ods_test_server_stop(v2), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(v4), 0);
    printf("store: ok\n");
    return 0;
}
