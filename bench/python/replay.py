#!/usr/bin/env python3
"""A replaying HTTP server for one diagnostic of the GET benchmark (not a test server):

    replay.py <real-service-root>      prints "READY <replay-service-root>", serves until killed

It copies `$metadata` and `Products(7)` from a real test server (Tests/servers/serve.py v4|v2)
once, then answers `$metadata` and every `Products(<n>)` from memory (the ID and the URLs in
the entity rewritten to <n>): keep-alive, any number of connections, one selector loop. It
answers a GET in a few microseconds, so the client, not the server, is the bottleneck, and
the client never sleeps between answers when several are in flight. What it measures is a
client's own CPU per GET with warm caches; run.py (the real servers, the target) measures it
with the client idle between answers, as an application would be against a real service.
See "A sixth look" in run.py's notes (docs/benchmarks.md) for what the two regimes showed.

    python Tests/servers/serve.py v2 &        # READY http://127.0.0.1:PORT/v2/
    taskset -c 0 python bench/python/replay.py http://127.0.0.1:PORT/v2/ &   # READY <url>
    taskset -c 1 python bench/python/get.py <url> --count 3000 --warmup 300 [--inflight 1]
    taskset -c 1 python bench/get/peers.py pyodata <url> --count 3000 --warmup 300

Only what those clients send is understood: GET request lines, no request bodies.
"""
from __future__ import annotations

import re
import selectors
import socket
import sys
import urllib.request

_KEY = re.compile(r"Products\((?:ID=)?(\d+)L?\)")


def _fetch(root: str, path: str, accept: str) -> tuple[int, list[tuple[str, str]], bytes]:
    request = urllib.request.Request(root + path, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=30) as r:
        kept = [(k, v) for k, v in r.getheaders() if k.lower() not in ("content-length", "connection", "transfer-encoding")]
        return r.status, kept, r.read()


def _message(status: int, headers: list[tuple[str, str]], body: bytes) -> bytes:
    head = f"HTTP/1.1 {status} OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
    return (head + f"Content-Length: {len(body)}\r\n\r\n").encode("latin-1") + body


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1] if sys.argv[1].endswith("/") else sys.argv[1] + "/"
    prefix = re.sub(r"^http://[^/]+", "", root)
    metadata = _message(*_fetch(root, "$metadata", "application/xml"))
    status, headers, body = _fetch(root, "Products(7)", "application/json")
    template = body.decode("utf-8")
    answers: dict[int, bytes] = {}

    def product(n: int) -> bytes:
        answer = answers.get(n)
        if answer is None:
            text = template.replace("Products(7)", f"Products({n})").replace('"ID":7,', f'"ID":{n},')
            answer = answers[n] = _message(status, headers, text.encode("utf-8"))
        return answer

    sel = selectors.DefaultSelector()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.setblocking(False)
    sel.register(listener, selectors.EVENT_READ)
    print(f"READY http://127.0.0.1:{listener.getsockname()[1]}{prefix}", flush=True)
    pending: dict[socket.socket, bytes] = {}
    while True:
        for key, _ in sel.select():
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            if sock is listener:
                conn, _ = listener.accept()
                conn.setblocking(False)
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sel.register(conn, selectors.EVENT_READ)
                pending[conn] = b""
                continue
            try:
                data = sock.recv(65536)
            except ConnectionError:
                data = b""
            if not data:
                sel.unregister(sock)
                sock.close()
                pending.pop(sock, None)
                continue
            buf = pending[sock] + data
            out = []
            while b"\r\n\r\n" in buf:
                head, buf = buf.split(b"\r\n\r\n", 1)
                target = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")[1]
                m = _KEY.search(target.replace("%28", "(").replace("%29", ")").replace("%3D", "="))
                out.append(product(int(m.group(1))) if m else metadata)
            pending[sock] = buf
            if out:
                sock.setblocking(True)  # a few hundred bytes: the send buffer takes them
                sock.sendall(b"".join(out))
                sock.setblocking(False)


if __name__ == "__main__":
    sys.exit(main())
