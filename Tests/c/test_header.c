/* test_header.c - include/odatastore.h is clean C and its initialiser macros are complete.
 *
 * Tests/c/CMakeLists.txt compiles this file alone with -std=c99/c11/c17 -Wall -Wextra
 * -pedantic -Werror (and -Wmissing-field-initializers through -Wextra: an _INIT macro that
 * misses an appended field fails here), and also builds and runs it as an ordinary test.
 * It calls no library function, so it builds whatever the library implements. */
#include <odatastore.h>
#include <odatastore.h> /* include guard */

#include <stdio.h>

#define EXPECT(cond)                                                            \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);     \
            failures++;                                                         \
        }                                                                       \
    } while (0)

/* Prototypes, compared with function pointer types inside sizeof: not evaluated, so no
 * reference to the library is made; a mismatch is a diagnostic (an error with -Werror). */
typedef const char *(*version_fn)(void);
typedef int (*open_fn)(ods_store **, const ods_store_options *, ods_store_state_cb, void *);
typedef int (*schedule_fn)(uint64_t *, ods_store *, int, const char *, const char *,
                           ods_completion_cb, void *);

static int check_codes(void) {
    static const int codes[] = {
        ODS_ERROR, ODS_EINVAL, ODS_ENOMEM, ODS_ESTATE, ODS_ENOTFOUND, ODS_ECONFLICT,
        ODS_EPRECONDITION, ODS_EUNAUTHORIZED, ODS_EFORBIDDEN, ODS_EHTTP, ODS_ESERVER,
        ODS_ETIMEOUT, ODS_ECANCELLED, ODS_EOFFLINE, ODS_ETLS, ODS_EIO, ODS_EPROTOCOL,
        ODS_EUNSUPPORTED, ODS_ENOTINSCOPE, ODS_ESYNTAX, ODS_ECLOSED};
    size_t i, j, n = sizeof codes / sizeof codes[0];
    int failures = 0;
    EXPECT(ODS_OK == 0);
    for (i = 0; i < n; i++) {
        EXPECT(codes[i] < 0);
        for (j = i + 1; j < n; j++) EXPECT(codes[i] != codes[j]);
    }
    return failures;
}

int main(void) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    ods_request_delegate delegate = ODS_REQUEST_DELEGATE_INIT;
    int failures = 0;

    EXPECT(ODS_VERSION_NUMBER ==
           ODS_VERSION_MAJOR * 1000000 + ODS_VERSION_MINOR * 1000 + ODS_VERSION_PATCH);
    EXPECT(sizeof(ODS_VERSION_STRING) > 1);

    /* _INIT sets the version and leaves every other field zero ("default"). */
    EXPECT(options.version == ODS_STORE_OPTIONS_VERSION);
    EXPECT(options.kind == ODS_STORE_ONLINE && options.dispatch == ODS_DISPATCH_THREAD);
    EXPECT(options.service_root == NULL && options.headers == NULL && options.metadata_path == NULL);
    EXPECT(options.connect_timeout_ms == 0 && options.request_timeout_ms == 0);
    EXPECT(delegate.version == ODS_REQUEST_DELEGATE_VERSION);
    EXPECT(delegate.started == NULL && delegate.response == NULL && delegate.failed == NULL &&
           delegate.finished == NULL);
    EXPECT(sizeof(&ods_version == (version_fn)0) > 0);
    EXPECT(sizeof(&ods_store_open == (open_fn)0) > 0);
    EXPECT(sizeof(&ods_store_schedule == (schedule_fn)0) > 0);

    failures += check_codes();
    if (failures == 0) printf("odatastore.h %s: macros and initialisers consistent\n", ODS_VERSION_STRING);
    return failures == 0 ? 0 : 1;
}
