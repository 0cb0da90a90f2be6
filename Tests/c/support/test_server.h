/*
 * test_server.h - starts the real test servers of Tests/servers/ from a C test.
 *
 * A server is `$ODS_TEST_PYTHON $ODS_TEST_ROOT/Tests/servers/<script> <args...>` run in its
 * own process group with a pipe on stdin and one on stdout; its stderr is the test's stderr.
 * The contract with the scripts (Tests/servers/README.md):
 *   - the first line on stdout is `READY <url>` once the server accepts connections;
 *   - the server exits when its stdin is closed (so it never outlives a crashed test) or on
 *     SIGTERM.
 * Anything printed on stdout after READY is copied to the test's stderr, prefixed with the
 * script's name, by a thread of the launcher (so a chatty server never blocks on a full pipe).
 *
 * ctest sets ODS_TEST_PYTHON (the repository's .venv/bin/python) and ODS_TEST_ROOT (the
 * repository). Run by hand, a test falls back to the values CMake compiled in.
 *
 * Not thread-safe per server: start and stop a server from one thread (usually main).
 */
#ifndef ODS_TEST_SERVER_H
#define ODS_TEST_SERVER_H

#include <stddef.h>

typedef struct ods_test_server ods_test_server;

/** How long start waits for the READY line. */
#define ODS_TEST_SERVER_READY_TIMEOUT_MS 60000

/**
 * Starts Tests/servers/<script> with the NULL-terminated `args` (may be NULL) and waits for
 * its READY line. Returns 0 and a server in *out, or -1 with *out NULL after printing the
 * reason to stderr (python or the venv missing, script missing, server exited, timeout).
 */
int ods_test_server_start(ods_test_server **out, const char *script, const char *const *args);

/** `serve.py v4 [args...]`: the OData V4 service (odatapy). `args` may be NULL. */
int ods_test_server_start_v4(ods_test_server **out, const char *const *args);

/** `serve.py v2 [args...]`: the OData V2 service (pyslet). `args` may be NULL. */
int ods_test_server_start_v2(ods_test_server **out, const char *const *args);

/** `fault_proxy.py --upstream <upstream_url> [args...]`: the fault-injecting proxy. */
int ods_test_proxy_start(ods_test_server **out, const char *upstream_url, const char *const *args);

/** The URL of the READY line (borrowed: valid until ods_test_server_stop). */
const char *ods_test_server_url(const ods_test_server *server);

/** The server's process id (also its process group id). */
long ods_test_server_pid(const ods_test_server *server);

/**
 * Stops the server: closes its stdin, gives it a moment to exit, then sends SIGTERM to its
 * process group, waits (SIGKILL after 10 s) and frees `server`. NULL is a no-op.
 * Returns 0 when the server exited with status 0 or by SIGTERM, -1 otherwise.
 */
int ods_test_server_stop(ods_test_server *server);

/* ------------------------------------------------------------------------------------- */
/* Fault proxy control (Tests/servers/README.md, "Fault proxy"): the proxy's /__fault        */
/* endpoint, called over plain sockets (test_http.h), never through the library.          */
/* Each returns 0, or -1 after printing the reason to stderr.                             */
/* ------------------------------------------------------------------------------------- */

/** Adds a rule from query fields, e.g. "mode=reset&count=1" or "mode=slow&delay_ms=2000&match=Products". */
int ods_test_proxy_add_fault(const ods_test_server *proxy, const char *query);

/** Adds a rule from a JSON object, e.g. {"mode":"auth","count":-1}. */
int ods_test_proxy_add_fault_json(const ods_test_server *proxy, const char *json);

/** Removes every rule. */
int ods_test_proxy_clear_faults(const ods_test_server *proxy);

/** The proxy's state as JSON (rules and counters): malloc'ed, release with free(); NULL on error. */
char *ods_test_proxy_state(const ods_test_server *proxy);

/** One counter of the state: "connections", "requests", "forwarded" or "faults"; -1 on error. */
long ods_test_proxy_counter(const ods_test_server *proxy, const char *name);

/** Writes "http://host:port" of `url` into out; 0, or -1 when it does not fit or is not http://. */
int ods_test_url_origin(const char *url, char *out, size_t size);

#endif /* ODS_TEST_SERVER_H */
