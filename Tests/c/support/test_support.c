/* test_support.c - checks, clock and waiter of test_support.h. */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ods_test_fail(const char *file, int line, const char *format, ...) {
    va_list args;
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    fflush(stderr);
    exit(1);
}

void ods_test_skip(const char *format, ...) {
    va_list args;
    fputs("SKIP ", stderr);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    fflush(stderr);
    exit(ODS_TEST_EXIT_SKIP);
}

void ods_test_check_str_eq(const char *file, int line, const char *expression,
                           const char *actual, const char *expected) {
    if (actual == NULL && expected == NULL) return;
    if (actual != NULL && expected != NULL && strcmp(actual, expected) == 0) return;
    ods_test_fail(file, line, "%s is %s%s%s, expected %s%s%s", expression,
                  actual ? "\"" : "", actual ? actual : "NULL", actual ? "\"" : "",
                  expected ? "\"" : "", expected ? expected : "NULL", expected ? "\"" : "");
}

int64_t ods_test_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void ods_test_sleep_ms(long ms) {
    struct timespec left;
    if (ms <= 0) return;
    left.tv_sec = ms / 1000;
    left.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}

void ods_test_waiter_init(ods_test_waiter *waiter) {
    pthread_condattr_t attr;
    memset(waiter, 0, sizeof *waiter);
    pthread_mutex_init(&waiter->mutex, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&waiter->cond, &attr);
    pthread_condattr_destroy(&attr);
}

void ods_test_waiter_destroy(ods_test_waiter *waiter) {
    pthread_cond_destroy(&waiter->cond);
    pthread_mutex_destroy(&waiter->mutex);
}

void ods_test_waiter_signal(ods_test_waiter *waiter, const char *event) {
    pthread_mutex_lock(&waiter->mutex);
    waiter->count += 1;
    if (event != NULL) {
        size_t need = strlen(event) + (waiter->log_length > 0 ? 1 : 0);
        if (waiter->log_length + need < sizeof waiter->log) {
            if (waiter->log_length > 0) waiter->log[waiter->log_length++] = ',';
            memcpy(waiter->log + waiter->log_length, event, strlen(event));
            waiter->log_length += strlen(event);
            waiter->log[waiter->log_length] = '\0';
        } else {
            waiter->log_truncated = 1;
        }
    }
    pthread_cond_broadcast(&waiter->cond);
    pthread_mutex_unlock(&waiter->mutex);
}

int ods_test_waiter_count(ods_test_waiter *waiter) {
    int count;
    pthread_mutex_lock(&waiter->mutex);
    count = waiter->count;
    pthread_mutex_unlock(&waiter->mutex);
    return count;
}

int ods_test_waiter_wait(ods_test_waiter *waiter, int count, long timeout_ms) {
    struct timespec deadline;
    int reached;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&waiter->mutex);
    while (waiter->count < count) {
        if (pthread_cond_timedwait(&waiter->cond, &waiter->mutex, &deadline) == ETIMEDOUT) break;
    }
    reached = waiter->count >= count;
    pthread_mutex_unlock(&waiter->mutex);
    return reached ? 0 : -1;
}

void ods_test_waiter_log(ods_test_waiter *waiter, char *out, size_t size) {
    size_t n;
    if (size == 0) return;
    pthread_mutex_lock(&waiter->mutex);
    n = waiter->log_length < size - 1 ? waiter->log_length : size - 1;
    memcpy(out, waiter->log, n);
    out[n] = '\0';
    pthread_mutex_unlock(&waiter->mutex);
}
