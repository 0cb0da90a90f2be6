/* test_concurrency.c - 1,000 requests scheduled from 4 threads at once (each completes
 * exactly once, ids unique, callbacks one at a time), and close with 100 requests in flight
 * (each gets exactly one terminal callback before close returns, none after), in the
 * thread modes (ODS_DISPATCH_THREAD and _INLINE) and, for close, queue mode. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

#define THREADS 4
#define PER_THREAD 250
#define TOTAL (THREADS * PER_THREAD)
#define IN_FLIGHT 100

typedef struct slot {
    int completions;
    int error_code;
    int ok_entity;
    uint64_t scheduled_id;
    uint64_t seen_id;
} slot;

static slot slots[TOTAL];
static ods_store *store;
static ods_test_waiter done;
static volatile int inside;       /* callbacks running right now (must never exceed 1) */
static volatile int max_inside;

static void on_complete(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    slot *s = context;
    int now = ++inside;
    if (now > max_inside) max_inside = now;
    s->completions++;
    s->seen_id = ods_request_id(request);
    if (error) {
        s->error_code = error->code;
    } else {
        s->ok_entity = ods_response_entity_count(response) == 1;
    }
    --inside;
    ods_test_waiter_signal(&done, NULL);
}

static void *scheduler(void *arg) {
    int t = (int)(long)arg, i;
    char path[64];
    for (i = 0; i < PER_THREAD; i++) {
        int k = t * PER_THREAD + i;
        snprintf(path, sizeof path, "Products(%d)", k % 300 + 1);
        if (ods_store_schedule(&slots[k].scheduled_id, store, ODS_READ, path, NULL, on_complete, &slots[k]) != ODS_OK)
            ods_test_fail(__FILE__, __LINE__, "schedule: %s", ods_error_last()->message);
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void check_many_threads(const char *url, int dispatch) {
    pthread_t threads[THREADS];
    uint64_t ids[TOTAL];
    int i;
    memset(slots, 0, sizeof slots);
    ods_test_waiter_init(&done);
    inside = 0;
    max_inside = 0;
    store = ods_test_open(url, dispatch);
    for (i = 0; i < THREADS; i++) ODS_CHECK(pthread_create(&threads[i], NULL, scheduler, (void *)(long)i) == 0);
    for (i = 0; i < THREADS; i++) ODS_CHECK(pthread_join(threads[i], NULL) == 0);
    if (ods_test_waiter_wait(&done, TOTAL, 170000) != 0)
        ods_test_fail(__FILE__, __LINE__, "only %d of %d completed", ods_test_waiter_count(&done), TOTAL);
    for (i = 0; i < TOTAL; i++) {
        ODS_CHECK_INT_EQ(slots[i].completions, 1);
        if (slots[i].error_code) ods_test_fail(__FILE__, __LINE__, "request %d failed: %s", i, ods_strerror(slots[i].error_code));
        ODS_CHECK(slots[i].ok_entity);
        ODS_CHECK(slots[i].seen_id == slots[i].scheduled_id);
        ids[i] = slots[i].scheduled_id;
    }
    qsort(ids, TOTAL, sizeof ids[0], cmp_u64);
    for (i = 1; i < TOTAL; i++) ODS_CHECK(ids[i] != ids[i - 1]);
    ODS_CHECK_INT_EQ(max_inside, 1);
    ODS_CHECK_OK(ods_store_close(store));
    ods_test_waiter_destroy(&done);
}

static void check_close_in_flight(const char *url, int dispatch) {
    ods_test_server *proxy = NULL;
    int i, cancelled = 0;
    memset(slots, 0, sizeof slots);
    ods_test_waiter_init(&done);
    ODS_CHECK(ods_test_proxy_start(&proxy, url, NULL) == 0);
    store = ods_test_open(ods_test_server_url(proxy), dispatch);
    /* Every data request is held up 30 s by the proxy: all 100 are in flight at close. */
    ODS_CHECK(ods_test_proxy_add_fault(proxy, "mode=slow&delay_ms=30000&count=-1&match=Products") == 0);
    for (i = 0; i < IN_FLIGHT; i++) {
        char path[64];
        snprintf(path, sizeof path, "Products(%d)", i + 1);
        ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, path, NULL, on_complete, &slots[i]));
    }
    ods_test_sleep_ms(300);
    ODS_CHECK_OK(ods_store_close(store));
    /* close returned: every request had its one terminal callback, all cancelled. */
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&done), IN_FLIGHT);
    for (i = 0; i < IN_FLIGHT; i++) {
        ODS_CHECK_INT_EQ(slots[i].completions, 1);
        if (slots[i].error_code == ODS_ECANCELLED) cancelled++;
    }
    ODS_CHECK_INT_EQ(cancelled, IN_FLIGHT);
    ods_test_sleep_ms(300);
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&done), IN_FLIGHT); /* nothing after close */
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    ods_test_waiter_destroy(&done);
}

int main(void) {
    ods_test_server *server = NULL;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    check_many_threads(ods_test_server_url(server), ODS_DISPATCH_THREAD);
    check_many_threads(ods_test_server_url(server), ODS_DISPATCH_THREAD_INLINE);
    check_close_in_flight(ods_test_server_url(server), ODS_DISPATCH_THREAD);
    check_close_in_flight(ods_test_server_url(server), ODS_DISPATCH_QUEUE);
    check_close_in_flight(ods_test_server_url(server), ODS_DISPATCH_THREAD_INLINE);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("concurrency: ok\n");
    return 0;
}
