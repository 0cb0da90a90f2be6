#!/usr/bin/env python3
"""End-to-end tests of `odatastore parse` (the odatastore-cli executable).

Usage: python3 Tests/cli/test_cli.py [path/to/odatastore-cli]
The binary defaults to $ODATASTORE_CLI, else .build/debug/odatastore-cli (run
`swift build --product odatastore-cli` first). Prints one line per failure and a closing
"N passed, N failed" line; exits 1 if anything failed.
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
FLIGHT = os.path.join(FIXTURES, "SAP/openui5/src/sap.ui.core/test/sap/ui/core/qunit/mockserver/testdata/rmtsampleflight/metadata.xml")
TRIPPIN = os.path.join(FIXTURES, "oasis-tcs/odata-openapi/examples/TripPin.xml")
GWSAMPLE = os.path.join(FIXTURES, "gregorwolf/bookshop-demo/srv/external/GWSAMPLE_BASIC/GWSAMPLE_BASIC.edmx")
NORTHWIND = os.path.join(FIXTURES, "oasis-tcs/odata-openapi/examples/Northwind.xml")

binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("ODATASTORE_CLI", os.path.join(ROOT, ".build/debug/odatastore-cli"))
passed = 0
failed = 0


def run(*args):
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")


def parse_ok(name, *args):
    code, out, err = run("parse", *args)
    check(name + " exit 0", code == 0, f"exit {code}, stderr {err!r}")
    try:
        return json.loads(out)
    except ValueError as e:
        check(name + " JSON", False, f"{e}: {out!r}")
        return {}


def parse_error(name, args, code, message, position):
    c, out, err = run("parse", *args)
    check(name + f" exit {code}", c == code, f"exit {c}, stdout {out!r}, stderr {err!r}")
    check(name + " stdout empty", out == "", repr(out))
    lines = err.splitlines()
    expected = f"error: {message} at position {position}"
    check(name + " message", lines[:1] == [expected], f"{lines[:1]!r} != {expected!r}")
    if len(lines) >= 3:
        url = args[0]
        check(name + " URL line", lines[1] == "  " + url, repr(lines[1]))
        check(name + " caret", lines[2] == "  " + " " * position + "^", repr(lines[2]))
    else:
        check(name + " caret lines", False, repr(err))


# --help, --version, usage errors
code, out, _ = run("--help")
check("--help exit 0", code == 0 and "USAGE: odatastore <subcommand>" in out and "parse" in out and "offline" in out, out)
for sub in ["parse", "get", "create", "update", "delete", "call", "metadata", "offline", "offline init", "offline status",
            "offline upload", "offline download", "offline errors"]:
    code, out, _ = run(*sub.split(), "--help")
    check(f"{sub} --help has an example", code == 0 and "Example" in out, out)
    check(f"{sub} --help has no stray line-continuation backslashes",
          not any(line.rstrip().endswith("\\") for line in out.splitlines()), out)
code, out, _ = run()
check("no command prints help", code == 0 and "SUBCOMMANDS" in out, out)
code, out, _ = run("--version")
check("--version", code == 0 and out.startswith("odatastore "), out)
for args in [["parse"], ["frobnicate"], ["parse", "A", "B"], ["parse", "A", "--odata-version", "3"], ["parse", "A", "--metadata"],
             ["parse", "A", "--bogus"], ["get"], ["get", "Products", "--mode", "offline", "--service", "http://x/"],
             ["get", "Products", "--mode", "sideways"], ["offline", "init", "--store", "x.store"]]:
    code, out, err = run(*args)
    check(f"usage error {args}", code == 64 and out == "" and "usage:" in err.lower(), f"exit {code} {err!r}")
# Library failures exit with 10 + the status number, the message on stderr.
code, out, err = run("get", "Products", "--service", "http://127.0.0.1:9/odata/", "--timeout", "5")
check("unreachable service exits 24 (ODS_EOFFLINE)", code == 24 and out == "" and err.startswith("error: "), f"exit {code} {err!r}")
code, out, err = run("get", "Products", "--service", "http://[::1/odata/")
check("malformed service root exits 12 (ODS_EINVAL), named", code == 12 and out == "" and "IP literal" in err, f"exit {code} {err!r}")
code, out, err = run("get", "Products", "--store", "/nonexistent/x.store", "--mode", "offline")
check("missing store exits 15 (ODS_ENOTFOUND)", code == 15 and "no offline store" in err, f"exit {code} {err!r}")
code, _, err = run("parse", "A", "--metadata", "/nonexistent/metadata.xml")
check("unreadable metadata exits 66", code == 66 and "cannot read" in err, err)
# A device that never ends and a FIFO nobody writes are refused before they are read.
code, _, err = run("parse", "A", "--metadata", "/dev/zero")
check("/dev/zero metadata exits 66", code == 66 and "not a regular file" in err, err)
fifo = f"/tmp/ods_cli_fifo_{os.getpid()}"
if os.path.exists(fifo):
    os.unlink(fifo)
os.mkfifo(fifo)
try:
    code, _, err = run("parse", "A", "--metadata", fifo)
    check("FIFO metadata exits 66", code == 66 and "not a regular file" in err, err)
finally:
    os.unlink(fifo)
# A password in a URL is never printed, neither in the message nor in the URL line.
code, _, err = run("parse", "http://me:s3cr3t@host/svc/Products(", "--service-root", "http://me:s3cr3t@host/svc/")
check("password hidden", code == 2 and "s3cr3t" not in err and "me:******@host" in err, err)
code, _, err = run("parse", "http://me:s3cr3t@other/svc/Products", "--service-root", "http://me:s3cr3t@host/svc/")
check("password hidden (root)", code == 2 and "s3cr3t" not in err, err)
# Wide characters take two columns: the caret still points at the problem.
code, _, err = run("parse", "Customers('\u65e5\u672c')x", "--odata-version", "4")
lines = err.splitlines()
check("wide caret", code == 2 and len(lines) >= 3 and lines[2] == "  " + " " * 17 + "^", repr(err))  # 13 narrow + 2 wide

# The seeds' examples, syntactic (V2).
j = parse_ok("seed filter", "TravelagencyCollection?$filter=city eq 'Rome'", "--odata-version", "2")
check("seed canonical", j.get("canonical") == "TravelagencyCollection?$filter=city%20eq%20'Rome'", j)
check("seed tree", j.get("query", {}).get("$filter", {}).get("op") == "eq", j)
check("seed right literal", j["query"]["$filter"]["right"] == {"literal": "string", "value": "Rome", "position": 39}, j)
check("seed unchecked", j.get("checked") is False and j["path"][0]["kind"] == "unresolved", j)
j = parse_ok("seed datetime", "/FlightCollection?$filter=fldate gt datetime'2013-09-16T00:00'", "--odata-version", "2")
check("datetime literal", j["query"]["$filter"]["right"]["literal"] == "datetime", j)

# $batch request lines (Olingo V2) with a service root.
j = parse_ok("absolute", "http://localhost/odata/Employees('2')/EmployeeName?$format=json", "--service-root", "http://localhost:80/odata/")
check("absolute path", [s["name"] for s in j["path"]] == ["Employees", "EmployeeName"], j)
check("absolute key", j["path"][0]["arguments"] == [{"value": {"literal": "string", "value": "2"}}], j)
check("absolute format", j["query"].get("$format") == "json", j)

# Checked against real metadata.
j = parse_ok("flight checked", "FlightCollection(carrid='AA',connid='0017',fldate=datetime'2013-09-16T00:00:00')/flightBookings?$top=5", "--metadata", FLIGHT)
check("flight kinds", [s["kind"] for s in j["path"]] == ["entitySet", "navigation"] and j["checked"] is True, j)
check("flight version", j["version"] == "2.0", j)
j = parse_ok("function import", "GetAvailableFlights?fromdate=datetime'2013-01-01T00:00:00'&todate=datetime'2013-12-31T00:00:00'&cityfrom='FRANKFURT'&cityto='NEW YORK'", "--metadata", FLIGHT)
check("function import params", [a["name"] for a in j["path"][0]["arguments"]] == ["fromdate", "todate", "cityfrom", "cityto"], j)
j = parse_ok("trippin", "People?$filter=Emails/any(e:endswith(e,'example.com'))&$expand=Trips($select=Name;$top=2)&$count=true", "--metadata", TRIPPIN)
f = j["query"]["$filter"]
check("lambda", f["lambda"]["kind"] == "any" and f["lambda"]["variable"] == "e" and f["type"] == "Edm.Boolean", f)
check("expand nested", j["query"]["$expand"][0]["options"]["$top"] == 2, j)
check("count", j["query"]["$count"] is True, j)
parse_ok("gwsample", "SalesOrderSet('0500000001')/ToLineItems?$filter=GrossAmount gt 100.5M", "--metadata", GWSAMPLE)
parse_ok("northwind", "Products?$filter=Category/CategoryName eq 'Beverages'&$orderby=ProductName desc", "--metadata", NORTHWIND)

# Errors: message, position, caret, exit 2.
parse_error("unbalanced", ["Products?$filter=(Price gt 5", "--odata-version", "4"], 2, "expected ')', found end of input", 28)
parse_error("bad escape", ["Products('%ZZ')", "--odata-version", "4"], 2, "malformed percent-encoding (expected two hex digits after '%')", 10)
parse_error("type error", ["FlightCollection?$filter=fldate gt 'x'", "--metadata", FLIGHT], 2, "cannot compare Edm.DateTime with Edm.String using 'gt'", 35)
parse_error("compound key", ["FlightCollection(carrid='AA',connid='0017')", "--metadata", FLIGHT], 2,
            "key of RMTSAMPLEFLIGHT.Flight is (carrid,connid,fldate), found (carrid,connid)", 0)
parse_error("v4 syntax in v2", ["Products?$filter=contains(Name,'x')", "--odata-version", "2"], 2, "unknown function 'contains'", 17)
parse_error("deep nesting", ["Products?$filter=" + "(" * 10000, "--odata-version", "4"], 2, "expression nested too deeply (limit 100)", 117)
parse_error("not under root", ["http://other/svc/Products", "--service-root", "http://host/svc/"], 2,
            "URL host does not match the service root http://host/svc/", 0)
# '+' is a literal plus unless asked otherwise.
code, _, err = run("parse", "Products?$filter=Name+eq+'x'", "--odata-version", "4")
check("plus literal rejected", code == 2, err)
j = parse_ok("plus as space", "Products?$filter=Name+eq+'x'", "--odata-version", "4", "--plus-as-space")
check("plus as space tree", j["query"]["$filter"]["op"] == "eq", j)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
