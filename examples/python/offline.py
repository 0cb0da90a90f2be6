#!/usr/bin/env python3
"""An offline store: download defining requests with progress, read from the file, reopen it.

    python examples/python/offline.py SERVICE_ROOT [STORE_FILE]

Works against both test services (Tests/servers: `serve.py v4` or `serve.py v2`). Without
STORE_FILE the store lives in a temporary directory, removed at the end.
"""
import asyncio
import os
import sys
import tempfile

import odatastore

DEFINING_REQUESTS = ["Products?$expand=Category", "Customers", "Categories"]


class Progress:
    """on_progress: a one-line bar on stderr when it is a terminal, a line per defining request."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()

    def __call__(self, store: odatastore.Store, p: odatastore.DownloadProgress) -> None:
        if self.live:
            expected = f"/{p.expected_entities}" if p.expected_entities is not None else ""
            print(f"\r[{p.request_index + 1}/{p.request_count}] {p.defining_request}: "
                  f"{p.entities}{expected} entities, {p.total_bytes / 1e6:.1f} MB", end="", file=sys.stderr)
        if p.request_finished:
            if self.live:
                print(file=sys.stderr)
            print(f"downloaded {p.defining_request}: {p.entities} entities")


def main(root: str, path: str) -> None:
    # First open: $metadata, then the defining requests page by page into the file. The store
    # stays OPENING meanwhile; wait_open() returns once everything is downloaded.
    with odatastore.Store(root, store_path=path, defining_requests=DEFINING_REQUESTS,
                          on_progress=Progress()) as store:
        store.wait_open(timeout=120)
        info = store.offline_info()
        print(f"opened: {sum(d.entities for d in info.defining_requests)} entities, "
              f"{len(info.defining_requests)} defining requests, last download "
              f"{'set' if info.last_download is not None else 'never'}")

        one = store.read("Products(50)")  # typed as online: int, Decimal, date...
        print("Products(50):", one["Name"], one["Stock"], repr(one["Price"]), one.etag)
        print("Products(1)/Category:", store.read("Products(1)/Category")["Name"])
        rows = store.read("Products?$top=3&$skip=10")
        print("page:", [r["ID"] for r in rows], "local" if rows.is_local else "from the service")
        print("count:", store.read("Products/$count"))
        try:
            store.read("OrderLines")  # no defining request brought it down
        except odatastore.NotInScopeError as e:
            print("OrderLines:", e.code_name)
        try:
            store.call("TotalStock")  # functions need the service
        except odatastore.UnsupportedError as e:
            print("TotalStock:", e.code_name)

    # Reopen: the file keeps its defining requests; nothing is downloaded again, no network needed.
    with odatastore.Store(root, store_path=path) as store:
        store.wait_open(timeout=60)
        for d in store.offline_info().defining_requests:
            print(f"  {d.path} -> {d.entity_set}: {d.entities} entities, "
                  f"{'complete' if d.complete else 'incomplete'}")

    async def read_async() -> None:
        async with odatastore.Store(root, store_path=path) as store:  # queue dispatch on this loop
            await store.wait_open_async(timeout=60)
            names = await asyncio.gather(*(store.read_async(f"Products({i})") for i in (1, 2, 3)))
            print("async:", [p["Name"] for p in names])

    asyncio.run(read_async())


if __name__ == "__main__":
    if len(sys.argv) > 2:
        main(sys.argv[1], sys.argv[2])
    else:
        with tempfile.TemporaryDirectory() as tmp:
            main(sys.argv[1], os.path.join(tmp, "example.store"))
