/* test_url_check.c - ods_url_check and ods_store_check_url: request URLs parsed and checked
 * against real $metadata (SAP RMTSAMPLEFLIGHT from Tests/Fixtures, and the V4 test service's
 * own), OWNED JSON out, ODS_ESYNTAX with a character position for bad URLs. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f) ods_test_fail(__FILE__, __LINE__, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) ods_test_fail(__FILE__, __LINE__, "cannot read %s", path);
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

static void check_against_document(void) {
    const char *root = getenv("ODS_TEST_ROOT");
    char path[1024];
    size_t len = 0;
    char *metadata, *json = NULL;

    snprintf(path, sizeof path, "%s/Tests/Fixtures/SAP/openui5/src/sap.ui.core/test/sap/ui/core/qunit/mockserver/"
             "testdata/rmtsampleflight/metadata.xml", root ? root : ".");
    metadata = read_file(path, &len);

    ODS_CHECK_OK(ods_url_check(&json, "FlightCollection?$filter=fldate gt datetime'2013-09-16T00:00'",
                               metadata, len, 0, NULL));
    ODS_CHECK(json != NULL);
    ODS_CHECK(strstr(json, "\"checked\":true") != NULL);
    ODS_CHECK(strstr(json, "\"canonical\":\"FlightCollection?$filter=fldate%20gt%20datetime'2013-09-16T00:00'\"") != NULL);
    ODS_CHECK(strstr(json, "\"Edm.DateTime\"") != NULL);
    ods_free(json);

    /* The seeds' own example names "city"; the real property is "CITY": a checked error. */
    json = (char *)1;
    ODS_CHECK_INT_EQ(ods_url_check(&json, "TravelagencyCollection?$filter=city eq 'Rome'", metadata, len, 0, NULL),
                     ODS_ESYNTAX);
    ODS_CHECK(json == NULL);
    ODS_CHECK_INT_EQ(ods_error_last()->code, ODS_ESYNTAX);
    ODS_CHECK_INT_EQ(ods_error_last()->position, 31); /* the "c" of city */
    ODS_CHECK(strstr(ods_error_last()->message, "city") != NULL);

    ODS_CHECK_INT_EQ(ods_url_check(&json, "NoSuchSet", metadata, len, 0, NULL), ODS_ESYNTAX);
    ODS_CHECK_INT_EQ(ods_url_check(&json, "FlightCollection?$top=x", metadata, len, 0, NULL), ODS_ESYNTAX);
    ODS_CHECK_INT_EQ(ods_error_last()->position, 22);

    /* Syntax only, without a document; strict V4 refuses V2 literals. */
    ODS_CHECK_OK(ods_url_check(&json, "People('russell')/Friends?$filter=contains(FirstName,'a')", NULL, 0, 4, NULL));
    ODS_CHECK(strstr(json, "\"checked\":false") != NULL);
    ods_free(json);
    ODS_CHECK_INT_EQ(ods_url_check(&json, "X?$filter=d gt datetime'2013-09-16T00:00'", NULL, 0, 4, NULL), ODS_ESYNTAX);
    ODS_CHECK_INT_EQ(ods_url_check(&json, "X?$filter=(((", NULL, 0, 0, NULL), ODS_ESYNTAX);

    /* Bad arguments. */
    ODS_CHECK_INT_EQ(ods_url_check(NULL, "X", NULL, 0, 0, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_url_check(&json, NULL, NULL, 0, 0, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_url_check(&json, "X", NULL, 0, 3, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_url_check(&json, "X", "<not metadata/>", 15, 0, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_url_check(&json, "X", metadata, 0, 0, NULL), ODS_EINVAL);
    free(metadata);
}

static void check_against_store(const char *url) {
    ods_store *store = ods_test_open(url, ODS_DISPATCH_THREAD);
    char *json = NULL;
    char full[512];
    ODS_CHECK_OK(ods_store_check_url(&json, store, "Products?$filter=Price gt 10 and Stock lt 5000&$expand=Category"));
    ODS_CHECK(strstr(json, "\"checked\":true") != NULL);
    ODS_CHECK(strstr(json, "\"version\":\"4.0\"") != NULL);
    ods_free(json);
    snprintf(full, sizeof full, "%sProducts(1)/Category", url);
    ODS_CHECK_OK(ods_store_check_url(&json, store, full));
    ods_free(json);
    ODS_CHECK_INT_EQ(ods_store_check_url(&json, store, "Products?$filter=Price gt 'cheap'"), ODS_ESYNTAX);
    ODS_CHECK(ods_error_last()->position > 0);
    ODS_CHECK_INT_EQ(ods_store_check_url(&json, NULL, "Products"), ODS_EINVAL);
    ODS_CHECK_OK(ods_store_close(store));
}

int main(void) {
    ods_test_server *server = NULL;
    check_against_document();
    if (ods_test_server_start_v4(&server, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    check_against_store(ods_test_server_url(server));
    ODS_CHECK_INT_EQ(ods_test_server_stop(server), 0);
    printf("url check: ok\n");
    return 0;
}
