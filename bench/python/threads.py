#!/usr/bin/env python3
"""Where the Python binding's GET benchmark spends its CPU, thread by thread:

    threads.py <service-root> [--count N] [--warmup N] [--inflight N]

Runs bench/python/get.py's workload (futures, 8 in flight, done-callbacks on the store's
callback thread) and reads /proc/self/task/*/stat and .../status before and after the timed
GETs: per thread user and system CPU (clock ticks), voluntary and involuntary context
switches, minor page faults, all per GET; "cpu_ms_per_get" is the exact on-CPU time of
/proc/self/task/*/schedstat (user + sys are sampled at clock ticks). Threads are named by what they do: "main" (the
Python main thread, waiting), "callback" (the thread the done-callbacks ran on), "transport"
(the other thread the library started; with more than one, "other-<tid>"). Prints one JSON
line. --batch puts a thread in SCHED_BATCH by hand (the experiment that led to
CurlTransportConfiguration.batchScheduling). bench/python/threads.sh starts a server and
alternates two library builds.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import get  # noqa: E402  (bench/python/get.py)

import odatastore  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def snapshot() -> dict[int, dict[str, int]]:
    out: dict[int, dict[str, int]] = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                stat = f.read()
            with open(f"/proc/self/task/{tid}/status") as f:
                status = f.read()
        except OSError:
            continue
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                run_ns = int(f.read().split()[0])
        except OSError:
            run_ns = 0
        fields = stat[stat.rindex(")") + 2:].split()
        # fields[0] is field 3 (state): minflt is field 10, utime 14, stime 15
        row = {"run_ns": run_ns, "minflt": int(fields[7]), "utime": int(fields[11]), "stime": int(fields[12])}
        for line in status.splitlines():
            if line.startswith("voluntary_ctxt_switches"):
                row["vcs"] = int(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches"):
                row["ivcs"] = int(line.split()[1])
        out[int(tid)] = row
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--inflight", type=int, default=8)
    parser.add_argument("--products", type=int, default=300)
    parser.add_argument("--batch", choices=["transport", "callback", "both"],
                        help="experiment: put that library thread in SCHED_BATCH before the timed GETs")
    args = parser.parse_args()

    callback_tids: set[int] = set()
    with odatastore.Store(args.url, max_connections=args.inflight) as store:
        store.wait_open(60)
        fut = store.submit("READ", "Products(1)")
        fut.add_done_callback(lambda f: callback_tids.add(threading.get_native_id()))
        fut.result(60)
        get.phase(store, args.warmup, args.inflight, args.products)
        if args.batch:
            for tid in os.listdir("/proc/self/task"):
                tid_n = int(tid)
                if tid_n == os.getpid():
                    continue
                is_cb = tid_n in callback_tids
                if args.batch == "both" or (args.batch == "callback") == is_cb:
                    os.sched_setscheduler(tid_n, os.SCHED_BATCH, os.sched_param(0))
        before = snapshot()
        t0 = time.monotonic()
        failures = get.phase(store, args.count, args.inflight, args.products)
        t1 = time.monotonic()
        after = snapshot()
    main_tid = os.getpid()
    threads = {}
    for tid, row in after.items():
        if tid not in before:
            continue
        name = "main" if tid == main_tid else "callback" if tid in callback_tids else f"other-{tid}"
        delta = {k: row[k] - before[tid].get(k, 0) for k in row}
        if not any(delta.values()):
            continue
        threads[name] = {
            "cpu_ms_per_get": round(delta["run_ns"] / 1e6 / args.count, 4),
            "user_ms_per_get": round(delta["utime"] * 1000 / TICK / args.count, 4),
            "sys_ms_per_get": round(delta["stime"] * 1000 / TICK / args.count, 4),
            "vcs_per_get": round(delta["vcs"] / args.count, 3),
            "ivcs_per_get": round(delta["ivcs"] / args.count, 3),
            "minflt_per_get": round(delta["minflt"] / args.count, 3),
        }
    others = [n for n in threads if n.startswith("other-")]
    if len(others) == 1:
        threads["transport"] = threads.pop(others[0])
    total = {k: round(sum(t[k] for t in threads.values()), 4) for k in next(iter(threads.values()))}
    print(json.dumps({"requests": args.count, "failures": len(failures), "wall_ms": round((t1 - t0) * 1e3, 1),
                      "threads": threads, "total": total}), flush=True)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
