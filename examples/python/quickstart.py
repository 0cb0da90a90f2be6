#!/usr/bin/env python3
"""The odatastore binding in one page: read, create, update, delete, a future, asyncio.

    python examples/python/quickstart.py SERVICE_ROOT

Works against both test services (Tests/servers: `serve.py v4` or `serve.py v2`).
"""
import asyncio
import sys

import odatastore


def main(root: str) -> None:
    with odatastore.Store(root) as store:
        rows = store.read("Products?$filter=Price gt 900&$orderby=Price desc&$top=3")
        for p in rows:  # Entity: a dict with typed values (Decimal, int, date, UUID...) and .etag
            print(f"{p['ID']:4} {p['Name']:<12} {p['Price']!r:>20} stock={p['Stock']} etag={p.etag}")

        one = store.read("Products(50)")
        print("Products(50).Stock is exact:", one["Stock"], type(one["Stock"]).__name__)

        new = store.create("Customers", {"CustomerID": "ADA", "CompanyName": "Ada Ltd", "City": "London"})
        print("created", dict(new) if new is not None else None)
        store.update("Customers('ADA')", {"City": "Bern"})  # merge: PATCH on V4, MERGE on V2
        print("updated", dict(store.read("Customers('ADA')")))
        store.delete("Customers('ADA')")
        try:
            store.read("Customers('ADA')")
        except odatastore.NotFoundError as e:  # also a KeyError
            print("deleted:", e.http_status, e.code_name)

        fut = store.submit("READ", "Products(7)")  # a concurrent.futures.Future
        print("future:", fut.result(timeout=30)["Name"])

    async def read_many() -> None:
        # Created in a coroutine, the store delivers its callbacks on this loop (add_reader)
        async with odatastore.Store(root) as store:
            pages = await asyncio.gather(*(store.read_async(f"Products({i})") for i in (1, 2, 3)))
            print("async:", [p["Name"] for p in pages])

    asyncio.run(read_many())


if __name__ == "__main__":
    main(sys.argv[1])
