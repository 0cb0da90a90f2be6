/* wakeup.c - one diagnostic of the GET benchmark (not a test): the client CPU a process pays
 * per answer when it sleeps until each answer comes, whatever it does with it.
 *
 *     cc -O2 -Wall -o /tmp/wakeup bench/python/wakeup.c
 *     /tmp/wakeup [delay-us] [poll]
 *
 * A client (pinned to CPU 1) sends one byte over a socketpair and blocks until the answer; the
 * other process (pinned to CPU 0) spins `delay-us` microseconds (default 500, about what the
 * single-process test servers take per GET) before it answers. With `poll` the client waits
 * in poll() before its read(), as a libcurl multi client does. Prints the client's CPU (user +
 * sys, getrusage) per round trip over 3,000 round trips: with delay 0 the client never goes
 * idle, with a delay every answer wakes it. The difference is the floor of what a wake-up costs
 * on the machine (run.py's notes, "An eighth look"). */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)sched_setaffinity(0, sizeof set, &set);  /* one CPU machines: both on CPU 0 */
}

static double cpu_seconds(const struct rusage *r) {
    return (double)r->ru_utime.tv_sec + (double)r->ru_utime.tv_usec * 1e-6 +
           (double)r->ru_stime.tv_sec + (double)r->ru_stime.tv_usec * 1e-6;
}

int main(int argc, char **argv) {
    int delay_us = argc > 1 ? atoi(argv[1]) : 500;
    int use_poll = argc > 2 && strcmp(argv[2], "poll") == 0;
    const int warmup = 200, count = 3000;
    int sv[2], i;
    char c = 'x';
    struct rusage before, after;
    double t0 = 0, wall;
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) { perror("socketpair"); return 1; }
    pid = fork();
    if (pid < 0) { perror("fork"); return 1; }
    if (pid == 0) {  /* the answering side */
        close(sv[0]);
        pin(0);
        while (read(sv[1], &c, 1) == 1) {
            double t = now();
            while ((now() - t) * 1e6 < delay_us) {}
            if (write(sv[1], &c, 1) != 1) break;
        }
        _exit(0);
    }
    close(sv[1]);
    pin(1);
    for (i = 0; i < warmup + count; i++) {
        if (i == warmup) { getrusage(RUSAGE_SELF, &before); t0 = now(); }
        if (write(sv[0], &c, 1) != 1) { perror("write"); return 1; }
        if (use_poll) {
            struct pollfd p = {sv[0], POLLIN, 0};
            (void)poll(&p, 1, -1);
        }
        if (read(sv[0], &c, 1) != 1) { perror("read"); return 1; }
    }
    getrusage(RUSAGE_SELF, &after);
    wall = now() - t0;
    printf("delay %d us%s: client CPU %.1f us per round trip, wall %.1f us, voluntary switches %.2f\n",
           delay_us, use_poll ? ", poll" : "", (cpu_seconds(&after) - cpu_seconds(&before)) / count * 1e6,
           wall / count * 1e6, (double)(after.ru_nvcsw - before.ru_nvcsw) / count);
    close(sv[0]);
    waitpid(pid, NULL, 0);
    return 0;
}
