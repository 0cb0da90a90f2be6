#!/usr/bin/env python3
"""End-to-end tests of `odatastore call` and `odatastore metadata` against the real test
services: V4 (odatapy) and V2 (pyslet, and the flight service RMTSAMPLEFLIGHT): function
imports with parameters in each version's syntax, an action with a JSON body, a bad call's
exit status; the $metadata summary from the service, from an offline store without the
network, and from a file, as JSON and as tables; usage errors.

Usage: <venv python> Tests/cli/test_cli_service.py path/to/odatastore
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


def as_json(text):
    try:
        return json.loads(text)
    except ValueError:
        return {}


tmp = tempfile.mkdtemp(prefix="ods-cli-service-")

# --- V4 (odatapy) ------------------------------------------------------------------------
v4 = Server("serve.py", "v4")
code, out, err = run("call", "TotalStock()", "--service", v4.url)
check("V4 function import", code == 0 and isinstance(as_json(out).get("value"), (int, str)), f"{code} {out!r} {err!r}")
code, out, err = run("call", "ProductsByRating(rating=3)", "--service", v4.url)
rows = as_json(out).get("value", [])
check("V4 function with a parameter returns entities", code == 0 and rows and all(r.get("Rating") == 3 for r in rows),
      f"{code} {out[:200]!r} {err!r}")
code, out, err = run("call", "ProductsByRating(rating=3)", "--service", v4.url, "--output", "table")
check("V4 function as a table", code == 0 and out.splitlines()[0].split()[:1] == ["ID"] and "row" in out.splitlines()[-1],
      out[:300])
code, out, err = run("call", "NoSuchFunction()", "--service", v4.url)
check("unknown function fails with a status", code not in (0, 64) and out == "" and err.startswith("error: "),
      f"{code} {err!r}")

code, out, err = run("metadata", "--service", v4.url)
m = as_json(out)
sets = {s["name"]: s for s in m.get("entitySets", [])}
check("V4 metadata version", code == 0 and m.get("odataVersion") == "4.0", f"{code} {err!r}")
check("V4 metadata sets and keys", sets.get("Products", {}).get("key") == ["ID"]
      and sets.get("OrderLines", {}).get("key") == ["OrderID", "LineNo"], sets.keys())
check("V4 metadata properties typed", {"name": "ID", "type": "Edm.Int32"} in sets.get("Products", {}).get("properties", [])
      or any(p["name"] == "ID" and p["type"].startswith("Edm.") for p in sets.get("Products", {}).get("properties", [])),
      sets.get("Products"))
check("V4 metadata navigation", any(n["name"] == "Category" and n["collection"] is False
                                    for n in sets.get("Products", {}).get("navigation", [])), sets.get("Products"))
ops = {o["name"]: o for o in m.get("operations", [])}
check("V4 metadata operations", ops.get("ProductsByRating", {}).get("parameters", [{}])[0].get("name") == "rating"
      and ops["ProductsByRating"]["kind"] == "function", ops)

# An offline store answers from its file, with the service gone.
store = os.path.join(tmp, "v4.store")
code, out, err = run("offline", "init", "--service", v4.url, "--store", store, "--define", "Categories")
check("offline init", code == 0, f"{code} {err!r}")
code, out, err = run("get", "$metadata", "--service", v4.url)
check("get $metadata prints the document as received", code == 0 and out.startswith("<?xml") and "edmx:Edmx" in out
      and 'Name="Products"' in out, f"{code} {out[:100]!r} {err!r}")
v4.stop()
code, out, err = run("get", "$metadata", "--store", store, "--mode", "offline")
check("get $metadata from a store file without the network", code == 0 and "edmx:Edmx" in out, f"{code} {err!r}")
code, out, err = run("metadata", "--store", store)
check("metadata from a store file without the network", code == 0 and as_json(out).get("odataVersion") == "4.0"
      and any(s["name"] == "Products" for s in as_json(out).get("entitySets", [])), f"{code} {err!r}")
code, out, err = run("metadata", "--service", v4.url)
check("metadata of a stopped service exits 24", code == 24 and out == "", f"{code} {err!r}")

# --- V2 (pyslet) -------------------------------------------------------------------------
v2 = Server("serve.py", "v2")
code, out, err = run("call", "ProductsByRating?rating=3", "--service", v2.url)
rows = as_json(out).get("value", [])
check("V2 function import (query-string parameters)", code == 0 and rows and all(r.get("Rating") == 3 for r in rows),
      f"{code} {out[:200]!r} {err!r}")
code, out, err = run("metadata", "--service", v2.url, "--output", "table")
check("V2 metadata tables", code == 0 and out.startswith("Entity sets:") and "Operation imports:" in out
      and "ProductsByRating" in out and "functionImport" in out, out[:400])
v2.stop()

flight = Server("serve.py", "v2flight")
code, out, err = run("call", "GetAvailableFlights?fromdate=datetime'2026-06-01T00:00:00'&todate=datetime'2026-06-14T00:00:00'"
                     "&cityfrom='Frankfurt'&cityto='New York'", "--service", flight.url)
check("flight function import", code == 0 and len(as_json(out).get("value", [])) == 4, f"{code} {out[:200]!r} {err!r}")
# A property read is typed by the property's declaration, as the same value inside an entity:
# the service sends Edm.Time as "PT10H10M00S" (V2 JSON), the library's shape is "10:10:00".
flight_key = "FlightCollection(carrid='LH',connid='0400',fldate=datetime'2026-06-01T00:00:00')"
code, out, err = run("get", flight_key + "/flightDetails/departureTime", "--service", flight.url)
check("V2 Edm.Time property read", code == 0 and as_json(out) == {"value": "10:10:00"}, f"{code} {out[:200]!r} {err!r}")
code, out, err = run("get", flight_key + "/flightDetails", "--service", flight.url)
check("V2 complex property read typed", code == 0 and as_json(out).get("value", {}).get("arrivalTime") == "11:34:00",
      f"{code} {out[:300]!r} {err!r}")
flight.stop()

# --- a file, usage ---------------------------------------------------------------------------
code, out, err = run("metadata", "--metadata", os.path.join(ROOT, "Tests/servers/v2_metadata.xml"))
check("metadata from a file", code == 0 and as_json(out).get("odataVersion") == "2.0", f"{code} {err!r}")
code, out, err = run("metadata", "--metadata", os.path.join(tmp, "missing.xml"))
check("missing metadata file exits 66", code == 66, f"{code} {err!r}")
bad = os.path.join(tmp, "bad.xml")
with open(bad, "w") as f:
    f.write("<not-edmx/>")
code, out, err = run("metadata", "--metadata", bad)
check("bad metadata exits 2", code == 2 and out == "", f"{code} {err!r}")
code, out, err = run("metadata")
check("metadata without a source is a usage error", code == 64 and "--service" in err, f"{code} {err!r}")
code, out, err = run("call")
check("call without a path is a usage error", code == 64, f"{code} {err!r}")

passed, failed = results()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
