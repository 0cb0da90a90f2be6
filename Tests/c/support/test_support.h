/*
 * test_support.h - small helpers for the C tests of libodatastore (not part of the library).
 *
 * Checks that end the test with a message, a monotonic clock, and a waiter for callbacks that
 * arrive on other threads. Test memory is ordinary malloc/free memory; nothing here is
 * handed to the library.
 *
 * Exit statuses: 0 passed, 1 failed, ODS_TEST_EXIT_SKIP (77) skipped (ctest reports it as
 * "Not Run" because Tests/c/CMakeLists.txt sets SKIP_RETURN_CODE 77).
 */
#ifndef ODS_TEST_SUPPORT_H
#define ODS_TEST_SUPPORT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define ODS_TEST_EXIT_SKIP 77

/* ------------------------------------------------------------------------------------- */
/* Failing and skipping                                                                   */
/* ------------------------------------------------------------------------------------- */

/** Prints "FAIL file:line: <message>" to stderr and exits with status 1. Any thread. */
void ods_test_fail(const char *file, int line, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((noreturn, format(printf, 3, 4)))
#endif
    ;

/** Prints "SKIP <message>" to stderr and exits with ODS_TEST_EXIT_SKIP. */
void ods_test_skip(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((noreturn, format(printf, 1, 2)))
#endif
    ;

/** Fails with the library's view of a status: ods_strerror(status) and ods_error_last().
 *  Implemented in check_status.c, so only tests that use ODS_CHECK_OK link it. */
void ods_test_fail_status(const char *file, int line, const char *expression, int status)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

#define ODS_CHECK(cond)                                                                   \
    do {                                                                                  \
        if (!(cond)) ods_test_fail(__FILE__, __LINE__, "check failed: %s", #cond);         \
    } while (0)

/** Checks that a call returned ODS_OK (0); otherwise prints the status and the last error. */
#define ODS_CHECK_OK(call)                                                                \
    do {                                                                                  \
        int ods_check_status_ = (call);                                                   \
        if (ods_check_status_ != 0)                                                       \
            ods_test_fail_status(__FILE__, __LINE__, #call, ods_check_status_);           \
    } while (0)

#define ODS_CHECK_INT_EQ(actual, expected)                                                \
    do {                                                                                  \
        long long ods_check_a_ = (long long)(actual);                                     \
        long long ods_check_e_ = (long long)(expected);                                   \
        if (ods_check_a_ != ods_check_e_)                                                 \
            ods_test_fail(__FILE__, __LINE__, "%s is %lld, expected %s (%lld)", #actual,  \
                          ods_check_a_, #expected, ods_check_e_);                         \
    } while (0)

/** Compares two C strings; NULL equals only NULL. */
#define ODS_CHECK_STR_EQ(actual, expected)                                                \
    ods_test_check_str_eq(__FILE__, __LINE__, #actual, (actual), (expected))

void ods_test_check_str_eq(const char *file, int line, const char *expression,
                           const char *actual, const char *expected);

/* ------------------------------------------------------------------------------------- */
/* Time                                                                                   */
/* ------------------------------------------------------------------------------------- */

/** Milliseconds on CLOCK_MONOTONIC (only differences are meaningful). */
int64_t ods_test_now_ms(void);

/** Sleeps at least `ms` milliseconds (resumes after signals). */
void ods_test_sleep_ms(long ms);

/* ------------------------------------------------------------------------------------- */
/* Waiting for callbacks                                                                  */
/* ------------------------------------------------------------------------------------- */

#define ODS_TEST_WAITER_LOG_SIZE 4096

/**
 * Counts events signalled from any thread and lets a test wait for a number of them with a
 * time limit. Optionally keeps a comma-separated log of event names, to check ordering:
 * "started,response,finished". Initialise with ods_test_waiter_init before sharing it and
 * destroy it after the last thread that can signal it is done.
 */
typedef struct ods_test_waiter {
    pthread_mutex_t mutex;
    pthread_cond_t cond;      /* on CLOCK_MONOTONIC */
    int count;
    size_t log_length;
    int log_truncated;
    char log[ODS_TEST_WAITER_LOG_SIZE];
} ods_test_waiter;

void ods_test_waiter_init(ods_test_waiter *waiter);
void ods_test_waiter_destroy(ods_test_waiter *waiter);

/** Adds one event (its name is appended to the log when not NULL) and wakes waiters. */
void ods_test_waiter_signal(ods_test_waiter *waiter, const char *event);

/** The number of events so far. */
int ods_test_waiter_count(ods_test_waiter *waiter);

/**
 * Waits until at least `count` events have been signalled or `timeout_ms` has passed.
 * Returns 0 when the count was reached, -1 on timeout.
 */
int ods_test_waiter_wait(ods_test_waiter *waiter, int count, long timeout_ms);

/** Copies the log ("a,b,c"; "" when empty) into out (always NUL-terminated, size > 0). */
void ods_test_waiter_log(ods_test_waiter *waiter, char *out, size_t size);

#endif /* ODS_TEST_SUPPORT_H */
