"""The library's log through ctypes (docs/logging.md): a Python handler with a level, the
bridge into the logging module, retries through the fault proxy, and no secret in any
message; the real V4 service behind Tests/servers/fault_proxy.py."""

import logging

import pytest

import odatastore


@pytest.fixture
def proxy(v4_proxy):
    v4_proxy.clear()
    yield v4_proxy
    v4_proxy.clear()
    odatastore.set_log_handler(None)


def test_handler_gets_requests_with_status_and_level_filter(proxy):
    lines = []
    odatastore.set_log_handler(lambda level, category, message: lines.append((level, category, message)),
                               odatastore.LOG_INFO)
    assert odatastore.log_level() == odatastore.LOG_INFO
    with odatastore.Store(proxy.url, username="alice", password="S3cr3t-pass") as store:
        store.read("Products(1)")
    assert any(c == "http" and "/Products(1) -> 200 in " in m for _, c, m in lines), lines
    assert any(c == "store" and (m == "store open" or m.startswith("store open,")) for _, c, m in lines), lines
    assert all(level <= odatastore.LOG_INFO for level, _, _ in lines)
    assert not any("started" in m for _, _, m in lines)  # debug lines are filtered out
    text = "\n".join(m for _, _, m in lines)
    assert "S3cr3t" not in text and "YWxpY2U6UzNjcjN0LXBhc3M" not in text
    odatastore.set_log_handler(None)
    assert odatastore.log_level() == odatastore.LOG_OFF
    count = len(lines)
    with odatastore.Store(proxy.url) as store:
        store.read("Products(1)")
    assert len(lines) == count  # off: nothing more


def test_log_to_logging_and_retries(proxy, caplog):
    proxy.fault(mode="http503", retry_after="0", match="Products(2)")
    logger = logging.getLogger("odstest")
    logger.setLevel(logging.DEBUG)
    odatastore.log_to_logging(logger)
    assert odatastore.log_level() == odatastore.LOG_DEBUG
    with caplog.at_level(logging.DEBUG, logger="odstest"):
        with odatastore.Store(proxy.url, bearer_token="tok-Bearer-XYZ123") as store:
            store.read("Products(2)")
    records = [(r.name, r.levelno, r.getMessage()) for r in caplog.records if r.name.startswith("odstest.")]
    assert any(n == "odstest.retry" and lv == logging.INFO and "retry 1 in 0 ms after HTTP 503" in m
               for n, lv, m in records), records
    assert any(n == "odstest.http" and lv == logging.DEBUG and "Products(2) started" in m for n, lv, m in records)
    assert not any("tok-Bearer-XYZ123" in m for _, _, m in records)


def test_bad_level_and_failing_handler(proxy):
    with pytest.raises(odatastore.InvalidArgumentError):
        odatastore.set_log_handler(print, 9)

    def broken(level, category, message):
        raise RuntimeError("handler bug")

    seen = []
    import sys
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    try:
        odatastore.set_log_handler(broken, odatastore.LOG_INFO)
        with odatastore.Store(proxy.url) as store:
            store.read("Products(1)")  # the library goes on
    finally:
        odatastore.set_log_handler(None)
        sys.unraisablehook = old
    assert seen and isinstance(seen[0], RuntimeError)


def test_handler_turning_itself_off(proxy):
    """set_log_handler from inside a handler neither deadlocks nor frees a running callback."""
    import time
    calls = []

    def once(level, category, message):
        calls.append(message)
        odatastore.set_log_handler(None)

    odatastore.set_log_handler(once, odatastore.LOG_DEBUG)
    with odatastore.Store(proxy.url) as store:
        store.read("Products(1)")
    deadline = time.monotonic() + 10
    while odatastore.log_level() != odatastore.LOG_OFF and time.monotonic() < deadline:
        time.sleep(0.01)
    assert odatastore.log_level() == odatastore.LOG_OFF
    count = len(calls)
    assert count >= 1
    with odatastore.Store(proxy.url) as store:
        store.read("Products(1)")
    assert len(calls) == count


def test_failing_handler_with_the_default_unraisablehook(proxy):
    # The default hook (C) takes only its own UnraisableHookArgs: the report is written as
    # it would write it, not lost to a TypeError about the hook's argument.
    import os
    import subprocess
    import sys
    import textwrap
    from conftest import BINDING_SRC
    code = textwrap.dedent(f"""
        import odatastore
        def broken(level, category, message):
            raise RuntimeError("handler bug")
        odatastore.set_log_handler(broken, odatastore.LOG_INFO)
        with odatastore.Store({proxy.url!r}) as store:
            store.read("Products(1)")
        odatastore.set_log_handler(None)
        print("end", flush=True)
        """)
    result = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(BINDING_SRC)),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "end" in result.stdout, result.stderr
    assert "Exception ignored in odatastore log handler" in result.stderr
    assert "RuntimeError: handler bug" in result.stderr and "UnraisableHookArgs" not in result.stderr
