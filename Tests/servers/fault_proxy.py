#!/usr/bin/env python3
"""A forward-to-one-upstream HTTP/1.1 proxy that injects faults on demand.

    python Tests/servers/fault_proxy.py --upstream http://127.0.0.1:PORT/odata/ [--port 0]

Prints ``READY http://127.0.0.1:<proxy-port><upstream-path>`` (the upstream's service root
as seen through the proxy) and runs until SIGTERM/SIGINT or stdin EOF (see _launcher.py).

Requests are passed to the upstream over a persistent connection per client connection
(keep-alive on both sides). Faults are switched on through the control endpoint
``/__fault`` on the proxy itself (never forwarded); README.md documents it. In short:

    POST   /__fault?mode=reset&count=1        add a rule (query string or a JSON object body)
    GET    /__fault                           rules and counters as JSON
    DELETE /__fault                           remove all rules (counters stay)

Rule fields: mode (reset | close | http500 | http503 | slow | auth | garbage | truncate |
truncate_body | badjson | csrf | respond | gzipbomb | endless | hang | reset_after), count (how many matching requests it
affects; default 1, -1 = until cleared; default -1 for auth), match (substring of the request
target; default: every request), delay_ms (slow), authorization (auth: the Authorization value
that is accepted), status (override the status of http500/http503/respond), headers, body and
pad_bytes and declared_length (respond), inflated_bytes (gzipbomb), retry_after (http503).

Only the standard library is used, so any Python 3.10+ runs it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _launcher  # noqa: E402

CONTROL_PATH = "/__fault"
MODES = ("reset", "close", "http500", "http503", "slow", "auth", "garbage", "truncate", "truncate_body", "badjson",
         "csrf", "respond", "gzipbomb", "endless", "hang", "reset_after")
#: How many request lines GET /__fault returns (the most recent ones).
LOG_SIZE = 5000
#: How many requests' header fields GET /__fault returns (the most recent ones).
HEAD_LOG_SIZE = 50
MODIFYING = ("POST", "PUT", "PATCH", "MERGE", "DELETE")
HOP_BY_HOP = {
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
    "transfer-encoding", "upgrade", "proxy-connection",
}

ERROR_HTML = (b"<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head>\n"
              b"<body><h1>Internal Server Error</h1><p>The fault proxy says: something broke."
              b"</p></body></html>\n")
UNAVAILABLE_TEXT = b"Service Unavailable (fault proxy): try again later.\n"
GARBAGE = b"\x00\x17\xfe\xffSSH-2.0-not-http\r\n\x80\x81\x82 garbage garbage\r\n\r\n\x01\x02"
BAD_JSON = b'{"@odata.context":"$metadata#Products","value":[{"ID":1,,"Name":tru'


class Rule:
    def __init__(self, spec: dict) -> None:
        mode = str(spec.get("mode", ""))
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; one of {', '.join(MODES)}")
        self.mode = mode
        self.count = int(spec.get("count", -1 if mode in ("auth", "csrf") else 1))
        if self.count == 0 or self.count < -1:
            raise ValueError("count must be a positive number or -1")
        self.match = str(spec.get("match", ""))
        self.delay_ms = int(spec.get("delay_ms", 1000))
        if self.delay_ms < 0:
            raise ValueError("delay_ms must not be negative")
        self.authorization = str(spec.get("authorization", "Basic dXNlcjpwYXNzd29yZA=="))
        self.status = int(spec.get("status", {"http503": 503, "respond": 200}.get(mode, 500)))
        # respond: a canned answer. `headers` is a list of [name, value] pairs written as
        # given (a value may hold a bare CR: that is the point of some tests); `body` is text
        # in which "{PAD}" is replaced by `pad_bytes` spaces (JSON whitespace, so a large but
        # valid JSON body costs nothing to describe).
        headers = spec.get("headers", [])
        if not isinstance(headers, list) or not all(isinstance(h, list) and len(h) == 2 for h in headers):
            raise ValueError("headers must be a list of [name, value] pairs")
        self.headers = [(str(k), str(v)) for k, v in headers]
        self.body = str(spec.get("body", ""))
        self.pad_bytes = int(spec.get("pad_bytes", 0))
        # respond: the Content-Length sent when not the body's (then the proxy sends the body
        # and waits on the connection, as a server that declares more than it sends).
        self.declared_length = spec.get("declared_length")
        if self.declared_length is not None and int(self.declared_length) < 0:
            raise ValueError("declared_length must not be negative")
        # gzipbomb: 200 with Content-Encoding: gzip, a JSON content type and a body that
        # inflates to `inflated_bytes` spaces (about 1 KB per MiB sent).
        self.inflated_bytes = int(spec.get("inflated_bytes", 1 << 30))
        # http503: the Retry-After value sent ("" sends none).
        self.retry_after = str(spec.get("retry_after", "1"))
        if self.pad_bytes < 0 or self.inflated_bytes < 0:
            raise ValueError("pad_bytes and inflated_bytes must not be negative")

    def as_dict(self) -> dict:
        return {"mode": self.mode, "count": self.count, "match": self.match,
                "delay_ms": self.delay_ms, "authorization": self.authorization,
                "status": self.status, "headers": [list(h) for h in self.headers],
                "body": self.body[:200], "pad_bytes": self.pad_bytes,
                "inflated_bytes": self.inflated_bytes, "retry_after": self.retry_after,
                "declared_length": self.declared_length}


class FaultState:
    """Rules and counters, shared by all connection threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rules: list[Rule] = []
        self.connections = 0
        self.requests = 0
        self.forwarded = 0
        self.faults = 0
        # csrf mode: the token and the session cookie it is bound to (SAP Gateway style).
        self.csrf_token: str | None = None
        self.csrf_session: str | None = None
        self.csrf_serial = 0
        # endless mode: a new page number for every page served.
        self.endless_serial = 0
        # "METHOD target" of every request that reached the proxy (control requests aside),
        # so a test can see what a client sent (how many $batch requests, in which order).
        self.log: list[str] = []
        # The header fields of the most recent requests (HEAD_LOG_SIZE), in the order received,
        # each request's as [name, value] pairs as sent (duplicates kept): what a client put
        # on the wire besides the request line.
        self.heads: list[list[list[str]]] = []

    def csrf_active(self) -> bool:
        with self.lock:
            return any(r.mode == "csrf" for r in self.rules)

    def csrf_issue(self) -> tuple[str, str]:
        """A new token and session (what a `X-CSRF-Token: Fetch` request gets)."""
        with self.lock:
            self.csrf_serial += 1
            self.csrf_token = f"tok{self.csrf_serial}-{os.urandom(6).hex()}"
            self.csrf_session = f"sess{self.csrf_serial}-{os.urandom(6).hex()}"
            return self.csrf_token, self.csrf_session

    def csrf_valid(self, token: str | None, cookie: str | None) -> bool:
        with self.lock:
            if self.csrf_token is None or token != self.csrf_token:
                return False
            sessions = [c.strip() for c in (cookie or "").split(";")]
            return f"SAP_SESSIONID={self.csrf_session}" in sessions

    def take(self, target: str, authorization: str | None) -> Rule | None:
        """The rule to apply to this request (consuming one use of it), or None."""
        with self.lock:
            self.requests += 1
            for rule in self.rules:
                if rule.match and rule.match not in target:
                    continue
                if rule.mode == "csrf":
                    continue  # checked in _handle_csrf before any other rule
                if rule.mode == "auth" and authorization == rule.authorization:
                    return None  # logged in: pass through, the rule stays
                if rule.count > 0:
                    rule.count -= 1
                    if rule.count == 0:
                        self.rules.remove(rule)
                self.faults += 1
                return rule
            return None

    def snapshot(self) -> dict:
        with self.lock:
            return {"rules": [r.as_dict() for r in self.rules], "connections": self.connections,
                    "requests": self.requests, "forwarded": self.forwarded,
                    "faults": self.faults, "log": self.log[-LOG_SIZE:], "headers": list(self.heads)}


class ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, upstream: str) -> None:
        super().__init__(address, ProxyHandler)
        parts = urlsplit(upstream)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError("--upstream must be an http:// URL")
        self.upstream_host = parts.hostname
        self.upstream_port = parts.port or 80
        self.upstream_path = parts.path or "/"
        self.upstream_origin = f"http://{parts.netloc}".encode()
        self.state = FaultState()
        self.proxy_origin = b""  # set once the port is known

    def handle_error(self, request, client_address) -> None:
        # A client that gives up mid-answer (the library stopping a body past its limits,
        # or closing with requests pending) is expected: no traceback for that.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ProxyServer

    def setup(self) -> None:
        super().setup()
        self.upstream: http.client.HTTPConnection | None = None
        with self.server.state.lock:
            self.server.state.connections += 1

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            if self.upstream is not None:
                self.upstream.close()

    def log_message(self, format, *args) -> None:  # noqa: A002 - stdlib signature
        if os.environ.get("ODS_FAULT_PROXY_LOG"):
            sys.stderr.write("fault_proxy: " + (format % args) + "\n")

    # Every method goes through one handler (MERGE included).
    def do_GET(self): self._handle()  # noqa: E704
    def do_HEAD(self): self._handle()  # noqa: E704
    def do_POST(self): self._handle()  # noqa: E704
    def do_PUT(self): self._handle()  # noqa: E704
    def do_PATCH(self): self._handle()  # noqa: E704
    def do_MERGE(self): self._handle()  # noqa: E704
    def do_DELETE(self): self._handle()  # noqa: E704
    def do_OPTIONS(self): self._handle()  # noqa: E704

    # ------------------------------------------------------------------ request
    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size_line = self.rfile.readline(65537)
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline(3)
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _handle(self) -> None:
        try:
            body = self._read_body()
        except (ValueError, OSError):
            self.close_connection = True
            return
        if urlsplit(self.path).path.rstrip("/") == CONTROL_PATH:
            self._control(body)
            return
        with self.server.state.lock:
            self.server.state.log.append(f"{self.command} {self.path}")
            self.server.state.heads.append([[name, value] for name, value in self.headers.items()])
            del self.server.state.heads[:-HEAD_LOG_SIZE]
        if self.server.state.csrf_active() and self._handle_csrf(body):
            return
        rule = self.server.state.take(self.path, self.headers.get("Authorization"))
        if rule is None:
            self._forward(body)
            return
        getattr(self, "_fault_" + rule.mode)(rule, body)

    # ------------------------------------------------------------------ control
    def _control(self, body: bytes) -> None:
        state = self.server.state
        if self.command == "GET":
            self._reply(200, json.dumps(state.snapshot()).encode(), "application/json")
            return
        if self.command == "DELETE":
            with state.lock:
                state.rules.clear()
            self._reply(200, json.dumps(state.snapshot()).encode(), "application/json")
            return
        if self.command != "POST":
            self._reply(405, b"use GET, POST or DELETE\n", "text/plain", [("Allow", "GET, POST, DELETE")])
            return
        try:
            query = urlsplit(self.path).query
            spec: dict = {k: v[-1] for k, v in parse_qs(query).items()}
            if body.strip():
                parsed = json.loads(body)
                if not isinstance(parsed, dict):
                    raise ValueError("the body must be a JSON object")
                spec.update(parsed)
            if spec.get("mode") in ("none", "clear"):
                with state.lock:
                    state.rules.clear()
            elif spec.get("mode") == "csrf_expire":
                with state.lock:
                    state.csrf_token = None  # the next modifying request needs a new token
            else:
                rule = Rule(spec)
                with state.lock:
                    state.rules.append(rule)
        except (ValueError, TypeError) as exc:
            self._reply(400, f"bad fault rule: {exc}\n".encode(), "text/plain")
            return
        self._reply(200, json.dumps(state.snapshot()).encode(), "application/json")

    # ------------------------------------------------------------------ csrf
    def _handle_csrf(self, body: bytes) -> bool:
        """SAP Gateway's CSRF protection; True when the request was answered here.

        `X-CSRF-Token: Fetch` gets a new token in the response header and a session cookie
        (`SAP_SESSIONID`) the token is bound to; a modifying request without that token and
        cookie is refused with 403 and `X-CSRF-Token: Required`.
        """
        state = self.server.state
        token = self.headers.get("X-CSRF-Token")
        if token is not None and token.lower() == "fetch":
            issued, session = state.csrf_issue()
            self._forward(body, extra=[("X-CSRF-Token", issued),
                                       ("Set-Cookie", f"SAP_SESSIONID={session}; Path=/; HttpOnly")])
            return True
        if self.command in MODIFYING and not state.csrf_valid(token, self.headers.get("Cookie")):
            with state.lock:
                state.requests += 1
                state.faults += 1
            self._reply(403, b"CSRF token validation failed", "text/plain", [("X-CSRF-Token", "Required")])
            return True
        return False

    # ------------------------------------------------------------------ faults
    def _fault_reset(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self._drop()

    def _fault_close(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        self._drop()

    def _fault_http500(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        self._reply(rule.status, ERROR_HTML, "text/html; charset=utf-8")

    def _fault_http503(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        extra = [("Retry-After", rule.retry_after)] if rule.retry_after else []
        self._reply(rule.status, UNAVAILABLE_TEXT, "text/plain; charset=utf-8", extra)

    def _fault_reset_after(self, rule: Rule, body: bytes) -> None:
        """The server acts on the request, then the client's connection is reset: the client
        cannot know whether it happened (the case that makes retrying a POST unsafe)."""
        status, _, _, _ = self._upstream_exchange(body)
        if status is None:
            return
        with self.server.state.lock:
            self.server.state.forwarded += 1
        self._fault_reset(rule, body)

    def _fault_slow(self, rule: Rule, body: bytes) -> None:
        time.sleep(rule.delay_ms / 1000.0)
        self._forward(body)

    def _fault_auth(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        self._reply(401, b'{"error":{"code":"401","message":"Authentication required"}}',
                    "application/json", [("WWW-Authenticate", 'Basic realm="odatastore-test"')])

    def _fault_garbage(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        self._send_raw(GARBAGE)
        self._drop()

    def _fault_truncate(self, rule: Rule, body: bytes) -> None:
        status, reason, headers, payload = self._upstream_exchange(body)
        if status is None:
            return
        head = self._head(status, reason, headers, len(payload))
        self._send_raw(head + payload[: len(payload) // 2])
        self._drop()

    def _fault_truncate_body(self, rule: Rule, body: bytes) -> None:
        """The service acts on the request; the client gets a well-formed HTTP response whose
        body is the first half of the real one (its Content-Length says so): a `$batch`
        answer cut short in the middle of its parts, that only the body's syntax reveals."""
        status, reason, headers, payload = self._upstream_exchange(body)
        if status is None:
            return
        with self.server.state.lock:
            self.server.state.forwarded += 1
        cut = payload[: len(payload) // 2]
        self._send_raw(self._head(status, reason, headers, len(cut)) + cut)

    def _fault_badjson(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        self._reply(200, BAD_JSON, "application/json;odata.metadata=minimal",
                    [("OData-Version", "4.0")])

    def _fault_respond(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        payload = rule.body.replace("{PAD}", " " * rule.pad_bytes).encode("utf-8")
        reason = self.responses.get(rule.status, ("Status",))[0]
        length = len(payload) if rule.declared_length is None else int(rule.declared_length)
        self._send_raw(self._head(rule.status, reason, rule.headers, length)
                       + (b"" if self.command == "HEAD" else payload))
        if length != len(payload):
            self._hold()  # the client waits for the rest, or gives up

    def _fault_gzipbomb(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        payload = gzip_of_spaces(rule.inflated_bytes)
        self._send_raw(self._head(200, "OK", [("Content-Type", "application/json"),
                                              ("Content-Encoding", "gzip"), ("OData-Version", "4.0")],
                                  len(payload)) + payload)

    def _fault_endless(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        """A page of a collection whose next link is new every time (a broken server's paging)."""
        state = self.server.state
        with state.lock:
            state.endless_serial += 1
            n = state.endless_serial
        root = self.server.proxy_origin.decode() + self.server.upstream_path
        page = {"@odata.context": root + "$metadata#Categories",
                "value": [{"ID": n, "Name": f"page {n}"}],
                "@odata.nextLink": f"{root}Categories?$skiptoken=endless{n}"}
        self._reply(200, json.dumps(page).encode(), "application/json;odata.metadata=minimal",
                    [("OData-Version", "4.0")])

    def _fault_hang(self, rule: Rule, body: bytes) -> None:  # noqa: ARG002
        """Never answers: holds the connection until the client goes away."""
        self._hold()

    def _hold(self) -> None:
        """Holds the connection, sending nothing more, until the client goes away."""
        self.close_connection = True
        try:
            self.connection.settimeout(None)
            while self.connection.recv(65536):
                pass
        except OSError:
            pass

    # ------------------------------------------------------------------ forwarding
    def _forward(self, body: bytes, extra=()) -> None:
        status, reason, headers, payload = self._upstream_exchange(body)
        if status is None:
            return
        headers = [*headers, *extra]
        bodiless = self.command == "HEAD" or status in (204, 304) or 100 <= status < 200
        length = None if bodiless else len(payload)
        if self.command == "HEAD" and self._upstream_length is not None:
            headers = [*headers, ("Content-Length", self._upstream_length)]
        self._send_raw(self._head(status, reason, headers, length) + (b"" if bodiless else payload))
        with self.server.state.lock:
            self.server.state.forwarded += 1

    def _upstream_exchange(self, body: bytes):
        """Send the request upstream; returns (status, reason, headers, body) or Nones."""
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP]
        if body or self.command in ("POST", "PUT", "PATCH", "MERGE"):
            headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
            headers.append(("Content-Length", str(len(body))))
        for attempt in (0, 1):
            reused = self.upstream is not None
            if self.upstream is None:
                self.upstream = http.client.HTTPConnection(
                    self.server.upstream_host, self.server.upstream_port, timeout=300)
            try:
                # The client's Host header is passed on, so a server that builds its links
                # from Host (odatapy) writes links that point back at the proxy.
                self.upstream.putrequest(self.command, self.path, skip_host=True,
                                         skip_accept_encoding=True)
                for k, v in headers:
                    self.upstream.putheader(k, v)
                self.upstream.endheaders(body if body else None)
                response = self.upstream.getresponse()
                payload = response.read()
                self._upstream_length = response.getheader("Content-Length")
                out_headers = [(k, v) for k, v in response.getheaders()
                               if k.lower() not in HOP_BY_HOP and k.lower() != "content-length"]
                if response.will_close:
                    self.upstream.close()
                    self.upstream = None
                return (response.status, response.reason,
                        self._rewrite_headers(out_headers), self._rewrite(payload))
            except (http.client.HTTPException, OSError) as exc:
                if self.upstream is not None:
                    self.upstream.close()
                    self.upstream = None
                if attempt == 0 and reused:
                    continue  # a stale keep-alive connection: retry once on a fresh one
                self._reply(502, f"fault proxy: upstream failed: {exc}\n".encode(), "text/plain")
                return None, None, None, None
        return None, None, None, None

    def _rewrite(self, data: bytes) -> bytes:
        """Links that name the upstream (pyslet writes absolute ones) point at the proxy."""
        if self.server.upstream_origin in data:
            return data.replace(self.server.upstream_origin, self.server.proxy_origin)
        return data

    def _rewrite_headers(self, headers):
        return [(k, self._rewrite(v.encode("latin-1")).decode("latin-1")) for k, v in headers]

    # ------------------------------------------------------------------ output
    def _head(self, status: int, reason: str, headers, length: int | None) -> bytes:
        lines = [f"HTTP/1.1 {status} {reason}"]
        lines += [f"{k}: {v}" for k, v in headers]
        if length is not None:
            lines.append(f"Content-Length: {length}")
        if self.close_connection:
            lines.append("Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _reply(self, status: int, body: bytes, content_type: str, extra=()) -> None:
        headers = [("Content-Type", content_type), *extra]
        reason = self.responses.get(status, ("Status",))[0]
        self._send_raw(self._head(status, reason, headers, len(body))
                       + (b"" if self.command == "HEAD" else body))

    def _send_raw(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _drop(self) -> None:
        """Close the client connection now, without a response."""
        self.close_connection = True
        try:
            self.connection.close()
        except OSError:
            pass


_GZIP_CACHE: dict[int, bytes] = {}
_GZIP_LOCK = threading.Lock()


def gzip_of_spaces(size: int) -> bytes:
    """A gzip stream that inflates to `size` spaces, built from one compressed MiB repeated.

    Each MiB is compressed on its own after a full flush, so its deflate blocks are the same
    bytes every time; the trailer's CRC-32 is computed over the real inflated data.
    """
    with _GZIP_LOCK:
        cached = _GZIP_CACHE.get(size)
        if cached is not None:
            return cached
        mib = 1 << 20
        chunk = b" " * mib
        whole, rest = divmod(size, mib)
        block = zlib.compressobj(9, zlib.DEFLATED, -15)
        repeated = block.compress(chunk) + block.flush(zlib.Z_FULL_FLUSH)
        tail = zlib.compressobj(9, zlib.DEFLATED, -15)
        last = tail.compress(b" " * rest) + tail.flush(zlib.Z_FINISH)
        crc = 0
        for _ in range(whole):
            crc = zlib.crc32(chunk, crc)
        crc = zlib.crc32(b" " * rest, crc)
        data = (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + repeated * whole + last
                + struct.pack("<II", crc, size & 0xFFFFFFFF))
        _GZIP_CACHE[size] = data
        return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", required=True, help="the upstream service root URL (http only)")
    parser.add_argument("--tls-cert", help="serve HTTPS with this PEM certificate (see tls/README.md)")
    parser.add_argument("--tls-key", help="the certificate's PEM private key")
    _launcher.add_common_arguments(parser)
    args = parser.parse_args()

    proxy = ProxyServer((args.host, args.port), args.upstream)
    scheme = "http"
    if args.tls_cert:
        # HTTPS towards the client (the upstream stays plain HTTP): TLS tests of the library.
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        proxy.socket = context.wrap_socket(proxy.socket, server_side=True)
        scheme = "https"
    host, port = proxy.server_address[:2]
    proxy.proxy_origin = f"{scheme}://{host}:{port}".encode()
    threading.Thread(target=proxy.serve_forever, name="fault-proxy", daemon=True).start()

    def stop() -> None:
        proxy.shutdown()
        proxy.server_close()

    _launcher.run_until_stopped(f"{scheme}://{host}:{port}{proxy.upstream_path}", stop,
                                watch_stdin=not args.ignore_stdin)


if __name__ == "__main__":
    main()
