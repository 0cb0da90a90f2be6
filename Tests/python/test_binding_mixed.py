"""odatastore binding: mixed stores (issue 12, item 1) against the real servers: each request
sent where its data is (Response.source), a request's own route, the working mode switched
while requests run (fault proxy), the offline calls on the store file, and the service
stopped: covered sets answer from the file, the rest raises OfflineError."""
import time

import pytest

import odatastore
from conftest import Proxy, Server, ROOT

BOUND = 60
DEFINITIONS = ["Products", "Customers"]  # Categories and OrderLines are not covered


def side(store, path, mode="read", body=None, **options):
    req = store.request(mode, path, body, **options)
    req.start()
    req.result(BOUND)
    return req.response.source


def test_routes_by_coverage(server, tmp_path):
    with odatastore.Store(server.url, mode="mixed", store_path=tmp_path / "mixed.store",
                          defining_requests=DEFINITIONS) as store:
        store.wait_open(BOUND)
        assert store.working_mode == "mixed"
        for path in ["Products(7)", "Products?$top=3", "Products/$count", server.url + "Customers?$top=2"]:
            assert side(store, path) == "offline", path
        for path in ["OrderLines?$top=2", "Products(1)/Category", "Products?$expand=Category&$top=2",
                     "Categories(1)/Products?$top=2"]:
            assert side(store, path) == "online", path
        assert side(store, "TotalStock", mode="function") == "online"
        # $metadata: the file's document (the one the store works with); the service's on request
        assert side(store, "$metadata") == "offline" and side(store, "$metadata", route="online") == "online"
        assert b'Name="Products"' in store.read("$metadata") and b'Name="Products"' in store.read("$metadata", route="online")
        assert side(store, "Products(7)", route="online") == "online"
        with pytest.raises(odatastore.NotInScopeError):
            store.execute("read", "OrderLines", route="offline")
        assert side(store, "Products(7)", "update", {"Name": "Mixed"}) == "offline"
        assert store.pending_count() == 1
        store.working_mode = "online"
        assert side(store, "Products(7)") == "online"
        store.working_mode = "mixed"
        with pytest.raises(odatastore.InvalidArgumentError):
            store.working_mode = "sideways"
        with pytest.raises(odatastore.InvalidArgumentError):
            store.request("read", "Products", route="sideways")


def test_other_kinds_refuse(v4_server):
    with odatastore.Store(v4_server.url) as store:
        assert store.working_mode == "online"
        with pytest.raises(odatastore.UnsupportedError):
            store.working_mode = "offline"
        with pytest.raises(odatastore.UnsupportedError):
            store.request("read", "Products", route="offline")


def test_switch_while_requests_run(v4_server, tmp_path):
    proxy = Proxy(v4_server.url)
    try:
        with odatastore.Store(proxy.url, mode="mixed", store_path=tmp_path / "mixed.store",
                              defining_requests=DEFINITIONS) as store:
            store.wait_open(BOUND)
            proxy.fault(mode="slow", count=-1, delay_ms=2500, match="OrderLines")
            slow = [store.request("read", "OrderLines?$top=2") for _ in range(3)]
            for r in slow:
                r.start()
            time.sleep(0.3)
            assert not any(r.future.done() for r in slow)
            store.working_mode = "offline"
            with pytest.raises(odatastore.NotInScopeError):
                store.read("OrderLines?$top=2")
            assert side(store, "Products(2)") == "offline"
            for r in slow:
                assert len(r.result(BOUND)) == 2
                assert r.response.source == "online"
    finally:
        proxy.stop()


def test_service_stopped(tmp_path):
    server = Server([str(ROOT / "Tests/servers/serve.py"), "v4"])
    path = tmp_path / "mixed.store"
    try:
        with odatastore.Store(server.url, mode="mixed", store_path=path, defining_requests=DEFINITIONS) as store:
            store.wait_open(BOUND)
    finally:
        server.stop()
    with odatastore.Store(server.url, mode="mixed", store_path=path) as store:
        held = store.request("read", "Products?$top=3")
        held.start()  # before the store is open: held, then answered from the file
        assert len(held.result(BOUND)) == 3
        assert held.response.source == "offline"
        assert store.read("Customers('ALFKI')")["CustomerID"] == "ALFKI"
        with pytest.raises(odatastore.OfflineError):
            store.read("OrderLines")
        with pytest.raises(odatastore.OfflineError):
            store.read("Products?$expand=Category")
        with pytest.raises(odatastore.OfflineError):
            store.call("TotalStock()")
