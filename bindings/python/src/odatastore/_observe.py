"""Change observers of offline and mixed stores (``ods_store_observe``; docs/observers.md)."""
from __future__ import annotations

import ctypes
import enum
import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Protocol

from . import _errors, _ffi

if TYPE_CHECKING:
    from ._store import Store


class ChangeKind(enum.IntEnum):
    """The kind of one change (``ods_change_kind``)."""
    CREATED = 1
    UPDATED = 2
    DELETED = 3
    KEY_CHANGED = 4


@dataclass(frozen=True)
class EntityChange:
    """One changed entity: ``path`` relative to the service root (``"Products(7)"``; for
    KEY_CHANGED the new key) and, for KEY_CHANGED, ``old_path`` under the local key."""
    kind: ChangeKind
    path: str
    old_path: Optional[str] = None


@dataclass(frozen=True)
class Changes:
    """What one step (a local write, a download page, an upload step, a revert) committed
    for one entity set. ``summary`` is True when the step changed more than 1000 entities:
    then ``changes`` is empty and ``count``/``counts`` give row changes by kind."""
    entity_set: str
    count: int
    counts: dict[ChangeKind, int] = field(default_factory=dict)
    changes: list[EntityChange] = field(default_factory=list)
    summary: bool = False

    @classmethod
    def _copy(cls, lib: ctypes.CDLL, p: int) -> "Changes":
        listed: list[EntityChange] = []
        for i in range(int(lib.ods_changes_size(p))):
            old = lib.ods_changes_old_path(p, i)
            listed.append(EntityChange(ChangeKind(lib.ods_changes_kind(p, i)),
                                       (lib.ods_changes_path(p, i) or b"").decode(),
                                       old.decode() if old is not None else None))
        counts = {k: int(lib.ods_changes_count(p, int(k))) for k in ChangeKind}
        return cls((lib.ods_changes_entity_set(p) or b"").decode(), int(lib.ods_changes_count(p, 0)),
                   {k: n for k, n in counts.items() if n}, listed, bool(lib.ods_changes_is_summary(p) == 1))


class ChangeCallback(Protocol):
    """``callback(store, changes)``: called through the store's dispatch mode."""

    def __call__(self, store: "Store", changes: Changes, /) -> None: ...


# An observer and its store keep each other (Observer._store, Store._observers), so its C
# callback (the thunk) stays alive while C may call it: until remove(), or until both are
# unreachable and the garbage collector finalizes them (in either order: a closed store calls
# no observer, and ods_observer_remove is valid after ods_store_close). A thunk of an
# observer removed from inside its own callback is still running: it is kept in `_retired`
# until a later remove outside any observer callback.
_retired: list[Any] = []
_live_lock = threading.Lock()
_calling = threading.local()


class Observer:
    """A registered change observer (:meth:`Store.observe`). :meth:`remove` (or leaving a
    ``with`` block) unregisters it: from any thread, also from inside the callback; when it
    returns the callback is not running on another thread and is never called again.

    Ownership: the observer keeps its store alive, and the store keeps its observers (so an
    observer nobody holds keeps being called while its store lives); when neither is
    reachable any more the garbage collector closes the store and removes the observer."""

    def __init__(self, store: "Store", entity_set: str, callback: ChangeCallback) -> None:
        from ._store import _c, _Delivering, _report_unraisable
        self.entity_set = entity_set
        self._lib = store._lib
        self._lock = threading.Lock()
        self._handle: Optional[int] = None
        self._store: Optional["Store"] = store
        store_ref = weakref.ref(store)  # the thunk does not keep the store: the observer does
        lib = self._lib

        def on_changes(_store_ptr: Optional[int], changes: Optional[int], _ctx: Optional[int]) -> None:
            try:
                s = store_ref()
                if s is None or not changes:
                    return
                record = Changes._copy(lib, changes)  # BORROWED for this call: copied
                _calling.depth = getattr(_calling, "depth", 0) + 1
                try:
                    with _Delivering(s):
                        callback(s, record)
                finally:
                    _calling.depth -= 1
            except BaseException as e:  # never let an exception cross into C
                _report_unraisable(e, "odatastore change observer")

        self._thunk = _ffi.CHANGE_CB(on_changes)
        out = ctypes.c_void_p()
        _errors.check(lib, lib.ods_store_observe(ctypes.byref(out), store._handle, _c(entity_set, "entity_set"),
                                                 self._thunk, None))
        self._handle = out.value
        with _live_lock:
            store._observers.add(self)

    @property
    def active(self) -> bool:
        """True until :meth:`remove`."""
        return self._handle is not None

    def remove(self) -> None:
        """Unregisters the observer (``ods_observer_remove``); idempotent."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is None:
            return
        store = self._store
        if store is not None and store._forked:  # the parent's observer: never handed to C here
            self._store = None
            return
        self._lib.ods_observer_remove(handle)
        with _live_lock:
            store, self._store = self._store, None
            if store is not None:
                store._observers.discard(self)
            if getattr(_calling, "depth", 0):
                _retired.append(self._thunk)
            else:
                _retired.clear()

    def __del__(self) -> None:
        # collected with its store (nothing else can reach either): unregistered, as remove()
        try:
            if getattr(self, "_handle", None) is not None:
                self.remove()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self) -> "Observer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()
