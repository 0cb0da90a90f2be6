#!/usr/bin/env python3
"""End-to-end tests of `-v` / `-vv` (docs/logging.md) against the real V4 service behind the
fault proxy: without the flag stderr stays quiet; -v logs the store opening, each GET with its
status and time and a retry after a 503 with its reason; -vv adds the debug lines (requests
started); basic credentials never appear; stdout keeps only the command's output.

Usage: <venv python> Tests/cli/test_cli_log.py path/to/odatastore
Prints one line per failure and "N passed, N failed"; exits 1 if anything failed.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_support import ROOT, Server, check, results  # noqa: E402
from cli_support import run as run_cli  # noqa: E402

binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ODATASTORE_CLI", os.path.join(ROOT, ".build/debug/odatastore-cli"))
os.environ["ODATASTORE_PASSWORD"] = "Cli-S3cret"

v4 = Server("serve.py", "v4")
proxy = Server("fault_proxy.py", "--upstream", v4.url)
try:
    code, out, err = run_cli(binary, "get", "Products(1)", "--service", proxy.url, "--user", "carol")
    check("get without -v", code == 0 and err == "", f"{code} {err!r}")

    proxy.control("POST", {"mode": "http503", "retry_after": "0", "match": "Products(2)"})
    code, out, err = run_cli(binary, "get", "Products(2)", "--service", proxy.url, "--user", "carol", "-v")
    check("get -v succeeds", code == 0 and json.loads(out).get("ID") == 2, f"{code} {out!r} {err!r}")
    check("-v: the store opens", "info store: store open\n" in err or "info store: store open," in err, err)
    check("-v: GET with status and time", "/Products(2) -> 200 in " in err and " ms, " in err, err)
    check("-v: the 503 and its retry", "/Products(2) -> 503 in " in err
          and "odatastore: info retry: GET " in err and "retry 1 in 0 ms after HTTP 503" in err, err)
    check("-v: no debug lines", "odatastore: debug" not in err, err)
    check("-v: no password", "Cli-S3cret" not in err and "Y2Fyb2w6Q2xpLVMzY3JldA" not in err, err)

    code, out, err = run_cli(binary, "get", "Products(1)", "--service", proxy.url, "-vv")
    check("-vv: debug lines", code == 0 and "odatastore: debug http: GET " in err and "/Products(1) started" in err, err)
    code, out, err = run_cli(binary, "get", "Products(1)", "--service", proxy.url, "--verbose")
    check("--verbose is -v", code == 0 and "odatastore: info http: " in err, err)
finally:
    proxy.stop()
    v4.stop()

passed, failed = results()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
