/*
 * test_request.h - run library requests synchronously in C tests and keep what they
 * delivered (copies, since responses are only borrowed during callbacks).
 */
#ifndef ODS_TEST_REQUEST_H
#define ODS_TEST_REQUEST_H

#include <odatastore.h>
#include <pthread.h>
#include <stdint.h>

#include "test_support.h"

/** What one request delivered to its completion callback. */
typedef struct ods_test_result {
    ods_test_waiter waiter;     /* signalled once by the completion */
    int completions;            /* how many times the completion ran (must be 1) */
    uint64_t request_id;
    pthread_t thread;           /* the thread the completion ran on */
    int error_code;             /* 0 on success */
    char *error_message;
    int error_http_status;
    char *odata_code;
    int status;                 /* HTTP status; 0 without a response */
    char *json;                 /* canonical JSON, "" without */
    char *etag;
    char *next_link;
    int64_t count;
    size_t entity_count;
    char *first_entity_json;
} ods_test_result;

void ods_test_result_init(ods_test_result *r);
void ods_test_result_free(ods_test_result *r);

/** The completion callback that fills an ods_test_result given as context. */
void ods_test_on_complete(ods_request *request, const ods_response *response,
                          const ods_error *error, void *context);

/**
 * Schedules a request with ods_test_on_complete and waits for it (dispatching on the
 * calling thread when the store is in queue mode). Fails the test when scheduling fails
 * or nothing arrives within 60 s.
 */
void ods_test_run(ods_test_result *r, ods_store *store, int mode, const char *path, const char *body);

/** ods_test_result_init + ods_test_run + a check that the completion ran exactly once. */
void ods_test_run_once(ods_test_result *r, ods_store *store, int mode, const char *path, const char *body);

/** ods_test_run_once, then fails the test unless the request succeeded with `status`. */
void ods_test_expect_ok(ods_test_result *r, ods_store *store, int mode, const char *path, const char *body,
                        int status);

/** Opens an online store on `url` and waits until it is open (fails the test otherwise). */
ods_store *ods_test_open(const char *url, int dispatch);

/** Same with extra options applied by `configure` (may be NULL) before opening. */
ods_store *ods_test_open_with(const char *url, int dispatch, void (*configure)(ods_store_options *));

/** Waits in queue mode by dispatching, in thread mode by waiting, until `count` events. */
void ods_test_wait(ods_store *store, ods_test_waiter *waiter, int count, long timeout_ms);

/** strdup that accepts NULL. */
char *ods_test_strdup(const char *s);

#endif
