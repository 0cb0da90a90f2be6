/* test_version.c - the library and include/odatastore.h agree on the version.
 *
 * ods_version() must be the header's ODS_VERSION_STRING, a static NUL-terminated string
 * (the same pointer on every call and from every thread), and ods_version_number() the
 * header's ODS_VERSION_NUMBER. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "support/test_support.h"

#define THREADS 8
#define CALLS_PER_THREAD 10000

static const char *first_pointer;

static void *call_version(void *arg) {
    int i;
    (void)arg;
    for (i = 0; i < CALLS_PER_THREAD; i++) {
        const char *version = ods_version();
        ODS_CHECK(version == first_pointer);
        ODS_CHECK(ods_version_number() == ODS_VERSION_NUMBER);
    }
    return NULL;
}

int main(void) {
    char expected[32];
    pthread_t threads[THREADS];
    int i;
    const char *version = ods_version();

    /* The header's macros agree with each other. */
    snprintf(expected, sizeof expected, "%d.%d.%d", ODS_VERSION_MAJOR, ODS_VERSION_MINOR,
             ODS_VERSION_PATCH);
    ODS_CHECK_STR_EQ(ODS_VERSION_STRING, expected);
    ODS_CHECK_INT_EQ(ODS_VERSION_NUMBER,
                     ODS_VERSION_MAJOR * 1000000 + ODS_VERSION_MINOR * 1000 + ODS_VERSION_PATCH);

    /* The library agrees with the header. */
    ODS_CHECK(version != NULL);
    ODS_CHECK_STR_EQ(version, ODS_VERSION_STRING);
    ODS_CHECK_INT_EQ(strlen(version), strlen(ODS_VERSION_STRING));
    ODS_CHECK_INT_EQ(ods_version_number(), ODS_VERSION_NUMBER);

    /* Static storage: the same pointer every time, also from other threads. */
    first_pointer = version;
    ODS_CHECK(ods_version() == version);
    for (i = 0; i < THREADS; i++) ODS_CHECK(pthread_create(&threads[i], NULL, call_version, NULL) == 0);
    for (i = 0; i < THREADS; i++) ODS_CHECK(pthread_join(threads[i], NULL) == 0);
    ODS_CHECK_STR_EQ(version, ODS_VERSION_STRING);

    printf("libodatastore %s (%d), header %s (%d)\n", version, ods_version_number(),
           ODS_VERSION_STRING, ODS_VERSION_NUMBER);
    return 0;
}
