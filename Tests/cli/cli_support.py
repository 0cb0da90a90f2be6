"""What the CLI end-to-end tests share: test servers and the fault proxy (the launcher
contract of Tests/servers/README.md), running the CLI, checks and the store file through
Python's sqlite3 with the store's collations."""
import json
import os
import sqlite3
import subprocess
import sys
import urllib.request
from decimal import Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_passed = 0
_failed = 0


def check(name, condition, detail=""):
    global _passed, _failed
    if condition:
        _passed += 1
    else:
        _failed += 1
        print(f"FAIL {name}: {detail}")


def results():
    """(passed, failed) so far."""
    return _passed, _failed


class Server:
    """A test server or fault proxy, started from Tests/servers; stopped by stop()."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, *args], cwd=os.path.join(ROOT, "Tests", "servers"),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"server did not start: {line!r}")
        self.url = line.split(" ", 1)[1]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                # A server that ignores SIGTERM must not hold the test's output pipe open
                # until ctest's timeout; said on stderr, the checks decide the result.
                print(f"note: {self.proc.args} did not stop in 20 s; killed", file=sys.stderr)
                self.proc.kill()
                self.proc.wait(timeout=20)

    def control(self, method, body=None):
        origin = "/".join(self.url.split("/")[:3])
        req = urllib.request.Request(origin + "/__fault", data=json.dumps(body).encode() if body else None, method=method)
        if body:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())


def run(binary, *args, timeout=120):
    """Runs the CLI; (exit status, stdout, stderr)."""
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def store_db(path):
    """The store file through Python's sqlite3, with the store's collations (for integrity_check)."""
    con = sqlite3.connect(path)

    def decimal_cmp(a, b):
        try:
            x, y = Decimal(a), Decimal(b)
            return (x > y) - (x < y)
        except Exception:  # noqa: BLE001 - text that is not a number sorts as text
            return (a > b) - (a < b)
    con.create_collation("ODS_DECIMAL", decimal_cmp)
    con.create_collation("ODS_INSTANT", lambda a, b: (a > b) - (a < b))
    con.create_collation("ODS_DURATION", lambda a, b: (a > b) - (a < b))
    con.create_collation("ODS_TIMEOFDAY", lambda a, b: (a > b) - (a < b))
    return con
