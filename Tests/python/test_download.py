"""odatastore binding: downloading into an open offline store and changing its defining
requests, against the real V4 (odatapy) and V2 (pyslet) servers: changes and deletions made
on the service after the store was opened brought down by download() (a delta on V4, a full
download on V2) with progress; a local change that stays on top; a defining request added
(empty until downloaded), downloaded alone and removed (out of scope again); submit_download
and download_async; cancel_download and close() with a download held at the fault proxy; an
exception in the progress callback; what online stores and bad arguments get.

Each test uses its own servers (the changes made on them stay) and its own store file.
"""
import asyncio

import pytest

import odatastore
from conftest import ROOT, Proxy, Server

BOUND = 60  # seconds: every wait is bounded


@pytest.fixture(params=["v4", "v2"])
def kind(request):
    return request.param


@pytest.fixture
def service(kind):
    server = Server([str(ROOT / "Tests/servers/serve.py"), kind])
    yield server
    server.stop()


def offline(url, path, definitions, **options):
    store = odatastore.Store(url, store_path=path, defining_requests=definitions, **options)
    store.wait_open(BOUND)
    return store


def test_download_brings_the_service_changes(kind, service, tmp_path):
    with offline(service.url, tmp_path / "d.store", ["Products"]) as store, odatastore.Store(service.url) as online:
        products = len(store.read("Products"))
        store.update("Products(7)", {"Name": "Seven offline"})
        online.update("Products(7)", {"Name": "Seven online"}, etag="*")
        online.update("Products(8)", {"Name": "Eight online"}, etag="*")
        online.delete("Products(9)", etag="*")
        assert store.read("Products(8)")["Name"] != "Eight online"

        reports = []
        assert store.download(progress=lambda s, p: reports.append((s, p))) is None
        assert reports and all(s is store and isinstance(p, odatastore.DownloadProgress) for s, p in reports)
        assert reports[-1][1].request_finished and reports[-1][1].defining_request == "Products"
        assert store.read("Products(8)")["Name"] == "Eight online"
        with pytest.raises(odatastore.NotFoundError):
            store.read("Products(9)")
        assert len(store.read("Products")) == products - 1
        # The local change stays on top until uploaded.
        seven = store.read("Products(7)")
        assert seven["Name"] == "Seven offline" and seven.pending_state == odatastore.EntityState.PENDING


def test_add_download_and_remove_a_defining_request(kind, service, tmp_path):
    with offline(service.url, tmp_path / "a.store", ["Products"]) as store:
        with pytest.raises(odatastore.NotInScopeError):
            store.read("Customers")
        with pytest.raises(odatastore.NotFoundError):
            store.download(["Customers"])  # not a defining request yet
        store.add_defining_request("Customers")
        store.add_defining_request("Customers")  # again: no error
        assert [d.path for d in store.offline_info().defining_requests] == ["Products", "Customers"]
        assert len(store.read("Customers")) == 0  # in scope, empty until downloaded

        finished = []
        store.download(["Customers"], lambda s, p: finished.append(p.defining_request) if p.request_finished else None)
        assert finished == ["Customers"]
        assert store.read("Customers('ALFKI')")["CustomerID"] == "ALFKI"

        store.remove_defining_request("Customers")
        with pytest.raises(odatastore.NotInScopeError):
            store.read("Customers")
        with pytest.raises(odatastore.NotFoundError):
            store.remove_defining_request("Customers")
        with pytest.raises(odatastore.InvalidArgumentError):
            store.remove_defining_request("Products")  # the last one stays
        with pytest.raises((odatastore.ODataSyntaxError, odatastore.InvalidArgumentError)):
            store.add_defining_request("Products?$filter=Name eq")
        with pytest.raises(odatastore.ODataSyntaxError) as e:
            store.add_defining_request("Nowhere")  # not a set of the service
        assert "Nowhere" in str(e.value)
        assert [d.path for d in store.offline_info().defining_requests] == ["Products"]


def test_future_and_asyncio(v4_server, tmp_path):
    with offline(v4_server.url, tmp_path / "f.store", ["Products", "Categories"], dispatch="queue") as store:
        future = store.submit_download(["Categories"])
        assert future.result(BOUND) is None

        async def main():
            reports = []
            await store.download_async(progress=lambda s, p: reports.append(p.defining_request))
            return reports

        reports = asyncio.run(main())
        assert "Products" in reports and "Categories" in reports


def test_cancel_close_and_progress_exception(tmp_path):
    service = Server([str(ROOT / "Tests/servers/serve.py"), "v4"])
    proxy = Proxy(service.url)
    try:
        with offline(proxy.url, tmp_path / "p.store", ["Products", "Customers"]) as store:
            proxy.fault(mode="hang", match="Products", count=1)
            future = store.submit_download()
            with pytest.raises(odatastore.StateError):
                store.download()  # one at a time
            with pytest.raises(odatastore.StateError):
                store.upload()  # nor an upload meanwhile
            with pytest.raises(odatastore.StateError):
                store.remove_defining_request("Customers")
            assert len(store.read("Customers")) > 0  # reads go on
            store.cancel_download()
            with pytest.raises(odatastore.CancelledError) as e:
                future.result(BOUND)
            assert e.value.code == odatastore.ECANCELLED
            with pytest.raises(odatastore.StateError):
                store.cancel_download()  # nothing runs
            proxy.clear()

            # An exception in progress stops the download and is what it raises.
            class Stop(Exception):
                pass

            def progress(s, p):
                raise Stop(p.defining_request)

            with pytest.raises(Stop):
                store.download(progress=progress)
            store.download()  # and the next one goes through

            # future.cancel() cancels the download.
            proxy.fault(mode="hang", match="Customers", count=-1)
            cancelled = store.submit_download(["Customers"])
            assert cancelled.cancel() and cancelled.cancelled()

        # Closing with a download held: it ends (CancelledError) before close() returns.
        with odatastore.Store(proxy.url, store_path=tmp_path / "p.store") as store:
            store.wait_open(BOUND)
            future = store.submit_download(["Customers"])
        assert future.done()
        with pytest.raises(odatastore.CancelledError):
            future.result(0)

        proxy.clear()
        with odatastore.Store(proxy.url, store_path=tmp_path / "p.store") as store:
            store.wait_open(BOUND)
            store.download()
            assert len(store.read("Customers")) > 0
    finally:
        proxy.stop()
        service.stop()


def test_online_stores_and_bad_arguments(v4_server, tmp_path):
    with odatastore.Store(v4_server.url) as online:
        for call in (online.download, lambda: online.add_defining_request("Products"),
                     lambda: online.remove_defining_request("Products")):
            with pytest.raises(odatastore.UnsupportedError):
                call()
    with offline(v4_server.url, tmp_path / "b.store", ["Products"]) as store:
        with pytest.raises(odatastore.InvalidArgumentError):
            store.download([])  # names none: pass None for all
        with pytest.raises(odatastore.InvalidArgumentError):
            store.download("Products")  # type: ignore[arg-type]
        with pytest.raises(odatastore.InvalidArgumentError):
            store.add_defining_request(3)  # type: ignore[arg-type]
        with pytest.raises(odatastore.InvalidArgumentError):
            store.add_defining_request("Products\0x")

        def nested(s, p):
            s.download()  # a blocking wait from a callback would wait for itself

        errors = []
        store.download(progress=lambda s, p: errors.append(_raises(lambda: s.download())))
        assert errors and all(isinstance(e, odatastore.StateError) for e in errors)
    with pytest.raises(odatastore.ClosedError):
        store.download()


def _raises(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - returned to the test
        return e
    return None
