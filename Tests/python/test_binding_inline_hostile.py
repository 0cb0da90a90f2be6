"""odatastore binding, dispatch "inline" (the default outside a coroutine) against hostile
callers: done-callbacks that raise, that wait synchronously on their own store or on another
one, that close their store or another store, that sleep; a store dropped (garbage) while
its callbacks chain; the interpreter exiting with requests in flight; many threads submitting
while callbacks run on the transport thread. Every wait is bounded; nothing is timed."""
import gc
import logging
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import odatastore

BOUND = 60  # seconds: every wait is bounded
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _chains(store, chains, per_chain, on_done=None):
    """Starts `chains` chains of `per_chain` READs, each submitted from the previous one's
    done-callback; returns (results per chain, a semaphore released once per ended chain)."""
    results = {c: [] for c in range(chains)}
    ended = threading.Semaphore(0)

    def chain(c, n):
        def done(f):
            try:
                results[c].append(f.result()["ID"])
                if on_done is not None:
                    on_done(c, n, f)
            finally:
                if n + 1 < per_chain:
                    chain(c, n + 1)
                else:
                    ended.release()
        store.submit("READ", f"Products({(c * per_chain + n) % 40 + 1})").add_done_callback(done)

    for c in range(chains):
        chain(c, 0)
    return results, ended


def _expected(c, per_chain):
    return [(c * per_chain + n) % 40 + 1 for n in range(per_chain)]


def test_a_raising_done_callback_does_not_stop_the_others(v4_server, caplog):
    """A done-callback that raises is logged (as concurrent.futures does); the chains it is
    part of go on, and the store closes cleanly."""
    def boom(c, n, f):
        if n % 3 == 0:
            raise ZeroDivisionError(f"chain {c} step {n}")

    with caplog.at_level(logging.ERROR, logger="concurrent.futures"):
        with odatastore.Store(v4_server.url) as store:
            assert store.dispatch_mode == "inline"
            results, ended = _chains(store, 8, 12, boom)
            for _ in range(8):
                assert ended.acquire(timeout=BOUND)
            # a callback raising BaseException subclasses that are not Exception: not swallowed
            # by the future, but never across into C either (the store keeps working)
            fut = store.submit("READ", "Products(5)")
            fut.add_done_callback(lambda f: (_ for _ in ()).throw(KeyboardInterrupt()))
            assert fut.result(BOUND)["ID"] == 5
            assert store.read("Products(6)")["ID"] == 6
    for c in range(8):
        assert results[c] == _expected(c, 12)
    assert sum("ZeroDivisionError" in r.getMessage() or (r.exc_info and r.exc_info[0] is ZeroDivisionError)
               for r in caplog.records) == 8 * 4


def test_waiting_or_closing_in_an_inline_callback(v4_server):
    """In a done-callback (run on the transport thread, usually): a synchronous call on the
    same store, waiting for one of its futures and closing it raise StateError at once (no
    deadlock); waiting for another store's request and closing another store work."""
    seen = {}
    with odatastore.Store(v4_server.url) as store, odatastore.Store(v4_server.url) as other:
        other_pending = other.submit("READ", "Products(9)")
        victim = odatastore.Store(v4_server.url)
        victim_futures = [victim.submit("READ", f"Products({i})") for i in range(1, 30)]

        def done(f):
            pending = store.submit("READ", "Products(3)")
            for name, call in (("read", lambda: store.read("Products(2)")),
                               ("result", lambda: pending.result(BOUND)),
                               ("close", store.close)):
                try:
                    call()
                    seen[name] = "returned"
                except odatastore.StateError as e:
                    seen[name] = e
            seen["other_read"] = other.read("Products(4)")["ID"]
            seen["other_result"] = other_pending.result(BOUND)["ID"]
            victim.close()
            seen["victim_closed"] = victim.closed
            seen["pending"] = pending
            finished.set()

        finished = threading.Event()
        first = store.submit("READ", "Products(1)")
        first.add_done_callback(done)
        assert first.result(BOUND)["ID"] == 1
        assert finished.wait(BOUND)  # waiters wake before done-callbacks run (as concurrent.futures)
        assert seen["pending"].result(BOUND)["ID"] == 3
        for name in ("read", "result", "close"):
            assert isinstance(seen[name], odatastore.StateError), (name, seen[name])
        assert seen["other_read"] == 4 and seen["other_result"] == 9 and seen["victim_closed"]
        for f in victim_futures:  # each ended: done, or cancelled by the close
            assert f.done()
            if f.exception(0) is not None:
                assert isinstance(f.exception(0), odatastore.CancelledError)
        assert store.read("Products(7)")["ID"] == 7  # the store still works


def test_slow_callbacks_are_still_correct(v4_server):
    """Callbacks that block (50 ms each) only make the inline store slower."""
    import time

    def slow(c, n, f):
        time.sleep(0.05)

    with odatastore.Store(v4_server.url) as store:
        results, ended = _chains(store, 4, 5, slow)
        side = [store.submit("READ", f"Products({i})") for i in range(1, 21)]
        for _ in range(4):
            assert ended.acquire(timeout=BOUND)
        assert [f.result(BOUND)["ID"] for f in side] == list(range(1, 21))
    for c in range(4):
        assert results[c] == _expected(c, 5)


def test_many_threads_submit_while_callbacks_chain(v4_server):
    threads_n, per_thread = 8, 40
    errors = []
    with odatastore.Store(v4_server.url) as store:
        results, ended = _chains(store, 8, 30)

        def submitter(t):
            try:
                futures = [store.submit("READ", f"Products({(t * per_thread + i) % 40 + 1})") for i in range(per_thread)]
                got = [f.result(BOUND)["ID"] for f in futures]
                if got != [(t * per_thread + i) % 40 + 1 for i in range(per_thread)]:
                    errors.append((t, got))
                got = [store.read(f"Products({i})")["ID"] for i in range(1, 6)]
                if got != [1, 2, 3, 4, 5]:
                    errors.append((t, got))
            except BaseException as e:  # reported below
                errors.append((t, e))

        workers = [threading.Thread(target=submitter, args=(t,)) for t in range(threads_n)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(BOUND)
            assert not w.is_alive()
        for _ in range(8):
            assert ended.acquire(timeout=BOUND)
    assert not errors
    for c in range(8):
        assert results[c] == _expected(c, 30)


def test_a_store_dropped_while_its_callbacks_chain(v4_server):
    """A store nobody references any more (never closed) while chains of done-callbacks run
    inline: its requests in flight hold it, so the chains all end; then it is collected (the
    last reference may go inside a callback, on a library thread: the binding closes it from
    another thread) and closed, and the thread states kept for it are given back."""
    import weakref

    gc.collect()
    before = _thread_states()
    for _ in range(5):
        def run():
            store = odatastore.Store(v4_server.url)
            results, ended = _chains(store, 8, 10)
            return results, ended, weakref.ref(store), store._key

        results, ended, ref, key = run()
        for _ in range(8):
            assert ended.acquire(timeout=BOUND)
        for c in range(8):
            assert results[c] == _expected(c, 10)
        for _ in range(BOUND * 20):
            gc.collect()
            if ref() is None and key not in odatastore._store._kept_states and _thread_states() == before:
                break
            threading.Event().wait(0.05)
        assert ref() is None and key not in odatastore._store._kept_states
        assert _thread_states() == before


_EXIT_SCRIPT = textwrap.dedent("""
    import sys, threading
    import odatastore
    store = odatastore.Store(sys.argv[1])
    store.wait_open(60)
    stop = False

    def chain(s, n):
        def done(f):
            if not stop:
                chain(s, n + 1)
        try:
            s.submit("READ", "Products(%d)" % (n % 40 + 1)).add_done_callback(done)
        except odatastore.Error:
            pass  # closing at exit

    for c in range(8):
        chain(store, c)
    pending = [store.submit("READ", "Products(%d)" % i) for i in range(1, 40)]
    if sys.argv[2] == "thread":
        def loop():
            while True:
                try:
                    store.submit("READ", "Products(2)").result(5)
                except odatastore.Error:
                    return
        threading.Thread(target=loop, daemon=True).start()
    if sys.argv[2] == "dropped":
        del store  # only the requests in flight hold it now
    pending[0].result(60)
    print("EXITING", flush=True)
    sys.exit(0)
""")


@pytest.mark.parametrize("variant", ["plain", "thread", "dropped"])
def test_interpreter_exit_with_requests_in_flight(v4_server, variant):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(ROOT, "bindings", "python", "src"),
                                                      env.get("PYTHONPATH")]))
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-c", _EXIT_SCRIPT, v4_server.url, variant], env=env,
                              capture_output=True, text=True, timeout=BOUND * 2)
        assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
        assert "EXITING" in proc.stdout
        assert "Fatal Python error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-3000:]


def _thread_states():
    """How many Python thread states the interpreter has (kept ones included)."""
    import ctypes

    api = ctypes.pythonapi
    api.PyInterpreterState_Get.restype = ctypes.c_void_p
    api.PyInterpreterState_ThreadHead.restype = ctypes.c_void_p
    api.PyInterpreterState_ThreadHead.argtypes = [ctypes.c_void_p]
    api.PyThreadState_Next.restype = ctypes.c_void_p
    api.PyThreadState_Next.argtypes = [ctypes.c_void_p]
    count, t = 0, api.PyInterpreterState_ThreadHead(api.PyInterpreterState_Get())
    while t:
        count += 1
        t = api.PyThreadState_Next(t)
    return count


@pytest.mark.parametrize("dispatch", ["inline", "thread"])
def test_a_store_the_cycle_collector_closes_gives_its_thread_states_back(v4_server, dispatch):
    """A store in a reference cycle, dropped unclosed: the cycle collector clears its weak
    entries before its __del__ closes it, so the CLOSED and thread-end callbacks cannot find
    the store; the Python thread states kept for its callback thread and transport thread
    must still be given back (they leaked: two per store)."""
    import weakref

    gc.collect()
    before = _thread_states()
    for _ in range(3):
        store = odatastore.Store(v4_server.url, dispatch=dispatch)
        store._cycle = store
        results, ended = _chains(store, 4, 6)
        for _ in range(4):
            assert ended.acquire(timeout=BOUND)
        ref = weakref.ref(store)
        del store
        for _ in range(BOUND * 20):
            gc.collect()
            if ref() is None and not odatastore._store._kept_states and _thread_states() == before:
                break
            threading.Event().wait(0.05)
        assert ref() is None
        assert _thread_states() == before
        assert not odatastore._store._kept_states
