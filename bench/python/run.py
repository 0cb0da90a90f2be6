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


# Kept below the generated table (edit here, not in docs/benchmarks.md).
NOTES = """\
Where the binding's CPU goes (V4, user-space instructions per GET from valgrind callgrind:
Ir of a 1,000-GET run minus a 0-GET run, divided by 1,000; independent of machine load).
The library alone (`bench/get/ods_get.c`, same GETs, C callbacks) is about 176,000; the
binding with bare ctypes (`ods_store_schedule`, a CFUNCTYPE completion that only counts) about
189,000, and with `json.loads` of the payload about 243,000; python-odata about 4,010,000 and
pyodata about 3,780,000 (V2).

| Binding | Ir per GET | What changed |
| --- | ---: | --- |
| 91729df | 720,000 | - |
| afc867f + 5494b13 | 435,000 | the Response keeps the library's response (`ods_response_dup`) and reads headers, body and the rest on first use (a GET copied ~14 header strings through ~30 ctypes calls); typing planned once per path shape and property names for flat entities; decoders made once; no `threading.local`, no `threading.Event` per request unless a thread waits |

Not in the instruction count: ctypes gave every callback on the library's callback thread a
new Python thread state (made and destroyed per call, with an mmap and munmap of its frame
stack, page faults and a new decimal context: `strace -c` showed one mmap, one munmap and a
gettid per GET). A thread-dispatch store now keeps one thread state for its callback thread
from its first callback to its CLOSED callback: about 1 page fault and 3 system calls less per
GET, and 20-25% less CPU per GET in alternating runs (0.26-0.29 against 0.33-0.36 ms).

What is left: the library's own cost (`ods_get`: 0.13-0.14 ms CPU per GET on this machine,
about a third of it in the kernel: poll, futex, the thread hand-offs) is most of the 5x
budget (python-odata spends 0.84-0.94 ms). Python's part is now about 260,000 Ir per GET:
the request and its `concurrent.futures.Future` (creation, done-callback, `set_result`), three
ctypes calls to create and start the request (one `ods_store_schedule` would save about
15,000 Ir but gives no request handle for `Request.state`/`cancel`), the ctypes callback,
`json` decoding (~3 us), the converters (Decimal, date, datetime, UUID: ~2 us) and the
Entity. Reaching 5x would need the per-request Python work roughly quartered (e.g. a C
function that returns a response's JSON and its ETag in one call, and a completion path
that delivers several finished requests per callback), or the library's own CPU per GET
lowered.
"""


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
    lines += NOTES.splitlines() + [""]
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
