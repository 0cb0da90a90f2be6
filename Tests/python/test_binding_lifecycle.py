"""odatastore binding: errors and their builtin bases, closing (twice, with requests in
flight), objects collected in any order, interpreter exit with requests in flight."""
import gc
import os
import subprocess
import sys
import textwrap
import weakref

import pytest

import odatastore
from conftest import BINDING_SRC, ROOT, free_port

BOUND = 30


def test_every_status_has_a_class_with_its_builtin_base():
    bases = {
        odatastore.EINVAL: ValueError, odatastore.ENOMEM: MemoryError, odatastore.ESTATE: RuntimeError,
        odatastore.ENOTFOUND: KeyError, odatastore.ETIMEOUT: TimeoutError, odatastore.EOFFLINE: ConnectionError,
        odatastore.ETLS: ConnectionError, odatastore.EIO: OSError, odatastore.EUNAUTHORIZED: PermissionError,
        odatastore.EFORBIDDEN: PermissionError, odatastore.EUNSUPPORTED: NotImplementedError,
        odatastore.ESYNTAX: ValueError, odatastore.ENOTINSCOPE: LookupError,
    }
    from odatastore import _errors
    for code in range(-21, 0):
        err = _errors.make(code, "message", http_status=0)
        assert isinstance(err, odatastore.Error) and err.code == code
        assert err.code_name.startswith("ODS_") and str(err) == "message"
        if code in bases:
            assert isinstance(err, bases[code]), err.code_name
        assert odatastore.strerror(code) != "unknown status"
    import pickle
    again = pickle.loads(pickle.dumps(_errors.make(odatastore.ENOTFOUND, "gone", http_status=404, odata_code="X")))
    assert type(again) is odatastore.NotFoundError and again.http_status == 404 and again.odata_code == "X"


def test_error_carries_the_service_error(v4_server):
    with odatastore.Store(v4_server.url) as store:
        with pytest.raises(odatastore.HTTPError) as e:
            store.read("Products?$filter=NoSuchProperty eq 1")
    err = e.value
    assert err.http_status == 400 and err.code == odatastore.EHTTP and err.code_name == "ODS_EHTTP"
    assert err.odata_code and err.odata_message and err.response.status == 400
    assert "error" in err.response.json()


def test_offline_server_is_a_connection_error():
    port = free_port()  # nothing listens there
    with odatastore.Store(f"http://127.0.0.1:{port}/odata/", connect_timeout=5) as store:
        with pytest.raises(odatastore.OfflineError) as e:
            store.read("Products(1)")
        assert isinstance(e.value, ConnectionError)
        with pytest.raises(odatastore.OfflineError):
            store.wait_open(BOUND)  # the store failed to open: the open error
        assert store.state == odatastore.StoreState.FAILED


def test_store_kinds_need_their_options(tmp_path):
    # mixed stores (test_binding_mixed.py) take the offline options: a store file first
    with pytest.raises(odatastore.InvalidArgumentError) as e:
        odatastore.Store("http://127.0.0.1:1/odata/", mode="mixed")
    assert e.value.code == odatastore.EINVAL
    assert not (tmp_path / "s.db").exists()
    with pytest.raises(odatastore.InvalidArgumentError):
        odatastore.Store("http://127.0.0.1:1/odata/", mode="online", store_path="x.db")
    with pytest.raises(odatastore.InvalidArgumentError):  # an offline store needs its file
        odatastore.Store("http://127.0.0.1:1/odata/", mode="offline")


def test_invalid_arguments():
    with pytest.raises(odatastore.InvalidArgumentError) as e:
        odatastore.Store("ftp://nowhere/")
    assert isinstance(e.value, ValueError) and e.value.code == odatastore.EINVAL
    # a malformed host or port fails at once, named, instead of every request in libcurl
    for root, named in (("http://[::1/odata/", "IP literal"), ("http://127.0.0.1:99999/", "port"),
                        ("http://ho st/", "spaces")):
        with pytest.raises(odatastore.InvalidArgumentError, match=named):
            odatastore.Store(root)
    for bad in ({"dispatch": "fast"}, {"mode": "sideways"}, {"odata_version": 3}, {"timeout": -1},
                {"username": "u", "bearer_token": "t"}, {"max_connections": -2}):
        with pytest.raises(odatastore.InvalidArgumentError):
            odatastore.Store("http://127.0.0.1:1/odata/", **bad)
    with odatastore.Store("http://127.0.0.1:1/odata/") as store:
        with pytest.raises(odatastore.InvalidArgumentError):
            store.request("SHOUT", "Products")
        with pytest.raises(odatastore.InvalidArgumentError):
            store.request("READ", "Products\0")



def test_text_utf8_cannot_hold_is_an_invalid_argument():
    """A lone surrogate (from surrogateescape or bad slicing) cannot go out as UTF-8: every
    string argument says so as an InvalidArgumentError naming it (an odatastore.Error and a
    ValueError), never a bare UnicodeEncodeError from inside the binding; bytes bodies that
    are not UTF-8 likewise. A NUL, which C would cut the text at, is refused everywhere."""
    bad = "Products('\ud800')"
    with odatastore.Store("http://127.0.0.1:1/odata/") as store:
        for call in (lambda: store.submit("READ", bad), lambda: store.request("READ", bad),
                     lambda: store.submit("CREATE", "Categories", {"ID": 1, "Name": "\udcff"}),
                     lambda: store.submit("CREATE", "Categories", '{"Name": "\udcff"}'),
                     lambda: store.request("READ", "Products(1)", headers={"X-A": "\ud800"}),
                     lambda: store.request("READ", "Products(1)", etag='W/"\ud800"')):
            with pytest.raises(odatastore.InvalidArgumentError, match="not valid Unicode text") as e:
                call()
            assert isinstance(e.value, ValueError) and e.value.code == odatastore.EINVAL
        with pytest.raises(odatastore.InvalidArgumentError, match="must be UTF-8 JSON"):
            store.submit("CREATE", "Categories", b'{"Name": "\xff"}')
    with pytest.raises(odatastore.InvalidArgumentError, match="service_root is not valid Unicode"):
        odatastore.Store("http://127.0.0.1:1/\ud800/")
    with pytest.raises(odatastore.InvalidArgumentError, match="url is not valid Unicode"):
        odatastore.check_url("Products('\ud800')")
    with pytest.raises(odatastore.InvalidArgumentError, match="NUL"):
        odatastore.check_url("Products(1)\0junk")  # was cut at the NUL and checked as Products(1)
    assert odatastore.check_url("Products(1)")["canonical"] == "Products(1)"


def test_version_check():
    from odatastore import _ffi
    _ffi.check_version(_ffi.EXPECTED_VERSION_NUMBER)
    _ffi.check_version(_ffi.EXPECTED_VERSION_NUMBER + 1001)
    for wrong in (1_000_000, 2_001_000, _ffi.EXPECTED_VERSION_NUMBER - 1):
        with pytest.raises(ImportError, match="does not suit"):
            _ffi.check_version(wrong)


def test_close_twice_and_use_after_close(v4_server):
    store = odatastore.Store(v4_server.url)
    assert store.read("Products(1)")["ID"] == 1
    store.close()
    store.close()
    assert store.closed and store.state == odatastore.StoreState.CLOSED
    with pytest.raises(odatastore.ClosedError):
        store.read("Products(1)")
    with pytest.raises(odatastore.ClosedError):
        store.submit("READ", "Products(1)")


def test_close_with_requests_in_flight(v4_proxy):
    v4_proxy.fault(mode="slow", delay_ms=20000, match="Products(2", count=-1)
    try:
        store = odatastore.Store(v4_proxy.url)
        store.wait_open(BOUND)
        futures = [store.submit("READ", f"Products({20 + i})") for i in range(6)]
        started = [store.request("READ", "Products(27)").start() for _ in range(2)]
        store.close()  # cancels and delivers every last callback before it returns
        for f in futures:
            assert f.done() and isinstance(f.exception(0), odatastore.CancelledError)
        for r in started:
            assert r.done and r.state == odatastore.RequestState.CANCELLED
            with pytest.raises(odatastore.CancelledError):
                r.result(0)
    finally:
        v4_proxy.clear()


def test_objects_collected_in_any_order(v4_server):
    # A request keeps its store alive; dropping the store first leaves the request usable.
    store = odatastore.Store(v4_server.url)
    ref = weakref.ref(store)
    req = store.request("READ", "Products(4)")
    fut = store.submit("READ", "Products(5)")
    del store
    gc.collect()
    assert ref() is not None
    assert req.result(BOUND)["ID"] == 4 and fut.result(BOUND)["ID"] == 5
    del req, fut
    gc.collect()
    assert ref() is None  # collected, and closed on the way (no thread left behind)

    # Futures without their requests or store: started requests run to the end.
    store = odatastore.Store(v4_server.url)
    fut = store.submit("READ", "Products(6)")
    del store
    gc.collect()
    assert fut.result(BOUND)["ID"] == 6
    del fut
    gc.collect()

    # Store and unstarted request dropped together, in a cycle.
    store = odatastore.Store(v4_server.url)
    req = store.request("READ", "Products(7)")
    store.cycle = req
    del store, req
    gc.collect()

    # Response and entities outlive everything.
    with odatastore.Store(v4_server.url) as store:
        req = store.request("READ", "Products(8)")
        req.result(BOUND)
    resp = req.response
    del req, store
    gc.collect()
    assert resp.data["ID"] == 8 and resp.status == 200


def run_script(code, timeout=60):
    env = dict(os.environ, PYTHONPATH=str(BINDING_SRC))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_interpreter_exit_with_requests_in_flight(v4_proxy):
    v4_proxy.fault(mode="slow", delay_ms=20000, match="Products(3", count=-1)
    try:
        for dispatch in ("thread", "queue"):
            result = run_script(f"""
                import odatastore
                store = odatastore.Store({v4_proxy.url!r}, dispatch={dispatch!r})
                futures = [store.submit("READ", f"Products({{30 + i}})") for i in range(8)]
                req = store.request("READ", "Products(39)", on_complete=lambda r, resp, err: print("done", type(err).__name__))
                req.start()
                print("exiting", flush=True)
                """)
            assert result.returncode == 0, result.stderr
            assert "exiting" in result.stdout and "done CancelledError" in result.stdout
    finally:
        v4_proxy.clear()


def test_proxy_environment_variables_are_ignored(v4_server):
    # The library uses no proxy unless the app configures one, whatever the environment says:
    # every proxy variable libcurl reads points at a port nobody listens on, and no_proxy
    # names nothing; a GET that went through any of them would fail to connect.
    dead = f"http://127.0.0.1:{free_port()}"
    env = dict(os.environ, PYTHONPATH=str(BINDING_SRC), http_proxy=dead, HTTP_PROXY=dead, https_proxy=dead,
               HTTPS_PROXY=dead, all_proxy=dead, ALL_PROXY=dead, no_proxy="", NO_PROXY="")
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        import odatastore
        with odatastore.Store({v4_server.url!r}) as store:
            print("ID", store.read("Products(3)")["ID"], len(store.read("Products?$top=2")))
        """)], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ID", "3", "2"]


def test_library_missing_is_a_clear_import_error():
    env_missing = dict(os.environ, ODATASTORE_LIBRARY="/nonexistent/libodatastore.so")
    result = subprocess.run([sys.executable, "-c", "import odatastore\ntry:\n    odatastore.version()\n"
                             "except ImportError as e:\n    print('ImportError:', e)"],
                            env=dict(env_missing, PYTHONPATH=str(BINDING_SRC)), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "ImportError: cannot load $ODATASTORE_LIBRARY=/nonexistent/libodatastore.so" in result.stdout


def test_store_collected_on_its_own_callback_thread(v4_server):
    # The only references to the store are dropped inside its callback: it is closed from
    # another thread (the library refuses a close from its own callback).
    import threading
    closed = threading.Event()
    holder = {}

    def on_state(store, state, error):
        if state == odatastore.StoreState.CLOSED:
            closed.set()

    def completion(request, response, error):
        holder.clear()  # the store's last reference goes here, on the callback thread
        request.store = None

    store = odatastore.Store(v4_server.url, on_state=on_state)
    holder["store"] = store
    req = store.request("READ", "Products(1)", on_complete=completion)
    ref = weakref.ref(store)
    del store
    req.start()
    assert req._done.wait(BOUND)
    del req
    gc.collect()
    assert closed.wait(BOUND)
    # The closing thread holds the store until close() returns (the CLOSED callback comes
    # from inside close()): wait for that thread, then the store must be gone.
    for t in threading.enumerate():
        if t.name == "odatastore-close":
            t.join(BOUND)
    gc.collect()
    assert ref() is None


def _open_fds():
    return len(os.listdir("/proc/self/fd"))


def test_dropped_queue_store_with_an_undelivered_answer_is_closed(v4_server):
    # Nobody delivers a queue store's callbacks once no code can reach it: its requests do
    # not keep it alive (it keeps them), so the garbage collector closes it (descriptors and
    # threads released) instead of leaving it open for good.
    gc.collect()
    before = _open_fds()
    refs = []
    for _ in range(5):
        store = odatastore.Store(v4_server.url, dispatch="queue")
        store.wait_open(BOUND)
        fut = store.submit("READ", "Products(1)")
        store.request("READ", "Products(2)").start()
        assert select_readable(store.fileno(), BOUND)  # callbacks wait; nobody delivers them
        refs.append(weakref.ref(store))
        del store, fut
    gc.collect()
    assert all(r() is None for r in refs)
    assert _open_fds() <= before + 2, (before, _open_fds())

    # What the app still holds keeps the store, and works: a future, a request.
    store = odatastore.Store(v4_server.url, dispatch="queue")
    ref = weakref.ref(store)
    fut = store.submit("READ", "Products(5)")
    req = store.request("READ", "Products(6)").start()
    del store
    gc.collect()
    assert ref() is not None
    assert fut.result(BOUND)["ID"] == 5 and req.result(BOUND)["ID"] == 6
    del fut, req
    gc.collect()
    assert ref() is None


def select_readable(fd, timeout):
    import select
    return bool(select.select([fd], [], [], timeout)[0])


def test_store_headers_are_checked_like_request_headers(v4_proxy):
    # In the C API's "Name: value" lines a ':' in a name would split the line elsewhere
    # ({"A:B": "x"} went out as "A: B: x"): names and values are checked as set_header does.
    for bad, named in (({"A:B": "x"}, 'invalid header name "A:B"'), ({"": "x"}, 'invalid header name ""'),
                       ({"X Y": "x"}, "X Y"), ({"X": "a\r\nB: c"}, "CR, LF, NUL"), ({"X": "a\x1bb"}, "control character"),
                       ({"X": 1}, "header X must be a str"), ({5: "x"}, "must be a str"),
                       (["X: y"], "mapping")):
        with pytest.raises(odatastore.InvalidArgumentError, match=named):
            odatastore.Store(v4_proxy.url, headers=bad)
        with odatastore.Store(v4_proxy.url) as store:
            with pytest.raises(odatastore.InvalidArgumentError):
                store.read("Products(1)", headers=bad)
    import json
    import urllib.request
    with odatastore.Store(v4_proxy.url, headers={"X-Good": "a: b"}) as store:
        assert store.read("Products(1)")["ID"] == 1
    with urllib.request.urlopen(v4_proxy.control, timeout=10) as r:
        sent = json.loads(r.read())["headers"][-1]
    assert ["X-Good", "a: b"] in sent and not any(h[0] == "A" for h in sent)


def test_argument_types_and_ranges_are_named(v4_server):
    with pytest.raises(odatastore.InvalidArgumentError, match="service_root must be a str"):
        odatastore.Store(5)
    with pytest.raises(odatastore.InvalidArgumentError, match="username must be a str"):
        odatastore.Store(v4_server.url, username=3, password="p")
    for bad in (float("inf"), float("nan"), "5", 10**30):
        with pytest.raises(odatastore.InvalidArgumentError, match="timeout"):
            odatastore.Store(v4_server.url, timeout=bad)
    with odatastore.Store(v4_server.url) as store:
        entity = store.read("Products(3)")
        for path in (5, b"Products(1)", entity, None):
            with pytest.raises(odatastore.InvalidArgumentError, match="path must be a str"):
                store.read(path)
            with pytest.raises(odatastore.InvalidArgumentError, match="path must be a str"):
                store.submit("READ", path)
        with pytest.raises(odatastore.InvalidArgumentError, match="etag must be a str"):
            store.update("Products(1)", {}, etag=5)
        for bad in (float("inf"), float("nan"), -1, "1", 10**30):
            with pytest.raises(odatastore.InvalidArgumentError, match="timeout"):
                store.read("Products(1)", timeout=bad)
        with pytest.raises(odatastore.InvalidArgumentError, match="headers must be a mapping"):
            store.read("Products(1)", headers=[("X", "y")])
        # request ids are uint64: out of range or not an int never reaches C (it wrapped
        # modulo 2**64 and cancelled another request)
        fut = store.submit("READ", "Products(4)")
        rid = fut.request.id
        for bad in (rid + 2**64, -1, 2**70, "x", 1.0, True):
            with pytest.raises(odatastore.InvalidArgumentError, match="request_id|no request has id"):
                store.cancel(bad)
        assert fut.result(BOUND)["ID"] == 4  # not cancelled
        with pytest.raises(odatastore.NotFoundError):
            store.cancel(2**64 - 1)


def _boom_on_open(store, state, error):
    if state == odatastore.StoreState.OPEN:
        raise ValueError("on_state boom")


def test_on_state_exception_is_reported_when_no_caller_can_get_it(v4_server):
    # Collected or closed at exit: through sys.unraisablehook (the default hook's output),
    # never dropped.
    result = run_script(f"""
        import gc, odatastore
        def boom(store, state, error):
            if state == odatastore.StoreState.OPEN:
                raise ValueError("boom " + ("collected" if not kept else "at exit"))
        kept = False
        s = odatastore.Store({v4_server.url!r}, on_state=boom)
        s.wait_open(30)
        del s
        gc.collect()
        kept = True
        s2 = odatastore.Store({v4_server.url!r}, on_state=boom)
        s2.wait_open(30)
        print("end", flush=True)
        """)
    assert result.returncode == 0 and "end" in result.stdout, result.stderr
    assert "Exception ignored in" in result.stderr and "closed by the garbage collector" in result.stderr
    assert "ValueError: boom collected" in result.stderr
    assert "closed at interpreter exit" in result.stderr and "ValueError: boom at exit" in result.stderr


def test_with_body_exception_is_not_replaced_by_an_on_state_exception(v4_server, monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(u.exc_value))
    with pytest.raises(KeyError, match="body"):
        with odatastore.Store(v4_server.url, on_state=_boom_on_open) as store:
            store.wait_open(BOUND)
            raise KeyError("body")
    assert store.closed
    assert [str(e) for e in seen] == ["on_state boom"]
    # Without one, close() at the end of the block raises it, as close() does.
    with pytest.raises(ValueError, match="on_state boom"):
        with odatastore.Store(v4_server.url, on_state=_boom_on_open) as store:
            store.wait_open(BOUND)
    assert len(seen) == 1


def test_with_on_a_closed_store_is_refused(v4_server):
    store = odatastore.Store(v4_server.url)
    store.close()
    with pytest.raises(odatastore.ClosedError):
        with store:
            pass
