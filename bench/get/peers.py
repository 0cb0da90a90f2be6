#!/usr/bin/env python3
"""Peer clients of the online GET benchmark (issue 2): the same single-entity GETs as
ods_get.c / curl_get.c, done by the Python OData clients from PyPI.

    peers.py python-odata <v4-service-root> [--count N] [--warmup N] [--threads N] [--mode key|query]
    peers.py pyodata      <v2-service-root> [--count N] [--warmup N] [--threads N]

- python-odata (V4 only). `--mode key` (default) GETs `Products(<id>)`, the same URL as the C
  programs, through python-odata's own connection (`Context.connection.execute_get`, which
  also decodes the JSON) and builds the entity object from it as python-odata's query code
  does (`Product.__new__(Product, from_data=..., connection=...)`). `--mode query` is the
  library's only public by-key call, `Service.query(Product).get(id)`, which python-odata
  sends as `Products?$filter=(ID eq <id>)` (a collection read: more server work, same
  client work plus the query building).
- pyodata (V2 only): `client.entity_sets.Products.get_entity(id).execute()`, which GETs
  `Products(<id>)`.

Concurrency: neither client documents thread safety, and both keep a `requests.Session`
(whose thread safety requests does not promise either). So each of the `--threads` worker
threads has its own client state: its own python-odata `Context` (own Session) sharing the
reflected entity classes, or its own `pyodata.Client` (own Session, own parsed $metadata).
Workers take the next product id from a shared counter, so at most `--threads` requests
are in flight, like the C programs' 8. `--threads 1` runs sequentially.

Each response is checked (the entity's ID is the one asked for); a failure exits non-zero.
Prints one JSON line: wall time and the process's CPU (resource.getrusage(RUSAGE_SELF):
user + sys of all threads) over the timed requests only (client set-up, $metadata and
warm-up excluded).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import threading
import time


class Phase:
    """Hands out product ids to worker threads until `count` have been taken."""

    def __init__(self, count: int, products: int) -> None:
        self.count = count
        self.products = products
        self.next = 0
        self.lock = threading.Lock()
        self.failures: list[str] = []

    def take(self) -> int | None:
        with self.lock:
            if self.next >= self.count:
                return None
            n = self.next
            self.next += 1
        return n % self.products + 1

    def fail(self, message: str) -> None:
        with self.lock:
            self.failures.append(message)


def make_python_odata_workers(url: str, threads: int, mode: str):
    import requests
    from odata import ODataService
    from odata.context import Context

    service = ODataService(url, reflect_entities=True, quiet_progress=True)
    product = service.entities["Products"]

    def make_worker():
        context = Context(session=requests.Session())
        connection = context.connection
        base = product.__odata_url__()

        def get_by_key(pid: int):
            data = connection.execute_get(f"{base}({pid})")
            return product.__new__(product, from_data=data, connection=connection)

        def get_by_query(pid: int):
            return context.query(product).get(pid)

        return get_by_key if mode == "key" else get_by_query

    return [make_worker() for _ in range(threads)], lambda entity: entity.ID


def make_pyodata_workers(url: str, threads: int):
    import pyodata
    import requests

    def make_worker():
        client = pyodata.Client(url, requests.Session())
        products = client.entity_sets.Products

        def get(pid: int):
            return products.get_entity(pid).execute()

        return get

    return [make_worker() for _ in range(threads)], lambda entity: entity.ID


def run_phase(workers, id_of, count: int, products: int) -> Phase:
    phase = Phase(count, products)

    def loop(get) -> None:
        while True:
            pid = phase.take()
            if pid is None:
                return
            try:
                entity = get(pid)
                got = id_of(entity)
                if got != pid:
                    phase.fail(f"Products({pid}): the entity's ID is {got!r}")
            except Exception as e:  # noqa: BLE001 - every failure is reported and fails the run
                phase.fail(f"Products({pid}): {type(e).__name__}: {e}")

    if len(workers) == 1:
        loop(workers[0])
    else:
        pool = [threading.Thread(target=loop, args=(w,)) for w in workers]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    return phase


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("client", choices=["python-odata", "pyodata"])
    parser.add_argument("url", help="service root URL (V4 for python-odata, V2 for pyodata)")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--products", type=int, default=300)
    parser.add_argument("--mode", choices=["key", "query"], default="key",
                        help="python-odata: GET Products(id) (key) or query(Product).get(id) (query)")
    args = parser.parse_args()

    if args.client == "python-odata":
        workers, id_of = make_python_odata_workers(args.url, args.threads, args.mode)
        label = "python-odata" if args.mode == "key" else "python-odata query.get"
    else:
        workers, id_of = make_pyodata_workers(args.url, args.threads)
        label = "pyodata"

    failures: list[str] = []
    if args.warmup > 0:
        failures += run_phase(workers, id_of, args.warmup, args.products).failures

    t0 = time.monotonic()
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    phase = run_phase(workers, id_of, args.count, args.products)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    t1 = time.monotonic()
    failures += phase.failures

    for message in failures[:10]:
        print(f"peers.py: {message}", file=sys.stderr)
    user_ms = (r1.ru_utime - r0.ru_utime) * 1e3
    sys_ms = (r1.ru_stime - r0.ru_stime) * 1e3
    print(json.dumps({
        "client": label, "requests": args.count, "threads": args.threads,
        "failures": len(failures), "wall_ms": round((t1 - t0) * 1e3, 3),
        "user_ms": round(user_ms, 3), "sys_ms": round(sys_ms, 3), "cpu_ms": round(user_ms + sys_ms, 3),
        "cpu_ms_per_request": round((user_ms + sys_ms) / args.count, 4) if args.count else 0.0,
        "voluntary_switches": r1.ru_nvcsw - r0.ru_nvcsw, "involuntary_switches": r1.ru_nivcsw - r0.ru_nivcsw,
    }), flush=True)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
