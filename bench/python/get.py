#!/usr/bin/env python3
"""The online GET benchmark (bench/get) through the Python binding:

    get.py <service-root> [--count N] [--warmup N] [--inflight N] [--products N]

GETs Products(<id>) with --inflight (default 8) futures in flight (store.submit; each
finished future starts the next from its done-callback) and checks every entity's ID. Prints
one JSON line like bench/get/peers.py: wall time and the process's CPU (getrusage
RUSAGE_SELF, user + sys, all threads) over the timed GETs only (store opening, $metadata and
warm-up excluded). The result is typed (Decimal, int, date, UUID...) as an application gets it.
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import threading
import time

import odatastore


def phase(store: odatastore.Store, count: int, inflight: int, products: int) -> list[str]:
    lock = threading.Lock()
    done = threading.Event()
    state = {"next": 0, "left": count}
    failures: list[str] = []

    def start_next() -> None:
        with lock:
            n = state["next"]
            if n >= count:
                return
            state["next"] = n + 1
        pid = n % products + 1
        fut = store.submit("READ", f"Products({pid})")
        fut.add_done_callback(lambda f: finished(f, pid))

    def finished(fut: "odatastore.RequestFuture", pid: int) -> None:
        try:
            got = fut.result()["ID"]
            if got != pid:
                failures.append(f"Products({pid}): ID {got!r}")
        except Exception as e:  # noqa: BLE001 - every failure fails the run
            failures.append(f"Products({pid}): {type(e).__name__}: {e}")
        with lock:
            state["left"] -= 1
            if state["left"] == 0:
                done.set()
        start_next()

    for _ in range(min(inflight, count)):
        start_next()
    if count and not done.wait(600):
        failures.append("not finished within 600 s")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--inflight", type=int, default=8)
    parser.add_argument("--products", type=int, default=300)
    args = parser.parse_args()

    with odatastore.Store(args.url, max_connections=args.inflight) as store:
        store.wait_open(60)
        failures = phase(store, args.warmup, args.inflight, args.products)
        t0 = time.monotonic()
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        failures += phase(store, args.count, args.inflight, args.products)
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        t1 = time.monotonic()
    for message in failures[:10]:
        print(f"get.py: {message}", file=sys.stderr)
    user_ms = (r1.ru_utime - r0.ru_utime) * 1e3
    sys_ms = (r1.ru_stime - r0.ru_stime) * 1e3
    print(json.dumps({
        "client": "odatastore (Python)", "requests": args.count, "threads": args.inflight,
        "failures": len(failures), "wall_ms": round((t1 - t0) * 1e3, 3),
        "user_ms": round(user_ms, 3), "sys_ms": round(sys_ms, 3), "cpu_ms": round(user_ms + sys_ms, 3),
        "cpu_ms_per_request": round((user_ms + sys_ms) / args.count, 4) if args.count else 0.0,
        # context switches of the whole process per GET: about 3 when every answer finds the
        # client idle (one hand-off each way and the transport's second sleep), under 1 when
        # answers wait and are handled several per pass (bench/python/threads.py splits them)
        "vcs_per_request": round((r1.ru_nvcsw - r0.ru_nvcsw) / args.count, 3) if args.count else 0.0,
        "ivcs_per_request": round((r1.ru_nivcsw - r0.ru_nivcsw) / args.count, 3) if args.count else 0.0,
    }), flush=True)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
