"""odatastore binding: the cheaper per-request paths of docs/python.md ("Costs per request")
behave as the long ways they replace, against the real V4 (odatapy) and V2 (pyslet) servers
and on their own:

* the request future guards its state with a plain lock and makes the base class's Condition
  only when something waits on it: concurrent.futures.wait / as_completed, result(timeout),
  cancel, callbacks added before and after the outcome, a second outcome refused;
* a payload is parsed by the C scanner without the per-object hook when it has at most one
  ETag, first: the results equal json's own (nested entities still become Entity objects,
  whitespace and bad JSON take the full decoder);
* Store.submit without options makes, completes and starts its request in one C call
  (ods_request_submit) and a response is kept with its JSON in one (ods_response_retain_json):
  the request behind the future has its id, state and cancel, errors are raised at once, the
  default delegate still gets the callbacks;
* a finished request keeps its future weakly, so no cycle is left for the GC;
* the typing plans call the C form of a converter (int, Decimal, date, datetime with "Z",
  the 36-character UUID) and fall back to the converter when it refuses a value;
* a path's shape (the type cache's key) is found by one substitution when its key
  predicates hold no quotes or parentheses, the same shape as the character walk.
"""
import concurrent.futures
import datetime
import decimal
import json
import threading
import uuid

import pytest

import odatastore
from odatastore import _store, _values

BOUND = 60


@pytest.fixture(scope="module", params=["v4", "v2"])
def server(request):
    return request.getfixturevalue(f"{request.param}_server")


def test_futures_with_wait_and_as_completed(server):
    with odatastore.Store(server.url, max_connections=4) as store:
        futures = [store.submit("READ", f"Products({i})") for i in range(1, 13)]
        done, pending = concurrent.futures.wait(futures, timeout=BOUND)
        assert not pending and len(done) == 12
        assert [f.result()["ID"] for f in futures] == list(range(1, 13))
        again = [store.submit("READ", f"Products({i})") for i in range(1, 7)]
        seen = sorted(f.result()["ID"] for f in concurrent.futures.as_completed(again, timeout=BOUND))
        assert seen == list(range(1, 7))
        first = store.submit("READ", "Products(999999)")
        ok = store.submit("READ", "Products(3)")
        done, _ = concurrent.futures.wait([first, ok], timeout=BOUND,
                                          return_when=concurrent.futures.FIRST_EXCEPTION)
        assert first in done or ok in done
        assert isinstance(first.exception(BOUND), odatastore.NotFoundError)
        with pytest.raises(odatastore.NotFoundError):
            first.result(BOUND)
        assert ok.result(BOUND).etag is not None and not ok.cancelled() and not ok.running()


def test_future_callbacks_before_and_after_and_a_second_outcome(server):
    with odatastore.Store(server.url) as store:
        calls = []
        got = threading.Event()
        fut = store.submit("READ", "Products(4)")
        fut.add_done_callback(lambda f: (calls.append(("before", f.result()["ID"])), got.set()))
        assert fut.result(BOUND)["ID"] == 4 and got.wait(BOUND) and fut.done()
        fut.add_done_callback(lambda f: calls.append(("after", f.result()["ID"])))
        assert calls == [("before", 4), ("after", 4)]
        with pytest.raises(concurrent.futures.InvalidStateError):
            fut.set_result("twice")
        assert fut.result()["ID"] == 4
        assert "finished" in repr(fut)


def test_future_waited_on_by_another_thread_and_cancelled(server):
    with odatastore.Store(server.url) as store:
        store.wait_open(BOUND)
        futures = [store.submit("READ", f"Products({i})") for i in range(1, 5)]
        results = []
        waiter = threading.Thread(target=lambda: results.extend(f.result(BOUND)["ID"] for f in futures))
        waiter.start()
        waiter.join(BOUND)
        assert results == [1, 2, 3, 4]
        slow = store.submit("READ", "Products?$top=200")
        if slow.cancel():  # cancelled before it finished: the request is cancelled too
            assert slow.cancelled() and slow.done()
            with pytest.raises(concurrent.futures.CancelledError):
                slow.result(BOUND)
        else:
            assert len(slow.result(BOUND)) == 200


def test_store_future_alone():
    """The future's own state machine (the store part is not used once it is done)."""
    class NoStore:
        def _wait_for(self, event, timeout, is_done):
            return is_done()

    fut = _store._StoreFuture(NoStore(), _store._Settled(), lambda: None)
    assert not fut.done() and fut._cond is None
    with pytest.raises(concurrent.futures.TimeoutError):
        fut.result(0)
    assert fut._cond is not None  # the base class waited on its Condition
    fut.set_exception(ValueError("x"))
    assert isinstance(fut.exception(), ValueError)
    with pytest.raises(ValueError):
        fut.result()
    with pytest.raises(concurrent.futures.InvalidStateError):
        fut.set_result(1)
    other = _store._StoreFuture(NoStore(), _store._Settled(), lambda: None)
    cancelled = []
    other2 = _store._StoreFuture(NoStore(), _store._Settled(), lambda: cancelled.append(1))
    assert other2.cancel() and cancelled == [1] and other2.cancelled()
    with pytest.raises(concurrent.futures.InvalidStateError):
        other2.set_result(1)
    other.set_result(None)
    assert other.result() is None and other._cond is None  # a ready result takes only the lock
    assert other.exception() is None


PAYLOADS = [
    '{"@odata.etag":"W/\\"1\\"","ID":1,"Name":"a","Nested":{"X":1}}',
    '{"ID":1,"Name":"no etag"}',
    '{"value":[{"@odata.etag":"W/\\"1\\"","ID":1},{"@odata.etag":"W/\\"2\\"","ID":2}]}',
    '{"@odata.etag":"W/\\"1\\"","ID":1,"Items":[{"@odata.etag":"W/\\"9\\"","ID":9}]}',
    '{"ID":1,"Text":"say \\"@odata.etag\\" here"}',
    '{"ID":1,"@odatastore.pending":true}',
    '{"value":[1,2,3]}',
    ' {"ID":1} ',
    '[1,2]',
    '"text"',
]


@pytest.mark.parametrize("text", PAYLOADS)
def test_payload_decode_equals_the_hooked_decoder(text):
    fast = _store._decode_payload(text)
    slow = _store._ENTITY_DECODER.decode(text)
    assert fast == slow and type(fast) is type(slow) or (
        isinstance(fast, dict) and not isinstance(slow, _store.Entity) and fast == slow)

    def walk(a, b):
        if isinstance(b, _store.Entity):
            assert isinstance(a, _store.Entity) and a.etag == b.etag and a.pending_state == b.pending_state
        if isinstance(b, dict):
            for k in b:
                walk(a[k], b[k])
        elif isinstance(b, list):
            for x, y in zip(a, b):
                walk(x, y)
    walk(fast, slow)


def test_payload_decode_refuses_bad_json():
    for text in ('{"ID":1', '{"ID":1} x', 'nope'):
        with pytest.raises(json.JSONDecodeError):
            _store._decode_payload(text)


def test_fast_entity_equals_entity():
    obj = {"@odata.etag": 'W/"3"', "ID": 3}
    a, b = _store._as_entity(dict(obj)), _store.Entity(dict(obj))
    assert a == b and a.etag == b.etag == 'W/"3"' and a.pending_state == b.pending_state
    pending = _store._as_entity({"ID": 1, "@odatastore.pending": True})
    assert pending.pending_state == odatastore.EntityState.PENDING and "@odatastore.pending" not in pending


@pytest.mark.parametrize("conv,values", [
    (_values._int, ["1000", "-7", " 12 ", "x", 5, None]),
    (_values._decimal, ["37.37", "1e3", "x", 3, 1.5]),
    (_values._date, ["2020-01-02", "2020-13-01", "x"]),
    (_values._time, ["01:02:03", "01:02:03.5", "x"]),
    (_values._datetime, ["2024-01-01T01:00:00Z", "2024-01-01T01:00:00z", "2024-01-01T01:00:00",
                         "2024-01-01T01:00:00+02:00", "2024-01-01T01:00:00.123456Z", "x"]),
    (_values._guid, ["0cc4150d-ef37-5878-a93d-8c5321885e54", "0CC4150D-EF37-5878-A93D-8C5321885E54",
                     "{0cc4150d-ef37-5878-a93d-8c5321885e54}", "urn:uuid:0cc4150d-ef37-5878-a93d-8c5321885e54",
                     "0cc4150def375878a93d8c5321885e54", "0cc4150d-ef37-5878-a93d-8c5321885e5x", "x" * 36]),
])
def test_plan_conversions_equal_the_converters(conv, values):
    plan = _values._FlatPlan((("P", conv),), ())
    for v in values:
        entity = {"P": v}
        plan.apply([entity])
        try:
            want = None if v is None else conv(v)
        except (ValueError, TypeError, decimal.InvalidOperation):
            want = v
        assert entity["P"] == want and type(entity["P"]) is type(want), v
        if isinstance(want, datetime.datetime):
            assert entity["P"].utcoffset() == want.utcoffset()
        if isinstance(want, uuid.UUID):
            assert str(entity["P"]) == str(want) and entity["P"].is_safe == want.is_safe


def _shape_by_walk(head):
    # the reference: shape_of without its shortcut (a path without "(" is its own shape)
    return head if "(" not in head else _values._shape_by_walk(head)


def test_shape_shortcut_equals_the_walk():
    assert _values.shape_of("Customers('O''NEIL')/Orders(3)") == "Customers()/Orders()"
    assert _values.shape_of("Order_Details(OrderID=10248,ProductID=11)/Product") == "Order_Details()/Product"
    for head in ["Products", "Products(5)", "A(B(1))", "A(1", "A)1", "A()", "A(x)()", "F(p='a(b')/X",
                 "Products(5)/Category", "a((b)", "a(b))c", ")(", "Products(1)(2)"]:
        assert _values.shape_of(head) == _shape_by_walk(head), head
    import random
    rng = random.Random(13)
    for _ in range(20000):  # every mix of the characters the walk looks at
        head = "".join(rng.choice("ab(')/1,=") for _ in range(rng.randint(0, 12)))
        assert _values.shape_of(head) == _shape_by_walk(head), head


def test_submit_in_one_call_keeps_the_request_usable(server):
    """Store.submit without options makes and starts the request with ods_request_submit:
    the request behind the future has its handle (id, state, cancel) from its callbacks on."""
    with odatastore.Store(server.url) as store:
        store.wait_open(BOUND)
        seen = []
        got = threading.Event()

        def done(f):
            seen.append((f.request.id, f.request.state, f.result()["ID"]))
            got.set()

        fut = store.submit("READ", "Products(2)")
        fut.add_done_callback(done)
        assert fut.result(BOUND)["ID"] == 2 and got.wait(BOUND)
        assert seen[0][0] == fut.request.id != 0 and seen[0][2] == 2
        assert fut.request.state in (odatastore.RequestState.RUNNING, odatastore.RequestState.FINISHED)
        assert fut.request.done and fut.request.result() == fut.result()
        ids = {store.submit("READ", f"Products({i})").request.id for i in range(1, 6)}
        assert len(ids) == 5
        with pytest.raises(odatastore.NotFoundError):
            store.submit("READ", "Products(999999)").result(BOUND)
        # refused at once: raised by submit, nothing left in flight
        with pytest.raises(odatastore.InvalidArgumentError):
            store.submit("READ", "Products(1)#fragment")
        with pytest.raises(odatastore.InvalidArgumentError):
            store.submit("CREATE", "Products", "{not json")
        # with options: the long way (ods_request_new, then start), same results
        assert store.submit("READ", "Products(3)", timeout=30).result(BOUND)["ID"] == 3
        # the default delegate gets the callbacks of a submitted request too
        class Delegate(odatastore.RequestDelegate):
            def __init__(self):
                self.events = []

            def finished(self, request):
                self.events.append(request.path)
        delegate = Delegate()
        store.set_default_delegate(delegate)
        assert store.submit("READ", "Products(4)").result(BOUND)["ID"] == 4
        assert delegate.events == ["Products(4)"]
        store.set_default_delegate(None)
    with pytest.raises(odatastore.ClosedError):
        store.submit("READ", "Products(1)")


def test_submit_sends_the_etag_of_an_entity_body(server):
    """An Entity read from the service and submitted back as an UPDATE goes with its ETag as
    If-Match, as Store.update sends it: a version changed meanwhile is refused (412), never
    overwritten. (The one-call form has no ETag: such a body takes the long way.)"""
    path = "Products(9)"
    with odatastore.Store(server.url) as store:
        entity = store.read(path)
        assert entity.etag
        store.update(path, {"Name": "changed meanwhile"}, etag="*")
        entity["Name"] = "a stale write"
        with pytest.raises(odatastore.ConflictError) as refused:
            store.submit("UPDATE", path, entity).result(BOUND)
        assert refused.value.http_status == 412
        assert store.read(path)["Name"] == "changed meanwhile"
        fresh = store.read(path)
        fresh["Name"] = "a current write"
        store.submit("UPDATE", path, fresh).result(BOUND)
        assert store.read(path)["Name"] == "a current write"


def test_submitted_request_cancelled_through_its_future(server):
    with odatastore.Store(server.url, max_connections=1) as store:
        store.wait_open(BOUND)
        futures = [store.submit("READ", "Products?$top=100") for _ in range(6)]
        last = futures[-1]
        if last.cancel():
            with pytest.raises(concurrent.futures.CancelledError):
                last.result(BOUND)
            assert last.request.done or last.request._done.wait(BOUND)
            assert last.request.state == odatastore.RequestState.CANCELLED
        for f in futures[:-1]:
            assert len(f.result(BOUND)) == 100


def test_finished_requests_are_freed_without_the_cyclic_gc(server):
    """A finished request keeps its future weakly: request, future, response and entity go
    as soon as the application drops them (no cycle left for the GC), and request.future
    stays the same object while anyone holds it."""
    import gc
    import weakref
    with odatastore.Store(server.url) as store:
        store.wait_open(BOUND)
        gc.collect()
        gc.disable()
        try:
            fut = store.submit("READ", "Products(6)")
            req = fut.request
            assert fut.result(BOUND)["ID"] == 6
            req._done.wait(BOUND)
            assert req.future is fut and fut.request is req
            gone = weakref.ref(fut)
            del fut
            assert gone() is None  # no cycle kept it
            again = req.future  # a new future, already settled with the same result
            assert again.done() and again.result()["ID"] == 6 and req.future is again
            request_gone = weakref.ref(req)
            del req, again
            assert request_gone() is None
            # the long way (store.request + future + start) too
            r = store.request("READ", "Products(7)")
            f = r.future
            r.start()
            assert f.result(BOUND)["ID"] == 7
            r._done.wait(BOUND)
            gone_r = weakref.ref(r)
            del r, f
            assert gone_r() is None
        finally:
            gc.enable()


def test_settled_flag_without_a_lock():
    """_Settled.set takes no lock: a waiter that made its Event just before or after set() ran
    still wakes (set sees the Event, or wait sees the flag), and waits that come later return at once."""
    for _ in range(300):
        flag = _store._Settled()
        woke = []
        waiters = [threading.Thread(target=lambda: woke.append(flag.wait(BOUND))) for _ in range(3)]
        for t in waiters:
            t.start()
        flag.set()
        for t in waiters:
            t.join(BOUND)
        assert woke == [True, True, True] and flag.is_set()
    flag = _store._Settled()
    assert not flag.is_set() and flag.wait(0.01) is False
    flag.set()
    assert flag.wait(0) is True and flag.wait() is True


def test_submit_chain_from_done_callbacks_with_raising_callbacks(server, caplog):
    """Requests submitted from done-callbacks (the benchmark's chain, taking the shortened
    submit and completion paths on the callback thread): every result arrives typed; a
    done-callback that raises is logged by concurrent.futures as before and the chain goes on;
    an on_complete that raises is still the request's outcome."""
    with odatastore.Store(server.url, max_connections=4) as store:
        store.wait_open(BOUND)
        lock = threading.Lock()
        state = {"next": 0, "left": 24}
        ids = []
        done = threading.Event()

        def start():
            with lock:
                n = state["next"]
                if n >= 24:
                    return
                state["next"] = n + 1
            fut = store.submit("READ", f"Products({n % 20 + 1})")
            fut.add_done_callback(lambda f: finished(f, n))

        def finished(fut, n):
            ids.append((n % 20 + 1, fut.result()["ID"], type(fut.result()["Price"])))
            with lock:
                state["left"] -= 1
                if state["left"] == 0:
                    done.set()
            start()
            if n % 5 == 0:
                raise RuntimeError(f"done-callback {n}")

        for _ in range(4):
            start()
        assert done.wait(BOUND)
        assert sorted(a for a, _, _ in ids) == sorted(n % 20 + 1 for n in range(24))
        assert all(a == b and t is decimal.Decimal for a, b, t in ids)
        assert sum("exception calling callback" in r.getMessage() for r in caplog.records) >= 1

        req = store.request("READ", "Products(2)", on_complete=lambda r, resp, err: 1 / 0)
        fut = req.future
        req.start()
        with pytest.raises(ZeroDivisionError):
            fut.result(BOUND)
        with pytest.raises(ZeroDivisionError):
            req.result(BOUND)
        assert req.done and req.response is not None and req.response.data["ID"] == 2
