#!/usr/bin/env python3
"""End-to-end tests of `odatastore get|create|update|delete ... --mode mixed` against the real
V4 test service (odatapy): each request answered where its data is (stderr says which side),
writes to covered sets queued in the store file, and the service stopped (covered sets answer,
the rest exits 24: service unreachable).

Usage: <venv python> Tests/cli/test_cli_mixed.py path/to/odatastore
Prints one line per failure and "N passed, N failed"; exits 1 if anything failed.
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_support import ROOT, Server, check, results  # noqa: E402
from cli_support import run as run_cli  # noqa: E402

binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ODATASTORE_CLI", os.path.join(ROOT, ".build/debug/odatastore-cli"))


def run(*args, timeout=120):
    return run_cli(binary, *args, timeout=timeout)


tmp = tempfile.mkdtemp(prefix="ods-cli-mixed-")
v4 = Server("serve.py", "v4")
store = os.path.join(tmp, "mixed.store")
# The store file is made as an offline store's (Products and Customers covered).
code, out, err = run("offline", "init", "--service", v4.url, "--store", store, "--define", "Products", "--define", "Customers")
check("init exit 0", code == 0, f"exit {code} {err!r}")
mixed = ("--service", v4.url, "--store", store, "--mode", "mixed")

code, out, err = run("get", "Products(7)", *mixed)
check("covered read from the file", code == 0 and json.loads(out).get("ID") == 7 and "source: offline" in err, f"{code} {out[:200]} {err!r}")
code, out, err = run("get", "OrderLines?$top=2", *mixed)
check("uncovered read from the service", code == 0 and len(json.loads(out)["value"]) == 2 and "source: online" in err, f"{code} {err!r}")
code, out, err = run("get", "Products(1)?$expand=Category", *mixed)
check("$expand into an uncovered set from the service", code == 0 and "Category" in json.loads(out) and "source: online" in err, f"{code} {err!r}")
code, out, err = run("update", "Products(7)", "--data", '{"Name":"Mixed seven"}', *mixed)
check("update of a covered set queued", code == 0 and "source: offline" in err, f"{code} {err!r}")
code, out, err = run("create", "Customers", "--data", '{"CustomerID":"MIXC","CompanyName":"Mixed"}', *mixed)
check("create in a covered set queued", code == 0 and json.loads(out).get("CustomerID") == "MIXC" and "source: offline" in err, f"{code} {err!r}")
code, out, err = run("delete", "Customers('MIXC')", *mixed)
check("delete in a covered set queued", code == 0 and "source: offline" in err, f"{code} {err!r}")
code, out, err = run("offline", "status", "--store", store)
check("pending change in the file", code == 0 and json.loads(out).get("pendingChanges") == 1, out + err)
code, out, err = run("get", "Products(7)", "--service", v4.url)
check("the service has not seen the queued change", code == 0 and json.loads(out)["Name"] != "Mixed seven", out)
code, out, err = run("get", "Products(7)", "--store", store, "--mode", "mixed")
check("mixed without --service (the file knows it)", code == 0 and json.loads(out)["Name"] == "Mixed seven", f"{code} {err!r}")
code, out, err = run("get", "Products", "--service", v4.url, "--mode", "mixed")
check("--mode mixed needs --store", code != 0 and "--store" in err, f"{code} {err!r}")

v4.stop()
code, out, err = run("get", "Customers('ALFKI')", *mixed)
check("service stopped: covered set answers", code == 0 and json.loads(out).get("CustomerID") == "ALFKI" and "source: offline" in err, f"{code} {err!r}")
code, out, err = run("get", "OrderLines", *mixed)
check("service stopped: uncovered set exits 24", code == 24 and out == "", f"{code} {err!r}")

passed, failed = results()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
