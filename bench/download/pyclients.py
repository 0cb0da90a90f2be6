#!/usr/bin/env python3
"""Python clients of the first-download benchmark (issue 7): the same download as
`odatastore offline init --define Products`, into an SQLite file with Python's sqlite3.

    pyclients.py lean         <service-root> --store FILE [--v2] [--page-size N] [--expect N]
    pyclients.py python-odata <v4-service-root> --store FILE [--expect N]
    pyclients.py pyodata      <v2-service-root> --store FILE [--expect N]

- lean: the leanest hand-written client. urllib.request GETs `Products` and follows the next
  links (V4 `@odata.nextLink`, V2 `__next`, which pyslet writes as {"uri": ...}), with the
  headers libodatastore sends (V4: minimal metadata, IEEE754Compatible, `Prefer:
  odata.maxpagesize=N`; V2: `Accept: application/json`); `json.loads` on each page; each page's
  rows inserted with one `executemany` into an untyped table (the page's own property names
  as columns, the key as primary key, the ETag in a column; nested objects such as V2's
  `__deferred` links are dropped), the next link kept in a sync table, one transaction per
  page, WAL like the store. No typing, no checks: the floor for a Python client.
- python-odata (V4): `ODataService(url, reflect_entities=True)` reads $metadata, then
  `service.query(Product)` iterates the entity objects across the server's pages (it follows
  `@odata.nextLink` itself; it cannot ask for a page size, so the server's --page-size
  applies); each entity's properties are read as typed values (Decimal, datetime, ...) and
  stored as SQLite values (Decimal and dates as text), one transaction per 10,000 rows.
- pyodata (V2): `pyodata.Client(url, requests.Session())` reads $metadata, then
  `entity_sets.Products.get_entities().execute()` and `.next_url(...)` page by page; typed
  values as above, one transaction per page.

Prints one JSON line: entities, pages, wall time and the process's CPU (getrusage
RUSAGE_SELF, user + sys) from before the client is created ($metadata included) to the
last commit, and the process's peak RSS. Interpreter start and imports are outside that
interval; run.sh also measures each client process from outside (wait4), everything
included.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import json
import resource
import sqlite3
import sys
import time
import uuid


def open_db(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute('CREATE TABLE sync (name TEXT PRIMARY KEY, next_link TEXT, entities INTEGER)')
    return db


def create_table(db: sqlite3.Connection, columns: list[str], key: str) -> str:
    cols = ", ".join(f'"{c}"' + (" PRIMARY KEY" if c == key else "") for c in columns)
    db.execute(f'CREATE TABLE "Products" ({cols})')
    return 'INSERT INTO "Products" (%s) VALUES (%s)' % (
        ", ".join(f'"{c}"' for c in columns), ", ".join("?" for _ in columns))


def lean(url: str, db: sqlite3.Connection, v2: bool, page_size: int) -> tuple[int, int]:
    import urllib.request

    if v2:
        headers = {"Accept": "application/json", "DataServiceVersion": "2.0",
                   "MaxDataServiceVersion": "2.0"}
    else:
        headers = {"Accept": "application/json;odata.metadata=minimal;IEEE754Compatible=true",
                   "OData-Version": "4.0", "OData-MaxVersion": "4.0"}
        if page_size > 0:
            headers["Prefer"] = f"odata.maxpagesize={page_size}"
    link: str | None = url + "Products"
    insert = None
    names: list[str] = []
    entities = pages = 0
    while link:
        with urllib.request.urlopen(urllib.request.Request(link, headers=headers)) as response:
            doc = json.loads(response.read())
        if v2:
            feed = doc["d"]
            rows = feed["results"]
            nxt = feed.get("__next")
            link = nxt["uri"] if isinstance(nxt, dict) else nxt
        else:
            rows = doc["value"]
            link = doc.get("@odata.nextLink")
        if insert is None and rows:
            first = rows[0]
            names = [k for k, v in first.items() if not k.startswith("@") and k != "__metadata"
                     and not isinstance(v, (dict, list))]
            insert = create_table(db, names + ["etag"], "ID")
        db.execute("BEGIN")
        if v2:
            db.executemany(insert, [tuple(e.get(n) for n in names) + (e["__metadata"].get("etag"),) for e in rows])
        else:
            db.executemany(insert, [tuple(e.get(n) for n in names) + (e.get("@odata.etag"),) for e in rows])
        entities += len(rows)
        db.execute("INSERT OR REPLACE INTO sync VALUES ('Products', ?, ?)", (link, entities))
        db.execute("COMMIT")
        pages += 1
    return entities, pages


def sql_value(v):
    if v is None or isinstance(v, (int, float, str, bytes)):
        return v
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (datetime.date, datetime.datetime, datetime.time)):
        return v.isoformat()
    if isinstance(v, uuid.UUID):
        return str(v)
    return str(v)


def python_odata(url: str, db: sqlite3.Connection) -> tuple[int, int]:
    from odata import ODataService

    service = ODataService(url, reflect_entities=True, quiet_progress=True)
    product = service.entities["Products"]
    names: list[str] | None = None
    insert = None
    batch: list[tuple] = []
    entities = pages = 0

    def flush() -> None:
        nonlocal pages
        db.execute("BEGIN")
        db.executemany(insert, batch)
        db.execute("INSERT OR REPLACE INTO sync VALUES ('Products', NULL, ?)", (entities,))
        db.execute("COMMIT")
        batch.clear()
        pages += 1

    for entity in service.query(product):
        if names is None:
            names = [name for name, _ in entity.__odata__.properties]
            insert = create_table(db, names, "ID")
        batch.append(tuple(sql_value(getattr(entity, n)) for n in names))
        entities += 1
        if len(batch) == 10000:
            flush()
    if batch:
        flush()
    return entities, pages


def pyodata_client(url: str, db: sqlite3.Connection) -> tuple[int, int]:
    import pyodata
    import requests

    client = pyodata.Client(url, requests.Session())
    products = client.entity_sets.Products
    names = [p.name for p in client.schema.entity_type("Product").proprties()]
    insert = create_table(db, names, "ID")
    entities = pages = 0
    result = products.get_entities().execute()
    while True:
        db.execute("BEGIN")
        db.executemany(insert, [tuple(sql_value(getattr(e, n)) for n in names) for e in result])
        entities += len(result)
        nxt = result.next_url
        link = nxt["uri"] if isinstance(nxt, dict) else nxt  # pyslet writes {"uri": ...}
        db.execute("INSERT OR REPLACE INTO sync VALUES ('Products', ?, ?)", (link, entities))
        db.execute("COMMIT")
        pages += 1
        if not link:
            break
        result = products.get_entities().next_url(link).execute()
    return entities, pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("client", choices=["lean", "python-odata", "pyodata"])
    parser.add_argument("url")
    parser.add_argument("--store", required=True)
    parser.add_argument("--v2", action="store_true", help="lean: the service is V2")
    parser.add_argument("--page-size", type=int, default=10000, help="lean, V4: Prefer: odata.maxpagesize")
    parser.add_argument("--expect", type=int, default=-1)
    args = parser.parse_args()

    t0 = time.monotonic()
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    db = open_db(args.store)
    if args.client == "lean":
        entities, pages = lean(args.url, db, args.v2, args.page_size)
        label = "lean Python (urllib + json + sqlite3)"
    elif args.client == "python-odata":
        entities, pages = python_odata(args.url, db)
        label = "python-odata + sqlite3"
    else:
        entities, pages = pyodata_client(args.url, db)
        label = "pyodata + sqlite3"
    db.close()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    t1 = time.monotonic()
    user_ms = (r1.ru_utime - r0.ru_utime) * 1e3
    sys_ms = (r1.ru_stime - r0.ru_stime) * 1e3
    ok = args.expect < 0 or entities == args.expect
    if not ok:
        print(f"pyclients.py: {entities} entities downloaded, expected {args.expect}", file=sys.stderr)
    print(json.dumps({
        "client": label, "entities": entities, "pages": pages, "wall_ms": round((t1 - t0) * 1e3, 3),
        "user_ms": round(user_ms, 3), "sys_ms": round(sys_ms, 3), "cpu_ms": round(user_ms + sys_ms, 3),
        "maxrss_kb": r1.ru_maxrss, "ok": int(ok),
    }), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
