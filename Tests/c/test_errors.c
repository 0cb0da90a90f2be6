/* test_errors.c - status codes, ods_strerror, ods_error_last (thread-local), ods_free, and
 * NULL / unknown-enum arguments to every public function: a clear status, never a crash. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stddef.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"

static void check_strerror(void) {
    int code;
    const char *seen[32];
    ODS_CHECK_STR_EQ(ods_strerror(ODS_OK), "ok");
    for (code = ODS_ERROR; code >= ODS_ETYPE; code--) {
        const char *text = ods_strerror(code);
        int i;
        ODS_CHECK(text != NULL && strlen(text) > 0);
        ODS_CHECK(strcmp(text, "unknown status") != 0);
        for (i = 0; i < -code - 1; i++) ODS_CHECK(strcmp(seen[i], text) != 0); /* each distinct */
        seen[-code - 1] = text;
    }
    ODS_CHECK_STR_EQ(ods_strerror(-9999), "unknown status");
    ODS_CHECK_STR_EQ(ods_strerror(42), "unknown status");
}

static void *other_thread(void *arg) {
    const ods_error *e = ods_error_last();
    (void)arg;
    /* A new thread has no error, whatever the main thread did. */
    ODS_CHECK_INT_EQ(e->code, ODS_OK);
    ODS_CHECK_STR_EQ(e->message, "no error");
    ODS_CHECK_INT_EQ(ods_request_start(NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_EINVAL);
    return NULL;
}

static void check_error_last(void) {
    const ods_error *e;
    pthread_t t;
    ods_error_clear();
    e = ods_error_last();
    ODS_CHECK(e != NULL);
    ODS_CHECK_INT_EQ(e->code, ODS_OK);
    ODS_CHECK_INT_EQ(e->http_status, 0);
    ODS_CHECK(e->odata_code == NULL);
    ODS_CHECK_INT_EQ(e->position, -1);

    ODS_CHECK_INT_EQ(ods_store_open(NULL, NULL, NULL, NULL), ODS_EINVAL);
    e = ods_error_last();
    ODS_CHECK_INT_EQ(e->code, ODS_EINVAL);
    ODS_CHECK(strstr(e->message, "out") != NULL); /* names the argument */

    ODS_CHECK(pthread_create(&t, NULL, other_thread, NULL) == 0);
    ODS_CHECK(pthread_join(t, NULL) == 0);
    /* The other thread's failure did not touch this thread's record. */
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "out") != NULL);

    /* Successful calls do not clear it; ods_error_clear does. */
    ODS_CHECK(ods_version() != NULL);
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_EINVAL);
    ods_error_clear();
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_OK);
}

static void check_null_arguments(void) {
    ods_store *store = (ods_store *)1; /* must be overwritten with NULL on failure */
    ods_request *request = (ods_request *)1;
    uint64_t id = 7;
    const char *name = "x", *value = "y";
    int64_t i64;
    double d;
    int b;
    size_t len = 99;
    ods_store_options options = ODS_STORE_OPTIONS_INIT;

    ods_free(NULL);
    ODS_CHECK_INT_EQ(ods_store_open(&store, NULL, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(store == NULL);
    ODS_CHECK_INT_EQ(ods_store_open(&store, &options, NULL, NULL), ODS_EINVAL); /* no service_root */
    ODS_CHECK(strstr(ods_error_last()->message, "service_root") != NULL);
    ODS_CHECK_INT_EQ(ods_store_close(NULL), ODS_OK);
    ODS_CHECK_INT_EQ(ods_store_get_state(NULL), ODS_EINVAL);
    ODS_CHECK(ods_store_context(NULL) == NULL);
    ODS_CHECK_INT_EQ(ods_store_odata_version(NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_set_default_delegate(NULL, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_fd(NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_dispatch(NULL, 0), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_schedule(&id, NULL, ODS_READ, "X", NULL, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(id == 0);
    ODS_CHECK_INT_EQ(ods_store_cancel(NULL, 1), ODS_EINVAL);

    ODS_CHECK_INT_EQ(ods_request_new(&request, NULL, ODS_READ, "X", NULL), ODS_EINVAL);
    ODS_CHECK(request == NULL);
    ODS_CHECK_INT_EQ(ods_request_new(NULL, NULL, ODS_READ, "X", NULL), ODS_EINVAL);
    ods_request_free(NULL);
    ODS_CHECK_INT_EQ(ods_request_set_delegate(NULL, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_completion(NULL, NULL, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_context(NULL, NULL), ODS_EINVAL);
    ODS_CHECK(ods_request_context(NULL) == NULL);
    ODS_CHECK_INT_EQ(ods_request_set_header(NULL, "A", "b"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_etag(NULL, "*"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_paging(NULL, ODS_PAGING_FOLLOW), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_set_timeout(NULL, 10), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_start(NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_cancel(NULL), ODS_EINVAL);
    ODS_CHECK(ods_request_id(NULL) == 0);
    ODS_CHECK_INT_EQ(ods_request_get_state(NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_mode(NULL), ODS_EINVAL);
    ODS_CHECK(ods_request_path(NULL) == NULL);
    ODS_CHECK(ods_request_store(NULL) == NULL);

    ODS_CHECK_INT_EQ(ods_response_status(NULL), ODS_EINVAL);
    ODS_CHECK(ods_response_json(NULL, &len) == NULL);
    ODS_CHECK(len == 0);
    ODS_CHECK(ods_response_body(NULL, NULL) == NULL);
    ODS_CHECK(ods_response_header(NULL, "ETag") == NULL);
    ODS_CHECK(ods_response_header_count(NULL) == 0);
    ODS_CHECK_INT_EQ(ods_response_header_at(&name, &value, NULL, 0), ODS_EINVAL);
    ODS_CHECK(name == NULL && value == NULL);
    ODS_CHECK(ods_response_etag(NULL) == NULL);
    ODS_CHECK(ods_response_next_link(NULL) == NULL);
    ODS_CHECK(ods_response_count(NULL) == -1);
    ODS_CHECK(ods_response_entity_count(NULL) == 0);
    ODS_CHECK(ods_response_entity(NULL, 0) == NULL);

    ODS_CHECK(ods_entity_json(NULL) == NULL);
    ODS_CHECK(ods_entity_etag(NULL) == NULL);
    ODS_CHECK_INT_EQ(ods_entity_value_type(NULL, "x"), ODS_VALUE_ABSENT);
    ODS_CHECK_INT_EQ(ods_entity_get_string(&name, NULL, "x"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_entity_get_string(NULL, NULL, "x"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_entity_get_int64(&i64, NULL, "x"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_entity_get_double(&d, NULL, "x"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_entity_get_bool(&b, NULL, "x"), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_set_release(NULL, NULL), ODS_EINVAL);
    {
        char *out = (char *)1;
        ODS_CHECK_INT_EQ(ods_store_key_path(&out, NULL, "Products", "1"), ODS_EINVAL);
        ODS_CHECK(out == NULL);
    }
}

/* The function forms of the _INIT macros: the same bytes, for the caller's version only. */
static void check_init_functions(void) {
    ods_store_options macro = ODS_STORE_OPTIONS_INIT, fn;
    ods_request_delegate dmacro = ODS_REQUEST_DELEGATE_INIT, dfn;
    unsigned char v1[sizeof(ods_store_options)];
    size_t i;
    memset(&fn, 0xAB, sizeof fn);
    ODS_CHECK_OK(ods_store_options_init(&fn, ODS_STORE_OPTIONS_VERSION));
    /* Field by field (padding bytes are not part of the value). */
    ODS_CHECK(fn.version == macro.version && fn.kind == macro.kind && fn.service_root == NULL &&
              fn.dispatch == 0 && fn.odata_version == 0 && fn.auth == 0 && fn.username == NULL &&
              fn.password == NULL && fn.bearer_token == NULL && fn.headers == NULL && fn.ca_bundle == NULL &&
              fn.insecure_skip_tls_verify == 0 && fn.connect_timeout_ms == 0 && fn.request_timeout_ms == 0 &&
              fn.max_connections == 0 && fn.user_agent == NULL && fn.csrf_protection == ODS_CSRF_AUTO &&
              fn.metadata_path == NULL && fn.max_response_bytes == 0 && fn.max_compression_ratio == 0 &&
              fn.max_error_message_bytes == 0 && fn.max_pages == 0 && fn.max_pending_requests == 0 &&
              fn.max_retries == 0);
    /* A program built against version 1 has a shorter struct: nothing past it is written. */
    memset(v1, 0xAB, sizeof v1);
    ODS_CHECK_OK(ods_store_options_init((ods_store_options *)(void *)v1, 1));
    ODS_CHECK_INT_EQ(((ods_store_options *)(void *)v1)->version, 1);
    for (i = offsetof(ods_store_options, max_response_bytes); i < sizeof v1; i++) ODS_CHECK(v1[i] == 0xAB);
    ODS_CHECK_INT_EQ(ods_store_options_init(&fn, 0), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_options_init(&fn, ODS_STORE_OPTIONS_VERSION + 1), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_options_init(NULL, ODS_STORE_OPTIONS_VERSION), ODS_EINVAL);
    memset(&dfn, 0xAB, sizeof dfn);
    ODS_CHECK_OK(ods_request_delegate_init(&dfn, ODS_REQUEST_DELEGATE_VERSION));
    ODS_CHECK(dfn.version == dmacro.version && dfn.started == NULL && dfn.response == NULL &&
              dfn.failed == NULL && dfn.finished == NULL);
    ODS_CHECK_INT_EQ(ods_request_delegate_init(&dfn, 2), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_delegate_init(NULL, 1), ODS_EINVAL);
}

/* Positions are byte offsets into the caller's string: url + position is the problem. */
static void check_byte_positions(void) {
    const char *url = "Customers('\xe6\x97\xa5\xe6\x9c\xac')x"; /* two 3-byte characters */
    char *out = (char *)1;
    ODS_CHECK_INT_EQ(ods_url_check(&out, url, NULL, 0, 4, NULL), ODS_ESYNTAX);
    ODS_CHECK(out == NULL);
    ODS_CHECK_INT_EQ(ods_error_last()->position, 19); /* 15 characters, 19 bytes */
    ODS_CHECK(url[ods_error_last()->position] == 'x');
}

static const char *bad_definitions[] = {"Products?$filter=Price gt", NULL};

/* A program built against the version 1 header passes a shorter struct: the library must not
 * read past it (memcheck.errors runs this under Valgrind, which reports any over-read). */
static void check_version1_options(void) {
    ods_store_options full = ODS_STORE_OPTIONS_INIT;
    size_t v1 = offsetof(ods_store_options, store_path);
    void *old = malloc(v1);
    ods_store *store = NULL;
    ODS_CHECK(old != NULL);
    /* Set in the full struct, then only the old prefix copied: written through the short
     * buffer, GCC -O2 and up reject the stores as partly outside it (-Warray-bounds). */
    full.version = 1;
    full.service_root = "http://127.0.0.1:9/";
    full.connect_timeout_ms = 200;
    memcpy(old, &full, v1);
    ODS_CHECK_OK(ods_store_open(&store, (const ods_store_options *)old, NULL, NULL));
    ODS_CHECK_OK(ods_store_close(store));
    free(old);
}

static void check_invalid_options(void) {
    ods_store *store = NULL;
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    const char *bad_headers[] = {"NoColonHere", NULL};

    o.service_root = "http://127.0.0.1:9/";
    o.version = 0;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "ODS_STORE_OPTIONS_INIT") != NULL);
    o.version = 999;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.version = ODS_STORE_OPTIONS_VERSION;

    o.service_root = "ftp://example.org/";
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.service_root = "not a url";
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    /* A malformed host or port fails open, naming the problem (not every request in libcurl). */
    o.service_root = "http://[::1";
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "IP literal") != NULL);
    o.service_root = "http://127.0.0.1:70000/";
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "port") != NULL);
    o.service_root = "http://ho<st/";
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.service_root = "http://127.0.0.1:9/";

    o.kind = 7;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.kind = ODS_STORE_MIXED; /* without store_path: mixed stores take the offline options */
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.kind = ODS_STORE_OFFLINE; /* without store_path */
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.store_path = "/tmp/never-created.store";
    o.defining_requests = bad_definitions; /* a syntax error: reported by ods_store_open at once */
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_ESYNTAX);
    ODS_CHECK_INT_EQ(ods_error_last()->position, 25);
    o.download_page_size = -2;
    o.defining_requests = NULL;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.download_page_size = 0;
    o.store_path = NULL;
    o.kind = ODS_STORE_ONLINE;
    o.dispatch = 5;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.dispatch = ODS_DISPATCH_THREAD_INLINE + 1;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.dispatch = -1;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.dispatch = ODS_DISPATCH_THREAD;
    o.odata_version = 3;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.odata_version = 0;
    o.auth = 9;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.auth = ODS_AUTH_BASIC; /* without a username */
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.auth = ODS_AUTH_BEARER; /* without a token */
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.auth = ODS_AUTH_NONE;
    o.headers = bad_headers;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    /* The HTTP layer's own headers cannot be set store-wide (a Content-Length on a GET made
     * the service wait for a body that never came). */
    {
        const char *framing[] = {"X-Fine: 1", "content-length: 5", NULL};
        o.headers = framing;
        ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
        ODS_CHECK(strstr(ods_error_last()->message, "Content-Length header is the HTTP layer's") != NULL);
    }
    /* A value that would split the request's header block is named as the value's fault. */
    {
        const char *split[] = {"X-A: a\r\nX-B: b", NULL};
        o.headers = split;
        ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
        ODS_CHECK(strstr(ods_error_last()->message, "header value for X-A contains CR, LF, NUL or another control character") != NULL);
    }
    /* Other control characters are refused too (RFC 9110 5.5: servers answer 400); a tab is fine. */
    {
        const char *escape[] = {"X-A: a\x1b[31mb", NULL};
        const char *del[] = {"X-A: a\x7f", NULL};
        o.headers = escape;
        ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
        o.headers = del;
        ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
        o.headers = NULL;
        o.user_agent = "agent\x01";
        ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
        o.user_agent = NULL;
    }
    o.headers = NULL;
    o.request_timeout_ms = -1;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.request_timeout_ms = 0;
    o.max_connections = -2;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.max_connections = 0;
    o.csrf_protection = 4;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "ODS_CSRF_OFF") != NULL);
    o.csrf_protection = ODS_CSRF_AUTO;
    o.max_response_bytes = -1;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    o.max_response_bytes = 0;
    o.max_pending_requests = -5;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "max_pending_requests") != NULL);
    o.max_pending_requests = 0;
    o.max_retries = 11;
    ODS_CHECK_INT_EQ(ods_store_open(&store, &o, NULL, NULL), ODS_EINVAL);
    ODS_CHECK(strstr(ods_error_last()->message, "max_retries") != NULL);
    ODS_CHECK(store == NULL);
}

/* Handles are checked against the live ones before use: a store used after close, closed
 * twice, a request freed twice, or a pointer that never was a handle gives ODS_EINVAL, not a
 * crash (Valgrind runs this test too: nothing freed is read). */
static void check_stale_handles(void) {
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    ods_request *req = NULL, *other = NULL;
    int not_a_handle = 42;
    o.service_root = "http://127.0.0.1:9/odata/"; /* nothing listens: the open fails later, harmlessly */
    ODS_CHECK_OK(ods_store_open(&store, &o, NULL, NULL));
    ODS_CHECK_OK(ods_request_new(&req, store, ODS_READ, "Products", NULL));
    ODS_CHECK_OK(ods_request_new(&other, store, ODS_READ, "Products", NULL));
    ods_request_free(req);
    ods_error_clear();
    ods_request_free(req); /* the second free is refused */
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_start(req), ODS_EINVAL);
    ODS_CHECK_OK(ods_store_close(store));
    ODS_CHECK_INT_EQ(ods_store_close(store), ODS_EINVAL); /* closed twice */
    ODS_CHECK(strstr(ods_error_last()->message, "closed already") != NULL);
    ODS_CHECK_INT_EQ(ods_store_get_state(store), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_new(&req, store, ODS_READ, "Products", NULL), ODS_EINVAL);
    ODS_CHECK(ods_request_store(other) == NULL);
    ods_request_free(other);
    ODS_CHECK_INT_EQ(ods_store_get_state((ods_store *)(void *)&not_a_handle), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_request_get_state((ods_request *)(void *)&not_a_handle), ODS_EINVAL);
}

int main(void) {
    check_version1_options();
    check_strerror();
    check_error_last();
    check_null_arguments();
    check_init_functions();
    check_byte_positions();
    check_invalid_options();
    check_stale_handles();
    printf("errors: ok\n");
    return 0;
}
