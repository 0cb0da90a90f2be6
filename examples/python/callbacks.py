#!/usr/bin/env python3
"""Request objects with a delegate, the store's state callback, and cancelling.

    python examples/python/callbacks.py SERVICE_ROOT
"""
import sys
import threading

import odatastore


class Printer(odatastore.RequestDelegate):
    """Delegate callbacks arrive on the store's callback thread, in order."""

    def started(self, request: odatastore.Request) -> None:
        print(f"[{request.context}] started #{request.id}")

    def response(self, request: odatastore.Request, response: odatastore.Response) -> None:
        print(f"[{request.context}] HTTP {response.status}, {response.entity_count} entities")

    def failed(self, request: odatastore.Request, error: odatastore.Error,
               response: "odatastore.Response | None") -> None:
        print(f"[{request.context}] failed: {type(error).__name__} ({error.code_name})")

    def finished(self, request: odatastore.Request) -> None:
        print(f"[{request.context}] finished")


def on_state(store: odatastore.Store, state: odatastore.StoreState, error: "odatastore.Error | None") -> None:
    print("store:", state.name)


def main(root: str) -> None:
    done = threading.Event()
    with odatastore.Store(root, on_state=on_state) as store:
        req = store.request("READ", "Categories?$orderby=ID", delegate=Printer(), context="categories",
                            on_complete=lambda r, resp, err: done.set())
        req.set_header("Accept-Language", "en")
        req.start()
        if not done.wait(30):
            raise SystemExit("no answer within 30 s")
        print("names:", [c["Name"] for c in req.result()])

        missing = store.request("READ", "Products(424242)", delegate=Printer(), context="missing")
        try:
            missing.result(timeout=30)
        except KeyError:
            print("missing: KeyError as expected")


if __name__ == "__main__":
    main(sys.argv[1])
