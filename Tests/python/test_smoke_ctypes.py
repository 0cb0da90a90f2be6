"""ctypes smoke test: the C ABI suits FFI runtimes (no variadic calls, no structs by value).

Opens an online store on a real V4 server, reads with a callback that arrives on the
library's own thread (thread mode) or on the thread that dispatches (queue mode), closes.
No binding package is used: the declarations below are written from include/odatastore.h.
"""
import ctypes
import json
import select
import threading

from conftest import library_path

ODS_READ = 1
ODS_DISPATCH_THREAD = 0
ODS_DISPATCH_QUEUE = 1
ODS_STORE_OPEN = 2
ODS_EINVAL = -2


class OdsError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char_p), ("http_status", ctypes.c_int),
                ("odata_code", ctypes.c_char_p), ("odata_message", ctypes.c_char_p),
                ("position", ctypes.c_long)]


class OdsStoreOptions(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("kind", ctypes.c_int), ("service_root", ctypes.c_char_p),
                ("dispatch", ctypes.c_int), ("odata_version", ctypes.c_int), ("auth", ctypes.c_int),
                ("username", ctypes.c_char_p), ("password", ctypes.c_char_p),
                ("bearer_token", ctypes.c_char_p), ("headers", ctypes.POINTER(ctypes.c_char_p)),
                ("ca_bundle", ctypes.c_char_p), ("insecure_skip_tls_verify", ctypes.c_int),
                ("connect_timeout_ms", ctypes.c_long), ("request_timeout_ms", ctypes.c_long),
                ("max_connections", ctypes.c_int), ("user_agent", ctypes.c_char_p),
                ("csrf_protection", ctypes.c_int), ("metadata_path", ctypes.c_char_p)]


COMPLETION = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(OdsError), ctypes.c_void_p)
STATE_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(OdsError), ctypes.c_void_p)


def load():
    lib = ctypes.CDLL(library_path())  # CDLL, never PyDLL: callbacks come from our threads
    lib.ods_version.restype = ctypes.c_char_p
    lib.ods_error_last.restype = ctypes.POINTER(OdsError)
    lib.ods_store_open.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(OdsStoreOptions), STATE_CB, ctypes.c_void_p]
    lib.ods_store_close.argtypes = [ctypes.c_void_p]
    lib.ods_store_schedule.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_void_p, ctypes.c_int,
                                       ctypes.c_char_p, ctypes.c_char_p, COMPLETION, ctypes.c_void_p]
    lib.ods_store_fd.argtypes = [ctypes.c_void_p]
    lib.ods_store_dispatch.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.ods_response_status.argtypes = [ctypes.c_void_p]
    lib.ods_response_json.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.ods_response_json.restype = ctypes.c_void_p
    lib.ods_response_entity_count.argtypes = [ctypes.c_void_p]
    lib.ods_response_entity_count.restype = ctypes.c_size_t
    lib.ods_request_id.argtypes = [ctypes.c_void_p]
    lib.ods_request_id.restype = ctypes.c_uint64
    return lib


def open_store(lib, url, dispatch):
    options = OdsStoreOptions(version=1, service_root=url.encode(), dispatch=dispatch)
    store = ctypes.c_void_p()
    rc = lib.ods_store_open(ctypes.byref(store), ctypes.byref(options), STATE_CB(0), None)
    assert rc == 0, lib.ods_error_last().contents.message
    return store


def read_products(lib, store, dispatch):
    result = {}
    done = threading.Event()

    @COMPLETION
    def on_done(request, response, error, context):
        result["thread"] = threading.get_ident()
        result["id"] = lib.ods_request_id(request)
        if error:
            result["error"] = error.contents.message.decode()
        else:
            size = ctypes.c_size_t()
            ptr = lib.ods_response_json(response, ctypes.byref(size))
            result["status"] = lib.ods_response_status(response)
            result["json"] = json.loads(ctypes.string_at(ptr, size.value).decode())
            result["entities"] = lib.ods_response_entity_count(response)
        done.set()

    request_id = ctypes.c_uint64()
    rc = lib.ods_store_schedule(ctypes.byref(request_id), store, ODS_READ, b"Products?$top=3", None, on_done, None)
    assert rc == 0, lib.ods_error_last().contents.message
    if dispatch == ODS_DISPATCH_QUEUE:
        fd = lib.ods_store_fd(store)
        assert fd >= 0
        while not done.is_set():
            ready, _, _ = select.select([fd], [], [], 30)
            assert ready, "no callback within 30 s"
            assert lib.ods_store_dispatch(store, 0) >= 0
    else:
        assert done.wait(30), "no callback within 30 s"
    result["request_id"] = request_id.value
    return result, on_done


def test_version_string():
    lib = load()
    assert lib.ods_version().decode().count(".") == 2


def test_read_in_thread_mode_arrives_on_library_thread(v4_server):
    lib = load()
    store = open_store(lib, v4_server.url, ODS_DISPATCH_THREAD)
    try:
        result, _keep = read_products(lib, store, ODS_DISPATCH_THREAD)
        assert "error" not in result, result.get("error")
        assert result["status"] == 200
        assert result["entities"] == 3 == len(result["json"]["value"])
        assert result["thread"] != threading.get_ident()
        assert result["id"] == result["request_id"] != 0
    finally:
        assert lib.ods_store_close(store) == 0


def test_read_in_queue_mode_arrives_on_dispatching_thread(v4_server):
    lib = load()
    store = open_store(lib, v4_server.url, ODS_DISPATCH_QUEUE)
    try:
        result, _keep = read_products(lib, store, ODS_DISPATCH_QUEUE)
        assert "error" not in result, result.get("error")
        assert result["entities"] == 3
        assert result["thread"] == threading.get_ident()
    finally:
        assert lib.ods_store_close(store) == 0


def test_bad_input_is_a_status_not_a_crash():
    lib = load()
    store = ctypes.c_void_p()
    assert lib.ods_store_open(ctypes.byref(store), None, STATE_CB(0), None) == ODS_EINVAL
    assert b"options" in lib.ods_error_last().contents.message
    options = OdsStoreOptions(version=1, service_root=b"ftp://nowhere")
    assert lib.ods_store_open(ctypes.byref(store), ctypes.byref(options), STATE_CB(0), None) == ODS_EINVAL
    assert not store.value
