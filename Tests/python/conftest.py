"""Shared fixtures for the Python tests: the library path and real test servers.

Servers are the real ones from Tests/servers (odatapy for V4, pyslet for V2), started on
127.0.0.1 on a free port per test module (their writes are held in memory), following the
launcher contract in Tests/servers/README.md: one `READY <url>` line, stop on stdin EOF.
"""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def library_path():
    env = os.environ.get("ODATASTORE_LIBRARY")
    if env:
        return env
    for candidate in (ROOT / "build" / "lib" / "libodatastore.so",
                      ROOT / ".build" / "release" / "libodatastore.so",
                      ROOT / ".build" / "debug" / "libodatastore.so"):
        if candidate.exists():
            return str(candidate)
    pytest.fail("libodatastore.so not found: build it (scripts/test.sh) or set ODATASTORE_LIBRARY")


class Server:
    def __init__(self, args):
        self.proc = subprocess.Popen([sys.executable, *args], cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"test server did not start: {line!r}")
        self.url = line.split(" ", 1)[1]

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture(scope="module")
def v4_server():
    server = Server([str(ROOT / "Tests/servers/serve.py"), "v4"])
    yield server
    server.stop()


@pytest.fixture(scope="module")
def v2_server():
    server = Server([str(ROOT / "Tests/servers/serve.py"), "v2"])
    yield server
    server.stop()
