#!/usr/bin/env python3
"""check.py LIBRARY.store BASELINE.store: the rows a create leaves in the store file, compared
between the library (ods_localwrite) and the raw-sqlite3 baseline (sqlite_localwrite --rows
store) after the same creates on copies of the same template: the products table (every
column), ods_members, ods_local_keys and ods_queue (every column but the time stamp and the
random Repeatability-Request-ID). Exit status 0 when they are the same."""

import sqlite3
import sys

QUERIES = {
    "e:Products": 'SELECT * FROM "e:Products" ORDER BY "@rid"',
    "ods_members": "SELECT * FROM ods_members ORDER BY request, tbl, rid",
    "ods_local_keys": "SELECT * FROM ods_local_keys ORDER BY tbl, rid",
    "ods_queue": "SELECT id, mode, tbl, rid, path, properties, entity_key, parent_tbl, parent_rid, parent_nav, etag, "
                 "first_sent, state, length(repeatability_id) FROM ods_queue ORDER BY id",
}


def rows(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {name: db.execute(q).fetchall() for name, q in QUERIES.items()}
    finally:
        db.close()


def main() -> int:
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    same = True
    for name in QUERIES:
        if a[name] != b[name]:
            same = False
            print(f"check.py: {name} differs ({len(a[name])} rows against {len(b[name])})", file=sys.stderr)
            for x, y in zip(a[name], b[name]):
                if x != y:
                    print(f"  library:  {x}\n  baseline: {y}", file=sys.stderr)
                    break
    if same:
        print("== same rows: " + ", ".join(f"{name} {len(a[name])}" for name in QUERIES), file=sys.stderr)
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
