/* test_observers.c - change observers of an offline store through the public header, against
 * the real V4 service (odatapy):
 *
 *   A local update and delete reported with their keys and kinds; a download bringing a change
 *   made on the service reported; an observer of another set not called.
 *   Hostile callers: NULL arguments, a resource path or an unknown set, an online store
 *   (ODS_EUNSUPPORTED), remove twice (ODS_EINVAL), remove from inside the callback (that call
 *   is the last), remove while the callback runs on the store's thread (remove waits for it;
 *   none comes after), accessors given NULL or an index out of range.
 */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

#define BOUND_MS 60000
#define MAX_SEEN 64

static char store_path[512];
static const char *const definitions[] = {"Products", "Categories", NULL};

static void configure_offline(ods_store_options *o) {
    o->kind = ODS_STORE_OFFLINE;
    o->store_path = store_path;
    o->defining_requests = definitions;
}

static ods_store *open_offline_with(const char *url, const char *name, int dispatch) {
    char path[560];
    snprintf(store_path, sizeof store_path, "/tmp/ods-test-observers-%s-%ld.store", name, (long)getpid());
    unlink(store_path);
    snprintf(path, sizeof path, "%s-wal", store_path);
    unlink(path);
    snprintf(path, sizeof path, "%s-shm", store_path);
    unlink(path);
    return ods_test_open_with(url, dispatch, configure_offline);
}

static ods_store *open_offline(const char *url, const char *name) {
    return open_offline_with(url, name, ODS_DISPATCH_THREAD);
}

static void execute_ok(ods_store *store, int mode, const char *path, const char *body) {
    ods_response *r = NULL;
    int rc = ods_store_execute(&r, store, mode, path, body, BOUND_MS);
    if (rc != ODS_OK) ods_test_fail(__FILE__, __LINE__, "%s: %s: %s", path, ods_strerror(rc), ods_error_last()->message);
    ods_response_free(r);
}

/* --- an observer that records what it is told ------------------------------------------ */

typedef struct seen {
    pthread_mutex_t lock;
    ods_test_waiter calls;
    ods_store *expected_store;
    int bad;                         /* wrong store, NULL record, inconsistent record */
    int n;
    int kinds[MAX_SEEN];
    char paths[MAX_SEEN][64];
    ods_observer *self;              /* removed from inside the callback when set */
    int remove_status;
    long sleep_ms;                   /* the callback sleeps this long */
    int in_call;
} seen;

static void seen_init(seen *s, ods_store *store) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    ods_test_waiter_init(&s->calls);
    s->expected_store = store;
    s->remove_status = 1;
}

static void seen_free(seen *s) {
    ods_test_waiter_destroy(&s->calls);
    pthread_mutex_destroy(&s->lock);
}

static void on_changes(ods_store *store, const ods_changes *changes, void *context) {
    seen *s = context;
    pthread_mutex_lock(&s->lock);
    s->in_call = 1;
    if (store != s->expected_store || changes == NULL || ods_changes_entity_set(changes) == NULL) s->bad = 1;
    if (changes != NULL) {
        size_t size = ods_changes_size(changes);
        int summary = ods_changes_is_summary(changes);
        if (summary != 0 || (int64_t)size != ods_changes_count(changes, 0) || size == 0) s->bad = 1;
        for (size_t i = 0; i < size && s->n < MAX_SEEN; i++) {
            const char *path = ods_changes_path(changes, i);
            if (path == NULL) { s->bad = 1; continue; }
            s->kinds[s->n] = ods_changes_kind(changes, i);
            snprintf(s->paths[s->n], sizeof s->paths[0], "%s", path);
            s->n++;
        }
        if (ods_changes_path(changes, size) != NULL || ods_changes_kind(changes, size) != ODS_EINVAL) s->bad = 1;
    }
    long sleep_ms = s->sleep_ms;
    pthread_mutex_unlock(&s->lock);
    ods_test_waiter_signal(&s->calls, "changes");
    if (sleep_ms > 0) ods_test_sleep_ms(sleep_ms);
    pthread_mutex_lock(&s->lock);
    ods_observer *self = s->self;
    s->self = NULL;
    pthread_mutex_unlock(&s->lock);
    if (self != NULL) {
        int status = ods_observer_remove(self);
        pthread_mutex_lock(&s->lock);
        s->remove_status = status;
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_lock(&s->lock);
    s->in_call = 0;
    pthread_mutex_unlock(&s->lock);
}

/* bad under the lock (the callback sets it on the store's thread). */
static int seen_bad(seen *s) {
    pthread_mutex_lock(&s->lock);
    int bad = s->bad;
    pthread_mutex_unlock(&s->lock);
    return bad;
}

/* remove_status under the lock (the callback sets it on the store's thread). */
static int seen_remove_status(seen *s) {
    pthread_mutex_lock(&s->lock);
    int status = s->remove_status;
    pthread_mutex_unlock(&s->lock);
    return status;
}

static int seen_has(seen *s, int kind, const char *path) {
    int found = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->n; i++)
        if (s->kinds[i] == kind && strcmp(s->paths[i], path) == 0) found = 1;
    pthread_mutex_unlock(&s->lock);
    return found;
}

static void wait_calls(seen *s, int count) {
    if (ods_test_waiter_wait(&s->calls, count, BOUND_MS) != 0)
        ods_test_fail(__FILE__, __LINE__, "observer: %d calls expected, got %d", count, ods_test_waiter_count(&s->calls));
}

/* Writes to Categories and waits until `marker` (an observer of Categories) has seen it. */
static void flush_observers(ods_store *store, seen *marker) {
    int before = ods_test_waiter_count(&marker->calls);
    execute_ok(store, ODS_UPDATE, "Categories(1)", "{\"Name\":\"Marker\"}");
    wait_calls(marker, before + 1);
}

/* --- a local write and a download ------------------------------------------------------- */

static void on_download(ods_store *store, int status, const ods_error *error, void *context) {
    (void)store, (void)error;
    ods_test_result *r = context;
    r->status = status;
    ods_test_waiter_signal(&r->waiter, "download");
}

static void check_write_and_download(const char *url) {
    ods_store *store = open_offline(url, "v4");
    ods_store *online = ods_test_open(url, ODS_DISPATCH_THREAD);
    seen products, categories;
    seen_init(&products, store);
    seen_init(&categories, store);
    ods_observer *p = NULL, *c = NULL;
    ODS_CHECK_OK(ods_store_observe(&p, store, "Products", on_changes, &products));
    ODS_CHECK_OK(ods_store_observe(&c, store, "Categories", on_changes, &categories));
    ODS_CHECK(p != NULL && c != NULL);

    execute_ok(store, ODS_UPDATE, "Products(5)", "{\"Name\":\"Five local\"}");
    wait_calls(&products, 1);
    execute_ok(store, ODS_DELETE, "Products(6)", NULL);
    wait_calls(&products, 2);
    ODS_CHECK(seen_has(&products, ODS_CHANGE_UPDATED, "Products(5)"));
    ODS_CHECK(seen_has(&products, ODS_CHANGE_DELETED, "Products(6)"));
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&categories.calls), 0);

    /* A change on the service, brought down by a download. */
    ods_test_result r;
    ods_request *req = NULL;
    ods_test_result_init(&r);
    ODS_CHECK_OK(ods_request_new(&req, online, ODS_UPDATE, "Products(3)", "{\"Name\":\"Three fresh\"}"));
    ODS_CHECK_OK(ods_request_set_etag(req, "*"));
    ODS_CHECK_OK(ods_request_set_completion(req, ods_test_on_complete, &r));
    ODS_CHECK_OK(ods_request_start(req));
    ods_test_wait(online, &r.waiter, 1, BOUND_MS);
    ODS_CHECK_INT_EQ(r.error_code, 0);
    ods_request_free(req);
    ods_test_result_free(&r);

    ods_test_result d;
    ods_test_result_init(&d);
    ODS_CHECK_OK(ods_store_download(store, NULL, NULL, on_download, &d));
    ods_test_wait(store, &d.waiter, 1, BOUND_MS);
    ODS_CHECK_INT_EQ(d.status, ODS_OK);
    ods_test_result_free(&d);
    for (int i = 0; i < 400 && !seen_has(&products, ODS_CHANGE_UPDATED, "Products(3)"); i++) ods_test_sleep_ms(25);
    ODS_CHECK(seen_has(&products, ODS_CHANGE_UPDATED, "Products(3)"));
    ODS_CHECK_INT_EQ(seen_bad(&products), 0);
    ODS_CHECK_INT_EQ(seen_bad(&categories), 0);

    ODS_CHECK_INT_EQ(ods_observer_remove(p), ODS_OK);
    ODS_CHECK_INT_EQ(ods_observer_remove(c), ODS_OK);
    /* Hostile: remove twice. */
    ODS_CHECK_INT_EQ(ods_observer_remove(p), ODS_EINVAL);

    /* "Never called again" is shown with a marker, not a sleep: callbacks run one at a time
     * in commit order, so once the marker has seen a later write to Categories, a call for
     * an earlier write would have run before it. */
    seen marker;
    ods_observer *m = NULL;
    seen_init(&marker, store);
    ODS_CHECK_OK(ods_store_observe(&m, store, "Categories", on_changes, &marker));

    /* Remove from inside the callback: that call is the last. */
    seen once;
    seen_init(&once, store);
    ODS_CHECK_OK(ods_store_observe(&once.self, store, "Products", on_changes, &once));
    execute_ok(store, ODS_UPDATE, "Products(7)", "{\"Name\":\"One\"}");
    wait_calls(&once, 1);
    for (int i = 0; i < 400 && seen_remove_status(&once) == 1; i++) ods_test_sleep_ms(5);
    execute_ok(store, ODS_UPDATE, "Products(7)", "{\"Name\":\"Two\"}");
    flush_observers(store, &marker);
    ODS_CHECK_INT_EQ(seen_remove_status(&once), ODS_OK);
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&once.calls), 1);

    /* Remove while the callback runs on the store's thread: remove waits for it. */
    seen slow;
    seen_init(&slow, store);
    slow.sleep_ms = 300;
    ods_observer *o = NULL;
    ODS_CHECK_OK(ods_store_observe(&o, store, "Products", on_changes, &slow));
    execute_ok(store, ODS_UPDATE, "Products(8)", "{\"Name\":\"Slow\"}");
    wait_calls(&slow, 1);                    /* the callback has started and sleeps */
    ODS_CHECK_INT_EQ(ods_observer_remove(o), ODS_OK);
    pthread_mutex_lock(&slow.lock);
    int still = slow.in_call;
    pthread_mutex_unlock(&slow.lock);
    ODS_CHECK_INT_EQ(still, 0);              /* it finished before remove returned */
    execute_ok(store, ODS_UPDATE, "Products(8)", "{\"Name\":\"After\"}");
    flush_observers(store, &marker);
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&slow.calls), 1);

    /* Hostile arguments. */
    ods_observer *x = (ods_observer *)&x;
    ODS_CHECK_INT_EQ(ods_store_observe(&x, NULL, "Products", on_changes, NULL), ODS_EINVAL);
    ODS_CHECK(x == NULL);
    ODS_CHECK_INT_EQ(ods_store_observe(NULL, store, "Products", on_changes, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_observe(&x, store, NULL, on_changes, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_observe(&x, store, "Products", NULL, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_observe(&x, store, "Products(1)", on_changes, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_observe(&x, store, "Nope", on_changes, NULL), ODS_ENOTFOUND);
    ODS_CHECK_INT_EQ(ods_store_observe(&x, online, "Products", on_changes, NULL), ODS_EUNSUPPORTED);
    ODS_CHECK(x == NULL);
    ODS_CHECK_INT_EQ(ods_observer_remove(NULL), ODS_EINVAL);
    ODS_CHECK(ods_changes_entity_set(NULL) == NULL);
    ODS_CHECK(ods_changes_count(NULL, 0) == -1);
    ODS_CHECK_INT_EQ(ods_changes_is_summary(NULL), ODS_EINVAL);
    ODS_CHECK(ods_changes_size(NULL) == 0);
    ODS_CHECK_INT_EQ(ods_changes_kind(NULL, 0), ODS_EINVAL);
    ODS_CHECK(ods_changes_path(NULL, 0) == NULL);
    ODS_CHECK(ods_changes_old_path(NULL, 0) == NULL);

    /* An observer left registered over close: removed afterwards, never called again. */
    seen late;
    seen_init(&late, store);
    ods_observer *l = NULL;
    ODS_CHECK_OK(ods_store_observe(&l, store, "Products", on_changes, &late));
    ODS_CHECK_INT_EQ(ods_observer_remove(m), ODS_OK);
    ODS_CHECK_INT_EQ(seen_bad(&marker), 0);
    ods_store_close(store);
    ods_store_close(online);
    ODS_CHECK_INT_EQ(ods_observer_remove(l), ODS_OK);

    seen_free(&products);
    seen_free(&categories);
    seen_free(&once);
    seen_free(&slow);
    seen_free(&late);
    seen_free(&marker);
    unlink(store_path);
}

/* Queue dispatch: the observer is called from ods_store_dispatch on the host's thread. */
static void check_queue_mode(const char *url) {
    ods_store *store = open_offline_with(url, "queue", ODS_DISPATCH_QUEUE);
    seen s;
    seen_init(&s, store);
    ods_observer *o = NULL;
    ODS_CHECK_OK(ods_store_observe(&o, store, "Categories", on_changes, &s));
    execute_ok(store, ODS_UPDATE, "Categories(1)", "{\"Name\":\"Queued\"}");
    ods_test_wait(store, &s.calls, 1, BOUND_MS);
    ODS_CHECK(seen_has(&s, ODS_CHANGE_UPDATED, "Categories(1)"));
    ODS_CHECK_INT_EQ(seen_bad(&s), 0);
    ODS_CHECK_INT_EQ(ods_observer_remove(o), ODS_OK);
    execute_ok(store, ODS_UPDATE, "Categories(1)", "{\"Name\":\"Not seen\"}");
    ODS_CHECK(ods_store_dispatch(store, 100) >= 0);
    ODS_CHECK_INT_EQ(ods_test_waiter_count(&s.calls), 1);
    ods_store_close(store);
    seen_free(&s);
    unlink(store_path);
}

int main(void) {
    ods_test_server *v4 = NULL;
    if (ods_test_server_start_v4(&v4, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    check_write_and_download(ods_test_server_url(v4));
    check_queue_mode(ods_test_server_url(v4));
    ODS_CHECK_INT_EQ(ods_test_server_stop(v4), 0);
    printf("observers: ok\n");
    return 0;
}
