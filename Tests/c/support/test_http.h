/*
 * test_http.h - a minimal blocking HTTP/1.1 client for tests: control calls to the test
 * servers (e.g. the fault proxy's control endpoint) and checks of what a server holds,
 * independent of the library under test. Plain http:// only, one request per connection
 * (`Connection: close`), no redirects, no chunked request bodies.
 */
#ifndef ODS_TEST_HTTP_H
#define ODS_TEST_HTTP_H

#include <stddef.h>

typedef struct ods_test_http_response {
    int status;        /* HTTP status code */
    char *headers;     /* raw header block (status line excluded), NUL-terminated */
    char *body;        /* body, NUL-terminated (chunked transfer coding already decoded) */
    size_t body_length;
} ods_test_http_response;

/**
 * Sends `method url` with an optional body (`content_type` may be NULL when body is NULL) and
 * extra header lines (NULL-terminated "Name: value" strings, may be NULL). Waits at most
 * timeout_ms for the whole exchange. Returns 0 and fills *out (release with
 * ods_test_http_response_free), or -1 after printing the reason to stderr.
 */
int ods_test_http(ods_test_http_response *out, const char *method, const char *url,
                  const char *const *headers, const char *content_type, const char *body,
                  long timeout_ms);

/** Frees what ods_test_http put in *response (not response itself). */
void ods_test_http_response_free(ods_test_http_response *response);

#endif /* ODS_TEST_HTTP_H */
