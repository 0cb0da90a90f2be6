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


# ---------------------------------------------------------------------------------------
# Local changes: upload, error archive, key mappings
# ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class UploadProgress:
    """How far an upload is (``ods_upload_progress``), reported to the ``progress`` callback of
    :meth:`Store.upload` after every change the service answered.

    Attributes:
        sent: changes answered so far in this upload (confirmed or refused).
        total: changes this upload set out to send (the queue when it started).
        failed: of ``sent``, those the service refused (now in the error archive).
    """

    sent: int
    total: int
    failed: int

    @classmethod
    def _copy(cls, p: _ffi.UploadProgressStruct) -> "UploadProgress":
        return cls(int(p.sent), int(p.total), int(p.failed))


@dataclasses.dataclass(frozen=True)
class UploadResult:
    """What an upload did (``ods_upload_result``), from :meth:`Store.upload`.

    Attributes:
        confirmed: changes the service confirmed (they left the queue).
        failed: changes the service refused: moved to the error archive
            (:meth:`Store.error_archive`); they are not an error of the upload.
        remaining: changes still queued: behind a refused change of the same entity, or made
            during the upload.
    """

    confirmed: int
    failed: int
    remaining: int


def _instant(text: str) -> datetime.datetime:
    """An ISO 8601 UTC timestamp the store wrote ("2026-11-24T01:56:35Z") as an aware datetime."""
    return datetime.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)


@dataclasses.dataclass(frozen=True)
class ArchivedError:
    """A local change the service refused (``ods_archived_error``), from
    :meth:`Store.error_archive`: the request that was sent and the service's answer.

    Attributes:
        id: unique in the store: pass it (or this object) to :meth:`Store.retry_error` or
            :meth:`Store.revert_error`; also ``ErrorArchive(<id>)`` of the request API.
        created: when the service refused it (aware, UTC).
        method: the HTTP method sent ("POST", "PATCH", "MERGE", "PUT", "DELETE").
        path: the request path sent, relative to the service root.
        body: the JSON body sent, or None (DELETE).
        http_status: the service's HTTP status; 0 for a create whose answer was lost and that
            was not sent again (``odata_code`` "uncertain").
        odata_code: the OData error code of the service's answer, or None.
        message: the service's error message (or the library's).
        entity_set: the entity set of the entity the change was about.
    """

    id: int
    created: datetime.datetime
    method: str
    path: str
    body: Optional[str]
    http_status: int
    odata_code: Optional[str]
    message: str
    entity_set: str

    @classmethod
    def _copy(cls, e: _ffi.ArchivedErrorStruct) -> "ArchivedError":
        return cls(int(e.id), _instant(_ffi.text(e.created) or ""), _ffi.text(e.method) or "",
                   _ffi.text(e.path) or "", _ffi.text(e.body), int(e.http_status), _ffi.text(e.odata_code),
                   _ffi.text(e.message) or "", _ffi.text(e.entity_set) or "")


@dataclasses.dataclass(frozen=True)
class KeyMapping:
    """A key the store made for an entity created offline whose key the service assigns, and
    the service's key once uploaded (``ods_key_mapping``), from :meth:`Store.key_mappings`.

    Attributes:
        entity_set: the entity set of the entity.
        local_path: the path under the local key, e.g. "Categories(-1)".
        server_path: the path under the service's key, e.g. "Categories(11)"; None while the
            create waits for upload.
    """

    entity_set: str
    local_path: str
    server_path: Optional[str]

    @classmethod
    def _copy(cls, m: _ffi.KeyMappingStruct) -> "KeyMapping":
        return cls(_ffi.text(m.entity_set) or "", _ffi.text(m.local_path) or "", _ffi.text(m.server_path))


class UploadProgressCallback(Protocol):
    """``progress(store, progress)``: see :class:`UploadProgress`. Called positionally."""

    def __call__(self, store: "Store", progress: UploadProgress, /) -> None: ...
