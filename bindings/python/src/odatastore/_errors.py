"""Exceptions: one class per ods_status, each also a matching builtin where one fits."""
from __future__ import annotations

import builtins
import concurrent.futures
import ctypes
from typing import TYPE_CHECKING, Any, Optional

from . import _ffi

if TYPE_CHECKING:
    from ._store import Response

OK = 0
ERROR = -1
EINVAL = -2
ENOMEM = -3
ESTATE = -4
ENOTFOUND = -5
ECONFLICT = -6
EPRECONDITION = -7
EUNAUTHORIZED = -8
EFORBIDDEN = -9
EHTTP = -10
ESERVER = -11
ETIMEOUT = -12
ECANCELLED = -13
EOFFLINE = -14
ETLS = -15
EIO = -16
EPROTOCOL = -17
EUNSUPPORTED = -18
ENOTINSCOPE = -19
ESYNTAX = -20
ECLOSED = -21
ELIMIT = -22
ENULL = -23
ETYPE = -24

CODE_NAMES = {
    OK: "ODS_OK", ERROR: "ODS_ERROR", EINVAL: "ODS_EINVAL", ENOMEM: "ODS_ENOMEM", ESTATE: "ODS_ESTATE",
    ENOTFOUND: "ODS_ENOTFOUND", ECONFLICT: "ODS_ECONFLICT", EPRECONDITION: "ODS_EPRECONDITION",
    EUNAUTHORIZED: "ODS_EUNAUTHORIZED", EFORBIDDEN: "ODS_EFORBIDDEN", EHTTP: "ODS_EHTTP",
    ESERVER: "ODS_ESERVER", ETIMEOUT: "ODS_ETIMEOUT", ECANCELLED: "ODS_ECANCELLED",
    EOFFLINE: "ODS_EOFFLINE", ETLS: "ODS_ETLS", EIO: "ODS_EIO", EPROTOCOL: "ODS_EPROTOCOL",
    EUNSUPPORTED: "ODS_EUNSUPPORTED", ENOTINSCOPE: "ODS_ENOTINSCOPE", ESYNTAX: "ODS_ESYNTAX",
    ECLOSED: "ODS_ECLOSED", ELIMIT: "ODS_ELIMIT", ENULL: "ODS_ENULL", ETYPE: "ODS_ETYPE",
}


class Error(Exception):
    """An error reported by libodatastore.

    Attributes:
        code: the ods_status code (negative int), e.g. ``odatastore.ENOTFOUND``.
        code_name: its C name, e.g. ``"ODS_ENOTFOUND"``.
        message: the library's message.
        http_status: HTTP status of the service's response, 0 when there was none.
        odata_code, odata_message: from the service's OData error body, or None.
        position: for syntax errors, the 0-based character offset of the problem, else None.
        response: the service's error :class:`Response` when there was one, else None.
    """

    code: int
    code_name: str
    message: str
    http_status: int
    odata_code: Optional[str]
    odata_message: Optional[str]
    position: Optional[int]
    response: Optional["Response"]

    def __init__(self, message: str, code: int = ERROR, *, http_status: int = 0,
                 odata_code: Optional[str] = None, odata_message: Optional[str] = None,
                 position: Optional[int] = None, response: Optional["Response"] = None) -> None:
        super().__init__(message)
        self.code = code
        self.code_name = CODE_NAMES.get(code, f"ODS_{code}")
        self.message = message
        self.http_status = http_status
        self.odata_code = odata_code
        self.odata_message = odata_message
        self.position = position
        self.response = response

    def __str__(self) -> str:  # KeyError and OSError bases would otherwise change the text
        parts = [self.message]
        if self.http_status:
            parts.append(f"HTTP {self.http_status}")
        if self.odata_code:
            parts.append(f"OData {self.odata_code}")
        return f"{parts[0]} ({', '.join(parts[1:])})" if len(parts) > 1 else parts[0]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code_name}, http_status={self.http_status})"

    def __reduce__(self) -> Any:  # picklable although the bases' __init__ signatures differ
        return (_rebuild, (type(self), self.message, self.code, self.http_status, self.odata_code,
                           self.odata_message, self.position))


def _rebuild(cls: type, message: str, code: int, http_status: int, odata_code: Optional[str],
             odata_message: Optional[str], position: Optional[int]) -> Error:
    err: Error = cls(message, code, http_status=http_status, odata_code=odata_code,
                     odata_message=odata_message, position=position)
    return err


class InvalidArgumentError(Error, ValueError):
    """ODS_EINVAL: invalid argument (bad JSON, bad path, unknown enum value...)."""


class OutOfMemoryError(Error, MemoryError):
    """ODS_ENOMEM."""


class StateError(Error, RuntimeError):
    """ODS_ESTATE: not allowed in the object's current state (e.g. a request started twice)."""


class NotFoundError(Error, KeyError):
    """ODS_ENOTFOUND: the resource does not exist (HTTP 404). Also a KeyError / LookupError."""


class ConflictError(Error):
    """ODS_ECONFLICT: conflict or failed precondition, e.g. a stale ETag (409, 412)."""


class PreconditionRequiredError(Error):
    """ODS_EPRECONDITION: the service requires an ETag (If-Match) for this change (428)."""


class UnauthorizedError(Error, PermissionError):
    """ODS_EUNAUTHORIZED: authentication required or failed (401)."""


class ForbiddenError(Error, PermissionError):
    """ODS_EFORBIDDEN: authenticated but not allowed (403)."""


class HTTPError(Error):
    """ODS_EHTTP: any other 3xx or 4xx response from the service."""


class ServerError(Error):
    """ODS_ESERVER: the service failed (5xx)."""


class RequestTimeoutError(Error, builtins.TimeoutError):
    """ODS_ETIMEOUT: the request took longer than its time limit. Also a builtin TimeoutError."""


class CancelledError(Error, concurrent.futures.CancelledError):
    """ODS_ECANCELLED: the request was cancelled (also by Store.close).

    Also a ``concurrent.futures.CancelledError``; unlike ``asyncio.CancelledError`` it is an
    ordinary Exception, so it never cancels the task that awaits the request.
    """


class OfflineError(Error, ConnectionError):
    """ODS_EOFFLINE: the service cannot be reached (DNS, refused, unreachable)."""


class TLSError(Error, ConnectionError):
    """ODS_ETLS: TLS handshake or certificate verification failed."""


class IOFailureError(Error, OSError):
    """ODS_EIO: network or file I/O failed mid-operation (connection reset, truncated body)."""


class ProtocolError(Error):
    """ODS_EPROTOCOL: the service sent something that is not valid OData/HTTP."""


class UnsupportedError(Error, NotImplementedError):
    """ODS_EUNSUPPORTED: not supported by this store or service (e.g. a function import on an offline
    store, a construct a local read cannot evaluate)."""


class NotInScopeError(Error, LookupError):
    """ODS_ENOTINSCOPE: outside what an offline store's defining requests cover."""


class ODataSyntaxError(Error, ValueError):
    """ODS_ESYNTAX: a URL, $filter or document failed to parse; ``position`` says where."""


class ClosedError(Error, RuntimeError):
    """ODS_ECLOSED: the store is closing or closed."""


class LimitError(Error, OSError):
    """ODS_ELIMIT: a limit of the store's options was reached (response size, pages, pending
    requests...); the message names the option."""


class LibraryError(Error, _ffi.LibraryError):
    """libodatastore is missing, cannot be loaded or has the wrong version (also an ImportError)."""


CLASSES: dict[int, type[Error]] = {
    EINVAL: InvalidArgumentError, ENOMEM: OutOfMemoryError, ESTATE: StateError,
    ENOTFOUND: NotFoundError, ECONFLICT: ConflictError, EPRECONDITION: PreconditionRequiredError,
    EUNAUTHORIZED: UnauthorizedError, EFORBIDDEN: ForbiddenError, EHTTP: HTTPError,
    ESERVER: ServerError, ETIMEOUT: RequestTimeoutError, ECANCELLED: CancelledError,
    EOFFLINE: OfflineError, ETLS: TLSError, EIO: IOFailureError, EPROTOCOL: ProtocolError,
    EUNSUPPORTED: UnsupportedError, ENOTINSCOPE: NotInScopeError, ESYNTAX: ODataSyntaxError,
    ECLOSED: ClosedError, ELIMIT: LimitError,
}


def make(code: int, message: str, *, http_status: int = 0, odata_code: Optional[str] = None,
         odata_message: Optional[str] = None, position: Optional[int] = None,
         response: Optional["Response"] = None) -> Error:
    """The exception for a status code: the subclass for that code, else Error."""
    cls = CLASSES.get(code, Error)
    return cls(message, code, http_status=http_status, odata_code=odata_code, odata_message=odata_message,
               position=position, response=response)


def from_struct(ptr: "ctypes._Pointer[_ffi.ErrorStruct]", response: Optional["Response"] = None) -> Error:
    """Copies a BORROWED ods_error (call inside the call or callback that lent it)."""
    e = ptr.contents
    position = int(e.position)
    return make(int(e.code), _ffi.text(e.message) or "", http_status=int(e.http_status),
                odata_code=_ffi.text(e.odata_code), odata_message=_ffi.text(e.odata_message),
                position=position if position >= 0 else None, response=response)


def last(lib: ctypes.CDLL, code: int) -> Error:
    """The error of the failed synchronous call that returned ``code`` (ods_error_last on this thread)."""
    ptr = lib.ods_error_last()
    if ptr and ptr.contents.code == code:
        return from_struct(ptr)
    text = _ffi.text(lib.ods_strerror(code)) or "unknown status"
    return make(code, text)


def last_any(lib: ctypes.CDLL) -> Error:
    """The error of the failed synchronous call that returned no status of its own (NULL:
    ods_request_submit): ods_error_last on this thread."""
    ptr = lib.ods_error_last()
    if ptr and ptr.contents.code != 0:
        return from_struct(ptr)
    return make(EINVAL, "the library reported a failure without an error")


def check(lib: ctypes.CDLL, rc: int) -> int:
    """Raises the matching Error when ``rc`` is negative; returns it otherwise."""
    if rc < 0:
        raise last(lib, rc)
    return rc


def library() -> ctypes.CDLL:
    """The loaded libodatastore; raises :class:`LibraryError` when it cannot be had."""
    try:
        return _ffi.load()
    except LibraryError:
        raise
    except _ffi.LibraryError as e:
        raise LibraryError(str(e)) from e.__cause__


def strerror(code: int) -> str:
    """Static description of a status code (``ods_strerror``)."""
    return _ffi.text(library().ods_strerror(code)) or ""
