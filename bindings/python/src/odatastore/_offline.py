"""Offline stores: download progress and what a store file holds, as typed values.

The C structs (``ods_download_progress``, ``ods_offline_info``, ``ods_defining_request_info``)
are BORROWED or caller-owned; everything here is a copy made while they are valid.
"""
from __future__ import annotations

import dataclasses
import datetime
from typing import TYPE_CHECKING, Optional, Protocol

from . import _ffi

if TYPE_CHECKING:
    from ._store import Store


def _when(seconds: int) -> Optional[datetime.datetime]:
    """Unix seconds (UTC) as an aware datetime; 0 (never) as None."""
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc) if seconds > 0 else None


def _count(value: int) -> Optional[int]:
    return value if value >= 0 else None


@dataclasses.dataclass(frozen=True)
class DownloadProgress:
    """How far an offline store's download is (``ods_download_progress``).

    Reported to ``Store(on_progress=...)`` after every page written to the store file and once
    more, with ``request_finished`` true, when a defining request is done. Counts include what
    an earlier, interrupted download of the same file brought down.

    Attributes:
        defining_request: the defining request being downloaded (its path, as stored).
        request_index: its 0-based position among the ``request_count`` being downloaded
            (only those not complete yet: a resumed download counts the remaining ones).
        entities, bytes: top-level entities (expanded ones not counted) and response bytes of
            this defining request so far.
        expected_entities: the total the service announced for it (its ``$count``), or None.
        total_entities, total_bytes: the same over every defining request of this download.
        request_finished: True in the last report of a defining request.

    With tqdm, one bar per defining request::

        bars = {}
        def on_progress(store, p):
            bar = bars.get(p.request_index)
            if bar is None:
                bar = bars[p.request_index] = tqdm(desc=p.defining_request, unit="entities")
            bar.total = p.expected_entities
            bar.update(p.entities - bar.n)
            if p.request_finished:
                bar.close()
    """

    defining_request: str
    request_index: int
    request_count: int
    entities: int
    bytes: int
    expected_entities: Optional[int]
    total_entities: int
    total_bytes: int
    request_finished: bool

    @classmethod
    def _copy(cls, p: _ffi.DownloadProgressStruct) -> "DownloadProgress":
        return cls(_ffi.text(p.defining_request) or "", int(p.request_index), int(p.request_count),
                   int(p.entities), int(p.bytes), _count(int(p.expected_entities)), int(p.total_entities),
                   int(p.total_bytes), bool(p.request_finished))


@dataclasses.dataclass(frozen=True)
class DefiningRequestInfo:
    """One defining request of an offline store (``ods_defining_request_info``).

    Attributes:
        path: the request as stored (relative to the service root).
        entity_set: the entity set its entities are stored in.
        complete: True when its download finished.
        entities, bytes: top-level entities and response bytes its downloads brought down.
        expected_entities: the count the service announced, or None.
        last_download: when its last download finished (aware, UTC), or None if never.
    """

    path: str
    entity_set: str
    complete: bool
    entities: int
    bytes: int
    expected_entities: Optional[int]
    last_download: Optional[datetime.datetime]

    @classmethod
    def _copy(cls, d: _ffi.DefiningRequestInfoStruct) -> "DefiningRequestInfo":
        return cls(_ffi.text(d.path) or "", _ffi.text(d.entity_set) or "", bool(d.complete), int(d.entities),
                   int(d.bytes), _count(int(d.expected_entities)), _when(int(d.last_download)))


@dataclasses.dataclass(frozen=True)
class OfflineInfo:
    """What an offline store holds (``ods_store_offline_info``), from :meth:`Store.offline_info`.

    Attributes:
        path: the store file (as given to the store).
        size_bytes: the file and its write-ahead log, in bytes.
        last_download: when the last download finished (aware, UTC), or None if never.
        defining_requests: every defining request of the file, in the order they were added
            (also those the store was reopened without).
    """

    path: str
    size_bytes: int
    last_download: Optional[datetime.datetime]
    defining_requests: list[DefiningRequestInfo]

    @property
    def complete(self) -> bool:
        """True when every defining request is downloaded."""
        return all(d.complete for d in self.defining_requests)


class ProgressCallback(Protocol):
    """``on_progress(store, progress)``: see :class:`DownloadProgress`. Called positionally,
    so the parameters may have any names."""

    def __call__(self, store: "Store", progress: DownloadProgress, /) -> None: ...
