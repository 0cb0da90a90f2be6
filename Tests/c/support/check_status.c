/* check_status.c - ODS_CHECK_OK's failure path. A file of its own: only tests that use it
 * link ods_strerror and ods_error_last from the library. */
#include "test_support.h"

#include <odatastore.h>

void ods_test_fail_status(const char *file, int line, const char *expression, int status) {
    const ods_error *last = ods_error_last();
    ods_test_fail(file, line, "%s returned %d (%s); last error: %d %s", expression, status,
                  ods_strerror(status), last ? last->code : 0,
                  last && last->message ? last->message : "(none)");
}
