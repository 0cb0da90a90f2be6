#!/usr/bin/env python3
"""The Swift examples (examples/swift/), built by `swift build` as the package's
example-* executables, run against the real V4 test service; what they print is checked
against the seed's formulas, so the examples cannot rot.

    test_swift_examples.py BIN_DIR [--python VENV_PYTHON]

BIN_DIR is SwiftPM's product directory (.build/debug). Run by scripts/test.sh.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "servers"))
import seed  # noqa: E402


def expected(store_file: str) -> dict[str, list[str]]:
    products = [seed.product(i) for i in range(1, 301)]
    by_id = {p["ID"]: p for p in products}
    fifty = by_id[50]
    quickstart = [f"{p['Name']} costs {p['Price']}" for p in products if p["Price"] > 990]
    quickstart += [
        "customer O'NEIL: Company O'NEIL",
        "products: 300",
        f"stock of {fifty['Name']}: {fifty['Stock']}, released {fifty['ReleaseDate'].isoformat()}",
        "stale ETag: conflict, HTTP 412",
        "Products(999): notFound, HTTP 404",
    ]
    category2 = [p for p in products if p["CategoryID"] == 2]
    offline = [
        f"downloaded Products?$filter=CategoryID eq 2: {len(category2)} entities",
        f"downloaded Customers: {len(seed.CUSTOMER_IDS)} entities",
        "answered from the store file: true",
    ]
    offline += [f"{p['ID']} {p['Name']} {p['Price']}" for p in category2 if p["Price"] < 100]
    offline += ["Categories: notInScope", "2 defining requests, complete: true"]
    seven = by_id[7]
    price = format(seven["Price"].normalize(), "f")  # Foundation's Decimal drops trailing zeros
    modified = seven["LastModified"].strftime("%Y-%m-%dT%H:%M:%SZ")
    foundation = [
        f"{seven['Name']}: {price}, modified {modified}",
        "found by UUID: [7]",
        f"category 1: {seed.category(1)['Name']}",
    ]
    return {
        "example-quickstart": quickstart,
        "example-offline": offline,
        "example-foundation": foundation,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--python", default=os.path.join(ROOT, ".venv", "bin", "python"))
    args = parser.parse_args()

    server = subprocess.Popen([args.python, os.path.join(ROOT, "Tests", "servers", "serve.py"), "v4"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    failures = 0
    try:
        ready = server.stdout.readline().split()
        if len(ready) != 2 or ready[0] != "READY":
            print(f"FAIL: the V4 server did not start: {ready!r}")
            return 1
        url = ready[1]
        with tempfile.TemporaryDirectory() as tmp:
            store_file = os.path.join(tmp, "products.store")
            runs = {
                "example-quickstart": [url],
                "example-offline": [url, store_file],
                "example-foundation": [url],
            }
            for name, want in expected(store_file).items():
                exe = os.path.join(args.bin_dir, name)
                run = subprocess.run([exe, *runs[name]], capture_output=True, text=True, timeout=120)
                got = run.stdout.splitlines()
                if run.returncode != 0 or got != want:
                    failures += 1
                    print(f"FAIL: {name} (exit status {run.returncode})")
                    print("  expected:\n    " + "\n    ".join(want))
                    print("  got:\n    " + "\n    ".join(got))
                    if run.stderr:
                        print("  stderr:\n    " + "\n    ".join(run.stderr.splitlines()))
                else:
                    print(f"ok: {name} ({len(got)} lines)")
    finally:
        server.stdin.close()
        server.terminate()
        server.wait(timeout=30)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
