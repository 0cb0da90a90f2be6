/*
 * odatastore.h - the C interface of libodatastore, an OData V2/V4 client library.
 *
 * One header for everything. Link with `pkg-config --libs odatastore` or CMake's
 * `find_package(odatastore CONFIG)` + `target_link_libraries(app odatastore::odatastore)`.
 *
 * CONVENTIONS
 *   - Functions are ods_<object>_<verb>. A single output parameter comes first and is named
 *     `out`; a callback and its `void *context` come last, side by side.
 *   - Every fallible function returns an int status: ODS_OK (0) or a negative ods_status code.
 *     ods_strerror(code) gives static text; ods_error_last() gives the detail of the last
 *     failed call made on the calling thread.
 *   - Handles are opaque. `_free`/`_close` accept NULL.
 *   - Strings passed in are copied before the call returns (the caller keeps ownership).
 *     Strings handed out are either BORROWED (valid until the event the doc comment names;
 *     do not free) or OWNED (release with ods_free). Never call free() on library memory.
 *   - No variadic functions and no structs passed by value: every function is callable from
 *     FFI runtimes such as Python ctypes.
 *   - Option and delegate structs are versioned: initialise them with their _INIT macro;
 *     fields are only ever appended.
 *
 * THREADING
 *   - Every function may be called from any thread, unless its comment says otherwise.
 *     A store and its requests may be used from several threads at once.
 *   - A request's setters (delegate, context, headers, ...) must be called before
 *     ods_request_start; afterwards they return ODS_ESTATE.
 *   - Callbacks are delivered one at a time per store, never under an internal lock, either
 *     on the store's own callback thread (ODS_DISPATCH_THREAD, the default) or on whichever
 *     thread calls ods_store_dispatch (ODS_DISPATCH_QUEUE). Callbacks of one request arrive
 *     in order: started, response (zero or more), then exactly one terminal callback.
 *   - From inside a callback you may call any function except ods_store_close and
 *     ods_store_dispatch on the same store (they return ODS_ESTATE).
 *
 * CALLBACK CONTRACT
 *   - If a function that takes or arms a callback fails, that callback is never called.
 *   - If it succeeds, exactly one terminal callback follows: `finished` on success,
 *     `failed` otherwise. Cancellation (ods_request_cancel, ods_store_cancel, ods_store_close)
 *     is a failure with code ODS_ECANCELLED. A completion callback, when set, is the last
 *     callback of the request and is called after the delegate's terminal callback.
 *   - ods_store_close delivers the terminal callbacks of every request still in flight
 *     before it returns.
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
#define ODS_VERSION_MINOR 1
#define ODS_VERSION_PATCH 0
#define ODS_VERSION_STRING "0.1.0"
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
    ODS_ENOTFOUND = -5,      /**< The resource does not exist (HTTP 404). */
    ODS_ECONFLICT = -6,      /**< Conflict or failed precondition: ETag mismatch (409, 412). */
    ODS_EPRECONDITION = -7,  /**< The server requires an ETag (If-Match) for this change (428). */
    ODS_EUNAUTHORIZED = -8,  /**< Authentication required or failed (401). */
    ODS_EFORBIDDEN = -9,     /**< Authenticated but not allowed (403). */
    ODS_EHTTP = -10,         /**< Any other 4xx response from the service. */
    ODS_ESERVER = -11,       /**< The service failed (5xx). */
    ODS_ETIMEOUT = -12,      /**< The request took longer than its time limit. */
    ODS_ECANCELLED = -13,    /**< The request was cancelled (also by ods_store_close). */
    ODS_EOFFLINE = -14,      /**< The service cannot be reached (DNS, refused, unreachable). */
    ODS_ETLS = -15,          /**< TLS handshake or certificate verification failed. */
    ODS_EIO = -16,           /**< Network or file I/O failed mid-operation. */
    ODS_EPROTOCOL = -17,     /**< The service sent something that is not valid OData/HTTP. */
    ODS_EUNSUPPORTED = -18,  /**< The operation is not supported by this store or service. */
    ODS_ENOTINSCOPE = -19,   /**< Outside what the offline store's defining requests cover. */
    ODS_ESYNTAX = -20,       /**< A URL, $filter or document failed to parse (see the error's position). */
    ODS_ECLOSED = -21        /**< The store is closing or closed. */
} ods_status;

/**
 * Detail of an error. Read-only; fields are only ever appended.
 *
 * From ods_error_last(): owned by the library, valid until the next failing call on the
 * same thread. In a `failed`/completion callback: valid until the callback returns.
 */
typedef struct ods_error {
    int code;                  /**< An ods_status code (negative). */
    const char *message;       /**< Human-readable message, never NULL. */
    int http_status;           /**< HTTP status of the response, 0 when there was none. */
    const char *odata_code;    /**< OData error code from the service's error body, or NULL. */
    const char *odata_message; /**< OData error message from the service's error body, or NULL. */
    long position;             /**< ODS_ESYNTAX: 0-based character offset of the problem; else -1. */
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

/** Releases memory the library handed out as OWNED. NULL is a no-op. */
ODS_EXTERN void ods_free(void *ptr);

/* ---------------------------------------------------------------------------------------
 * Handles and enumerations
 * ------------------------------------------------------------------------------------- */

typedef struct ods_store ods_store;
typedef struct ods_request ods_request;
typedef struct ods_response ods_response;
typedef struct ods_entity ods_entity;

/** What kind of store to open. ODS_STORE_MIXED is not available in this release. */
typedef enum ods_store_kind {
    ODS_STORE_ONLINE = 0,   /**< Every request goes to the service over HTTP. */
    ODS_STORE_OFFLINE = 1,  /**< A local SQLite file filled by defining requests; READs answered from it (docs/offline.md). */
    ODS_STORE_MIXED = 2     /**< Per-request routing between the two (not yet). */
} ods_store_kind;

/** Where callbacks are delivered. */
typedef enum ods_dispatch_mode {
    ODS_DISPATCH_THREAD = 0, /**< On the store's own serial callback thread (default). */
    ODS_DISPATCH_QUEUE = 1   /**< Queued; the host drains them with ods_store_dispatch. */
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

/** The operation a request performs. */
typedef enum ods_mode {
    ODS_READ = 1,           /**< GET an entity set, entity, property, $count, ... */
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

/**
 * Per-request callbacks; any slot may be NULL. `context` is the request's context
 * (ods_request_set_context). Pointers passed in are borrowed for the duration of the call;
 * the request handle itself stays valid during every callback, even if the app already
 * called ods_request_free on it.
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
 * The one-callback form: called once, last, for every started request that has one.
 * On success `error` is NULL and `response` non-NULL; on failure `error` is non-NULL and
 * `response` is the service's error response or NULL. Both borrowed for the call.
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

/* ---------------------------------------------------------------------------------------
 * Store
 * ------------------------------------------------------------------------------------- */

/**
 * Options for ods_store_open. Zero means "default" for every field; initialise with
 * ODS_STORE_OPTIONS_INIT. All strings are copied by ods_store_open.
 */
typedef struct ods_store_options {
    unsigned int version;           /**< ODS_STORE_OPTIONS_VERSION */
    int kind;                       /**< ods_store_kind; default ODS_STORE_ONLINE. */
    const char *service_root;       /**< Required: http(s) URL of the service root. May be NULL for an existing
                                         offline store file (store_path): the file's own is used. */
    int dispatch;                   /**< ods_dispatch_mode; default ODS_DISPATCH_THREAD. */
    int odata_version;              /**< 2 or 4; 0 = detect from $metadata (default). */
    int auth;                       /**< ods_auth_kind; default ODS_AUTH_NONE. */
    const char *username;           /**< ODS_AUTH_BASIC */
    const char *password;           /**< ODS_AUTH_BASIC */
    const char *bearer_token;       /**< ODS_AUTH_BEARER */
    const char *const *headers;     /**< NULL-terminated "Name: value" lines sent with every request. */
    const char *ca_bundle;          /**< PEM file of trusted CAs; NULL = the system's. */
    int insecure_skip_tls_verify;   /**< Non-zero disables TLS verification (testing only). */
    long connect_timeout_ms;        /**< Default 10000. */
    long request_timeout_ms;        /**< Whole request, per HTTP exchange; default 60000. */
    int max_connections;            /**< Parallel connections to the service; default 8. */
    const char *user_agent;         /**< Default "libodatastore/<version>". */
    int csrf_protection;            /**< 0 = SAP X-CSRF-Token fetch-and-retry (default); 1 = off. */
    const char *metadata_path;      /**< Local $metadata file to use instead of fetching it; NULL = fetch. */
    /* --- version 2: offline stores (docs/offline.md) --- */
    const char *store_path;         /**< ODS_STORE_OFFLINE: the store file; created on the first open. Required. */
    const char *const *defining_requests; /**< ODS_STORE_OFFLINE: NULL-terminated READ paths (relative to
                                          service_root, or full URLs under it) whose results the store
                                          downloads and answers from, e.g. "Orders?$filter=Year eq 2024&$expand=Items".
                                          A new store needs at least one; reopening adds new ones and keeps the others. */
    ods_download_progress_cb download_progress; /**< ODS_STORE_OFFLINE: progress callback, or NULL. */
    void *download_progress_context;            /**< Passed to download_progress. Not retained. */
    int download_page_size;         /**< ODS_STORE_OFFLINE, V4 services: entities per page asked while
                                         downloading (Prefer: odata.maxpagesize); 0 = 1000, -1 = the service's. */
} ods_store_options;

#define ODS_STORE_OPTIONS_VERSION 2
#define ODS_STORE_OPTIONS_INIT { ODS_STORE_OPTIONS_VERSION, 0, NULL, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, NULL, 0, NULL, \
                                 NULL, NULL, NULL, NULL, 0 }

/**
 * Creates a store and starts opening it (online: fetching $metadata) in the background.
 * Requests may be started at once; they are held until the store is open.
 *
 * `state_cb` (may be NULL) reports every state change with `context`, through the
 * store's dispatch mode. On success *out is a new store owned by the caller: release it with
 * ods_store_close. On failure *out is set to NULL and `state_cb` is never called.
 */
ODS_EXTERN int ods_store_open(ods_store **out, const ods_store_options *options,
                              ods_store_state_cb state_cb, void *context);

/**
 * Cancels every request in flight, delivers their terminal callbacks (on the calling thread
 * in queue mode), reports ODS_STORE_CLOSING and ODS_STORE_CLOSED, joins the store's threads
 * and frees the store. Request handles the app still holds stay valid until freed.
 * NULL is a no-op. Returns ODS_ESTATE (and does nothing) when called from a callback of
 * this store.
 */
ODS_EXTERN int ods_store_close(ods_store *store);

/** The store's current ods_store_state, or ODS_EINVAL for NULL. */
ODS_EXTERN int ods_store_get_state(const ods_store *store);

/** The context given to ods_store_open. */
ODS_EXTERN void *ods_store_context(const ods_store *store);

/** OData version in use (2 or 4), 0 while not yet known, or ODS_EINVAL. */
ODS_EXTERN int ods_store_odata_version(const ods_store *store);

/**
 * Sets the delegate used by requests that have no delegate of their own. Copied; pass
 * NULL to remove it. Applies to requests started afterwards.
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
 * queued at that moment. Returns the number delivered (>= 0) or a negative status
 * (ODS_ESTATE in thread mode, from a callback of this store, or after close).
 */
ODS_EXTERN int ods_store_dispatch(ods_store *store, int timeout_ms);

/**
 * Creates and starts a request in one call, delivering its result to `completion` (may be
 * NULL to fire and forget). The store's default delegate, if any, also receives its
 * callbacks. `path` is relative to the service root (or a full URL under it), e.g.
 * "Products?$filter=Price gt 10" or "Products(1)"; `body_json` is the entity for
 * CREATE/UPDATE in the library's JSON shape (see docs/json-shape.md), NULL otherwise.
 * On success *out_id (if not NULL) receives the request id, usable with ods_store_cancel.
 * The library owns the request; it is released after the completion returns.
 */
ODS_EXTERN int ods_store_schedule(uint64_t *out_id, ods_store *store, int mode, const char *path,
                                  const char *body_json, ods_completion_cb completion, void *context);

/** Cancels the started request with this id. ODS_ENOTFOUND when it is unknown or done. */
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
 * entity that is not there with ODS_ENOTFOUND (HTTP status 404), function imports and
 * writes with ODS_EUNSUPPORTED.
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
 * Requests
 * ------------------------------------------------------------------------------------- */

/**
 * Creates an unstarted request. `path` and `body_json` as for ods_store_schedule; the body
 * is checked to be JSON here (ODS_EINVAL otherwise). *out is owned by the caller: release it
 * with ods_request_free (a started request runs to its terminal callback even if freed).
 */
ODS_EXTERN int ods_request_new(ods_request **out, ods_store *store, int mode, const char *path,
                               const char *body_json);

/** Releases the caller's reference. Does not cancel. NULL is a no-op. Safe inside callbacks. */
ODS_EXTERN void ods_request_free(ods_request *request);

/** Sets the request's delegate (copied; NULL removes it). Before start only. */
ODS_EXTERN int ods_request_set_delegate(ods_request *request, const ods_request_delegate *delegate);

/** Sets the completion callback (NULL removes it); it receives the request's context. Before start only. */
ODS_EXTERN int ods_request_set_completion(ods_request *request, ods_completion_cb completion);

/** Sets the opaque pointer passed to the request's callbacks. Not retained or freed. Before start only. */
ODS_EXTERN int ods_request_set_context(ods_request *request, void *context);

/** The request's context (NULL when unset or for a NULL request). */
ODS_EXTERN void *ods_request_context(const ods_request *request);

/**
 * Adds a header to send with this request (replacing one of the same name);
 * value NULL removes it. Before start only. Names and values must not contain CR or LF.
 */
ODS_EXTERN int ods_request_set_header(ods_request *request, const char *name, const char *value);

/**
 * The ETag for If-Match on UPDATE/DELETE. When unset, the body's "@odata.etag" is used;
 * "*" matches any version. Before start only.
 */
ODS_EXTERN int ods_request_set_etag(ods_request *request, const char *etag);

/** ods_paging; default ODS_PAGING_NONE. Before start only. */
ODS_EXTERN int ods_request_set_paging(ods_request *request, int paging);

/** Per-request time limit in ms for each HTTP exchange (0 = the store's). Before start only. */
ODS_EXTERN int ods_request_set_timeout(ods_request *request, long timeout_ms);

/** Starts the request. ODS_ESTATE if already started, ODS_ECLOSED if the store is closing. */
ODS_EXTERN int ods_request_start(ods_request *request);

/**
 * Cancels a started request: it fails with ODS_ECANCELLED unless it already reached its
 * terminal callback (then ODS_ESTATE). ODS_ESTATE if not started.
 */
ODS_EXTERN int ods_request_cancel(ods_request *request);

/** The request's id, unique within its store and never 0 (0 for NULL). */
ODS_EXTERN uint64_t ods_request_id(const ods_request *request);

/** The request's ods_request_state, or ODS_EINVAL for NULL. */
ODS_EXTERN int ods_request_get_state(const ods_request *request);

/** The request's ods_mode, or ODS_EINVAL for NULL. */
ODS_EXTERN int ods_request_mode(const ods_request *request);

/** The request's path as given (BORROWED: valid until the request is freed). */
ODS_EXTERN const char *ods_request_path(const ods_request *request);

/** The store the request belongs to (BORROWED). */
ODS_EXTERN ods_store *ods_request_store(const ods_request *request);

/* ---------------------------------------------------------------------------------------
 * Responses (borrowed inside a callback; valid until it returns)
 * ------------------------------------------------------------------------------------- */

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

/** The header at `index`: *out_name and *out_value BORROWED. ODS_EINVAL when out of range. */
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

/* ---------------------------------------------------------------------------------------
 * Entities: typed access for C callers without a JSON parser (borrowed from a response)
 * ------------------------------------------------------------------------------------- */

/** Kinds of JSON values, as ods_entity_value_type reports them. */
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

/**
 * A property as text: strings as they are, numbers in their JSON spelling, booleans as
 * "true"/"false", objects and arrays as JSON. *out BORROWED. ODS_ENOTFOUND when absent;
 * *out is NULL for a JSON null.
 */
ODS_EXTERN int ods_entity_get_string(const char **out, const ods_entity *entity, const char *property);

/** A property as a 64-bit integer (from a JSON number or an Int64 string). ODS_EINVAL when
 *  it is not an integer in range, ODS_ENOTFOUND when absent or null. */
ODS_EXTERN int ods_entity_get_int64(int64_t *out, const ods_entity *entity, const char *property);

/** A property as a double (numbers, "INF"/"-INF"/"NaN", decimal strings). */
ODS_EXTERN int ods_entity_get_double(double *out, const ods_entity *entity, const char *property);

/** A boolean property: *out 1 or 0. ODS_EINVAL when not a boolean. */
ODS_EXTERN int ods_entity_get_bool(int *out, const ods_entity *entity, const char *property);

/* ---------------------------------------------------------------------------------------
 * Protocol tools
 * ------------------------------------------------------------------------------------- */

/**
 * Parses a request URL (absolute, or relative to the service root) and, when `metadata` is
 * given, checks it against that $metadata document (V2 or V4 CSDL, `metadata_len` bytes):
 * entity sets, keys, properties, navigation, function parameters, $filter/$orderby/$select/
 * $expand. On success *out receives OWNED JSON describing the parsed request (the canonical
 * URL and the syntax tree, docs/cli.md; release with ods_free). A URL that does not parse or
 * check fails with ODS_ESYNTAX and ods_error_last()->position set to the 0-based character
 * offset of the problem; an unreadable $metadata document with ODS_EINVAL.
 * `odata_version` is 2, 4, or 0 (the document's version; without a document both dialects);
 * `service_root` may be NULL.
 */
ODS_EXTERN int ods_url_check(char **out, const char *url, const char *metadata, size_t metadata_len,
                             int odata_version, const char *service_root);

/**
 * Like ods_url_check, against the $metadata of an open store (its service root and version).
 * ODS_ESTATE while the store has no $metadata yet (still opening, or failed).
 */
ODS_EXTERN int ods_store_check_url(char **out, ods_store *store, const char *url);

#ifdef __cplusplus
}
#endif

#endif /* ODATASTORE_H */
