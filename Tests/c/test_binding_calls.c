/* test_binding_calls.c - the one-call forms for language bindings: ods_request_submit
 * (create + completion + start, the request handed back) and ods_response_retain_json (a
 * new reference to a borrowed response and its JSON). Against the real V4 service, in both
 * dispatch modes: the completion gets the request and its context, the handle works as one
 * from ods_request_new (id, state, wait, cancel, free once), failures leave no request and
 * no callback, the retained response and its JSON outlive the callback and the request. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

typedef struct seen {
    ods_test_waiter waiter;
    ods_request *request;
    int error_code;
    ods_response *kept;
    const char *json;
    size_t json_len;
    int calls;
} seen;

static void on_complete(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    seen *s = context;
    s->request = request;
    s->calls++;
    s->error_code = error ? error->code : 0;
    if (response) {
        s->json = ods_response_retain_json(response, &s->json_len);
        s->kept = (ods_response *)response; /* the same pointer, now our reference */
    }
    ods_test_waiter_signal(&s->waiter, NULL);
}

static void check_mode(const char *url, int dispatch) {
    ods_store *store = ods_test_open(url, dispatch);
    ods_request *req;
    ods_response *copy = NULL;
    const ods_entity *e;
    int64_t id = 0;
    size_t len = 0;
    seen s;

    /* A GET: the completion gets the request and the context; the response is kept. */
    memset(&s, 0, sizeof s);
    ods_test_waiter_init(&s.waiter);
    req = ods_request_submit(store, ODS_READ, "Products(7)", NULL, on_complete, &s);
    ODS_CHECK(req != NULL);
    ODS_CHECK(ods_request_id(req) != 0);
    ODS_CHECK_INT_EQ(ods_request_start(req), ODS_ESTATE); /* already started */
    ODS_CHECK_INT_EQ(ods_request_set_header(req, "X-Late", "1"), ODS_ESTATE);
    ods_test_wait(store, &s.waiter, 1, 60000);
    ODS_CHECK_OK(ods_request_wait(req, 60000));
    ODS_CHECK(s.request == req);
    ODS_CHECK_INT_EQ(s.calls, 1);
    ODS_CHECK_INT_EQ(s.error_code, 0);
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FINISHED);
    ODS_CHECK_STR_EQ(ods_request_path(req), "Products(7)");
    ODS_CHECK(s.kept != NULL && s.json != NULL);
    ODS_CHECK_INT_EQ(s.json_len, strlen(s.json));
    ODS_CHECK(strstr(s.json, "\"ID\":7") != NULL);
    /* the JSON ods_response_json gives, and that of the response ods_request_response holds */
    ODS_CHECK(ods_response_json(s.kept, &len) == s.json && len == s.json_len);
    ODS_CHECK_OK(ods_request_response(&copy, req));
    ODS_CHECK_STR_EQ(ods_response_json(copy, NULL), s.json);
    ods_response_free(copy);
    ods_request_free(req);
    ods_request_free(req); /* a second free is refused, not an over-release */
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_EINVAL);
    /* the kept reference outlives the callback and the request */
    ODS_CHECK_INT_EQ(ods_response_status(s.kept), 200);
    e = ods_response_entity(s.kept, 0);
    ODS_CHECK_OK(ods_entity_get_int64(&id, e, "ID"));
    ODS_CHECK_INT_EQ(id, 7);
    ODS_CHECK(strstr(s.json, "\"ID\":7") != NULL);
    ods_response_free(s.kept);
    ods_test_waiter_destroy(&s.waiter);

    /* A failure: the error and the service's error response. */
    memset(&s, 0, sizeof s);
    ods_test_waiter_init(&s.waiter);
    req = ods_request_submit(store, ODS_READ, "Products(99999)", NULL, on_complete, &s);
    ODS_CHECK(req != NULL);
    ods_test_wait(store, &s.waiter, 1, 60000);
    ODS_CHECK_INT_EQ(s.error_code, ODS_ENOTFOUND);
    ODS_CHECK(s.kept != NULL && s.json != NULL);
    ODS_CHECK_INT_EQ(ods_response_status(s.kept), 404);
    ods_response_free(s.kept);
    ODS_CHECK_OK(ods_request_wait(req, 60000));
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FAILED);
    ods_request_free(req);
    ods_test_waiter_destroy(&s.waiter);

    /* No completion: fire, then wait on the handle. */
    req = ods_request_submit(store, ODS_READ, "Products(1)", NULL, NULL, NULL);
    ODS_CHECK(req != NULL);
    ODS_CHECK_OK(ods_request_wait(req, 60000));
    ODS_CHECK_INT_EQ(ods_request_get_state(req), ODS_REQUEST_FINISHED);
    ods_request_free(req);

    /* Bad input fails at once: NULL, the error set, no request, no callback. */
    memset(&s, 0, sizeof s);
    ODS_CHECK(ods_request_submit(store, 999, "Products(1)", NULL, on_complete, &s) == NULL);
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_EINVAL);
    ODS_CHECK(ods_request_submit(store, ODS_READ, NULL, NULL, on_complete, &s) == NULL);
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_EINVAL);
    ODS_CHECK(ods_request_submit(store, ODS_CREATE, "Products", "{not json", on_complete, &s) == NULL);
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_EINVAL);
    ODS_CHECK(ods_request_submit(NULL, ODS_READ, "Products(1)", NULL, on_complete, &s) == NULL);
    ODS_CHECK(ods_error_last()->code != 0);

    ODS_CHECK_OK(ods_store_close(store));
    /* After close: refused, nothing left behind. */
    ODS_CHECK(ods_request_submit(store, ODS_READ, "Products(1)", NULL, on_complete, &s) == NULL);
    ODS_CHECK(ods_error_last()->code != 0);
    ODS_CHECK_INT_EQ(s.calls, 0);
}

int main(void) {
    ods_test_server *server = NULL;
    size_t len = 99;
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    ODS_CHECK(ods_response_retain_json(NULL, &len) == NULL);
    ODS_CHECK_INT_EQ(len, 0);
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_EINVAL);
    ODS_CHECK(ods_response_retain_json(NULL, NULL) == NULL);
    check_mode(ods_test_server_url(server), ODS_DISPATCH_THREAD);
    check_mode(ods_test_server_url(server), ODS_DISPATCH_QUEUE);
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("binding calls: ok\n");
    return 0;
}
