#!/usr/bin/env python3
"""End-to-end tests of the change commands (`odatastore create|update|delete`, online and
--mode offline) and of `odatastore offline upload|download|errors|status` against the real
test services (odatapy V4, pyslet V2), then crash trials: the CLI killed with SIGKILL at
random moments during local writes and during uploads, after which every acknowledged change
is on the service exactly once or in the error archive, and the file passes integrity_check.

Usage: <venv python> Tests/cli/test_cli_sync.py path/to/odatastore [--trials N] [--seed S]
(the venv of Tests/servers/requirements.txt: it starts the servers). --trials sets the kills
per crash scenario (default 4; scripts/crash-soak.sh runs hundreds). Prints one line per
failure, the crash summary and "N passed, N failed"; exits 1 if anything failed.
"""
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_support import Server, check, results, run, store_db  # noqa: E402

binary = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else os.environ["ODATASTORE_CLI"]
trials = int(sys.argv[sys.argv.index("--trials") + 1]) if "--trials" in sys.argv else 4
seed_value = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else int(time.time())
rng = random.Random(seed_value)
print(f"crash trials: {trials} per scenario, seed {seed_value}")


def cli(*args, timeout=120):
    return run(binary, *args, timeout=timeout)


def http_json(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


tmp = tempfile.mkdtemp(prefix="ods-cli-sync-")

# --- V4: offline changes, status, upload, the archive, download ---------------------------
v4 = Server("serve.py", "v4")
store = os.path.join(tmp, "v4.store")
code, out, err = cli("offline", "init", "--service", v4.url, "--store", store, "--define", "Products",
                     "--define", "Categories", "--quiet")
check("init", code == 0, f"{code} {err!r}")
code, out, err = cli("create", "Categories", "--data", '{"Name":"Made offline"}', "--store", store, "--mode", "offline")
created = json.loads(out or "{}")
check("offline create answers the entity with a local key", code == 0 and created.get("ID", 0) < 0
      and created.get("@odatastore.pending") is True, f"{code} {out} {err}")
code, out, err = cli("update", "Products(7)", "--data", '{"Price":"70.70"}', "--store", store, "--mode", "offline")
check("offline update", code == 0, f"{code} {out} {err}")
code, out, err = cli("delete", "Products(8)", "--store", store, "--mode", "offline")
check("offline delete prints nothing", code == 0 and out == "", f"{code} {out!r} {err}")
code, out, err = cli("get", "Products(8)", "--store", store, "--mode", "offline")
check("deleted locally reads 404", code == 15, f"{code} {err}")
code, out, err = cli("update", "Products(9)", "--data", '{"Name":"Changed offline"}', "--store", store, "--mode", "offline")
check("offline update 9", code == 0, err)
code, out, err = cli("update", "Products(9999)", "--data", '{"Name":"x"}', "--store", store, "--mode", "offline")
check("offline update of a missing entity exits 15", code == 15, f"{code} {err}")
code, out, err = cli("update", "Products(7)", "--data", "{not json", "--store", store, "--mode", "offline")
check("bad JSON refused, nothing queued", code != 0 and "json" in err.lower(), f"{code} {err}")
code, out, err = cli("create", "OrderLines", "--data", '{"OrderID":1,"LineNo":1}', "--store", store, "--mode", "offline")
check("create out of scope exits 29", code == 29, f"{code} {err}")
code, out, err = cli("create", "Categories", "--data", '{"Name":"x"}', "--mode", "offline")
check("--mode offline without --store is a usage error", code == 64, f"{code} {err}")
code, out, err = cli("offline", "status", "--store", store)
status = json.loads(out or "{}")
check("status counts pending changes", status.get("pendingChanges") == 4 and status.get("failedChanges") == 0, out)

# The service changes Products(9) meanwhile: our change of it is stale (412 on upload).
code, out, err = cli("update", "Products(9)", "--data", '{"Name":"Changed online"}', "--if-match", "*", "--service", v4.url)
check("online update", code == 0, f"{code} {err}")
code, out, err = cli("offline", "upload", "--store", store, "--quiet")
check("upload with a refused change exits 3", code == 3 and json.loads(out or "{}") == {"confirmed": 3, "failed": 1, "remaining": 0},
      f"{code} {out} {err}")
check("the service has the offline create", any(c["Name"] == "Made offline" for c in http_json(v4.url + "Categories")["value"]))
check("the service has the offline update", http_json(v4.url + "Products(7)")["Price"] in ("70.70", 70.7))
check("the service has the offline delete", http_status(v4.url + "Products(8)") == 404)
code, out, err = cli("offline", "errors", "--store", store)
archive = json.loads(out or "{}").get("value", [])
check("errors lists the refused change", len(archive) == 1 and archive[0]["HTTPStatusCode"] == 412
      and archive[0]["RequestURL"] == "Products(9)", out)
code, out, err = cli("offline", "status", "--store", store)
check("status counts the failed change", json.loads(out or "{}").get("failedChanges") == 1, out)
entry = archive[0]["ID"] if archive else "0"
code, out, err = cli("offline", "errors", "--store", store, "--retry", str(entry), "--if-match", "*")
check("retry", code == 0, f"{code} {err}")
code, out, err = cli("offline", "upload", "--store", store, "--quiet")
check("retried change uploaded", code == 0 and json.loads(out or "{}").get("confirmed") == 1, f"{code} {out} {err}")
check("the service has the retried change", http_json(v4.url + "Products(9)")["Name"] == "Changed offline")
# Revert: a stale change of 10, reverted, gives the service's version back.
cli("update", "Products(10)", "--data", '{"Name":"Ten online"}', "--if-match", "*", "--service", v4.url)
cli("update", "Products(10)", "--data", '{"Name":"Ten offline"}', "--store", store, "--mode", "offline")
cli("offline", "upload", "--store", store, "--quiet")
archive = json.loads(cli("offline", "errors", "--store", store)[1] or "{}").get("value", [])
code, out, err = cli("offline", "errors", "--store", store, "--revert", str(archive[0]["ID"] if archive else 0))
check("revert", code == 0, f"{code} {err}")
code, out, err = cli("get", "Products(10)", "--store", store, "--mode", "offline")
check("reverted to the service's version", json.loads(out or "{}").get("Name") == "Ten online", out + err)
code, out, err = cli("offline", "errors", "--store", store, "--revert", "424242")
check("revert of an unknown entry exits 15", code == 15, f"{code} {err}")
code, out, err = cli("offline", "errors", "--store", store, "--retry", "1", "--revert", "2")
check("--retry with --revert is a usage error", code == 64, f"{code} {err}")

# Download: a change and a delete made on the service arrive (a delta for Products).
cli("update", "Products(11)", "--data", '{"Name":"Eleven fresh"}', "--if-match", "*", "--service", v4.url)
cli("delete", "Products(12)", "--if-match", "*", "--service", v4.url)
code, out, err = cli("offline", "download", "--store", store, "--quiet")
check("download", code == 0 and json.loads(out or "{}").get("pendingChanges") == 0, f"{code} {out} {err}")
check("download brought the change",
      json.loads(cli("get", "Products(11)", "--store", store, "--mode", "offline")[1] or "{}").get("Name") == "Eleven fresh")
check("download brought the delete", cli("get", "Products(12)", "--store", store, "--mode", "offline")[0] == 15)
code, out, err = cli("offline", "download", "--store", store, "--add", "Customers", "--quiet")
check("download --add", code == 0 and [d["path"] for d in json.loads(out or "{}").get("definingRequests", [])]
      == ["Products", "Categories", "Customers"], out + err)
check("added request downloaded", cli("get", "Customers('O''NEIL')", "--store", store, "--mode", "offline")[0] == 0)
code, out, err = cli("offline", "download", "--store", store, "--remove", "Customers", "--quiet")
check("download --remove", code == 0 and len(json.loads(out or "{}").get("definingRequests", [])) == 2, out + err)
check("removed request's data gone", cli("get", "Customers", "--store", store, "--mode", "offline")[0] == 29)
# Online changes through the same commands.
code, out, err = cli("create", "Customers", "--data", '{"CustomerID":"CLI1","CompanyName":"Online"}', "--service", v4.url)
check("online create", code == 0 and json.loads(out or "{}").get("CustomerID") == "CLI1", f"{code} {out} {err}")
code, out, err = cli("update", "Customers('CLI1')", "--replace", "--data", '{"CustomerID":"CLI1","CompanyName":"Replaced"}',
                     "--service", v4.url)
check("online replace", code == 0 and http_json(v4.url + "Customers('CLI1')")["CompanyName"] == "Replaced", f"{code} {err}")
code, out, err = cli("delete", "Customers('CLI1')", "--service", v4.url)
check("online delete", code == 0 and http_status(v4.url + "Customers('CLI1')") == 404, f"{code} {err}")

# --- V2 (pyslet: no $batch, MERGE) ----------------------------------------------------------
v2 = Server("serve.py", "v2")
store2 = os.path.join(tmp, "v2.store")
cli("offline", "init", "--service", v2.url, "--store", store2, "--define", "Products", "--define", "Customers", "--quiet")
code, out, err = cli("create", "Customers", "--data", '{"CustomerID":"V2CLI","CompanyName":"Made offline"}',
                     "--store", store2, "--mode", "offline")
check("V2 offline create", code == 0, f"{code} {err}")
cli("update", "Products(3)", "--data", '{"Name":"Three offline"}', "--store", store2, "--mode", "offline")
cli("delete", "Products(4)", "--store", store2, "--mode", "offline")
code, out, err = cli("offline", "upload", "--store", store2, "--quiet")
check("V2 upload", code == 0 and json.loads(out or "{}") == {"confirmed": 3, "failed": 0, "remaining": 0}, f"{code} {out} {err}")
check("V2 service has the changes",
      http_json(v2.url + "Products(3)?$format=json")["d"]["Name"] == "Three offline"
      and http_status(v2.url + "Products(4)") == 404
      and http_json(v2.url + "Customers('V2CLI')?$format=json")["d"]["CompanyName"] == "Made offline")
v2.stop()

# --- Crash trials ----------------------------------------------------------------------------
# Local writes: each `create` is one process killed after a random delay. A create that
# exited 0 was acknowledged and must survive; one killed may or may not be there, but never
# half: if its row is there, its change is queued.
# The crash store talks to the service through the fault proxy, which slows uploads down so
# that kills land at every stage of a change: before it leaves, at the service, in the answer,
# while the answer is written.
proxy = Server("fault_proxy.py", "--upstream", v4.url)
crash = os.path.join(tmp, "crash.store")
cli("offline", "init", "--service", proxy.url, "--store", crash, "--define", "Categories", "--define", "Products", "--quiet")
acknowledged = []
maybe = []
for i in range(trials * 3):
    name = f"crash-{seed_value}-{i}"
    p = subprocess.Popen([binary, "create", "Categories", "--data", json.dumps({"Name": name}), "--store", crash,
                          "--mode", "offline"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        p.wait(timeout=rng.uniform(0.0, 0.25))
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        p.wait()
    (acknowledged if p.returncode == 0 else maybe).append(name)
con = store_db(crash)
check("writes: integrity_check ok after kills", con.execute("PRAGMA integrity_check").fetchone() == ("ok",))
rows = {r[0] for r in con.execute('SELECT Name FROM "e:Categories" WHERE ID < 0')}
queued = con.execute("SELECT count(*) FROM ods_queue").fetchone()[0]
check("writes: every acknowledged create is in the file", set(acknowledged) <= rows, set(acknowledged) - rows)
check("writes: every create in the file is queued", queued == len(rows), f"{queued} queued, {len(rows)} rows")
con.close()
print(f"crash trials, local writes: {len(acknowledged)} acknowledged, {len(maybe)} killed, {len(rows)} stored")

# Uploads: more changes queued, then uploads killed at random moments until one finishes.
for i in range(trials * 2):
    cli("update", f"Products({i + 20})", "--data", json.dumps({"Stock": str(1000 + i)}), "--store", crash, "--mode", "offline")
con = store_db(crash)
names = {r[0] for r in con.execute('SELECT Name FROM "e:Categories" WHERE ID < 0')}
con.close()
kills = 0
for attempt in range(trials * 4):
    proxy.control("DELETE")
    if rng.random() < 0.3:
        # The service applies one change but its answer never arrives.
        proxy.control("POST", {"mode": "reset_after", "count": 1})
    # Slow enough that a kill (after 0.02-0.8 s) lands inside the upload: a $batch carries up
    # to 100 changes, so an upload of this queue is only a few requests.
    proxy.control("POST", {"mode": "slow", "delay_ms": rng.randint(100, 400), "count": -1})
    p = subprocess.Popen([binary, "offline", "upload", "--store", crash, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        p.wait(timeout=rng.uniform(0.02, 0.8))
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        p.wait()
        kills += 1
    con = store_db(crash)
    check(f"uploads: integrity_check ok after attempt {attempt}", con.execute("PRAGMA integrity_check").fetchone() == ("ok",))
    left = con.execute("SELECT count(*) FROM ods_queue").fetchone()[0]
    con.close()
    if left == 0:
        break
proxy.control("DELETE")
code, out, err = cli("offline", "upload", "--store", crash, "--quiet")
check("uploads: the last upload finishes", code in (0, 3) and json.loads(out or "{}").get("remaining") == 0, f"{code} {out} {err}")
con = store_db(crash)
check("uploads: integrity_check ok after kills", con.execute("PRAGMA integrity_check").fetchone() == ("ok",))
check("uploads: the queue is empty", con.execute("SELECT count(*) FROM ods_queue").fetchone() == (0,))
con.close()
archive = json.loads(cli("offline", "errors", "--store", crash)[1] or "{}").get("value", [])
uncertain = {json.loads(e["RequestBody"] or "{}").get("Name") for e in archive if e["RequestMethod"] == "POST"}
on_service = {}
for c in http_json(v4.url + "Categories?$filter=startswith(Name,'crash-')")["value"]:
    on_service[c["Name"]] = on_service.get(c["Name"], 0) + 1
check("uploads: nothing created twice", all(n == 1 for n in on_service.values()), on_service)
missing = {n for n in names if n not in on_service}
check("uploads: every create is on the service or in the archive", missing <= uncertain, f"missing {missing}, archive {uncertain}")
check("uploads: the archive holds only creates whose answer was lost",
      all(e["HTTPStatusCode"] == 0 and e["RequestMethod"] == "POST" for e in archive), archive)
# What the app is told: each uncertain create says so, and where the service did make it,
# reverting the entry drops the local copy (no duplicate is ever sent).
for e in archive:
    check("uploads: an uncertain create says so", "uncertain" in e["Message"] or "answer" in e["Message"], e["Message"])
for i in range(trials * 2):
    stock = http_json(v4.url + f"Products({i + 20})")["Stock"]
    check(f"uploads: update of Products({i + 20}) applied", int(stock) == 1000 + i, stock)
print(f"crash trials, uploads: {kills} kills, {len(on_service)} creates on the service, {len(uncertain)} archived as uncertain")
proxy.stop()
v4.stop()

passed, failed = results()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
