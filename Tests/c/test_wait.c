/* test_wait.c - waiting for a request without writing a condition variable: ods_request_wait
 * and ods_store_execute in every dispatch mode, their refusal from a callback of the same
 * store (it would wait for itself), a wait that times out while the request goes on, what a
 * finished request keeps (ods_request_error, ods_request_response), a wait in queue mode
 * while another thread dispatches, and ods_request_store after close. Against the real V4
 * service through the fault proxy (slow answers come from its `slow` mode). */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static ods_test_server *proxy;

typedef struct inside {
    ods_test_waiter waiter;
    ods_store *store;
    ods_request *other;
    int wait_rc, other_rc, execute_rc, close_rc;
    ods_response *execute_out;
} inside;

/* A completion that tries to wait: every form is refused, nothing blocks. */
static void try_waiting_inside(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    inside *in = context;
    (void)response;
    (void)error;
    in->wait_rc = ods_request_wait(request, -1);
    /* also a request that has ended: refused alike, not OK by the timing */
    in->other_rc = ods_request_wait(in->other, 0);
    in->execute_out = (ods_response *)1;
    in->execute_rc = ods_store_execute(&in->execute_out, in->store, ODS_READ, "Products(1)", NULL, 1000);
    in->close_rc = ods_store_close(in->store);
    ods_test_waiter_signal(&in->waiter, NULL);
}

static void check_mode(int dispatch) {
    ods_store *store = ods_test_open(ods_test_server_url(proxy), dispatch);
    ods_request *req = NULL;
    ods_response *resp = (ods_response *)1;
    const ods_error *err;
    const ods_entity *e;
    int64_t id = 0;
    inside in;

    /* Waiting for a request that was never started is refused. */
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(5)", NULL));
    ODS_CHECK_INT_EQ(ods_request_wait(req, 0), ODS_ESTATE);
    ODS_CHECK_INT_EQ(ods_request_response(&resp, req), ODS_ESTATE);
    ODS_CHECK(resp == NULL);
    ODS_CHECK(ods_request_error(req) == NULL);
    ODS_CHECK_OK(ods_request_start(req));
    ODS_CHECK_OK(ods_request_wait(req, 60000));
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FINISHED);
    ODS_CHECK_OK(ods_request_wait(req, 0)); /* again: at once */
    ODS_CHECK(ods_request_error(req) == NULL);
    ODS_CHECK_OK(ods_request_response(&resp, req));
    ODS_CHECK_INT_EQ(ods_response_status(resp), 200);
    e = ods_response_entity(resp, 0);
    ODS_CHECK_OK(ods_entity_get_int64(&id, e, "ID"));
    ODS_CHECK_INT_EQ(id, 5);
    ods_request_free(req); /* the response outlives the request */
    ODS_CHECK_OK(ods_entity_get_int64(&id, e, "ID"));
    ods_response_free(resp);

    /* A failure keeps its error and the service's error response. */
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(99999)", NULL));
    ODS_CHECK_OK(ods_request_start(req));
    ODS_CHECK_OK(ods_request_wait(req, 60000));
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FAILED);
    err = ods_request_error(req);
    ODS_CHECK(err != NULL);
    ODS_CHECK_INT_EQ(err->code, ODS_ENOTFOUND);
    ODS_CHECK_INT_EQ(err->http_status, 404);
    ODS_CHECK(ods_request_error(req) == err); /* the same record until the request is freed */
    ODS_CHECK_OK(ods_request_response(&resp, req));
    ODS_CHECK_INT_EQ(ods_response_status(resp), 404);
    ods_response_free(resp);
    ods_request_free(req);

    /* The synchronous form. */
    ODS_CHECK_OK(ods_store_execute(&resp, store, ODS_READ, "Categories(4)", NULL, 60000));
    ODS_CHECK_OK(ods_entity_get_int64(&id, ods_response_entity(resp, 0), "ID"));
    ODS_CHECK_INT_EQ(id, 4);
    ods_response_free(resp);
    resp = (ods_response *)1;
    ODS_CHECK_INT_EQ(ods_store_execute(&resp, store, ODS_READ, "Categories(777)", NULL, 60000), ODS_ENOTFOUND);
    ODS_CHECK(resp == NULL);
    ODS_CHECK_INT_EQ(ods_error_last()->http_status, 404);
    ODS_CHECK_INT_EQ(ods_store_execute(&resp, store, ODS_READ, "Categories(1", NULL, 1000), ODS_EINVAL);

    /* A wait that runs out: ODS_ETIMEOUT, and the request goes on to its end. */
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=slow&delay_ms=1500&match=Products(6)") == 0);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(6)", NULL));
    ODS_CHECK_OK(ods_request_start(req));
    ODS_CHECK_INT_EQ(ods_request_wait(req, 50), ODS_ETIMEOUT);
    ODS_CHECK_OK(ods_request_wait(req, -1));
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FINISHED);
    ods_request_free(req);
    /* "No limit" written as the largest timeout: waits (it used to overflow the deadline
     * and trap), for a wait and for execute alike. */
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=slow&delay_ms=300&match=Products(7)") == 0);
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(7)", NULL));
    ODS_CHECK_OK(ods_request_start(req));
    ODS_CHECK_OK(ods_request_wait(req, LONG_MAX));
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FINISHED);
    ods_request_free(req);
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=slow&delay_ms=300&match=Products(9)") == 0);
    ODS_CHECK_OK(ods_store_execute(&resp, store, ODS_READ, "Products(9)", NULL, LONG_MAX));
    ODS_CHECK_INT_EQ(ods_response_status(resp), 200);
    ods_response_free(resp);
    /* execute cancels what it gave up on. */
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=slow&delay_ms=1500&match=Products(8)") == 0);
    ODS_CHECK_INT_EQ(ods_store_execute(&resp, store, ODS_READ, "Products(8)", NULL, 50), ODS_ETIMEOUT);
    ODS_CHECK(resp == NULL);

    /* From a callback of the store: refused, never a deadlock. */
    memset(&in, 0, sizeof in);
    ods_test_waiter_init(&in.waiter);
    in.store = store;
    ODS_CHECK_OK(ods_request_new(&in.other, store, ODS_READ, "Products(3)", NULL));
    ODS_CHECK_OK(ods_request_start(in.other));
    ODS_CHECK_OK(ods_request_wait(in.other, 60000));
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(2)", NULL, try_waiting_inside, &in));
    ods_test_wait(store, &in.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(in.wait_rc, ODS_ESTATE);
    ODS_CHECK_INT_EQ(in.other_rc, ODS_ESTATE);
    ods_request_free(in.other);
    ODS_CHECK_INT_EQ(in.execute_rc, ODS_ESTATE);
    ODS_CHECK(in.execute_out == NULL);
    ODS_CHECK_INT_EQ(in.close_rc, ODS_ESTATE);
    ods_test_waiter_destroy(&in.waiter);

    /* ods_request_store: the store while it is open, NULL once it is closed. */
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products(1)", NULL));
    ODS_CHECK(ods_request_store(req) == store);
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK(ods_request_store(req) == NULL);
    ODS_CHECK_INT_EQ(ods_request_start(req), ODS_ECLOSED);
    ods_request_free(req);
}

typedef struct dispatcher {
    ods_store *store;
    pthread_mutex_t mutex;
    int stop;
} dispatcher;

static int stopping(dispatcher *d) {
    int stop;
    pthread_mutex_lock(&d->mutex);
    stop = d->stop;
    pthread_mutex_unlock(&d->mutex);
    return stop;
}

static void *dispatch_loop(void *arg) {
    dispatcher *d = arg;
    while (!stopping(d))
        if (ods_store_dispatch(d->store, 20) < 0) break;
    return NULL;
}

/* Queue mode: one thread waits for its requests while another dispatches the same store.
 * Whichever thread delivers the last callback, the waiter sees it end. */
static void check_wait_beside_dispatcher(void) {
    ods_store *store = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_QUEUE);
    dispatcher d;
    pthread_t t;
    int i;
    memset(&d, 0, sizeof d);
    d.store = store;
    pthread_mutex_init(&d.mutex, NULL);
    ODS_CHECK(pthread_create(&t, NULL, dispatch_loop, &d) == 0);
    for (i = 1; i <= 20; i++) {
        ods_request *req = NULL;
        char path[64];
        snprintf(path, sizeof path, "Products(%d)", i);
        ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, path, NULL));
        ODS_CHECK_OK(ods_request_start(req));
        ODS_CHECK_OK(ods_request_wait(req, 60000));
        ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FINISHED);
        ods_request_free(req);
    }
    pthread_mutex_lock(&d.mutex);
    d.stop = 1;
    pthread_mutex_unlock(&d.mutex);
    ODS_CHECK(pthread_join(t, NULL) == 0);
    pthread_mutex_destroy(&d.mutex);
    ODS_CHECK_OK(ods_store_close(store));
}

static void check_null_arguments(void) {
    ods_response *r = (ods_response *)1;
    ODS_CHECK_INT_EQ(ods_request_wait(NULL, 0), ODS_EINVAL);
    ODS_CHECK(ods_request_error(NULL) == NULL);
    ODS_CHECK_INT_EQ(ods_request_response(&r, NULL), ODS_EINVAL);
    ODS_CHECK(r == NULL);
    r = (ods_response *)1;
    ODS_CHECK_INT_EQ(ods_store_execute(&r, NULL, ODS_READ, "X", NULL, 0), ODS_EINVAL);
    ODS_CHECK(r == NULL);
}

int main(void) {
    ods_test_server *server = NULL;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_proxy_start(&proxy, ods_test_server_url(server), NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    check_null_arguments();
    check_mode(ODS_DISPATCH_THREAD);
    check_mode(ODS_DISPATCH_QUEUE);
    check_mode(ODS_DISPATCH_THREAD_INLINE);
    check_wait_beside_dispatcher();
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("wait: ok\n");
    return 0;
}
