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


# --- Fixtures of the odatastore binding tests (bindings/python) -------------------------------

BINDING_SRC = ROOT / "bindings" / "python" / "src"
if str(BINDING_SRC) not in sys.path:  # scripts/test.sh sets PYTHONPATH; this covers a bare pytest
    sys.path.insert(0, str(BINDING_SRC))
if not os.environ.get("ODATASTORE_LIBRARY"):  # the binding finds the library the same way
    for _candidate in (ROOT / "build" / "lib" / "libodatastore.so", ROOT / ".build" / "release" / "libodatastore.so"):
        if _candidate.exists():
            os.environ["ODATASTORE_LIBRARY"] = str(_candidate)
            break
sys.path.insert(0, str(ROOT / "Tests" / "servers"))  # seed.py: the expected data


class Proxy(Server):
    """Tests/servers/fault_proxy.py in front of a real server; faults set through /__fault."""

    def __init__(self, upstream):
        super().__init__([str(ROOT / "Tests/servers/fault_proxy.py"), "--upstream", upstream])
        base = self.url.split("/", 3)
        self.control = f"{base[0]}//{base[2]}/__fault"

    def fault(self, **rule):
        import json
        import urllib.request
        body = json.dumps(rule).encode()
        req = urllib.request.Request(self.control, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def clear(self):
        import urllib.request
        with urllib.request.urlopen(urllib.request.Request(self.control, method="DELETE"), timeout=10) as r:
            r.read()


@pytest.fixture(scope="module")
def v4_proxy(v4_server):
    proxy = Proxy(v4_server.url)
    yield proxy
    proxy.stop()


@pytest.fixture(params=["v4", "v2"])
def server(request):
    """Either real server (module-scoped underneath), for tests that run against both."""
    return request.getfixturevalue(f"{request.param}_server")


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
