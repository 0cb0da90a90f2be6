/* test_logon.c - logon and held requests (docs/logon.md) against the real V4 service behind
 * the fault proxy, whose `auth` mode answers 401 unless the Authorization header matches:
 *   - the race of issue 12: 200 requests scheduled from 4 threads while the store is still
 *     opening and a logon is required; one prompt, answered later from another thread; each
 *     request gets exactly one terminal callback with its own product;
 *   - a session that expires in the middle of a burst of 100 requests (the proxy starts
 *     wanting other credentials): one prompt, 100 right answers;
 *   - a refused logon (answered inside the callback): the open and the held requests fail
 *     with ODS_EUNAUTHORIZED;
 *   - the bound on held requests ("too many held requests", ODS_ELIMIT);
 *   - the race, the expiry and the refusal again in ODS_DISPATCH_THREAD_INLINE (the logon
 *     callback and the refusal inside it on the transport thread);
 *   - hostile callers: NULL and malformed replies, replying twice, to an unknown prompt, to
 *     a store without logon, after close; bad logon options; a version 2 options struct. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static ods_test_server *server;
static ods_test_server *proxy;

/* ------------------------------------------------------------------------------------- */
/* The app's side of the logon                                                             */
/* ------------------------------------------------------------------------------------- */

enum reply_kind { REPLY_BASIC_LATER, REPLY_BEARER_LATER, REPLY_REFUSE_NOW, REPLY_CHECKED_NOW, REPLY_NEVER };

typedef struct logon_app {
    pthread_mutex_t mutex;
    enum reply_kind kind;
    int prompts;
    int last_reason;
    uint64_t last_id;
    ods_test_waiter prompted;
    /* REPLY_*_LATER: the reply waits until this many events (e.g. requests scheduled). */
    ods_test_waiter *gate;
    int gate_count;
    int hostile_failures;  /* REPLY_CHECKED_NOW: checks that did not give what they should */
} logon_app;

static void app_init(logon_app *app, enum reply_kind kind) {
    memset(app, 0, sizeof *app);
    pthread_mutex_init(&app->mutex, NULL);
    ods_test_waiter_init(&app->prompted);
    app->kind = kind;
}

static void app_destroy(logon_app *app) {
    ods_test_waiter_destroy(&app->prompted);
    pthread_mutex_destroy(&app->mutex);
}

typedef struct later_reply {
    ods_store *store;
    uint64_t id;
    logon_app *app;
} later_reply;

/* An SSO flow on a thread of the app's own: it answers when it is ready. */
static void *reply_later(void *arg) {
    later_reply *r = arg;
    int rc;
    if (r->app->gate) ods_test_waiter_wait(r->app->gate, r->app->gate_count, 60000);
    ods_test_sleep_ms(50);
    if (r->app->kind == REPLY_BASIC_LATER)
        rc = ods_store_logon_basic(r->store, r->id, "user", "password");
    else
        rc = ods_store_logon_bearer(r->store, r->id, "fresh");
    if (rc != ODS_OK) ods_test_fail(__FILE__, __LINE__, "reply: %d %s", rc, ods_error_last()->message);
    free(r);
    return NULL;
}

static void check(logon_app *app, int ok) {
    if (!ok) app->hostile_failures++;
}

static void on_logon(ods_store *store, const ods_logon_info *info, void *context) {
    logon_app *app = context;
    pthread_mutex_lock(&app->mutex);
    app->prompts++;
    app->last_reason = info->reason;
    app->last_id = info->id;
    pthread_mutex_unlock(&app->mutex);
    if (info->version != ODS_LOGON_INFO_VERSION || info->http_status != 401 || info->attempt < 1)
        ods_test_fail(__FILE__, __LINE__, "odd logon info: version %u, status %d, attempt %d", info->version,
                      info->http_status, info->attempt);
    switch (app->kind) {
    case REPLY_BASIC_LATER:
    case REPLY_BEARER_LATER: {
        pthread_t thread;
        later_reply *r = malloc(sizeof *r);
        ODS_CHECK(r != NULL);
        r->store = store;
        r->id = info->id;
        r->app = app;
        ODS_CHECK(pthread_create(&thread, NULL, reply_later, r) == 0);
        pthread_detach(thread);
        break;
    }
    case REPLY_REFUSE_NOW:
        ODS_CHECK_OK(ods_store_logon_refuse(store, info->id));
        break;
    case REPLY_CHECKED_NOW: {
        /* Malformed replies are refused and leave the prompt open... */
        const char *crlf[] = {"Cookie: a\r\nX-Evil: 1", NULL};
        const char *no_colon[] = {"Cookie", NULL};
        const char *empty[] = {NULL};
        const char *cookie[] = {"Authorization: Basic dXNlcjpwYXNzd29yZA==", NULL};
        check(app, ods_store_logon_basic(NULL, info->id, "user", "password") == ODS_EINVAL);
        check(app, ods_store_logon_basic(store, info->id, NULL, "password") == ODS_EINVAL);
        check(app, ods_store_logon_basic(store, info->id, "us:er", "password") == ODS_EINVAL);
        check(app, ods_store_logon_bearer(store, info->id, NULL) == ODS_EINVAL);
        check(app, ods_store_logon_bearer(store, info->id, "") == ODS_EINVAL);
        check(app, ods_store_logon_headers(store, info->id, NULL) == ODS_EINVAL);
        check(app, ods_store_logon_headers(store, info->id, crlf) == ODS_EINVAL);
        check(app, strstr(ods_error_last()->message, "X-Evil") == NULL); /* no value in the text */
        check(app, ods_store_logon_headers(store, info->id, no_colon) == ODS_EINVAL);
        check(app, ods_store_logon_headers(store, info->id, empty) == ODS_EINVAL);
        check(app, ods_store_logon_refuse(store, info->id + 1000000) == ODS_ESTATE);
        /* ... a good one answers it (the app's own headers: here the right Authorization) ... */
        check(app, ods_store_logon_headers(store, info->id, cookie) == ODS_OK);
        /* ... and a second reply finds no prompt. */
        check(app, ods_store_logon_refuse(store, info->id) == ODS_ESTATE);
        check(app, ods_store_logon_basic(store, info->id, "user", "password") == ODS_ESTATE);
        break;
    }
    case REPLY_NEVER:
        break;
    }
    ods_test_waiter_signal(&app->prompted, NULL);
}

static logon_app *configured_app;
static void with_logon(ods_store_options *o) {
    o->logon = on_logon;
    o->logon_context = configured_app;
}

static void require_auth(const char *authorization) {
    char json[256];
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    snprintf(json, sizeof json, "{\"mode\":\"auth\",\"count\":-1,\"authorization\":\"%s\"}", authorization);
    ODS_CHECK(ods_test_proxy_add_fault_json(proxy, json) == 0);
}

static ods_store *open_opening(logon_app *app, int dispatch, int max_held) {
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    o.service_root = ods_test_server_url(proxy);
    o.dispatch = dispatch;
    o.logon = on_logon;
    o.logon_context = app;
    o.max_held_requests = max_held;
    ODS_CHECK_OK(ods_store_open(&store, &o, NULL, NULL));
    return store;
}

/* ------------------------------------------------------------------------------------- */
/* One slot per request: exactly one terminal callback, with its product                  */
/* ------------------------------------------------------------------------------------- */

typedef struct slot {
    int product;
    int completions;
    int error;
    int right;
} slot;

static ods_test_waiter completed;
static ods_test_waiter scheduled;

static void on_done(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    slot *s = context;
    (void)request;
    __atomic_add_fetch(&s->completions, 1, __ATOMIC_SEQ_CST);
    if (error) {
        s->error = error->code;
    } else {
        char expected[32];
        const char *json = ods_response_json(response, NULL);
        snprintf(expected, sizeof expected, "\"ID\":%d,", s->product);
        s->right = json && strstr(json, expected) != NULL;
    }
    ods_test_waiter_signal(&completed, NULL);
}

static void check_slots(slot *slots, int n) {
    int i;
    for (i = 0; i < n; i++) {
        if (slots[i].completions != 1 || slots[i].error != 0 || !slots[i].right)
            ods_test_fail(__FILE__, __LINE__, "request for product %d: %d terminal callbacks, error %d, right answer %d",
                          slots[i].product, slots[i].completions, slots[i].error, slots[i].right);
    }
}

#define RACE_THREADS 4
#define RACE_PER_THREAD 50
static slot race_slots[RACE_THREADS * RACE_PER_THREAD];

typedef struct race_thread {
    ods_store *store;
    int first;
} race_thread;

static void *schedule_some(void *arg) {
    race_thread *t = arg;
    int i;
    for (i = t->first; i < t->first + RACE_PER_THREAD; i++) {
        char path[64];
        race_slots[i].product = i % 300 + 1;
        snprintf(path, sizeof path, "Products(%d)", race_slots[i].product);
        ODS_CHECK_OK(ods_store_schedule(NULL, t->store, ODS_READ, path, NULL, on_done, &race_slots[i]));
        /* Still opening: $metadata itself waits for the logon, answered after the 200th. */
        ODS_CHECK_INT_EQ(ods_store_get_state(t->store), ODS_STORE_OPENING);
        ods_test_waiter_signal(&scheduled, NULL);
    }
    return NULL;
}

/* Issue 12's race: 200 requests from 4 threads while the store opens and needs a logon. */
static void check_race_while_opening(int dispatch) {
    logon_app app;
    pthread_t threads[RACE_THREADS];
    race_thread args[RACE_THREADS];
    ods_store *store;
    int i;
    require_auth("Basic dXNlcjpwYXNzd29yZA==");
    app_init(&app, REPLY_BASIC_LATER);
    ods_test_waiter_init(&completed);
    ods_test_waiter_init(&scheduled);
    memset(race_slots, 0, sizeof race_slots); /* run once per dispatch mode */
    app.gate = &scheduled; /* the logon is answered only when all 200 are held */
    app.gate_count = RACE_THREADS * RACE_PER_THREAD;
    store = open_opening(&app, dispatch, 0);
    for (i = 0; i < RACE_THREADS; i++) {
        args[i].store = store;
        args[i].first = i * RACE_PER_THREAD;
        ODS_CHECK(pthread_create(&threads[i], NULL, schedule_some, &args[i]) == 0);
    }
    for (i = 0; i < RACE_THREADS; i++) pthread_join(threads[i], NULL);
    ODS_CHECK(ods_test_waiter_wait(&completed, RACE_THREADS * RACE_PER_THREAD, 120000) == 0);
    ODS_CHECK_INT_EQ(ods_store_get_state(store), ODS_STORE_OPEN);
    check_slots(race_slots, RACE_THREADS * RACE_PER_THREAD);
    ODS_CHECK_INT_EQ(app.prompts, 1);
    ODS_CHECK_INT_EQ(app.last_reason, ODS_LOGON_REQUIRED);
    ODS_CHECK_OK(ods_store_close(store));
    /* Nothing more came after close. */
    for (i = 0; i < RACE_THREADS * RACE_PER_THREAD; i++) ODS_CHECK_INT_EQ(race_slots[i].completions, 1);
    ods_test_waiter_destroy(&completed);
    ods_test_waiter_destroy(&scheduled);
    app_destroy(&app);
}

#define BURST 100
static slot burst_slots[BURST];

static void basic_auth(ods_store_options *o) {
    with_logon(o);
    o->auth = ODS_AUTH_BASIC;
    o->username = "user";
    o->password = "password";
}

/* The session expires in the middle of a burst: one prompt, every request answered. */
static void check_expiry_in_a_burst(int dispatch) {
    logon_app app;
    ods_store *store;
    long faults_before;
    int i;
    require_auth("Basic dXNlcjpwYXNzd29yZA==");
    app_init(&app, REPLY_BEARER_LATER);
    configured_app = &app;
    store = ods_test_open_with(ods_test_server_url(proxy), dispatch, basic_auth);
    ods_test_waiter_init(&completed);
    memset(burst_slots, 0, sizeof burst_slots);
    for (i = 0; i < BURST; i++) {
        char path[64];
        burst_slots[i].product = i + 1;
        snprintf(path, sizeof path, "Products(%d)?$select=ID,Name", i + 1);
        ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, path, NULL, on_done, &burst_slots[i]));
    }
    ods_test_wait(store, &completed, 10, 60000);
    /* From now on the service wants the new token: the session expired. */
    faults_before = ods_test_proxy_counter(proxy, "faults");
    require_auth("Bearer fresh");
    ods_test_wait(store, &completed, BURST, 120000);
    check_slots(burst_slots, BURST);
    ODS_CHECK(ods_test_proxy_counter(proxy, "faults") > faults_before); /* some did get a 401 */
    ODS_CHECK_INT_EQ(app.prompts, 1);
    ODS_CHECK_INT_EQ(app.last_reason, ODS_LOGON_EXPIRED);
    /* The new credentials stay: a write after the expiry goes through with them. */
    {
        ods_test_result r;
        char body[128];
        snprintf(body, sizeof body, "{\"CustomerID\":\"LOGON%d\",\"CompanyName\":\"Logon\",\"City\":\"Kiel\"}", dispatch);
        ods_test_expect_ok(&r, store, ODS_CREATE, "Customers", body, 201);
        ods_test_result_free(&r);
    }
    ODS_CHECK_INT_EQ(app.prompts, 1);
    ODS_CHECK_OK(ods_store_close(store));
    ods_test_waiter_destroy(&completed);
    app_destroy(&app);
}

/* A refused logon (answered inside the callback) fails the open and every held request. */
static void check_refused_logon(int dispatch) {
    logon_app app;
    ods_store *store;
    slot slots[5];
    int i;
    require_auth("Basic dXNlcjpwYXNzd29yZA==");
    app_init(&app, REPLY_REFUSE_NOW);
    ods_test_waiter_init(&completed);
    store = open_opening(&app, dispatch, 0);
    for (i = 0; i < 5; i++) {
        char path[64];
        memset(&slots[i], 0, sizeof slots[i]);
        slots[i].product = i + 1;
        snprintf(path, sizeof path, "Products(%d)", i + 1);
        ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, path, NULL, on_done, &slots[i]));
    }
    ods_test_wait(store, &completed, 5, 60000);
    for (i = 0; i < 5; i++) {
        ODS_CHECK_INT_EQ(slots[i].completions, 1);
        ODS_CHECK_INT_EQ(slots[i].error, ODS_EUNAUTHORIZED);
    }
    ODS_CHECK_INT_EQ(ods_store_get_state(store), ODS_STORE_FAILED);
    ODS_CHECK_INT_EQ(app.prompts, 1);
    ODS_CHECK_OK(ods_store_close(store));
    ods_test_waiter_destroy(&completed);
    app_destroy(&app);
}

/* A refusal in the middle of a burst: asked once; every request that got the 401 fails with
 * ODS_EUNAUTHORIZED (also those whose 401 came after the refusal), the others succeed. */
static void check_refused_in_a_burst(void) {
    logon_app app;
    ods_store *store;
    int i, failed = 0;
    require_auth("Basic dXNlcjpwYXNzd29yZA==");
    app_init(&app, REPLY_REFUSE_NOW);
    configured_app = &app;
    store = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, basic_auth);
    ods_test_waiter_init(&completed);
    memset(burst_slots, 0, sizeof burst_slots);
    for (i = 0; i < BURST; i++) {
        char path[64];
        burst_slots[i].product = i + 1;
        snprintf(path, sizeof path, "Products(%d)?$select=ID,Name", i + 1);
        ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, path, NULL, on_done, &burst_slots[i]));
    }
    ODS_CHECK(ods_test_waiter_wait(&completed, 10, 60000) == 0);
    require_auth("Bearer never-given");
    ODS_CHECK(ods_test_waiter_wait(&completed, BURST, 120000) == 0);
    for (i = 0; i < BURST; i++) {
        ODS_CHECK_INT_EQ(burst_slots[i].completions, 1);
        if (burst_slots[i].error) {
            ODS_CHECK_INT_EQ(burst_slots[i].error, ODS_EUNAUTHORIZED);
            failed++;
        } else {
            ODS_CHECK(burst_slots[i].right);
        }
    }
    ODS_CHECK(failed > 0);
    ODS_CHECK_INT_EQ(app.prompts, 1);
    ODS_CHECK_OK(ods_store_close(store));
    ods_test_waiter_destroy(&completed);
    app_destroy(&app);
}

/* A write held for a logon and cancelled meanwhile is never sent. */
static int count_posts(void) {
    char *state = ods_test_proxy_state(proxy), *p;
    int n = 0;
    ODS_CHECK(state != NULL);
    for (p = state; (p = strstr(p, "\"POST ")) != NULL; p++) n++;
    free(state);
    return n;
}

static void check_cancelled_while_held(void) {
    logon_app app;
    ods_store *store;
    slot read_slot, write_slot;
    uint64_t write_id = 0, logon_id;
    int posts;
    ods_test_result r;
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    app_init(&app, REPLY_NEVER);
    configured_app = &app;
    store = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_THREAD, with_logon);
    require_auth("Basic dXNlcjpwYXNzd29yZA==");
    ods_test_waiter_init(&completed);
    memset(&read_slot, 0, sizeof read_slot);
    memset(&write_slot, 0, sizeof write_slot);
    read_slot.product = 1;
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(1)", NULL, on_done, &read_slot));
    ODS_CHECK(ods_test_waiter_wait(&app.prompted, 1, 60000) == 0); /* the 401 opened a prompt */
    posts = count_posts();
    ODS_CHECK_OK(ods_store_schedule(&write_id, store, ODS_CREATE, "Customers",
                                    "{\"CustomerID\":\"HELDX\",\"CompanyName\":\"Held\",\"City\":\"Kiel\"}",
                                    on_done, &write_slot));
    ODS_CHECK_OK(ods_store_cancel(store, write_id));
    ODS_CHECK(ods_test_waiter_wait(&completed, 1, 60000) == 0);
    ODS_CHECK_INT_EQ(write_slot.error, ODS_ECANCELLED);
    pthread_mutex_lock(&app.mutex);
    logon_id = app.last_id;
    pthread_mutex_unlock(&app.mutex);
    ODS_CHECK_OK(ods_store_logon_basic(store, logon_id, "user", "password"));
    ODS_CHECK(ods_test_waiter_wait(&completed, 2, 60000) == 0);
    check_slots(&read_slot, 1);
    ODS_CHECK_INT_EQ(write_slot.completions, 1);
    ODS_CHECK_INT_EQ(count_posts(), posts); /* the create never reached the proxy */
    ods_test_run_once(&r, store, ODS_READ, "Customers('HELDX')", NULL);
    ODS_CHECK_INT_EQ(r.error_code, ODS_ENOTFOUND);
    ods_test_result_free(&r);
    ODS_CHECK_INT_EQ(app.prompts, 1);
    ODS_CHECK_OK(ods_store_close(store));
    ods_test_waiter_destroy(&completed);
    app_destroy(&app);
}

/* Held requests are bounded: one more than max_held_requests is refused at once. */
static void check_held_limit(void) {
    logon_app app;
    ods_store *store;
    slot slots[3];
    int i;
    require_auth("Basic dXNlcjpwYXNzd29yZA==");
    app_init(&app, REPLY_BASIC_LATER);
    ods_test_waiter_init(&completed);
    ods_test_waiter_init(&scheduled);
    app.gate = &scheduled;
    app.gate_count = 1;
    store = open_opening(&app, ODS_DISPATCH_THREAD, 3);
    for (i = 0; i < 3; i++) {
        char path[64];
        memset(&slots[i], 0, sizeof slots[i]);
        slots[i].product = i + 1;
        snprintf(path, sizeof path, "Products(%d)", i + 1);
        ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, path, NULL, on_done, &slots[i]));
    }
    ODS_CHECK_INT_EQ(ods_store_schedule(NULL, store, ODS_READ, "Products(4)", NULL, on_done, NULL), ODS_ELIMIT);
    ODS_CHECK(strstr(ods_error_last()->message, "too many held requests") != NULL);
    ods_test_waiter_signal(&scheduled, NULL); /* now the app answers */
    ODS_CHECK(ods_test_waiter_wait(&completed, 3, 60000) == 0);
    check_slots(slots, 3);
    ODS_CHECK_OK(ods_store_close(store));
    ods_test_waiter_destroy(&completed);
    ods_test_waiter_destroy(&scheduled);
    app_destroy(&app);
}

static void check_hostile_callers(void) {
    logon_app app;
    ods_store *store;
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    slot s;
    uint64_t id;
    const char *lines[] = {"Cookie: x", NULL};

    /* No store. */
    ODS_CHECK_INT_EQ(ods_store_logon_basic(NULL, 1, "user", "password"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_logon_bearer(NULL, 1, "t"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_logon_headers(NULL, 1, lines), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_logon_refuse(NULL, 1), ODS_EINVAL);

    /* Bad logon options. */
    o.service_root = ods_test_server_url(proxy);
    o.logon_flags = 0x100;
    store = NULL;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(store == NULL);
    o.logon_flags = 0;
    o.max_logon_attempts = 11;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.max_logon_attempts = 0;
    o.max_held_requests = -1;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);

    /* A store without a logon callback answers no prompt; a 401 is simply the answer. */
    ODS_CHECK(ods_test_proxy_clear_faults(proxy) == 0);
    store = ods_test_open(ods_test_server_url(proxy), ODS_DISPATCH_THREAD);
    ODS_CHECK_INT_EQ(ods_store_logon_refuse(store, 1), ODS_EUNSUPPORTED);
    require_auth("Basic dXNlcjpwYXNzd29yZA==");
    ODS_CHECK_INT_EQ(ods_store_execute(NULL, store, ODS_READ, "Products(1)", NULL, 30000), ODS_EINVAL); /* out NULL */
    {
        ods_response *r = NULL;
        ODS_CHECK_INT_EQ(ods_store_execute(&r, store, ODS_READ, "Products(1)", NULL, 30000), ODS_EUNAUTHORIZED);
        ODS_CHECK_INT_EQ(ods_error_last()->http_status, 401);
    }
    ODS_CHECK_OK(ods_store_close(store));

    /* Malformed replies, a reply to another prompt and a second reply, all from inside the
     * callback in queue mode (REPLY_CHECKED_NOW); the store then works with the good one. */
    app_init(&app, REPLY_CHECKED_NOW);
    configured_app = &app;
    store = ods_test_open_with(ods_test_server_url(proxy), ODS_DISPATCH_QUEUE, with_logon);
    ODS_CHECK_INT_EQ(app.prompts, 1);
    ODS_CHECK_INT_EQ(app.hostile_failures, 0);
    {
        ods_test_result r;
        ods_test_expect_ok(&r, store, ODS_READ, "Products(3)", NULL, 200);
        ods_test_result_free(&r);
    }
    /* Replying to the answered prompt from outside the callback, later. */
    ODS_CHECK_INT_EQ(ods_store_logon_basic(store, app.last_id, "user", "password"), ODS_ESTATE);
    ODS_CHECK_OK(ods_store_close(store));
    app_destroy(&app);

    /* A prompt nobody answers: close ends the held request (ECANCELLED, once) and the prompt;
     * a reply after close is refused, not a crash. */
    app_init(&app, REPLY_NEVER);
    ods_test_waiter_init(&completed);
    store = open_opening(&app, ODS_DISPATCH_THREAD, 0);
    memset(&s, 0, sizeof s);
    s.product = 1;
    ODS_CHECK_OK(ods_store_schedule(NULL, store, ODS_READ, "Products(1)", NULL, on_done, &s));
    ODS_CHECK(ods_test_waiter_wait(&app.prompted, 1, 60000) == 0);
    pthread_mutex_lock(&app.mutex);
    id = app.last_id;
    pthread_mutex_unlock(&app.mutex);
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(s.completions, 1);
    ODS_CHECK_INT_EQ(s.error, ODS_ECANCELLED);
    ODS_CHECK_INT_EQ(ods_store_logon_basic(store, id, "user", "password"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_logon_refuse(store, id), ODS_EINVAL);
    ods_test_waiter_destroy(&completed);
    app_destroy(&app);
}

typedef struct racing_reply {
    ods_store *store;
    uint64_t id;
    int rc;
} racing_reply;

static void *reply_while_closing(void *arg) {
    racing_reply *r = arg;
    r->rc = ods_store_logon_basic(r->store, r->id, "user", "password");
    return NULL;
}

/* An SSO thread answering just as the app closes the store: a status, never a crash. */
static void check_reply_racing_close(void) {
    int round;
    require_auth("Basic dXNlcjpwYXNzd29yZA==");
    for (round = 0; round < 5; round++) {
        logon_app app;
        racing_reply r;
        pthread_t thread;
        ods_store *store;
        app_init(&app, REPLY_NEVER);
        store = open_opening(&app, ODS_DISPATCH_THREAD, 0);
        ODS_CHECK(ods_test_waiter_wait(&app.prompted, 1, 60000) == 0);
        r.store = store;
        r.id = app.last_id;
        r.rc = 1;
        ODS_CHECK(pthread_create(&thread, NULL, reply_while_closing, &r) == 0);
        if (round % 2) ods_test_sleep_ms(1);
        ODS_CHECK_OK(ods_store_close(store));
        pthread_join(thread, NULL);
        ODS_CHECK(r.rc == ODS_OK || r.rc == ODS_ECLOSED || r.rc == ODS_EINVAL);
        app_destroy(&app);
    }
}

/* A program built against version 2 of the options (before logon) still opens stores. */
static void check_version2_options(void) {
    ods_store_options full = ODS_STORE_OPTIONS_INIT;
    size_t v2 = offsetof(ods_store_options, logon);
    void *old = malloc(v2);
    ods_store *store = NULL;
    ODS_CHECK(old != NULL);
    /* Set in the full struct, then only the old prefix copied: written through the short
     * buffer, GCC -O2 and up reject the stores as partly outside it (-Warray-bounds). */
    full.version = 2;
    full.service_root = "http://127.0.0.1:9/";
    full.connect_timeout_ms = 200;
    memcpy(old, &full, v2);
    ODS_CHECK_OK(ods_store_open(&store, (const ods_store_options *)old, NULL, NULL));
    ODS_CHECK_OK(ods_store_close(store));
    free(old);
}

int main(void) {
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    if (ods_test_proxy_start(&proxy, ods_test_server_url(server), NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no proxy");
    check_version2_options();
    check_hostile_callers();
    check_held_limit();
    check_refused_logon(ODS_DISPATCH_QUEUE);
    check_refused_logon(ODS_DISPATCH_THREAD_INLINE); /* refused inside the callback, on the transport */
    check_refused_in_a_burst();
    check_cancelled_while_held();
    check_reply_racing_close();
    check_race_while_opening(ODS_DISPATCH_THREAD);
    check_race_while_opening(ODS_DISPATCH_THREAD_INLINE);
    check_expiry_in_a_burst(ODS_DISPATCH_QUEUE);
    check_expiry_in_a_burst(ODS_DISPATCH_THREAD_INLINE);
    ODS_CHECK_INT_EQ(ods_test_server_stop(proxy), 0);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("test_logon: ok\n");
    return 0;
}
