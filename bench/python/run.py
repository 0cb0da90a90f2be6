#!/usr/bin/env python3
"""The online GET benchmark through the Python binding, against the Python peers, in one run:

    python bench/python/run.py [--runs N] [--count N] [--warmup N] [--no-doc]

(or `bash bench/python/run.sh`). Clients, each against a FRESH test server per round
(Tests/servers/serve.py; the servers are stateful), the order alternating between rounds:

    odatastore-v4  bench/python/get.py   the binding (futures, 8 in flight), V4 server (odatapy)
    python-odata   bench/get/peers.py    V4 server, 8 threads
    odatastore-v2  bench/python/get.py   V2 server (pyslet)
    pyodata        bench/get/peers.py    V2 server, 8 threads

Each does --warmup GETs, then --count timed GETs of Products(<id>) and reports its own CPU
(user + sys) over the timed GETs. The server is pinned to CPU 0 and the client to CPU 1 with
taskset when there are two cores. The medians and ratios (peer CPU / binding CPU, same server)
go to the "## Python binding: online GETs" section of docs/benchmarks.md (unless --no-doc) and
the raw lines to build/bench-python/results.jsonl. Needs the library: $ODATASTORE_LIBRARY or
build/lib/libodatastore.so.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PY = os.environ.get("ODS_TEST_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
CLIENTS = {
    "odatastore-v4": ("v4", ["bench/python/get.py"]),
    "python-odata": ("v4", ["bench/get/peers.py", "python-odata"]),
    "odatastore-v2": ("v2", ["bench/python/get.py"]),
    "pyodata": ("v2", ["bench/get/peers.py", "pyodata"]),
}


def pin(cpu: int) -> list[str]:
    return ["taskset", "-c", str(cpu)] if shutil.which("taskset") and (os.cpu_count() or 1) >= 2 else []


def run_client(name: str, count: int, warmup: int, env: dict[str, str]) -> dict:
    kind, args = CLIENTS[name]
    server = subprocess.Popen([*pin(0), PY, "Tests/servers/serve.py", kind], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline().strip() if server.stdout else ""
        if not line.startswith("READY "):
            raise SystemExit(f"{kind} server did not start: {line!r}")
        url = line.split(" ", 1)[1]
        out = subprocess.run([*pin(1), PY, *args, url, "--count", str(count), "--warmup", str(warmup)],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            raise SystemExit(f"{name} failed: {out.stderr}")
        result = json.loads(out.stdout.strip().splitlines()[-1])
        result["name"] = name
        return result
    finally:
        if server.stdin:
            server.stdin.close()
        server.terminate()
        server.wait(30)


def section(results: list[dict], runs: int, count: int, command: str) -> str:
    by = {name: [r for r in results if r["name"] == name] for name in CLIENTS}
    med = {n: statistics.median(r["cpu_ms_per_request"] for r in rs) for n, rs in by.items()}
    wall = {n: statistics.median(r["wall_ms"] for r in rs) for n, rs in by.items()}
    load = os.getloadavg()[0]
    lines = [
        "## Python binding: online GETs",
        "",
        f"`{command}` ({time.strftime('%Y-%m-%d')}, {runs} rounds, load average {load:.2f} at the end):",
        f"{count} single-entity GETs (`Products(<id>)`) with 8 in flight after a warm-up, each client",
        "against a fresh test server, server pinned to CPU 0 and client to CPU 1. The binding",
        "(`bench/python/get.py`) uses `store.submit` futures and returns typed entities (Decimal,",
        "int, date, UUID, with the ETag); the peers are those of `bench/get/peers.py` with 8 threads.",
        "Client CPU is user + sys of the client process over the timed GETs; medians of the rounds.",
        "",
        "| server | client | CPU per GET (ms) | vs. the binding | wall time (ms) |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for server, ours, peer in (("V4 (odatapy)", "odatastore-v4", "python-odata"),
                               ("V2 (pyslet)", "odatastore-v2", "pyodata")):
        lines.append(f"| {server} | odatastore (Python) | {med[ours]:.3f} | 1.00x | {wall[ours]:.0f} |")
        lines.append(f"| {server} | {peer} | {med[peer]:.3f} | {med[peer] / med[ours]:.2f}x | {wall[peer]:.0f} |")
    lines += ["", "Wall time is mostly the single-process test servers' (see Online GETs above).", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--no-doc", action="store_true")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python" / "src"))
    env.setdefault("ODATASTORE_LIBRARY", str(ROOT / "build" / "lib" / "libodatastore.so"))
    out_dir = ROOT / "build" / "bench-python"
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    names = list(CLIENTS)
    with open(out_dir / "results.jsonl", "a") as raw:
        for run in range(args.runs):
            for name in (names if run % 2 == 0 else names[::-1]):
                r = run_client(name, args.count, args.warmup, env)
                r["round"] = run
                raw.write(json.dumps(r) + "\n")
                print(json.dumps(r), flush=True)
                results.append(r)
    argv = " ".join(sys.argv[1:])
    text = section(results, args.runs, args.count, f"python bench/python/run.py {argv}".strip())
    print(text)
    if not args.no_doc:
        doc = ROOT / "docs" / "benchmarks.md"
        current = doc.read_text()
        pattern = re.compile(r"## Python binding: online GETs\n.*?(?=\n## |\Z)", re.S)
        current = pattern.sub(lambda _: text.rstrip("\n") + "\n", current) if pattern.search(current) \
            else current.rstrip("\n") + "\n\n" + text
        doc.write_text(current)
    return 0


if __name__ == "__main__":
    sys.exit(main())
