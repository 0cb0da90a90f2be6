/* test_proxy.c - control calls to the fault proxy's /__fault endpoint (test_server.h). */
#define _POSIX_C_SOURCE 200809L

#include "test_http.h"
#include "test_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTROL_TIMEOUT_MS 10000

int ods_test_url_origin(const char *url, char *out, size_t size) {
    const char *host, *slash;
    size_t n;
    if (url == NULL || strncmp(url, "http://", 7) != 0) return -1;
    host = url + 7;
    slash = strchr(host, '/');
    n = slash != NULL ? (size_t)(slash - url) : strlen(url);
    if (n + 1 > size) return -1;
    memcpy(out, url, n);
    out[n] = '\0';
    return 0;
}

/* method <origin>/__fault[?query] with an optional JSON body; returns the body (malloc'ed). */
static char *control(const ods_test_server *proxy, const char *method, const char *query,
                     const char *json) {
    char url[512];
    ods_test_http_response response;
    char *body;
    if (proxy == NULL || ods_test_url_origin(ods_test_server_url(proxy), url, sizeof url) != 0) {
        fprintf(stderr, "test_proxy: not a proxy started by ods_test_proxy_start\n");
        return NULL;
    }
    if (strlen(url) + strlen("/__fault?") + (query ? strlen(query) : 0) + 1 > sizeof url) {
        fprintf(stderr, "test_proxy: control query too long\n");
        return NULL;
    }
    strcat(url, "/__fault");
    if (query != NULL && query[0] != '\0') {
        strcat(url, "?");
        strcat(url, query);
    }
    if (ods_test_http(&response, method, url, NULL, json ? "application/json" : NULL, json,
                      CONTROL_TIMEOUT_MS) != 0)
        return NULL;
    if (response.status != 200) {
        fprintf(stderr, "test_proxy: %s %s answered %d: %s\n", method, url, response.status,
                response.body);
        ods_test_http_response_free(&response);
        return NULL;
    }
    body = response.body;
    response.body = NULL;
    ods_test_http_response_free(&response);
    return body;
}

int ods_test_proxy_add_fault(const ods_test_server *proxy, const char *query) {
    char *state = control(proxy, "POST", query, NULL);
    free(state);
    return state != NULL ? 0 : -1;
}

int ods_test_proxy_add_fault_json(const ods_test_server *proxy, const char *json) {
    char *state = control(proxy, "POST", NULL, json);
    free(state);
    return state != NULL ? 0 : -1;
}

int ods_test_proxy_clear_faults(const ods_test_server *proxy) {
    char *state = control(proxy, "DELETE", NULL, NULL);
    free(state);
    return state != NULL ? 0 : -1;
}

char *ods_test_proxy_state(const ods_test_server *proxy) {
    return control(proxy, "GET", NULL, NULL);
}

long ods_test_proxy_counter(const ods_test_server *proxy, const char *name) {
    char key[64];
    char *state = ods_test_proxy_state(proxy), *at;
    long value = -1;
    if (state == NULL) return -1;
    snprintf(key, sizeof key, "\"%s\":", name);
    at = strstr(state, key);
    if (at != NULL) value = strtol(at + strlen(key), NULL, 10);
    else fprintf(stderr, "test_proxy: no counter %s in %s\n", name, state);
    free(state);
    return value;
}
