"""odatastore binding: change observers of an offline store against the real V4 server
(odatapy): a local write and a download reported with keys and kinds, an observer of another
set not called, remove() from inside the callback and as a context manager, and what online
stores and bad names get.
"""
import threading
import time

import pytest

import odatastore
from conftest import ROOT, Server

BOUND = 60  # seconds: every wait is bounded


@pytest.fixture
def service():
    server = Server([str(ROOT / "Tests/servers/serve.py"), "v4"])
    yield server
    server.stop()


class Seen:
    def __init__(self):
        self.batches = []
        self.cond = threading.Condition()

    def __call__(self, store, changes):
        with self.cond:
            self.batches.append((store, changes))
            self.cond.notify_all()

    def wait_for(self, predicate):
        with self.cond:
            assert self.cond.wait_for(lambda: predicate([c for _, c in self.batches]), BOUND), self.batches

    def changes(self):
        with self.cond:
            return [e for _, c in self.batches for e in c.changes]


def test_local_write_and_download_are_observed(service, tmp_path):
    with odatastore.Store(service.url, store_path=tmp_path / "o.store",
                          defining_requests=["Products", "Categories"]) as store, \
            odatastore.Store(service.url) as online:
        store.wait_open(BOUND)
        products, categories = Seen(), Seen()
        with store.observe("Products", products) as observer, store.observe("Categories", categories):
            assert observer.active
            store.update("Products(5)", {"Name": "Five local"})
            store.delete("Products(6)")
            products.wait_for(lambda b: sum(len(c.changes) for c in b) >= 2)
            K = odatastore.ChangeKind
            assert products.changes()[:2] == [odatastore.EntityChange(K.UPDATED, "Products(5)"),
                                              odatastore.EntityChange(K.DELETED, "Products(6)")]
            first = products.batches[0]
            assert first[0] is store and first[1].entity_set == "Products" and not first[1].summary
            assert first[1].count == 1 and first[1].counts == {K.UPDATED: 1}

            online.update("Products(3)", {"Name": "Three fresh"}, etag="*")
            store.download()
            products.wait_for(lambda b: any(e.path == "Products(3)" for c in b for e in c.changes))
            assert categories.batches == []
        assert not observer.active
        observer.remove()  # twice: nothing


def test_remove_from_inside_the_callback(service, tmp_path):
    with odatastore.Store(service.url, store_path=tmp_path / "r.store", defining_requests=["Products"]) as store:
        store.wait_open(BOUND)
        calls = []
        holder = {}

        def once(s, changes):
            calls.append(changes)
            holder["observer"].remove()

        holder["observer"] = store.observe("Products", once)
        store.update("Products(7)", {"Name": "One"})
        deadline = time.monotonic() + BOUND
        while not calls and time.monotonic() < deadline:
            time.sleep(0.01)
        store.update("Products(7)", {"Name": "Two"})
        time.sleep(0.2)
        assert len(calls) == 1 and not holder["observer"].active


def test_refusals(service, tmp_path):
    with odatastore.Store(service.url) as online:
        with pytest.raises(odatastore.UnsupportedError):
            online.observe("Products", lambda s, c: None)
    with odatastore.Store(service.url, store_path=tmp_path / "x.store", defining_requests=["Products"]) as store:
        store.wait_open(BOUND)
        with pytest.raises(odatastore.InvalidArgumentError):
            store.observe("Products(1)", lambda s, c: None)
        with pytest.raises(odatastore.NotFoundError):
            store.observe("Nope", lambda s, c: None)
        with pytest.raises(odatastore.InvalidArgumentError, match="NUL"):  # C would cut it at the NUL
            store.observe("Products\0junk", lambda s, c: None)
