/* test_http.c - minimal HTTP/1.1 client of test_http.h. */
#define _POSIX_C_SOURCE 200809L

#include "test_http.h"
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

typedef struct buffer {
    char *data;
    size_t length;
    size_t capacity;
} buffer;

static int buffer_append(buffer *b, const char *data, size_t length) {
    if (b->length + length + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        char *grown;
        while (b->length + length + 1 > capacity) capacity *= 2;
        grown = realloc(b->data, capacity);
        if (grown == NULL) return -1;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, data, length);
    b->length += length;
    b->data[b->length] = '\0';
    return 0;
}

/* Splits "http://host[:port]/path" into its parts. */
static int parse_url(const char *url, char *host, size_t host_size, char *port, size_t port_size,
                     const char **path) {
    const char *p, *end, *colon;
    size_t n;
    if (strncmp(url, "http://", 7) != 0) return -1;
    p = url + 7;
    end = strchr(p, '/');
    if (end == NULL) end = p + strlen(p);
    *path = *end ? end : "/";
    colon = memchr(p, ':', (size_t)(end - p));
    if (p[0] == '[') { /* [::1]:port */
        const char *close = memchr(p, ']', (size_t)(end - p));
        if (close == NULL) return -1;
        n = (size_t)(close - p - 1);
        if (n >= host_size) return -1;
        memcpy(host, p + 1, n);
        host[n] = '\0';
        colon = close[1] == ':' ? close + 1 : NULL;
    } else {
        n = (size_t)((colon ? colon : end) - p);
        if (n == 0 || n >= host_size) return -1;
        memcpy(host, p, n);
        host[n] = '\0';
    }
    if (colon != NULL) {
        n = (size_t)(end - colon - 1);
        if (n == 0 || n >= port_size) return -1;
        memcpy(port, colon + 1, n);
        port[n] = '\0';
    } else {
        snprintf(port, port_size, "80");
    }
    return 0;
}

static int connect_to(const char *host, const char *port, long timeout_ms) {
    struct addrinfo hints, *list = NULL, *ai;
    int fd = -1, rc;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    rc = getaddrinfo(host, port, &hints, &list);
    if (rc != 0) {
        fprintf(stderr, "test_http: cannot resolve %s: %s\n", host, gai_strerror(rc));
        return -1;
    }
    for (ai = list; ai != NULL; ai = ai->ai_next) {
        struct pollfd pfd;
        int flags, error = 0;
        socklen_t len = sizeof error;
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) continue;
        flags = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
            close(fd);
            fd = -1;
            continue;
        }
        pfd.fd = fd;
        pfd.events = POLLOUT;
        pfd.revents = 0;
        if (poll(&pfd, 1, (int)timeout_ms) != 1 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
            close(fd);
            fd = -1;
            continue;
        }
        fcntl(fd, F_SETFL, flags);
        break;
    }
    freeaddrinfo(list);
    if (fd < 0) fprintf(stderr, "test_http: cannot connect to %s:%s\n", host, port);
    return fd;
}

/* Decodes a chunked body in place; returns the new length or -1. */
static long dechunk(char *data, size_t length) {
    size_t in = 0, out = 0;
    for (;;) {
        char *end;
        unsigned long size;
        if (in >= length) return -1;
        size = strtoul(data + in, &end, 16);
        end = strstr(end, "\r\n");
        if (end == NULL) return -1;
        in = (size_t)(end - data) + 2;
        if (size == 0) break;
        if (in + size > length) return -1;
        memmove(data + out, data + in, size);
        out += size;
        in += size + 2;
    }
    data[out] = '\0';
    return (long)out;
}

int ods_test_http(ods_test_http_response *out, const char *method, const char *url,
                  const char *const *headers, const char *content_type, const char *body,
                  long timeout_ms) {
    char host[256], port[16];
    const char *path;
    buffer request = {NULL, 0, 0}, response = {NULL, 0, 0};
    int fd, i;
    size_t sent = 0;
    int64_t deadline = ods_test_now_ms() + timeout_ms;
    char line[1024];
    char *header_end, *status_end;

    memset(out, 0, sizeof *out);
    if (parse_url(url, host, sizeof host, port, sizeof port, &path) != 0) {
        fprintf(stderr, "test_http: unsupported URL %s (http://host[:port]/path only)\n", url);
        return -1;
    }
    snprintf(line, sizeof line, "%s %s HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n", method,
             path, host, port);
    buffer_append(&request, line, strlen(line));
    for (i = 0; headers != NULL && headers[i] != NULL; i++) {
        buffer_append(&request, headers[i], strlen(headers[i]));
        buffer_append(&request, "\r\n", 2);
    }
    if (body != NULL) {
        snprintf(line, sizeof line, "Content-Type: %s\r\nContent-Length: %lu\r\n",
                 content_type ? content_type : "application/octet-stream",
                 (unsigned long)strlen(body));
        buffer_append(&request, line, strlen(line));
    }
    buffer_append(&request, "\r\n", 2);
    if (body != NULL) buffer_append(&request, body, strlen(body));
    if (request.data == NULL) return -1;

    fd = connect_to(host, port, timeout_ms);
    if (fd < 0) {
        free(request.data);
        return -1;
    }
    while (sent < request.length) {
        ssize_t n = send(fd, request.data + sent, request.length - sent, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fprintf(stderr, "test_http: send to %s failed: %s\n", url, strerror(errno));
            goto fail;
        }
        sent += (size_t)n;
    }
    for (;;) {
        char chunk[8192];
        struct pollfd pfd;
        ssize_t n;
        int64_t left = deadline - ods_test_now_ms();
        if (left <= 0) {
            fprintf(stderr, "test_http: %s %s: no complete response within %ld ms\n", method, url,
                    timeout_ms);
            goto fail;
        }
        pfd.fd = fd;
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (poll(&pfd, 1, (int)left) == 0) continue;
        n = recv(fd, chunk, sizeof chunk, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            fprintf(stderr, "test_http: recv from %s failed: %s\n", url, strerror(errno));
            goto fail;
        }
        if (n == 0) break;
        if (buffer_append(&response, chunk, (size_t)n) != 0) goto fail;
    }
    close(fd);
    fd = -1;
    free(request.data);
    request.data = NULL;

    if (response.data == NULL || strncmp(response.data, "HTTP/1.", 7) != 0 ||
        (header_end = strstr(response.data, "\r\n\r\n")) == NULL) {
        fprintf(stderr, "test_http: %s %s: not an HTTP response\n", method, url);
        goto fail;
    }
    out->status = (int)strtol(response.data + 9, NULL, 10);
    status_end = strstr(response.data, "\r\n");
    *header_end = '\0';
    out->headers = malloc(strlen(status_end + 2) + 1);
    if (out->headers != NULL) strcpy(out->headers, status_end + 2);
    out->body_length = response.length - (size_t)(header_end + 4 - response.data);
    out->body = malloc(out->body_length + 1);
    if (out->headers == NULL || out->body == NULL) goto fail;
    memcpy(out->body, header_end + 4, out->body_length);
    out->body[out->body_length] = '\0';
    {
        /* Transfer-Encoding: chunked (case-insensitive header name and value). */
        const char *h = out->headers;
        while (h != NULL && *h) {
            if (strncasecmp(h, "Transfer-Encoding:", 18) == 0 && strstr(h, "chunked") != NULL &&
                (strstr(h, "\r\n") == NULL || strstr(h, "chunked") < strstr(h, "\r\n"))) {
                long length = dechunk(out->body, out->body_length);
                if (length < 0) {
                    fprintf(stderr, "test_http: %s %s: bad chunked body\n", method, url);
                    goto fail;
                }
                out->body_length = (size_t)length;
                break;
            }
            h = strstr(h, "\r\n");
            if (h != NULL) h += 2;
        }
    }
    free(response.data);
    return 0;

fail:
    if (fd >= 0) close(fd);
    free(request.data);
    free(response.data);
    ods_test_http_response_free(out);
    return -1;
}

void ods_test_http_response_free(ods_test_http_response *response) {
    if (response == NULL) return;
    free(response->headers);
    free(response->body);
    memset(response, 0, sizeof *response);
}
