"""odatastore: Python binding of libodatastore, an OData V2/V4 client library.

>>> import odatastore
>>> with odatastore.Store("http://127.0.0.1:8080/service/") as store:
...     rows = store.read("Customers?$filter=Country eq 'CH'&$top=3")    # EntityList of Entity
...     new = store.create("Customers", {"CustomerID": 9001, "Name": "Ada"})
...     store.update("Customers(9001)", {"City": "Bern"})                 # PATCH / MERGE
...     store.delete("Customers(9001)")
...     fut = store.submit("READ", "Products('SKU-0001')")                # concurrent Future
...     rows = await store.read_async("Orders?$top=10")                    # asyncio
>>> with odatastore.Store("http://127.0.0.1:8080/service/", store_path="app.store",
...                       defining_requests=["Customers", "Orders?$expand=Items"]) as store:
...     rows = store.read("Customers('ALFKI')/Orders")                     # from the file
...     store.update("Customers('ALFKI')", {"City": "Bern"})               # local, queued
...     result = store.upload()                                            # UploadResult
...     for e in store.error_archive(): store.revert_error(e)              # refused changes

Pure ctypes over the C API (include/odatastore.h). The library is found through
$ODATASTORE_LIBRARY, then a copy bundled in this package, then the system's search path.
See docs/python.md.
"""
from __future__ import annotations

from typing import Any, Optional

from . import _ffi
from ._errors import (
    ECANCELLED, ECLOSED, ECONFLICT, EFORBIDDEN, EHTTP, EINVAL, EIO, ELIMIT, ENOMEM, ENOTFOUND, ENOTINSCOPE,
    EOFFLINE,
    EPRECONDITION, EPROTOCOL, ERROR, ESERVER, ESTATE, ESYNTAX, ETIMEOUT, ETLS, EUNAUTHORIZED, EUNSUPPORTED, OK,
    CancelledError, ClosedError, ConflictError, Error, ForbiddenError, HTTPError, InvalidArgumentError,
    IOFailureError, LibraryError, LimitError, NotFoundError, NotInScopeError, ODataSyntaxError, OfflineError,
    OutOfMemoryError, PreconditionRequiredError, ProtocolError, RequestTimeoutError, ServerError, StateError,
    TLSError, UnauthorizedError, UnsupportedError, library, strerror,
)
from ._log import (
    LOG_DEBUG, LOG_ERROR, LOG_INFO, LOG_OFF, LOG_WARNING, LogHandler, log_level, log_to_logging, set_log_handler,
)
from ._offline import (
    ArchivedError, DefiningRequestInfo, DownloadProgress, KeyMapping, OfflineInfo, ProgressCallback, UploadProgress,
    UploadProgressCallback, UploadResult,
)
from ._observe import ChangeCallback, ChangeKind, Changes, EntityChange, Observer
from ._store import (
    CompletionCallback, Entity, EntityList, EntityState, LogonCallback, LogonPrompt, Mode, OperationFuture, Request,
    RequestDelegate, RequestFuture, RequestState, Response, StateCallback, Store, StoreState,
)

__version__ = "0.2.0"

__all__ = [
    "Store", "Request", "RequestFuture", "Response", "Entity", "EntityList", "RequestDelegate",
    "StateCallback", "CompletionCallback", "Mode", "StoreState", "RequestState",
    "DownloadProgress", "OfflineInfo", "DefiningRequestInfo", "ProgressCallback",
    "EntityState", "UploadProgress", "UploadResult", "UploadProgressCallback", "ArchivedError", "KeyMapping",
    "OperationFuture", "LogonPrompt", "LogonCallback",
    "Observer", "Changes", "EntityChange", "ChangeKind", "ChangeCallback",
    "Error", "InvalidArgumentError", "OutOfMemoryError", "StateError", "NotFoundError", "ConflictError",
    "PreconditionRequiredError", "UnauthorizedError", "ForbiddenError", "HTTPError", "ServerError",
    "RequestTimeoutError", "CancelledError", "OfflineError", "TLSError", "IOFailureError", "ProtocolError",
    "UnsupportedError", "NotInScopeError", "ODataSyntaxError", "ClosedError", "LimitError", "LibraryError",
    "set_log_handler", "log_to_logging", "log_level", "LogHandler",
    "LOG_OFF", "LOG_ERROR", "LOG_WARNING", "LOG_INFO", "LOG_DEBUG",
    "check_url", "version", "version_number", "library_path", "strerror",
    "OK", "ERROR", "EINVAL", "ENOMEM", "ESTATE", "ENOTFOUND", "ECONFLICT", "EPRECONDITION", "EUNAUTHORIZED",
    "EFORBIDDEN", "EHTTP", "ESERVER", "ETIMEOUT", "ECANCELLED", "EOFFLINE", "ETLS", "EIO", "EPROTOCOL",
    "EUNSUPPORTED", "ENOTINSCOPE", "ESYNTAX", "ECLOSED", "ELIMIT",
]


def version() -> str:
    """The loaded library's version string (``ods_version``)."""
    return _ffi.text(library().ods_version()) or ""


def version_number() -> int:
    """The loaded library's version number, MAJOR * 1000000 + MINOR * 1000 + PATCH."""
    return int(library().ods_version_number())


def library_path() -> str:
    """Where the library was loaded from (loading it if needed)."""
    library()
    return _ffi.loaded_path() or ""


def check_url(url: str, metadata: Optional[bytes] = None, *, odata_version: int = 0,
              service_root: Optional[str] = None) -> dict[str, Any]:
    """Parses an OData request URL and, given a $metadata document, checks it against it
    (``ods_url_check``). Returns the description of docs/cli.md; raises
    :class:`ODataSyntaxError` with ``position`` for a URL that does not parse or check."""
    import ctypes
    import json

    from . import _errors
    from ._store import _c
    lib = library()
    out = ctypes.c_void_p()
    doc = metadata if metadata is not None else None
    _errors.check(lib, lib.ods_url_check(ctypes.byref(out), _c(url, "url"), doc, len(doc) if doc else 0,
                                         odata_version, _c(service_root or None, "service_root")))
    result: dict[str, Any] = json.loads(_ffi.take_owned_string(lib, out.value))
    return result
