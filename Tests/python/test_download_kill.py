"""odatastore binding: a download killed at random moments (SIGKILL of the process running
it), against the real V4 (odatapy) and V2 (pyslet) servers. What offline.md promises must
hold after every kill: the file opens, `PRAGMA integrity_check` is ok, the local changes not
uploaded yet are all there and on top of whatever the download had stored, and the next
download brings the service's data.

Tests/cli/test_cli_sync.py kills local writes and uploads; this kills downloads of fresh data
(the service changed between trials through an online store), also during the first one.
"""
import json
import os
import random
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

import odatastore
from conftest import BINDING_SRC, ROOT, Server

BOUND = 60
DEFINITIONS = {"v4": ["Products", "Customers"], "v2": ["Products", "Customers"]}
BIG = "k" * 3000
TRIALS = 6

# The child opens the store (a first download when the file is new), prints "open", runs one
# more download, prints "done". The parent kills it at a random moment of either.
CHILD = textwrap.dedent("""
    import json, sys
    import odatastore
    url, path, definitions = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    store = odatastore.Store(url, store_path=path, defining_requests=definitions)
    store.wait_open(60)
    print("open", flush=True)
    store.download()
    print("done", flush=True)
    store.close()
""")


@pytest.fixture(params=["v4", "v2"])
def kind(request):
    return request.param


@pytest.fixture
def service(kind):
    server = Server([str(ROOT / "Tests/servers/serve.py"), kind])
    yield server
    server.stop()


def env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(BINDING_SRC), os.environ.get("PYTHONPATH")])))


def killed_download(url, path, kind, delay, after_open=False):
    """Runs the child and kills it `delay` seconds after it starts, or after it has opened the
    store with `after_open` (if it is still running); returns the words it printed."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, url, str(path), json.dumps(DEFINITIONS[kind])],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    words = []
    if after_open:
        line = proc.stdout.readline()  # the open, then the download alone is in the window
        words.append(line.strip())
        assert words == ["open"], (words, proc.stderr.read()[-3000:])
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.kill()
    out, err = proc.communicate(timeout=BOUND)
    assert proc.returncode in (0, -9), err[-3000:]
    return words + out.split()


def integrity(path):
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0]


def offline(url, path, kind):
    store = odatastore.Store(url, store_path=path, defining_requests=DEFINITIONS[kind])
    store.wait_open(BOUND)
    return store


def test_downloads_killed_at_random_moments_lose_no_local_change(kind, service, tmp_path):
    rng = random.Random(int(os.environ.get("ODS_TEST_SEED", "0")) or None)
    path = tmp_path / "killed.store"
    with odatastore.Store(service.url) as online:  # enough data that a download takes a while
        for i in range(400):
            online.create("Customers", {"CustomerID": "K%04d" % i, "CompanyName": BIG, "City": "Round 0"})
    # the first download, killed too: the file must open afterwards and download again
    first = killed_download(service.url, path, kind, rng.uniform(0.05, 0.6))
    if os.path.exists(path):
        assert integrity(path) == "ok"
    with offline(service.url, path, kind) as store:
        assert len(store.read("Customers?$filter=City eq 'Round 0'")) == 400, first
        store.update("Customers('ALFKI')", {"City": "Pending"})
        store.create("Customers", {"CustomerID": "LOCAL1", "CompanyName": "Local", "City": "Local"})
        store.delete("Customers('ANATR')")
        store.update("Customers('K0007')", {"City": "Pending too"})
        assert store.pending_count() == 4

    with offline(service.url, path, kind) as store:  # how long a download of a round takes here
        started = time.monotonic()
        store.download()
        took = time.monotonic() - started
    seen, deleted = [], set()
    with odatastore.Store(service.url) as online:
        for trial in range(1, TRIALS + 1):
            for i in range(0, 400, 3):  # fresh data for this trial's download
                online.update("Customers('K%04d')" % i, {"City": "Round %d" % trial})
            for i in (100 + 3 * trial + 1, 398 - 3 * trial):  # and entities it no longer has
                online.delete("Customers('K%04d')" % i)
                deleted.add("K%04d" % i)
            seen.append(killed_download(service.url, path, kind, rng.uniform(0, took), after_open=True))
            assert integrity(path) == "ok", (trial, seen)
            with offline(service.url, path, kind) as store:  # its own open downloads nothing more
                assert store.pending_count() == 4, (trial, seen)
                assert store.read("Customers('ALFKI')")["City"] == "Pending"
                assert store.read("Customers('LOCAL1')")["City"] == "Local"
                assert store.read("Customers('K0007')")["City"] == "Pending too"
                with pytest.raises(odatastore.NotFoundError):
                    store.read("Customers('ANATR')")
                cities = {e["City"] for e in store.read("Customers?$filter=startswith(CustomerID,'K')")}
                # every entity is of one round or another, whole: never a mix of two versions
                assert cities <= {"Round %d" % r for r in range(trial + 1)} | {"Pending too"}, cities
        assert ["open"] in seen, (took, seen)  # some downloads were killed midway

        with offline(service.url, path, kind) as store:
            remote = {e["CustomerID"]: e["City"] for e in online.read("Customers", all_pages=True)}
            expected = dict(remote, ALFKI="Pending", LOCAL1="Local", K0007="Pending too")
            del expected["ANATR"]
            # This download resumes the last killed one: it fetches the pages that one did
            # not write, so every entity is there and whole, those pages as of now, the
            # others as of the killed run (docs/offline.md, "Full")
            store.download()
            local = {e["CustomerID"]: e["City"] for e in store.read("Customers")}
            assert expected.keys() <= local.keys() and local.keys() - expected.keys() <= deleted
            assert {c for k, c in local.items() if k.startswith("K")} <= {"Round %d" % r for r in range(TRIALS + 1)} | {"Pending too"}
            # the next one starts over: the service's data, the local changes on top
            store.download()
            local = {e["CustomerID"]: e["City"] for e in store.read("Customers")}
            assert local == expected
            assert store.pending_count() == 4
            assert store.upload() == odatastore.UploadResult(confirmed=4, failed=0, remaining=0)
            assert online.read("Customers('ALFKI')")["City"] == "Pending"
