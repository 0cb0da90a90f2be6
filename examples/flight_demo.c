/* flight_demo.c - the story `bash scripts/demo.sh` tells: libodatastore on SAP's flight
 * sample service RMTSAMPLEFLIGHT, online and offline.
 *
 *   flight_demo [--store FILE] -- COMMAND [ARG...]
 *
 * COMMAND starts the demo service and follows the test servers' launcher contract
 * (Tests/servers/README.md): it prints "READY <service root>" on stdout and stops when its
 * stdin closes. scripts/demo.sh runs
 *
 *   build/examples/flight_demo --store build/demo/flights-v2.store -- \
 *       .venv/bin/python Tests/servers/serve.py v2flight --page-size 20
 *
 * (v4flight for the V4 edition). The program owns the service so that the story can stop it:
 *
 *   1. online reads: carriers, a flight by its three-part key, $filter, $expand, a function
 *      import;
 *   2. an offline store defined by two defining requests, downloaded page by page;
 *   3. the service stops; reads are answered from the store file, and what the defining
 *      requests did not bring down is refused;
 *   4. the store file reopened without any network, and its status;
 *   5. local changes with the service still stopped, queued for upload;
 *   6. the service back: the upload, a change someone else made meanwhile refused (412) into
 *      the error archive, resolved by the app, uploaded again;
 *   7. a download brings what changed on the service;
 *   8. a mixed store on the same file: covered collections from the file, the rest and the
 *      function import from the service.
 *
 * The steps are the table `steps` in main(): each is a function over the demo's state.
 *
 * Every store here uses ODS_DISPATCH_QUEUE: callbacks run on this thread inside
 * ods_store_dispatch, so the program reads top to bottom without locks (examples/demo.c
 * shows the other mode, callbacks on the store's own thread).
 */
#define _POSIX_C_SOURCE 200809L

#include <odatastore.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- the demo's state ------------------------------------------------------------------ */

typedef struct service {
    pid_t pid;          /* 0 when not running */
    int stdin_fd;       /* closing it stops the service */
    char url[512];      /* the service root it announced */
} service;

typedef struct opening {
    int state;            /* ODS_STORE_OPEN or ODS_STORE_FAILED once settled, else 0 */
    int error_code;
    char message[512];
    int progress_reports;
} opening;

typedef struct demo {
    service service;
    opening online_opening;   /* the stores' state callbacks write here while they live */
    opening offline_opening;
    char *const *service_command;
    const char *store_path;
    ods_store *online;   /* step 1 .. 3 */
    ods_store *offline;  /* step 2 .. 7 */
    int version;         /* 2 or 4, from the service's $metadata */
    int failures;        /* checks that did not hold */
} demo;

static void failed_check(demo *d, const char *what) {
    printf("  !! unexpected: %s\n", what);
    d->failures++;
}

/* Literals differ between the versions: a V2 Edm.DateTime key is datetime'2026-06-01T00:00:00',
 * the V4 edition's Edm.Date is 2026-06-01. */
static const char *date_literal(const demo *d, const char *day, char *buf, size_t size) {
    if (d->version == 4) snprintf(buf, size, "%s", day);
    else snprintf(buf, size, "datetime'%sT00:00:00'", day);
    return buf;
}

/* $count=true in V4, $inlinecount=allpages in V2. */
static const char *inline_count(const demo *d) {
    return d->version == 4 ? "$count=true" : "$inlinecount=allpages";
}

static const char *status_name(int code) {
    switch (code) {
    case ODS_OK: return "ODS_OK";
    case ODS_EINVAL: return "ODS_EINVAL";
    case ODS_ESTATE: return "ODS_ESTATE";
    case ODS_ENOTFOUND: return "ODS_ENOTFOUND";
    case ODS_EHTTP: return "ODS_EHTTP";
    case ODS_ESERVER: return "ODS_ESERVER";
    case ODS_ETIMEOUT: return "ODS_ETIMEOUT";
    case ODS_ECANCELLED: return "ODS_ECANCELLED";
    case ODS_EOFFLINE: return "ODS_EOFFLINE";
    case ODS_EPROTOCOL: return "ODS_EPROTOCOL";
    case ODS_EUNSUPPORTED: return "ODS_EUNSUPPORTED";
    case ODS_ENOTINSCOPE: return "ODS_ENOTINSCOPE";
    case ODS_ESYNTAX: return "ODS_ESYNTAX";
    default: return ods_strerror(code);
    }
}

/* ---- running one request (queue dispatch: callbacks arrive inside ods_store_dispatch) ---- */

typedef void (*printer)(const ods_response *response);

typedef struct call {
    int done;
    int code;             /* ODS_OK or the failure's status */
    int http_status;
    int is_local;
    int64_t count;        /* $count / $inlinecount, or -1 */
    size_t entities;
    char message[512];
    char value[64];       /* a /$count answer */
    int pending_state;    /* ods_entity_pending_state of the first entity */
    int source;           /* ods_response_source */
    printer print;
} call;

static void on_complete(ods_request *request, const ods_response *response, const ods_error *error, void *context) {
    call *c = context;
    (void)request;
    c->done = 1;
    if (error) {
        c->code = error->code;
        c->http_status = error->http_status;
        snprintf(c->message, sizeof c->message, "%s", error->message);
        return;
    }
    c->http_status = ods_response_status(response);
    c->is_local = ods_response_is_local(response);
    c->count = ods_response_count(response);
    c->entities = ods_response_entity_count(response);
    c->source = ods_response_source(response);
    if (c->entities > 0) c->pending_state = ods_entity_pending_state(ods_response_entity(response, 0));
    if (c->entities == 0) {
        /* A primitive result such as /$count is {"value":60}; the typed accessors read
         * entities, so the number is taken from the JSON text. */
        const char *json = ods_response_json(response, NULL);
        const char *v = strstr(json, "\"value\":");
        if (v) snprintf(c->value, sizeof c->value, "%.*s", (int)strcspn(v + 8, "}"), v + 8);
    }
    if (c->print) c->print(response);
}

/* Dispatches the store's callbacks until *flag is set (60 s at most). */
static int wait_for(demo *d, ods_store *store, const int *flag) {
    time_t deadline = time(NULL) + 60;
    while (!*flag) {
        int n = ods_store_dispatch(store, 1000);
        if (n < 0 || time(NULL) > deadline) {
            printf("    no answer (%s)\n", n < 0 ? status_name(n) : "60 s passed");
            d->failures++;
            return n < 0 ? n : ODS_ETIMEOUT;
        }
    }
    return ODS_OK;
}

static const char *verb(int mode) {
    switch (mode) {
    case ODS_FUNCTION: return "CALL";
    case ODS_CREATE: return "POST";
    case ODS_UPDATE: return "UPDATE";
    case ODS_DELETE: return "DELETE";
    default: return "GET ";
    }
}

/* Runs one request (a body and an If-Match when given) to its end and reports where the
 * answer came from. */
static int run_change(demo *d, ods_store *store, int mode, const char *path, const char *body, const char *etag,
                      printer print, call *c) {
    ods_request *request = NULL;
    int rc;
    memset(c, 0, sizeof *c);
    c->print = print;
    c->count = -1;
    printf("  %s %s%s%s%s\n", verb(mode), path, body ? " " : "", body ? body : "", etag ? "  (If-Match: *)" : "");
    rc = ods_request_new(&request, store, mode, path, body);
    if (rc == ODS_OK && etag) rc = ods_request_set_etag(request, etag);
    if (rc == ODS_OK) rc = ods_request_set_completion(request, on_complete, c);
    if (rc == ODS_OK) rc = ods_request_start(request);
    if (rc != ODS_OK) {
        c->code = ods_error_last()->code;
        snprintf(c->message, sizeof c->message, "%s", ods_error_last()->message);
        printf("    refused at once: %s: %s\n", status_name(c->code), c->message);
        ods_request_free(request);
        return c->code;
    }
    rc = wait_for(d, store, &c->done);
    ods_request_free(request);
    if (rc != ODS_OK) return rc;
    if (c->code != ODS_OK && c->http_status > 0)
        printf("    -> %s (HTTP %d): %s\n", status_name(c->code), c->http_status, c->message);
    else if (c->code != ODS_OK)
        printf("    -> %s: %s\n", status_name(c->code), c->message);
    else
        printf("    -> HTTP %d, %s\n", c->http_status,
               c->is_local ? "answered from the store file (ods_response_is_local = 1)" : "answered by the service");
    return c->code;
}

/* Runs one request to its end and reports where the answer came from. */
static int run(demo *d, ods_store *store, int mode, const char *path, printer print, call *c) {
    time_t deadline = time(NULL) + 60;
    memset(c, 0, sizeof *c);
    c->print = print;
    c->count = -1;
    printf("  %s %s\n", mode == ODS_FUNCTION ? "CALL" : "GET ", path);
    if (ods_store_schedule(NULL, store, mode, path, NULL, on_complete, c) != ODS_OK) {
        c->code = ods_error_last()->code;
        snprintf(c->message, sizeof c->message, "%s", ods_error_last()->message);
        printf("    refused at once: %s: %s\n", status_name(c->code), c->message);
        return c->code;
    }
    while (!c->done) {
        int n = ods_store_dispatch(store, 1000);
        if (n < 0 || time(NULL) > deadline) {
            printf("    no answer (%s)\n", n < 0 ? status_name(n) : "60 s passed");
            d->failures++;
            return n < 0 ? n : ODS_ETIMEOUT;
        }
    }
    if (c->code != ODS_OK && c->http_status > 0)
        printf("    -> %s (HTTP %d): %s\n", status_name(c->code), c->http_status, c->message);
    else if (c->code != ODS_OK)
        printf("    -> %s: %s\n", status_name(c->code), c->message);
    else
        printf("    -> HTTP %d, %s\n", c->http_status,
               c->is_local ? "answered from the store file (ods_response_is_local = 1)" : "answered by the service");
    return c->code;
}

/* A read that must succeed. */
static void read_ok(demo *d, ods_store *store, const char *path, printer print, call *c) {
    if (run(d, store, ODS_READ, path, print, c) != ODS_OK) failed_check(d, "the read failed");
}

/* A request that must fail with `expected`. */
static void expect_refusal(demo *d, ods_store *store, int mode, const char *path, int expected) {
    call c;
    if (run(d, store, mode, path, NULL, &c) != expected) {
        char what[128];
        snprintf(what, sizeof what, "expected %s", status_name(expected));
        failed_check(d, what);
    }
}

/* ---- printing entities with the typed accessors ----------------------------------------- */

static const char *text(const ods_entity *e, const char *property) {
    const char *s = NULL;
    if (ods_entity_get_string(&s, e, property) != ODS_OK || s == NULL) return "-";
    return s;
}

static long long integer(const ods_entity *e, const char *property) {
    int64_t v = 0;
    ods_entity_get_int64(&v, e, property);
    return (long long)v;
}

static void print_carriers(const ods_response *r) {
    size_t i, n = ods_response_entity_count(r);
    for (i = 0; i < n; i++) {
        const ods_entity *e = ods_response_entity(r, i);
        printf("%s%-2s %-20s %-3s", i % 3 == 0 ? "    " : "   ", text(e, "carrid"), text(e, "CARRNAME"),
               text(e, "CURRCODE"));
        if (i % 3 == 2 || i + 1 == n) printf("\n");
    }
    printf("    %zu carriers\n", n);
}

/* One line per flight. fldate is "2026-06-01T00:00:00Z" from a V2 DateTime, "2026-06-01"
 * from a V4 Date: the day is its first ten characters either way. */
static void print_flights(const ods_response *r) {
    size_t i, n = ods_response_entity_count(r);
    for (i = 0; i < n; i++) {
        const ods_entity *e = ods_response_entity(r, i);
        printf("    %s %s  %.10s  %-9s %9s %s  %3lld of %3lld seats booked\n", text(e, "carrid"), text(e, "connid"),
               text(e, "fldate"), text(e, "PLANETYPE"), text(e, "PRICE"), text(e, "CURRENCY"),
               integer(e, "SEATSOCC"), integer(e, "SEATSMAX"));
    }
    if (ods_response_count(r) >= 0) printf("    (%lld in all)\n", (long long)ods_response_count(r));
}

static void print_flight_details(const ods_response *r) {
    const ods_entity *e = ods_response_entity(r, 0);
    print_flights(r);
    /* A complex value comes as JSON text; Edm.Time (V2) arrives as a TimeOfDay "10:10:00". */
    printf("    flightDetails %s\n", text(e, "flightDetails"));
}

/* Prints the elements of a JSON array one per line (display only: it tracks nesting and
 * strings to find the commas between elements). */
static void print_array_items(const char *json) {
    int depth = 0, in_string = 0;
    const char *p, *start = json + 1;
    if (json[0] != '[') { printf("      %s\n", json); return; }
    for (p = json + 1; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') in_string = 0;
        } else if (*p == '"') in_string = 1;
        else if (*p == '{' || *p == '[') depth++;
        else if ((*p == '}' || *p == ']') && depth > 0) depth--;
        else if ((*p == ',' || *p == ']') && depth == 0) {
            if (p > start) printf("      %.*s\n", (int)(p - start), start);
            start = p + 1;
        }
    }
}

static void print_flight_with_bookings(const ods_response *r) {
    const ods_entity *e = ods_response_entity(r, 0);
    print_flights(r);
    /* Expanded entities come inline, as a JSON array in the flight (the typed accessors read
     * top-level properties): a C program parses it with its JSON library, or reads them as
     * their own request, as step 3 does with the navigation. */
    printf("    flightBookings (expanded inline):\n");
    print_array_items(text(e, "flightBookings"));
}

static void print_agencies(const ods_response *r) {
    size_t i, n = ods_response_entity_count(r);
    for (i = 0; i < n; i++) {
        const ods_entity *e = ods_response_entity(r, i);
        printf("    %s  %-25s %-14s %s\n", text(e, "agencynum"), text(e, "NAME"), text(e, "CITY"),
               text(e, "TELEPHONE"));
    }
}

static void print_bookings(const ods_response *r) {
    size_t i, n = ods_response_entity_count(r);
    for (i = 0; i < n; i++) {
        const ods_entity *e = ods_response_entity(r, i);
        printf("    booking %s  %-4s %-20s class %s  %9s %s\n", text(e, "bookid"), text(e, "PASSFORM"),
               text(e, "PASSNAME"), text(e, "CLASS"), text(e, "FORCURAM"), text(e, "FORCURKEY"));
    }
    if (ods_response_count(r) >= 0) printf("    (%lld in all)\n", (long long)ods_response_count(r));
}

/* ---- opening stores --------------------------------------------------------------------- */

static void on_state(ods_store *store, int state, const ods_error *error, void *context) {
    static const char *names[] = {"?", "opening", "open", "closing", "closed", "failed"};
    opening *o = context;
    (void)store;
    printf("    [store %s]%s%s\n", state >= 1 && state <= 5 ? names[state] : "?", error ? " " : "",
           error ? error->message : "");
    if (o && (state == ODS_STORE_OPEN || state == ODS_STORE_FAILED)) {
        o->state = state;
        o->error_code = error ? error->code : ODS_OK;
        if (error) snprintf(o->message, sizeof o->message, "%s", error->message);
    }
}

static void on_progress(ods_store *store, const ods_download_progress *p, void *context) {
    opening *o = context;
    (void)store;
    o->progress_reports++;
    if (p->request_finished)
        printf("    [%zu/%zu] %s: done, %lld entities, %.1f kB\n", p->request_index + 1, p->request_count,
               p->defining_request, (long long)p->entities, p->bytes / 1000.0);
    else
        printf("    [%zu/%zu] %s: %lld of %lld entities, %.1f kB\n", p->request_index + 1, p->request_count,
               p->defining_request, (long long)p->entities, (long long)p->expected_entities, p->bytes / 1000.0);
}

/* Opens a store and dispatches its callbacks until it is open (or failed). */
static ods_store *open_store(demo *d, ods_store_options *options, opening *o) {
    ods_store *store = NULL;
    time_t deadline = time(NULL) + 120;
    memset(o, 0, sizeof *o);
    options->dispatch = ODS_DISPATCH_QUEUE;
    if (ods_store_open(&store, options, on_state, o) != ODS_OK) {
        printf("  cannot open: %s\n", ods_error_last()->message);
        d->failures++;
        return NULL;
    }
    while (o->state == 0 && time(NULL) < deadline) ods_store_dispatch(store, 1000);
    if (o->state != ODS_STORE_OPEN) {
        printf("  the store did not open: %s\n", o->state ? o->message : "120 s passed");
        d->failures++;
        ods_store_close(store);
        return NULL;
    }
    return store;
}

/* ---- the demo service (not libodatastore: a process this program starts and stops) ------ */

static int service_start(service *s, char *const *command) {
    int in_pipe[2], out_pipe[2];
    posix_spawn_file_actions_t actions;
    FILE *out;
    char line[1024];
    int rc;
    memset(s, 0, sizeof *s);
    s->stdin_fd = -1;
    if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) return -1;
    fcntl(in_pipe[1], F_SETFD, FD_CLOEXEC);
    fcntl(out_pipe[0], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_addclose(&actions, in_pipe[0]);
    posix_spawn_file_actions_addclose(&actions, out_pipe[1]);
    rc = posix_spawnp(&s->pid, command[0], &actions, NULL, command, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in_pipe[0]);
    close(out_pipe[1]);
    if (rc != 0) {
        fprintf(stderr, "cannot start %s: %s\n", command[0], strerror(rc));
        close(in_pipe[1]);
        close(out_pipe[0]);
        s->pid = 0;
        return -1;
    }
    s->stdin_fd = in_pipe[1];
    /* The contract: one line "READY <url>" on stdout, and nothing else there after it. */
    out = fdopen(out_pipe[0], "r");
    while (out && fgets(line, sizeof line, out)) {
        if (strncmp(line, "READY ", 6) == 0) {
            size_t n;
            line[strcspn(line, "\r\n")] = '\0';
            n = strlen(line + 6);
            if (n < sizeof s->url) memcpy(s->url, line + 6, n + 1);  /* a longer root: no url, so a failed start */
            else fprintf(stderr, "%s announced a service root longer than %zu bytes\n", command[0], sizeof s->url - 1);
            break;
        }
    }
    if (out) fclose(out);
    else close(out_pipe[0]);
    return s->url[0] ? 0 : -1;
}

/* Closes the service's stdin (it stops by itself), waits up to 10 s, then sends SIGTERM. */
static int service_stop(service *s) {
    int status = 0, i;
    if (s->pid == 0) return 0;
    close(s->stdin_fd);
    s->stdin_fd = -1;
    for (i = 0; i < 100; i++) {
        struct timespec tick = {0, 100000000L};
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            s->pid = 0;
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        nanosleep(&tick, NULL);
    }
    kill(s->pid, SIGTERM);
    waitpid(s->pid, &status, 0);
    s->pid = 0;
    return -1;
}

/* ---- the steps ---------------------------------------------------------------------------- */

static int step_online(demo *d) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    call c;
    char key[256], path[768], from[64], to[64];

    printf("  An online store sends every request to the service. Opening it loads $metadata,\n"
           "  which tells the library the OData version and the types of every property.\n");
    options.service_root = d->service.url;
    d->online = open_store(d, &options, &d->online_opening);
    if (!d->online) return -1;
    d->version = ods_store_odata_version(d->online);
    printf("  The service speaks OData %d.0.\n\n", d->version);

    printf("  The airlines (an entity set, with $select):\n");
    read_ok(d, d->online, "CarrierCollection?$select=carrid,CARRNAME,CURRCODE", print_carriers, &c);
    if (c.entities != 18) failed_check(d, "18 carriers");

    printf("\n  One flight, by its three-part key (carrier, connection, and a date):\n");
    snprintf(key, sizeof key, "FlightCollection(carrid='LH',connid='0400',fldate=%s)",
             date_literal(d, "2026-06-01", from, sizeof from));
    read_ok(d, d->online, key, print_flight_details, &c);

    printf("\n  A $filter on a complex property and a date, with $orderby:\n");
    snprintf(path, sizeof path,
             "FlightCollection?$filter=flightDetails/cityFrom eq 'Frankfurt' and fldate le %s"
             "&$orderby=fldate,carrid,connid&%s",
             date_literal(d, "2026-06-05", from, sizeof from), inline_count(d));
    read_ok(d, d->online, path, print_flights, &c);

    printf("\n  The same flight with its bookings, in one request ($expand):\n");
    if (d->version == 4)
        snprintf(path, sizeof path, "%s?$select=carrid,connid,fldate,PLANETYPE,PRICE,CURRENCY,SEATSOCC,SEATSMAX"
                 "&$expand=flightBookings($select=bookid,PASSNAME,CLASS)", key);
    else /* V2: $select names the expanded properties as flightBookings/<property> */
        snprintf(path, sizeof path, "%s?$expand=flightBookings&$select=carrid,connid,fldate,PLANETYPE,PRICE,CURRENCY,"
                 "SEATSOCC,SEATSMAX,flightBookings/carrid,flightBookings/connid,flightBookings/fldate,"
                 "flightBookings/bookid,flightBookings/PASSNAME,flightBookings/CLASS", key);
    read_ok(d, d->online, path, print_flight_with_bookings, &c);

    printf("\n  A function import (ODS_FUNCTION): flights Frankfurt -> New York in two weeks of June:\n");
    date_literal(d, "2026-06-01", from, sizeof from);
    date_literal(d, "2026-06-14", to, sizeof to);
    if (d->version == 4)
        snprintf(path, sizeof path, "GetAvailableFlights(fromdate=%s,todate=%s,cityfrom='Frankfurt',cityto='New York')",
                 from, to);
    else
        snprintf(path, sizeof path, "GetAvailableFlights?fromdate=%s&todate=%s&cityfrom='Frankfurt'&cityto='New York'",
                 from, to);
    if (run(d, d->online, ODS_FUNCTION, path, print_flights, &c) != ODS_OK || c.entities != 4)
        failed_check(d, "4 available flights");
    return 0;
}

static const char *defining_requests[] = {
    "TravelagencyCollection",
    "FlightCollection?$filter=carrid eq 'LH'&$expand=flightBookings",
    NULL};

static int step_download(demo *d) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    opening *o = &d->offline_opening;
    size_t i;

    printf("  An offline store keeps what its defining requests bring down in one SQLite file:\n");
    for (i = 0; defining_requests[i]; i++) printf("    %s\n", defining_requests[i]);
    printf("  Opening it checks them against $metadata, creates %s and downloads\n"
           "  them page by page (the demo service sends pages of 20; one transaction per page).\n",
           d->store_path);
    /* A fresh story every run: remove the file of an earlier run (and its WAL). */
    {
        char extra[1024];
        unlink(d->store_path);
        snprintf(extra, sizeof extra, "%s-wal", d->store_path);
        unlink(extra);
        snprintf(extra, sizeof extra, "%s-shm", d->store_path);
        unlink(extra);
    }
    options.kind = ODS_STORE_OFFLINE;
    options.service_root = d->service.url;
    options.store_path = d->store_path;
    options.defining_requests = defining_requests;
    options.download_progress = on_progress;
    options.download_progress_context = o;
    options.download_page_size = 20; /* V4: Prefer: odata.maxpagesize=20 */
    d->offline = open_store(d, &options, o);
    if (!d->offline) return -1;
    printf("  Downloaded: the agencies, the LH flights, and the flights' bookings (expanded entities\n"
           "  are stored in their own table, BookingCollection).\n");
    return 0;
}

static int step_local_reads(demo *d) {
    call c;
    char key[256], path[768], day[64], aa[256];
    int rc;

    printf("  The demo service is stopped now.\n");
    rc = service_stop(&d->service);
    printf("  (service exited with status %d)\n", rc);
    printf("  The online store cannot reach it any more:\n");
    if (run(d, d->online, ODS_READ, "CarrierCollection?$top=1", NULL, &c) != ODS_EOFFLINE)
        failed_check(d, "the online store reports ODS_EOFFLINE");

    printf("\n  The offline store answers from its file. A travel agency by key:\n");
    read_ok(d, d->offline, "TravelagencyCollection('00000002')", print_agencies, &c);
    if (!c.is_local) failed_check(d, "a local answer");

    printf("\n  $filter, $orderby, $top and $select, evaluated locally:\n");
    read_ok(d, d->offline,
            "TravelagencyCollection?$filter=COUNTRY eq 'DE' and startswith(NAME,'S')&$orderby=CITY,NAME&$top=4"
            "&$select=agencynum,NAME,CITY,TELEPHONE", print_agencies, &c);
    snprintf(path, sizeof path,
             "FlightCollection?$filter=flightDetails/cityTo eq 'New York' and fldate lt %s"
             "&$orderby=PAYMENTSUM desc&$top=3&%s",
             date_literal(d, "2026-07-01", day, sizeof day), inline_count(d));
    read_ok(d, d->offline, path, print_flights, &c);

    printf("\n  Navigation from a flight to its bookings:\n");
    snprintf(key, sizeof key, "FlightCollection(carrid='LH',connid='0400',fldate=%s)",
             date_literal(d, "2026-06-01", day, sizeof day));
    snprintf(path, sizeof path, "%s/flightBookings?$orderby=PASSNAME", key);
    read_ok(d, d->offline, path, print_bookings, &c);
    if (c.entities != 3) failed_check(d, "3 bookings on LH 0400");

    printf("\n  Counting ($count):\n");
    read_ok(d, d->offline, "FlightCollection/$count", NULL, &c);
    printf("    %s flights\n", c.value);
    if (strcmp(c.value, "60") != 0) failed_check(d, "60 flights");
    read_ok(d, d->offline, "BookingCollection/$count", NULL, &c);
    printf("    %s bookings\n", c.value);
    if (strcmp(c.value, "417") != 0) failed_check(d, "417 bookings");
    snprintf(path, sizeof path, "BookingCollection?$filter=CLASS eq 'F'&$orderby=fldate desc,bookid&$top=2&%s",
             inline_count(d));
    read_ok(d, d->offline, path, print_bookings, &c);

    printf("\n  What the defining requests did not bring down:\n");
    printf("  - no defining request reads carriers:\n");
    expect_refusal(d, d->offline, ODS_READ, "CarrierCollection('LH')", ODS_ENOTINSCOPE);
    printf("  - flights are there, but only Lufthansa's:\n");
    snprintf(aa, sizeof aa, "FlightCollection(carrid='AA',connid='0017',fldate=%s)",
             date_literal(d, "2026-06-01", day, sizeof day));
    expect_refusal(d, d->offline, ODS_READ, aa, ODS_ENOTFOUND);
    printf("  - a function import runs on the service only:\n");
    if (d->version == 4)
        snprintf(path, sizeof path, "GetAvailableFlights(fromdate=2026-06-01,todate=2026-06-14,cityfrom='Frankfurt',"
                 "cityto='New York')");
    else
        snprintf(path, sizeof path, "GetAvailableFlights?fromdate=datetime'2026-06-01T00:00:00'"
                 "&todate=datetime'2026-06-14T00:00:00'&cityfrom='Frankfurt'&cityto='New York'");
    expect_refusal(d, d->offline, ODS_FUNCTION, path, ODS_EUNSUPPORTED);

    ods_store_close(d->online);
    d->online = NULL;
    return 0;
}

static int step_reopen(demo *d) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    ods_offline_info info = ODS_OFFLINE_INFO_INIT;
    opening *o = &d->offline_opening;
    call c;
    size_t i;

    printf("  Close the store and open the file again, with the service still stopped. No service\n"
           "  root and no defining requests are given: the file knows both.\n");
    ods_store_close(d->offline);
    d->offline = NULL;
    options.kind = ODS_STORE_OFFLINE;
    options.store_path = d->store_path;
    options.download_progress = on_progress;
    options.download_progress_context = o;
    d->offline = open_store(d, &options, o);
    if (!d->offline) return -1;
    if (o->progress_reports != 0) failed_check(d, "no download on reopening");
    printf("  Opened without a download (%d progress reports). Its status:\n", o->progress_reports);
    if (ods_store_offline_info(&info, d->offline) != ODS_OK) {
        failed_check(d, ods_error_last()->message);
        return 0;
    }
    {
        char when[64] = "never";
        time_t t = (time_t)info.last_download;
        struct tm tm;
        if (t && gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
        printf("    file %s, %.1f kB, last download %s\n", d->store_path, info.size_bytes / 1000.0, when);
    }
    printf("    %zu defining requests:\n", info.defining_request_count);
    for (i = 0; i < info.defining_request_count; i++) {
        ods_defining_request_info r = ODS_DEFINING_REQUEST_INFO_INIT;
        if (ods_store_defining_request(&r, d->offline, i) != ODS_OK) continue;
        printf("    - %s\n      into %s: %s, %lld of %lld entities, %.1f kB\n", r.path, r.entity_set,
               r.complete ? "complete" : "incomplete", (long long)r.entities, (long long)r.expected_entities,
               r.bytes / 1000.0);
    }
    printf("\n  And it reads as before:\n");
    read_ok(d, d->offline, "TravelagencyCollection/$count", NULL, &c);
    printf("    %s travel agencies\n", c.value);
    if (strcmp(c.value, "61") != 0) failed_check(d, "61 travel agencies");
    return 0;
}

/* ---- local changes, upload, the error archive, download, mixed mode ---------------------- */

/* A booking of LH 0400 on 2026-06-01 by its four-part key. */
static const char *booking_key(const demo *d, const char *bookid, char *buf, size_t size) {
    char day[64];
    snprintf(buf, size, "BookingCollection(carrid='LH',connid='0400',fldate=%s,bookid='%s')",
             date_literal(d, "2026-06-01", day, sizeof day), bookid);
    return buf;
}

/* A change that must succeed. */
static void change_ok(demo *d, ods_store *store, int mode, const char *path, const char *body, const char *etag) {
    call c;
    if (run_change(d, store, mode, path, body, etag, NULL, &c) != ODS_OK) failed_check(d, "the change failed");
}

static int64_t pending(demo *d) {
    int64_t n = -1;
    if (ods_store_pending_count(&n, d->offline) != ODS_OK) failed_check(d, ods_error_last()->message);
    return n;
}

static int step_local_writes(demo *d) {
    call c;
    char key[256];

    printf("  With the service still stopped, the app changes data through the same request API.\n"
           "  Each change updates the file and joins the upload queue in one transaction\n"
           "  (durable when the callback comes); reads see it at once.\n");
    change_ok(d, d->offline, ODS_UPDATE, "TravelagencyCollection('00000002')", "{\"TELEPHONE\":\"+49 6227 747474\"}",
              NULL);
    change_ok(d, d->offline, ODS_UPDATE, booking_key(d, "00000001", key, sizeof key),
              "{\"PASSNAME\":\"Anna Becker-Hahn\"}", NULL);
    change_ok(d, d->offline, ODS_UPDATE, booking_key(d, "00000002", key, sizeof key),
              "{\"PASSNAME\":\"Ben Garcia Lopez\"}", NULL);
    printf("\n  The agency, read from the file:\n");
    read_ok(d, d->offline, "TravelagencyCollection('00000002')", print_agencies, &c);
    printf("    ods_entity_pending_state: %s\n", c.pending_state == ODS_ENTITY_PENDING ? "ODS_ENTITY_PENDING" : "?");
    if (c.pending_state != ODS_ENTITY_PENDING) failed_check(d, "a pending entity");
    printf("  %lld changes wait for upload (ods_store_pending_count).\n", (long long)pending(d));
    if (pending(d) != 3) failed_check(d, "3 pending changes");
    return 0;
}

/* The service's port, so that it comes back where the store expects it. */
static int service_port(const demo *d) {
    const char *p = strstr(d->service.url, "://");
    p = p ? strchr(p + 3, ':') : NULL;
    return p ? atoi(p + 1) : 0;
}

/* Starts the demo service again on the port it had (the store file belongs to that root). */
static int service_restart(demo *d) {
    char port[16], *argv[64];
    size_t n = 0;
    int rc;
    snprintf(port, sizeof port, "%d", service_port(d));
    while (d->service_command[n] && n < 60) { argv[n] = d->service_command[n]; n++; }
    argv[n++] = "--port";
    argv[n++] = port;
    argv[n] = NULL;
    rc = service_start(&d->service, argv);
    if (rc == 0) printf("  The demo service is back at %s\n", d->service.url);
    return rc;
}

typedef struct upload_run {
    int done, status;
    ods_upload_result result;
    char message[512];
} upload_run;

static void on_upload_progress(ods_store *store, const ods_upload_progress *p, void *context) {
    (void)store, (void)context;
    printf("    [upload] %lld of %lld answered, %lld refused\n", (long long)p->sent, (long long)p->total,
           (long long)p->failed);
}

static void on_uploaded(ods_store *store, int status, const ods_upload_result *r, const ods_error *error,
                        void *context) {
    upload_run *u = context;
    (void)store;
    u->done = 1;
    u->status = status;
    u->result = *r;
    if (error) snprintf(u->message, sizeof u->message, "%s", error->message);
}

static void upload(demo *d, upload_run *u) {
    memset(u, 0, sizeof *u);
    if (ods_store_upload(d->offline, on_upload_progress, on_uploaded, u) != ODS_OK) {
        failed_check(d, ods_error_last()->message);
        return;
    }
    if (wait_for(d, d->offline, &u->done) != ODS_OK) return;
    if (u->status != ODS_OK) printf("    upload stopped: %s: %s\n", status_name(u->status), u->message);
    else printf("    upload done: %lld confirmed, %lld refused, %lld still queued\n", (long long)u->result.confirmed,
                (long long)u->result.failed, (long long)u->result.remaining);
}

static int step_upload(demo *d) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    ods_error_archive *archive = NULL;
    upload_run u;
    call c;
    char key[256];
    int64_t id = -1;
    size_t i;

    if (service_restart(d) != 0) {
        printf("  the demo service did not start again\n");
        return -1;
    }
    options.service_root = d->service.url;
    d->online = open_store(d, &options, &d->online_opening);
    if (!d->online) return -1;
    printf("\n  Meanwhile someone else rebooked one of the same bookings on the service:\n");
    change_ok(d, d->online, ODS_UPDATE, booking_key(d, "00000002", key, sizeof key),
              "{\"PASSNAME\":\"Ben Garcia (rebooked)\"}", "*");

    printf("\n  The upload sends the queue in order (one $batch where the service has it; pyslet has\n"
           "  none, so one request each there), each change with the ETag the entity had when the app\n"
           "  changed it:\n");
    upload(d, &u);
    if (u.status != ODS_OK || u.result.confirmed != 2 || u.result.failed != 1)
        failed_check(d, "2 changes confirmed, 1 refused");

    printf("\n  The refused change is in the error archive (ods_store_error_archive), with what was sent\n"
           "  and what the service answered:\n");
    if (ods_store_error_archive(&archive, d->offline) != ODS_OK) {
        failed_check(d, ods_error_last()->message);
        return 0;
    }
    for (i = 0; i < ods_error_archive_count(archive); i++) {
        const ods_archived_error *e = ods_error_archive_at(archive, i);
        printf("    #%lld %s %s\n      %s\n      -> HTTP %d: %s\n", (long long)e->id, e->method, e->path,
               e->body ? e->body : "", e->http_status, e->message);
        id = e->id;
        if (e->http_status != 412) failed_check(d, "HTTP 412 in the archive");
    }
    if (ods_error_archive_count(archive) != 1) failed_check(d, "one archived change");
    ods_error_archive_free(archive);
    read_ok(d, d->offline, booking_key(d, "00000002", key, sizeof key), print_bookings, &c);
    printf("    ods_entity_pending_state: %s\n", c.pending_state == ODS_ENTITY_ERROR ? "ODS_ENTITY_ERROR" : "?");
    if (c.pending_state != ODS_ENTITY_ERROR) failed_check(d, "the booking in error");

    printf("\n  The app decides its version wins: retry with If-Match: * (ods_store_error_retry), upload:\n");
    if (ods_store_error_retry(d->offline, id, NULL, "*") != ODS_OK) failed_check(d, ods_error_last()->message);
    upload(d, &u);
    if (u.status != ODS_OK || u.result.confirmed != 1) failed_check(d, "the retried change confirmed");
    printf("  %lld changes wait now.\n", (long long)pending(d));

    printf("\n  What the service has now:\n");
    read_ok(d, d->online, "TravelagencyCollection('00000002')", print_agencies, &c);
    snprintf(key, sizeof key, "BookingCollection?$filter=carrid eq 'LH' and connid eq '0400' and bookid le '00000003'"
             "&$orderby=bookid");
    read_ok(d, d->online, key, print_bookings, &c);
    return 0;
}

static int downloaded;
static void on_downloaded(ods_store *store, int status, const ods_error *error, void *context) {
    int *code = context;
    (void)store;
    *code = status;
    downloaded = 1;
    if (error) printf("    download stopped: %s\n", error->message);
}

static int step_download_again(demo *d) {
    call c;
    int code = -1;

    printf("  The service changes an agency:\n");
    change_ok(d, d->online, ODS_UPDATE, "TravelagencyCollection('00000111')", "{\"NAME\":\"Seaside Travel & Tours\"}",
              NULL);
    printf("\n  ods_store_download brings fresh data for every defining request (a delta where the\n"
           "  service gives delta links, else the request again, replacing what it brought):\n");
    downloaded = 0;
    if (ods_store_download(d->offline, NULL, on_progress, on_downloaded, &code) != ODS_OK) {
        failed_check(d, ods_error_last()->message);
        return 0;
    }
    if (wait_for(d, d->offline, &downloaded) != ODS_OK) return 0;
    if (code != ODS_OK) failed_check(d, "the download");
    read_ok(d, d->offline, "TravelagencyCollection('00000111')", print_agencies, &c);
    if (!c.is_local) failed_check(d, "a local answer");
    return 0;
}

static const char *source_name(int source) {
    return source == ODS_SOURCE_OFFLINE ? "ODS_SOURCE_OFFLINE (the store file)"
         : source == ODS_SOURCE_ONLINE ? "ODS_SOURCE_ONLINE (the service)" : "?";
}

static int step_mixed(demo *d) {
    ods_store_options options = ODS_STORE_OPTIONS_INIT;
    opening o;
    ods_store *mixed;
    call c;
    char path[512], from[64], to[64];

    printf("  A mixed store opens the same file and the service: each request goes to the file when\n"
           "  the defining requests cover what it reads, else to the service.\n");
    ods_store_close(d->offline);
    d->offline = NULL;
    options.kind = ODS_STORE_MIXED;
    options.service_root = d->service.url;
    options.store_path = d->store_path;
    mixed = open_store(d, &options, &o);
    if (!mixed) return -1;
    read_ok(d, mixed, "TravelagencyCollection?$filter=CITY eq 'Walldorf'&$top=2", print_agencies, &c);
    printf("    ods_response_source: %s\n", source_name(c.source));
    if (c.source != ODS_SOURCE_OFFLINE) failed_check(d, "the file answers agencies");
    read_ok(d, mixed, "CarrierCollection('LH')?$select=carrid,CARRNAME,CURRCODE", print_carriers, &c);
    printf("    ods_response_source: %s\n", source_name(c.source));
    if (c.source != ODS_SOURCE_ONLINE) failed_check(d, "the service answers carriers");
    date_literal(d, "2026-06-01", from, sizeof from);
    date_literal(d, "2026-06-14", to, sizeof to);
    if (d->version == 4)
        snprintf(path, sizeof path, "GetAvailableFlights(fromdate=%s,todate=%s,cityfrom='Frankfurt',cityto='New York')",
                 from, to);
    else
        snprintf(path, sizeof path, "GetAvailableFlights?fromdate=%s&todate=%s&cityfrom='Frankfurt'&cityto='New York'",
                 from, to);
    if (run(d, mixed, ODS_FUNCTION, path, NULL, &c) != ODS_OK) failed_check(d, "the function import");
    printf("    ods_response_source: %s (function imports always go to the service)\n", source_name(c.source));
    if (c.source != ODS_SOURCE_ONLINE) failed_check(d, "the service answers function imports");
    printf("\n  The working mode can be switched any time (ods_store_set_mode); ODS_MODE_ONLINE:\n");
    if (ods_store_set_mode(mixed, ODS_MODE_ONLINE) != ODS_OK) failed_check(d, ods_error_last()->message);
    read_ok(d, mixed, "TravelagencyCollection('00000111')", print_agencies, &c);
    printf("    ods_response_source: %s\n", source_name(c.source));
    if (c.source != ODS_SOURCE_ONLINE) failed_check(d, "online mode");
    ods_store_close(mixed);
    return 0;
}

/* ---- main --------------------------------------------------------------------------------- */

typedef struct step {
    const char *title;
    int (*run)(demo *d);   /* 0 to go on; -1 stops the story (what follows needs this step) */
} step;

int main(int argc, char **argv) {
    static const step steps[] = {
        {"Online: read from the service", step_online},
        {"Offline store: download the defining requests", step_download},
        {"The service stops: reads from the store file", step_local_reads},
        {"Reopen the store file, no network needed", step_reopen},
        {"Local changes while the service is stopped", step_local_writes},
        {"The service is back: upload, a conflict in the error archive", step_upload},
        {"Download: what changed on the service", step_download_again},
        {"Mixed mode: the file where it covers, the service elsewhere", step_mixed},
    };
    demo d;
    int i, command = 0;
    size_t s;
    struct timespec t0, t1;

    memset(&d, 0, sizeof d);
    d.store_path = "flights.store";
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--store") == 0 && i + 1 < argc) d.store_path = argv[++i];
        else if (strcmp(argv[i], "--") == 0 && i + 1 < argc) { command = i + 1; break; }
        else break;
    }
    if (command == 0) {
        fprintf(stderr, "usage: flight_demo [--store FILE] -- COMMAND [ARG...]\n"
                        "  COMMAND starts the flight demo service, e.g.\n"
                        "  .venv/bin/python Tests/servers/serve.py v2flight --page-size 20\n");
        return 64;
    }
    d.service_command = argv + command;
    /* A service that died must not kill us with SIGPIPE; its stdin is our pipe. */
    signal(SIGPIPE, SIG_IGN);
    clock_gettime(CLOCK_MONOTONIC, &t0);

    printf("libodatastore %s: SAP's flight sample service RMTSAMPLEFLIGHT, online and offline\n", ods_version());
    printf("\nStarting the demo service:");
    for (i = command; i < argc; i++) printf(" %s", argv[i]);
    printf("\n");
    if (service_start(&d.service, d.service_command) != 0) {
        fprintf(stderr, "the demo service did not start (no READY line)\n");
        service_stop(&d.service);
        return 1;
    }
    printf("  listening at %s\n", d.service.url);

    for (s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        int failures = d.failures;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        printf("\n== %zu. %s\n\n", s + 1, steps[s].title);
        if (steps[s].run(&d) != 0) {
            printf("\n  (the story cannot go on without this step)\n");
            d.failures++;
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("\n  step %zu: %s in %.1f s\n", s + 1, d.failures == failures ? "ok" : "FAILED",
               (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
    }

    ods_store_close(d.online);
    ods_store_close(d.offline);
    service_stop(&d.service);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%s (%.1f s)\n", d.failures ? "demo: something went wrong" : "demo: every step worked",
           (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return d.failures ? 1 : 0;
}
