"""Logon through ctypes (docs/logon.md): the real V4 service behind the fault proxy, whose
``auth`` mode answers 401 unless the Authorization header matches."""

import threading

import pytest

import odatastore

BOUND = 60  # seconds: every wait is bounded
USER_PASSWORD = "Basic dXNlcjpwYXNzd29yZA=="  # user:password


@pytest.fixture
def proxy(v4_proxy):
    v4_proxy.clear()
    yield v4_proxy
    v4_proxy.clear()


class App:
    """Records prompts and answers them later, from a thread of its own (an SSO flow)."""

    def __init__(self, answer, wait_for=None):
        self.prompts = []
        self.answer = answer
        self.wait_for = wait_for
        self.lock = threading.Lock()

    def __call__(self, store, prompt):
        with self.lock:
            self.prompts.append(prompt)

        def later():
            if self.wait_for is not None:
                self.wait_for.wait(BOUND)
            self.answer(prompt)

        threading.Thread(target=later, daemon=True).start()


def test_requests_from_threads_while_opening_wait_for_one_logon(proxy):
    proxy.fault(mode="auth", authorization=USER_PASSWORD)
    all_started = threading.Event()
    app = App(lambda p: p.basic("user", "password"), wait_for=all_started)
    with odatastore.Store(proxy.url, on_logon=app, dispatch="thread") as store:
        futures = [None] * 80

        def start(first):
            for i in range(first, first + 20):
                futures[i] = store.submit("READ", f"Products({i + 1})")
                assert store.state == odatastore.StoreState.OPENING

        threads = [threading.Thread(target=start, args=(n * 20,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        all_started.set()
        assert [f.result(BOUND)["ID"] for f in futures] == list(range(1, 81))
        assert len(app.prompts) == 1
        prompt = app.prompts[0]
        assert prompt.reason == "required" and prompt.http_status == 401 and prompt.attempt == 1
        assert "Basic" in (prompt.authenticate or "")


def test_an_expired_session_asks_once_and_every_request_is_answered(proxy):
    proxy.fault(mode="auth", authorization=USER_PASSWORD)
    app = App(lambda p: p.bearer("fresh"))
    with odatastore.Store(proxy.url, username="user", password="password", on_logon=app) as store:
        assert store.read("Products(1)")["ID"] == 1
        proxy.clear()
        proxy.fault(mode="auth", authorization="Bearer fresh")
        futures = [store.submit("READ", f"Products({i})") for i in range(1, 51)]
        created = store.submit("CREATE", "Customers", {"CustomerID": "PYLOGON", "CompanyName": "Py", "City": "Kiel"})
        assert [f.result(BOUND)["ID"] for f in futures] == list(range(1, 51))
        assert created.result(BOUND)["CustomerID"] == "PYLOGON"
        assert [p.reason for p in app.prompts] == ["expired"]


def test_headers_of_the_apps_own_and_a_login_page(proxy):
    app = App(lambda p: p.headers({"Authorization": USER_PASSWORD}))
    with odatastore.Store(proxy.url, on_logon=app, logon_login_page=True) as store:
        assert store.read("Products(2)")["ID"] == 2
        proxy.fault(mode="respond", status=200, count=1, match="Products(3)",
                    headers=[["Content-Type", "text/html"]], body="<html>please log in</html>")
        proxy.fault(mode="auth", authorization=USER_PASSWORD)
        assert store.read("Products(3)")["ID"] == 3
        assert len(app.prompts) == 1 and app.prompts[0].http_status == 200


def test_a_refused_logon_fails_the_requests_unauthorized(proxy):
    proxy.fault(mode="auth", authorization=USER_PASSWORD)
    app = App(lambda p: p.refuse())
    with odatastore.Store(proxy.url, on_logon=app) as store:
        futures = [store.submit("READ", f"Products({i})") for i in range(1, 4)]
        for f in futures:
            assert isinstance(f.exception(BOUND), odatastore.UnauthorizedError)
        assert store.state == odatastore.StoreState.FAILED
        assert len(app.prompts) == 1


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the callback's bug, reported
def test_a_callback_that_raises_refuses_rather_than_leaving_requests_waiting(proxy):
    proxy.fault(mode="auth", authorization=USER_PASSWORD)

    def broken(store, prompt):
        raise RuntimeError("the app's bug")

    with odatastore.Store(proxy.url, on_logon=broken) as store:
        f = store.submit("READ", "Products(1)")
        assert isinstance(f.exception(BOUND), odatastore.UnauthorizedError)


def test_replying_twice_or_after_close_is_an_error_not_a_crash(proxy):
    proxy.fault(mode="auth", authorization=USER_PASSWORD)
    answered = threading.Event()
    seen = []

    def on_logon(store, prompt):
        seen.append(prompt)
        prompt.basic("user", "password")
        with pytest.raises(odatastore.StateError):
            prompt.refuse()
        with pytest.raises(odatastore.InvalidArgumentError):
            prompt.bearer("")
        answered.set()

    with odatastore.Store(proxy.url, on_logon=on_logon) as store:
        assert store.read("Products(4)")["ID"] == 4
        assert answered.is_set()
        with pytest.raises(odatastore.StateError):
            seen[0].basic("user", "password")
    with pytest.raises(odatastore.ClosedError):
        seen[0].basic("user", "password")

    # A prompt still open when the store closes: the request is cancelled, a late reply refused.
    prompts = []
    store = odatastore.Store(proxy.url, on_logon=lambda s, p: prompts.append(p))
    f = store.submit("READ", "Products(5)")
    for _ in range(BOUND * 10):
        if prompts:
            break
        threading.Event().wait(0.1)
    assert prompts
    store.close()
    assert isinstance(f.exception(BOUND), odatastore.CancelledError)
    with pytest.raises(odatastore.ClosedError):
        prompts[0].basic("user", "password")
