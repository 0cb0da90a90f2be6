"""odatastore binding: the shortcuts of the per-request path (docs/python.md, "Costs per request") give the
same results as the long way, against the real V4 (odatapy) and V2 (pyslet) servers:

* a Response keeps the library's response (ods_response_dup) and reads its attributes on
  first use: they stay readable after the store is closed, and copies and pickles carry them;
* the typing of flat entities is planned once per path shape and property names: an entity
  of the same names whose value is an object or a list takes the full walk;
* a store's callback thread keeps one Python thread state from its first callback to CLOSED.
"""
import copy
import decimal
import pickle
import threading

import pytest

import odatastore

BOUND = 60


@pytest.fixture(scope="module", params=["v4", "v2"])
def server(request):
    return request.getfixturevalue(f"{request.param}_server")


def test_response_attributes_outlive_the_store(server):
    with odatastore.Store(server.url) as store:
        req = store.request("READ", "Products(5)")
        one = req.start().result(BOUND)
        resp = req.response
    # read for the first time after close: the response is the library's, kept by the object
    assert resp.status == 200 and resp.etag == 'W/"1"' and resp.entity_count == 1
    assert resp.header("Content-Type").startswith("application/json")
    assert resp.body.startswith(b"{") and resp.count is None and resp.next_link is None
    assert resp.is_local is False and resp.source == "online"
    assert resp.json()["ID"] == 5 and resp.data is one
    for other in (copy.copy(resp), copy.deepcopy(resp), pickle.loads(pickle.dumps(resp))):
        assert (other.status, other.headers, other.json_text, other.body, other.etag, other.entity_count) == (
            resp.status, resp.headers, resp.json_text, resp.body, resp.etag, resp.entity_count)
        assert other.data == one and other.data.etag == one.etag


def test_error_response_outlives_the_store(server):
    with odatastore.Store(server.url) as store:
        with pytest.raises(odatastore.NotFoundError) as e:
            store.read("Products(999999)")
    assert e.value.response is not None and e.value.response.status == 404
    assert e.value.response.body and e.value.http_status == 404


def test_flat_plan_gives_way_to_the_full_walk(server):
    with odatastore.Store(server.url) as store:
        store.wait_open(BOUND)
        types = store._typecache()
        assert types is not None
        path = "Categories(2)?$expand=Products"
        flat = {"ID": 2, "Name": "Condiments", "Products": None}
        types.type_entities(path, [flat])  # no object or list: the plan of these names is made
        assert flat == {"ID": 2, "Name": "Condiments", "Products": None}
        nested = {"ID": 2, "Name": "Condiments", "Products": [{"ID": 12, "Price": "9.90"}]}
        types.type_entities(path, [nested])  # same names, but a list: typed the long way
        assert nested["Products"][0]["Price"] == decimal.Decimal("9.90")
        # the plan itself converts like the walk
        rows = [{"ID": 1, "Price": "1.50", "Stock": "9007199254740993"},
                {"ID": 2, "Price": "2.50", "Stock": "7"}]
        again = copy.deepcopy(rows)
        types.type_entities("Products?$top=2", rows)
        types.type_entities("Products?$top=2", again)  # planned now
        assert rows == again == [{"ID": 1, "Price": decimal.Decimal("1.50"), "Stock": 9007199254740993},
                                 {"ID": 2, "Price": decimal.Decimal("2.50"), "Stock": 7}]
        # entities with different names in one result: the walk, both typed
        mixed = [{"ID": 1, "Price": "1.50"}, {"ID": 2, "Stock": "8"}]
        types.type_entities("Products?$top=2", mixed)
        assert mixed == [{"ID": 1, "Price": decimal.Decimal("1.50")}, {"ID": 2, "Stock": 8}]
        # the same shape read for real, planned and not
        for i in (7, 8, 7):
            one = store.read(f"Products({i})?$expand=Category")
            assert one["Category"]["ID"] == (i - 1) % 10 + 1 and type(one["Price"]) is decimal.Decimal


def test_callback_thread_keeps_its_thread_state_until_closed(server):
    local = threading.local()
    seen = []

    def first(request, response, error):
        local.mark = request.path
        seen.append(threading.get_ident())

    def second(request, response, error):
        seen.append(getattr(local, "mark", None))
        seen.append(threading.get_ident())

    # Thread dispatch: every callback on the callback thread (inline dispatch: the next test).
    store = odatastore.Store(server.url, dispatch="thread")
    try:
        store.request("READ", "Products(1)", on_complete=first).start().result(BOUND)
        store.request("READ", "Products(2)", on_complete=second).start().result(BOUND)
        assert seen == [seen[0], "Products(1)", seen[0]]  # the same thread state both times
        assert store._kept_thread == seen[0]
    finally:
        store.close()
    assert store._kept_thread == -1  # given back by the CLOSED callback
    with odatastore.Store(server.url, dispatch="queue") as queued:  # queue mode: the caller's threads
        assert queued.read("Products(3)")["ID"] == 3 and queued._kept_thread == 0


def test_inline_store_keeps_the_transport_threads_state_until_it_ends(server):
    """Dispatch "inline": the callback thread and the transport thread each keep their Python
    thread state from their first callback (a thread-local set in one callback is there in
    the next on the same thread); the transport's is given back by the library's thread-end
    callback inside close, the callback thread's by CLOSED."""
    local = threading.local()
    seen = []  # (thread, the mark that thread's locals had)

    def completion(request, response, error):
        seen.append((threading.get_ident(), getattr(local, "mark", None)))
        local.mark = threading.get_ident()

    store = odatastore.Store(server.url)
    try:
        assert store.dispatch_mode == "inline" and store._thread_end_set
        for i in range(1, 21):
            store.request("READ", f"Products({i})", on_complete=completion).start().result(BOUND)
        first = set()
        for ident, mark in seen:
            assert mark == (ident if ident in first else None)
            first.add(ident)
        assert len(first) <= 2
    finally:
        store.close()
    assert store._kept_thread == -1 and store._kept_other in (0, -1)  # nothing left kept
    assert not store._keeping
