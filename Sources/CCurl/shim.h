/* Typed wrappers around libcurl's variadic setters, which Swift cannot call.
 * One wrapper per argument kind the library uses; nothing else lives here. */
#ifndef ODS_CCURL_SHIM_H
#define ODS_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode ods_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ods_curl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ods_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
typedef size_t (*ods_curl_data_cb)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode ods_curl_easy_setopt_data_cb(CURL *h, CURLoption o, ods_curl_data_cb v) { return curl_easy_setopt(h, o, v); }
typedef int (*ods_curl_xferinfo_cb)(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode ods_curl_easy_setopt_xferinfo_cb(CURL *h, CURLoption o, ods_curl_xferinfo_cb v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ods_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *out) { return curl_easy_getinfo(h, i, out); }
static inline CURLcode ods_curl_easy_getinfo_ptr(CURL *h, CURLINFO i, void *out) { return curl_easy_getinfo(h, i, out); }
static inline CURLcode ods_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *out) { return curl_easy_getinfo(h, i, out); }
static inline CURLMcode ods_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode ods_curl_multi_setopt_ptr(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }
static inline CURLMcode ods_curl_multi_setopt_socket_cb(CURLM *m, curl_socket_callback v) { return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, v); }
static inline CURLMcode ods_curl_multi_setopt_timer_cb(CURLM *m, curl_multi_timer_callback v) { return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, v); }
static inline CURLSHcode ods_curl_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }
/* curl_global_init's flags are a macro expression, which Swift does not import. */
static inline CURLcode ods_curl_global_init_default(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
/* CURL_SOCKET_TIMEOUT is a macro alias, which Swift does not import. */
static inline curl_socket_t ods_curl_socket_timeout(void) { return CURL_SOCKET_TIMEOUT; }
/* CURLMsg.data is a union; read the result of a CURLMSG_DONE message. */
static inline CURLcode ods_curl_msg_result(const CURLMsg *m) { return m->data.result; }
#endif
