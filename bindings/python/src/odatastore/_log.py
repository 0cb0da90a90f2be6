"""The library's process-wide log (``ods_log_set``, docs/logging.md).

>>> odatastore.set_log_handler(lambda level, category, message: print(level, category, message),
...                            odatastore.LOG_INFO)
>>> odatastore.log_to_logging(logging.getLogger("odatastore"))     # or into the logging module
>>> odatastore.set_log_handler(None)                                 # off again

Messages never contain credentials (no header values, no passwords in URLs, no logon replies).
The handler runs on the library's threads (HTTP, database, callback) or inside a call of yours;
it must return quickly and must not close stores or wait for requests.
"""
from __future__ import annotations

import ctypes
import logging
import threading
from ctypes import c_char_p, c_int, c_void_p
from typing import Callable, Optional

from ._errors import check, library

LOG_OFF = 0
LOG_ERROR = 1
LOG_WARNING = 2
LOG_INFO = 3
LOG_DEBUG = 4

#: ``handler(level, category, message)``: level is one of LOG_ERROR..LOG_DEBUG, category a
#: short word ("http", "retry", "logon", "csrf", "download", "upload", "store",
#: "local", "route").
LogHandler = Callable[[int, str, str], None]

_LOG_CB = ctypes.CFUNCTYPE(None, c_int, c_char_p, c_char_p, c_void_p)

_lock = threading.Lock()
_current: Optional[object] = None          # the CFUNCTYPE object C may call: kept alive
_inside = threading.local()
_declared = False


def _lib() -> ctypes.CDLL:
    global _declared
    lib = library()
    if not _declared:
        lib.ods_log_set.restype = c_int
        lib.ods_log_set.argtypes = [c_int, _LOG_CB, c_void_p]
        lib.ods_log_get_level.restype = c_int
        lib.ods_log_get_level.argtypes = []
        _declared = True
    return lib


def set_log_handler(handler: Optional[LogHandler], level: int = LOG_INFO) -> None:
    """Sends the library's messages of ``level`` and below to ``handler`` (None or LOG_OFF:
    logging off). Replaces any earlier handler; when this returns, the earlier one is not
    running and will not be called again (unless this is called from inside a handler).
    Exceptions raised by the handler are reported through ``sys.unraisablehook`` and do not
    reach the library. Raises InvalidArgumentError for a level outside LOG_OFF..LOG_DEBUG.

    Called from inside a handler, the change is made on a short-lived thread of its own and
    takes effect shortly after this returns: the library waits for running handlers when
    one is replaced, and this module serialises changes, so making it on the handler's
    thread could wait for itself."""
    global _current
    lib = _lib()
    if not (LOG_OFF <= level <= LOG_DEBUG):
        check(lib, lib.ods_log_set(level, _LOG_CB(), None))  # raises InvalidArgumentError
    if getattr(_inside, "depth", 0) > 0:
        threading.Thread(target=set_log_handler, args=(handler, level), name="odatastore-log-set", daemon=True).start()
        return
    if handler is None or level == LOG_OFF:
        with _lock:
            check(lib, lib.ods_log_set(LOG_OFF, _LOG_CB(), None))
            _current = None  # no call of it runs any more: it may be freed
        return
    fn = handler

    def call(lvl: int, category: Optional[bytes], message: Optional[bytes], _context: Optional[int]) -> None:
        _inside.depth = getattr(_inside, "depth", 0) + 1
        try:
            fn(lvl, (category or b"").decode("utf-8", "replace"), (message or b"").decode("utf-8", "replace"))
        except BaseException as e:  # noqa: BLE001 - never into C
            import sys
            if sys.unraisablehook is sys.__unraisablehook__:  # takes only its own args: written as it would
                from ._store import _report_unraisable
                _report_unraisable(e, f"odatastore log handler {handler!r}", "Exception ignored in")
            else:
                sys.unraisablehook(_Unraisable(e, handler))  # type: ignore[arg-type]
        finally:
            _inside.depth -= 1

    thunk = _LOG_CB(call)
    with _lock:
        check(lib, lib.ods_log_set(level, thunk, None))
        _current = thunk  # the one replaced has no call running any more: it may be freed


def log_level() -> int:
    """The level of the current handler (LOG_OFF when none)."""
    return int(_lib().ods_log_get_level())


_TO_LOGGING = {LOG_ERROR: logging.ERROR, LOG_WARNING: logging.WARNING, LOG_INFO: logging.INFO, LOG_DEBUG: logging.DEBUG}


def log_to_logging(logger: Optional[logging.Logger] = None, level: Optional[int] = None) -> None:
    """Sends the library's messages to ``logger`` (default ``logging.getLogger("odatastore")``),
    each to the child logger of its category (``odatastore.http``, ``odatastore.retry``, ...)
    at the matching logging level. ``level`` (LOG_*) defaults to what the logger's effective
    level lets through, so the library formats no message that would be dropped."""
    target = logger if logger is not None else logging.getLogger("odatastore")
    if level is None:
        effective = target.getEffectiveLevel()
        level = (LOG_DEBUG if effective <= logging.DEBUG else LOG_INFO if effective <= logging.INFO
                 else LOG_WARNING if effective <= logging.WARNING else LOG_ERROR)
    children: dict[str, logging.Logger] = {}

    def forward(lvl: int, category: str, message: str) -> None:
        child = children.get(category)
        if child is None:
            child = children[category] = target.getChild(category)
        child.log(_TO_LOGGING.get(lvl, logging.DEBUG), "%s", message)

    set_log_handler(forward, level)


class _Unraisable:
    def __init__(self, exc: BaseException, obj: object) -> None:
        self.exc_type = type(exc)
        self.exc_value = exc
        self.exc_traceback = exc.__traceback__
        self.err_msg = "Exception ignored in odatastore log handler"
        self.object = obj
