"""The launcher contract shared by serve.py and fault_proxy.py.

1. The server binds 127.0.0.1 (port 0 = a free port chosen by the kernel).
2. When it is listening it prints exactly one line ``READY <service-root-url>`` on stdout
   (flushed). Nothing else is ever written to stdout; logs go to stderr.
3. It runs until SIGTERM or SIGINT, or until its stdin reaches EOF. A test holds the write
   end of the server's stdin pipe: when the test process dies, the pipe closes and the
   server stops by itself, so a crashed test never leaves a server behind.
   (`--ignore-stdin` turns the stdin watch off for manual runs with stdin at /dev/null.)
4. It exits with status 0 on a clean stop.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Callable


def add_common_arguments(parser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1; tests never use anything else)")
    parser.add_argument("--port", type=int, default=0, help="port to bind; 0 picks a free one")
    parser.add_argument("--ignore-stdin", action="store_true",
                        help="do not stop when stdin reaches EOF (for manual runs)")


def run_until_stopped(ready_url: str, stop: Callable[[], None], *, watch_stdin: bool = True) -> None:
    """Announce READY, block until a stop condition, call ``stop`` and exit with status 0.

    ``stop`` should close the listening sockets and release resources; it runs on the main
    thread. The process then ends with ``os._exit(0)`` so that worker threads blocked in
    socket calls cannot keep it alive.
    """
    stopping = threading.Event()
    # The signal handler only sets a flag. It runs on the main thread between two bytecodes,
    # possibly while that thread holds `stopping`'s internal lock inside `wait()` (a plain,
    # non-reentrant Lock): `stopping.set()` there would deadlock the server on SIGTERM.
    signalled = False

    def on_signal(signum, frame):  # noqa: ARG001 - signal handler signature
        nonlocal signalled
        signalled = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    if watch_stdin:
        def watch() -> None:
            try:
                while True:
                    chunk = os.read(sys.stdin.fileno(), 4096)
                    if not chunk:
                        break
            except OSError:
                pass
            stopping.set()

        threading.Thread(target=watch, name="stdin-watch", daemon=True).start()

    sys.stdout.write(f"READY {ready_url}\n")
    sys.stdout.flush()

    # Event.wait with a timeout keeps the main thread responsive to signals (checked each 0.1 s).
    while not signalled and not stopping.wait(0.1):
        pass
    try:
        stop()
    except Exception as exc:  # noqa: BLE001 - a failing cleanup must not change the exit code
        print(f"stop: {exc!r}", file=sys.stderr)
    sys.stderr.flush()
    os._exit(0)
