"""odatastore binding against hostile callers: a store used from its very first state
callback, Ctrl-C landing while queue dispatch runs completions, concurrent.futures.wait /
as_completed inside a callback, out-of-range and mistyped Store options, an Observer
outliving every other reference to its store, os.fork(), writes made while the store opens,
and bodies with odd keys, absurd decimals and naive datetimes. Against the real test
servers; every wait is bounded; nothing is timed."""
import concurrent.futures
import datetime
import decimal
import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

import odatastore

BOUND = 60  # seconds: every wait is bounded
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code, timeout=BOUND):
    """Runs `code` in a fresh interpreter with the binding on its path; returns the process."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python", "src"))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True, timeout=timeout)


# --- a store is usable from its first callback -------------------------------------------------


@pytest.mark.parametrize("dispatch", ["inline", "thread", "queue"])
def test_the_first_state_callback_sees_an_open_handle(v4_server, dispatch):
    """on_state(OPENING) may run on the store's thread before ods_store_open has returned:
    the store is already usable there (its state, closed, submit), in every dispatch mode.
    Ten stores: the race was lost about one time in three."""
    for _ in range(10):
        seen = []
        futures = []

        def on_state(store, state, error):
            if state == odatastore.StoreState.OPENING:
                seen.append((store.closed, store.state))
                futures.append(store.submit("READ", "Products(1)"))

        with odatastore.Store(v4_server.url, dispatch=dispatch, on_state=on_state) as store:
            store.wait_open(BOUND)
            assert len(seen) == 1
            closed, state = seen[0]
            assert closed is False
            assert state in (odatastore.StoreState.OPENING, odatastore.StoreState.OPEN)
            assert futures[0].result(BOUND)["ID"] == 1


# --- Ctrl-C while queue dispatch runs callbacks ------------------------------------------------


def test_sigint_in_a_queue_callback_arrives_after_the_callbacks(v4_server):
    """Queue dispatch on the main thread: a SIGINT that lands while callbacks run is held
    until they have run (a KeyboardInterrupt inside a ctypes callback is dropped by ctypes,
    and that request's completion with it), then given to the handler: the default one
    raises KeyboardInterrupt from dispatch() / result(); a handler of the app's own is called
    once. The completions are all there."""
    proc = _run(f"""
        import os, signal, odatastore
        store = odatastore.Store({v4_server.url!r}, dispatch="queue")
        store.wait_open(60)
        seen = []
        def interrupt(request, response, error):
            seen.append(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
            os.kill(os.getpid(), signal.SIGINT)   # as a Ctrl-C would, now
            seen.append("after kill")              # not interrupted here
        # store.dispatch(): the KeyboardInterrupt comes after the callbacks
        req = store.request("READ", "Products(1)", on_complete=interrupt).start()
        other = store.submit("READ", "Products(2)")
        try:
            while not (req.done and other.done()):
                store.dispatch(1)
        except KeyboardInterrupt:
            seen.append("KeyboardInterrupt from dispatch")
        while not other.done():
            store.dispatch(1)
        assert req.result(0)["ID"] == 1 and other.result(0)["ID"] == 2, (req._error, other)
        # future.result() dispatching on the main thread: the same
        fut = store.request("READ", "Products(3)", on_complete=interrupt).start().future
        try:
            fut.result(60)
        except KeyboardInterrupt:
            seen.append("KeyboardInterrupt from result")
        assert fut.result(60)["ID"] == 3
        # a handler of the app's own is called (after the callbacks) and is back afterwards
        calls = []
        mine = lambda signum, frame: calls.append(signum)
        signal.signal(signal.SIGINT, mine)
        req = store.request("READ", "Products(4)", on_complete=interrupt).start()
        while not req.done:
            store.dispatch(1)
        assert req.result(0)["ID"] == 4 and calls == [signal.SIGINT], calls
        assert signal.getsignal(signal.SIGINT) is mine
        store.close()
        print(seen)
    """)
    assert proc.returncode == 0, proc.stderr
    assert "Exception ignored" not in proc.stderr, proc.stderr
    assert proc.stdout.strip() == str([False, "after kill", "KeyboardInterrupt from dispatch",
                                       False, "after kill", "KeyboardInterrupt from result",
                                       False, "after kill"])


def test_a_sigint_storm_loses_no_completion(v4_server):
    """200 answers arriving in a queue store while SIGINTs come every millisecond or so and
    the handler raises KeyboardInterrupt: they reach the dispatching caller, and no
    completion is lost (none printed by ctypes as "Exception ignored")."""
    proc = _run(f"""
        import os, signal, threading, time, odatastore
        store = odatastore.Store({v4_server.url!r}, dispatch="queue")
        store.wait_open(60)
        futures = [store.submit("READ", f"Products({{i % 40 + 1}})") for i in range(200)]
        armed = threading.Event()
        def on_sigint(signum, frame):   # raises only inside the loop below
            if armed.is_set():
                raise KeyboardInterrupt
        signal.signal(signal.SIGINT, on_sigint)
        stop = threading.Event()
        def storm():
            while not stop.is_set():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.001)
        thread = threading.Thread(target=storm)
        thread.start()
        deadline = time.monotonic() + 60
        try:
            armed.set()
            while not all(f.done() for f in futures) and time.monotonic() < deadline:
                try:
                    store.dispatch(0.01)
                except KeyboardInterrupt:
                    pass
        finally:
            armed.clear()
            stop.set()
            thread.join()
        deadline = time.monotonic() + 20  # all done long before, unless one was lost
        while not all(f.done() for f in futures) and time.monotonic() < deadline:
            store.dispatch(0.05)
        store.close()
        print(sum(f.done() and not f.cancelled() and f.exception() is None for f in futures))
    """, timeout=2 * BOUND)
    assert proc.returncode == 0, proc.stderr
    assert "Exception ignored" not in proc.stderr, proc.stderr
    assert proc.stdout.strip() == "200"


# --- concurrent.futures.wait / as_completed inside a callback ----------------------------------


@pytest.mark.parametrize("dispatch", ["inline", "thread", "queue"])
def test_futures_wait_and_as_completed_in_a_callback(v4_proxy, dispatch):
    """Inside a callback of the store, concurrent.futures.wait and as_completed over a pending
    future of the same store raise StateError at once (they would hold up the callback that
    completes it: for their timeout, or for ever without one, close() with them), as
    result() and exception() do; over futures that are all done they answer as usual."""
    v4_proxy.fault(mode="slow", delay_ms=20000, match="Products(11)", count=-1)
    try:
        with odatastore.Store(v4_proxy.url, dispatch=dispatch) as store:
            store.wait_open(BOUND)
            done = store.submit("READ", "Products(1)")
            assert done.result(BOUND)["ID"] == 1
            seen = {}
            slow = []

            def on_complete(request, response, error):
                pending = store.submit("READ", "Products(11)")
                slow.append(pending)
                for name, wait in [
                        ("wait", lambda: concurrent.futures.wait([pending])),
                        ("wait done first", lambda: concurrent.futures.wait([done, pending], timeout=BOUND)),
                        ("wait all", lambda: concurrent.futures.wait([pending, done], timeout=BOUND,
                                                                     return_when=concurrent.futures.ALL_COMPLETED)),
                        ("as_completed", lambda: list(concurrent.futures.as_completed([pending]))),
                        ("as_completed done first", lambda: list(concurrent.futures.as_completed(
                            [done, pending], timeout=BOUND))),
                        ("exception", lambda: pending.exception(BOUND))]:
                    try:
                        wait()
                        seen[name] = "returned"
                    except odatastore.StateError:
                        seen[name] = "StateError"
                    except BaseException as e:
                        seen[name] = repr(e)
                # what needs no wait works: all done, or one done is enough
                seen["wait done"] = concurrent.futures.wait([done], timeout=0).done == {done}
                seen["first completed"] = concurrent.futures.wait(
                    [done, pending], return_when=concurrent.futures.FIRST_COMPLETED).done == {done}
                seen["as_completed done"] = [f.result()["ID"] for f in concurrent.futures.as_completed([done])]
                seen["pending untouched"] = not pending.done() and not pending._waiter_list

            req = store.request("READ", "Products(2)", on_complete=on_complete).start()
            assert req.result(BOUND)["ID"] == 2
            assert seen == {"wait": "StateError", "wait done first": "StateError", "wait all": "StateError",
                            "as_completed": "StateError", "as_completed done first": "StateError",
                            "exception": "StateError", "wait done": True, "first completed": True,
                            "as_completed done": [1], "pending untouched": True}
            # outside the callbacks the same waits work
            slow[0].cancel()
            assert concurrent.futures.wait(slow, timeout=BOUND).done == set(slow)
    finally:
        v4_proxy.clear()


def test_futures_wait_and_as_completed_type_check(tmp_path):
    """mypy --strict accepts concurrent.futures.wait / as_completed over RequestFuture and
    OperationFuture (typeshed's protocol wants _condition and _waiters settable)."""
    pytest.importorskip("mypy")
    app = tmp_path / "futures_app.py"
    app.write_text(textwrap.dedent("""\
        import concurrent.futures

        import odatastore


        def run(store: odatastore.Store) -> list[object]:
            futures = [store.submit("READ", f"Products({i})") for i in range(1, 4)]
            done, pending = concurrent.futures.wait(futures, timeout=10)
            results: list[object] = [f.result() for f in done]
            for f in concurrent.futures.as_completed(futures, timeout=10):
                results.append(f.result())
            upload: odatastore.OperationFuture = store.submit_upload()
            concurrent.futures.wait([upload], return_when=concurrent.futures.FIRST_COMPLETED)
            results.extend(f.result() for f in concurrent.futures.as_completed([upload]))
            return results
        """))
    env = dict(os.environ, MYPYPATH=os.path.join(ROOT, "bindings", "python", "src"))
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir",
                             os.path.join(ROOT, "build", "mypy-cache-hostile"), "--python-version", "3.9",
                             str(app)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


# --- Store options: wrong types and values out of their C field's range --------------------------


@pytest.mark.parametrize("name, value", [
    ("max_held_requests", 2**32 + 1),     # ctypes would have wrapped it to 1
    ("max_held_requests", -1),
    ("max_logon_attempts", 2**32),        # wrapped to 0 (the default)
    ("max_connections", 2**31),           # wrapped to a negative number
    ("max_connections", 2**64),
    ("max_connections", "8"),
    ("max_connections", 1.5),
    ("max_connections", True),
    ("download_page_size", True),
    ("download_page_size", 2.0),
    ("odata_version", 4.0),
    ("odata_version", True),
    ("store_path", 3),
    ("defining_requests", 5),
    ("mode", ["online"]),
    ("dispatch", 1),
    ("verify", "no"),
    ("csrf_protection", 0),
    ("typed", None),
    ("logon_login_page", 1),
    ("on_state", 5),
    ("on_progress", "print"),
    ("on_logon", object()),
])
def test_store_arguments_are_checked_before_c(v4_server, tmp_path, name, value):
    """Every Store(...) argument of the wrong type, or out of the range of the C field it
    goes into, raises InvalidArgumentError naming it before anything reaches C (never a
    bare TypeError, never a value ctypes wrapped)."""
    extra = {}
    if name in ("download_page_size", "defining_requests"):
        extra = {"store_path": str(tmp_path / "never-made.store"), "mode": "offline"}
    with pytest.raises(odatastore.InvalidArgumentError, match=name):
        odatastore.Store(v4_server.url, **{**extra, name: value})
    assert not (tmp_path / "never-made.store").exists()


def test_store_count_options_at_their_bounds(v4_server):
    """0 and None are the library's defaults; the largest C int is taken as it is."""
    for value in (0, None, 2**31 - 1):
        with odatastore.Store(v4_server.url, max_held_requests=value, max_connections=1 if value else value) as store:
            futures = [store.submit("READ", f"Products({i})") for i in range(1, 6)]  # held while opening
            assert [f.result(BOUND)["ID"] for f in futures] == [1, 2, 3, 4, 5]


# --- an Observer keeps its store alive -----------------------------------------------------------


class _Seen:
    def __init__(self):
        self.count = 0
        self.cond = threading.Condition()

    def __call__(self, store, changes):
        with self.cond:
            self.count += 1
            self.cond.notify_all()

    def wait_for(self, n):
        with self.cond:
            assert self.cond.wait_for(lambda: self.count >= n, BOUND), self.count


def test_an_observer_keeps_its_store_alive(v4_server, tmp_path):
    """Child objects keep their parents alive: with only the observer held, the store stays
    open and the observer keeps being called; an observer nobody holds keeps being called
    while its store is held. When neither is reachable the garbage collector closes the store
    and removes the observer, whichever it finalizes first."""
    import weakref
    seen = _Seen()
    store = odatastore.Store(v4_server.url, store_path=tmp_path / "o.store", defining_requests=["Categories"])
    store.wait_open(BOUND)
    observer = store.observe("Categories", seen)
    store_ref = weakref.ref(store)
    del store
    gc.collect()
    assert store_ref() is not None and not store_ref().closed and observer.active
    store_ref().create("Categories", {"Name": "kept"})
    seen.wait_for(1)
    store = store_ref()
    observer.remove()
    assert not observer.active
    # an observer nobody holds: called while the store is held
    store.observe("Categories", seen)
    store.create("Categories", {"Name": "dropped observer"})
    seen.wait_for(2)
    store.close()
    del store
    gc.collect()
    assert store_ref() is None

    # neither reachable: collected together (several pairs, made in both orders)
    refs = []
    for i in range(6):
        s = odatastore.Store(v4_server.url, store_path=tmp_path / f"c{i}.store", defining_requests=["Categories"],
                             dispatch="thread" if i % 2 else "inline")
        s.wait_open(BOUND)
        o = s.observe("Categories", seen)
        refs.append((weakref.ref(s), weakref.ref(o), o._thunk))
        if i % 3 == 0:
            s.create("Categories", {"Name": f"pair {i}"})
        del s, o
    gc.collect()
    for s_ref, o_ref, thunk in refs:
        assert s_ref() is None and o_ref() is None
    del refs, thunk
    gc.collect()


# --- os.fork() -------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork")
@pytest.mark.parametrize("dispatch", ["inline", "thread", "queue"])
def test_a_forked_child_refuses_the_parents_stores(v4_server, v4_proxy, dispatch):
    """After os.fork() the parent's stores are dead in the child (their threads exist only in
    the parent): every call raises ClosedError ("opened in another process") at once, also
    waiting for a request that was in flight at the fork, instead of hanging; close() does
    nothing; a new Store opened in the child works; the parent's store goes on."""
    v4_proxy.fault(mode="slow", delay_ms=20000, match="Products(11)", count=-1)
    try:
        proc = _run(f"""
            import faulthandler, os, sys, odatastore
            store = odatastore.Store({v4_proxy.url!r}, dispatch={dispatch!r})
            store.wait_open(60)
            first = store.read("Products(1)")
            done = store.submit("READ", "Products(2)")
            done.result(60)
            slow = store.submit("READ", "Products(11)")   # in flight at the fork
            pid = os.fork()
            if pid == 0:
                faulthandler.dump_traceback_later(30, exit=True)   # a hang is a failure, not a stuck test
                out = []
                for name, call in [("read", lambda: store.read("Products(3)", timeout=5)),
                                   ("submit", lambda: store.submit("READ", "Products(3)")),
                                   ("in flight", lambda: slow.result(5)),
                                   ("request id", lambda: slow.request.id),
                                   ("model", lambda: store.model),
                                   ("with", lambda: store.__enter__())]:
                    try:
                        call()
                        out.append(name + ": returned")
                    except odatastore.ClosedError as e:
                        out.append(name + (": ClosedError" if "another process" in str(e) else ": " + str(e)))
                out.append("done future: %d" % done.result(0)["ID"])
                out.append("state: " + store.state.name)
                store.close()
                with odatastore.Store({v4_server.url!r}, dispatch={dispatch!r}) as fresh:
                    out.append("new store: %d" % fresh.read("Products(4)")["ID"])
                print("; ".join(out), flush=True)
                sys.exit(0)
            _, status = os.waitpid(pid, 0)
            print("child exit", os.waitstatus_to_exitcode(status))
            slow.cancel()
            print("parent", store.read("Products(5)")["ID"])
            store.close()
        """)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines() == [
            "read: ClosedError; submit: ClosedError; in flight: ClosedError; request id: ClosedError; "
            "model: ClosedError; with: ClosedError; done future: 2; state: CLOSED; new store: 4",
            "child exit 0", "parent 5"], proc.stdout + proc.stderr
    finally:
        v4_proxy.clear()


# --- writes made while the store opens --------------------------------------------------------


def test_a_write_made_while_opening_is_typed_by_the_model(v4_proxy):
    """A write made before the store has its $metadata waits for it (bounded by the request's
    timeout) and is typed like one made after wait_open(): float NaN for an Edm.Decimal is
    refused (ValueError) before anything is sent, synchronously, through submit() and
    awaited; a Decimal goes out exact. Before, it went out untyped ("NaN") and the service
    stored it."""
    import asyncio
    with odatastore.Store(v4_proxy.url) as store:
        price = store.read("Products(2)")["Price"]
    for how in ("update", "submit", "update_async"):
        v4_proxy.fault(mode="slow", delay_ms=3000, match="$metadata", count=1)
        try:
            with odatastore.Store(v4_proxy.url) as store:
                assert store.odata_version == 0  # $metadata is held at the proxy
                with pytest.raises(ValueError, match="NaN"):
                    if how == "update":
                        store.update("Products(2)", {"Price": float("nan")}, etag="*", timeout=BOUND)
                    elif how == "submit":
                        store.submit("UPDATE", "Products(2)", {"Price": float("nan")}, etag="*")
                    else:
                        asyncio.run(asyncio.wait_for(store.update_async(
                            "Products(2)", {"Price": float("nan")}, etag="*"), BOUND))
                assert store.read("Products(2)")["Price"] == price
        finally:
            v4_proxy.clear()
    v4_proxy.fault(mode="slow", delay_ms=3000, match="$metadata", count=1)
    try:
        with odatastore.Store(v4_proxy.url) as store:
            store.update("Products(2)", {"Price": decimal.Decimal("12345.67")}, etag="*", timeout=BOUND)
            assert store.read("Products(2)")["Price"] == decimal.Decimal("12345.67")
            store.update("Products(2)", {"Price": price}, etag="*")
    finally:
        v4_proxy.clear()


def test_a_write_while_opening_times_out_with_its_request(v4_proxy):
    """The wait for the model is bounded by the request's timeout: RequestTimeoutError then,
    nothing sent."""
    v4_proxy.fault(mode="slow", delay_ms=20000, match="$metadata", count=1)
    try:
        with odatastore.Store(v4_proxy.url) as store:
            with pytest.raises(odatastore.RequestTimeoutError, match=r"\$metadata"):
                store.update("Products(2)", {"Price": decimal.Decimal("1.00")}, etag="*", timeout=0.2)
    finally:
        v4_proxy.clear()


# --- bodies: keys that are not str, absurd decimals, naive datetimes ----------------------------


def test_body_keys_must_be_str(v4_server):
    """A dict key that is not a str, at the top of a body or nested, raises
    InvalidArgumentError naming it before anything is sent (json would have written {1: 2}
    as {"1": 2}, and a top-level one failed with an internal TypeError)."""
    with odatastore.Store(v4_server.url) as store:
        before = store.read("Products(3)")
        for body in ({1: "x"}, {"Name": "n", ("a",): 1}, {"Name": "n", "Extra": {1: 2}},
                     {"Name": "n", "Tags": [{"a": 1}, {2: "b"}]}):
            with pytest.raises(odatastore.InvalidArgumentError, match="not a str"):
                store.update("Products(3)", body, etag="*")
            with pytest.raises(odatastore.InvalidArgumentError, match="not a str"):
                store.submit("UPDATE", "Products(3)", body)
        assert store.read("Products(3)") == before


@pytest.mark.parametrize("text", ["1E+100000000", "1E+1000", "1E-401", "-12345678901234567890E+390"])
def test_a_decimal_with_an_absurd_expansion_is_refused(v4_server, text):
    """A Decimal goes out in its exact fixed-point form: one that needs more than 400 digits
    raises InvalidArgumentError (1E+100000000 was a 100 MB body, larger ones MemoryError)."""
    assert odatastore._values.MAX_DECIMAL_DIGITS == 400
    with odatastore.Store(v4_server.url) as store:
        with pytest.raises(odatastore.InvalidArgumentError, match="at most 400"):
            store.update("Products(3)", {"Price": decimal.Decimal(text)}, etag="*")
        with pytest.raises(odatastore.InvalidArgumentError, match="at most 400"):
            store.call("Products(3)/NotThere", {"p": [decimal.Decimal(text)]})  # nested, untyped
    # the largest accepted forms go out exact (400 digits), as before
    assert odatastore._values.dumps({"a": decimal.Decimal("1E+399"), "b": decimal.Decimal("1E-400")}) == \
        '{"a":"1' + "0" * 399 + '","b":"0.' + "0" * 399 + '1"}'


def test_a_naive_datetime_for_a_datetimeoffset_is_refused(v4_server):
    """Edm.DateTimeOffset needs an offset: a naive datetime (which the service would take as
    UTC) raises InvalidArgumentError naming the property; an aware one is sent."""
    with odatastore.Store(v4_server.url) as store:
        before = store.read("Products(4)")
        assert isinstance(before["LastModified"], datetime.datetime) and before["LastModified"].tzinfo is not None
        naive = datetime.datetime(2024, 3, 1, 12, 30)
        with pytest.raises(odatastore.InvalidArgumentError, match="LastModified.*aware datetime"):
            store.update("Products(4)", {"LastModified": naive}, etag="*")
        assert store.read("Products(4)")["LastModified"] == before["LastModified"]
        aware = naive.replace(tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
        store.update("Products(4)", {"LastModified": aware}, etag="*")
        assert store.read("Products(4)")["LastModified"] == aware
        store.update("Products(4)", {"LastModified": before["LastModified"]}, etag="*")
