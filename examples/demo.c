/* demo.c - the example program of `bash scripts/demo.sh`: a tour of libodatastore's C API
 * against a real OData V4 service.
 *
 *   demo <service root URL>
 *
 * It opens an online store, reads with the one-call form (ods_store_schedule + completion),
 * uses the typed accessors, pages through a collection, creates, updates (with the ETag the
 * read handed out) and deletes an entity through request handles with a delegate, calls a
 * function import, and closes the store. Callbacks arrive on the store's own thread; this
 * program waits for each one with a condition variable to keep the tour linear.
 */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- waiting for a callback ---------------------------------------------------------- */

typedef struct outcome {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int done;
    int failed;
    char etag[64];
} outcome;

static void outcome_init(outcome *o) {
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->mutex, NULL);
    pthread_cond_init(&o->cond, NULL);
}

static void outcome_signal(outcome *o, int failed) {
    pthread_mutex_lock(&o->mutex);
    o->done = 1;
    o->failed = failed;
    pthread_cond_signal(&o->cond);
    pthread_mutex_unlock(&o->mutex);
}

static int outcome_wait(outcome *o) {
    pthread_mutex_lock(&o->mutex);
    while (!o->done) pthread_cond_wait(&o->cond, &o->mutex);
    pthread_mutex_unlock(&o->mutex);
    pthread_cond_destroy(&o->cond);
    pthread_mutex_destroy(&o->mutex);
    return o->failed ? 1 : 0;
}

/* ---- callbacks ------------------------------------------------------------------------ */

static void on_state(ods_store *store, int state, const ods_error *error, void *context) {
    static const char *names[] = {"?", "opening", "open", "closing", "closed", "failed"};
    (void)store;
    (void)context;
    printf("  [store] %s%s%s\n", state >= 1 && state <= 5 ? names[state] : "?",
           error ? ": " : "", error ? error->message : "");
}

/* Prints each entity of a collection with the typed accessors. */
static void on_products(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    size_t i, n;
    (void)request;
    if (error) {
        printf("  failed: %s\n", error->message);
        outcome_signal(context, 1);
        return;
    }
    n = ods_response_entity_count(response);
    for (i = 0; i < n; i++) {
        const ods_entity *e = ods_response_entity(response, i);
        const char *name = NULL, *price = NULL;
        int64_t id = 0, stock = 0;
        ods_entity_get_int64(&id, e, "ID");
        ods_entity_get_string(&name, e, "Name");
        ods_entity_get_string(&price, e, "Price"); /* Edm.Decimal: exact digits, as text */
        ods_entity_get_int64(&stock, e, "Stock");  /* Edm.Int64: exact, never via a double */
        printf("  #%-4lld %-12s price %8s  stock %lld\n", (long long)id, name ? name : "-", price ? price : "-",
               (long long)stock);
    }
    if (ods_response_count(response) >= 0)
        printf("  (%lld in all)\n", (long long)ods_response_count(response));
    if (ods_response_next_link(response)) printf("  next page: %s\n", ods_response_next_link(response));
    outcome_signal(context, 0);
}

/* Prints the canonical JSON of any response and keeps its ETag. */
static void on_json(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    outcome *o = context;
    if (error) {
        printf("  %s failed: %s (HTTP %d)\n", ods_request_path(request), error->message, error->http_status);
        outcome_signal(o, 1);
        return;
    }
    printf("  HTTP %d  %s\n", ods_response_status(response),
           ods_response_json(response, NULL)[0] ? ods_response_json(response, NULL) : "(no body)");
    if (ods_response_etag(response)) snprintf(o->etag, sizeof o->etag, "%s", ods_response_etag(response));
    outcome_signal(o, 0);
}

/* A delegate: every step of a request's life, with the request's context. */
static void d_started(ods_request *request, void *context) {
    (void)context;
    printf("  [request %llu] started: %s\n", (unsigned long long)ods_request_id(request), ods_request_path(request));
}
static void d_failed(ods_request *request, const ods_error *error, const ods_response *response, void *context) {
    (void)response;
    printf("  [request %llu] failed: %s\n", (unsigned long long)ods_request_id(request), error->message);
    outcome_signal(context, 1);
}
static void d_finished(ods_request *request, void *context) {
    printf("  [request %llu] finished\n", (unsigned long long)ods_request_id(request));
    outcome_signal(context, 0);
}

/* ---- the tour ------------------------------------------------------------------------- */

static int schedule(ods_store *store, int mode, const char *path, const char *body, ods_completion_cb cb, outcome *o) {
    outcome_init(o);
    if (ods_store_schedule(NULL, store, mode, path, body, cb, o) != ODS_OK) {
        printf("  cannot schedule %s: %s\n", path, ods_error_last()->message);
        return 1;
    }
    return outcome_wait(o);
}

int main(int argc, char **argv) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    ods_request *request = NULL;
    ods_request_delegate delegate = ODS_REQUEST_DELEGATE_INIT;
    outcome o;
    char etag[64];
    int failures = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: demo <service root URL>\n");
        return 64;
    }
    printf("libodatastore %s\n", ods_version());

    printf("\n1. Open an online store on %s\n", argv[1]);
    options.service_root = argv[1];
    if (ods_store_open(&store, &options, on_state, NULL) != ODS_OK) {
        fprintf(stderr, "open: %s\n", ods_error_last()->message);
        return 1;
    }

    printf("\n2. Read with a filter (held until the store is open, then run)\n");
    failures += schedule(store, ODS_READ, "Products?$filter=Price gt 990&$orderby=Price desc&$count=true", NULL,
                         on_products, &o);
    printf("   the service speaks OData %d.0\n", ods_store_odata_version(store));

    printf("\n3. One page of a larger collection\n");
    failures += schedule(store, ODS_READ, "Products?$top=3&$skip=10&$select=ID,Name,Price,Stock", NULL, on_products, &o);

    printf("\n4. Create an entity\n");
    failures += schedule(store, ODS_CREATE, "Products",
                         "{\"ID\":5000,\"Name\":\"Demo\",\"Price\":\"19.99\",\"Stock\":\"9007199254740993\","
                         "\"Discontinued\":false,\"ReleaseDate\":\"2026-11-22\",\"CategoryID\":1}",
                         on_json, &o);
    snprintf(etag, sizeof etag, "%s", o.etag);

    printf("\n5. Update it with a request handle: configured, then started, with a delegate\n");
    delegate.started = d_started;
    delegate.failed = d_failed;
    delegate.finished = d_finished;
    outcome_init(&o);
    if (ods_request_new(&request, store, ODS_UPDATE, "Products(5000)", "{\"Price\":\"17.49\"}") == ODS_OK &&
        ods_request_set_etag(request, etag) == ODS_OK &&        /* If-Match: the ETag the create returned */
        ods_request_set_delegate(request, &delegate) == ODS_OK &&
        ods_request_set_context(request, &o) == ODS_OK && ods_request_start(request) == ODS_OK) {
        failures += outcome_wait(&o);
    } else {
        printf("  cannot start the update: %s\n", ods_error_last()->message);
        failures++;
    }
    ods_request_free(request);

    printf("\n6. The old ETag is stale now: the service refuses the change (412)\n");
    outcome_init(&o);
    if (ods_request_new(&request, store, ODS_UPDATE, "Products(5000)", "{\"Price\":\"1.00\"}") == ODS_OK &&
        ods_request_set_etag(request, etag) == ODS_OK && ods_request_set_completion(request, on_json, &o) == ODS_OK &&
        ods_request_start(request) == ODS_OK) {
        if (outcome_wait(&o) == 0) failures++; /* this one must fail */
    }
    ods_request_free(request);

    printf("\n7. Read it back, call a function import, delete it\n");
    failures += schedule(store, ODS_READ, "Products(5000)", NULL, on_json, &o);
    snprintf(etag, sizeof etag, "%s", o.etag);
    failures += schedule(store, ODS_FUNCTION, "MostExpensive()", NULL, on_json, &o);
    outcome_init(&o);
    if (ods_request_new(&request, store, ODS_DELETE, "Products(5000)", NULL) == ODS_OK &&
        ods_request_set_etag(request, etag) == ODS_OK && ods_request_set_completion(request, on_json, &o) == ODS_OK &&
        ods_request_start(request) == ODS_OK) {
        failures += outcome_wait(&o);
    }
    ods_request_free(request);

    printf("\n8. Close the store (cancels anything in flight, delivers every last callback)\n");
    if (ods_store_close(store) != ODS_OK) {
        fprintf(stderr, "close: %s\n", ods_error_last()->message);
        return 1;
    }
    printf("\n%s\n", failures ? "demo: something went wrong" : "demo: every step worked");
    return failures ? 1 : 0;
}
