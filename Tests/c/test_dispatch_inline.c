/* test_dispatch_inline.c - ODS_DISPATCH_THREAD_INLINE against the real V4 service: chains
 * of requests whose terminal callback starts the next one (8 in flight), with more requests
 * scheduled from the app's thread meanwhile: every request's callbacks arrive in order
 * (started, response, finished), exactly once, never two callbacks at once (an "inside"
 * counter that must never exceed 1), never on the app's thread; then close while the chains
 * keep starting requests: close returns after every started request had its one terminal
 * callback, and none comes after; the thread-end callback (ods_store_set_thread_end) runs
 * once on a thread that ran callbacks, never the app's nor at the same time as a callback,
 * before close returns, and never in thread mode. (Waiting, executing and closing from inside
 * a callback is in test_wait.c, close with requests held in flight in test_concurrency.c.) */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

#define CHAINS 8
#define PER_CHAIN 60
#define SIDE 100                   /* requests scheduled from the app's thread meanwhile */
#define MAX_REQUESTS 20000         /* slots for the close test's unbounded chains */
#define MAX_THREADS 8

typedef struct slot {
    char events[8];                /* "S", "R", "F" or "X" (failed), in arrival order */
    int count;
    int error_code;
    int chain;                     /* -1: not part of a chain */
} slot;

static slot slots[MAX_REQUESTS];
static int next_slot;              /* guarded by lock */
static ods_store *store;
static int chain_length;           /* 0: unbounded (until the store refuses) */
static int chain_done[CHAINS];
static int inside;                 /* callbacks running right now (__atomic) */
static int max_inside;             /* __atomic */
static int terminal;               /* terminal callbacks so far (__atomic) */
static int started_ok;             /* requests started (__atomic) */
static int refused;                /* chain starts the closing store refused (__atomic) */
static pthread_t app_thread;
static int on_app_thread;          /* __atomic */
static pthread_t threads[MAX_THREADS];
static int thread_count;           /* guarded by lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ods_test_waiter done;
static int thread_ends;            /* thread-end callbacks (__atomic) */
static int thread_end_bad;         /* ... on the app's thread, a thread that ran no callback, or inside one */
static int thread_end_context_ok;
static int close_rc_in_thread_end;
static int context_marker;

static void on_thread_end(ods_store *s, void *context) {
    int i, ran = 0;
    if (__atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST) != 1) __atomic_add_fetch(&thread_end_bad, 1, __ATOMIC_SEQ_CST);
    if (pthread_equal(pthread_self(), app_thread)) __atomic_add_fetch(&thread_end_bad, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&lock);
    for (i = 0; i < thread_count; i++) ran |= pthread_equal(threads[i], pthread_self());
    pthread_mutex_unlock(&lock);
    if (!ran) __atomic_add_fetch(&thread_end_bad, 1, __ATOMIC_SEQ_CST);
    thread_end_context_ok = s == store && context == &context_marker;
    close_rc_in_thread_end = ods_store_close(s); /* refused: it runs as a callback */
    __atomic_add_fetch(&thread_ends, 1, __ATOMIC_SEQ_CST);
    __atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST);
}

/* Signalled once per store when it reports OPEN (open_store waits on it). */
static ods_test_waiter opened;

static void on_state(ods_store *s, int state, const ods_error *error, void *context) {
    (void)s;
    (void)error;
    (void)context;
    if (state == ODS_STORE_OPEN) ods_test_waiter_signal(&opened, "open");
}

/* An online store on `url` in `dispatch`, open, with the thread-end callback set. */
static ods_store *open_store(const char *url, int dispatch) {
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *s = NULL;
    int before = ods_test_waiter_count(&opened);
    o.service_root = url;
    o.dispatch = dispatch;
    ODS_CHECK_OK(ods_store_open(&s, &o, on_state, &context_marker));
    ODS_CHECK_OK(ods_store_set_thread_end(s, on_thread_end));
    if (ods_test_waiter_wait(&opened, before + 1, 60000) != 0) ods_test_fail(__FILE__, __LINE__, "the store did not open");
    ODS_CHECK_INT_EQ(ods_store_get_state(s), ODS_STORE_OPEN);
    return s;
}

static void enter(slot *s, char event) {
    int now = __atomic_add_fetch(&inside, 1, __ATOMIC_SEQ_CST), i, seen = 0;
    int max = __atomic_load_n(&max_inside, __ATOMIC_SEQ_CST);
    while (now > max && !__atomic_compare_exchange_n(&max_inside, &max, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    if (pthread_equal(pthread_self(), app_thread)) __atomic_add_fetch(&on_app_thread, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&lock);
    for (i = 0; i < thread_count; i++) seen |= pthread_equal(threads[i], pthread_self());
    if (!seen && thread_count < MAX_THREADS) threads[thread_count++] = pthread_self();
    pthread_mutex_unlock(&lock);
    /* Not under a lock: a second callback running now would be seen by the counter. */
    if (s->count < (int)sizeof s->events - 1) s->events[s->count] = event;
    s->count++;
    ods_test_sleep_ms(0);
}

static void leave(void) { __atomic_sub_fetch(&inside, 1, __ATOMIC_SEQ_CST); }

static slot *claim(int chain) {
    slot *s = NULL;
    pthread_mutex_lock(&lock);
    if (next_slot < MAX_REQUESTS) s = &slots[next_slot++];
    pthread_mutex_unlock(&lock);
    if (!s) ods_test_fail(__FILE__, __LINE__, "more than %d requests", MAX_REQUESTS);
    s->chain = chain;
    return s;
}

static void on_started(ods_request *request, void *context) {
    (void)request;
    enter(context, 'S');
    leave();
}

static void on_response(ods_request *request, const ods_response *response, void *context) {
    (void)request;
    enter(context, 'R');
    if (ods_response_entity_count(response) != 1) ((slot *)context)->error_code = -1;
    leave();
}

static int start_next(int chain);

static void end_of(slot *s, char event, int error_code) {
    int chain = s->chain;
    enter(s, event);
    s->error_code = error_code;
    if (chain >= 0) {
        int length;
        pthread_mutex_lock(&lock);
        chain_done[chain]++;
        length = chain_done[chain];
        pthread_mutex_unlock(&lock);
        /* The next request of the chain, started from inside this callback. */
        if (chain_length == 0 || length < chain_length) {
            if (start_next(chain) != ODS_OK) {
                ODS_CHECK(chain_length == 0); /* only the closing store refuses */
                __atomic_add_fetch(&refused, 1, __ATOMIC_SEQ_CST);
            }
        }
    }
    __atomic_add_fetch(&terminal, 1, __ATOMIC_SEQ_CST);
    leave();
    ods_test_waiter_signal(&done, NULL);
}

static void on_finished(ods_request *request, void *context) {
    (void)request;
    end_of(context, 'F', 0);
}

static void on_failed(ods_request *request, const ods_error *error, const ods_response *response, void *context) {
    (void)request;
    (void)response;
    end_of(context, 'X', error ? error->code : -2);
}

static int start_request(int chain) {
    ods_request_delegate delegate = ODS_REQUEST_DELEGATE_INIT;
    ods_request *request = NULL;
    char path[64];
    slot *s = claim(chain);
    int rc;
    snprintf(path, sizeof path, "Products(%d)", (int)(s - slots) % 300 + 1);
    delegate.started = on_started;
    delegate.response = on_response;
    delegate.failed = on_failed;
    delegate.finished = on_finished;
    rc = ods_request_new(&request, store, ODS_READ, path, NULL);
    if (rc == ODS_OK) rc = ods_request_set_delegate(request, &delegate);
    if (rc == ODS_OK) rc = ods_request_set_context(request, s);
    if (rc == ODS_OK) rc = ods_request_start(request);
    if (rc == ODS_OK) __atomic_add_fetch(&started_ok, 1, __ATOMIC_SEQ_CST);
    else s->count = -1000; /* never started: no callback may come */
    ods_request_free(request);
    return rc;
}

static int start_next(int chain) { return start_request(chain); }

static void reset(int length) {
    memset(slots, 0, sizeof slots);
    memset(chain_done, 0, sizeof chain_done);
    next_slot = 0;
    chain_length = length;
    __atomic_store_n(&inside, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&max_inside, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&terminal, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&started_ok, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&refused, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&on_app_thread, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&thread_ends, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&thread_end_bad, 0, __ATOMIC_SEQ_CST);
    thread_end_context_ok = 0;
    close_rc_in_thread_end = 0;
    thread_count = 0;
    app_thread = pthread_self();
    ods_test_waiter_init(&done);
}

/* Chains of PER_CHAIN requests each, plus SIDE requests from this thread meanwhile. */
static void check_chains(const char *url, int dispatch) {
    int i, total = CHAINS * PER_CHAIN + SIDE;
    reset(PER_CHAIN);
    store = open_store(url, dispatch);
    for (i = 0; i < CHAINS; i++) ODS_CHECK_OK(start_request(i));
    for (i = 0; i < SIDE; i++) {
        ODS_CHECK_OK(start_request(-1));
        if (i % 10 == 0) ods_test_sleep_ms(5);
    }
    if (ods_test_waiter_wait(&done, total, 170000) != 0)
        ods_test_fail(__FILE__, __LINE__, "only %d of %d requests ended", ods_test_waiter_count(&done), total);
    ODS_CHECK_INT_EQ(next_slot, total);
    for (i = 0; i < total; i++) {
        if (strcmp(slots[i].events, "SRF") != 0 || slots[i].count != 3 || slots[i].error_code != 0)
            ods_test_fail(__FILE__, __LINE__, "request %d: callbacks \"%s\" (%d), error %d", i, slots[i].events,
                          slots[i].count, slots[i].error_code);
    }
    for (i = 0; i < CHAINS; i++) ODS_CHECK_INT_EQ(chain_done[i], PER_CHAIN);
    ODS_CHECK_INT_EQ(__atomic_load_n(&max_inside, __ATOMIC_SEQ_CST), 1);
    ODS_CHECK_INT_EQ(__atomic_load_n(&on_app_thread, __ATOMIC_SEQ_CST), 0);
    ODS_CHECK(thread_count >= 1);
    printf("chains (dispatch %d): callbacks ran on %d thread(s)\n", dispatch, thread_count);
    ODS_CHECK_OK(ods_store_close(store));
    /* Once per thread besides the callback thread that ran callbacks (the transport), before
     * close returned; in thread mode never. */
    if (dispatch == ODS_DISPATCH_THREAD) {
        ODS_CHECK_INT_EQ(thread_count, 1);
        ODS_CHECK_INT_EQ(__atomic_load_n(&thread_ends, __ATOMIC_SEQ_CST), 0);
    } else {
        ODS_CHECK(__atomic_load_n(&thread_ends, __ATOMIC_SEQ_CST) <= 1);
        if (thread_count == 2) ODS_CHECK_INT_EQ(__atomic_load_n(&thread_ends, __ATOMIC_SEQ_CST), 1);
        if (__atomic_load_n(&thread_ends, __ATOMIC_SEQ_CST) == 1) {
            ODS_CHECK(thread_end_context_ok);
            ODS_CHECK_INT_EQ(close_rc_in_thread_end, ODS_ESTATE);
        }
    }
    ODS_CHECK_INT_EQ(__atomic_load_n(&thread_end_bad, __ATOMIC_SEQ_CST), 0);
    ODS_CHECK_INT_EQ(__atomic_load_n(&max_inside, __ATOMIC_SEQ_CST), 1);
    ods_test_waiter_destroy(&done);
}

/* Unbounded chains; close while they run (each chain's next start is refused once closing). */
static void check_close_while_chaining(const char *url) {
    int i, ended, started;
    reset(0);
    store = open_store(url, ODS_DISPATCH_THREAD_INLINE);
    for (i = 0; i < CHAINS; i++) ODS_CHECK_OK(start_request(i));
    /* Let the chains go through a few hundred requests (not a timing check: any number will do). */
    (void)ods_test_waiter_wait(&done, 200, 20000);
    ODS_CHECK_OK(ods_store_close(store));
    ended = __atomic_load_n(&terminal, __ATOMIC_SEQ_CST);
    started = __atomic_load_n(&started_ok, __ATOMIC_SEQ_CST);
    /* close returned: every started request had its one terminal callback. */
    ODS_CHECK_INT_EQ(ended, started);
    for (i = 0; i < next_slot; i++) {
        const char *e = slots[i].events;
        if (slots[i].count == -1000) continue; /* refused: never started */
        /* Started, then at most a response, then one terminal callback. */
        if (!(strcmp(e, "SRF") == 0 || strcmp(e, "SX") == 0 || strcmp(e, "SRX") == 0))
            ods_test_fail(__FILE__, __LINE__, "request %d: callbacks \"%s\" (%d)", i, e, slots[i].count);
        if (e[strlen(e) - 1] == 'X' && slots[i].error_code != ODS_ECANCELLED && slots[i].error_code != ODS_ECLOSED)
            ods_test_fail(__FILE__, __LINE__, "request %d failed with %s", i, ods_strerror(slots[i].error_code));
    }
    ODS_CHECK_INT_EQ(__atomic_load_n(&max_inside, __ATOMIC_SEQ_CST), 1);
    ODS_CHECK_INT_EQ(__atomic_load_n(&on_app_thread, __ATOMIC_SEQ_CST), 0);
    ODS_CHECK(__atomic_load_n(&thread_ends, __ATOMIC_SEQ_CST) <= 1);
    if (thread_count == 2) ODS_CHECK_INT_EQ(__atomic_load_n(&thread_ends, __ATOMIC_SEQ_CST), 1);
    ODS_CHECK_INT_EQ(__atomic_load_n(&thread_end_bad, __ATOMIC_SEQ_CST), 0);
    /* close joined the store's threads: no callback can come after it. */
    ODS_CHECK_INT_EQ(__atomic_load_n(&terminal, __ATOMIC_SEQ_CST), ended);
    ODS_CHECK(__atomic_load_n(&thread_ends, __ATOMIC_SEQ_CST) <= 1);
    printf("close while chaining: %d requests started, %d refused while closing\n", started,
           __atomic_load_n(&refused, __ATOMIC_SEQ_CST));
    ods_test_waiter_destroy(&done);
}

int main(void) {
    ods_test_server *server = NULL;
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *bad = NULL;
    ods_test_waiter_init(&opened);
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    /* The value after the last mode is refused. */
    o.service_root = ods_test_server_url(server);
    o.dispatch = ODS_DISPATCH_THREAD_INLINE + 1;
    ODS_CHECK_INT_EQ(ods_store_open(&bad, &o, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(bad == NULL);
    ODS_CHECK_INT_EQ(ods_store_set_thread_end(NULL, on_thread_end), ODS_EINVAL);
    check_chains(ods_test_server_url(server), ODS_DISPATCH_THREAD_INLINE);
    check_chains(ods_test_server_url(server), ODS_DISPATCH_THREAD);
    check_close_while_chaining(ods_test_server_url(server));
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("dispatch_inline: ok\n");
    return 0;
}
