/* test_server.c - launcher of Tests/servers/ scripts for C tests (see test_server.h). */
#define _POSIX_C_SOURCE 200809L

#include "test_server.h"
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* CMake compiles in where the repository and its venv are, for tests run by hand. */
#ifndef ODS_TEST_ROOT_DEFAULT
#define ODS_TEST_ROOT_DEFAULT ""
#endif
#ifndef ODS_TEST_PYTHON_DEFAULT
#define ODS_TEST_PYTHON_DEFAULT ""
#endif

#define LINE_MAX_BYTES 4096

struct ods_test_server {
    pid_t pid;
    int stdin_fd;       /* write end of the server's stdin; -1 once closed */
    int stdout_fd;      /* read end of the server's stdout */
    char name[64];      /* script name, for messages */
    char *url;
    pthread_t drain_thread;
    int drain_started;
    pthread_mutex_t mutex;
    int stopping;       /* under mutex: the drain thread stops at EOF or when set */
    int reaped;
    int status;         /* waitpid status once reaped */
    int exit_reported;  /* the exit status was already printed */
};

static const char *env_or(const char *name, const char *fallback) {
    const char *value = getenv(name);
    return value != NULL && value[0] != '\0' ? value : fallback;
}

static void set_cloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

static void describe_exit(int status, char *out, size_t size) {
    if (WIFEXITED(status))
        snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(out, size, "killed by signal %d", WTERMSIG(status));
    else
        snprintf(out, size, "ended with wait status %d", status);
}

/* Waits up to timeout_ms for the server to exit; returns 1 when it has been reaped.
 * Once the server (the group leader) has exited, but before reaping it, whatever it left
 * running in its process group is killed: the zombie keeps the group id from being reused,
 * so the signal cannot reach an unrelated process. */
static int reap(ods_test_server *server, long timeout_ms) {
    int64_t deadline = ods_test_now_ms() + timeout_ms;
    if (server->reaped) return 1;
    for (;;) {
        siginfo_t info;
        int status = 0;
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)server->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0) {
            if (info.si_pid == server->pid) {
                kill(-server->pid, SIGKILL);
                while (waitpid(server->pid, &status, 0) < 0 && errno == EINTR) {
                }
                server->reaped = 1;
                server->status = status;
                return 1;
            }
        } else if (errno != EINTR) {
            /* Not our child any more (someone else reaped it): treat it as gone. */
            server->reaped = 1;
            server->status = 0;
            return 1;
        }
        if (ods_test_now_ms() >= deadline) return 0;
        ods_test_sleep_ms(20);
    }
}

static int drain_should_stop(ods_test_server *server) {
    int stop;
    pthread_mutex_lock(&server->mutex);
    stop = server->stopping;
    pthread_mutex_unlock(&server->mutex);
    return stop;
}

/* Copies the server's stdout after READY to stderr, line by line, until EOF or stop. */
static void *drain_stdout(void *arg) {
    ods_test_server *server = arg;
    char buffer[LINE_MAX_BYTES];
    size_t used = 0;
    for (;;) {
        struct pollfd pfd;
        ssize_t n;
        pfd.fd = server->stdout_fd;
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (poll(&pfd, 1, 100) == 0) {
            if (drain_should_stop(server)) break;
            continue;
        }
        n = read(server->stdout_fd, buffer + used, sizeof buffer - used);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        used += (size_t)n;
        for (;;) {
            char *newline = memchr(buffer, '\n', used);
            size_t length;
            if (newline == NULL) {
                if (used < sizeof buffer) break;
                length = used; /* a line longer than the buffer: print what we have */
            } else {
                length = (size_t)(newline - buffer) + 1;
            }
            fprintf(stderr, "[%s] %.*s%s", server->name, (int)length, buffer,
                    newline == NULL ? "\n" : "");
            memmove(buffer, buffer + length, used - length);
            used -= length;
        }
    }
    if (used > 0) fprintf(stderr, "[%s] %.*s\n", server->name, (int)used, buffer);
    return NULL;
}

/* Reads the first line starting with "READY " within the time limit. Lines before it are
 * copied to stderr. Returns the malloc'ed URL or NULL (reason printed). */
static char *read_ready_line(ods_test_server *server, long timeout_ms) {
    char line[LINE_MAX_BYTES];
    size_t used = 0;
    int64_t deadline = ods_test_now_ms() + timeout_ms;
    for (;;) {
        struct pollfd pfd;
        int64_t left = deadline - ods_test_now_ms();
        ssize_t n;
        char *newline;
        if (left <= 0) {
            fprintf(stderr, "test_server: %s printed no READY line within %ld s\n", server->name,
                    timeout_ms / 1000);
            return NULL;
        }
        pfd.fd = server->stdout_fd;
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) == 0) continue;
        n = read(server->stdout_fd, line + used, sizeof line - 1 - used);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            char how[64] = "closed its stdout";
            if (reap(server, 5000)) {
                describe_exit(server->status, how, sizeof how);
                server->exit_reported = 1;
            }
            fprintf(stderr, "test_server: %s %s before printing READY (see its stderr above)\n",
                    server->name, how);
            return NULL;
        }
        used += (size_t)n;
        line[used] = '\0';
        while ((newline = strchr(line, '\n')) != NULL) {
            size_t length = (size_t)(newline - line);
            *newline = '\0';
            if (length > 0 && line[length - 1] == '\r') line[length - 1] = '\0';
            if (strncmp(line, "READY ", 6) == 0) {
                const char *url = line + 6;
                char *copy;
                while (*url == ' ') url++;
                copy = malloc(strlen(url) + 1);
                if (copy != NULL) strcpy(copy, url);
                /* Anything after the READY line stays in `line`; print it. */
                if (used > length + 1)
                    fprintf(stderr, "[%s] %.*s", server->name, (int)(used - length - 1), newline + 1);
                return copy;
            }
            fprintf(stderr, "[%s] %s\n", server->name, line);
            memmove(line, newline + 1, used - length - 1);
            used -= length + 1;
            line[used] = '\0';
        }
        if (used == sizeof line - 1) {
            fprintf(stderr, "test_server: %s printed a line longer than %d bytes\n", server->name,
                    LINE_MAX_BYTES);
            return NULL;
        }
    }
}

/* environ plus PYTHONUNBUFFERED=1, so the READY line is never stuck in a buffer. */
static char **child_environment(void) {
    size_t count = 0, i, out = 0;
    char **env;
    while (environ[count] != NULL) count++;
    env = calloc(count + 2, sizeof *env);
    if (env == NULL) return NULL;
    for (i = 0; i < count; i++)
        if (strncmp(environ[i], "PYTHONUNBUFFERED=", 17) != 0) env[out++] = environ[i];
    env[out++] = "PYTHONUNBUFFERED=1";
    env[out] = NULL;
    return env;
}

static void kill_group(ods_test_server *server, int signal_number) {
    if (kill(-server->pid, signal_number) != 0) kill(server->pid, signal_number);
}

int ods_test_server_start(ods_test_server **out, const char *script, const char *const *args) {
    const char *root = env_or("ODS_TEST_ROOT", ODS_TEST_ROOT_DEFAULT);
    const char *python = env_or("ODS_TEST_PYTHON", ODS_TEST_PYTHON_DEFAULT);
    char script_path[4096];
    const char **argv;
    size_t nargs = 0, i;
    int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1};
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t mask;
    char **env;
    ods_test_server *server;
    int rc;

    *out = NULL;
    if (root[0] == '\0') {
        fprintf(stderr, "test_server: ODS_TEST_ROOT is not set (run the test through ctest, "
                        "or export ODS_TEST_ROOT=<repository>)\n");
        return -1;
    }
    if (python[0] == '\0' || access(python, X_OK) != 0) {
        fprintf(stderr,
                "test_server: no Python at ODS_TEST_PYTHON=\"%s\". The test servers run in the "
                "repository's virtual environment: create it with `bash scripts/test.sh` (or "
                "python3 -m venv .venv && .venv/bin/pip install -r Tests/servers/requirements.txt)\n",
                python);
        return -1;
    }
    snprintf(script_path, sizeof script_path, "%s/Tests/servers/%s", root, script);
    if (access(script_path, R_OK) != 0) {
        fprintf(stderr, "test_server: %s not found (ODS_TEST_ROOT=%s)\n", script_path, root);
        return -1;
    }

    server = calloc(1, sizeof *server);
    if (server == NULL) return -1;
    snprintf(server->name, sizeof server->name, "%s", script);
    server->stdin_fd = -1;
    server->stdout_fd = -1;
    pthread_mutex_init(&server->mutex, NULL);

    while (args != NULL && args[nargs] != NULL) nargs++;
    argv = calloc(nargs + 3, sizeof *argv);
    env = child_environment();
    if (argv == NULL || env == NULL || pipe(in_pipe) != 0 || pipe(out_pipe) != 0) {
        fprintf(stderr, "test_server: cannot set up %s: %s\n", script, strerror(errno));
        goto fail;
    }
    /* Our ends must not leak into other children (a second server would keep this one's
     * stdin open). dup2 in the child clears the flag on 0 and 1. */
    for (i = 0; i < 2; i++) {
        set_cloexec(in_pipe[i]);
        set_cloexec(out_pipe[i]);
    }
    argv[0] = python;
    argv[1] = script_path;
    for (i = 0; i < nargs; i++) argv[2 + i] = args[i];
    argv[2 + nargs] = NULL;

    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawnattr_init(&attr);
    /* Own process group (stop signals the whole group), default signal dispositions and
     * an empty signal mask whatever the test did to its own. */
    sigemptyset(&mask);
    posix_spawnattr_setsigmask(&attr, &mask);
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &mask);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawn(&server->pid, python, &actions, &attr, (char *const *)argv, env);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        fprintf(stderr, "test_server: cannot start %s %s: %s\n", python, script_path, strerror(rc));
        goto fail;
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    in_pipe[0] = out_pipe[1] = -1;
    server->stdin_fd = in_pipe[1];
    server->stdout_fd = out_pipe[0];
    free(argv);
    free(env);
    argv = NULL;
    env = NULL;

    server->url = read_ready_line(server, ODS_TEST_SERVER_READY_TIMEOUT_MS);
    if (server->url == NULL) {
        ods_test_server_stop(server);
        return -1;
    }
    if (pthread_create(&server->drain_thread, NULL, drain_stdout, server) == 0)
        server->drain_started = 1;
    *out = server;
    return 0;

fail:
    for (i = 0; i < 2; i++) {
        if (in_pipe[i] >= 0) close(in_pipe[i]);
        if (out_pipe[i] >= 0) close(out_pipe[i]);
    }
    free(argv);
    free(env);
    pthread_mutex_destroy(&server->mutex);
    free(server);
    return -1;
}

/* Starts `script` with `first` (NULL-terminated) followed by `args` (NULL-terminated, may be NULL). */
static int start_with(ods_test_server **out, const char *script, const char *const *first,
                      const char *const *args) {
    const char *argv[64];
    size_t n = 0, i;
    for (i = 0; first[i] != NULL; i++) argv[n++] = first[i];
    for (i = 0; args != NULL && args[i] != NULL; i++) {
        if (n == sizeof argv / sizeof argv[0] - 1) {
            fprintf(stderr, "test_server: too many arguments for %s\n", script);
            *out = NULL;
            return -1;
        }
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    return ods_test_server_start(out, script, argv);
}

int ods_test_server_start_v4(ods_test_server **out, const char *const *args) {
    const char *first[] = {"v4", NULL};
    return start_with(out, "serve.py", first, args);
}

int ods_test_server_start_v2(ods_test_server **out, const char *const *args) {
    const char *first[] = {"v2", NULL};
    return start_with(out, "serve.py", first, args);
}

int ods_test_proxy_start(ods_test_server **out, const char *upstream_url, const char *const *args) {
    const char *first[] = {"--upstream", NULL, NULL};
    first[1] = upstream_url;
    return start_with(out, "fault_proxy.py", first, args);
}

const char *ods_test_server_url(const ods_test_server *server) {
    return server != NULL ? server->url : NULL;
}

long ods_test_server_pid(const ods_test_server *server) {
    return server != NULL ? (long)server->pid : -1;
}

int ods_test_server_stop(ods_test_server *server) {
    int clean;
    if (server == NULL) return 0;
    if (server->stdin_fd >= 0) {
        close(server->stdin_fd);
        server->stdin_fd = -1;
    }
    if (!reap(server, 1000)) {
        kill_group(server, SIGTERM);
        if (!reap(server, 10000)) {
            fprintf(stderr, "test_server: %s ignored SIGTERM for 10 s; killing it\n", server->name);
            kill_group(server, SIGKILL);
            reap(server, 10000);
        }
    }
    pthread_mutex_lock(&server->mutex);
    server->stopping = 1;
    pthread_mutex_unlock(&server->mutex);
    if (server->drain_started) pthread_join(server->drain_thread, NULL);
    if (server->stdout_fd >= 0) close(server->stdout_fd);
    clean = server->reaped &&
            ((WIFEXITED(server->status) && WEXITSTATUS(server->status) == 0) ||
             (WIFSIGNALED(server->status) && WTERMSIG(server->status) == SIGTERM));
    if (!clean && server->reaped && !server->exit_reported) {
        char how[64];
        describe_exit(server->status, how, sizeof how);
        fprintf(stderr, "test_server: %s %s\n", server->name, how);
    }
    pthread_mutex_destroy(&server->mutex);
    free(server->url);
    free(server);
    return clean ? 0 : -1;
}
