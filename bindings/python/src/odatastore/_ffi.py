"""ctypes declarations of include/odatastore.h and the library loader.

Only this module knows about C pointers. Conventions followed here (see the header):

* The library is loaded with ``ctypes.CDLL``, never ``PyDLL``: CDLL releases the GIL around
  every call, which callbacks arriving on the library's own threads need (PyDLL would hold
  the GIL while ``ods_store_close`` joins the callback thread and deadlock).
* OWNED strings are declared ``c_void_p`` so ctypes does not convert (and leak) them; they
  are copied with ``ctypes.string_at`` and released with ``ods_free``.
* BORROWED strings are copied out before the call or callback that lent them returns.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import pathlib
import threading
from typing import Any, Optional

# The library version this binding was written against (include/odatastore.h).
EXPECTED_VERSION_MAJOR = 0
EXPECTED_VERSION_MINOR = 2
EXPECTED_VERSION_PATCH = 0
EXPECTED_VERSION_NUMBER = EXPECTED_VERSION_MAJOR * 1_000_000 + EXPECTED_VERSION_MINOR * 1_000 + EXPECTED_VERSION_PATCH

# Struct versions this binding fills in.
STORE_OPTIONS_VERSION = 3          # 2: offline stores (store_path, defining_requests, progress); 3: logon
REQUEST_DELEGATE_VERSION = 1
OFFLINE_INFO_VERSION = 1
DEFINING_REQUEST_INFO_VERSION = 1

c_int = ctypes.c_int
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_size_t = ctypes.c_size_t
c_uint64 = ctypes.c_uint64
c_int64 = ctypes.c_int64
c_long = ctypes.c_long


class ErrorStruct(ctypes.Structure):
    """``ods_error``: read-only, fields only ever appended."""

    _fields_ = [
        ("code", c_int),
        ("message", c_char_p),
        ("http_status", c_int),
        ("odata_code", c_char_p),
        ("odata_message", c_char_p),
        ("position", c_long),
    ]


class DownloadProgressStruct(ctypes.Structure):
    """``ods_download_progress``: read-only, BORROWED for the callback, fields only appended."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("defining_request", c_char_p),
        ("request_index", c_size_t),
        ("request_count", c_size_t),
        ("entities", c_int64),
        ("bytes", c_int64),
        ("expected_entities", c_int64),
        ("total_entities", c_int64),
        ("total_bytes", c_int64),
        ("request_finished", c_int),
    ]


# void (*)(ods_store *, const ods_download_progress *, void *context)
PROGRESS_CB = ctypes.CFUNCTYPE(None, c_void_p, ctypes.POINTER(DownloadProgressStruct), c_void_p)


class LogonInfoStruct(ctypes.Structure):
    """``ods_logon_info``: read-only, BORROWED for the callback, fields only appended."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("id", c_uint64),
        ("reason", c_int),
        ("http_status", c_int),
        ("authenticate", c_char_p),
        ("attempt", c_int),
    ]


# void (*)(ods_store *, const ods_logon_info *, void *context)
LOGON_CB = ctypes.CFUNCTYPE(None, c_void_p, ctypes.POINTER(LogonInfoStruct), c_void_p)


class StoreOptions(ctypes.Structure):
    """``ods_store_options`` version 3 (ODS_STORE_OPTIONS_INIT is all zeros but the version)."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("kind", c_int),
        ("service_root", c_char_p),
        ("dispatch", c_int),
        ("odata_version", c_int),
        ("auth", c_int),
        ("username", c_char_p),
        ("password", c_char_p),
        ("bearer_token", c_char_p),
        ("headers", ctypes.POINTER(c_char_p)),
        ("ca_bundle", c_char_p),
        ("insecure_skip_tls_verify", c_int),
        ("connect_timeout_ms", c_long),
        ("request_timeout_ms", c_long),
        ("max_connections", c_int),
        ("user_agent", c_char_p),
        ("csrf_protection", c_int),
        ("metadata_path", c_char_p),
        # version 2: offline stores
        ("store_path", c_char_p),
        ("defining_requests", ctypes.POINTER(c_char_p)),
        ("download_progress", PROGRESS_CB),
        ("download_progress_context", c_void_p),
        ("download_page_size", c_int),
            # version 2: limits (0 = the default)
        ("max_response_bytes", c_int64),
        ("max_compression_ratio", c_int),
        ("max_error_message_bytes", c_int),
        ("max_pages", c_int),
        ("max_pending_requests", c_int),
        ("max_retries", c_int),
        # version 3: logon and held requests
        ("logon", LOGON_CB),
        ("logon_context", c_void_p),
        ("logon_flags", c_int),
        ("max_logon_attempts", c_int),
        ("max_held_requests", c_int),
    ]


class OfflineInfoStruct(ctypes.Structure):
    """``ods_offline_info`` version 1 (the caller sets ``version``)."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("size_bytes", c_int64),
        ("last_download", c_int64),
        ("defining_request_count", c_size_t),
    ]


class DefiningRequestInfoStruct(ctypes.Structure):
    """``ods_defining_request_info`` version 1 (the caller sets ``version``; strings BORROWED
    until ods_store_close)."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("path", c_char_p),
        ("entity_set", c_char_p),
        ("complete", c_int),
        ("entities", c_int64),
        ("bytes", c_int64),
        ("expected_entities", c_int64),
        ("last_download", c_int64),
    ]


class UploadProgressStruct(ctypes.Structure):
    """``ods_upload_progress``: read-only, BORROWED for the callback, fields only appended."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("sent", c_int64),
        ("total", c_int64),
        ("failed", c_int64),
    ]


class UploadResultStruct(ctypes.Structure):
    """``ods_upload_result``: read-only, BORROWED for the completion, fields only appended."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("confirmed", c_int64),
        ("failed", c_int64),
        ("remaining", c_int64),
    ]


class ArchivedErrorStruct(ctypes.Structure):
    """``ods_archived_error``: read-only; strings BORROWED until ods_error_archive_free."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("id", c_int64),
        ("created", c_char_p),
        ("method", c_char_p),
        ("path", c_char_p),
        ("body", c_char_p),
        ("http_status", c_int),
        ("odata_code", c_char_p),
        ("message", c_char_p),
        ("entity_set", c_char_p),
    ]


class KeyMappingStruct(ctypes.Structure):
    """``ods_key_mapping``: read-only; strings BORROWED until ods_key_mapping_list_free."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("entity_set", c_char_p),
        ("local_path", c_char_p),
        ("server_path", c_char_p),
    ]


ErrorPtr = ctypes.POINTER(ErrorStruct)

# void (*)(ods_store *, const ods_upload_progress *, void *context)
UPLOAD_PROGRESS_CB = ctypes.CFUNCTYPE(None, c_void_p, ctypes.POINTER(UploadProgressStruct), c_void_p)
# void (*)(ods_store *, int status, const ods_upload_result *, const ods_error *, void *context)
UPLOAD_CB = ctypes.CFUNCTYPE(None, c_void_p, c_int, ctypes.POINTER(UploadResultStruct), ErrorPtr, c_void_p)
# void (*)(ods_store *, int status, const ods_error *, void *context)
DOWNLOAD_CB = ctypes.CFUNCTYPE(None, c_void_p, c_int, ErrorPtr, c_void_p)
# ods_change_cb(store, changes, context)
CHANGE_CB = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_void_p)
# void (*)(ods_store *, int64_t id, int status, const ods_error *, void *context)
REVERT_CB = ctypes.CFUNCTYPE(None, c_void_p, c_int64, c_int, ErrorPtr, c_void_p)

# Callback types. Handles are passed as c_void_p (ints or None in Python).
STATE_CB = ctypes.CFUNCTYPE(None, c_void_p, c_int, ErrorPtr, c_void_p)
# The error is declared c_void_p (None when NULL, as on every success) so ctypes makes no
# pointer object per call; the binding casts it to ErrorPtr when there is one.
COMPLETION_CB = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_void_p, c_void_p)
STARTED_CB = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
RESPONSE_CB = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_void_p)
FAILED_CB = ctypes.CFUNCTYPE(None, c_void_p, ErrorPtr, c_void_p, c_void_p)
FINISHED_CB = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
# ods_thread_end_cb(store, context)
THREAD_END_CB = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)


class RequestDelegateStruct(ctypes.Structure):
    """``ods_request_delegate`` version 1."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("started", STARTED_CB),
        ("response", RESPONSE_CB),
        ("failed", FAILED_CB),
        ("finished", FINISHED_CB),
    ]


# name: (restype, argtypes)
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "ods_version": (c_char_p, []),
    "ods_version_number": (c_int, []),
    "ods_strerror": (c_char_p, [c_int]),
    "ods_error_last": (ErrorPtr, []),
    "ods_error_clear": (None, []),
    "ods_free": (None, [c_void_p]),
    "ods_store_open": (c_int, [ctypes.POINTER(c_void_p), ctypes.POINTER(StoreOptions), STATE_CB, c_void_p]),
    "ods_store_close": (c_int, [c_void_p]),
    "ods_store_set_thread_end": (c_int, [c_void_p, THREAD_END_CB]),
    "ods_store_get_state": (c_int, [c_void_p]),
    "ods_store_context": (c_void_p, [c_void_p]),
    "ods_store_odata_version": (c_int, [c_void_p]),
    "ods_store_set_default_delegate": (c_int, [c_void_p, ctypes.POINTER(RequestDelegateStruct)]),
    "ods_store_fd": (c_int, [c_void_p]),
    "ods_store_dispatch": (c_int, [c_void_p, c_int]),
    "ods_store_schedule": (c_int, [ctypes.POINTER(c_uint64), c_void_p, c_int, c_char_p, c_char_p, COMPLETION_CB, c_void_p]),
    "ods_store_cancel": (c_int, [c_void_p, c_uint64]),
    "ods_store_logon_basic": (c_int, [c_void_p, c_uint64, c_char_p, c_char_p]),
    "ods_store_logon_bearer": (c_int, [c_void_p, c_uint64, c_char_p]),
    "ods_store_logon_headers": (c_int, [c_void_p, c_uint64, ctypes.POINTER(c_char_p)]),
    "ods_store_logon_refuse": (c_int, [c_void_p, c_uint64]),
    "ods_store_observe": (c_int, [ctypes.POINTER(c_void_p), c_void_p, c_char_p, CHANGE_CB, c_void_p]),
    "ods_observer_remove": (c_int, [c_void_p]),
    "ods_changes_entity_set": (c_char_p, [c_void_p]),
    "ods_changes_count": (c_int64, [c_void_p, c_int]),
    "ods_changes_is_summary": (c_int, [c_void_p]),
    "ods_changes_size": (ctypes.c_size_t, [c_void_p]),
    "ods_changes_kind": (c_int, [c_void_p, ctypes.c_size_t]),
    "ods_changes_path": (c_char_p, [c_void_p, ctypes.c_size_t]),
    "ods_changes_old_path": (c_char_p, [c_void_p, ctypes.c_size_t]),
    "ods_store_cancel_download": (c_int, [c_void_p]),
    "ods_store_offline_info": (c_int, [ctypes.POINTER(OfflineInfoStruct), c_void_p]),
    "ods_store_defining_request": (c_int, [ctypes.POINTER(DefiningRequestInfoStruct), c_void_p, c_size_t]),
    "ods_store_download": (c_int, [c_void_p, ctypes.POINTER(c_char_p), PROGRESS_CB, DOWNLOAD_CB, c_void_p]),
    "ods_store_add_defining_request": (c_int, [c_void_p, c_char_p]),
    "ods_store_remove_defining_request": (c_int, [c_void_p, c_char_p]),
    "ods_store_upload": (c_int, [c_void_p, UPLOAD_PROGRESS_CB, UPLOAD_CB, c_void_p]),
    "ods_store_cancel_upload": (c_int, [c_void_p]),
    "ods_store_pending_count": (c_int, [ctypes.POINTER(c_int64), c_void_p]),
    "ods_entity_pending_state": (c_int, [c_void_p]),
    "ods_store_error_archive": (c_int, [ctypes.POINTER(c_void_p), c_void_p]),
    "ods_error_archive_count": (c_size_t, [c_void_p]),
    "ods_error_archive_at": (ctypes.POINTER(ArchivedErrorStruct), [c_void_p, c_size_t]),
    "ods_error_archive_free": (None, [c_void_p]),
    "ods_store_error_retry": (c_int, [c_void_p, c_int64, c_char_p, c_char_p]),
    "ods_store_error_revert": (c_int, [c_void_p, c_int64, REVERT_CB, c_void_p]),
    "ods_store_key_mappings": (c_int, [ctypes.POINTER(c_void_p), c_void_p]),
    "ods_key_mapping_list_count": (c_size_t, [c_void_p]),
    "ods_key_mapping_list_at": (ctypes.POINTER(KeyMappingStruct), [c_void_p, c_size_t]),
    "ods_key_mapping_list_free": (None, [c_void_p]),
    "ods_request_new": (c_int, [ctypes.POINTER(c_void_p), c_void_p, c_int, c_char_p, c_char_p]),
    "ods_request_free": (None, [c_void_p]),
    "ods_request_submit": (c_void_p, [c_void_p, c_int, c_char_p, c_char_p, COMPLETION_CB, c_void_p]),
    "ods_response_retain_json": (c_char_p, [c_void_p, c_void_p]),  # a NUL-terminated JSON: bytes
    "ods_request_set_delegate": (c_int, [c_void_p, ctypes.POINTER(RequestDelegateStruct)]),
    "ods_request_set_completion": (c_int, [c_void_p, COMPLETION_CB, c_void_p]),
    "ods_request_set_context": (c_int, [c_void_p, c_void_p]),
    "ods_request_context": (c_void_p, [c_void_p]),
    "ods_request_set_header": (c_int, [c_void_p, c_char_p, c_char_p]),
    "ods_request_set_etag": (c_int, [c_void_p, c_char_p]),
    "ods_request_set_paging": (c_int, [c_void_p, c_int]),
    "ods_request_set_timeout": (c_int, [c_void_p, c_long]),
    "ods_request_start": (c_int, [c_void_p]),
    "ods_request_cancel": (c_int, [c_void_p]),
    "ods_request_id": (c_uint64, [c_void_p]),
    "ods_request_get_state": (c_int, [c_void_p]),
    "ods_request_mode": (c_int, [c_void_p]),
    "ods_request_path": (c_char_p, [c_void_p]),
    "ods_request_store": (c_void_p, [c_void_p]),
    "ods_response_dup": (c_int, [ctypes.POINTER(c_void_p), c_void_p]),
    "ods_response_free": (None, [c_void_p]),
    "ods_response_status": (c_int, [c_void_p]),
    "ods_response_json": (c_void_p, [c_void_p, ctypes.POINTER(c_size_t)]),
    "ods_response_body": (c_void_p, [c_void_p, ctypes.POINTER(c_size_t)]),
    "ods_response_header": (c_char_p, [c_void_p, c_char_p]),
    "ods_response_header_count": (c_size_t, [c_void_p]),
    "ods_response_header_at": (c_int, [ctypes.POINTER(c_char_p), ctypes.POINTER(c_char_p), c_void_p, c_size_t]),
    "ods_response_etag": (c_char_p, [c_void_p]),
    "ods_response_next_link": (c_char_p, [c_void_p]),
    "ods_response_count": (c_int64, [c_void_p]),
    "ods_response_is_local": (c_int, [c_void_p]),
    "ods_response_source": (c_int, [c_void_p]),
    "ods_store_set_mode": (c_int, [c_void_p, c_int]),
    "ods_store_get_mode": (c_int, [ctypes.POINTER(c_int), c_void_p]),
    "ods_request_set_route": (c_int, [c_void_p, c_int]),
    "ods_response_entity_count": (c_size_t, [c_void_p]),
    "ods_response_entity": (c_void_p, [c_void_p, c_size_t]),
    "ods_entity_json": (c_char_p, [c_void_p]),
    "ods_entity_etag": (c_char_p, [c_void_p]),
    "ods_entity_value_type": (c_int, [c_void_p, c_char_p]),
    "ods_entity_get_string": (c_int, [ctypes.POINTER(c_char_p), c_void_p, c_char_p]),
    "ods_entity_get_int64": (c_int, [ctypes.POINTER(c_int64), c_void_p, c_char_p]),
    "ods_entity_get_double": (c_int, [ctypes.POINTER(ctypes.c_double), c_void_p, c_char_p]),
    "ods_entity_get_bool": (c_int, [ctypes.POINTER(c_int), c_void_p, c_char_p]),
    "ods_url_check": (c_int, [ctypes.POINTER(c_void_p), c_char_p, c_char_p, c_size_t, c_int, c_char_p]),
    "ods_store_check_url": (c_int, [ctypes.POINTER(c_void_p), c_void_p, c_char_p]),
    "ods_store_model_json": (c_int, [ctypes.POINTER(c_void_p), c_void_p]),
}


class LibraryError(ImportError):
    """libodatastore could not be found or loaded, or its version does not suit this binding."""


def check_version(number: int) -> None:
    """Raises LibraryError unless a library of ``ods_version_number()`` ``number`` suits this binding.

    The binding needs the same major version and at least the minor/patch it was written for
    (option and delegate structs only grow, so a newer library reads this binding's structs).
    """
    major = number // 1_000_000
    if major != EXPECTED_VERSION_MAJOR or number < EXPECTED_VERSION_NUMBER:
        found = f"{major}.{number // 1000 % 1000}.{number % 1000}"
        want = f"{EXPECTED_VERSION_MAJOR}.{EXPECTED_VERSION_MINOR}.{EXPECTED_VERSION_PATCH}"
        raise LibraryError(
            f"libodatastore {found} does not suit this odatastore binding, which needs "
            f"{EXPECTED_VERSION_MAJOR}.x at least {want}: install a matching library or binding"
        )


def candidate_paths() -> list[str]:
    """Where the library is looked for, in order: $ODATASTORE_LIBRARY, the copy bundled in
    this package, then the system's search path."""
    paths: list[str] = []
    env = os.environ.get("ODATASTORE_LIBRARY")
    if env:
        paths.append(env)
    bundled = pathlib.Path(__file__).resolve().parent / "_lib" / "libodatastore.so.0"
    if bundled.exists():
        paths.append(str(bundled))
    found = ctypes.util.find_library("odatastore")
    if found:
        paths.append(found)
    paths.append("libodatastore.so.0")
    return paths


_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_lib_path: Optional[str] = None


def _declare(lib: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


def load() -> ctypes.CDLL:
    """The loaded library (loaded and version-checked on first use)."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        env = os.environ.get("ODATASTORE_LIBRARY")
        errors: list[str] = []
        for path in candidate_paths():
            try:
                lib = ctypes.CDLL(path)  # never PyDLL (see the module docstring)
            except OSError as e:
                if env and path == env:
                    raise LibraryError(f"cannot load $ODATASTORE_LIBRARY={env}: {e}") from e
                errors.append(f"{path}: {e}")
                continue
            try:
                _declare(lib)
            except AttributeError as e:
                raise LibraryError(f"{path} is not a usable libodatastore: {e}") from e
            check_version(lib.ods_version_number())
            _lib, _lib_path = lib, path
            return lib
        raise LibraryError("libodatastore not found (set ODATASTORE_LIBRARY to its path, or install "
                           "a wheel that bundles it): " + "; ".join(errors))


def loaded_path() -> Optional[str]:
    """The path the library was loaded from, or None before the first use."""
    return _lib_path


def text(raw: Optional[bytes]) -> Optional[str]:
    return None if raw is None else raw.decode("utf-8", "replace")


def take_owned_string(lib: ctypes.CDLL, ptr: Optional[int]) -> str:
    """Copies an OWNED C string and releases it with ods_free."""
    if not ptr:
        return ""
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        lib.ods_free(ptr)
