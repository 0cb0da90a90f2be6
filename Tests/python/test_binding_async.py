"""odatastore binding: futures, asyncio (queue dispatch through the store's descriptor and
thread dispatch), delegate and completion callbacks, store state callbacks, cancellation."""
import asyncio
import concurrent.futures
import threading

import pytest

import odatastore

BOUND = 30  # seconds: every wait is bounded


def test_futures_eight_in_flight(v4_server):
    with odatastore.Store(v4_server.url) as store:
        futures = [store.submit("READ", f"Products({i})") for i in range(1, 41)]
        assert all(isinstance(f, concurrent.futures.Future) for f in futures)
        done, pending = concurrent.futures.wait(futures, timeout=BOUND)
        assert not pending
        assert [f.result()["ID"] for f in futures] == list(range(1, 41))
        assert futures[0].request.state == odatastore.RequestState.FINISHED
        bad = store.submit("READ", "Products(4242)")
        assert isinstance(bad.exception(BOUND), odatastore.NotFoundError)


def test_delegate_callbacks_in_order_on_the_library_thread(v2_server):
    events = []
    threads = set()
    done = threading.Event()

    class Recorder(odatastore.RequestDelegate):
        def started(self, request):
            events.append(("started", request.context))
            threads.add(threading.get_ident())

        def response(self, request, response):
            events.append(("response", response.status, response.data["ID"]))

        def failed(self, request, error, response):
            events.append(("failed", type(error).__name__, response.status if response else None))

        def finished(self, request):
            events.append(("finished",))

    def completion(request, response, error):
        events.append(("complete", error is None))
        done.set()

    with odatastore.Store(v2_server.url, dispatch="thread") as store:
        req = store.request("READ", "Products(3)", delegate=Recorder(), on_complete=completion, context="ctx")
        req.start()
        assert done.wait(BOUND)
        assert events == [("started", "ctx"), ("response", 200, 3), ("finished",), ("complete", True)]
        assert threading.get_ident() not in threads
        events.clear()
        done.clear()
        store.set_default_delegate(Recorder())  # requests without a delegate of their own use it
        store.request("READ", "Products(9999)", on_complete=completion, context="d").start()
        assert done.wait(BOUND)
        assert events == [("started", "d"), ("failed", "NotFoundError", 404), ("complete", False)]


def test_default_dispatch_is_inline_chains_of_done_callbacks(v4_server):
    """Outside a coroutine the store uses ODS_DISPATCH_THREAD_INLINE: done-callbacks that submit
    the next request (8 chains) run one at a time, never on the app's thread, each future once."""
    chains, per_chain = 8, 25
    inside = [0]
    overlaps = []
    threads = set()
    results = {c: [] for c in range(chains)}
    finished = threading.Semaphore(0)
    guard = threading.Lock()

    with odatastore.Store(v4_server.url) as store:
        assert store.dispatch_mode == "inline"

        def chain(c, n):
            def done(f):
                with guard:  # the counter only: a second callback inside would see inside[0] == 1
                    inside[0] += 1
                    if inside[0] > 1:
                        overlaps.append(c)
                threads.add(threading.get_ident())
                results[c].append(f.result()["ID"])
                if n + 1 < per_chain:
                    chain(c, n + 1)
                else:
                    finished.release()
                with guard:
                    inside[0] -= 1
            store.submit("READ", f"Products({(c * per_chain + n) % 300 + 1})").add_done_callback(done)

        for c in range(chains):
            chain(c, 0)
        for _ in range(chains):
            assert finished.acquire(timeout=BOUND)
        assert not overlaps
        assert threading.get_ident() not in threads
        for c in range(chains):
            assert results[c] == [(c * per_chain + n) % 300 + 1 for n in range(per_chain)]
    with odatastore.Store(v4_server.url, dispatch="thread") as store:  # the plain thread mode stays
        assert store.dispatch_mode == "thread" and store.read("Products(1)")["ID"] == 1
    with pytest.raises(odatastore.InvalidArgumentError, match="inline"):
        odatastore.Store(v4_server.url, dispatch="threads")


def test_exception_in_a_callback_is_the_outcome(v4_server):
    class Broken(odatastore.RequestDelegate):
        def response(self, request, response):
            raise ZeroDivisionError("in the delegate")

    with odatastore.Store(v4_server.url) as store:
        fut = store.submit("READ", "Products(1)", delegate=Broken())
        with pytest.raises(ZeroDivisionError):
            fut.result(BOUND)
        req = store.request("READ", "Products(1)", on_complete=lambda r, resp, err: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            req.result(BOUND)
        # a state callback's exception is raised by close()
    states = []

    def on_state(store, state, error):
        states.append(state)
        if state == odatastore.StoreState.OPEN:
            raise RuntimeError("state callback failed")

    store = odatastore.Store(v4_server.url, on_state=on_state)
    store.wait_open(BOUND)
    with pytest.raises(RuntimeError, match="state callback failed"):
        store.close()
    assert states[:2] == [odatastore.StoreState.OPENING, odatastore.StoreState.OPEN]
    assert states[-2:] == [odatastore.StoreState.CLOSING, odatastore.StoreState.CLOSED]
    store.close()  # twice is fine


def test_waiting_inside_a_callback_is_refused(v4_server):
    seen = []
    with odatastore.Store(v4_server.url) as store:
        def completion(request, response, error):
            try:
                store.read("Products(2)")
            except odatastore.StateError as e:
                seen.append(e)
            try:
                store.close()
            except odatastore.StateError as e:
                seen.append(e)
            seen.append(store.submit("READ", "Products(2)"))  # starting one is fine
        store.request("READ", "Products(1)", on_complete=completion).result(BOUND)
        assert isinstance(seen[0], odatastore.StateError) and isinstance(seen[1], odatastore.StateError)
        assert seen[2].result(BOUND)["ID"] == 2


def test_asyncio_through_the_store_descriptor(v4_server):
    """Created inside a coroutine the store dispatches in queue mode on the loop (add_reader):
    callbacks run on the loop's thread; no thread is started for it."""
    callback_threads = set()

    class Where(odatastore.RequestDelegate):
        def finished(self, request):
            callback_threads.add(threading.get_ident())

    async def main():
        threads_before = threading.active_count()
        async with odatastore.Store(v4_server.url) as store:
            assert store.dispatch_mode == "queue" and store.fileno() >= 0
            rows = await store.read_async("OrderLines?$top=10&$orderby=OrderID,LineNo")
            assert len(rows) == 10
            many = await asyncio.gather(*(store.read_async(f"Products({i})", delegate=Where()) for i in range(1, 17)))
            assert [p["ID"] for p in many] == list(range(1, 17))
            with pytest.raises(odatastore.NotFoundError):
                await store.read_async("Products(999)")
            new = await store.create_async("Customers", {"CustomerID": "ASYNC", "CompanyName": "A", "City": "B"})
            assert new["CustomerID"] == "ASYNC"
            await store.update_async("Customers('ASYNC')", {"City": "C"})
            await store.delete_async("Customers('ASYNC')")
            assert await store.call_async("TotalStock()")
            assert store.read("Products(5)")["ID"] == 5  # a sync call on the loop thread dispatches itself
            assert threading.active_count() == threads_before
            return threading.get_ident()

    loop_thread = asyncio.run(asyncio.wait_for(main(), BOUND))
    assert callback_threads == {loop_thread}


def test_asyncio_with_a_thread_mode_store(v2_server):
    with odatastore.Store(v2_server.url) as store:  # created outside a coroutine: inline thread mode
        assert store.dispatch_mode == "inline"

        async def main():
            return await asyncio.gather(*(store.read_async(f"Products({i})") for i in (1, 2, 3)))

        assert [p["ID"] for p in asyncio.run(asyncio.wait_for(main(), BOUND))] == [1, 2, 3]


def test_queue_mode_by_hand(v4_server):
    import select
    with odatastore.Store(v4_server.url, dispatch="queue") as store:
        got = []
        store.request("READ", "Products(8)", on_complete=lambda r, resp, err: got.append(resp.data)).start()
        while not got:
            ready, _, _ = select.select([store.fileno()], [], [], BOUND)
            assert ready, "no callback within the bound"
            store.dispatch(0)
        assert got[0]["ID"] == 8
        fut = store.submit("READ", "Products(9)")
        assert fut.result(BOUND)["ID"] == 9  # result() dispatches while it waits
    with odatastore.Store(v4_server.url, dispatch="thread") as store:
        with pytest.raises(odatastore.StateError):
            store.fileno()


def test_cancel_a_slow_request(v4_proxy):
    v4_proxy.fault(mode="slow", delay_ms=20000, match="Products(11)", count=-1)
    try:
        with odatastore.Store(v4_proxy.url) as store:
            store.wait_open(BOUND)
            req = store.request("READ", "Products(11)").start()
            req.cancel()
            with pytest.raises(odatastore.CancelledError) as e:
                req.result(BOUND)
            assert isinstance(e.value, concurrent.futures.CancelledError)
            assert req.state == odatastore.RequestState.CANCELLED
            with pytest.raises(odatastore.StateError):
                req.cancel()  # already over
            fut = store.submit("READ", "Products(11)")
            store.cancel(fut.request.id)
            assert isinstance(fut.exception(BOUND), odatastore.CancelledError)
            fut2 = store.submit("READ", "Products(11)")
            assert fut2.cancel() and fut2.cancelled()  # Future.cancel cancels the request
            assert fut2.request._done.wait(BOUND) and fut2.request.state == odatastore.RequestState.CANCELLED
            with pytest.raises(odatastore.NotFoundError):
                store.cancel(fut2.request.id)

            async def cancel_task():
                task = asyncio.ensure_future(store.read_async("Products(11)"))
                await asyncio.sleep(0)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
            asyncio.run(asyncio.wait_for(cancel_task(), BOUND))
    finally:
        v4_proxy.clear()


def test_request_timeout_is_a_timeout_error(v4_proxy):
    v4_proxy.fault(mode="slow", delay_ms=5000, match="Products(12)", count=1)
    try:
        with odatastore.Store(v4_proxy.url) as store:
            with pytest.raises(odatastore.RequestTimeoutError) as e:
                store.read("Products(12)", timeout=0.3)
            assert isinstance(e.value, TimeoutError) and e.value.code == odatastore.ETIMEOUT
    finally:
        v4_proxy.clear()


def _in_thread(fn):
    """Runs ``fn`` on a daemon thread for at most BOUND seconds: (finished, result or exception)."""
    out = []

    def run():
        try:
            out.append(fn())
        except BaseException as e:  # noqa: BLE001 - reported to the test
            out.append(e)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(BOUND)
    return (not t.is_alive()), (out[0] if out else None)


def test_store_outlives_the_loop_it_was_created_on(v4_server):
    # dispatch "auto" in a coroutine: queue dispatch attached to that loop. Once asyncio.run()
    # has closed the loop, the store falls back to plain queue dispatch: waiting callers on
    # any thread deliver the callbacks, and another loop can take the descriptor over.
    async def make():
        store = odatastore.Store(v4_server.url)
        assert store.dispatch_mode == "queue"
        assert (await store.read_async("Products(1)"))["ID"] == 1
        return store
    store = asyncio.run(make())
    try:
        finished, value = _in_thread(lambda: store.read("Products(3)", timeout=BOUND)["ID"])
        assert finished and value == 3, value  # it hung: nobody delivered the completion
        finished, value = _in_thread(lambda: store.submit("READ", "Products(4)").result(BOUND)["ID"])
        assert finished and value == 4, value

        async def again():
            rows = await asyncio.gather(*[store.read_async(f"Products({i})") for i in range(5, 9)])
            return [r["ID"] for r in rows]
        finished, value = _in_thread(lambda: asyncio.run(asyncio.wait_for(again(), BOUND)))
        assert finished and value == [5, 6, 7, 8], value
        assert store.read("Products(9)")["ID"] == 9  # the main thread (the first loop's) too
    finally:
        finished, _ = _in_thread(store.close)
        assert finished


def test_store_of_a_stopped_loop_is_served_by_waiting_threads(v4_server):
    # A loop that has stopped but is not closed (between run_until_complete calls) delivers
    # nothing: a thread waiting meanwhile delivers its own callbacks.
    loop = asyncio.new_event_loop()
    try:
        async def make():
            return odatastore.Store(v4_server.url)
        store = loop.run_until_complete(make())
        loop.run_until_complete(store.wait_open_async(BOUND))
        finished, value = _in_thread(lambda: store.submit("READ", "Products(2)").result(BOUND)["ID"])
        assert finished and value == 2, value
        assert loop.run_until_complete(store.read_async("Products(3)"))["ID"] == 3  # the loop again
        store.close()
    finally:
        loop.close()
