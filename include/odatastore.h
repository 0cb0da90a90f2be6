/*
 * odatastore.h - the C interface of libodatastore, an OData V2/V4 client library.
 *
 * One header for everything (as sqlite3.h: one file to read and to vendor). Link with
 * `pkg-config --libs odatastore` or CMake's `find_package(odatastore CONFIG)` +
 * `target_link_libraries(app odatastore::odatastore)`.
 *
 * CONVENTIONS (modelled on libgit2's docs/conventions.md and sqlite3.h)
 *   - Functions are ods_<object>_<verb>. A single output parameter comes first and is named
 *     `out`; a callback and its `void *context` come last, side by side.
 *   - Every fallible function returns an int status: ODS_OK (0) or a negative ods_status.
 *     ods_strerror(code) gives static text; ods_error_last() the detail of the last failed
 *     call on the calling thread. Each function lists the codes it returns; ODS_EINVAL (a
 *     NULL or malformed argument) and ODS_ENOMEM can come from any of them.
 *   - `*out` after a call: every function sets *out (to NULL, or 0 for numbers) before it
 *     does anything else, so after a failure *out is NULL/0, never stale or half-written.
 *     Only ODS_OK fills it.
 *   - Getters that cannot fail except on a NULL handle return their value directly (NULL,
 *     0, -1 or ODS_EINVAL for a NULL handle, as each states).
 *   - Handles are opaque. `_free`/`_close` accept NULL. Store and request handles are checked
 *     against the live ones before use: a store used after ods_store_close or closed twice, a
 *     request freed twice, or a pointer that never was a handle gives ODS_EINVAL, not a crash
 *     (unless a new handle has been given the same address meanwhile). Responses, entities and
 *     values are borrowed views and are not checked: do not use them after their response.
 *   - Strings passed in are copied before the call returns (the caller keeps ownership) and
 *     must be UTF-8 (ODS_EINVAL otherwise). Strings handed out are either BORROWED (valid
 *     until the event the doc comment names; do not free) or OWNED (release with ods_free).
 *     Never call free() on library memory.
 *   - No variadic functions and no structs passed by value: every function is callable from
 *     FFI runtimes such as Python ctypes.
 *   - Option and delegate structs are versioned: initialise them with their _INIT macro or
 *     _init function; fields are only ever appended, and the library reads only the fields
 *     of the version the caller set.
 *   - Positions in errors (ods_error.position) are 0-based BYTE offsets into the UTF-8 string
 *     the caller passed, so `text + position` points at the problem.
 *
 * ERRORS: ONE RULE PER CODE
 *   - ODS_ENOTFOUND: what was named does not exist: on the service (HTTP 404/410), or in
 *     the library (no request with that id in flight, no property / member / header of that
 *     name, no response to hand out).
 *   - ODS_ENULL: a typed getter found JSON null (a value that exists and is null). A getter
 *     never reports null as success, so `if (ods_entity_get_string(&s, e, "X") == ODS_OK)`
 *     always gives a usable string.
 *   - ODS_ETYPE: a typed getter found another kind of value, or a number that does not fit
 *     the C type asked for.
 *   - ODS_EINVAL: the caller passed something invalid (NULL, an unknown enum value, bad
 *     JSON, a path that is not allowed). It is never a property of the service's data.
 *   - ODS_ESTATE: the call is not allowed now (a request started twice, configured after
 *     start, waited for from its own store's callback...).
 *   - ODS_ELIMIT: a limit was reached (ods_store_options, "Limits"); the message names it.
 *
 * THREADING
 *   - Every function may be called from any thread, unless its comment says otherwise.
 *     A store and its requests may be used from several threads at once; a handle must not
 *     be freed or closed while another thread still uses it.
 *   - A request's setters (delegate, completion, context, headers, ...) must be called
 *     before ods_request_start; afterwards they return ODS_ESTATE.
 *   - Callbacks are delivered one at a time per store, never under an internal lock, either
 *     on the store's own callback thread (ODS_DISPATCH_THREAD, the default) or on whichever
 *     thread calls ods_store_dispatch, ods_request_wait or ods_store_execute
 *     (ODS_DISPATCH_QUEUE). Callbacks of one request arrive in order: started, response
 *     (zero or one), then exactly one terminal callback.
 *   - ODS_DISPATCH_THREAD_INLINE is ODS_DISPATCH_THREAD (one callback at a time, in order,
 *     never two at once, on a thread that is not the app's), except that a batch of callbacks
 *     the store's transport thread produces while the callback thread is idle runs on the
 *     transport thread itself. An answer whose callback starts the next request then costs
 *     one thread wake-up instead of three (transport, callback thread, transport again for
 *     the send). For callbacks that return quickly and do not block: the store's HTTP
 *     exchanges wait while such a batch runs. Callbacks therefore run on two threads in turn;
 *     do not rely on thread-local state between them (ods_store_set_thread_end tells a binding
 *     when the transport thread ends, to release state it attached to it).
 *   - From inside a callback you may call any function except those that would wait for the
 *     store's own callbacks: ods_store_close, ods_store_dispatch, ods_request_wait (on a
 *     request of that store) and ods_store_execute on the same store return ODS_ESTATE.
 *   - A store's HTTP exchanges run on a transport thread of its own. On Linux, while the
 *     callback thread (ODS_DISPATCH_THREAD; not _INLINE) runs callbacks of answers, and as
 *     long as those callbacks keep starting requests, that transport thread is in the SCHED_BATCH
 *     scheduling class, so that its wake-ups do not preempt the callbacks; it is an ordinary
 *     SCHED_OTHER thread again once a batch of callbacks starts nothing. Only the library's
 *     own thread is changed, never the app's, and not when something else has set its class.
 *
 * CALLBACK CONTRACT
 *   - If a function that takes or arms a callback fails, that callback is never called.
 *   - If it succeeds, exactly one terminal callback follows: `finished` on success,
 *     `failed` otherwise. Cancellation (ods_request_cancel, ods_store_cancel, ods_store_close)
 *     is a failure with code ODS_ECANCELLED. A completion callback, when set, is the last
 *     callback of the request and is called after the delegate's terminal callback.
 *   - ods_store_close delivers the terminal callbacks of every request still in flight
 *     before it returns, and then releases the store's context (ods_store_set_release).
 *
 * PROCESS
 *   - libcurl: the first ods_store_open calls curl_global_init(CURL_GLOBAL_DEFAULT) once for
 *     the process; the library never calls curl_global_cleanup (other libcurl users may live
 *     in the same process). With libcurl 7.84 or later (Debian 12 has 7.88) curl_global_init
 *     is thread-safe, so a host that also uses libcurl needs no coordination. A host that
 *     wants to set up libcurl itself can call curl_global_init before the first store opens.
 *   - fork(): a store's threads do not exist in a child process. After fork, the child must
 *     not use (nor close) stores opened before the fork; it may exec, or _exit, or open new
 *     stores. Do not fork while another thread is inside a library call (locks it holds
 *     would stay held in the child).
 *   - The library installs no signal handlers; its threads block all asynchronous signals.
 *   - Every allocation failure is reported as ODS_ENOMEM where it can be; the library never
 *     aborts the process on bad input from the caller or the service.
 */
#ifndef ODATASTORE_H
#define ODATASTORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ODS_EXTERN __attribute__((visibility("default")))
#else
#define ODS_EXTERN
#endif

/* ---------------------------------------------------------------------------------------
 * Version
 * ------------------------------------------------------------------------------------- */

#define ODS_VERSION_MAJOR 0
#define ODS_VERSION_MINOR 2
#define ODS_VERSION_PATCH 0
#define ODS_VERSION_STRING "0.2.0"
/** MAJOR * 1000000 + MINOR * 1000 + PATCH, as sqlite3's SQLITE_VERSION_NUMBER. */
#define ODS_VERSION_NUMBER (ODS_VERSION_MAJOR * 1000000 + ODS_VERSION_MINOR * 1000 + ODS_VERSION_PATCH)

/** The library's version string (static, never NULL). Compare with ODS_VERSION_STRING. */
ODS_EXTERN const char *ods_version(void);
/** The library's ODS_VERSION_NUMBER. */
ODS_EXTERN int ods_version_number(void);

/* ---------------------------------------------------------------------------------------
 * Status codes and errors
 * ------------------------------------------------------------------------------------- */

/** Status codes. Negative values are errors; a value is never reused for another meaning. */
typedef enum ods_status {
    ODS_OK = 0,
    ODS_ERROR = -1,          /**< An error that fits no other code. */
    ODS_EINVAL = -2,         /**< Invalid argument: NULL, unknown enum value, bad JSON, bad path. */
    ODS_ENOMEM = -3,         /**< Out of memory. */
    ODS_ESTATE = -4,         /**< Not allowed in the object's current state (e.g. started twice). */
    ODS_ENOTFOUND = -5,      /**< What was named does not exist: HTTP 404/410, a request id, a property. */
    ODS_ECONFLICT = -6,      /**< Conflict or failed precondition: ETag mismatch (409, 412). */
    ODS_EPRECONDITION = -7,  /**< The server requires an ETag (If-Match) for this change (428). */
    ODS_EUNAUTHORIZED = -8,  /**< Authentication required or failed (401). */
    ODS_EFORBIDDEN = -9,     /**< Authenticated but not allowed (403). */
    ODS_EHTTP = -10,         /**< Any other non-success status: a 4xx, or a 3xx (redirects are never followed). */
    ODS_ESERVER = -11,       /**< The service failed (5xx). */
    ODS_ETIMEOUT = -12,      /**< The request (or a wait for it) took longer than its time limit. */
    ODS_ECANCELLED = -13,    /**< The request was cancelled (also by ods_store_close). */
    ODS_EOFFLINE = -14,      /**< The service cannot be reached (DNS, refused, unreachable). */
    ODS_ETLS = -15,          /**< TLS handshake or certificate verification failed. */
    ODS_EIO = -16,           /**< Network or file I/O failed mid-operation. */
    ODS_EPROTOCOL = -17,     /**< The service sent something that is not valid OData/HTTP (also: a
                                  200 answer that is not OData JSON or XML, such as a login page). */
    ODS_EUNSUPPORTED = -18,  /**< The operation is not supported by this store or service. */
    ODS_ENOTINSCOPE = -19,   /**< Outside what the offline store's defining requests cover. */
    ODS_ESYNTAX = -20,       /**< A URL, $filter or document failed to parse (see the error's position). */
    ODS_ECLOSED = -21,       /**< The store is closing or closed. */
    ODS_ELIMIT = -22,        /**< A limit was reached: response size, compression ratio, pages
                                  followed, requests pending (see the limits in ods_store_options). */
    ODS_ENULL = -23,         /**< A typed getter found JSON null. */
    ODS_ETYPE = -24          /**< A typed getter found another type, or a number that does not fit. */
} ods_status;

/**
 * Detail of an error. Read-only; fields are only ever appended.
 *
 * From ods_error_last(): owned by the library, valid until the next failing call on the
 * same thread. In a `failed`/completion callback: valid until the callback returns. From
 * ods_request_error(): valid until the request is freed.
 */
typedef struct ods_error {
    int code;                  /**< An ods_status code (negative). */
    const char *message;       /**< Human-readable message, never NULL. Text from the service is
                                    cut to max_error_message_bytes and has no control characters. */
    int http_status;           /**< HTTP status of the response, 0 when there was none. */
    const char *odata_code;    /**< OData error code from the service's error body, or NULL. */
    const char *odata_message; /**< OData error message from the service's error body, or NULL. */
    long position;             /**< ODS_ESYNTAX and path errors: 0-based byte offset of the problem
                                    in the string the caller passed; -1 otherwise. */
} ods_error;

/** Static description of a status code (never NULL; "unknown status" for unknown codes). */
ODS_EXTERN const char *ods_strerror(int code);
/**
 * The error of the last failed call on this thread. Never NULL: when no call has failed
 * yet, `code` is ODS_OK and `message` is "no error". Successful calls do not clear it.
 */
ODS_EXTERN const ods_error *ods_error_last(void);
/** Resets this thread's last error to ODS_OK. */
ODS_EXTERN void ods_error_clear(void);

/** Releases memory the library handed out as OWNED (strings). NULL is a no-op. */
ODS_EXTERN void ods_free(void *ptr);

/* ---------------------------------------------------------------------------------------
 * Handles and enumerations
 * ------------------------------------------------------------------------------------- */

typedef struct ods_store ods_store;
typedef struct ods_request ods_request;
typedef struct ods_response ods_response;
/** An entity of a response: an object value (ods_entity_value / ods_value_entity convert). */
typedef struct ods_entity ods_entity;
/** Any JSON value inside a response: an entity, a complex value, an array, a scalar. */
typedef struct ods_value ods_value;

/** What kind of store to open. */
typedef enum ods_store_kind {
    ODS_STORE_ONLINE = 0,   /**< Every request goes to the service over HTTP. */
    ODS_STORE_OFFLINE = 1,  /**< A local SQLite file filled by defining requests; READs answered from it (docs/offline.md). */
    ODS_STORE_MIXED = 2     /**< The two behind one handle, a side per request (docs/mixed.md, "MIXED STORES" below). */
} ods_store_kind;

/** Where callbacks are delivered. */
typedef enum ods_dispatch_mode {
    ODS_DISPATCH_THREAD = 0, /**< On the store's own serial callback thread (default). */
    ODS_DISPATCH_QUEUE = 1,  /**< Queued; the host drains them with ods_store_dispatch. */
    ODS_DISPATCH_THREAD_INLINE = 2 /**< As ODS_DISPATCH_THREAD, but a batch of answers that finds
                                        the callback thread idle runs on the store's transport
                                        thread (THREADING above): for short, non-blocking callbacks. */
} ods_dispatch_mode;

typedef enum ods_store_state {
    ODS_STORE_OPENING = 1,
    ODS_STORE_OPEN = 2,
    ODS_STORE_CLOSING = 3,
    ODS_STORE_CLOSED = 4,
    ODS_STORE_FAILED = 5    /**< Opening failed; requests fail with the open error. */
} ods_store_state;

typedef enum ods_auth_kind {
    ODS_AUTH_NONE = 0,
    ODS_AUTH_BASIC = 1,     /**< HTTP Basic with username/password. */
    ODS_AUTH_BEARER = 2     /**< `Authorization: Bearer <token>`. */
} ods_auth_kind;

/** SAP Gateway's X-CSRF-Token handling (ods_store_options.csrf_protection). The values
 *  keep the field's original meaning (0 was "on"); use the names. */
typedef enum ods_csrf_mode {
    ODS_CSRF_AUTO = 0,      /**< Fetch a token when the service demands one, retry once (default). */
    ODS_CSRF_OFF = 1        /**< Never send X-CSRF-Token. */
} ods_csrf_mode;

/** The operation a request performs. */
typedef enum ods_mode {
    ODS_READ = 1,           /**< GET an entity set, entity, property, $count, ...; "$metadata"
                                 gives the CSDL document (XML) in ods_response_body, no JSON: the
                                 service's (online), the file's (offline; mixed unless routed online). */
    ODS_CREATE = 2,         /**< POST an entity (body required). */
    ODS_UPDATE = 3,         /**< Partial update: MERGE on V2, PATCH on V4 (body required). */
    ODS_UPDATE_PUT = 4,     /**< Full replacement with PUT (body required). */
    ODS_UPDATE_MERGE = 5,   /**< Partial update with the V2 MERGE verb (PATCH on V4, which has no MERGE). */
    ODS_UPDATE_PATCH = 6,   /**< Partial update with PATCH. */
    ODS_DELETE = 7,         /**< DELETE an entity or link. */
    ODS_FUNCTION = 8        /**< Call a function/action import; GET or POST from $metadata. */
} ods_mode;

typedef enum ods_request_state {
    ODS_REQUEST_NEW = 1,       /**< Created, not started: configure it, then start it. */
    ODS_REQUEST_WAITING = 2,   /**< Started, held until the store is open. */
    ODS_REQUEST_RUNNING = 3,   /**< Being executed. */
    ODS_REQUEST_FINISHED = 4,  /**< Terminal: succeeded. */
    ODS_REQUEST_FAILED = 5,    /**< Terminal: failed. */
    ODS_REQUEST_CANCELLED = 6  /**< Terminal: cancelled (reported through `failed`). */
} ods_request_state;

/** Server-driven paging. */
typedef enum ods_paging {
    ODS_PAGING_NONE = 0,     /**< One page; its next link is in the response (default). */
    ODS_PAGING_FOLLOW = 1    /**< Follow next links and deliver all pages as one response. */
} ods_paging;

/* ---------------------------------------------------------------------------------------
 * Callbacks
 * ------------------------------------------------------------------------------------- */

/** Store state changes (opening, open, closing, closed, failed). `error` is non-NULL for
 *  ODS_STORE_FAILED and borrowed for the duration of the call. */
typedef void (*ods_store_state_cb)(ods_store *store, int state, const ods_error *error, void *context);

/** Releases a context the library held for the life of a store (ods_store_set_release). */
typedef void (*ods_release_cb)(void *context);

/** A store thread other than the callback thread is about to end (ods_store_set_thread_end). */
typedef void (*ods_thread_end_cb)(ods_store *store, void *context);

/**
 * Per-request callbacks; any slot may be NULL. `context` is the request's context
 * (ods_request_set_context). Pointers passed in are borrowed for the duration of the call
 * (ods_response_dup keeps a response longer); the request handle itself stays valid during
 * every callback, even if the app already called ods_request_free on it.
 */
typedef struct ods_request_delegate {
    unsigned int version;   /**< ODS_REQUEST_DELEGATE_VERSION */
    void (*started)(ods_request *request, void *context);
    /** The service answered with success. With ODS_PAGING_FOLLOW, once with all pages. */
    void (*response)(ods_request *request, const ods_response *response, void *context);
    /** Terminal: the request failed or was cancelled. `response` is the service's error
     *  response when there was one, else NULL. */
    void (*failed)(ods_request *request, const ods_error *error, const ods_response *response, void *context);
    /** Terminal: the request succeeded (after its `response`). */
    void (*finished)(ods_request *request, void *context);
} ods_request_delegate;

#define ODS_REQUEST_DELEGATE_VERSION 1
#define ODS_REQUEST_DELEGATE_INIT { ODS_REQUEST_DELEGATE_VERSION, NULL, NULL, NULL, NULL }

/**
 * Initialises a delegate of `version` (ODS_REQUEST_DELEGATE_VERSION) with every slot NULL:
 * the function form of ODS_REQUEST_DELEGATE_INIT, for bindings that cannot use macros.
 * Returns ODS_OK, or ODS_EINVAL for NULL or an unknown version.
 */
ODS_EXTERN int ods_request_delegate_init(ods_request_delegate *delegate, unsigned int version);

/**
 * The one-callback form: called once, last, for every started request that has one.
 * On success `error` is NULL and `response` non-NULL; on failure `error` is non-NULL and
 * `response` is the service's error response or NULL. Both borrowed for the call
 * (ods_response_dup keeps the response longer).
 */
typedef void (*ods_completion_cb)(ods_request *request, const ods_response *response,
                                  const ods_error *error, void *context);

/**
 * How far the download of an offline store's defining requests is: reported after every
 * page written to the store file, and once more when a defining request is finished.
 * Counts include what earlier, interrupted downloads brought down. Fields are only appended.
 */
typedef struct ods_download_progress {
    unsigned int version;          /**< ODS_DOWNLOAD_PROGRESS_VERSION of the library that filled it. */
    const char *defining_request;  /**< The defining request (relative path); BORROWED for the call. */
    size_t request_index;          /**< 0-based position among the defining requests being downloaded. */
    size_t request_count;          /**< How many are being downloaded. */
    int64_t entities;              /**< Entities of this defining request so far (expanded ones not counted). */
    int64_t bytes;                 /**< Response bytes of this defining request so far. */
    int64_t expected_entities;     /**< The total the service announced ($count), or -1. */
    int64_t total_entities;        /**< Entities of all of them so far. */
    int64_t total_bytes;           /**< Response bytes of all of them so far. */
    int request_finished;          /**< 1 in the last report of a defining request. */
} ods_download_progress;

#define ODS_DOWNLOAD_PROGRESS_VERSION 1

/** Download progress of an offline store, through the store's dispatch mode. `progress` is
 *  BORROWED for the duration of the call. */
typedef void (*ods_download_progress_cb)(ods_store *store, const ods_download_progress *progress, void *context);

/** Why the store asks for credentials (ods_logon_info.reason; LOGON section). */
typedef enum ods_logon_reason {
    ODS_LOGON_REQUIRED = 1,   /**< The service wants credentials the store does not have. */
    ODS_LOGON_EXPIRED = 2,    /**< Credentials that worked no longer do: the session expired. */
    ODS_LOGON_REJECTED = 3    /**< The credentials of the last reply were refused at once. */
} ods_logon_reason;

/** ods_store_options.logon_flags (a bit set). */
typedef enum ods_logon_flag {
    ODS_LOGON_LOGIN_PAGE = 1  /**< A 2xx HTML answer to an OData request (SAP's login page when a
                                   session behind single sign-on expired) asks for a logon, as a
                                   401 does; not to a $value read, which accepts any type. */
} ods_logon_flag;

/**
 * One logon prompt, BORROWED for the duration of the ods_logon_cb call (copy `id`). Filled by
 * the library; read-only; fields are only appended. It never holds credentials.
 */
typedef struct ods_logon_info {
    unsigned int version;      /**< ODS_LOGON_INFO_VERSION of the library that filled it. */
    uint64_t id;               /**< The prompt, unique in the process: answer it with ods_store_logon_*. */
    int reason;                /**< An ods_logon_reason. */
    int http_status;           /**< The status that asked: 401, or 2xx for a login page. */
    const char *authenticate;  /**< The service's WWW-Authenticate header (printable, at most 200
                                    bytes), or NULL. */
    int attempt;               /**< 1 for the first prompt since credentials last worked, then
                                    2, 3 ... up to max_logon_attempts. */
} ods_logon_info;

#define ODS_LOGON_INFO_VERSION 1

/** Asks the app for credentials (LOGON section): answer with ods_store_logon_basic, _bearer,
 *  _headers or _refuse, now or later, from any thread. Through the store's dispatch mode. */
typedef void (*ods_logon_cb)(ods_store *store, const ods_logon_info *info, void *context);

/* ---------------------------------------------------------------------------------------
 * Store
 * ------------------------------------------------------------------------------------- */

/**
 * Options for ods_store_open. Zero means "default" for every field; initialise with
 * ODS_STORE_OPTIONS_INIT or ods_store_options_init. All strings are copied by ods_store_open.
 */
typedef struct ods_store_options {
    unsigned int version;           /**< ODS_STORE_OPTIONS_VERSION */
    int kind;                       /**< ods_store_kind; default ODS_STORE_ONLINE. */
    const char *service_root;       /**< Required: http(s)://host[:port]/path/ of the service. No
                                         query, fragment or user:password@, and a host and
                                         port that RFC 3986 allows ([IPv6] literals, ports
                                         1-65535), else ODS_EINVAL naming the problem. May be NULL
                                         for an existing offline store file (store_path): the file's
                                         own is used. */
    int dispatch;                   /**< ods_dispatch_mode; default ODS_DISPATCH_THREAD. */
    int odata_version;              /**< 2 or 4: the version the app expects; the store fails to open
                                         (ODS_EPROTOCOL) when $metadata says another. 0 = whatever
                                         $metadata says (default). */
    int auth;                       /**< ods_auth_kind; default ODS_AUTH_NONE. */
    const char *username;           /**< ODS_AUTH_BASIC; no ':', CR, LF. */
    const char *password;           /**< ODS_AUTH_BASIC; no CR, LF. */
    const char *bearer_token;       /**< ODS_AUTH_BEARER */
    const char *const *headers;     /**< NULL-terminated "Name: value" lines sent with every request
                                         (not the HTTP layer's own: see ods_request_set_header). */
    const char *ca_bundle;          /**< PEM file of trusted CAs; NULL = the system's. */
    int insecure_skip_tls_verify;   /**< Non-zero disables TLS verification (testing only). */
    long connect_timeout_ms;        /**< Default 10000. */
    long request_timeout_ms;        /**< Whole request, per HTTP exchange; default 60000. */
    int max_connections;            /**< Parallel connections to the service; default 8. */
    const char *user_agent;         /**< Default "libodatastore/<version>"; no control characters. */
    int csrf_protection;            /**< ods_csrf_mode: ODS_CSRF_AUTO (default) or ODS_CSRF_OFF. */
    const char *metadata_path;      /**< A local $metadata file to use instead of fetching it; NULL =
                                         fetch. ods_store_open fails at once (ODS_EIO) when the path
                                         is missing or not a regular file, (ODS_ELIMIT) when it is
                                         larger than max_response_bytes; it is read in the background
                                         and a document that does not parse fails the open
                                         (ODS_STORE_FAILED) like a fetched one. */

    /* ---- Offline stores (ODS_STORE_OPTIONS_VERSION 2; docs/offline.md) ---- */
    const char *store_path;         /**< ODS_STORE_OFFLINE and ODS_STORE_MIXED: the store file; created on the first open. Required. */
    const char *const *defining_requests; /**< ODS_STORE_OFFLINE and _MIXED: NULL-terminated READ paths (relative to
                                          service_root, or full URLs under it) whose results the store
                                          downloads and answers from, e.g. "Orders?$filter=Year eq 2024&$expand=Items".
                                          A new store needs at least one; reopening adds new ones and keeps the others. */
    ods_download_progress_cb download_progress; /**< ODS_STORE_OFFLINE and _MIXED: progress callback, or NULL. */
    void *download_progress_context;            /**< Passed to download_progress. Not retained. */
    int download_page_size;         /**< ODS_STORE_OFFLINE, V4 services: entities per page asked while
                                         downloading (Prefer: odata.maxpagesize); 0 = 1000, -1 = the service's. */

    /* ---- Limits (ODS_STORE_OPTIONS_VERSION 2). 0 always means the default. A request that
     *      reaches a limit fails with ODS_ELIMIT and a message naming the option. Fields of
     *      later versions come after this block (moving it would change the offsets that
     *      programs built for version 2 use). ---- */
    int64_t max_response_bytes;     /**< Largest response body after decompression; also the
                                         largest metadata_path file and the sum of the pages
                                         of one ODS_PAGING_FOLLOW request. A response whose
                                         uncompressed Content-Length is larger fails as soon as
                                         its headers arrive. Default 64 MiB. */
    int max_compression_ratio;      /**< Largest ratio of decompressed to received bytes, checked
                                         once a body has decompressed past 1 MiB. Default 100. */
    int max_error_message_bytes;    /**< Longest text taken from a service's error body into
                                         ods_error.message and .odata_message. Default 4096. */
    int max_pages;                  /**< Most pages one ODS_PAGING_FOLLOW request reads. Default 1000. */
    int max_pending_requests;       /**< Most requests started and not yet ended in the store;
                                         starting one more fails with ODS_ELIMIT. Default 10000. */
    int max_retries;                /**< Retries of an exchange that is safe to repeat (a GET whose
                                         connection broke or that got 502/503/504/429; a PUT or
                                         DELETE that got 429/503; never POST, PATCH, MERGE), with
                                         jittered exponential backoff from 200 ms, or after the
                                         server's Retry-After when it is at most 30 s. Default 2;
                                         -1 = never retry. */

    /* ---- Logon and held requests (ODS_STORE_OPTIONS_VERSION 3; the LOGON section below,
     *      docs/logon.md) ---- */
    ods_logon_cb logon;             /**< Asked for credentials when the service wants them (a 401;
                                         a login page with ODS_LOGON_LOGIN_PAGE). NULL (default):
                                         a 401 is the request's answer (ODS_EUNAUTHORIZED). */
    void *logon_context;            /**< Passed to logon. Not retained: it must outlive the store. */
    int logon_flags;                /**< ods_logon_flag bits; default 0. */
    int max_logon_attempts;         /**< Prompts in a row whose credentials the service refuses
                                         before the held requests fail with ODS_EUNAUTHORIZED;
                                         also how often one request is sent again after a logon
                                         (plus one). 1 to 10; default 3. */
    int max_held_requests;          /**< Most requests held while the store opens, or while a logon
                                         waits for the app's reply; one more fails with ODS_ELIMIT
                                         ("too many held requests"). Default 10000. */
} ods_store_options;

#define ODS_STORE_OPTIONS_VERSION 3
#define ODS_STORE_OPTIONS_INIT { ODS_STORE_OPTIONS_VERSION, 0, NULL, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, NULL, 0, NULL, \
                                 NULL, NULL, NULL, NULL, 0, \
                                 0, 0, 0, 0, 0, 0, \
                                 NULL, NULL, 0, 0, 0 }

/**
 * Initialises options of `version` (ODS_STORE_OPTIONS_VERSION, or an older one) to their
 * defaults: the function form of ODS_STORE_OPTIONS_INIT, for bindings that cannot use
 * macros. Only the fields of that version are written. Returns ODS_OK, or ODS_EINVAL for
 * NULL or a version this library does not know.
 */
ODS_EXTERN int ods_store_options_init(ods_store_options *options, unsigned int version);

/**
 * Creates a store and starts opening it (online: fetching or reading $metadata) in the
 * background; the call never blocks on the network or on a file. Requests may be started at
 * once; they are held until the store is open.
 *
 * `state_cb` (may be NULL) reports every state change with `context`, through the store's
 * dispatch mode. `context` belongs to the store until ods_store_close (ods_store_set_release
 * names a function that releases it then).
 *
 * On success *out is a new store owned by the caller: release it with ods_store_close.
 * Returns ODS_OK; ODS_EINVAL (options: a missing or malformed service_root, an unknown enum
 * value, header lines or credentials with CR/LF, negative limits), ODS_EIO (metadata_path),
 * ODS_ELIMIT (metadata_path too large).
 * On failure *out is NULL and `state_cb` is never called.
 */
ODS_EXTERN int ods_store_open(ods_store **out, const ods_store_options *options,
                              ods_store_state_cb state_cb, void *context);

/**
 * Sets the function ods_store_close calls, once, with the store's context (the `context` of
 * ods_store_open), after the store's last callback has returned and its threads have ended;
 * NULL removes it. For contexts that live as long as the store (the state callback's, the
 * default delegate's data). Returns ODS_OK or ODS_EINVAL.
 */
ODS_EXTERN int ods_store_set_release(ods_store *store, ods_release_cb release);

/**
 * ODS_DISPATCH_THREAD_INLINE: sets the function called with the store's context (the
 * `context` of ods_store_open) on each thread of the store other than its callback thread
 * that ran callbacks of the store (its transport thread), once, just before that thread ends:
 * inside ods_store_close, before it returns, as a callback (never at the same time as one;
 * the calls ods_store_close refuses from callbacks are refused there too). For bindings that
 * attach state to a thread the first time it runs one of their callbacks (a Python thread
 * state, a JVM thread) and must detach it on that same thread. NULL removes it; set it before
 * ods_store_close. Never called for stores in other dispatch modes (their callbacks run on
 * the callback thread, whose last callback is ODS_STORE_CLOSED, or on the app's threads).
 * Returns ODS_OK or ODS_EINVAL (NULL store). Any thread.
 */
ODS_EXTERN int ods_store_set_thread_end(ods_store *store, ods_thread_end_cb thread_end);

/**
 * Cancels every request in flight, delivers their terminal callbacks (on the calling thread
 * in queue mode), reports ODS_STORE_CLOSING and ODS_STORE_CLOSED, joins the store's threads,
 * calls the release function (ods_store_set_release) and frees the store. Linear in the
 * number of requests pending. Request handles the app still holds stay valid until freed
 * (ods_request_store gives NULL for them from now on).
 * NULL is a no-op (ODS_OK). Returns ODS_ESTATE (and does nothing) when called from a
 * callback of this store, ODS_EINVAL when the store is not open (closed already). Thread
 * safety: once per store; no other call may use the store handle during or after it (later
 * calls get ODS_EINVAL).
 */
ODS_EXTERN int ods_store_close(ods_store *store);

/** The store's current ods_store_state, or ODS_EINVAL for NULL. */
ODS_EXTERN int ods_store_get_state(const ods_store *store);

/** The context given to ods_store_open (NULL for a NULL store). */
ODS_EXTERN void *ods_store_context(const ods_store *store);

/** OData version in use (2 or 4), 0 while not yet known, or ODS_EINVAL for NULL. */
ODS_EXTERN int ods_store_odata_version(const ods_store *store);

/**
 * Sets the delegate used by requests that have no delegate of their own. Copied; pass
 * NULL to remove it. Applies to requests started afterwards. Returns ODS_OK or ODS_EINVAL
 * (NULL store, delegate version 0 or newer than the library).
 */
ODS_EXTERN int ods_store_set_default_delegate(ods_store *store, const ods_request_delegate *delegate);

/**
 * Queue mode: a file descriptor that is readable while callbacks are waiting, for poll,
 * select, epoll, asyncio add_reader, libuv or GLib. Owned by the store (do not read or close
 * it). Returns ODS_ESTATE in thread mode, ODS_EINVAL for NULL.
 */
ODS_EXTERN int ods_store_fd(const ods_store *store);

/**
 * Queue mode: delivers waiting callbacks on the calling thread. Waits up to `timeout_ms`
 * for the first one (0 = do not wait, -1 = wait indefinitely), then delivers everything
 * queued at that moment. Returns the number of EVENTS delivered (>= 0): each store state
 * change is one event, each request's `started` is one, each request's end (its
 * `response`, terminal and completion callbacks together) is one, and so is each download or
 * upload progress report and each completion of an upload or revert. Returns a negative status:
 * ODS_ESTATE in thread mode or from a callback of this store, ODS_ECLOSED after close,
 * ODS_EINVAL for NULL.
 */
ODS_EXTERN int ods_store_dispatch(ods_store *store, int timeout_ms);

/**
 * Creates and starts a request in one call, delivering its result to `completion` (may be
 * NULL to fire and forget) with `context`. The store's default delegate, if any, also
 * receives its callbacks. `path` and `body_json` are as for ods_request_new.
 * On success *out_id (if not NULL) receives the request id, usable with ods_store_cancel.
 * The library owns the request; it is released after the completion returns.
 * Returns ODS_OK; ODS_EINVAL (mode, path, body), ODS_ECLOSED (store closing), ODS_ELIMIT
 * (max_pending_requests reached).
 */
ODS_EXTERN int ods_store_schedule(uint64_t *out_id, ods_store *store, int mode, const char *path,
                                  const char *body_json, ods_completion_cb completion, void *context);

/**
 * Runs a request and waits for it: the synchronous form. On ODS_OK *out is the response
 * (OWNED: release it with ods_response_free). Otherwise the status is the request's error
 * (as a `failed` callback would get it: ODS_ENOTFOUND for a 404, ODS_EOFFLINE, ...) and
 * ods_error_last() has its detail (HTTP status, the service's OData error code and
 * message); ODS_ETIMEOUT when it had not ended after `timeout_ms` (-1 = no limit; the
 * request is then cancelled). In queue mode the calling thread delivers the store's
 * callbacks while it waits (those of other requests too). Returns ODS_ESTATE when called
 * from a callback of this store (it would wait for itself), plus the codes of
 * ods_store_schedule.
 */
ODS_EXTERN int ods_store_execute(ods_response **out, ods_store *store, int mode, const char *path,
                                 const char *body_json, long timeout_ms);

/** Cancels the started request with this id. ODS_ENOTFOUND when no request with that id is
 *  in flight (unknown, or already ended), ODS_EINVAL for NULL. */
ODS_EXTERN int ods_store_cancel(ods_store *store, uint64_t request_id);

/* ---------------------------------------------------------------------------------------
 * Offline stores (docs/offline.md)
 *
 * An offline store (kind ODS_STORE_OFFLINE) keeps one SQLite file. Opening a new one loads
 * $metadata, checks every defining request against it (a bad one fails the open with
 * ODS_ESYNTAX or ODS_EINVAL and the position of the error; nothing is created), creates the
 * file and downloads the defining requests page by page; the store stays ODS_STORE_OPENING
 * until that is done, and requests made meanwhile are held. Reopening an existing file
 * needs no network unless a download is incomplete (it resumes where it stopped).
 * READs are then answered from the file, through the same request API, in the same JSON
 * shape; a collection no defining request brought down fails with ODS_ENOTINSCOPE, an
 * entity that is not there with ODS_ENOTFOUND (HTTP status 404), function imports with
 * ODS_EUNSUPPORTED. Writes change the file and queue the change for upload (see "Local
 * changes, upload, error archive" below).
 * ------------------------------------------------------------------------------------- */

/**
 * Stops the download in progress. While the store is opening, the open fails with
 * ODS_ECANCELLED (held requests fail with it); pages already written stay in the file and
 * the next open resumes after them. ODS_ESTATE when no download runs, ODS_EUNSUPPORTED for
 * other store kinds, ODS_EINVAL for NULL. Any thread.
 */
ODS_EXTERN int ods_store_cancel_download(ods_store *store);

/** What an offline store holds (ods_store_offline_info). Fields are only appended. */
typedef struct ods_offline_info {
    unsigned int version;           /**< Set by the caller: ODS_OFFLINE_INFO_VERSION. */
    int64_t size_bytes;             /**< The store file and its write-ahead log, in bytes. */
    int64_t last_download;          /**< When the last download finished, Unix seconds (UTC); 0 = never. */
    size_t defining_request_count;  /**< For ods_store_defining_request. */
} ods_offline_info;

#define ODS_OFFLINE_INFO_VERSION 1
#define ODS_OFFLINE_INFO_INIT { ODS_OFFLINE_INFO_VERSION, 0, 0, 0 }

/**
 * Fills *out (initialised with ODS_OFFLINE_INFO_INIT) with the store's facts. ODS_ESTATE
 * while the store file is not open yet (opening failed, or still loading $metadata),
 * ODS_EUNSUPPORTED for other kinds. Any thread, not from a callback of this store while a
 * read runs (it waits for the store's database thread).
 */
ODS_EXTERN int ods_store_offline_info(ods_offline_info *out, ods_store *store);

/** One defining request of an offline store (ods_store_defining_request). Fields are only appended. */
typedef struct ods_defining_request_info {
    unsigned int version;           /**< Set by the caller: ODS_DEFINING_REQUEST_INFO_VERSION. */
    const char *path;               /**< As stored (relative to the service root). BORROWED: valid until ods_store_close. */
    const char *entity_set;         /**< The entity set its entities are stored in. BORROWED as `path`. */
    int complete;                   /**< 1 when its download finished. */
    int64_t entities;               /**< Top-level entities its downloads brought down. */
    int64_t bytes;                  /**< Response bytes of its downloads. */
    int64_t expected_entities;      /**< The count the service announced, or -1. */
    int64_t last_download;          /**< When its last download finished, Unix seconds (UTC); 0 = never. */
} ods_defining_request_info;

#define ODS_DEFINING_REQUEST_INFO_VERSION 1
#define ODS_DEFINING_REQUEST_INFO_INIT { ODS_DEFINING_REQUEST_INFO_VERSION, NULL, NULL, 0, 0, 0, 0, 0 }

/**
 * Fills *out (initialised with ODS_DEFINING_REQUEST_INFO_INIT) with the defining request at
 * `index` (0 .. defining_request_count - 1, in the order they were added). ODS_EINVAL when
 * out of range; otherwise as ods_store_offline_info.
 */
ODS_EXTERN int ods_store_defining_request(ods_defining_request_info *out, ods_store *store, size_t index);

/* ---------------------------------------------------------------------------------------
 * Offline stores after opening: fresh data, and changing the defining requests
 * (docs/offline.md, "Download after opening")
 * ------------------------------------------------------------------------------------- */

/**
 * The end of a download (ods_store_download): called exactly once per successful call, last.
 * `status` is ODS_OK when every chosen defining request is downloaded, else the code of what
 * stopped it (also in error->code): ODS_ECANCELLED (ods_store_cancel_download,
 * ods_store_close), ODS_ENOTFOUND (a path that is not a defining request of the store),
 * ODS_ESYNTAX or ODS_EUNSUPPORTED (a path that is not even a request the store could
 * define: it does not parse, or names what a defining request cannot be), ODS_EOFFLINE, ODS_ESERVER, ODS_ETIMEOUT, ODS_EUNAUTHORIZED, ODS_EIO, ... Pages written
 * before a failure stay, and the next download resumes after them. `error` is NULL on
 * success, else BORROWED for the duration of the call.
 */
typedef void (*ods_download_cb)(ods_store *store, int status, const ods_error *error, void *context);

/**
 * Starts downloading fresh data into an open offline store, in the background: for each
 * chosen defining request, the service's changes through its delta link where the service
 * gave one (V4 `Prefer: odata.track-changes`: changed entities written, `@removed` ones
 * deleted), else a full download that replaces what the request brought down (entities the
 * service no longer sends leave the file, unless another defining request brought them too).
 * Local changes not uploaded yet stay on top: a download never overwrites an entity with
 * pending changes or in the error archive. Reads and local writes go on meanwhile.
 *
 * `paths`: NULL for every defining request, else a NULL-terminated list of defining requests
 * of the store (as given when opening or to ods_store_add_defining_request; they are
 * normalised, so spacing and option order do not matter); BORROWED for the call. `progress`
 * (may be NULL: then the options' download_progress, if any, is used) is called after every
 * page written; `completion` (may be NULL) once at the end; both with `context` (not
 * retained: it must outlive the completion), through the store's dispatch mode, like
 * request callbacks, never under an internal lock. ods_store_close delivers the completion
 * (ODS_ECANCELLED) before it returns.
 * Returns ODS_OK; ODS_ESTATE when the store is not open, or a download or an upload runs;
 * ODS_EINVAL for a NULL store or an empty `paths` list; ODS_EUNSUPPORTED for other store
 * kinds. On failure neither callback is called. Any thread, also from a callback.
 */
ODS_EXTERN int ods_store_download(ods_store *store, const char *const *paths, ods_download_progress_cb progress,
                                  ods_download_cb completion, void *context);

/**
 * Adds a defining request to an open offline store, checked against $metadata like those
 * given when opening (ODS_ESYNTAX or ODS_EINVAL, with the error's position, for a bad one;
 * nothing changes then). Its collection is in scope at once, empty until ods_store_download
 * brings its data. Adding one the store has already is no error. Returns ODS_OK; ODS_ESTATE
 * when the store is not open; ODS_EUNSUPPORTED, ODS_EINVAL for NULL. Any thread, not from a
 * callback of this store while a read runs (it waits for the store's database thread).
 */
ODS_EXTERN int ods_store_add_defining_request(ods_store *store, const char *path);

/**
 * Removes a defining request from an open offline store, in one transaction: the entities
 * only it brought down leave the file (those with local changes stay until uploaded), and
 * what only it covered is out of scope from then on (ODS_ENOTINSCOPE). Returns ODS_OK;
 * ODS_ENOTFOUND when the store has no such defining request; ODS_EINVAL for NULL or for the
 * store's last defining request (an offline store keeps at least one); ODS_ESTATE when the
 * store is not open or a download runs; ODS_EUNSUPPORTED. Threads: as
 * ods_store_add_defining_request.
 */
ODS_EXTERN int ods_store_remove_defining_request(ods_store *store, const char *path);

/* ---------------------------------------------------------------------------------------
 * Offline stores: local changes, upload, error archive (docs/offline.md, "Local changes")
 *
 * LOCAL CHANGES. ODS_CREATE, ODS_UPDATE* and ODS_DELETE requests on an open offline store
 * change the store file and append to its upload queue in one transaction, and answer at
 * once, from the file, as the service would (201 with the entity, 204); they fail as the
 * service would: ODS_EHTTP with http_status 400 (an unknown property, a value that does not
 * fit), ODS_ENOTFOUND (404), ODS_ECONFLICT (409: the key exists; 412: a stale If-Match),
 * ODS_ENOTINSCOPE outside the defining requests. An entity created without its key (one the
 * service assigns) gets a LOCAL KEY (negative integers, "local-N" strings, random GUIDs)
 * that later requests may use; the upload replaces it with the service's key everywhere in
 * the file (ods_store_key_mappings lists both). Local reads show an entity with changes not
 * uploaded yet with the annotation "@odatastore.pending": true, and one with a change the
 * service refused also with "@odatastore.error": true (ods_entity_pending_state).
 *
 * UPLOAD. ods_store_upload sends the queue in order. A change the service confirms leaves the
 * queue (a created entity takes the service's key and values, an ETag the new one); a change
 * it refuses (a 4xx answer) moves to the ERROR ARCHIVE, and later changes of the same entity
 * wait in the queue until the app retries (ods_store_error_retry) or reverts
 * (ods_store_error_revert) the archived one; the other changes go on. The service
 * unreachable, a 5xx or a cancel stops the upload: nothing queued is lost, and the next
 * upload resumes with the same change. The archive can also be read as the collection
 * "ErrorArchive" / "ErrorArchive(<id>)" through the ordinary request API.
 *
 * Every function of this section that takes a store returns ODS_EUNSUPPORTED for stores of
 * another kind and ODS_EINVAL for a NULL, closed or never-opened store handle.
 * ------------------------------------------------------------------------------------- */

/** How far an upload is: reported after every change the service answered. Filled by the
 *  library; fields are only appended. */
typedef struct ods_upload_progress {
    unsigned int version;  /**< ODS_UPLOAD_PROGRESS_VERSION of the library that filled it. */
    int64_t sent;          /**< Changes answered so far in this upload (confirmed or refused). */
    int64_t total;         /**< Changes this upload set out to send (the queue when it started). */
    int64_t failed;        /**< Of `sent`, those the service refused (now in the error archive). */
} ods_upload_progress;

#define ODS_UPLOAD_PROGRESS_VERSION 1

/** What an upload did. Filled by the library; fields are only appended. */
typedef struct ods_upload_result {
    unsigned int version;  /**< ODS_UPLOAD_RESULT_VERSION of the library that filled it. */
    int64_t confirmed;     /**< Changes the service confirmed (they left the queue). */
    int64_t failed;        /**< Changes the service refused (moved to the error archive). */
    int64_t remaining;     /**< Changes still queued when it ended: behind a refused change of the
                                same entity, or made during the upload. -1 when the upload
                                failed (ods_store_pending_count tells then). */
} ods_upload_result;

#define ODS_UPLOAD_RESULT_VERSION 1

/** Upload progress. `progress` is BORROWED for the duration of the call. */
typedef void (*ods_upload_progress_cb)(ods_store *store, const ods_upload_progress *progress, void *context);

/**
 * The end of an upload: called exactly once per successful ods_store_upload, last.
 * `status` is ODS_OK when the upload went through the whole queue (refused changes are
 * counted in result->failed, not errors of the upload), else the code of what stopped it
 * (also in error->code): ODS_ECANCELLED (ods_store_cancel_upload, ods_store_close),
 * ODS_EOFFLINE, ODS_ESERVER, ODS_ETIMEOUT, ODS_EUNAUTHORIZED, ODS_EIO, ... `result` is never
 * NULL: on failure it counts what was confirmed and refused before the upload stopped.
 * `error` is NULL on success. Both BORROWED for the duration of the call.
 */
typedef void (*ods_upload_cb)(ods_store *store, int status, const ods_upload_result *result,
                              const ods_error *error, void *context);

/**
 * Starts sending an offline store's upload queue (see UPLOAD above) in the background.
 * `progress` (may be NULL) is called after every change the service answered; `completion`
 * (may be NULL) once at the end; both with `context` (not retained: it must outlive the
 * completion), through the store's dispatch mode, like request callbacks: on the store's
 * callback thread, or in queue mode on a thread that dispatches (ods_store_dispatch, also
 * ods_request_wait and ods_store_execute; each report and the completion are one event
 * each), never under an internal lock. The completion also comes when the upload is
 * cancelled or the store is closed: ods_store_close delivers it before it returns.
 * An upload of an empty queue completes at once with all counts 0.
 * Returns ODS_OK; ODS_ESTATE when the store is not open (still opening or downloading,
 * failed) or an upload already runs; ODS_EUNSUPPORTED, ODS_EINVAL (see above). On failure
 * neither callback is called. Any thread, also from a callback.
 */
ODS_EXTERN int ods_store_upload(ods_store *store, ods_upload_progress_cb progress,
                                ods_upload_cb completion, void *context);

/**
 * Stops the upload in progress: its completion comes with ODS_ECANCELLED. A change already
 * sent is recorded as sent (the next upload repeats it with the same Repeatability-Request-ID,
 * docs/offline.md); nothing queued is lost. Returns ODS_OK; ODS_ESTATE when no upload runs;
 * ODS_EUNSUPPORTED, ODS_EINVAL. Any thread, also from a callback.
 */
ODS_EXTERN int ods_store_cancel_upload(ods_store *store);

/**
 * *out = the number of local changes waiting in the upload queue (changes of one entity made
 * before an upload are combined where equivalent, so this can be less than the requests
 * made; archived changes are not counted). Returns ODS_OK; ODS_ESTATE while the store file is
 * not open yet; ODS_EUNSUPPORTED, ODS_EINVAL. Any thread, also from a callback (it waits for
 * the store's database thread).
 */
ODS_EXTERN int ods_store_pending_count(int64_t *out, ods_store *store);

/** Whether an entity has local changes (ods_entity_pending_state). */
typedef enum ods_entity_state {
    ODS_ENTITY_CLEAN = 0,    /**< As the service has it (and every entity an online store returns). */
    ODS_ENTITY_PENDING = 1,  /**< Local changes wait for upload ("@odatastore.pending": true). */
    ODS_ENTITY_ERROR = 2     /**< The service refused a change of it: it is in the error archive
                                  ("@odatastore.error": true). */
} ods_entity_state;

/**
 * The ods_entity_state of an entity of a response, read from its annotations: ODS_ENTITY_ERROR
 * when "@odatastore.error" is true, else ODS_ENTITY_PENDING when "@odatastore.pending" is
 * true, else ODS_ENTITY_CLEAN. Expanded entities carry their own annotations (ods_entity_get_value
 * + ods_value_entity reach them). Returns ODS_EINVAL for NULL. Any thread while the response is
 * alive.
 */
ODS_EXTERN int ods_entity_pending_state(const ods_entity *entity);

/**
 * One entry of the error archive: a local change the service refused, with the request that
 * was sent and the service's answer. Filled by the library; read-only; fields are only
 * appended. Strings are BORROWED from the ods_error_archive it came from (valid until
 * ods_error_archive_free).
 */
typedef struct ods_archived_error {
    unsigned int version;     /**< ODS_ARCHIVED_ERROR_VERSION of the library that filled it. */
    int64_t id;               /**< Unique in the store: the id for retry and revert, and of "ErrorArchive(<id>)". */
    const char *created;      /**< When the service refused it: ISO 8601 UTC ("2026-11-24T01:56:35Z"). */
    const char *method;       /**< The HTTP method sent: "POST", "PATCH", "MERGE", "PUT", "DELETE". */
    const char *path;         /**< The request path sent, relative to the service root. */
    const char *body;         /**< The JSON body sent, or NULL (DELETE). */
    int http_status;          /**< The service's HTTP status; 0 for a create whose answer was lost
                                   and that was not sent again (odata_code "uncertain"). */
    const char *odata_code;   /**< The OData error code of the service's answer, or NULL. */
    const char *message;      /**< The service's error message (or the library's), never NULL. */
    const char *entity_set;   /**< The entity set of the entity the change was about. */
} ods_archived_error;

#define ODS_ARCHIVED_ERROR_VERSION 1

/** A snapshot of an offline store's error archive (ods_store_error_archive). */
typedef struct ods_error_archive ods_error_archive;

/**
 * Reads the error archive as it is now, oldest first, into a snapshot: later changes to the
 * archive (an upload, a retry, a revert) do not change it. *out is OWNED: release it with
 * ods_error_archive_free; it stays valid after the store is closed. Returns ODS_OK (also for
 * an empty archive); ODS_ESTATE while the store file is not open yet; ODS_EUNSUPPORTED,
 * ODS_EINVAL. Any thread, also from a callback (it waits for the store's database thread).
 */
ODS_EXTERN int ods_store_error_archive(ods_error_archive **out, ods_store *store);

/** The number of entries in the snapshot (0 for NULL). */
ODS_EXTERN size_t ods_error_archive_count(const ods_error_archive *archive);

/** Entry `index` (0 .. count - 1, oldest first), BORROWED until ods_error_archive_free, or
 *  NULL when out of range or `archive` is NULL. */
ODS_EXTERN const ods_archived_error *ods_error_archive_at(const ods_error_archive *archive, size_t index);

/** Releases a snapshot and every string of its entries. NULL is a no-op. Any thread, once. */
ODS_EXTERN void ods_error_archive_free(ods_error_archive *archive);

/**
 * Queues the refused change `id` again: it leaves the archive and is appended to the upload
 * queue, to go with the next upload.
 * `body_json` (may be NULL) is the app's correction, a JSON object of properties merged into
 * the local entity first and sent with the change (not for a refused DELETE: ODS_EINVAL);
 * `etag` (may be NULL) replaces the If-Match the change carries ("*": whatever the service's
 * version; NULL keeps the one it had). Both are copied. Returns ODS_OK; ODS_ENOTFOUND when
 * the archive has no entry `id` (or its entity is no longer in the store); ODS_EINVAL
 * (body_json not a JSON object, a property the entity set does not have, an etag with CR or
 * LF); ODS_ESTATE when the store is not open; ODS_EUNSUPPORTED. Synchronous: the change is
 * in the queue when it returns. Any thread, also from a callback.
 */
ODS_EXTERN int ods_store_error_retry(ods_store *store, int64_t id, const char *body_json, const char *etag);

/**
 * The end of ods_store_error_revert: `status` ODS_OK, or the code of the failure (also in
 * error->code; `error` NULL on success, BORROWED for the call). `id` is the entry's id.
 */
typedef void (*ods_revert_cb)(ods_store *store, int64_t id, int status, const ods_error *error, void *context);

/**
 * Gives up the refused change `id` and every change of its entity still queued: the entry
 * leaves the archive and the entity goes back to the service's version, read from the
 * service (an entity created offline is removed; one the service no longer has is removed).
 * Runs in the background; `completion` (may be NULL) is called once with `context` (not
 * retained) through the store's dispatch mode, also when the store is closed meanwhile
 * (ods_store_close delivers it before it returns). It fails with the read's error when the
 * service cannot be reached (ODS_EOFFLINE...; nothing changed) or with ODS_ENOTFOUND when the
 * entry was resolved meanwhile by another call.
 * Returns ODS_OK; ODS_ENOTFOUND when the archive has no entry `id` now; ODS_ESTATE when the
 * store is not open; ODS_EUNSUPPORTED, ODS_EINVAL. On failure `completion` is never called.
 * Any thread, also from a callback (it waits for the store's database thread to look `id` up).
 */
ODS_EXTERN int ods_store_error_revert(ods_store *store, int64_t id, ods_revert_cb completion, void *context);

/**
 * A local key and the service's key that replaced it, as resource paths relative to the
 * service root, with keys spelled for the service's OData version ("Categories(-1)" and
 * "Categories(11)"). Filled by the library; read-only; fields are only appended. Strings are
 * BORROWED from the ods_key_mapping_list they came from (valid until ods_key_mapping_list_free).
 */
typedef struct ods_key_mapping {
    unsigned int version;     /**< ODS_KEY_MAPPING_VERSION of the library that filled it. */
    const char *entity_set;   /**< The entity set of the entity. */
    const char *local_path;   /**< The path under the local key (what local requests used before the upload). */
    const char *server_path;  /**< The path under the service's key; NULL while the create waits for upload. */
} ods_key_mapping;

#define ODS_KEY_MAPPING_VERSION 1

/** A snapshot of an offline store's key mappings (ods_store_key_mappings). */
typedef struct ods_key_mapping_list ods_key_mapping_list;

/**
 * Reads every local key the store made (for entities created offline whose key the service
 * assigns), with the service's key once uploaded, in the order they were made, into a
 * snapshot. *out is OWNED: release it with ods_key_mapping_list_free; it stays valid after
 * the store is closed. Returns ODS_OK (also when there are none); ODS_ESTATE while the store
 * file is not open yet; ODS_EUNSUPPORTED, ODS_EINVAL. Any thread, also from a callback.
 */
ODS_EXTERN int ods_store_key_mappings(ods_key_mapping_list **out, ods_store *store);

/** The number of mappings in the snapshot (0 for NULL). */
ODS_EXTERN size_t ods_key_mapping_list_count(const ods_key_mapping_list *list);

/** Mapping `index` (0 .. count - 1), BORROWED until ods_key_mapping_list_free, or NULL when out
 *  of range or `list` is NULL. */
ODS_EXTERN const ods_key_mapping *ods_key_mapping_list_at(const ods_key_mapping_list *list, size_t index);

/** Releases a snapshot and its strings. NULL is a no-op. Any thread, once. */
ODS_EXTERN void ods_key_mapping_list_free(ods_key_mapping_list *list);

/* ---------------------------------------------------------------------------------------
 * Requests
 *
 * PATHS. A request's `path` is written as OData documents show it, relative to the service
 * root ("Products(1)", "Products?$filter=Price gt 10") or as a full URL under it (same
 * scheme, host, port and root path; ODS_EINVAL otherwise). "" (or "/") is the service
 * document. The library then
 *   - percent-encodes what cannot appear in a URL: spaces, '"', '<', '>', '\', '^', '`',
 *     '{', '|', '}', control characters and non-ASCII text (as UTF-8), and '+' in the query
 *     (as %2B: many servers read a '+' as a space);
 *   - keeps every %XX escape as written (a literal '%' must be written %25), and keeps the
 *     characters that structure a URL: '/' between segments, '?' before the query, '&'
 *     between query options, '=', '(', ')', ',', ''', '$', ':', '@', ';';
 *   - refuses (ODS_EINVAL, with ods_error.position) a raw '#' (a fragment is never sent),
 *     control characters, unbalanced parentheses or quotes in the resource part, and '.'
 *     or '..' segments (also %2E), which would leave the service root.
 * So a value that contains '&', '#', '%', '?' or a quote must not be pasted into a path by
 * hand: ods_url_quote_string makes a string literal and ods_store_key_path a key predicate.
 * ------------------------------------------------------------------------------------- */

/**
 * Creates an unstarted request. `path` as above; `body_json` is the entity for
 * CREATE/UPDATE in the library's JSON shape (docs/json-shape.md), the parameters of a
 * FUNCTION that is an action, NULL otherwise. *out is owned by the caller: release it with
 * ods_request_free (a started request runs to its terminal callback even if freed).
 * Returns ODS_OK; ODS_EINVAL (mode, path, body missing, not JSON or not allowed for the
 * mode), ODS_ECLOSED (the store is closing or closed).
 */
ODS_EXTERN int ods_request_new(ods_request **out, ods_store *store, int mode, const char *path,
                               const char *body_json);

/** Releases the caller's reference from ods_request_new. Does not cancel. NULL is a no-op.
 *  Safe inside callbacks. A second free, or a request the app does not hold (one from
 *  ods_store_schedule, seen in a callback), is refused: ods_error_last() gets ODS_EINVAL. */
ODS_EXTERN void ods_request_free(ods_request *request);

/** Sets the request's delegate (copied; NULL removes it). Returns ODS_OK; ODS_ESTATE after
 *  start; ODS_EINVAL (NULL request, delegate version 0 or newer than the library). */
ODS_EXTERN int ods_request_set_delegate(ods_request *request, const ods_request_delegate *delegate);

/**
 * Sets the completion callback (NULL removes it) and the context it and the delegate's
 * callbacks receive (the request's context: the same slot as ods_request_set_context).
 * Before start only (ODS_ESTATE).
 */
ODS_EXTERN int ods_request_set_completion(ods_request *request, ods_completion_cb completion, void *context);

/** Sets the opaque pointer passed to the request's callbacks. Not retained or freed.
 *  Returns ODS_OK; ODS_ESTATE after start; ODS_EINVAL for a NULL request. */
ODS_EXTERN int ods_request_set_context(ods_request *request, void *context);

/** The request's context (NULL when unset or for a NULL request). */
ODS_EXTERN void *ods_request_context(const ods_request *request);

/**
 * Adds a header to send with this request (replacing one of the same name, compared without
 * case); value NULL removes it. Returns ODS_OK; ODS_ESTATE after start; ODS_EINVAL for a
 * name that is not an HTTP token, a value with a control character but tab (CR, LF, NUL,
 * ESC, DEL...: RFC 9110 5.5), or a header of the HTTP layer
 * (Content-Length, Transfer-Encoding, Connection, Keep-Alive, Proxy-Connection, Upgrade, TE,
 * Trailer: they frame the message or manage the connection; also refused in
 * ods_store_options.headers).
 */
ODS_EXTERN int ods_request_set_header(ods_request *request, const char *name, const char *value);

/**
 * The ETag for If-Match on UPDATE/DELETE. When unset, the body's "@odata.etag" is used;
 * "*" matches any version; NULL unsets it. Returns ODS_OK; ODS_ESTATE after start;
 * ODS_EINVAL for an ETag with a control character (CR, LF, NUL...).
 */
ODS_EXTERN int ods_request_set_etag(ods_request *request, const char *etag);

/** ods_paging; default ODS_PAGING_NONE. Returns ODS_OK; ODS_ESTATE after start; ODS_EINVAL
 *  for an unknown value. */
ODS_EXTERN int ods_request_set_paging(ods_request *request, int paging);

/** Per-request time limit in ms for each HTTP exchange (0 = the store's). Returns ODS_OK;
 *  ODS_ESTATE after start; ODS_EINVAL when negative. */
ODS_EXTERN int ods_request_set_timeout(ods_request *request, long timeout_ms);

/** Starts the request. ODS_ESTATE if already started, ODS_ECLOSED if the store is closing,
 *  ODS_ELIMIT when max_pending_requests requests are pending. */
ODS_EXTERN int ods_request_start(ods_request *request);

/**
 * Cancels a started request: it fails with ODS_ECANCELLED unless it already reached its
 * terminal callback (then ODS_ESTATE). ODS_ESTATE if not started.
 */
ODS_EXTERN int ods_request_cancel(ods_request *request);

/**
 * Blocks until the started request has ended and its last callback has returned, or
 * `timeout_ms` has passed (-1 = no limit). Returns ODS_OK when it has ended, whatever its
 * outcome (ods_request_get_state, ods_request_error and ods_request_response tell it);
 * ODS_ETIMEOUT when it has not (it goes on); ODS_ESTATE when it was not started, or when
 * called from a callback of its store (the callback would wait for itself: a deadlock
 * refused, not entered). In queue mode the calling thread delivers the store's callbacks
 * while it waits, including other requests' (so no second thread is needed); it may run
 * alongside other threads that dispatch.
 */
ODS_EXTERN int ods_request_wait(ods_request *request, long timeout_ms);

/**
 * The error of a request that failed or was cancelled (BORROWED: valid until the request is
 * freed), or NULL when it succeeded or has not ended.
 */
ODS_EXTERN const ods_error *ods_request_error(const ods_request *request);

/**
 * The response of an ended request: its successful response, or the service's error
 * response when it failed with one. *out is OWNED (ods_response_free). Returns ODS_OK,
 * ODS_ESTATE when the request has not ended, ODS_ENOTFOUND when it failed without a
 * response (network error, cancellation).
 */
ODS_EXTERN int ods_request_response(ods_response **out, const ods_request *request);

/** The request's id, unique within its store and never 0 (0 for NULL). */
ODS_EXTERN uint64_t ods_request_id(const ods_request *request);

/** The request's ods_request_state, or ODS_EINVAL for NULL. */
ODS_EXTERN int ods_request_get_state(const ods_request *request);

/** The request's ods_mode, or ODS_EINVAL for NULL. */
ODS_EXTERN int ods_request_mode(const ods_request *request);

/** The request's path as given (BORROWED: valid until the request is freed). */
ODS_EXTERN const char *ods_request_path(const ods_request *request);

/** The store the request belongs to (BORROWED: valid until ods_store_close); NULL once
 *  the store is closed, or for a NULL request. */
ODS_EXTERN ods_store *ods_request_store(const ods_request *request);

/* ---------------------------------------------------------------------------------------
 * Responses
 *
 * A response handed to a callback is BORROWED until the callback returns; ods_response_dup
 * keeps it (and everything borrowed from it: strings, entities, values) until
 * ods_response_free. Responses from ods_store_execute and ods_request_response are OWNED.
 * Every accessor may be called from any thread while the response is alive.
 * ------------------------------------------------------------------------------------- */

/** A new reference to `response` (*out is the same pointer, OWNED: ods_response_free).
 *  Returns ODS_OK or ODS_EINVAL. */
ODS_EXTERN int ods_response_dup(ods_response **out, const ods_response *response);

/** Releases a reference from ods_response_dup, ods_store_execute or ods_request_response.
 *  NULL is a no-op. Never call it on a response a callback only borrowed. */
ODS_EXTERN void ods_response_free(ods_response *response);

/** HTTP status (200, 201, 204, 4xx, 5xx...), or ODS_EINVAL for NULL. */
ODS_EXTERN int ods_response_status(const ods_response *response);

/**
 * The payload in the library's JSON shape (docs/json-shape.md): OData V4 JSON, minimal
 * metadata, IEEE754Compatible (Int64 and Decimal as strings), whatever the service's
 * version: a collection is {"value":[...]} with "@odata.count"/"@odata.nextLink" when
 * present; an entity is an object with "@odata.etag" when it has one; a primitive result is
 * {"value": ...}. "" when the response has no body (204). BORROWED. *out_len (may be NULL)
 * receives the length in bytes.
 */
ODS_EXTERN const char *ods_response_json(const ods_response *response, size_t *out_len);

/** The raw response body as received (BORROWED); *out_len (may be NULL) gets its length. */
ODS_EXTERN const char *ods_response_body(const ods_response *response, size_t *out_len);

/** First response header of that name (case-insensitive), or NULL. BORROWED. */
ODS_EXTERN const char *ods_response_header(const ods_response *response, const char *name);

/** Number of response headers. */
ODS_EXTERN size_t ods_response_header_count(const ods_response *response);

/** The header at `index`: *out_name and *out_value BORROWED. ODS_ENOTFOUND when out of range. */
ODS_EXTERN int ods_response_header_at(const char **out_name, const char **out_value,
                                      const ods_response *response, size_t index);

/** The ETag of the response (ETag header, or the single entity's etag), or NULL. BORROWED. */
ODS_EXTERN const char *ods_response_etag(const ods_response *response);

/** The next-page link (absolute URL), or NULL when this is the last page. BORROWED. */
ODS_EXTERN const char *ods_response_next_link(const ods_response *response);

/** The total count ($count / $inlinecount), or -1 when the response carries none. */
ODS_EXTERN int64_t ods_response_count(const ods_response *response);

/** 1 when an offline store answered from its file (no request went to the service), 0
 *  when the service answered, ODS_EINVAL for NULL. */
ODS_EXTERN int ods_response_is_local(const ods_response *response);

/** Number of entities: the collection's length, 1 for a single entity, else 0. */
ODS_EXTERN size_t ods_response_entity_count(const ods_response *response);

/** The entity at `index` (BORROWED, valid as the response), or NULL when out of range. */
ODS_EXTERN const ods_entity *ods_response_entity(const ods_response *response, size_t index);

/** The whole payload as a value (the object ods_response_json shows; BORROWED), or NULL
 *  when the response has no JSON (204, media). */
ODS_EXTERN const ods_value *ods_response_value(const ods_response *response);

/* ---------------------------------------------------------------------------------------
 * Entities and values: typed access for C callers without a JSON parser
 *
 * Entities and values are BORROWED from their response: valid while it is. The same value
 * always gives the same pointer. An ods_entity is an object value: ods_entity_value and
 * ods_value_entity convert between the two handle types (no copy).
 *
 * TYPED GETTERS (ods_entity_get_*, ods_value_get_*) follow one rule: *out is cleared first;
 * ODS_OK fills it; ODS_ENOTFOUND when the property is absent (entity getters only);
 * ODS_ENULL when the value is JSON null; ODS_ETYPE when it cannot be read as that type;
 * ODS_EINVAL for NULL arguments.
 *   - get_string: strings as they are, numbers as spelled, booleans as "true"/"false",
 *     objects and arrays as their JSON (BORROWED). Never ODS_ETYPE.
 *   - get_int64: a JSON integer, or a string holding one (Int64 and Decimal arrive as
 *     strings); ODS_ETYPE for fractions, other text, or beyond the int64 range.
 *   - get_double: a number, a decimal string, or "INF", "-INF", "NaN".
 *   - get_bool: true/false only (*out 1 or 0).
 * ------------------------------------------------------------------------------------- */

/** Kinds of JSON values, as ods_entity_value_type and ods_value_get_type report them. */
typedef enum ods_value_type {
    ODS_VALUE_ABSENT = 0,
    ODS_VALUE_NULL = 1,
    ODS_VALUE_BOOL = 2,
    ODS_VALUE_NUMBER = 3,
    ODS_VALUE_STRING = 4,   /**< Also Int64, Decimal, dates, GUIDs (canonical shape). */
    ODS_VALUE_OBJECT = 5,   /**< Complex value or expanded single entity. */
    ODS_VALUE_ARRAY = 6     /**< Collection value or expanded entity collection. */
} ods_value_type;

/** The entity as one JSON object (BORROWED). */
ODS_EXTERN const char *ods_entity_json(const ods_entity *entity);

/** The entity's "@odata.etag", or NULL. BORROWED. */
ODS_EXTERN const char *ods_entity_etag(const ods_entity *entity);

/** The ods_value_type of a property (ODS_VALUE_ABSENT when missing or entity is NULL). */
ODS_EXTERN int ods_entity_value_type(const ods_entity *entity, const char *property);

/** A property's value, for nested data: a complex value, an expanded entity (to-one) or
 *  entity collection (to-many), a collection of values. *out BORROWED. ODS_OK (also for
 *  null: ods_value_get_type says ODS_VALUE_NULL), ODS_ENOTFOUND when absent, ODS_EINVAL. */
ODS_EXTERN int ods_entity_get_value(const ods_value **out, const ods_entity *entity, const char *property);

/** A property as text (see TYPED GETTERS). *out BORROWED. */
ODS_EXTERN int ods_entity_get_string(const char **out, const ods_entity *entity, const char *property);

/** A property as a 64-bit integer (see TYPED GETTERS). */
ODS_EXTERN int ods_entity_get_int64(int64_t *out, const ods_entity *entity, const char *property);

/** A property as a double (see TYPED GETTERS). */
ODS_EXTERN int ods_entity_get_double(double *out, const ods_entity *entity, const char *property);

/** A boolean property: *out 1 or 0 (see TYPED GETTERS). */
ODS_EXTERN int ods_entity_get_bool(int *out, const ods_entity *entity, const char *property);

/** The entity as a value (the same object; NULL for NULL). */
ODS_EXTERN const ods_value *ods_entity_value(const ods_entity *entity);

/** The ods_value_type of a value (ODS_VALUE_ABSENT for NULL). */
ODS_EXTERN int ods_value_get_type(const ods_value *value);

/** The value's JSON text (BORROWED), NULL for NULL. */
ODS_EXTERN const char *ods_value_json(const ods_value *value);

/** Elements of an array, members of an object (annotations included), 0 for anything else. */
ODS_EXTERN size_t ods_value_count(const ods_value *value);

/** Element `index` of an array (BORROWED), or NULL when out of range or not an array. */
ODS_EXTERN const ods_value *ods_value_at(const ods_value *array, size_t index);

/** The member named `name` of an object (BORROWED; names are case-sensitive), or NULL when
 *  absent or not an object. */
ODS_EXTERN const ods_value *ods_value_member(const ods_value *object, const char *name);

/** Member `index` of an object, in document order: *out_name and *out_value BORROWED (either
 *  out may be NULL). ODS_OK, ODS_ENOTFOUND when out of range, ODS_ETYPE when not an object. */
ODS_EXTERN int ods_value_member_at(const char **out_name, const ods_value **out_value,
                                   const ods_value *object, size_t index);

/** An object value as an entity (the same object), so the entity getters apply; NULL when
 *  it is not an object. */
ODS_EXTERN const ods_entity *ods_value_entity(const ods_value *object);

/** The value as text (see TYPED GETTERS). *out BORROWED. */
ODS_EXTERN int ods_value_get_string(const char **out, const ods_value *value);

/** The value as a 64-bit integer (see TYPED GETTERS). */
ODS_EXTERN int ods_value_get_int64(int64_t *out, const ods_value *value);

/** The value as a double (see TYPED GETTERS). */
ODS_EXTERN int ods_value_get_double(double *out, const ods_value *value);

/** A boolean value: *out 1 or 0 (see TYPED GETTERS). */
ODS_EXTERN int ods_value_get_bool(int *out, const ods_value *value);

/* ---------------------------------------------------------------------------------------
 * Protocol tools
 * ------------------------------------------------------------------------------------- */

/**
 * A string literal for a request path, the same in V2 and V4: `value` in single quotes with
 * quotes doubled and URL-significant characters percent-encoded ('%', '&', '#', '?', '/',
 * '+', space, '"', non-ASCII), so "A&B 'x'" becomes 'A%26B%20''x'''. Use it in $filter
 * ("Customers?$filter=Name eq " + literal) and in key predicates of String keys.
 * *out OWNED (ods_free). Returns ODS_OK or ODS_EINVAL (NULL, not UTF-8).
 */
ODS_EXTERN int ods_url_quote_string(char **out, const char *value);

/**
 * The path of an entity by its key, typed by the store's $metadata and spelled for its
 * version: "Products(3)", "OrderLines(OrderID=1000,LineNo=1)", "Customers('O''NEIL')",
 * V2 "Items(12L)" / "Items(guid'...')", V4 "Items(12)" / "Items(5f0c...)".
 * `key_json` is the key in the library's JSON shape: the value itself for a single key
 * ("3", "\"O'NEIL\"") or an object of the key properties ({"OrderID":1000,"LineNo":1}).
 * *out OWNED (ods_free). Returns ODS_OK; ODS_ESTATE while the store has no $metadata;
 * ODS_ENOTFOUND for an unknown entity set; ODS_EINVAL when key_json is not JSON or does not
 * match the key (names, count, types, ranges).
 */
ODS_EXTERN int ods_store_key_path(char **out, ods_store *store, const char *entity_set, const char *key_json);

/**
 * Parses a request URL (absolute, or relative to the service root) and, when `metadata` is
 * given, checks it against that $metadata document (V2 or V4 CSDL, `metadata_len` bytes):
 * entity sets, keys, properties, navigation, function parameters, $filter/$orderby/$select/
 * $expand. On success *out receives OWNED JSON describing the parsed request (the canonical
 * URL and the syntax tree, docs/cli.md; release with ods_free). A URL that does not parse or
 * check fails with ODS_ESYNTAX and ods_error_last()->position set to the 0-based byte
 * offset of the problem in `url`; an unreadable $metadata document with ODS_EINVAL.
 * `odata_version` is 2, 4, or 0 (the document's version; without a document both dialects);
 * `service_root` may be NULL.
 */
ODS_EXTERN int ods_url_check(char **out, const char *url, const char *metadata, size_t metadata_len,
                             int odata_version, const char *service_root);

/**
 * Like ods_url_check, against the $metadata of an open store (its service root and version).
 * Returns ODS_OK, ODS_ESYNTAX (with the byte position), ODS_ESTATE while the store has no
 * $metadata yet (still opening, or failed), ODS_EINVAL.
 */
ODS_EXTERN int ods_store_check_url(char **out, ods_store *store, const char *url);

/**
 * What the store's $metadata declares, as one JSON object (*out OWNED, ods_free): the same
 * summary `odatastore metadata` prints (docs/cli.md): "odataVersion", "container",
 * "entitySets" (sorted by name: name, kind "entitySet" or "singleton", entityType, key,
 * properties with their Edm types, navigation with target type and whether a collection)
 * and "operations" (the function and action imports: name, kind, httpMethod, parameters,
 * returns, entitySet). For an offline store, the model of its file. Any thread, also in a
 * callback. Returns ODS_OK; ODS_ESTATE while the store has no $metadata yet (still opening,
 * or the open failed before loading it: a store whose open failed later, e.g. in an offline
 * store's first download, keeps its model); ODS_EINVAL for NULL arguments; ODS_ENOMEM.
 */
ODS_EXTERN int ods_store_model_json(char **out, ods_store *store);

/* ---------------------------------------------------------------------------------------
 * MIXED STORES (ODS_STORE_MIXED; docs/mixed.md)
 *
 * A mixed store is an offline store and the service behind one handle. It takes the
 * offline options (store_path, defining_requests, download_progress...) and opens as an
 * offline store does: the store file is created and downloaded on the first open, reopened
 * without the network afterwards; requests made while it opens are held and run when it is
 * open (or fail with the opening's error). Every offline call (ods_store_upload,
 * ods_store_download, ods_store_pending_count, the error archive, ods_store_offline_info...)
 * works on a mixed store and acts on its store file.
 *
 * Each request goes to one side, decided when it starts executing:
 *   1. its own route (ods_request_set_route), when it set one;
 *   2. else the store's working mode (ods_store_set_mode): ODS_MODE_ONLINE sends everything
 *      to the service, ODS_MODE_OFFLINE answers everything from the file (as an offline
 *      store: ODS_ENOTINSCOPE outside the defining requests);
 *   3. else (ODS_MODE_MIXED, the default) what the defining requests cover: the request's
 *      path is parsed against $metadata (full URLs, key predicates, navigation, query
 *      options) and it goes to the file when every entity set and navigation it reaches
 *      (path, $filter, $orderby, $expand at any depth) was brought down by a defining
 *      request and the store evaluates all its options; to the service otherwise. So an
 *      $expand into a set no defining request covers goes to the service, never answered
 *      incompletely from the file. CREATE/UPDATE/DELETE on covered sets go to the file and
 *      its upload queue. Function and action imports always go to the service.
 * With the service unreachable, what goes to the service fails with ODS_EOFFLINE; what the
 * file covers still answers. ods_response_source tells which side answered.
 * ------------------------------------------------------------------------------------- */

/** A mixed store's working mode. */
typedef enum ods_store_mode {
    ODS_MODE_MIXED = 0,    /**< Per request, by what the defining requests cover (the default). */
    ODS_MODE_ONLINE = 1,   /**< Every request to the service. */
    ODS_MODE_OFFLINE = 2   /**< Every request to the store file. */
} ods_store_mode;

/** A request's own choice of side, winning over the working mode. */
typedef enum ods_route {
    ODS_ROUTE_AUTO = 0,    /**< The working mode decides (the default). */
    ODS_ROUTE_ONLINE = 1,  /**< The service answers. */
    ODS_ROUTE_OFFLINE = 2  /**< The store file answers. */
} ods_route;

/** Which side answered a request (ods_response_source). */
typedef enum ods_source {
    ODS_SOURCE_ONLINE = 1,  /**< The service, over HTTP. */
    ODS_SOURCE_OFFLINE = 2  /**< The store file: no request went to the service. */
} ods_source;

/**
 * Switches a mixed store's working mode (ods_store_mode). Allowed at any time, also while
 * the store opens and from a callback: requests that start executing afterwards (held ones
 * included) go where the new mode says; requests already executing finish on the side they
 * started on. Returns ODS_OK; ODS_EINVAL for a NULL or unknown store or an unknown mode;
 * ODS_EUNSUPPORTED for a store that is not ODS_STORE_MIXED; ODS_ECLOSED once the store
 * closes. Any thread.
 */
ODS_EXTERN int ods_store_set_mode(ods_store *store, int mode);

/**
 * *out = the store's working mode (ods_store_mode): a mixed store's current one;
 * ODS_MODE_ONLINE for an online store, ODS_MODE_OFFLINE for an offline store. Returns
 * ODS_OK; ODS_EINVAL for NULL arguments or an unknown store. Any thread.
 */
ODS_EXTERN int ods_store_get_mode(int *out, ods_store *store);

/**
 * Sends this request to one side of a mixed store (ods_route), whatever the working mode.
 * ODS_ROUTE_OFFLINE on a request the file does not cover fails it as an offline store would
 * (ODS_ENOTINSCOPE; function imports ODS_EUNSUPPORTED). Before ods_request_start only.
 * Returns ODS_OK; ODS_ESTATE after start; ODS_EINVAL for a NULL request or an unknown
 * route; ODS_EUNSUPPORTED for ODS_ROUTE_ONLINE/OFFLINE on a request of a store that is not
 * ODS_STORE_MIXED (ODS_ROUTE_AUTO is accepted everywhere). Any thread.
 */
ODS_EXTERN int ods_request_set_route(ods_request *request, int route);

/** Which side answered (ods_source): ODS_SOURCE_OFFLINE when the store file did (an offline
 *  store always; a mixed store as routed), ODS_SOURCE_ONLINE when the service did;
 *  ODS_EINVAL for NULL. Valid for the response's life; any thread. */
ODS_EXTERN int ods_response_source(const ods_response *response);

/* ---------------------------------------------------------------------------------------
 * Logon and held requests (docs/logon.md)
 *
 * HELD REQUESTS. A request started before the store is open is held, in start order, and
 * sent as soon as the store is open; when opening fails (also: a refused logon during the
 * open) it fails with the open's error. Nothing polls or sleeps: the open's completion
 * releases them. A request started while a logon prompt waits for the app's reply is held
 * the same way. Each hold is bounded by max_held_requests: one more request fails with
 * ODS_ELIMIT and a message that starts "too many held requests" (ods_store_schedule and
 * ods_request_start return it while the store opens; while a logon waits, the request's
 * failed callback brings it). max_pending_requests bounds all requests in flight.
 *
 * LOGON. With options->logon set, an answer that asks for credentials (HTTP 401; with
 * ODS_LOGON_LOGIN_PAGE also a 2xx HTML page, SAP's login page when a session expires behind
 * single sign-on) is not the request's answer. The store
 *   1. calls `logon` ONCE (through the dispatch mode, never under a lock), however many
 *      requests failed at the same time, with an ods_logon_info that names the prompt;
 *   2. holds every request that failed so, and every request started or sent meanwhile
 *      (also the $metadata fetch of an opening store, downloads and uploads);
 *   3. when the app replies with credentials, sends each held request again with them: the
 *      same request (same id, context, delegate), which gets exactly one terminal callback
 *      as always. The app sees no 401.
 * The app answers with exactly one of ods_store_logon_basic, _bearer, _headers or _refuse,
 * from the callback itself or later, from any thread (an SSO flow can take minutes; held
 * requests do not time out meanwhile, ods_request_cancel and ods_store_close end them).
 * A refused logon fails the held requests with ODS_EUNAUTHORIZED (http_status 401), and also
 * those already sent whose 401 comes after the refusal (no second prompt for them).
 * Credentials the service refuses at once prompt again (reason ODS_LOGON_REJECTED, attempt
 * 2, 3, ...); after max_logon_attempts prompts in a row, the held requests fail with
 * ODS_EUNAUTHORIZED; one request is sent again at most max_logon_attempts + 1 times.
 * Writes: a create, update or delete answered 401 was refused before the service acted on
 * it, so sending it again after the logon is safe (the retry policy never repeats a POST
 * that may have been acted on; a 401 is not that).
 *
 * CREDENTIALS. A reply's credentials are copied and kept in memory only, for the store's
 * life; they replace the options' (auth) and same-named headers of options->headers, and go
 * with every request to the service root's host. They never appear in error messages, in
 * ods_logon_info, in logs or in an offline store's file.
 *
 * REPLYING. Every reply function returns ODS_OK (the prompt is answered and closed);
 * ODS_ESTATE when no prompt `logon_id` waits in this store (answered already, by another
 * thread too, or never asked); ODS_ECLOSED while the store is closing; ODS_EINVAL for a
 * NULL or closed store (ods_store_close gives every prompt up: the held requests got
 * ODS_ECANCELLED) or for credentials that cannot be sent (CR, LF, NUL; an empty user name or
 * token; the prompt stays open: answer it again); ODS_EUNSUPPORTED when the store has no
 * logon callback. Strings are copied. Any thread, also from inside a callback of the store.
 * Unlike other calls, a reply may race with ods_store_close on another thread (an SSO flow
 * finishing as the app closes the store): it then returns ODS_ECLOSED or ODS_EINVAL and
 * never touches freed memory, unless a new store has been given the same address meanwhile
 * (prompt ids are unique in the process, so even then it answers nothing: ODS_ESTATE).
 * ------------------------------------------------------------------------------------- */

/** Answers prompt `logon_id` with HTTP Basic credentials (`username` without ':';
 *  `password` may be NULL for an empty one). See REPLYING. */
ODS_EXTERN int ods_store_logon_basic(ods_store *store, uint64_t logon_id, const char *username, const char *password);

/** Answers prompt `logon_id` with `Authorization: Bearer <token>`. See REPLYING. */
ODS_EXTERN int ods_store_logon_bearer(ods_store *store, uint64_t logon_id, const char *token);

/** Answers prompt `logon_id` with headers of the app's own: a NULL-terminated array of 1 to
 *  100 "Name: value" lines (a session cookie from an SSO flow, an API key), sent with every
 *  request from now on. See REPLYING. */
ODS_EXTERN int ods_store_logon_headers(ods_store *store, uint64_t logon_id, const char *const *headers);

/** Answers prompt `logon_id` with no credentials: the held requests fail with
 *  ODS_EUNAUTHORIZED (an opening store fails to open with it). See REPLYING. */
ODS_EXTERN int ods_store_logon_refuse(ods_store *store, uint64_t logon_id);

/* -------------------------------------------------------------------------------------
 * CHANGE OBSERVERS (offline and mixed stores; docs/observers.md)
 *
 * An app registers an observer for an entity set of an offline or mixed store and is called,
 * through the store's dispatch mode like every callback, after that set's local data changed:
 * a local create, update or delete; a download (each page or transaction that wrote or removed
 * rows); an upload's effects (a local key replaced by the service's key, rows refreshed with
 * the service's answer, an entity marked in error by a refused change); a revert. Only
 * changes committed after ods_store_observe returns are reported. One call covers what one
 * step committed for the set: an ods_changes record, BORROWED for the call (do not keep it or
 * its strings after the callback returns). In queue mode each observer call is one event of
 * ods_store_dispatch.
 *
 * BOUNDED. A step that changed at most ODS_CHANGES_MAX_LISTED entities of the set lists each
 * one (kind and key-predicate path relative to the service root, "Products(7)"); an update of
 * an entity already listed in the same record is not repeated. A larger step (a download of
 * 100,000 rows) is a SUMMARY: ods_changes_is_summary() is 1, nothing is listed, and
 * ods_changes_count() gives the number of row changes by kind; read the collection again.
 *
 * REMOVING. ods_observer_remove unregisters and frees the observer, from any thread, also from
 * inside its own callback. When it returns the callback is not running on another thread and
 * is never called again, so the app may release `context` then (there is no release hook: the
 * return of ods_observer_remove is the event). Called from inside that observer's own
 * callback it returns at once and the running call is the last. Remove every observer,
 * also after ods_store_close (a closed store calls no observer; the handle stays valid until
 * removed).
 * ------------------------------------------------------------------------------------- */

/** An observer registered with ods_store_observe; freed by ods_observer_remove. */
typedef struct ods_observer ods_observer;

/** What changed in one entity set (BORROWED for the callback). */
typedef struct ods_changes ods_changes;

/** The kind of one change. */
typedef enum ods_change_kind {
    ODS_CHANGE_CREATED = 1,     /**< A row was added (a local create, a download). */
    ODS_CHANGE_UPDATED = 2,     /**< A row's values or state changed. */
    ODS_CHANGE_DELETED = 3,     /**< A row was removed. */
    ODS_CHANGE_KEY_CHANGED = 4  /**< An entity created offline got the service's key on upload. */
} ods_change_kind;

/** Changes listed one by one in a record at most; more make a summary. */
#define ODS_CHANGES_MAX_LISTED 1000

/** Called after changes of the observed entity set were committed (see CHANGE OBSERVERS). */
typedef void (*ods_change_cb)(ods_store *store, const ods_changes *changes, void *context);

/**
 * Registers `callback` for changes of `entity_set` (an entity set name such as "Products",
 * not a resource path) of an offline or mixed store. On success *out is the observer, owned
 * by the caller: release it with ods_observer_remove. `context` is passed to every call and
 * not retained. Returns ODS_OK; ODS_EUNSUPPORTED for an online store; ODS_EINVAL for a NULL
 * argument, a closed store or a name that is not an entity set name; ODS_ENOTFOUND when the
 * service (once its model is known) has no such set; ODS_ECLOSED while closing. Any thread,
 * also from inside a callback; may wait briefly for the store file's thread.
 */
ODS_EXTERN int ods_store_observe(ods_observer **out, ods_store *store, const char *entity_set,
                                 ods_change_cb callback, void *context);

/**
 * Unregisters and frees `observer` (see REMOVING): no call comes after it returns, except
 * that called from inside this observer's own callback, the running call finishes. Returns
 * ODS_OK; ODS_EINVAL for NULL or an observer removed already. Any thread.
 */
ODS_EXTERN int ods_observer_remove(ods_observer *observer);

/** The observed entity set's name (BORROWED for the call); NULL for NULL. */
ODS_EXTERN const char *ods_changes_entity_set(const ods_changes *changes);

/** The number of changes of `kind` (an ods_change_kind), or of all kinds for 0; -1 for NULL
 *  or an unknown kind. In a summary these are row changes (one row may count twice). */
ODS_EXTERN int64_t ods_changes_count(const ods_changes *changes, int kind);

/** 1 when the record is a summary (nothing listed), 0 when every change is listed; ODS_EINVAL for NULL. */
ODS_EXTERN int ods_changes_is_summary(const ods_changes *changes);

/** The number of listed changes (0 for a summary or NULL). */
ODS_EXTERN size_t ods_changes_size(const ods_changes *changes);

/** The kind of listed change `index` (an ods_change_kind); ODS_EINVAL for NULL or an index out of range. */
ODS_EXTERN int ods_changes_kind(const ods_changes *changes, size_t index);

/** The path of listed change `index` relative to the service root ("Products(7)"; for
 *  ODS_CHANGE_KEY_CHANGED the new key), BORROWED for the call; NULL for NULL or out of range. */
ODS_EXTERN const char *ods_changes_path(const ods_changes *changes, size_t index);

/** For ODS_CHANGE_KEY_CHANGED the path under the old (local) key, else NULL (BORROWED for the call). */
ODS_EXTERN const char *ods_changes_old_path(const ods_changes *changes, size_t index);

/* -------------------------------------------------------------------------------------
 * LOGGING (docs/logging.md)
 *
 * One log callback for the whole process, as sqlite3_config(SQLITE_CONFIG_LOG) and libgit2's
 * git_trace_set. Process-wide rather than per store because much of what is worth logging
 * happens where no store's context is at hand (the HTTP transport's retries, a store that
 * fails to open), an app wants one sink for all its stores, and the logging systems it
 * forwards to (syslog, Python's logging, os_log) are process-wide themselves.
 *
 * WHAT IS LOGGED. ODS_LOG_ERROR and ODS_LOG_WARNING: exchanges that got no answer (broken
 * connection, timeout, TLS). ODS_LOG_INFO: every HTTP exchange finished ("GET <url> -> 200
 * in 3.1 ms, 812 bytes"), retries with their reason and delay, logon prompts and how the app
 * replied, CSRF token refetches, download steps (each defining request: full or resumed/
 * delta; each page: entities and bytes), upload steps (changes queued, confirmed, refused
 * and archived), stores opening, open, closing, closed. ODS_LOG_DEBUG: exchanges started,
 * $batch requests sent, CSRF tokens received. The words of a message may change between
 * releases; the `category` names below do not.
 *
 * NO SECRETS. No message contains a header value (Authorization, Cookie, X-CSRF-Token...),
 * a request or response body, a password written into a URL (replaced by '*'), or a logon
 * reply's user name, password or token (only its kind: "basic credentials").
 *
 * OFF BY DEFAULT, CHEAP WHEN OFF. Until ods_log_set is called, and for messages more
 * detailed than the level set, a log site costs one atomic load and a compare: no message is
 * formatted (docs/logging.md has the measured figure).
 * ------------------------------------------------------------------------------------- */

/** Log levels: a callback set for a level gets it and the less detailed ones. */
typedef enum ods_log_level {
    ODS_LOG_OFF = 0,      /**< No logging (ods_log_set with this level removes the callback). */
    ODS_LOG_ERROR = 1,    /**< Something failed that the library cannot report otherwise. */
    ODS_LOG_WARNING = 2,  /**< An exchange without an answer (broken connection, timeout, TLS). */
    ODS_LOG_INFO = 3,     /**< Exchanges with status and time, retries, logon, sync steps, open/close. */
    ODS_LOG_DEBUG = 4     /**< Also exchanges started, $batch requests sent, CSRF tokens received. */
} ods_log_level;

/** A log callback. `level` is an ods_log_level; `category` one of "store", "http", "retry",
 *  "logon", "csrf", "download", "upload", "local" (requests answered from the store's file),
 *  "route" (a mixed store's choice of side; more may be added); `message` one line of UTF-8 without a trailing
 *  newline. Both strings are BORROWED for the duration of the call (copy what you keep).
 *
 *  THREADING. Called on whatever thread logs: the store's HTTP thread, its database
 *  thread, its callback thread, or the app's own thread inside an ods_* call; several
 *  threads may call it at the same time (serialise in the callback if your sink needs it).
 *  Never called under an internal lock. It should return quickly (it runs on the threads
 *  that do the library's work) and must not call functions that wait for the library's
 *  threads (ods_store_close, ods_request_wait, ods_store_execute, ods_store_dispatch with a
 *  timeout): those may deadlock when it runs on the thread they wait for. ods_log_set and
 *  ods_log_get_level may be called from it. */
typedef void (*ods_log_cb)(int level, const char *category, const char *message, void *context);

/** Sets the process's log callback: `callback` gets messages of `level` and below, with
 *  `context` (not retained: keep it alive until the callback is replaced). A NULL
 *  `callback` or ODS_LOG_OFF turns logging off (`context` is then ignored). Replaces any
 *  earlier callback.
 *
 *  When ods_log_set returns, the previous callback is not running on any other thread and
 *  will not be called again, so its context may be freed at once: calls in flight are waited
 *  for (they are short, see ods_log_cb). Exception: called from INSIDE a log callback,
 *  ods_log_set does not wait (it could wait for itself, or for a thread that waits for it);
 *  calls already running on other threads then finish with the old callback, and no new
 *  call of it begins. Because it waits, do not call it while holding a lock that your
 *  callback takes (the callback would wait for the lock, ods_log_set for the callback).
 *
 *  Any thread, at any time (also while requests run). Returns ODS_OK, or ODS_EINVAL for a
 *  level that is not an ods_log_level (the callback set before stays). */
ODS_EXTERN int ods_log_set(int level, ods_log_cb callback, void *context);

/** The level of the current log callback: ODS_LOG_OFF when none is set. Any thread. */
ODS_EXTERN int ods_log_get_level(void);

/* ---------------------------------------------------------------------------------------
 * One-call forms for language bindings
 *
 * Where each foreign call and each out-parameter is costly (Python's ctypes allocates an
 * object per out-parameter), these do in one call what the functions they name do in
 * several, with the same checks, errors and ownership.
 * ------------------------------------------------------------------------------------- */

/**
 * Creates a request, sets its completion (may be NULL) and context and starts it: what
 * ods_request_new, ods_request_set_completion and ods_request_start do one after the other.
 * Returns the request, OWNED by the caller as one from ods_request_new (release it with
 * ods_request_free, which does not cancel; ods_request_cancel, ods_request_id,
 * ods_request_get_state... take it), or NULL when creating or starting it failed: then no
 * request exists, no callback comes, and ods_error_last() has the error (ODS_EINVAL,
 * ODS_ECLOSED, ODS_ELIMIT as for those functions). The completion may run on the store's
 * callback thread before this function returns. The store's default delegate, if any, also
 * receives the request's callbacks, as for any request.
 */
ODS_EXTERN ods_request *ods_request_submit(ods_store *store, int mode, const char *path, const char *body_json,
                                           ods_completion_cb completion, void *context);

/**
 * Keeps a response and gives its JSON in one call: takes a new reference to `response`
 * (as ods_response_dup: the same pointer, now OWNED by the caller, released with
 * ods_response_free, so a response a callback only borrowed may be kept) and returns
 * its payload as ods_response_json does, NUL-terminated ("" without one), BORROWED from
 * that reference (valid until it is released); *out_len (may be NULL) receives its length
 * in bytes. Returns NULL, taking no reference, for a NULL response (ods_error_last():
 * ODS_EINVAL). Any thread, while the response is alive.
 */
ODS_EXTERN const char *ods_response_retain_json(const ods_response *response, size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif /* ODATASTORE_H */
