"""odatastore binding: an offline store whose file cannot grow (a full disk), against the real
V4 (odatapy) and V2 (pyslet) servers. What offline.md promises must hold when the disk fills:
a change the app was told about is durable and reaches the service once; a write or download
that could not be stored fails with an error the app can act on and leaves nothing half done;
the store works again once there is room.

The full disk is real I/O failing: a child process lowers its own RLIMIT_FSIZE (SIGXFSZ
ignored), so every write() that would take a file of the store past the limit fails with
EFBIG inside SQLite, as ENOSPC would on a full device (SQLite reports one as SQLITE_IOERR_WRITE
and the other as SQLITE_FULL; the library names both file errors). The parent then opens the
same file without the limit and checks what is in it, and what an upload brings the service.
"""
import json
import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

import odatastore
from conftest import BINDING_SRC, ROOT, Server

BOUND = 60  # seconds: every wait is bounded
DEFINITIONS = {"v4": ["Products", "Customers"], "v2": ["Products", "Customers"]}
BIG = "x" * 4000  # one create adds about a page to the file and its log

# The child: opens the store (downloading it when new), then lowers RLIMIT_FSIZE to the size
# of the store's write-ahead log now plus SLACK bytes, then does ACTION and prints one JSON
# line. The log can then grow by SLACK bytes; no file can be written past that offset, so a
# database file already larger cannot grow, nor take a checkpoint of its far pages (what is
# committed stays in the log, as SQLite allows). "first-download" sets SLACK before opening.
CHILD = textwrap.dedent("""
    import json, os, resource, signal, sys
    import odatastore
    url, path, kind, action, slack = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    definitions = json.loads(sys.argv[6])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() fails with EFBIG instead

    def log_size():
        return os.path.getsize(path + "-wal") if os.path.exists(path + "-wal") else 0

    def err(e):
        return {"type": type(e).__name__, "code": e.code_name, "message": str(e)}

    out = {}
    if action == "first-download":  # the limit before the store exists
        resource.setrlimit(resource.RLIMIT_FSIZE, (slack, resource.RLIM_INFINITY))
    store = odatastore.Store(url, store_path=path, defining_requests=definitions)
    try:
        store.wait_open(60)
    except odatastore.Error as e:
        out["open"] = err(e)
        print(json.dumps(out)); sys.exit(0)
    with store:
        if action != "first-download":
            resource.setrlimit(resource.RLIMIT_FSIZE, (log_size() + slack, resource.RLIM_INFINITY))
        if action == "writes":
            acked, failed = [], None
            for i in range(5000):
                key = "DF%04d" % i
                try:
                    store.create("Customers", {"CustomerID": key, "CompanyName": "x" * 4000, "City": "Full"})
                    acked.append(key)
                except odatastore.Error as e:
                    failed = dict(err(e), key=key)
                    break
            out["acked"], out["failed"] = acked, failed
            out["pending"] = store.pending_count()
            out["read_after"] = store.read("Customers('%s')" % acked[-1])["CustomerID"] if acked else None
            out["count_after"] = len(store.read("Customers?$filter=City eq 'Full'"))
            try:  # one more write: fails again, or fits in what the failed one gave back
                store.create("Customers", {"CustomerID": "DFLAST", "CompanyName": "small", "City": "Full"})
                out["last"] = "ok"
            except odatastore.Error as e:
                out["last"] = err(e)
        elif action == "download":
            before = len(store.read("Customers"))
            try:
                store.download()
                out["download"] = "ok"
            except odatastore.Error as e:
                out["download"] = err(e)
            out["before"], out["after"] = before, len(store.read("Customers"))
        elif action == "upload":
            pending = store.pending_count()
            try:
                r = store.upload()
                out["upload"] = [r.confirmed, r.failed, r.remaining]
            except odatastore.Error as e:
                out["upload"] = err(e)
            out["before"], out["after"] = pending, store.pending_count()
    out["closed"] = True
    print(json.dumps(out))
""")


@pytest.fixture(params=["v4", "v2"])
def kind(request):
    return request.param


@pytest.fixture
def service(kind):
    server = Server([str(ROOT / "Tests/servers/serve.py"), kind])
    yield server
    server.stop()


def child(url, path, kind, action, slack):
    proc = subprocess.run([sys.executable, "-c", CHILD, url, str(path), kind, action, str(slack),
                           json.dumps(DEFINITIONS[kind])], capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(BINDING_SRC), os.environ.get("PYTHONPATH")]))))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def integrity(path):
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0]


def offline(url, path, kind):
    store = odatastore.Store(url, store_path=path, defining_requests=DEFINITIONS[kind])
    store.wait_open(BOUND)
    return store


def assert_file_error(failure):
    """The failure names the file, not the request: ODS_EIO (what SQLite's SQLITE_FULL and
    SQLITE_IOERR map to) with the system's reason (EFBIG here, ENOSPC on a full device),
    never a crash, a hang or a success."""
    assert failure is not None and failure != "ok", failure
    assert failure["code"] == "ODS_EIO" and failure["type"] == "IOFailureError", failure
    assert "File too large" in failure["message"], failure


def test_local_writes_into_a_full_disk_lose_nothing_acknowledged(kind, service, tmp_path):
    path = tmp_path / "full.store"
    with offline(service.url, path, kind):
        pass  # the first download, with room
    got = child(service.url, path, kind, "writes", 256 * 1024)
    acked = got["acked"]
    assert len(acked) >= 3, got  # some fitted before the disk filled
    assert_file_error(got["failed"])
    # in the child, after the failure: the store still answers, and only what was acknowledged is there
    assert got["pending"] == len(acked) and got["read_after"] == acked[-1]
    assert got["count_after"] == len(acked) and got["closed"]
    assert integrity(path) == "ok"

    with offline(service.url, path, kind) as store, odatastore.Store(service.url) as online:
        last = 1 if got["last"] == "ok" else 0
        if last == 0:
            assert_file_error(got["last"])
        assert store.pending_count() == len(acked) + last
        local = {e["CustomerID"] for e in store.read("Customers?$filter=City eq 'Full'")}
        assert local == set(acked) | ({"DFLAST"} if last else set())
        assert got["failed"]["key"] not in local  # the failed create left nothing behind
        assert all(e.pending_state == odatastore.EntityState.PENDING
                   for e in store.read("Customers?$filter=City eq 'Full'"))
        result = store.upload()
        assert result == odatastore.UploadResult(confirmed=len(acked) + last, failed=0, remaining=0)
        remote = online.read("Customers?$filter=City eq 'Full'")
        assert sorted(e["CustomerID"] for e in remote) == sorted(local)  # each exactly once
        assert all(e["CompanyName"] == BIG for e in remote if e["CustomerID"] != "DFLAST")
        # with room again, the store writes as before
        store.create("Customers", {"CustomerID": "DFROOM", "CompanyName": "room", "City": "Room"})
        assert store.pending_count() == 1


def test_a_download_into_a_full_disk_keeps_the_old_data(kind, service, tmp_path):
    path = tmp_path / "full.store"
    with offline(service.url, path, kind) as store:
        before = len(store.read("Customers"))
    with odatastore.Store(service.url) as online:  # fresh data the store does not have: about 2.4 MB
        for i in range(600):
            online.create("Customers", {"CustomerID": "NEW%04d" % i, "CompanyName": BIG, "City": "New"})
    got = child(service.url, path, kind, "download", 128 * 1024)
    assert_file_error(got["download"])
    assert got["before"] == before and got["after"] == before, got  # the old data, all of it
    assert got["closed"] and integrity(path) == "ok"
    with offline(service.url, path, kind) as store:
        assert len(store.read("Customers")) == before
        store.download()  # with room, the same download succeeds
        rows = store.read("Customers?$filter=City eq 'New'")
        assert len(rows) == 600 and all(e["CompanyName"] == BIG for e in rows)
        assert len(store.read("Customers")) == before + 600


def test_a_first_download_into_a_full_disk_fails_and_can_be_done_again(kind, service, tmp_path):
    path = tmp_path / "first.store"
    with odatastore.Store(service.url) as online:  # enough data that the first download needs room
        for i in range(300):
            online.create("Customers", {"CustomerID": "BIG%04d" % i, "CompanyName": BIG, "City": "Big"})
    got = child(service.url, path, kind, "first-download", 256 * 1024)
    assert_file_error(got.get("open"))
    with offline(service.url, path, kind) as store:  # the file left behind opens, and downloads
        rows = store.read("Customers?$filter=City eq 'Big'")
        assert len(rows) == 300 and all(e["CompanyName"] == BIG for e in rows)
        assert store.pending_count() == 0


def test_an_upload_into_a_full_disk_sends_each_change_once(kind, service, tmp_path):
    path = tmp_path / "up.store"
    keys = ["UP%03d" % i for i in range(40)]
    with offline(service.url, path, kind) as store:
        for key in keys:
            store.create("Customers", {"CustomerID": key, "CompanyName": BIG, "City": "Up"})
        assert store.pending_count() == len(keys)
    # Each change the service confirms is a commit: the file can take a few of them
    got = child(service.url, path, kind, "upload", 48 * 1024)
    assert_file_error(got["upload"])
    assert got["before"] == len(keys) and 0 < got["after"] <= len(keys), got
    assert got["closed"] and integrity(path) == "ok"
    with offline(service.url, path, kind) as store, odatastore.Store(service.url) as online:
        # with room, the rest goes; what the service applied but the file could not record is
        # sent again with the same key, refused as existing, read back and counted as done
        result = store.upload()
        assert result.failed == 0 and result.remaining == 0, (result, store.error_archive(), got)
        assert store.pending_count() == 0 and store.error_archive() == []
        remote = online.read("Customers?$filter=City eq 'Up'")
        assert sorted(e["CustomerID"] for e in remote) == keys  # each exactly once
        assert all(e.pending_state == odatastore.EntityState.CLEAN for e in store.read("Customers?$filter=City eq 'Up'"))
