/* test_model.c - ods_store_model_json: the store's $metadata as the JSON summary of
 * `odatastore metadata`, against the real V4 test service and the V2 service's own document
 * given as metadata_path; ODS_ESTATE while a store has no $metadata; NULL arguments. */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/test_request.h"
#include "support/test_server.h"
#include "support/test_support.h"

static void check_v4(const char *url) {
    ods_store *store = ods_test_open(url, ODS_DISPATCH_THREAD);
    char *json = NULL;
    ODS_CHECK_OK(ods_store_model_json(&json, store));
    ODS_CHECK(json != NULL && json[0] == '{');
    ODS_CHECK(strstr(json, "\"odataVersion\":\"4.0\"") != NULL);
    /* Products: its key, a Decimal property, the to-one navigation to its category */
    ODS_CHECK(strstr(json, "{\"name\":\"Products\",\"kind\":\"entitySet\",\"entityType\":\"ODataStoreTest.Product\","
                           "\"key\":[\"ID\"]") != NULL);
    ODS_CHECK(strstr(json, "{\"name\":\"Price\",\"type\":\"Edm.Decimal\"}") != NULL);
    ODS_CHECK(strstr(json, "{\"name\":\"Category\",\"target\":\"ODataStoreTest.Category\",\"collection\":false}") != NULL);
    /* an operation import with its parameter */
    ODS_CHECK(strstr(json, "\"name\":\"ProductsByRating\"") != NULL);
    ODS_CHECK(strstr(json, "{\"name\":\"rating\",\"type\":\"Edm.Int32\"}") != NULL);
    ods_free(json);
    ODS_CHECK_OK(ods_store_close(store));
}

static void set_v2_document(ods_store_options *o) {
    static char path[1024];
    const char *root = getenv("ODS_TEST_ROOT");
    snprintf(path, sizeof path, "%s/Tests/servers/v2_metadata.xml", root ? root : ".");
    o->metadata_path = path;
}

static void check_v2_document(const char *url) {
    /* The store reads its $metadata from the file: the summary is that document's. */
    ods_store *store = ods_test_open_with(url, ODS_DISPATCH_THREAD, set_v2_document);
    char *json = NULL;
    ODS_CHECK_OK(ods_store_model_json(&json, store));
    ODS_CHECK(strstr(json, "\"odataVersion\":\"2.0\"") != NULL);
    ODS_CHECK(strstr(json, "\"name\":\"Products\"") != NULL);
    ODS_CHECK(strstr(json, "\"kind\":\"functionImport\"") != NULL);
    ods_free(json);
    ODS_CHECK_OK(ods_store_close(store));
}

static void check_without_metadata(void) {
    ods_store_options o = ODS_STORE_OPTIONS_INIT;
    ods_store *store = NULL;
    char *json = (char *)"untouched";
    struct timespec pause = {0, 10 * 1000 * 1000};
    int i;
    ODS_CHECK_INT_EQ(ods_store_model_json(NULL, NULL), ODS_EINVAL);
    ODS_CHECK_INT_EQ(ods_store_model_json(&json, NULL), ODS_EINVAL);
    ODS_CHECK(json == NULL); /* *out is cleared on every failure */
    o.service_root = "http://127.0.0.1:9/odata/"; /* discard port: the open fails */
    o.connect_timeout_ms = 2000;
    ODS_CHECK_OK(ods_store_open(&store, &o, NULL, NULL));
    for (i = 0; i < 1000 && ods_store_get_state(store) != ODS_STORE_FAILED; i++) nanosleep(&pause, NULL);
    ODS_CHECK_INT_EQ(ods_store_get_state(store), ODS_STORE_FAILED);
    ODS_CHECK_INT_EQ(ods_store_model_json(&json, store), ODS_ESTATE);
    ODS_CHECK(json == NULL);
    ODS_CHECK(strstr(ods_error_last()->message, "no $metadata") != NULL);
    ODS_CHECK_OK(ods_store_close(store));
}

int main(void) {
    ods_test_server *v4 = NULL, *v2 = NULL;
    check_without_metadata();
    if (ods_test_server_start_v4(&v4, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V4 server");
    check_v4(ods_test_server_url(v4));
    ODS_CHECK_INT_EQ(ods_test_server_stop(v4), 0);
    if (ods_test_server_start_v2(&v2, NULL) != 0) ods_test_fail(__FILE__, __LINE__, "no V2 server");
    check_v2_document(ods_test_server_url(v2));
    ODS_CHECK_INT_EQ(ods_test_server_stop(v2), 0);
    printf("model: ok\n");
    return 0;
}
