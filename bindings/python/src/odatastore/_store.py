"""Store, Request, Response and Entity over the C API."""
from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import ctypes
import enum
import itertools
import json
import math
import numbers
import os
import re
import signal
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Optional, Protocol, Sequence, Union, cast

from . import _errors, _ffi, _offline, _values
from ._errors import ClosedError, Error, InvalidArgumentError, StateError
if TYPE_CHECKING:
    from ._observe import ChangeCallback, Observer
from ._offline import (
    ArchivedError, DefiningRequestInfo, DownloadProgress, KeyMapping, OfflineInfo, ProgressCallback, UploadProgress,
    UploadProgressCallback, UploadResult,
)

# ---------------------------------------------------------------------------------------
# Enumerations (values are the C ones)
# ---------------------------------------------------------------------------------------


class Mode(enum.IntEnum):
    """The operation a request performs (``ods_mode``)."""

    READ = 1
    CREATE = 2
    UPDATE = 3          #: partial update: MERGE on V2, PATCH on V4
    UPDATE_PUT = 4      #: full replacement with PUT
    UPDATE_MERGE = 5    #: the V2 MERGE verb (PATCH on V4)
    UPDATE_PATCH = 6
    DELETE = 7
    FUNCTION = 8        #: function or action import; GET or POST as $metadata says


class StoreState(enum.IntEnum):
    """``ods_store_state``."""

    OPENING = 1
    OPEN = 2
    CLOSING = 3
    CLOSED = 4
    FAILED = 5


class RequestState(enum.IntEnum):
    """``ods_request_state``."""

    NEW = 1
    WAITING = 2
    RUNNING = 3
    FINISHED = 4
    FAILED = 5
    CANCELLED = 6


class EntityState(enum.IntEnum):
    """Whether an entity has local changes (``ods_entity_state``): :attr:`Entity.pending_state`."""

    CLEAN = 0     #: as the service has it (every entity of an online store)
    PENDING = 1   #: local changes wait for upload (``"@odatastore.pending": true``)
    ERROR = 2     #: the service refused a change of it: it is in the error archive (``"@odatastore.error": true``)


_KINDS = {"online": 0, "offline": 1, "mixed": 2}
# ods_store_mode (a mixed store's working mode), ods_route (a request's own side), ods_source.
_WORKING_MODES = {"mixed": 0, "online": 1, "offline": 2}
_ROUTES = {"auto": 0, "online": 1, "offline": 2}
_SOURCES = {1: "online", 2: "offline"}
# ods_dispatch_mode: "inline" is ODS_DISPATCH_THREAD_INLINE.
_DISPATCH = {"thread": 0, "queue": 1, "inline": 2}
# The modes whose callbacks run on the library's own threads (not the app's).
_LIBRARY_THREADS = ("inline", "thread")

ModeLike = Union[Mode, int, str]


_MODES_BY_NAME: dict[Any, Mode] = {**{m.name: m for m in Mode}, **{m.name.lower(): m for m in Mode},
                                    **{m: m for m in Mode}}


def _mode(mode: ModeLike) -> Mode:
    try:
        known = _MODES_BY_NAME.get(mode)
    except TypeError:  # unhashable: refused below
        known = None
    if known is not None:
        return known
    if isinstance(mode, str):
        try:
            return Mode[mode.upper()]
        except KeyError:
            raise InvalidArgumentError(f"unknown mode {mode!r}; one of {', '.join(m.name for m in Mode)}",
                                       _errors.EINVAL) from None
    try:
        return Mode(mode)
    except ValueError:
        raise InvalidArgumentError(f"unknown mode {mode!r}", _errors.EINVAL) from None


def _path_arg(path: Any, name: str) -> bytes:
    """A request path argument, encoded for C (a str without NUL)."""
    if not isinstance(path, str):
        raise InvalidArgumentError(f"{name} must be a str (a request path), not {type(path).__name__}", _errors.EINVAL)
    encoded = _c(path, name)
    assert encoded is not None
    return encoded


def _path_list(paths: Optional[Sequence[str]], name: str) -> Any:
    """A NULL-terminated ``const char *const *`` of `paths` (None stays NULL). The array is
    borrowed by the C call only: keep it referenced until the call returns."""
    if paths is None:
        return None
    if isinstance(paths, (str, bytes)):
        raise InvalidArgumentError(f"{name} is a list of request paths, not one string", _errors.EINVAL)
    encoded = [_path_arg(p, name) for p in paths]
    return (ctypes.c_char_p * (len(encoded) + 1))(*encoded, None)


def _c(text: Optional[str], name: str = "a string argument") -> Optional[bytes]:
    if text is None:
        return None
    if text.__class__ is not str and not isinstance(text, str):
        raise InvalidArgumentError(f"{name} must be a str, not {type(text).__name__}", _errors.EINVAL)
    if "\0" in text:
        raise InvalidArgumentError("strings passed to odatastore must not contain NUL", _errors.EINVAL)
    return _utf8(text, name)


def _utf8(text: str, name: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate (which UTF-8 cannot hold) is an
    :class:`InvalidArgumentError` (a ValueError, as UnicodeEncodeError is) naming the argument."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgumentError(f"{name} is not valid Unicode text: {e.reason} at position {e.start}",
                                   _errors.EINVAL) from e


_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")  # an RFC 9110 token, as the library checks


def _header_name(name: Any) -> bytes:
    if not isinstance(name, str):
        raise InvalidArgumentError(f"a header name must be a str, not {type(name).__name__}", _errors.EINVAL)
    if not _HEADER_NAME.match(name):
        raise InvalidArgumentError(f"invalid header name \"{name}\"", _errors.EINVAL)
    return name.encode("ascii")


def _header_value(name: str, value: Any) -> bytes:
    if not isinstance(value, str):
        raise InvalidArgumentError(f"the value of header {name} must be a str, not {type(value).__name__}",
                                   _errors.EINVAL)
    if _CONTROL.search(value):  # as the library checks (RFC 9110 5.5): no control character but tab
        raise InvalidArgumentError(f"header value for {name} contains CR, LF, NUL or another control character "
                                   "(only tab may appear)", _errors.EINVAL)
    return _utf8(value, f"the value of header {name}")


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")


def _header_lines(headers: Any, what: str) -> Any:
    """``headers`` (a mapping) as the C API's NULL-terminated ``"Name: value"`` lines, each
    name and value checked as ``ods_request_set_header`` checks them: in a line, a ':' in the
    name would split it elsewhere (``{"A:B": "x"}`` would send ``A: B: x``)."""
    if not isinstance(headers, Mapping):
        raise InvalidArgumentError(f"{what} must be a mapping of header names to values, not "
                                   f"{type(headers).__name__}", _errors.EINVAL)
    lines: list[Optional[bytes]] = []
    for name, value in headers.items():
        lines.append(_header_name(name) + b": " + _header_value(name, value))
    lines.append(None)
    return (ctypes.c_char_p * len(lines))(*lines)


_MAX_MS = 2**31 - 1
_C_INT_MAX = 2**31 - 1


def _int_option(value: Any, name: str) -> int:
    """A count option of ``ods_store_options`` (a C ``int``; None and 0: the library's
    default): an int (not a bool) from 0 to 2**31-1, else InvalidArgumentError naming it
    (ctypes would wrap a larger one silently: 2**32+1 would be 1)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{name} must be an int or None, not {type(value).__name__}", _errors.EINVAL)
    if not 0 <= value <= _C_INT_MAX:
        raise InvalidArgumentError(f"{name} must be from 0 (the default) to {_C_INT_MAX}, not {value}",
                                   _errors.EINVAL)
    return int(value)


def _timeout_ms(seconds: Any, name: str) -> int:
    """A timeout in seconds (a finite, non-negative number) in whole milliseconds."""
    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real):
        raise InvalidArgumentError(f"{name} is a number of seconds, not {type(seconds).__name__}", _errors.EINVAL)
    try:
        value = float(seconds)
    except OverflowError:
        value = math.inf
    if math.isnan(value):
        raise InvalidArgumentError(f"{name} must be a number of seconds, not NaN", _errors.EINVAL)
    if value < 0:
        raise InvalidArgumentError(f"{name} must not be negative", _errors.EINVAL)
    ms = round(value * 1000) if math.isfinite(value) else _MAX_MS + 1
    if ms > _MAX_MS:
        raise InvalidArgumentError(f"{name} must be finite, at most {_MAX_MS // 1000} seconds (None: the default)",
                                   _errors.EINVAL)
    return int(ms)


# ---------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------


_UNREAD: Any = object()  # an attribute of a Response not read from the library yet
_PENDING = "@odatastore.pending"
_ERROR = "@odatastore.error"


class Entity(dict[str, Any]):
    """An entity: its properties as a dict, its ETag (``@odata.etag``) in :attr:`etag`, and,
    from an offline store, whether it has local changes in :attr:`pending_state`.

    Passing an Entity back to :meth:`Store.update` or :meth:`Store.delete` sends its ETag as
    ``If-Match``.
    """

    __slots__ = ("etag", "pending_state")
    etag: Optional[str]
    #: :class:`EntityState` from the annotations ``@odatastore.pending`` / ``@odatastore.error``
    #: (taken out of the dict, as ``@odata.etag`` is); CLEAN for entities of online stores.
    pending_state: EntityState

    def __init__(self, *args: Any, etag: Optional[str] = None, pending_state: Optional[EntityState] = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tag = self.pop("@odata.etag", None)
        self.etag = etag if etag is not None else tag
        pending = self.pop(_PENDING, None) is True
        error = self.pop(_ERROR, None) is True
        if pending_state is None:
            pending_state = EntityState.ERROR if error else EntityState.PENDING if pending else EntityState.CLEAN
        self.pending_state = pending_state

    def __repr__(self) -> str:
        state = "" if self.pending_state == EntityState.CLEAN else f", pending_state={self.pending_state.name}"
        return f"Entity({dict.__repr__(self)}, etag={self.etag!r}{state})"

    def __reduce__(self) -> Any:
        return (_make_entity, (dict(self), self.etag, int(self.pending_state)))

    def copy(self) -> "Entity":
        return Entity(self, etag=self.etag, pending_state=self.pending_state)

    def __or__(self, other: Any) -> Any:
        """``entity | changes``: a new Entity with the changes merged in and this entity's ETag
        and pending state (``dict | dict`` would drop them, and an update with the result would
        go without If-Match). ``entity |= changes`` changes the entity itself, as for a dict."""
        if not isinstance(other, dict):
            return NotImplemented
        merged = self.copy()
        merged.update(other)
        return merged


def _make_entity(data: dict[str, Any], etag: Optional[str], pending_state: int = 0) -> Entity:
    return Entity(data, etag=etag, pending_state=EntityState(pending_state))


class EntityList(list[Entity]):
    """A page of entities, with the collection's ``@odata.count`` (``total_count``, when asked for
    with ``$count=true`` / ``$inlinecount=allpages``), its next-page link (``next_link``; pass
    it to :meth:`Store.read` for the next page) and delta link, and ``is_local``: True when an
    offline store answered from its file (:attr:`Response.is_local`)."""

    total_count: Optional[int]
    next_link: Optional[str]
    delta_link: Optional[str]
    is_local: bool

    def __init__(self, items: Sequence[Entity] = (), total_count: Optional[int] = None,
                 next_link: Optional[str] = None, delta_link: Optional[str] = None, *,
                 is_local: bool = False) -> None:
        super().__init__(items)
        self.total_count = total_count
        self.next_link = next_link
        self.delta_link = delta_link
        self.is_local = is_local

    def __repr__(self) -> str:
        return f"EntityList({list.__repr__(self)}, total_count={self.total_count!r}, next_link={self.next_link!r})"


_new_entity = Entity.__new__
_dict_init = dict.__init__
_CLEAN = EntityState.CLEAN


def _as_entity(obj: dict[str, Any]) -> Entity:
    """``Entity(obj)`` without the keyword handling (the hot path of every read)."""
    if _PENDING in obj or _ERROR in obj:
        return Entity(obj)
    e = _new_entity(Entity)
    _dict_init(e, obj)
    e.etag = e.pop("@odata.etag", None)
    e.pending_state = _CLEAN
    return e


def _entity_hook(obj: dict[str, Any]) -> dict[str, Any]:
    return _as_entity(obj) if "@odata.etag" in obj or _PENDING in obj or _ERROR in obj else obj


_DECODER = json.JSONDecoder()
_ENTITY_DECODER = json.JSONDecoder(object_hook=_entity_hook)  # made once: json.loads(object_hook=) makes one a call
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]  # the C scanner behind decode(), without its whitespace regexes


def _decode_payload(text: str) -> Any:
    """The canonical JSON ``text`` (not empty) parsed; objects with an ETag or the offline
    annotations become :class:`Entity`. The usual payload (one entity whose ETag, if any,
    comes first, or no ETag anywhere) skips the per-object hook: the caller makes the
    top-level object an Entity."""
    if '"@odatastore.' in text or text.find('"@odata.etag"', 2) >= 0:
        return _ENTITY_DECODER.decode(text)
    try:
        obj, end = _SCAN(text, 0)
    except StopIteration:
        obj, end = None, -1
    if end != len(text):  # leading or trailing whitespace, or not JSON: decode() says which
        return _DECODER.decode(text)
    if obj.__class__ is dict and "@odata.etag" in obj:
        if _PENDING in obj or _ERROR in obj:
            return Entity(obj)
        e = _new_entity(Entity)  # _as_entity, inlined
        _dict_init(e, obj)
        e.etag = e.pop("@odata.etag", None)
        e.pending_state = _CLEAN
        return e
    return obj


def _read_headers(lib: ctypes.CDLL, ptr: int) -> list[tuple[str, str]]:
    headers = []
    name = ctypes.c_char_p()
    value = ctypes.c_char_p()
    for i in range(lib.ods_response_header_count(ptr)):
        if lib.ods_response_header_at(ctypes.byref(name), ctypes.byref(value), ptr, i) == 0:
            headers.append((_ffi.text(name.value) or "", _ffi.text(value.value) or ""))
    return headers


def _read_body(lib: ctypes.CDLL, ptr: int) -> bytes:
    size = ctypes.c_size_t()
    bptr = lib.ods_response_body(ptr, ctypes.byref(size))
    return ctypes.string_at(bptr, size.value) if bptr and size.value else b""


def _read_count(lib: ctypes.CDLL, ptr: int) -> Optional[int]:
    count = int(lib.ods_response_count(ptr))
    return count if count >= 0 else None


class Response:
    """A service response, safe to keep after the callback that delivered it.

    Attributes:
        status: HTTP status (200, 201, 204...).
        headers: the response headers as (name, value) pairs, in order.
        json_text: the payload in the library's canonical JSON shape ("" without one).
        body: the raw response body as received.
        etag, next_link: the ETag and next-page link, or None.
        count: ``$count`` / inline count, or None.
        entity_count: number of entities (collection length, 1 for one entity, else 0).
        is_local: True when an offline store answered from its file (no request went to the
            service), False when the service answered (``ods_response_is_local``).
        source: which side answered, "offline" (the store file) or "online" (the service):
            a mixed store routes each request (``ods_response_source``, docs/mixed.md).

    A response the library delivered keeps a reference to the library's response
    (``ods_response_dup``, released with the object): only the JSON is copied at once, the
    other attributes the first time they are read (most results never read the headers).
    """

    __slots__ = ("json_text", "_lib", "_ptr", "_status", "_headers", "_body", "_etag", "_next_link", "_count",
                 "_entity_count", "_is_local", "_data", "_has_data")

    json_text: str

    def __init__(self, status: int, headers: list[tuple[str, str]], json_text: str, body: bytes,
                 etag: Optional[str], next_link: Optional[str], count: Optional[int], entity_count: int,
                 is_local: bool = False) -> None:
        self._lib: Optional[ctypes.CDLL] = None
        self._ptr: Optional[int] = None
        self._status = status
        self._headers = headers
        self.json_text = json_text
        self._body = body
        self._etag = etag
        self._next_link = next_link
        self._count = count
        self._entity_count = entity_count
        self._is_local = is_local
        self._data: Any = None
        self._has_data = False

    @classmethod
    def _copy(cls, lib: ctypes.CDLL, ptr: int) -> "Response":
        """A Response of a BORROWED ods_response (inside the callback that lent it): a new
        reference to it, and its JSON copied."""
        self = cls.__new__(cls)
        self._ptr = None
        # one call: a new reference (the same pointer) and the JSON as bytes (ctypes copies
        # the NUL-terminated string; the canonical JSON has no NUL bytes)
        raw = lib.ods_response_retain_json(ptr, None)
        if raw is None:
            raise _errors.last_any(lib)
        self._lib = lib
        self._ptr = ptr
        self.json_text = raw.decode("utf-8") if raw else ""
        self._status = self._headers = self._body = self._etag = self._next_link = _UNREAD
        self._count = self._entity_count = self._is_local = _UNREAD
        self._data = None
        self._has_data = False
        return self

    def _lib_ptr(self) -> tuple[ctypes.CDLL, int]:
        lib, ptr = self._lib, self._ptr
        assert lib is not None and ptr is not None
        return lib, ptr

    def __del__(self) -> None:
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            try:
                self._lib.ods_response_free(ptr)  # type: ignore[union-attr]
            except Exception:  # interpreter shutdown
                pass

    def _read(self, slot: str, fetch: Callable[[ctypes.CDLL, int], Any]) -> Any:
        """The attribute in `slot`, read from the library's response on first use."""
        value = getattr(self, slot)
        if value is _UNREAD:
            lib, ptr = self._lib_ptr()
            value = fetch(lib, ptr)
            setattr(self, slot, value)
        return value

    @property
    def status(self) -> int:
        return int(self._read("_status", lambda lib, ptr: int(lib.ods_response_status(ptr))))

    @property
    def headers(self) -> list[tuple[str, str]]:
        return cast(list[tuple[str, str]], self._read("_headers", _read_headers))

    @property
    def body(self) -> bytes:
        return cast(bytes, self._read("_body", _read_body))

    @property
    def etag(self) -> Optional[str]:
        return cast(Optional[str], self._read("_etag", lambda lib, ptr: _ffi.text(lib.ods_response_etag(ptr))))

    @property
    def next_link(self) -> Optional[str]:
        return cast(Optional[str], self._read("_next_link", lambda lib, ptr: _ffi.text(lib.ods_response_next_link(ptr))))

    @property
    def count(self) -> Optional[int]:
        return cast(Optional[int], self._read("_count", _read_count))

    @property
    def entity_count(self) -> int:
        return int(self._read("_entity_count", lambda lib, ptr: int(lib.ods_response_entity_count(ptr))))

    @property
    def is_local(self) -> bool:
        return bool(self._read("_is_local", lambda lib, ptr: lib.ods_response_is_local(ptr) == 1))

    @property
    def source(self) -> str:
        return "offline" if self.is_local else "online"

    def __reduce__(self) -> Any:  # copy, deepcopy and pickle: every attribute read and copied
        return (_rebuild_response, (self.status, list(self.headers), self.json_text, self.body, self.etag,
                                    self.next_link, self.count, self.entity_count, self.is_local,
                                    self._data, self._has_data))

    def header(self, name: str) -> Optional[str]:
        """The first header of that name (case-insensitive), or None."""
        lower = name.lower()
        for n, v in self.headers:
            if n.lower() == lower:
                return v
        return None

    def json(self) -> Any:
        """The canonical JSON payload parsed with :func:`json.loads` (untyped), or None."""
        return json.loads(self.json_text) if self.json_text else None

    @property
    def data(self) -> Any:
        """The result, typed: an :class:`EntityList` for a collection, an :class:`Entity` for
        one entity, the value for a ``{"value": ...}`` result, the body's bytes for an answer
        that is not JSON (``$metadata``, media), None without a body."""
        return self._data if self._has_data else self._parse(None, None)

    def _parse(self, types: Optional[_values.TypeCache], path: Optional[str]) -> Any:
        if self._has_data:
            return self._data
        data: Any = None
        text = self.json_text
        if text:
            obj = _decode_payload(text)
            if obj.__class__ is Entity and "value" not in obj:  # one entity with an ETag: the usual read
                if obj.etag is None and self.etag is not None:
                    obj.etag = self.etag
                if types is not None and path is not None:
                    types.type_entities(path, (obj,))
                data = obj
            elif (isinstance(obj, dict) and not isinstance(obj, Entity) and isinstance(obj.get("value"), list)
                  and all(k == "value" or k[:1] == "@" for k in obj) and not (
                    self.entity_count == 1 and "@odata.count" not in obj and len(obj["value"]) != 1)):
                # a collection: "value" and annotations only (an entity may have a property
                # named "value", and has its key besides; one with an ETag is an Entity);
                # one entity whose only property is a "value" list says so by entity_count
                items = obj["value"]
                if all(isinstance(x, dict) for x in items):
                    entities = [x if isinstance(x, Entity) else _as_entity(x) for x in items]
                    if types is not None and path is not None:
                        types.type_entities(path, entities)
                    count = obj.get("@odata.count")
                    data = EntityList(entities, count if isinstance(count, int) else self.count,
                                      obj.get("@odata.nextLink"), obj.get("@odata.deltaLink"),
                                      is_local=self.is_local)
                else:
                    data = items
            elif isinstance(obj, dict) and "value" in obj and self.entity_count == 0 and all(
                    k == "value" or k.startswith("@") for k in obj):
                data = obj["value"]
                if types is not None and path is not None:  # a property's value: its Edm type
                    data = types.type_value(path, data)
            elif isinstance(obj, dict):
                entity = obj if isinstance(obj, Entity) else _as_entity(obj)
                if entity.etag is None and self.etag is not None:
                    entity.etag = self.etag
                if types is not None and path is not None:
                    types.type_entities(path, [entity])
                data = entity
            else:
                data = obj
        else:
            # No JSON: a document or media ($metadata, a stream's $value) comes as its bytes;
            # nothing at all (204) as None
            data = self.body or None
        self._data = data
        self._has_data = True
        return data

    def __repr__(self) -> str:
        where = " (local)" if self.is_local else ""
        return f"<Response {self.status}{where} {len(self.json_text)} bytes of JSON>"


def _rebuild_response(status: int, headers: list[tuple[str, str]], json_text: str, body: bytes,
                      etag: Optional[str], next_link: Optional[str], count: Optional[int], entity_count: int,
                      is_local: bool, data: Any, has_data: bool) -> Response:
    response = Response(status, headers, json_text, body, etag, next_link, count, entity_count, is_local)
    response._data = data
    response._has_data = has_data
    return response


# ---------------------------------------------------------------------------------------
# Delegates
# ---------------------------------------------------------------------------------------


class RequestDelegate:
    """Base class for request delegates (``ods_request_delegate``): override what you need.

    Callbacks arrive one at a time per store, on the store's own threads (dispatch "inline"
    or "thread") or on the thread that dispatches (dispatch "queue"), in order: ``started``,
    ``response`` (zero or more), then exactly one of ``finished`` / ``failed``. An exception
    raised here becomes the request's outcome (its future's exception, raised by ``result()``).
    """

    def started(self, request: "Request") -> None:
        """The request was sent."""

    def response(self, request: "Request", response: Response) -> None:
        """The service answered with success."""

    def failed(self, request: "Request", error: Error, response: Optional[Response]) -> None:
        """Terminal: the request failed or was cancelled."""

    def finished(self, request: "Request") -> None:
        """Terminal: the request succeeded."""


class StateCallback(Protocol):
    def __call__(self, store: "Store", state: StoreState, error: Optional[Error]) -> None: ...


class CompletionCallback(Protocol):
    def __call__(self, request: "Request", response: Optional[Response], error: Optional[Error]) -> None: ...


# ---------------------------------------------------------------------------------------
# Callback trampolines (module level: alive as long as the module, so C can always call them)
# ---------------------------------------------------------------------------------------

_ids = itertools.count(1)
_live: dict[int, "Request"] = {}                      # started requests, until their last callback
# Started requests of queue-dispatch stores, until their last callback: weakly, the store
# holding them (Store._inflight). Nothing delivers a queue store's callbacks once it is
# unreachable, so such a store and its requests are left to the garbage collector, which
# closes the store (_hold, docs/python.md "Threads, asyncio, lifetimes").
_live_queued: "weakref.WeakValueDictionary[int, Request]" = weakref.WeakValueDictionary()
_stores: "weakref.WeakValueDictionary[int, Store]" = weakref.WeakValueDictionary()
_get_ident = threading.get_ident


def _enter_delivery(store: "Store") -> int:
    """Marks the current thread as delivering a callback of ``store`` (Store._in_callback);
    returns the thread's id for :func:`_leave_delivery`. ``store._delivering`` counts the
    deliveries in progress per thread id: each thread only changes its own entry."""
    ident = _get_ident()
    marks = store._delivering
    marks[ident] = marks.get(ident, 0) + 1
    return ident


# The library's callback thread is not a Python thread: ctypes gives each callback on it a
# Python thread state of its own (PyGILState_Ensure), made and destroyed around every call
# (with its frame stack, mapped and unmapped, and the thread's decimal context and locals).
# A store in dispatch "thread" keeps one for its callback thread instead: its first callback
# takes a reference of its own (PyGILState_Ensure), so ctypes's calls reuse that state, and
# the store's last callback (the CLOSED state) gives the reference back, after which ctypes
# releases the state as before. In dispatch "inline" the transport thread runs callbacks too
# (most of them): the first callback on a second thread keeps that thread's state as well,
# and the library's thread-end callback (ods_store_set_thread_end), which runs on that thread
# just before it ends, inside ods_store_close, gives it back. No pythonapi (not CPython):
# every callback makes one.
_pythonapi = getattr(ctypes, "pythonapi", None)
_gil_ensure: Optional[Callable[[], int]] = None
_gil_release: Optional[Callable[[int], None]] = None
if _pythonapi is not None:
    _gil_ensure = _pythonapi.PyGILState_Ensure
    _gil_ensure.restype = ctypes.c_int  # type: ignore[union-attr]
    _gil_ensure.argtypes = []  # type: ignore[union-attr]
    _gil_release = _pythonapi.PyGILState_Release
    _gil_release.restype = None  # type: ignore[union-attr]
    _gil_release.argtypes = [ctypes.c_int]  # type: ignore[union-attr]


# store key -> {thread id: what PyGILState_Ensure returned} for the thread states kept for
# that store (strong, by key): the CLOSED and thread-end callbacks give them back even when the
# store object is gone from _stores. A store the cycle collector finalizes has its weak entry
# cleared before its __del__ closes it, so those callbacks cannot find it; looked up through
# the store, its two kept states (callback thread, transport thread) leaked.
_kept_states: dict[int, dict[int, int]] = {}


def _keep_thread_state(store: "Store") -> None:
    """In a callback of ``store`` (``store._keeping``: dispatch "thread" or "inline"): keeps
    this thread's Python thread state for the next callbacks (see above). One thread per store
    in dispatch "thread", two in "inline" (the callback thread and the transport thread)."""
    if _gil_ensure is None:
        store._keeping = False
        return
    ident = _get_ident()
    if store._kept_thread == 0:
        store._kept_thread = ident
        store._kept_state = _gil_ensure()
        _kept_states.setdefault(store._key, {})[ident] = store._kept_state
        store._keeping = store._thread_end_set
    elif store._kept_other == 0 and ident != store._kept_thread and store._thread_end_set:
        store._kept_other = ident
        store._kept_other_state = _gil_ensure()
        _kept_states.setdefault(store._key, {})[ident] = store._kept_other_state
        store._keeping = False


def _release_kept(key: int) -> None:
    """Gives back the thread state kept for the store of ``key`` on this thread, if any."""
    states = _kept_states.get(key)
    if states is None:
        return
    state = states.pop(_get_ident(), None)
    if not states:
        _kept_states.pop(key, None)
    if state is not None and _gil_release is not None:
        _gil_release(state)


def _release_thread_state(store: "Store") -> None:
    """In the store's CLOSED callback, and in its thread-end callback: gives back the reference
    :func:`_keep_thread_state` took on this thread (never again for this store)."""
    store._keeping = False
    ident = _get_ident()
    if store._kept_thread > 0 and store._kept_thread == ident:
        store._kept_thread = -1
    elif store._kept_other > 0 and store._kept_other == ident:
        store._kept_other = -1
    _release_kept(store._key)


def _on_thread_end_py(store_ptr: Optional[int], ctx: Optional[int]) -> None:
    try:
        store = _stores.get(ctx) if ctx else None
        if store is not None:
            _release_thread_state(store)
        elif ctx:  # the store is being collected (see _kept_states)
            _release_kept(ctx)
    except BaseException as e:  # never let an exception cross into C
        _report_unraisable(e, "odatastore thread-end callback")


_on_thread_end = _ffi.THREAD_END_CB(_on_thread_end_py)


def _leave_delivery(store: "Store", ident: int) -> None:
    marks = store._delivering
    depth = marks[ident] - 1
    if depth:
        marks[ident] = depth
    else:
        del marks[ident]


class _Delivering:
    """``with _Delivering(store):`` the current thread delivers a callback of ``store``."""

    __slots__ = ("store", "ident")

    def __init__(self, store: "Store") -> None:
        self.store = store
        self.ident = 0

    def __enter__(self) -> None:
        self.ident = _enter_delivery(self.store)

    def __exit__(self, *exc: Any) -> None:
        _leave_delivery(self.store, self.ident)


def _request_of(ctx: Optional[int]) -> Optional["Request"]:
    if not ctx:
        return None
    req = _live.get(ctx)
    return req if req is not None else _live_queued.get(ctx)


def _hold(store: "Store", key: int, obj: Any, registry: dict[int, Any],
          queued: "weakref.WeakValueDictionary[int, Any]") -> None:
    """Keeps a started request or operation until its last callback: in ``registry``
    (strongly: its store's own threads deliver that callback), or for a queue-dispatch store
    in the store itself and weakly in ``queued`` (only a caller that can reach the store can
    deliver it, so an unreachable store is collected with its requests and closed)."""
    if store._fd is None:
        registry[key] = obj
    else:
        store._inflight[key] = obj
        queued[key] = obj


def _release(store: "Store", key: int, registry: dict[int, Any],
             queued: "weakref.WeakValueDictionary[int, Any]") -> Any:
    """Undoes :func:`_hold`: returns what was held (None when nothing was)."""
    obj = registry.pop(key, None)
    if obj is None:
        obj = queued.pop(key, None)
        store._inflight.pop(key, None)
    return obj


_OPEN_RETURN_WAIT = 30.0  # seconds a state callback waits for ods_store_open to return


def _wait_open_return(store: "Store") -> None:
    """In a callback that came before ods_store_open returned (see Store.__init__): waits for
    the return, so the callback can use the store. ods_store_open does not wait for the
    store's callbacks, so the wait is short (bounded all the same)."""
    opening = store._opening
    if opening is not None and store._opening_thread != _get_ident():
        opening.wait(_OPEN_RETURN_WAIT)


def _on_state_py(store_ptr: Optional[int], state: int, error: Any, ctx: Optional[int]) -> None:
    try:
        store = _stores.get(ctx) if ctx else None
        if store is None and ctx and state == StoreState.CLOSED:
            _release_kept(ctx)  # the store is being collected (see _kept_states)
        if store is not None:
            if store._opening is not None:
                _wait_open_return(store)
            err = _errors.from_struct(error) if error else None
            if state != StoreState.CLOSED and store._keeping:
                _keep_thread_state(store)
            try:
                with _Delivering(store):
                    store._state_changed(state, err)
            finally:
                if state == StoreState.CLOSED:
                    _release_thread_state(store)
    except BaseException as e:  # never let an exception cross into C
        _report_unraisable(e, "odatastore store state callback")


_on_state = _ffi.STATE_CB(_on_state_py)


def _on_progress_py(store_ptr: Optional[int], progress: Any, ctx: Optional[int]) -> None:
    try:
        store = _stores.get(ctx) if ctx else None
        if store is not None and progress:
            report = DownloadProgress._copy(progress.contents)  # BORROWED for this call
            if store._opening is not None:
                _wait_open_return(store)
            with _Delivering(store):
                store._progressed(store_ptr, report)
    except BaseException as e:  # never let an exception cross into C
        _report_unraisable(e, "odatastore download progress callback")


_on_progress = _ffi.PROGRESS_CB(_on_progress_py)


class LogonPrompt:
    """The store asks for credentials (docs/logon.md): the service answered 401 (or, with
    ``logon_login_page=True``, a login page). Answer once with :meth:`basic`, :meth:`bearer`,
    :meth:`headers` or :meth:`refuse`, from the callback or later from any thread; the requests
    that hit it, and those started meanwhile, wait for the answer and are then sent again (or
    fail with :class:`UnauthorizedError` when refused). Carries no credentials.

    Attributes: ``id`` (unique in the process), ``reason`` (``"required"``, ``"expired"`` or
    ``"rejected"``), ``http_status``, ``authenticate`` (the WWW-Authenticate header or None),
    ``attempt`` (1, 2, ... since credentials last worked)."""

    __slots__ = ("_store", "id", "reason", "http_status", "authenticate", "attempt")

    _REASONS = {1: "required", 2: "expired", 3: "rejected"}

    def __init__(self, store: "Store", info: Any) -> None:
        self._store = store
        self.id: int = info.id
        self.reason: str = self._REASONS.get(info.reason, "required")
        self.http_status: int = info.http_status
        self.authenticate: Optional[str] = info.authenticate.decode("utf-8", "replace") if info.authenticate else None
        self.attempt: int = info.attempt

    def __repr__(self) -> str:
        return f"LogonPrompt(id={self.id}, reason={self.reason!r}, attempt={self.attempt})"

    def _reply(self, call: Callable[[Any], int]) -> None:
        store = self._store
        with store._use():
            _errors.check(store._lib, call(store._handle))

    def basic(self, username: str, password: str) -> None:
        """Answers with HTTP Basic credentials."""
        self._reply(lambda h: self._store._lib.ods_store_logon_basic(h, self.id, _c(username, "username"),
                                                                     _c(password, "password")))

    def bearer(self, token: str) -> None:
        """Answers with ``Authorization: Bearer <token>``."""
        self._reply(lambda h: self._store._lib.ods_store_logon_bearer(h, self.id, _c(token, "token")))

    def headers(self, headers: Mapping[str, str]) -> None:
        """Answers with headers of the app's own (a session cookie from an SSO flow...)."""
        array = _header_lines(headers, "headers")
        self._reply(lambda h: self._store._lib.ods_store_logon_headers(
            h, self.id, ctypes.cast(array, ctypes.POINTER(ctypes.c_char_p))))

    def refuse(self) -> None:
        """Answers with no credentials: the waiting requests fail with UnauthorizedError."""
        self._reply(lambda h: self._store._lib.ods_store_logon_refuse(h, self.id))


LogonCallback = Callable[["Store", LogonPrompt], None]


def _on_logon_py(store_ptr: Optional[int], info: Any, ctx: Optional[int]) -> None:
    try:
        store = _stores.get(ctx) if ctx else None
        if store is None or not info:
            return
        prompt = LogonPrompt(store, info.contents)  # BORROWED for this call: copied
        if store._opening is not None:
            _wait_open_return(store)
        handler = store.on_logon
        try:
            with _Delivering(store):
                if handler is None:
                    raise RuntimeError("no on_logon")
                handler(store, prompt)
        except BaseException:
            # The requests wait for an answer: never leave them waiting for one that cannot come.
            try:
                prompt.refuse()
            except Error:
                pass
            raise
    except BaseException as e:  # never let an exception cross into C
        _report_unraisable(e, "odatastore logon callback")


_on_logon = _ffi.LOGON_CB(_on_logon_py)


def _on_started_py(req_ptr: Optional[int], ctx: Optional[int]) -> None:
    req = _request_of(ctx)
    if req is not None:
        req._deliver(req._cb_started)


_on_started = _ffi.STARTED_CB(_on_started_py)


def _on_response_py(req_ptr: Optional[int], resp_ptr: Optional[int], ctx: Optional[int]) -> None:
    req = _request_of(ctx)
    if req is not None:
        req._deliver(req._cb_response, resp_ptr)


_on_response = _ffi.RESPONSE_CB(_on_response_py)


def _on_failed_py(req_ptr: Optional[int], error: Any, resp_ptr: Optional[int], ctx: Optional[int]) -> None:
    req = _request_of(ctx)
    if req is not None:
        req._deliver(req._cb_failed, error, resp_ptr)


_on_failed = _ffi.FAILED_CB(_on_failed_py)


def _on_finished_py(req_ptr: Optional[int], ctx: Optional[int]) -> None:
    req = _request_of(ctx)
    if req is not None:
        req._deliver(req._cb_finished)


_on_finished = _ffi.FINISHED_CB(_on_finished_py)


def _on_completion_py(req_ptr: Optional[int], resp_ptr: Optional[int], error: Optional[int], ctx: Optional[int]) -> None:
    req = _live.pop(ctx, None) if ctx else None  # the last callback of the request
    if req is None and ctx:
        req = _live_queued.pop(ctx, None)
        if req is not None:
            req.store._inflight.pop(ctx, None)
    if req is not None:
        if req._handle is None:  # ods_request_submit has not returned yet: the same handle
            req._handle = req_ptr
        if error:  # BORROWED for this call: read by _complete within it
            error = ctypes.cast(error, _ffi.ErrorPtr)  # type: ignore[assignment]
        req._complete(resp_ptr, error)


_on_completion = _ffi.COMPLETION_CB(_on_completion_py)


_DELEGATE = _ffi.RequestDelegateStruct(_ffi.REQUEST_DELEGATE_VERSION, _on_started, _on_response, _on_failed,
                                       _on_finished)


def _report_unraisable(exc: BaseException, where: str, prefix: str = "Exception in") -> None:
    """Reports an exception no caller can get through :func:`sys.unraisablehook`. The default
    hook (C code) takes only its own ``UnraisableHookArgs``, which Python code cannot make:
    with it the report is written as it writes it (``err_msg:`` and the traceback, on stderr)."""
    import sys
    args = _Unraisable(exc, where, prefix)
    try:
        hook = sys.unraisablehook
        if hook is not sys.__unraisablehook__:
            hook(args)  # type: ignore[arg-type]
            return
        import traceback
        stream = sys.stderr
        if stream is not None:
            stream.write(f"{args.err_msg}:\n" + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
            stream.flush()
    except BaseException:
        pass


class _Unraisable:
    def __init__(self, exc: BaseException, where: str, prefix: str = "Exception in") -> None:
        self.exc_type = type(exc)
        self.exc_value = exc
        self.exc_traceback = exc.__traceback__
        self.err_msg = f"{prefix} {where}"
        self.object = None


# ---------------------------------------------------------------------------------------
# Futures
# ---------------------------------------------------------------------------------------


class _Settled:
    """A request's "last callback delivered" flag, with the ``is_set`` / ``set`` / ``wait``
    of :class:`threading.Event`; the Event itself (a Condition and a Lock) is made only
    when a thread waits, which most requests (futures, callbacks, asyncio) never do.

    ``set`` takes no lock: it stores the flag, then looks for an Event; ``wait`` stores the
    Event (made under ``_settled_lock``, so waiters share one), then looks at the flag
    again. Each step is one attribute access under the GIL, so at least one side sees the
    other's store: either ``set`` sets the Event or ``wait`` returns without waiting."""

    __slots__ = ("_flag", "_event")

    def __init__(self) -> None:
        self._flag = False
        self._event: Optional[threading.Event] = None

    def is_set(self) -> bool:
        return self._flag

    def set(self) -> None:
        self._flag = True
        event = self._event
        if event is not None:
            event.set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        if self._flag:
            return True
        with _settled_lock:
            event = self._event
            if event is None:
                event = self._event = threading.Event()
        if self._flag:  # set() ran before the Event was there to see
            return True
        return event.wait(timeout)


_settled_lock = threading.Lock()  # makes the Events of _Settled.wait


_F_PENDING = concurrent.futures._base.PENDING
_F_FINISHED = concurrent.futures._base.FINISHED
_F_CANCELLED = (concurrent.futures._base.CANCELLED, concurrent.futures._base.CANCELLED_AND_NOTIFIED)
_F_DONE = (*_F_CANCELLED, _F_FINISHED)
_F_LOGGER = concurrent.futures._base.LOGGER
_condition_lock = threading.Lock()   # makes the futures' Conditions (_StoreFuture._condition)
_RLock: Callable[[], Any] = getattr(threading, "_CRLock", None) or threading.RLock  # the C RLock, without threading.RLock's frame


class _RefusingWaiters(list[Any]):
    """``future._waiters`` of a pending future inside a callback of its store: the base
    class's own iterations and removals reach the future's list; ``append`` (what
    ``concurrent.futures.wait`` / ``as_completed`` do to wait, the futures' locks held and
    released as the exception leaves) raises :class:`StateError`."""

    __slots__ = ("_list",)

    def __init__(self, waiters: list[Any]) -> None:
        super().__init__(waiters)
        self._list = waiters

    def append(self, waiter: Any) -> None:
        raise StateError("cannot wait for a request inside a callback of the same store (it would never be "
                         "delivered): concurrent.futures.wait / as_completed need done futures there; use "
                         "add_done_callback, submit() or await", _errors.ESTATE)

    def remove(self, waiter: Any) -> None:
        self._list.remove(waiter)


class _StoreFuture(concurrent.futures.Future[Any]):
    """A future whose outcome a store delivers through its dispatch mode: ``cancel()`` also
    cancels the work behind it; in a store with dispatch "queue", ``result()`` delivers the
    store's callbacks while it waits when no event loop on another thread does. The one
    implementation behind :class:`RequestFuture` and :class:`OperationFuture`.

    Lighter than the base class where requests spend their time: the base class makes a
    :class:`threading.Condition` per future; this one guards its state with a plain
    :class:`threading.RLock` (C code) and makes the Condition (around that same lock) only when
    something waits on it (``concurrent.futures.wait``/``as_completed``, ``cancel``, the base
    class's other methods). ``set_result``, ``add_done_callback``, ``done`` and a ``result``
    that is ready take only the lock. Same states, same attributes, same behaviour."""

    def __init__(self, store: "Store", settled: Union[threading.Event, _Settled], cancel: Callable[[], None]) -> None:
        # concurrent.futures.Future.__init__ without its Condition (see _condition)
        self._flock = _RLock()
        self._cond: Optional[threading.Condition] = None
        self._state = _F_PENDING
        self._result = None
        self._exception = None
        self._waiter_list: list[Any] = []
        self._done_callbacks: list[Callable[[Any], object]] = []
        self._store = store
        self._settled = settled
        self._cancel_work = cancel

    # _condition and _waiters are the base class's attributes, as properties with setters:
    # settable, as typeshed's protocol of concurrent.futures.wait / as_completed wants them.

    @property
    def _condition(self) -> threading.Condition:
        """The base class's Condition, made on first use, around the future's lock."""
        cond = self._cond
        if cond is None:
            with _condition_lock:
                cond = self._cond
                if cond is None:
                    cond = self._cond = threading.Condition(self._flock)
        return cond

    @_condition.setter
    def _condition(self, cond: threading.Condition) -> None:
        self._cond = cond

    @property
    def _waiters(self) -> list[Any]:
        """The base class's waiters (of ``concurrent.futures.wait`` and ``as_completed``).
        Inside a callback of the future's store, while the future is pending, a list that
        refuses a new waiter with :class:`StateError`: that wait would hold up the callback
        that completes it (for ever without a timeout, and close() with it)."""
        waiters = self._waiter_list
        if self._state not in _F_DONE and self._store._in_callback():
            return _RefusingWaiters(waiters)
        return waiters

    @_waiters.setter
    def _waiters(self, waiters: list[Any]) -> None:
        self._waiter_list = waiters

    def cancel(self) -> bool:
        """Cancels the future and the work behind it. The future is done at once for
        ``concurrent.futures.wait`` / ``as_completed`` too (CANCELLED_AND_NOTIFIED: no executor
        will run it, so its waiters are told now)."""
        cancelled = super().cancel()
        if cancelled:
            with self._flock:
                if self._state == concurrent.futures._base.CANCELLED:
                    self.set_running_or_notify_cancel()
            self._cancel_work()
        return cancelled

    def done(self) -> bool:
        return self._state in _F_DONE

    def add_done_callback(self, fn: Callable[[Any], object]) -> None:
        with self._flock:
            if self._state not in _F_DONE:
                self._done_callbacks.append(fn)
                return
        try:
            fn(self)
        except Exception:
            _F_LOGGER.exception("exception calling callback for %r", self)

    def set_result(self, result: Any) -> None:
        with self._flock:
            state = self._state
            if state not in _F_DONE:
                self._result = result
                self._state = _F_FINISHED
                for waiter in self._waiter_list:
                    waiter.add_result(self)
                cond = self._cond
                if cond is not None:
                    cond.notify_all()
        if state in _F_DONE:
            raise concurrent.futures.InvalidStateError(f"{state}: {self!r}")
        for callback in self._done_callbacks:  # the base class's _invoke_callbacks, inlined
            try:
                callback(self)
            except Exception:
                _F_LOGGER.exception("exception calling callback for %r", self)

    def _wait(self, timeout: Optional[float]) -> None:
        self._store._wait_for(self._settled, timeout, self.done)

    def result(self, timeout: Optional[float] = None) -> Any:
        if self._state is not _F_FINISHED:
            self._wait(timeout)
        if self._state is _F_FINISHED and self._exception is None:
            return self._result
        return super().result(0)

    def exception(self, timeout: Optional[float] = None) -> Optional[BaseException]:
        self._wait(timeout)
        return super().exception(0)


class RequestFuture(_StoreFuture):
    """A :class:`concurrent.futures.Future` for a request: ``cancel()`` cancels the request.

    In a store with dispatch "queue", ``result()`` delivers the store's callbacks while it
    waits when no event loop on another thread does.
    """

    request: "Request"

    def __init__(self, request: "Request") -> None:
        # _StoreFuture.__init__ inlined (one future per submitted request)
        self._flock = _RLock()
        self._cond = None
        self._state = _F_PENDING
        self._result = None
        self._exception = None
        self._waiter_list = []
        self._done_callbacks = []
        self._store = request.store
        self._settled = request._done
        self._cancel_work = request._cancel_quietly
        self.request = request


# ---------------------------------------------------------------------------------------
# Store operations: an upload, a revert (one C call, callbacks through the dispatch mode)
# ---------------------------------------------------------------------------------------

_operations: dict[int, "_Operation"] = {}           # started operations, until their completion
_operations_queued: "weakref.WeakValueDictionary[int, _Operation]" = weakref.WeakValueDictionary()  # see _live_queued


def _operation_of(ctx: Optional[int]) -> Optional["_Operation"]:
    if not ctx:
        return None
    op = _operations.get(ctx)
    return op if op is not None else _operations_queued.get(ctx)


def _operation_done(ctx: Optional[int]) -> Optional["_Operation"]:
    """The operation of ``ctx`` at its last callback, no longer held."""
    if not ctx:
        return None
    op = _operations.pop(ctx, None)
    if op is None:
        op = _operations_queued.pop(ctx, None)
        if op is not None:
            op.store._inflight.pop(ctx, None)
    return op


class OperationFuture(_StoreFuture):
    """A :class:`concurrent.futures.Future` of a store operation (:meth:`Store.submit_upload`):
    ``cancel()`` cancels the future and the upload. In a store with dispatch "queue",
    ``result()`` delivers the store's callbacks while it waits when no event loop on another
    thread does."""

    def __init__(self, operation: "_Operation") -> None:
        super().__init__(operation.store, operation.done, operation._cancel_quietly)
        self._operation = operation


class _Operation:
    """One background operation of a store whose end the library reports once, through the
    store's dispatch mode: its outcome, its future and the asyncio futures awaiting it. Kept in
    ``_operations`` (the C context is its key) from the start until that last callback."""

    def __init__(self, store: "Store", progress: Any = None,
                 cancel: Optional[Callable[[], None]] = None) -> None:
        self.store = store
        self.key = next(_ids)
        self.progress = progress
        self._cancel = cancel
        self.done = threading.Event()
        self.result: Any = None
        self.error: Optional[BaseException] = None
        self._callback_raised = False
        self._lock = threading.Lock()
        self._future: Optional[OperationFuture] = None
        self._aio: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]]] = []

    def start(self, call: Callable[[int], int]) -> "_Operation":
        """Registers the operation, then makes the C call (``call(key)`` returns its status)."""
        _hold(self.store, self.key, self, _operations, _operations_queued)
        try:
            with self.store._use():
                _errors.check(self.store._lib, call(self.key))
        except BaseException:
            _release(self.store, self.key, _operations, _operations_queued)
            raise
        return self

    @property
    def future(self) -> OperationFuture:
        with self._lock:
            if self._future is None:
                self._future = OperationFuture(self)
                if self.done.is_set():
                    self._settle_future(self._future)
            return self._future

    def wait(self, timeout: Optional[float]) -> Any:
        if not self.store._wait_for(self.done, timeout):
            raise _errors.make(_errors.ETIMEOUT, f"no result within {timeout} s (the operation goes on)")
        if self.error is not None:
            raise self.error
        return self.result

    def aio_future(self, loop: asyncio.AbstractEventLoop) -> "asyncio.Future[Any]":
        """An asyncio future of the outcome on ``loop`` (register before starting)."""
        fut: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            settled = self.done.is_set()
            if not settled:
                self._aio.append((loop, fut))
        if settled:
            self._settle_aio(fut)
        return fut

    def _cancel_quietly(self) -> None:
        if self._cancel is None or self.done.is_set():
            return
        try:
            self._cancel()
        except Error:
            pass

    def record(self, exc: BaseException) -> None:
        """An exception a callback raised: it becomes the outcome (the first one wins)."""
        with self._lock:
            if not self._callback_raised:
                self._callback_raised = True
                self.error = exc

    def finish(self, result: Any, error: Optional[BaseException]) -> None:
        with self._lock:
            if self.error is None:
                self.error = error
                self.result = result if error is None else None
            self.done.set()
            future = self._future
            aio, self._aio = self._aio, []
        if future is not None:
            self._settle_future(future)
        for loop, fut in aio:
            if self.store._on_loop_thread(loop):
                self._settle_aio(fut)
            else:
                try:
                    loop.call_soon_threadsafe(self._settle_aio, fut)
                except RuntimeError:  # the loop is closed: nobody awaits any more
                    pass

    def _settle_future(self, future: OperationFuture) -> None:
        try:
            if self.error is not None:
                future.set_exception(self.error)
            else:
                future.set_result(self.result)
        except concurrent.futures.InvalidStateError:  # cancelled by its owner
            pass

    def _settle_aio(self, fut: "asyncio.Future[Any]") -> None:
        if fut.done():
            return
        if self.error is not None:
            fut.set_exception(self.error)
        else:
            fut.set_result(self.result)


def _on_upload_progress_py(store_ptr: Optional[int], progress: Any, ctx: Optional[int]) -> None:
    try:
        op = _operation_of(ctx)
        if op is None or not progress or op.progress is None or op._callback_raised:
            return
        report = UploadProgress._copy(progress.contents)  # BORROWED for this call
        try:
            with _Delivering(op.store):
                op.progress(op.store, report)
        except BaseException as e:
            # The exception becomes the upload's outcome, and the upload stops (ODS_ESTATE
            # when it is over already: its completion is on its way).
            op.record(e)
            op.store._lib.ods_store_cancel_upload(store_ptr)
    except BaseException as e:  # never let an exception cross into C
        _report_unraisable(e, "odatastore upload progress callback")


_on_upload_progress = _ffi.UPLOAD_PROGRESS_CB(_on_upload_progress_py)


def _on_upload_done_py(store_ptr: Optional[int], status: int, result: Any, error: Any, ctx: Optional[int]) -> None:
    try:
        op = _operation_done(ctx)  # the last callback of the upload
        if op is None:
            return
        err = _errors.from_struct(error) if error else None
        outcome: Optional[UploadResult] = None
        if err is None and result:
            r = result.contents
            outcome = UploadResult(int(r.confirmed), int(r.failed), int(r.remaining))
        op.finish(outcome, err)
    except BaseException as e:
        _report_unraisable(e, "odatastore upload completion")


_on_upload_done = _ffi.UPLOAD_CB(_on_upload_done_py)


def _on_download_progress_py(store_ptr: Optional[int], progress: Any, ctx: Optional[int]) -> None:
    try:
        op = _operation_of(ctx)
        if op is None or not progress or op.progress is None or op._callback_raised:
            return
        report = DownloadProgress._copy(progress.contents)  # BORROWED for this call
        try:
            with _Delivering(op.store):
                op.progress(op.store, report)
        except BaseException as e:
            # The exception becomes the download's outcome, and the download stops (ODS_ESTATE
            # when it is over already: its completion is on its way).
            op.record(e)
            op.store._lib.ods_store_cancel_download(store_ptr)
    except BaseException as e:  # never let an exception cross into C
        _report_unraisable(e, "odatastore download progress callback")


_on_download_progress = _ffi.PROGRESS_CB(_on_download_progress_py)


def _on_download_done_py(store_ptr: Optional[int], status: int, error: Any, ctx: Optional[int]) -> None:
    try:
        op = _operation_done(ctx)  # the last callback of the download
        if op is not None:
            op.finish(None, _errors.from_struct(error) if error else None)
    except BaseException as e:
        _report_unraisable(e, "odatastore download completion")


_on_download_done = _ffi.DOWNLOAD_CB(_on_download_done_py)


def _on_revert_done_py(store_ptr: Optional[int], error_id: int, status: int, error: Any, ctx: Optional[int]) -> None:
    try:
        op = _operation_done(ctx)
        if op is not None:
            op.finish(None, _errors.from_struct(error) if error else None)
    except BaseException as e:
        _report_unraisable(e, "odatastore revert completion")


_on_revert_done = _ffi.REVERT_CB(_on_revert_done_py)


# ---------------------------------------------------------------------------------------
# Request
# ---------------------------------------------------------------------------------------


def _body_text(store: "Store", path: str, body: Any, timeout: Optional[float] = None) -> str:
    """A request body (not None) as the canonical JSON text: str and bytes as they are, a
    mapping or list encoded with the types of the entity's properties (Int64 and Decimal as
    strings)."""
    if isinstance(body, str):
        return body
    if isinstance(body, bytes):
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InvalidArgumentError(f"a request body given as bytes must be UTF-8 JSON: {e.reason} at byte {e.start}",
                                       _errors.EINVAL) from e
    return _values.dumps(body, store._write_types(path, body, timeout) if isinstance(body, dict) else None)


_new_object = object.__new__


class Request:
    """One request: created unstarted by :meth:`Store.request`, configured, then started.

    >>> req = store.request("READ", "Products?$top=3", delegate=MyDelegate(), context=screen)
    >>> req.set_header("Accept-Language", "de")
    >>> req.start()
    >>> rows = req.result()        # or req.future, or await req

    A started request keeps itself (and its store) alive until its last callback, so
    dropping every reference to it does not cancel it; :meth:`cancel` does.
    """

    # Defaults most requests keep (set on the instance when they change): a request made by
    # Store.submit stores only what it must.
    context: Any = None
    delegate: Optional[RequestDelegate] = None
    on_complete: Optional[CompletionCallback] = None
    response: Optional[Response] = None
    _error: Optional[BaseException] = None
    _callback_raised = False
    _failure: Optional[Error] = None
    _result: Any = None
    _future: Optional[RequestFuture] = None
    _future_ref: Optional["weakref.ref[RequestFuture]"] = None
    _aio: Sequence[tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]"]] = ()
    _started = False
    _handle: Optional[int] = None

    def __init__(self, store: "Store", mode: ModeLike, path: str, body: Any = None, *,
                 etag: Optional[str] = None, headers: Optional[Mapping[str, str]] = None,
                 all_pages: bool = False, timeout: Optional[float] = None, context: Any = None,
                 delegate: Optional[RequestDelegate] = None,
                 on_complete: Optional[CompletionCallback] = None, route: Optional[str] = None) -> None:
        lib = store._lib
        self._begin(store, mode, path)
        if context is not None:
            self.context = context
        if delegate is not None:
            self.delegate = delegate
        if on_complete is not None:
            self.on_complete = on_complete
        if etag is None and isinstance(body, Entity):
            etag = body.etag
        body_text = None if body is None else _body_text(store, path, body, timeout)
        handle = ctypes.c_void_p()
        with store._use():
            _errors.check(lib, lib.ods_request_new(ctypes.byref(handle), store._handle, int(self.mode),
                                                   _c(path, "path"), _c(body_text, "the request body")))
        self._handle = handle.value
        _errors.check(lib, lib.ods_request_set_completion(self._handle, _on_completion, self._key))
        if delegate is not None or store._default_delegate is not None:
            _errors.check(lib, lib.ods_request_set_delegate(self._handle, ctypes.byref(_DELEGATE)))
        if etag is not None:
            self.set_etag(etag)
        if headers is not None and not isinstance(headers, Mapping):
            raise InvalidArgumentError(f"headers must be a mapping of header names to values, not "
                                       f"{type(headers).__name__}", _errors.EINVAL)
        for name, value in (headers or {}).items():
            self.set_header(name, value)
        if all_pages:
            _errors.check(lib, lib.ods_request_set_paging(self._handle, 1))
        if timeout is not None:
            self.set_timeout(timeout)
        if route is not None:
            self.set_route(route)

    def _begin(self, store: "Store", mode: ModeLike, path: str) -> int:
        """What every request sets first (``__init__``, ``_submitted``): its store, mode and
        path (checked: InvalidArgumentError), its settled flag, lock and key; returns the key.

        After the last callback the request keeps its future weakly (_finish): the future
        keeps its request (future.request), so a strong link both ways would be a cycle, left
        with its responses and C handles to the cyclic GC instead of freed at once."""
        self.store = store
        if path.__class__ is not str:
            _path_arg(path, "path")  # raises for what is not a str
        known = _MODES_BY_NAME.get(mode) if mode.__class__ is str else None  # _mode's usual case
        self.mode = known if known is not None else _mode(mode)
        self.path = path
        self._done = _Settled()
        self._lock = threading.Lock()
        key = self._key = next(_ids)
        return key

    @classmethod
    def _submitted(cls, store: "Store", mode: ModeLike, path: str, body: Any) -> RequestFuture:
        """Store.submit without options (and without an ETag to send): what ``__init__``,
        ``future`` and ``start`` do, in one frame, the request made, completed and started in
        one C call (ods_request_submit); returns its future."""
        self = _new_object(cls)
        key = self._begin(store, mode, path)
        try:  # what _c does, inlined: it raises InvalidArgumentError for a NUL or a lone surrogate
            c_path = path.encode("utf-8") if "\0" not in path else _c(path, "path")
        except UnicodeEncodeError:
            c_path = _c(path, "path")
        c_body = None if body is None else _c(_body_text(store, path, body), "the request body")
        future = self._future = RequestFuture(self)
        self._started = True
        if store._fd is None:
            _live[key] = self
        else:
            _hold(store, key, self, _live, _live_queued)
        lib = store._lib
        try:
            if store._handle is not None and _get_ident() in store._delivering:
                # from a callback of the store (the usual chain): what _Use would do (nothing)
                started = lib.ods_request_submit(store._handle, int(self.mode), c_path, c_body, _on_completion, key)
            else:
                with store._use():
                    started = lib.ods_request_submit(store._handle, int(self.mode), c_path, c_body,
                                                     _on_completion, key)
            if not started:
                raise _errors.last_any(lib)
        except BaseException:
            _release(store, key, _live, _live_queued)
            self._future = None
            raise
        # The completion may have run already on the callback thread: it set the same
        # handle (_on_completion_py), so that its callbacks could use the request.
        self._handle = started
        return future

    # -- configuration (before start) ----------------------------------------------------

    def set_route(self, route: str) -> None:
        """Sends the request to one side of a mixed store whatever its working mode: "online"
        (the service), "offline" (the store file) or "auto" (the working mode decides;
        ``ods_request_set_route``). Other store kinds take only "auto". Before start only."""
        if self.store._forked:
            raise self.store._closed_error()
        if route not in _ROUTES:
            raise InvalidArgumentError(f"route must be 'auto', 'online' or 'offline', not {route!r}", _errors.EINVAL)
        lib = self.store._lib
        _errors.check(lib, lib.ods_request_set_route(self._handle, _ROUTES[route]))

    def set_header(self, name: str, value: Optional[str]) -> None:
        """Adds a header (replacing one of that name); None removes it. Before start only."""
        if self.store._forked:
            raise self.store._closed_error()
        lib = self.store._lib
        c_name = _c(name, "a header name")
        _errors.check(lib, lib.ods_request_set_header(self._handle, c_name, _c(value, f"the value of header {name}")))

    def set_etag(self, etag: Optional[str]) -> None:
        """The ETag for If-Match ("*" matches any version). Before start only."""
        if self.store._forked:
            raise self.store._closed_error()
        lib = self.store._lib
        _errors.check(lib, lib.ods_request_set_etag(self._handle, _c(etag, "etag")))

    def set_timeout(self, seconds: float) -> None:
        """Time limit for each HTTP exchange, in seconds (0: the store's; finite, at most
        2147483 s: :class:`InvalidArgumentError` otherwise). Before start only."""
        if self.store._forked:
            raise self.store._closed_error()
        ms = _timeout_ms(seconds, "timeout")
        lib = self.store._lib
        _errors.check(lib, lib.ods_request_set_timeout(self._handle, ms))

    # -- running -----------------------------------------------------------------------

    def start(self) -> "Request":
        """Starts the request (held until the store is open). Returns self."""
        lib = self.store._lib
        with self._lock:
            if self._started:
                raise StateError("the request was already started", _errors.ESTATE)
            self._started = True
        _hold(self.store, self._key, self, _live, _live_queued)
        try:
            with self.store._use():
                _errors.check(lib, lib.ods_request_start(self._handle))
        except BaseException:
            _release(self.store, self._key, _live, _live_queued)
            with self._lock:
                self._started = False
            raise
        return self

    def cancel(self) -> None:
        """Cancels the started request: it fails with :class:`CancelledError` unless it has
        already finished (then :class:`StateError`)."""
        lib = self.store._lib
        if self.store._forked:
            raise self.store._closed_error()
        _errors.check(lib, lib.ods_request_cancel(self._handle))

    def _cancel_quietly(self) -> None:
        try:
            self.cancel()
        except Error:
            pass

    @property
    def id(self) -> int:
        """The request's id, unique in its store (for :meth:`Store.cancel`)."""
        if self.store._forked:
            raise self.store._closed_error()
        return int(self.store._lib.ods_request_id(self._handle))

    @property
    def state(self) -> RequestState:
        if self.store._forked:
            raise self.store._closed_error()
        return RequestState(self.store._lib.ods_request_get_state(self._handle))

    @property
    def done(self) -> bool:
        """Whether the request has had its last callback."""
        return self._done.is_set()

    @property
    def future(self) -> RequestFuture:
        """A :class:`concurrent.futures.Future` of the result (created on first use)."""
        with self._lock:
            future = self._future
            if future is None and self._future_ref is not None:
                future = self._future_ref()
            if future is None:
                future = RequestFuture(self)
                if self._done.is_set():
                    self._settle_future(future)
                    self._future_ref = weakref.ref(future)
                else:
                    self._future = future
            return future

    def result(self, timeout: Optional[float] = None) -> Any:
        """Waits for the request (starting it if needed) and returns its typed result, or
        raises its error (or the exception a callback of it raised)."""
        if not self._started:
            self.start()
        if not self.store._wait_for(self._done, timeout):
            raise _errors.make(_errors.ETIMEOUT, f"no result within {timeout} s")
        if self._error is not None:
            raise self._error
        return self._result

    def __await__(self) -> Any:
        return self._await().__await__()

    async def _await(self) -> Any:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        self.store._attach_for_async(loop)
        with self._lock:
            settled = self._done.is_set()
            if not settled:
                self._aio = [*self._aio, (loop, fut)]
        if settled:
            self._settle_aio(fut)
        elif not self._started:
            self.start()
        fut.add_done_callback(lambda f: self._cancel_quietly() if f.cancelled() else None)
        return await fut

    def __repr__(self) -> str:
        return f"<Request {self.mode.name} {self.path!r}>"

    def __del__(self) -> None:
        handle = self._handle  # the class's None when __init__ failed before it
        if handle:
            self._handle = None
            try:
                store = self.store  # None once the interpreter tears modules down
                if store._forked:  # the parent's request (see _after_fork_in_child)
                    return
                store._lib.ods_request_free(handle)  # never cancels; safe in callbacks
            except Exception:
                pass

    # -- callbacks (library thread or dispatching thread) ----------------------------------

    def _deliver(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            store = self.store
            if store._keeping and store._kept_thread != _get_ident():  # else it would keep nothing
                _keep_thread_state(store)
            ident = _enter_delivery(store)
            try:
                fn(*args)
            finally:
                _leave_delivery(store, ident)
                del store  # an exception the request keeps keeps this frame: not the store with it
        except BaseException as e:  # an exception of a user callback becomes the outcome
            self._record(e)

    def _complete(self, resp_ptr: Optional[int], error: Any) -> None:
        """The last callback, in one frame (every request ends here): the delivery marks
        (_enter_delivery / _leave_delivery), the outcome (the response copied and typed as
        _copy_response and Store._type_response do, or the error), ``on_complete``, then
        :meth:`_finish`. An exception of a user callback becomes the outcome."""
        try:
            store = self.store
            ident = _get_ident()
            if store._keeping and store._kept_thread != ident:  # else it would keep nothing
                _keep_thread_state(store)
            marks = store._delivering
            del store  # an exception the request keeps keeps this frame: not the store with it
            marks[ident] = marks.get(ident, 0) + 1
            try:
                try:
                    err: Optional[Error] = None
                    resp: Optional[Response] = None
                    if error:
                        err = self._failure
                        if err is None:
                            resp = self._copy_response(resp_ptr)
                            err = _errors.from_struct(error, resp)
                        resp = err.response
                    else:
                        resp = self.response
                        if resp is None and resp_ptr:
                            resp = Response._copy(self.store._lib, resp_ptr)
                            self.response = resp
                            try:
                                types = self.store._types  # Store._typecache once it has made the cache
                                if types is None or not self.store.typed:
                                    types = self.store._typecache()
                                resp._parse(types, self.path)
                            except (ClosedError, StateError):
                                resp._parse(None, None)
                    with self._lock:
                        if self._error is None:
                            if err is not None:
                                self._error = err
                            elif resp is not None:
                                self._result = resp._data if resp._has_data else resp.data
                            else:
                                self._result = None
                    if self.on_complete is not None:
                        try:
                            with _Delivering(self.store):
                                self.on_complete(self, resp, err)
                        except BaseException as e:
                            self._record(e)
                finally:
                    self._finish()
            finally:
                depth = marks[ident] - 1
                if depth:
                    marks[ident] = depth
                else:
                    del marks[ident]
        except BaseException as e:
            self._record(e)
            self._finish()

    def _record(self, exc: BaseException) -> None:
        """Keeps the first exception a callback raised: it wins over the library's error."""
        with self._lock:
            if not self._callback_raised:
                self._callback_raised = True
                self._error = exc

    def _delegate(self) -> Optional[RequestDelegate]:
        return self.delegate if self.delegate is not None else self.store._default_delegate

    def _cb_started(self) -> None:
        d = self._delegate()
        if d is not None:
            d.started(self)

    def _copy_response(self, resp_ptr: Optional[int]) -> Optional[Response]:
        if not resp_ptr:
            return None
        resp = Response._copy(self.store._lib, resp_ptr)
        return resp

    def _cb_response(self, resp_ptr: Optional[int]) -> None:
        resp = self._copy_response(resp_ptr)
        if resp is not None:
            self.response = resp
            self.store._type_response(self, resp)
        d = self._delegate()
        if d is not None and resp is not None:
            d.response(self, resp)

    def _cb_failed(self, error: Any, resp_ptr: Optional[int]) -> None:
        resp = self._copy_response(resp_ptr)
        err = _errors.from_struct(error, resp)
        self._failure = err
        d = self._delegate()
        if d is not None:
            d.failed(self, err, resp)

    def _cb_finished(self) -> None:
        d = self._delegate()
        if d is not None:
            d.finished(self)

    def _finish(self) -> None:
        done = self._done
        if done._flag:
            return
        with self._lock:
            done._flag = True  # done.set(), inlined
            event = done._event
            if event is not None:
                event.set()
            future = self._future
            if future is not None:  # from now on weakly (see __init__)
                self._future_ref = weakref.ref(future)
                self._future = None
            aio = self._aio
            if aio:
                self._aio = ()
        if future is not None:  # _settle_future, inlined
            try:
                if self._error is not None:
                    future.set_exception(self._error)
                else:
                    future.set_result(self._result)
            except concurrent.futures.InvalidStateError:  # cancelled by its owner
                pass
        for loop, fut in aio:
            if self.store._on_loop_thread(loop):
                self._settle_aio(fut)
            else:
                try:
                    loop.call_soon_threadsafe(self._settle_aio, fut)
                except RuntimeError:  # the loop is closed: nobody awaits any more
                    pass

    def _settle_future(self, future: RequestFuture) -> None:
        try:
            if self._error is not None:
                future.set_exception(self._error)
            else:
                future.set_result(self._result)
        except concurrent.futures.InvalidStateError:  # cancelled by its owner
            pass

    def _settle_aio(self, fut: "asyncio.Future[Any]") -> None:
        if fut.done():
            return
        if self._error is not None:
            fut.set_exception(self._error)
        else:
            fut.set_result(self._result)


# ---------------------------------------------------------------------------------------
# Store
# ---------------------------------------------------------------------------------------


class Store:
    """An OData store: online (every request over HTTP to ``service_root``) or offline (READs
    answered from a local SQLite file that defining requests filled).

    >>> with odatastore.Store("http://127.0.0.1:8080/service/") as store:
    ...     rows = store.read("Customers?$top=3")
    >>> with odatastore.Store("http://127.0.0.1:8080/service/", store_path="app.store",
    ...                       defining_requests=["Customers", "Orders?$expand=Items"],
    ...                       on_progress=lambda store, p: print(p.total_entities)) as store:
    ...     rows = store.read("Customers?$top=3")      # from app.store, rows.is_local

    The store opens in the background (online: loading ``$metadata``; offline: also the first
    download of the defining requests); requests made meanwhile wait until it is open. Every
    method may be called from any thread.

    Args:
        service_root: http(s) URL of the service root (of an offline store: the one its file
            was made for). None reopens an existing offline or mixed store file
            (``store_path``) with the service root it was made for; else
            :class:`InvalidArgumentError`.
        mode: "online" (default), "offline" (the default when ``store_path`` or
            ``defining_requests`` is given) or "mixed": the store file and the service behind
            one store, each request sent where its data is (docs/mixed.md; it takes the
            offline arguments; :attr:`working_mode`, ``route=`` on requests,
            :attr:`Response.source`).
        store_path: offline and mixed: the store file (``str`` or path-like), created on the first open.
        defining_requests: offline: READ paths (relative to the service root) whose results
            the store downloads and answers from. A new file needs at least one; reopening an
            existing file needs none (it keeps its own) and adds the new ones given.
        on_progress: offline: ``on_progress(store, DownloadProgress)`` after every page the
            download writes (usable with tqdm), through the dispatch mode like every callback.
            An exception raised in it cancels the download: the open fails and
            :meth:`wait_open` raises that exception (:meth:`close` does if nobody waited).
        download_page_size: offline, V4 services: entities per page asked while downloading
            (``Prefer: odata.maxpagesize``); None: 1000; -1: the service's own paging.
        dispatch: where callbacks run: "inline" (the store's own threads: its callback
            thread, or its transport thread when an answer finds the callback thread idle, one
            wake-up per answer instead of three; ODS_DISPATCH_THREAD_INLINE), "thread" (only
            the store's own callback thread: for callbacks that block or run long, which would
            hold up the store's I/O in "inline"), "queue" (whoever calls :meth:`dispatch`, or
            an asyncio loop through :meth:`fileno`), or "auto" (default): "queue" attached to
            the running asyncio loop when created in a coroutine, else "inline".
        odata_version: 2 or 4; None detects it from $metadata.
        username, password: HTTP Basic authentication.
        bearer_token: ``Authorization: Bearer`` authentication.
        headers: sent with every request.
        ca_bundle: PEM file of trusted CAs (None: the system's); verify=False disables TLS
            verification (testing only).
        connect_timeout, timeout: seconds (defaults 10 and 60; ``timeout`` is per exchange).
        max_connections: parallel connections (default 8).
        user_agent, csrf_protection, metadata_path: as in ``ods_store_options``.
        on_state: called with (store, StoreState, error or None) on every state change.
        typed: convert values to Python types using the service's model (default True).
        on_logon: called with (store, LogonPrompt) when the service wants credentials (a 401);
            answer the prompt now or later from any thread (docs/logon.md). Requests wait
            for the answer and are sent again by themselves.
        logon_login_page: a 2xx HTML answer (a login page) asks for a logon too.
        max_logon_attempts: refused logons in a row before waiting requests fail (default 3).
        max_held_requests: most requests held while opening or waiting for a logon (default 10000).
    """

    def __init__(self, service_root: Optional[str], *, mode: Optional[str] = None,
                 store_path: Union[str, "os.PathLike[str]", None] = None,
                 defining_requests: Optional[Sequence[str]] = None,
                 on_progress: Optional[ProgressCallback] = None, download_page_size: Optional[int] = None,
                 dispatch: str = "auto",
                 odata_version: Optional[int] = None, username: Optional[str] = None,
                 password: Optional[str] = None, bearer_token: Optional[str] = None,
                 headers: Optional[Mapping[str, str]] = None, ca_bundle: Optional[str] = None,
                 verify: bool = True, connect_timeout: Optional[float] = None, timeout: Optional[float] = None,
                 max_connections: Optional[int] = None, user_agent: Optional[str] = None,
                 csrf_protection: bool = True, metadata_path: Optional[str] = None,
                 on_state: Optional[StateCallback] = None, typed: bool = True,
                 on_logon: Optional[LogonCallback] = None, logon_login_page: bool = False,
                 max_logon_attempts: Optional[int] = None, max_held_requests: Optional[int] = None) -> None:
        self._handle: Optional[int] = None
        self._closed = True
        self._observers: set["Observer"] = set()  # registered, not removed (see _observe.Observer)
        self._forked = False  # this is a child process of the one that opened the store (_after_fork)
        # while ods_store_open runs: set when it returns (the first callbacks wait for it)
        self._opening: Optional[threading.Event] = None
        self._opening_thread = 0
        # thread id -> callbacks of this store that thread is delivering (_enter_delivery)
        self._delivering: dict[int, int] = {}
        # the threads whose Python thread state is kept (_keep_thread_state): the first (the
        # callback thread, usually) and in dispatch "inline" a second (the transport thread);
        # 0 none yet, -1 released. _keeping: a callback may still keep one.
        self._kept_thread = 0
        self._kept_state = 0
        self._kept_other = 0
        self._kept_other_state = 0
        self._thread_end_set = False
        self._keeping = False
        self._lib = _errors.library()
        for name, value in (("on_state", on_state), ("on_progress", on_progress), ("on_logon", on_logon)):
            if value is not None and not callable(value):
                raise InvalidArgumentError(f"{name} must be callable or None, not {type(value).__name__}",
                                           _errors.EINVAL)
        for name, flag in (("verify", verify), ("csrf_protection", csrf_protection), ("typed", typed),
                           ("logon_login_page", logon_login_page)):
            if not isinstance(flag, bool):
                raise InvalidArgumentError(f"{name} must be True or False, not {type(flag).__name__}", _errors.EINVAL)
        for name, text in (("mode", mode), ("dispatch", dispatch)):
            if text is not None and not isinstance(text, str):
                raise InvalidArgumentError(f"{name} must be a str, not {type(text).__name__}", _errors.EINVAL)
        if odata_version is not None and (isinstance(odata_version, bool) or not isinstance(odata_version, int)):
            raise InvalidArgumentError(f"odata_version must be 2, 4 or None, not {type(odata_version).__name__}",
                                       _errors.EINVAL)
        max_connections = _int_option(max_connections, "max_connections")
        max_logon_attempts = _int_option(max_logon_attempts, "max_logon_attempts")
        max_held_requests = _int_option(max_held_requests, "max_held_requests")
        if download_page_size is not None and (isinstance(download_page_size, bool)
                                               or not isinstance(download_page_size, int)):
            raise InvalidArgumentError(f"download_page_size must be an int or None, not "
                                       f"{type(download_page_size).__name__}", _errors.EINVAL)
        if store_path is not None and not isinstance(store_path, (str, os.PathLike)):
            raise InvalidArgumentError(f"store_path must be a str or a path-like object of str, not "
                                       f"{type(store_path).__name__}", _errors.EINVAL)
        if defining_requests is not None and not isinstance(defining_requests, (str, bytes)):
            try:
                defining_requests = list(defining_requests)
            except TypeError:
                raise InvalidArgumentError(f"defining_requests is a list of request paths, not "
                                           f"{type(defining_requests).__name__}", _errors.EINVAL) from None
        self.service_root = service_root
        self.on_state = on_state
        self.on_progress = on_progress
        self.on_logon = on_logon
        self.typed = typed
        if mode is None:
            mode = "offline" if (store_path is not None or defining_requests is not None) else "online"
        if mode not in _KINDS:
            raise InvalidArgumentError(f"mode must be 'online', 'offline' or 'mixed', not {mode!r}", _errors.EINVAL)
        if mode == "online" and (store_path is not None or defining_requests is not None or on_progress is not None
                                 or download_page_size is not None):
            raise InvalidArgumentError("store_path, defining_requests, on_progress and download_page_size are "
                                       "for offline and mixed stores", _errors.EINVAL)
        self.mode = mode
        path = os.fspath(store_path) if store_path is not None else None
        if path is not None and not isinstance(path, str):
            raise InvalidArgumentError("store_path must be a str or a path-like object of str", _errors.EINVAL)
        self.store_path: Optional[str] = path
        if isinstance(defining_requests, (str, bytes)):
            raise InvalidArgumentError("defining_requests is a list of request paths, not one string",
                                       _errors.EINVAL)
        definitions = list(defining_requests) if defining_requests is not None else None
        for d in definitions or ():
            if not isinstance(d, str):
                raise InvalidArgumentError(f"a defining request is a str (a READ path), not {type(d).__name__}",
                                           _errors.EINVAL)
        self.defining_requests = definitions
        if download_page_size is not None and (download_page_size == 0 or download_page_size < -1
                                               or download_page_size > 2**31 - 1):
            raise InvalidArgumentError("download_page_size is a positive number of entities, -1 (the service's "
                                       "own paging) or None (1000)", _errors.EINVAL)
        loop: Optional[asyncio.AbstractEventLoop] = None
        if dispatch == "auto":
            try:
                loop = asyncio.get_running_loop()
                dispatch = "queue"
            except RuntimeError:
                dispatch = "inline"
        if dispatch not in _DISPATCH:
            raise InvalidArgumentError(f"dispatch must be 'auto', 'inline', 'thread' or 'queue', not {dispatch!r}",
                                       _errors.EINVAL)
        self.dispatch_mode = dispatch
        if username is not None and bearer_token is not None:
            raise InvalidArgumentError("give username/password or bearer_token, not both", _errors.EINVAL)
        if odata_version not in (None, 2, 4):
            raise InvalidArgumentError("odata_version must be 2, 4 or None", _errors.EINVAL)

        self._cond = threading.Condition()
        self._users = 0
        self._closing = False
        self._state = StoreState.OPENING
        self._open_error: Optional[Error] = None
        self._state_changed_event = threading.Event()
        self._open_waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._callback_errors: list[BaseException] = []
        self._default_delegate: Optional[RequestDelegate] = None
        self._types: Optional[_values.TypeCache] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._loop_thread: Optional[int] = None
        self._fd: Optional[int] = None
        # queue dispatch: the started requests and operations (key -> object) until their
        # last callback (_hold)
        self._inflight: dict[int, Any] = {}
        self._progress_error: Optional[BaseException] = None
        self._progress_error_raised = False
        self._key = next(_ids)

        opts = _ffi.StoreOptions()
        opts.version = _ffi.STORE_OPTIONS_VERSION
        opts.kind = _KINDS[mode]
        opts.service_root = _c(service_root, "service_root")
        opts.dispatch = _DISPATCH[dispatch]
        opts.odata_version = odata_version or 0
        keep: list[Any] = []
        if username is not None:
            opts.auth = 1
            opts.username = _c(username, "username")
            opts.password = _c(password or "", "password")
        elif bearer_token is not None:
            opts.auth = 2
            opts.bearer_token = _c(bearer_token, "bearer_token")
        if headers is not None:  # checked even when empty (a mapping)
            array = _header_lines(headers, "headers")
            keep.append(array)
        if headers:
            opts.headers = ctypes.cast(array, ctypes.POINTER(ctypes.c_char_p))
        opts.ca_bundle = _c(ca_bundle, "ca_bundle")
        opts.insecure_skip_tls_verify = 0 if verify else 1
        opts.connect_timeout_ms = self._ms(connect_timeout, "connect_timeout")
        opts.request_timeout_ms = self._ms(timeout, "timeout")
        self._timeout: Optional[float] = float(timeout) if timeout is not None else None
        opts.max_connections = max_connections
        opts.user_agent = _c(user_agent, "user_agent")
        opts.csrf_protection = 0 if csrf_protection else 1
        opts.metadata_path = _c(metadata_path, "metadata_path")
        opts.store_path = _c(path, "store_path")
        if definitions is not None:
            paths = [_c(d, "a defining request") for d in definitions] + [None]
            requests = (ctypes.c_char_p * len(paths))(*paths)
            keep.append(requests)
            opts.defining_requests = ctypes.cast(requests, ctypes.POINTER(ctypes.c_char_p))
        if on_progress is not None:
            opts.download_progress = _on_progress
            opts.download_progress_context = self._key
        opts.download_page_size = download_page_size or 0
        if on_logon is not None:
            opts.logon = _on_logon
            opts.logon_context = self._key
        opts.logon_flags = 1 if logon_login_page else 0
        opts.max_logon_attempts = max_logon_attempts
        opts.max_held_requests = max_held_requests

        # The first state callback (OPENING) may run on the store's own thread before
        # ods_store_open has returned, before this object holds the handle: that callback
        # waits for the return (_on_state_py), so the store is usable (state, submit) from
        # its first callback.
        _stores[self._key] = self
        _open_stores.add(self)
        opened = self._opening = threading.Event()
        self._opening_thread = _get_ident()
        handle = ctypes.c_void_p()
        try:
            rc = self._lib.ods_store_open(ctypes.byref(handle), ctypes.byref(opts), _on_state, self._key)
            if rc >= 0:
                self._handle = handle.value
                self._closed = False
        finally:
            self._opening = None
            opened.set()
        if rc < 0:
            del _stores[self._key]
            _open_stores.discard(self)
            raise _errors.last(self._lib, rc)
        if dispatch in _LIBRARY_THREADS and _gil_ensure is not None:
            # "inline": the transport thread's kept state is given back on that thread.
            self._thread_end_set = dispatch == "inline" and self._lib.ods_store_set_thread_end(
                self._handle, _on_thread_end) == 0
            self._keeping = True
        if dispatch == "queue":
            self._fd = _errors.check(self._lib, self._lib.ods_store_fd(self._handle))
            if loop is not None:
                self.attach(loop)

    @staticmethod
    def _ms(seconds: Optional[float], name: str) -> int:
        if seconds is None:
            return 0
        return max(1, _timeout_ms(seconds, name))

    # -- handle use and closing ---------------------------------------------------------

    def _in_callback(self) -> bool:
        return _get_ident() in self._delivering

    def _closed_error(self) -> ClosedError:
        if self._forked:
            return ClosedError("the store was opened in another process (this one was forked from it); open a new "
                               "Store in the child", _errors.ECLOSED)
        return ClosedError("the store is closed", _errors.ECLOSED)

    def _use(self) -> "_Use":
        return _Use(self)

    def close(self) -> None:
        """Cancels the requests in flight (they fail with :class:`CancelledError`), delivers
        their last callbacks, and releases the store. Callable more than once. Raises the
        first exception a state callback raised, if any (the others, if more than one
        raised, go to :func:`sys.unraisablehook`)."""
        errors = self._close()
        if errors:
            for extra in errors[1:]:
                _report_unraisable(extra, f"a callback of {self!r} (close() raises the first)", "Exception ignored in")
            raise errors[0]

    def _report_close_errors(self, errors: list[BaseException], how: str) -> None:
        for e in errors:
            _report_unraisable(e, f"a callback of {self!r} ({how})", "Exception ignored in")

    def _close(self) -> list[BaseException]:
        """close(): returns the exceptions the store's callbacks raised that nobody has seen
        (on_state, on_progress), for the caller to raise or report."""
        if self._in_callback():
            raise StateError("close() called from a callback of this store", _errors.ESTATE)
        with self._cond:
            if self._closed and self._handle is None:
                return []
            if self._closing:  # closing on another thread: wait for it
                while self._handle is not None:
                    self._cond.wait()
                return []
            self._closing = True
            while self._users:
                self._cond.wait()
        self._detach_loop()
        handle = self._handle
        rc = self._lib.ods_store_close(handle)
        if rc < 0:
            with self._cond:
                self._closing = False
                self._cond.notify_all()
            raise _errors.last(self._lib, rc)
        with self._cond:
            self._handle = None
            self._closed = True
            self._cond.notify_all()
        _open_stores.discard(self)
        _stores.pop(self._key, None)
        errors, self._callback_errors = self._callback_errors, []
        progress_error, self._progress_error = self._progress_error, None
        if progress_error is not None and not self._progress_error_raised:
            errors.insert(0, progress_error)
        return errors

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "Store":
        if self._closed:
            raise self._closed_error()
        return self

    def _exit(self, exc: Optional[BaseException]) -> None:
        if exc is None:
            self.close()
            return
        # The body's exception goes on; a callback's exception does not replace it.
        self._report_close_errors(self._close(), "closed by `with` after an exception in its body")

    def __exit__(self, *exc: Any) -> None:
        self._exit(exc[1])

    async def __aenter__(self) -> "Store":
        if self._closed:
            raise self._closed_error()
        self._attach_for_async(asyncio.get_running_loop())
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self._exit(exc[1])

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is None:
            return
        try:
            if not self._in_callback():
                self._report_close_errors(self._close(), "closed by the garbage collector")
                return
        except StateError:  # the library refuses: we are inside one of its callbacks
            pass
        except BaseException:
            return
        # Collected on the store's own callback thread: close it from another thread (this
        # one returns to the library, which then lets the close join it).
        threading.Thread(target=self._close_quietly, name="odatastore-close").start()

    def _close_quietly(self, how: str = "closed by the garbage collector") -> None:
        try:
            errors = self._close()
        except BaseException:
            return
        self._report_close_errors(errors, how)

    def __repr__(self) -> str:
        state = "closed" if self._closed else self.state.name.lower()
        return f"<odatastore.Store {self.service_root!r} {self.mode} {state}>"

    # -- state ----------------------------------------------------------------------------

    def _state_changed(self, state: int, error: Optional[Error]) -> None:
        try:
            st = StoreState(state)
        except ValueError:
            return
        self._state = st
        if st == StoreState.FAILED:
            self._open_error = error
        if st in (StoreState.OPEN, StoreState.FAILED, StoreState.CLOSED):
            with self._cond:
                self._state_changed_event.set()
                waiters, self._open_waiters = self._open_waiters, []
            for loop, fut in waiters:
                if self._on_loop_thread(loop):
                    _settle_open(fut)
                else:
                    try:
                        loop.call_soon_threadsafe(_settle_open, fut)
                    except RuntimeError:  # the loop is closed: nobody awaits any more
                        pass
        if self.on_state is not None:
            try:
                self.on_state(self, st, error)
            except BaseException as e:
                self._callback_errors.append(e)

    def _progressed(self, handle: Optional[int], report: DownloadProgress) -> None:
        callback = self.on_progress
        if callback is None or self._progress_error is not None:
            return  # after an exception in it, the callback is not called again
        try:
            callback(self, report)
        except BaseException as e:
            self._progress_error = e
            # Stop the download: the open fails with ODS_ECANCELLED, and wait_open() raises
            # this exception instead. ODS_ESTATE when the download is already over (the
            # exception is then raised by close()).
            self._lib.ods_store_cancel_download(handle)

    @property
    def state(self) -> StoreState:
        """The store's current state."""
        if self._handle is None:
            return StoreState.CLOSED
        with self._use():
            return StoreState(_errors.check(self._lib, self._lib.ods_store_get_state(self._handle)))

    @property
    def odata_version(self) -> int:
        """The service's OData version (2 or 4), 0 while not yet known."""
        with self._use():
            return _errors.check(self._lib, self._lib.ods_store_odata_version(self._handle))

    @property
    def model(self) -> dict[str, Any]:
        """What the service's $metadata declares, as a new dict each time
        (``ods_store_model_json``; the summary ``odatastore metadata`` prints, docs/cli.md):
        ``odataVersion``, ``container``, ``entitySets`` (name, kind, entityType, key,
        properties with their Edm types, navigation) and ``operations``. An offline store's is
        its file's. :class:`StateError` until the store has its $metadata (see
        :meth:`wait_open`)."""
        out = ctypes.c_void_p()
        with self._use():
            _errors.check(self._lib, self._lib.ods_store_model_json(ctypes.byref(out), self._handle))
        result: dict[str, Any] = json.loads(_ffi.take_owned_string(self._lib, out.value))
        return result

    def wait_open(self, timeout: Optional[float] = None) -> None:
        """Waits until the store is open (offline: its first download done); raises the
        opening error if it failed (or the exception ``on_progress`` raised), or
        :class:`RequestTimeoutError` after ``timeout`` seconds."""
        if not self._wait_for(self._state_changed_event, timeout):
            raise _errors.make(_errors.ETIMEOUT, f"the store did not open within {timeout} s")
        self._raise_open_outcome()

    async def wait_open_async(self, timeout: Optional[float] = None) -> None:
        """:meth:`wait_open`, awaited: the loop keeps running while the store opens (an
        offline store's first download may take a while). With dispatch "queue" the store's
        descriptor is watched by the running loop, as for :meth:`read_async`."""
        loop = asyncio.get_running_loop()
        if not self._closed:
            self._attach_for_async(loop)
        fut: asyncio.Future[None] = loop.create_future()
        with self._cond:
            waiting = not self._state_changed_event.is_set()
            if waiting:
                self._open_waiters.append((loop, fut))
        if waiting:
            try:
                await asyncio.wait_for(fut, timeout)
            except asyncio.TimeoutError:
                raise _errors.make(_errors.ETIMEOUT, f"the store did not open within {timeout} s") from None
        self._raise_open_outcome()

    def _raise_open_outcome(self) -> None:
        if self._state == StoreState.FAILED and self._progress_error is not None:
            self._progress_error_raised = True
            raise self._progress_error from self._open_error
        if self._state == StoreState.FAILED and self._open_error is not None:
            raise self._open_error
        if self._closed:
            raise self._closed_error()

    # -- mixed ----------------------------------------------------------------------------

    @property
    def working_mode(self) -> str:
        """Where requests go: a mixed store's working mode, "mixed" (by what the defining
        requests cover, docs/mixed.md), "online" or "offline", switchable at any time (requests
        in flight finish where they started; ``ods_store_set_mode``). An online store says
        "online", an offline store "offline"; only a mixed store can be switched."""
        lib = self._lib
        out = ctypes.c_int()
        with self._use():
            _errors.check(lib, lib.ods_store_get_mode(ctypes.byref(out), self._handle))
        return {v: k for k, v in _WORKING_MODES.items()}.get(out.value, "mixed")

    @working_mode.setter
    def working_mode(self, mode: str) -> None:
        if mode not in _WORKING_MODES:
            raise InvalidArgumentError(f"working_mode must be 'mixed', 'online' or 'offline', not {mode!r}",
                                       _errors.EINVAL)
        lib = self._lib
        with self._use():
            _errors.check(lib, lib.ods_store_set_mode(self._handle, _WORKING_MODES[mode]))

    # -- offline --------------------------------------------------------------------------

    def offline_info(self) -> OfflineInfo:
        """What an offline store's file holds: its size, the last download and every defining
        request with its counts (``ods_store_offline_info`` / ``ods_store_defining_request``).
        Available once the store file is open (also while its first download runs):
        :class:`StateError` before and after a failed open (``ODS_ESTATE``),
        :class:`UnsupportedError` for online stores."""
        lib = self._lib
        with self._use():
            info = _ffi.OfflineInfoStruct()
            info.version = _ffi.OFFLINE_INFO_VERSION
            _errors.check(lib, lib.ods_store_offline_info(ctypes.byref(info), self._handle))
            requests = []
            for index in range(info.defining_request_count):
                d = _ffi.DefiningRequestInfoStruct()
                d.version = _ffi.DEFINING_REQUEST_INFO_VERSION
                _errors.check(lib, lib.ods_store_defining_request(ctypes.byref(d), self._handle, index))
                requests.append(DefiningRequestInfo._copy(d))  # strings BORROWED until close: copied
        return OfflineInfo(self.store_path or "", int(info.size_bytes), _offline._when(int(info.last_download)),
                           requests)

    def cancel_download(self) -> None:
        """Stops the offline store's download in progress. During the first download the
        open fails with :class:`CancelledError` (:meth:`wait_open` raises it, held requests
        fail with it); what was written stays in the file and the next open resumes after
        it. :class:`StateError` when no download runs, :class:`UnsupportedError` for online
        stores."""
        with self._use():
            _errors.check(self._lib, self._lib.ods_store_cancel_download(self._handle))

    # -- offline: downloading after opening, changing the defining requests ------------------

    def _start_download(self, op: _Operation, paths: Optional[Sequence[str]]) -> _Operation:
        array = _path_list(paths, "paths")
        lib = self._lib
        # Without a progress of its own the store's on_progress gets the reports
        # (ods_store_download falls back to the options' callback).
        report = _on_download_progress if op.progress is not None else _ffi.PROGRESS_CB()  # NULL
        return op.start(lambda key: int(lib.ods_store_download(self._handle, array, report, _on_download_done, key)))

    def download(self, paths: Optional[Sequence[str]] = None, progress: Optional[ProgressCallback] = None, *,
                 timeout: Optional[float] = None) -> None:
        """Downloads fresh data into an open offline store and waits (``ods_store_download``):
        every defining request (``paths`` None) or those named (as given when opening or to
        :meth:`add_defining_request`). Where the service gave a delta link, only its changes
        and deletions come; otherwise a full download replaces what the request brought down.
        Local changes not uploaded yet stay on top. Reads and local writes go on meanwhile.

        ``progress(store, DownloadProgress)`` is called after every page (None: the store's
        ``on_progress``), through the dispatch mode like every callback. Raises what stopped
        the download: :class:`NotFoundError` for a path that is not a defining request,
        :class:`OfflineError`, :class:`ServerError`, :meth:`cancel_download` or :meth:`close`
        (:class:`CancelledError`), the exception ``progress`` raised (which also stops it);
        pages written before stay and the next download resumes. :class:`StateError` when
        the store is not open or a download or an upload runs, or from a callback of this
        store (use :meth:`submit_download` there); :class:`InvalidArgumentError` for an empty
        ``paths``; :class:`UnsupportedError` for online stores. ``timeout``
        (seconds) bounds the wait: :class:`RequestTimeoutError` then, and the download goes on."""
        self._refuse_wait_in_callback("download()", "submit_download()")
        self._start_download(_Operation(self, progress, cancel=self.cancel_download), paths).wait(timeout)

    def submit_download(self, paths: Optional[Sequence[str]] = None,
                        progress: Optional[ProgressCallback] = None) -> OperationFuture:
        """Starts a download (as :meth:`download`) and returns a :class:`concurrent.futures.Future`
        (its result is None); ``future.cancel()`` cancels the download."""
        return self._start_download(_Operation(self, progress, cancel=self.cancel_download), paths).future

    async def download_async(self, paths: Optional[Sequence[str]] = None,
                             progress: Optional[ProgressCallback] = None) -> None:
        """:meth:`download`, awaited (cancelling the awaiting task cancels the download)."""
        loop = asyncio.get_running_loop()
        self._attach_for_async(loop)
        op = _Operation(self, progress, cancel=self.cancel_download)
        fut = op.aio_future(loop)  # registered before the C call, so the completion cannot be missed
        self._start_download(op, paths)
        fut.add_done_callback(lambda f: op._cancel_quietly() if f.cancelled() else None)
        await fut

    def add_defining_request(self, path: str) -> None:
        """Adds a defining request to an open offline store (``ods_store_add_defining_request``),
        checked against ``$metadata`` like those given when opening (:class:`ODataSyntaxError` or
        :class:`InvalidArgumentError` for a bad one, nothing added). Its collection is in scope
        at once, empty until :meth:`download` brings its data. Adding one the store has is no
        error."""
        with self._use():
            _errors.check(self._lib, self._lib.ods_store_add_defining_request(self._handle, _path_arg(path, "path")))

    def observe(self, entity_set: str, callback: "ChangeCallback") -> "Observer":
        """Registers ``callback(store, changes)`` for changes of ``entity_set``'s local data
        in an offline or mixed store (``ods_store_observe``; docs/observers.md): called through
        the dispatch mode after a local write, a download, an upload's effects or a revert
        committed changes of the set, with a :class:`Changes`. Returns an :class:`Observer`:
        call ``remove()`` or use it as a context manager. :class:`UnsupportedError` for an
        online store, :class:`InvalidArgumentError` for a resource path instead of a set
        name, :class:`NotFoundError` for an unknown set."""
        from ._observe import Observer
        with self._use():
            return Observer(self, entity_set, callback)

    def remove_defining_request(self, path: str) -> None:
        """Removes a defining request from an open offline store
        (``ods_store_remove_defining_request``): the entities only it brought down leave the
        file (those with local changes stay until uploaded); what only it covered is out of
        scope. :class:`NotFoundError` when the store has no such request,
        :class:`InvalidArgumentError` for its last one, :class:`StateError` while a download
        runs."""
        with self._use():
            _errors.check(self._lib, self._lib.ods_store_remove_defining_request(self._handle, _path_arg(path, "path")))

    # -- offline: local changes, upload, error archive ---------------------------------------

    def _refuse_wait_in_callback(self, call: str, instead: str) -> None:
        """A blocking call from a callback of this store would wait for a callback that this
        one holds up: refused before anything starts."""
        if self._in_callback():
            raise StateError(f"{call} waits for the store's callbacks and cannot be called from one of "
                             f"them: use {instead}", _errors.ESTATE)

    def pending_count(self) -> int:
        """The number of local changes of an offline store waiting for upload
        (``ods_store_pending_count``). Changes of one entity are combined where equivalent,
        so this can be less than the writes made; refused changes (in the error archive) are
        not counted. :class:`UnsupportedError` for online stores."""
        n = ctypes.c_int64()
        with self._use():
            _errors.check(self._lib, self._lib.ods_store_pending_count(ctypes.byref(n), self._handle))
        return int(n.value)

    def _start_upload(self, progress: Optional[UploadProgressCallback]) -> _Operation:
        op = _Operation(self, progress, cancel=self.cancel_upload)
        lib = self._lib
        return op.start(lambda key: int(lib.ods_store_upload(self._handle, _on_upload_progress, _on_upload_done, key)))

    def upload(self, progress: Optional[UploadProgressCallback] = None, *,
               timeout: Optional[float] = None) -> UploadResult:
        """Sends an offline store's local changes to the service, in order, and waits
        (``ods_store_upload``). Returns an :class:`UploadResult`: changes the service
        refused are counted in ``failed`` and kept in the error archive
        (:meth:`error_archive`), they do not raise. Raises what stopped the upload: the
        service unreachable (:class:`OfflineError`), a 5xx (:class:`ServerError`),
        :meth:`cancel_upload` or :meth:`close` (:class:`CancelledError`), the exception
        ``progress`` raised (which also stops it); nothing queued is lost, the next upload
        resumes. :class:`StateError` when the store is not open or an upload already runs,
        :class:`UnsupportedError` for online stores.

        ``progress(store, UploadProgress)`` is called after every change the service answered,
        through the dispatch mode like every callback. ``timeout`` (seconds) bounds the wait:
        :class:`RequestTimeoutError` then, and the upload goes on (cancel it with
        :meth:`cancel_upload`). From a callback of this store it would wait for itself:
        :class:`StateError` (use :meth:`submit_upload` there)."""
        self._refuse_wait_in_callback("upload()", "submit_upload()")
        op = self._start_upload(progress)
        result: UploadResult = op.wait(timeout)
        return result

    def submit_upload(self, progress: Optional[UploadProgressCallback] = None) -> OperationFuture:
        """Starts an upload (as :meth:`upload`) and returns a :class:`concurrent.futures.Future`
        of its :class:`UploadResult`; ``future.cancel()`` cancels the upload."""
        return self._start_upload(progress).future

    async def upload_async(self, progress: Optional[UploadProgressCallback] = None) -> UploadResult:
        """:meth:`upload`, awaited (the loop runs meanwhile; cancelling the awaiting task
        cancels the upload). With dispatch "queue" the store's descriptor is watched by the
        running loop, as for :meth:`read_async`."""
        loop = asyncio.get_running_loop()
        self._attach_for_async(loop)
        op = _Operation(self, progress, cancel=self.cancel_upload)
        fut = op.aio_future(loop)
        lib = self._lib
        op.start(lambda key: int(lib.ods_store_upload(self._handle, _on_upload_progress, _on_upload_done, key)))
        fut.add_done_callback(lambda f: op._cancel_quietly() if f.cancelled() else None)
        result: UploadResult = await fut
        return result

    def cancel_upload(self) -> None:
        """Stops the upload in progress: it raises :class:`CancelledError`. A change already sent
        is sent again by the next upload (with the same Repeatability-Request-ID); nothing
        queued is lost. :class:`StateError` when no upload runs."""
        with self._use():
            _errors.check(self._lib, self._lib.ods_store_cancel_upload(self._handle))

    def error_archive(self) -> list[ArchivedError]:
        """The local changes the service refused, oldest first (``ods_store_error_archive``):
        a list of :class:`ArchivedError`, copied (a snapshot: later uploads, retries and
        reverts do not change it). Also readable as ``store.read("ErrorArchive")``."""
        lib = self._lib
        out = ctypes.c_void_p()
        with self._use():
            _errors.check(lib, lib.ods_store_error_archive(ctypes.byref(out), self._handle))
        try:
            return [ArchivedError._copy(lib.ods_error_archive_at(out, i).contents)
                    for i in range(lib.ods_error_archive_count(out))]
        finally:
            lib.ods_error_archive_free(out)

    @staticmethod
    def _error_id(entry: Union[ArchivedError, int]) -> int:
        if isinstance(entry, ArchivedError):
            return entry.id
        if isinstance(entry, bool) or not isinstance(entry, int):
            raise InvalidArgumentError(f"an archived error is an ArchivedError or its id, not {type(entry).__name__}",
                                       _errors.EINVAL)
        return entry

    def retry_error(self, entry: Union[ArchivedError, int],
                    changes: Union[Mapping[str, Any], str, bytes, None] = None, *, etag: Optional[str] = None) -> None:
        """Queues the refused change ``entry`` (an :class:`ArchivedError` or its id) again: it
        leaves the archive and goes with the next upload (``ods_store_error_retry``).
        ``changes`` (a mapping or JSON text), when given, is the app's correction, merged into
        the local entity first and sent with the change (not for a refused delete);
        ``etag`` replaces the If-Match the change carries ("*": whatever the service's
        version). :class:`NotFoundError` for an id the archive does not have."""
        error_id = self._error_id(entry)
        body: Optional[str] = None
        if changes is not None:
            if isinstance(changes, bytes):
                body = changes.decode("utf-8")
            elif isinstance(changes, str):
                body = changes
            else:
                data = _body(changes)
                # Typed like a write to the entity's path (Int64 and Decimal values as strings).
                path = entry.path if isinstance(entry, ArchivedError) else next(
                    (e.path for e in self.error_archive() if e.id == error_id), None)
                types = self._write_types(path, data) if path is not None and isinstance(data, dict) else None
                body = _values.dumps(data, types)
        with self._use():
            _errors.check(self._lib, self._lib.ods_store_error_retry(self._handle, error_id, _c(body), _c(etag)))

    def _start_revert(self, entry: Union[ArchivedError, int]) -> _Operation:
        error_id = self._error_id(entry)
        op = _Operation(self)
        lib = self._lib
        return op.start(lambda key: int(lib.ods_store_error_revert(self._handle, error_id, _on_revert_done, key)))

    def revert_error(self, entry: Union[ArchivedError, int], *, timeout: Optional[float] = None) -> None:
        """Gives up the refused change ``entry`` (an :class:`ArchivedError` or its id) and every
        change of its entity still queued; the entity goes back to the service's version, read
        from the service (an entity created offline is removed) (``ods_store_error_revert``).
        Waits for it. :class:`NotFoundError` for an id the archive does not have; the read's
        error (e.g. :class:`OfflineError`) when the service cannot be reached (nothing changed).
        :class:`StateError` from a callback of this store (it would wait for itself)."""
        self._refuse_wait_in_callback("revert_error()", "revert_error_async()")
        self._start_revert(entry).wait(timeout)

    async def revert_error_async(self, entry: Union[ArchivedError, int]) -> None:
        """:meth:`revert_error`, awaited."""
        loop = asyncio.get_running_loop()
        self._attach_for_async(loop)
        error_id = self._error_id(entry)
        op = _Operation(self)
        fut = op.aio_future(loop)
        lib = self._lib
        op.start(lambda key: int(lib.ods_store_error_revert(self._handle, error_id, _on_revert_done, key)))
        await fut

    def key_mappings(self) -> list[KeyMapping]:
        """The keys the store made for entities created offline whose key the service assigns,
        each with the service's key once uploaded (``ods_store_key_mappings``): a list of
        :class:`KeyMapping`, in the order they were made."""
        lib = self._lib
        out = ctypes.c_void_p()
        with self._use():
            _errors.check(lib, lib.ods_store_key_mappings(ctypes.byref(out), self._handle))
        try:
            return [KeyMapping._copy(lib.ods_key_mapping_list_at(out, i).contents)
                    for i in range(lib.ods_key_mapping_list_count(out))]
        finally:
            lib.ods_key_mapping_list_free(out)

    # -- dispatch ---------------------------------------------------------------------------

    def fileno(self) -> int:
        """Queue mode: a descriptor readable while callbacks wait (for select/poll/asyncio)."""
        if self._fd is None:
            raise StateError("fileno() is for stores with dispatch='queue'", _errors.ESTATE)
        return self._fd

    def dispatch(self, timeout: Optional[float] = 0.0) -> int:
        """Queue mode: delivers waiting callbacks on this thread, waiting up to ``timeout``
        seconds for the first (None: no limit). Returns how many were delivered."""
        ms = -1 if timeout is None else _timeout_ms(timeout, "timeout")
        with self._use():
            return _errors.check(self._lib, _dispatch_deferring_sigint(self._lib, self._handle, ms))

    def attach(self, loop: Optional[asyncio.AbstractEventLoop] = None) -> None:
        """Queue mode: let an asyncio loop deliver the callbacks (``loop.add_reader`` on the
        store's descriptor). Default: the running loop. Detached by :meth:`close`."""
        if self._fd is None:
            raise StateError("attach() is for stores with dispatch='queue'", _errors.ESTATE)
        loop = loop or asyncio.get_running_loop()
        if self._loop is loop:
            return
        if self._loop is not None and not self._loop.is_closed():
            raise StateError("the store is attached to another event loop", _errors.ESTATE)
        self._loop = loop
        self._loop_thread = threading.get_ident()
        loop.add_reader(self._fd, self._on_readable)

    def _on_readable(self) -> None:
        try:
            with self._use():
                _dispatch_deferring_sigint(self._lib, self._handle, 0)
        except ClosedError:
            self._detach_loop()

    def _detach_loop(self) -> None:
        loop, self._loop = self._loop, None
        if loop is None or self._fd is None or loop.is_closed():
            return
        fd = self._fd
        if self._loop_thread == threading.get_ident():
            loop.remove_reader(fd)
        else:
            try:
                loop.call_soon_threadsafe(loop.remove_reader, fd)
            except RuntimeError:
                pass

    def _attach_for_async(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.dispatch_mode != "queue":
            return
        current = self._loop
        if current is None or current.is_closed():
            self._loop = None
            self.attach(loop)
        elif current is not loop and not current.is_running():
            # The loop it was attached to has stopped (asyncio.run() over, or a loop between
            # run_until_complete calls): this running loop takes the descriptor over, else
            # nothing would deliver what it awaits.
            try:
                current.remove_reader(self._fd)  # type: ignore[arg-type]
            except (RuntimeError, ValueError, OSError):
                pass
            self._loop = None
            self.attach(loop)

    def _dispatches_here(self) -> bool:
        """Queue mode: whether a thread waiting for a callback must deliver it itself: no
        loop attached, the attached loop's own thread, or a loop that is not running (closed:
        the store detaches from it; stopped: nothing else would deliver until it runs again)."""
        loop = self._loop
        if loop is None or self._loop_thread == _get_ident():
            return True
        if loop.is_closed():
            if self._loop is loop:
                self._loop = None
            return True
        return not loop.is_running()

    def _on_loop_thread(self, loop: asyncio.AbstractEventLoop) -> bool:
        if self._loop is loop and self._loop_thread == threading.get_ident():
            return True
        try:
            return asyncio.get_running_loop() is loop
        except RuntimeError:
            return False

    def _wait_for(self, event: Union[threading.Event, _Settled], timeout: Optional[float],
                  is_done: Optional[Callable[[], bool]] = None) -> bool:
        """Waits for ``event`` (or ``is_done()``); in queue mode delivers callbacks meanwhile
        when no loop on another thread does. Returns False on timeout."""
        done = is_done or event.is_set
        if done():
            return True
        if self._forked:  # the threads that would deliver it are in the parent process
            raise self._closed_error()
        if self._in_callback():
            raise StateError("cannot wait for a request inside a callback of the same store "
                             "(it would never be delivered): use submit(), a callback or await", _errors.ESTATE)
        deadline = None if timeout is None else time.monotonic() + timeout
        queue = self.dispatch_mode == "queue"
        while not done():
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return done()
            if queue and not self._closing and not self._closed:
                if self._dispatches_here():  # looked at again each slice: the loop may stop
                    slice_s = 0.05 if remaining is None else min(0.05, remaining)
                    try:
                        with self._use():
                            _dispatch_deferring_sigint(self._lib, self._handle, max(1, int(slice_s * 1000)))
                    except ClosedError:
                        pass
                    continue
                # a running loop on another thread delivers; it may stop or close meanwhile
                event.wait(0.1 if remaining is None else min(0.1, remaining))
                continue
            event.wait(0.05 if is_done is not None else remaining)
        return True

    # -- typing -----------------------------------------------------------------------------

    def _check_json(self, url: str) -> Optional[dict[str, Any]]:
        try:
            result = self.check_url(url)
        except (_errors.ODataSyntaxError, InvalidArgumentError):
            return None
        return result

    def _model_json(self) -> Optional[dict[str, Any]]:
        try:
            return self.model
        except StateError:
            return None

    def _typecache(self) -> Optional[_values.TypeCache]:
        if not self.typed:
            return None
        if self._types is None:
            version = self.odata_version
            if version == 0:
                return None
            # a weak method: a cycle store -> cache -> store would leave the store to the
            # cyclic GC, which clears weak references (and so state callbacks) before __del__
            check = weakref.WeakMethod(self._check_json)

            def checked(url: str) -> Optional[dict[str, Any]]:
                method = check()
                return method(url) if method is not None else None

            def model() -> Optional[dict[str, Any]]:
                method = summary()
                return method() if method is not None else None
            summary = weakref.WeakMethod(self._model_json)
            self._types = _values.TypeCache(checked, version, model)
        return self._types

    def _type_response(self, request: Request, response: Response) -> None:
        try:
            response._parse(self._typecache(), request.path)
        except (ClosedError, StateError):
            response._parse(None, None)

    def _write_types(self, path: str, body: dict[str, Any],
                     timeout: Optional[float] = None) -> Optional[dict[str, Optional[str]]]:
        """Types of the body's properties, so Int64 and Decimal values go out as strings (and
        what the type cannot hold is refused). Before the store is open they come from the
        model once the store has it: see :meth:`_wait_for_model`."""
        names = [k for k, v in body.items() if isinstance(k, str) and "@" not in k and not isinstance(v, (dict, list))]
        if not names or not self.typed:
            return None
        if self._state != StoreState.OPEN and not self._wait_for_model(timeout):
            return None
        try:
            types = self._typecache()
            return types.property_types(path, names) if types is not None else None
        except Error:
            return None

    def _wait_for_model(self, timeout: Optional[float]) -> bool:
        """A write's body made while the store is not open yet: its types come from the
        model, which the store has once ``$metadata`` is loaded (an offline store has it
        while its first download runs). Waits for it, at most ``timeout`` seconds (the
        request's; None: the store's, else 60 s): the request would be held until then
        anyway. Not inside a callback of the store, where waiting is refused: the body then
        goes untyped (as the canonical JSON gives values). Returns whether the types can be
        looked up; :class:`RequestTimeoutError` when the model did not come in time."""
        if self._in_callback() or self._forked or self._state != StoreState.OPENING:
            return self._state == StoreState.OPEN
        try:
            if self.odata_version != 0:
                return True
        except ClosedError:
            return False  # the request raises it
        bound = timeout if timeout is not None else (self._timeout if self._timeout is not None else 60.0)
        if self._wait_for(self._state_changed_event, bound):
            opened: StoreState = self._state  # changed by the state callback meanwhile
            return opened == StoreState.OPEN or self.odata_version != 0
        if self.odata_version != 0:
            return True
        raise _errors.make(_errors.ETIMEOUT, f"the store did not load its $metadata within {bound} s: a write's "
                                             "body is typed by it (wait_open() first, or a larger timeout=)")

    async def _wait_for_model_async(self, body: Any, options: Mapping[str, Any]) -> None:
        """:meth:`_wait_for_model` for a coroutine, before it prepares a write's body (so the
        loop runs meanwhile): the open's own error is left to the request."""
        if not isinstance(body, dict) or not self.typed or self._state != StoreState.OPENING or self._in_callback():
            return
        timeout = options.get("timeout")
        bound = timeout if timeout is not None else (self._timeout if self._timeout is not None else 60.0)
        try:
            await self.wait_open_async(bound)
        except _errors.RequestTimeoutError:
            if self.odata_version == 0:
                raise
        except Error:
            pass

    # -- requests ---------------------------------------------------------------------------

    def request(self, mode: ModeLike, path: str, body: Any = None, *, etag: Optional[str] = None,
                headers: Optional[Mapping[str, str]] = None, all_pages: bool = False,
                timeout: Optional[float] = None, context: Any = None,
                delegate: Optional[RequestDelegate] = None,
                on_complete: Optional[CompletionCallback] = None, route: Optional[str] = None) -> Request:
        """A new, unstarted :class:`Request` (configure it, then ``start()``). ``route``
        ("online", "offline"): a mixed store's side for this request (:meth:`Request.set_route`)."""
        return Request(self, mode, path, body, etag=etag, headers=headers, all_pages=all_pages,
                       timeout=timeout, context=context, delegate=delegate, on_complete=on_complete,
                       route=route)

    def submit(self, mode: ModeLike, path: str, body: Any = None, **options: Any) -> RequestFuture:
        """Starts a request and returns a :class:`concurrent.futures.Future` of its typed
        result (``future.request`` is the :class:`Request`; ``future.cancel()`` cancels it)."""
        if not options and self._default_delegate is None and not (isinstance(body, Entity) and body.etag):
            return Request._submitted(self, mode, path, body)  # one C call (ods_request_submit)
        # (an Entity body's ETag goes as If-Match: ods_request_set_etag, the long way)
        req = self.request(mode, path, body, **options)
        fut = req.future
        req.start()
        return fut

    def execute(self, mode: ModeLike, path: str, body: Any = None, **options: Any) -> Any:
        """Runs a request and waits for its typed result."""
        return self.request(mode, path, body, **options).result()

    def read(self, path: str, **options: Any) -> Any:
        """GET ``path`` (relative to the service root, or a next link). Returns an
        :class:`EntityList` for a collection, an :class:`Entity` for one entity, the value for
        a property, ``$count`` or function result. Options: ``all_pages=True`` follows next
        links and returns every page as one list; ``headers``, ``timeout`` (seconds)."""
        return self.execute(Mode.READ, path, **options)

    def pages(self, path: str, **options: Any) -> Iterator[EntityList]:
        """Yields the pages of a collection one by one, following next links."""
        next_path: Optional[str] = path
        while next_path:
            page = self.read(next_path, **options)
            if not isinstance(page, EntityList):
                raise InvalidArgumentError(f"{path!r} is not a collection", _errors.EINVAL)
            yield page
            next_path = page.next_link

    def create(self, path: str, entity: Union[Mapping[str, Any], str, bytes], **options: Any) -> Optional[Entity]:
        """POST ``entity`` (a mapping, or JSON text in the canonical shape) to the collection
        ``path``; returns the created entity as the service sent it (None when it answered 204)."""
        result = self.execute(Mode.CREATE, path, _body(entity), **options)
        return result if isinstance(result, Entity) else None

    def update(self, path: str, changes: Union[Mapping[str, Any], str, bytes], *, etag: Optional[str] = None,
               replace: bool = False, **options: Any) -> Optional[Entity]:
        """Changes the entity at ``path``: merge (PATCH on V4, MERGE on V2) by default, full
        replacement (PUT) with ``replace=True``. ``etag`` (or ``changes.etag`` when it is an
        :class:`Entity`) is sent as If-Match; "*" matches any version."""
        mode = Mode.UPDATE_PUT if replace else Mode.UPDATE
        result = self.execute(mode, path, _body(changes), etag=etag, **options)
        return result if isinstance(result, Entity) else None

    def delete(self, path: str, entity: Optional[Entity] = None, *, etag: Optional[str] = None,
               **options: Any) -> None:
        """DELETE the entity at ``path``. ``etag`` (or ``entity.etag``: the :class:`Entity` as
        read, as :meth:`update` takes it) is sent as If-Match; "*" matches any version."""
        self.execute(Mode.DELETE, path, etag=_delete_etag(entity, etag), **options)

    def call(self, path: str, parameters: Optional[Mapping[str, Any]] = None, **options: Any) -> Any:
        """Calls a function or action import (GET or POST, as $metadata declares it);
        ``parameters`` is the action's JSON body."""
        return self.execute(Mode.FUNCTION, path, dict(parameters) if parameters is not None else None,
                            **options)

    def cancel(self, request_id: int) -> None:
        """Cancels the started request with this id (:class:`NotFoundError` when unknown or done;
        :class:`InvalidArgumentError` for what is not an int from 0 to 2**64-1)."""
        if isinstance(request_id, bool) or not isinstance(request_id, int):
            raise InvalidArgumentError(f"request_id must be an int, not {type(request_id).__name__}", _errors.EINVAL)
        if not 0 <= request_id < 2**64:
            raise InvalidArgumentError(f"no request has id {request_id}: ids are from 0 to 2**64-1", _errors.EINVAL)
        with self._use():
            rc = self._lib.ods_store_cancel(self._handle, request_id)
            if rc == _errors.ESTATE:
                # ods_store_cancel promises ODS_ENOTFOUND for a request that is done, but answers
                # ODS_ESTATE ("already finished") while the library still lists a finished
                # request as in flight, just after its last callback: done is done.
                err = _errors.last(self._lib, rc)
                raise _errors.NotFoundError(err.message, _errors.ENOTFOUND)
            _errors.check(self._lib, rc)

    def set_default_delegate(self, delegate: Optional[RequestDelegate]) -> None:
        """The delegate of requests that have none of their own (requests made afterwards)."""
        self._default_delegate = delegate

    def check_url(self, url: str) -> dict[str, Any]:
        """Parses ``url`` and checks it against the service's $metadata
        (``ods_store_check_url``); returns the description of docs/cli.md."""
        out = ctypes.c_void_p()
        with self._use():
            _errors.check(self._lib, self._lib.ods_store_check_url(ctypes.byref(out), self._handle, _c(url, "url")))
        result: dict[str, Any] = json.loads(_ffi.take_owned_string(self._lib, out.value))
        return result

    # -- asyncio ---------------------------------------------------------------------------

    async def execute_async(self, mode: ModeLike, path: str, body: Any = None, **options: Any) -> Any:
        """Runs a request and awaits its typed result. With dispatch "queue" the store's
        descriptor is watched by the running loop (``add_reader``); with "thread" the
        library's callback thread hands the result to the loop. Cancelling the awaiting
        task cancels the request."""
        if body is not None and self._state != StoreState.OPEN:
            await self._wait_for_model_async(body, options)
        return await self.request(mode, path, body, **options)

    async def read_async(self, path: str, **options: Any) -> Any:
        """:meth:`read`, awaited."""
        return await self.execute_async(Mode.READ, path, **options)

    async def create_async(self, path: str, entity: Union[Mapping[str, Any], str, bytes],
                           **options: Any) -> Optional[Entity]:
        """:meth:`create`, awaited."""
        result = await self.execute_async(Mode.CREATE, path, _body(entity), **options)
        return result if isinstance(result, Entity) else None

    async def update_async(self, path: str, changes: Union[Mapping[str, Any], str, bytes], *,
                           etag: Optional[str] = None, replace: bool = False, **options: Any) -> Optional[Entity]:
        """:meth:`update`, awaited."""
        result = await self.execute_async(Mode.UPDATE_PUT if replace else Mode.UPDATE, path, _body(changes),
                                          etag=etag, **options)
        return result if isinstance(result, Entity) else None

    async def delete_async(self, path: str, entity: Optional[Entity] = None, *, etag: Optional[str] = None,
                           **options: Any) -> None:
        """:meth:`delete`, awaited."""
        await self.execute_async(Mode.DELETE, path, etag=_delete_etag(entity, etag), **options)

    async def call_async(self, path: str, parameters: Optional[Mapping[str, Any]] = None,
                         **options: Any) -> Any:
        """:meth:`call`, awaited."""
        return await self.execute_async(Mode.FUNCTION, path,
                                        dict(parameters) if parameters is not None else None, **options)


def _delete_etag(entity: Optional[Entity], etag: Optional[str]) -> Optional[str]:
    """The If-Match of a delete: ``etag``, else the Entity's own."""
    if entity is None:
        return etag
    if not isinstance(entity, Entity):
        raise InvalidArgumentError(f"entity must be an Entity (its etag goes as If-Match), not {type(entity).__name__}",
                                   _errors.EINVAL)
    return etag if etag is not None else entity.etag


def _settle_open(fut: "asyncio.Future[None]") -> None:
    if not fut.done():
        fut.set_result(None)


def _body(data: Union[Mapping[str, Any], str, bytes]) -> Any:
    if isinstance(data, (str, bytes, dict)):
        return data
    if isinstance(data, Mapping):
        return dict(data)
    raise TypeError(f"a request body is a mapping or JSON text, not {type(data).__name__}")


def _dispatch_deferring_sigint(lib: ctypes.CDLL, handle: Optional[int], ms: int) -> int:
    """``ods_store_dispatch(handle, ms)`` (queue dispatch: the callbacks run on this thread)
    with SIGINT deferred while it runs, when this is the main thread and the SIGINT handler is
    a Python callable (``signal.default_int_handler`` included): a KeyboardInterrupt raised
    inside a ctypes callback, even at its first bytecode, is printed and dropped by ctypes,
    and with it that request's completion (its future would never be done). A Ctrl-C meanwhile
    is recorded and, once the callbacks have run and the handler is back, handed to that
    handler as it would have been (the default one raises KeyboardInterrupt here)."""
    if _get_ident() != threading.main_thread().ident:
        return int(lib.ods_store_dispatch(handle, ms))
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):  # SIG_IGN, SIG_DFL, or one installed from C: no Python code runs
        return int(lib.ods_store_dispatch(handle, ms))
    frames: list[Any] = []
    signal.signal(signal.SIGINT, lambda signum, frame: frames.append(frame))
    try:
        return int(lib.ods_store_dispatch(handle, ms))
    finally:
        signal.signal(signal.SIGINT, previous)
        if frames:
            previous(signal.SIGINT, frames[0])


class _Use:
    """Counts a use of the store's handle by a thread that is not delivering one of its
    callbacks, so close() can wait for such uses before the handle is freed."""

    __slots__ = ("store", "counted")

    def __init__(self, store: Store) -> None:
        self.store = store
        self.counted = False

    def __enter__(self) -> None:
        store = self.store
        if store._handle is not None and store._in_callback():
            return  # close() delivers callbacks before it frees the handle
        with store._cond:
            if store._closing or store._handle is None:
                raise store._closed_error()
            store._users += 1
            self.counted = True

    def __exit__(self, *exc: Any) -> None:
        if self.counted:
            store = self.store
            with store._cond:
                store._users -= 1
                if not store._users and store._closing:  # close() waits for the last use
                    store._cond.notify_all()


_open_stores: "weakref.WeakSet[Store]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    """``os.register_at_fork(after_in_child=...)``: the stores of the parent are dead here (their
    library threads exist only in the parent, and a lock one of them held stays held). Each
    becomes a closed store that raises ClosedError ("opened in another process") and that
    nothing in this process hands to the library again: not its close, nor the frees of its
    requests and observers. Stores opened in the child are new ones and work."""
    global _settled_lock, _condition_lock
    _settled_lock = threading.Lock()
    _condition_lock = threading.Lock()
    for store in list(_stores.values()):
        store._forked = True
        store._handle = None
        store._closed = True
        store._closing = False
        store._users = 0
        store._cond = threading.Condition()  # a parent thread may have held the old one
        store._loop = None
        store._observers.clear()
    _stores.clear()
    _open_stores.clear()
    _live.clear()
    _live_queued.clear()
    _operations.clear()
    _operations_queued.clear()
    _kept_states.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@atexit.register
def _close_all() -> None:
    """At interpreter exit, close the stores still open, so no library thread calls into
    Python while it shuts down (requests in flight get their last callbacks first)."""
    for store in list(_open_stores):
        store._close_quietly("closed at interpreter exit")
