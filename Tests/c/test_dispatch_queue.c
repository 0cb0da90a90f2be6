/* test_dispatch_queue.c - ODS_DISPATCH_QUEUE: callbacks wait until the host dispatches,
 * ods_store_fd is readable exactly while they wait (poll), they run on the dispatching
 * thread, ods_store_dispatch honours its timeout, and close delivers the terminal callbacks
 * still queued on the closing thread. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static int readable(int fd, int timeout_ms) {
    struct pollfd p;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

typedef struct states {
    ods_test_waiter waiter;
    pthread_t thread;
} states;

static void on_state(ods_store *store, int state, const ods_error *error, void *context) {
    states *s = context;
    (void)store;
    (void)error;
    s->thread = pthread_self();
    ods_test_waiter_signal(&s->waiter, state == ODS_STORE_OPEN ? "open" : state == ODS_STORE_OPENING ? "opening"
                                     : state == ODS_STORE_CLOSING ? "closing" : state == ODS_STORE_CLOSED ? "closed" : "other");
}

int main(void) {
    ods_test_server *server = NULL;
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    states s;
    ods_test_result a, b, c;
    int fd, n, total;
    int64_t t0;
    char log[128];

    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    memset(&s, 0, sizeof s);
    ods_test_waiter_init(&s.waiter);
    o.service_root = ods_test_server_url(server);
    o.dispatch = ODS_DISPATCH_QUEUE;
    ODS_CHECK_OK(ods_store_open(&store, &o, on_state, &s));
    fd = ods_store_fd(store);
    ODS_CHECK(fd >= 0);

    /* "opening" is queued at once: the fd is readable; nothing runs until we dispatch. */
    ODS_CHECK(readable(fd, 5000));
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&s.waiter), 0);
    total = 0;
    while (ods_test_waiter_count(&s.waiter) < 2) {
        ODS_CHECK(readable(fd, 30000));
        n = ods_store_dispatch(store, 0);
        ODS_CHECK(n >= 0);
        total += n;
    }
    ODS_CHECK(total >= 2);
    ODS_CHECK(pthread_equal(s.thread, pthread_self()));
    ODS_CHECK(!readable(fd, 0)); /* drained */

    /* Nothing waiting: dispatch(0) returns 0 at once; dispatch(150) waits about that long. */
    ODS_CHECK_INT_EQ(ods_store_dispatch(store, 0), 0);
    t0 = ods_test_now_ms();
    ODS_CHECK_INT_EQ(ods_store_dispatch(store, 150), 0);
    ODS_CHECK(ods_test_now_ms() - t0 >= 140);

    /* Two requests: their callbacks arrive only when dispatched, on this thread. */
    ods_test_result_init(&a);
    ods_test_result_init(&b);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(1)", NULL, ods_test_on_complete, &a));
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(2)", NULL, ods_test_on_complete, &b));
    ODS_CHECK(readable(fd, 30000));
    ods_test_sleep_ms(300);
    ODS_CHECK_INT_EQ(a.completions + b.completions, 0); /* waiting in the queue */
    while (a.completions + b.completions < 2) {
        n = ods_store_dispatch(store, 10000); /* blocks until something is queued */
        ODS_CHECK(n >= 0);
    }
    ODS_CHECK(pthread_equal(a.thread, pthread_self()) && pthread_equal(b.thread, pthread_self()));
    ODS_CHECK_INT_EQ(a.error_code, 0);
    ODS_CHECK(strstr(a.json, "\"ID\":1") != NULL);
    ods_test_result_free(&a);
    ods_test_result_free(&b);

    /* Close with a finished-but-undispatched request: close delivers it here, then closes. */
    ods_test_result_init(&c);
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(3)", NULL, ods_test_on_complete, &c));
    ODS_CHECK(readable(fd, 30000));
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(c.completions, 1);
    ODS_CHECK(pthread_equal(c.thread, pthread_self()));
    ods_test_waiter_log(&s.waiter, log, sizeof log);
    ODS_CHECK_STR_EQ(log, "opening,open,closing,closed");
    ods_test_result_free(&c);
    ods_test_waiter_destroy(&s.waiter);

    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("dispatch queue: ok\n");
    return 0;
}
