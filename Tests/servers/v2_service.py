"""The OData V2 test service: pyslet's OData V2 server over its SQLite entity container.

The model is v2_metadata.xml (namespace ``ODataStoreTestV2``): Categories, Products (ETag
through the ConcurrencyMode="Fixed" property Version), OrderLines (compound key), Customers
(String key), function imports ProductsByRating and TotalStock. The database is a fresh
SQLite file in a temporary directory per server process, seeded from seed.py.

pyslet quirks (see README.md) are worked around here, in the harness, never in the client:
- The service root must be known before the first request (pyslet writes absolute links),
  so serve.py binds the socket first and builds the app with the real port.
- pyslet's own Server answers a request for the bare service root without the trailing
  slash with a redirect; clients use the root with the slash, as READY prints it.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import logging
import os
import re

import pyslet.odata2.core as core
import pyslet.odata2.csdl as edm
import pyslet.odata2.metadata as edmx
import pyslet.odata2.server as server
import pyslet.odata2.sqlds as sqlds

import seed

MOUNT = "/v2"
METADATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "v2_metadata.xml")
CONTAINER = "ODataStoreTestV2.TestService"

#: pyslet's default page size (Server.topmax) when --page-size is not given.
DEFAULT_PAGE_SIZE = 100


def _keep_absent_properties_on_update() -> None:
    """Harness workaround: pyslet's JSON reader nulls every property absent from the body.

    pyslet 0.7 reads a MERGE or PUT body into the stored entity with
    ``set_from_json_object``, which sets each property that the body does not mention to
    null, keys included. A MERGE that sends only the changed fields (what V2 MERGE is for)
    then fails with "Entity ...(null) does not exist". Here the server restores what the
    body did not mention: for MERGE every property, for PUT only the key properties (they
    come from the URL). Atom bodies are left alone (the library sends JSON).
    """
    original = server.Server.read_entity

    def read_entity(self, entity, environ):
        method = environ.get("REQUEST_METHOD", "")
        if method not in ("MERGE", "PUT") or not entity.exists:
            return original(self, entity, environ)
        keys = set(entity.entity_set.keys)
        saved = {name: value.value for name, value in entity.data_items()
                 if isinstance(value, edm.SimpleValue)
                 and (method == "MERGE" or name in keys)}
        present: set[str] = set()
        read_json = entity.set_from_json_object

        def capture(obj, *args, **kwargs):
            if isinstance(obj, dict):
                present.update(obj.keys())
            return read_json(obj, *args, **kwargs)

        entity.set_from_json_object = capture
        try:
            original(self, entity, environ)
        finally:
            del entity.set_from_json_object
        if present:
            for name, value in saved.items():
                if name not in present:
                    entity[name].set_from_value(value)

    server.Server.read_entity = read_entity


def build_app(service_root: str, workdir: str, page_size: int | None, sizes: seed.Sizes | None = None):
    """A WSGI app serving v2_metadata.xml at ``service_root``, seeded from seed.py (``sizes``:
    the row counts, for benchmarks; default: the seed every test relies on)."""
    doc = edmx.Document()
    with open(METADATA, "rb") as f:
        doc.read(f)
    container = doc.root.DataServices[CONTAINER]
    sizes = sizes or seed.Sizes()
    # The default seed keeps pyslet's own container; larger data sets (benchmarks) use one
    # that does not fsync each of the thousands of seed inserts (see _ScratchContainer).
    kind = sqlds.SQLiteEntityContainer if sizes.is_default() else _ScratchContainer
    db = kind(file_path=os.path.join(workdir, "v2.sqlite"), container=container)
    db.create_all_tables()
    _seed(container, sizes)
    _bind_functions(container)

    _keep_absent_properties_on_update()
    app = server.Server(serviceRoot=service_root)
    app.set_model(doc)
    app.topmax = page_size or DEFAULT_PAGE_SIZE
    wrapped = _enforce_if_match(_rewrite_v2_dates(app))
    logging.getLogger().setLevel(logging.WARNING)  # sqlds logs every statement at INFO
    # sqlds logs "released database connection originally acquired by Thread[...]" at ERROR
    # whenever a collection is closed on another thread than the one that opened it (the
    # garbage collector does that for function results); it is harmless noise.
    logging.getLogger("pyslet.odata2.sqlds").setLevel(logging.CRITICAL)
    return wrapped


class _ScratchContainer(sqlds.SQLiteEntityContainer):
    """pyslet's SQLite container without durability: ``PRAGMA synchronous = OFF``.

    pyslet commits every insert, and each commit waits for an fsync (about 7 ms here), so
    seeding 10,000 products took minutes. The file is a scratch copy in a temporary folder,
    deleted when the server stops: durability buys nothing. Used only for the larger data
    sets of ``serve.py --products/--categories/--orderlines``; reads are unchanged.
    """

    def open(self):
        dbc = super().open()
        c = dbc.cursor()
        c.execute("PRAGMA synchronous = OFF")
        c.close()
        return dbc


_V2_DATE = re.compile(r"^/Date\((-?\d+)(?:([+-])(\d{4}))?\)/$")


def _iso_from_v2_date(text: str):
    match = _V2_DATE.match(text)
    if not match:
        return text
    millis = int(match.group(1))
    when = _dt.datetime(1970, 1, 1) + _dt.timedelta(milliseconds=millis)
    iso = when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]
    if match.group(2):
        minutes = int(match.group(3))
        iso += "%s%02d:%02d" % (match.group(2), minutes // 60, minutes % 60)
    return iso


def _convert_dates(value):
    if isinstance(value, str):
        return _iso_from_v2_date(value)
    if isinstance(value, list):
        return [_convert_dates(v) for v in value]
    if isinstance(value, dict):
        return {k: _convert_dates(v) for k, v in value.items()}
    return value


def _rewrite_v2_dates(app):
    """Harness workaround: pyslet 0.7 misreads V2 JSON dates in request bodies.

    pyslet parses ``"/Date(1709164800000)/"`` (the V2 JSON form of Edm.DateTime that SAP
    Gateway and every V2 client use) into 1970-01-01T00:00:00.001 on Python 3: its
    ``parse_asp_dot_net_date`` loses the ticks. It reads ISO 8601 strings correctly, so
    request bodies have their ``/Date(...)/`` values rewritten to ISO 8601 here, before
    pyslet sees them. The library keeps sending ``/Date(ms)/``, as real servers expect.
    """
    def middleware(environ, start_response):
        if environ.get("REQUEST_METHOD") in ("POST", "PUT", "MERGE", "PATCH") and \
                "json" in environ.get("CONTENT_TYPE", ""):
            length = int(environ.get("CONTENT_LENGTH") or 0)
            raw = environ["wsgi.input"].read(length) if length else b""
            try:
                body = json.dumps(_convert_dates(json.loads(raw))).encode()
            except ValueError:
                body = raw  # not JSON: let pyslet report it
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return app(environ, start_response)
    return middleware


def _enforce_if_match(app):
    """Harness workaround: pyslet 0.7 ignores If-Match.

    SAP Gateway answers a change with a stale ``If-Match`` with 412 Precondition Failed;
    pyslet applies it anyway. For PUT, MERGE, PATCH and DELETE carrying an If-Match other
    than ``*``, this reads the entity's current ETag through the app itself and answers 412
    with a V2 JSON error body when they differ. Requests without If-Match pass unchanged.
    """
    def middleware(environ, start_response):
        if_match = environ.get("HTTP_IF_MATCH")
        if environ.get("REQUEST_METHOD") in ("PUT", "MERGE", "PATCH", "DELETE") and \
                if_match and if_match.strip() != "*":
            probe = dict(environ)
            probe["REQUEST_METHOD"] = "GET"
            probe["CONTENT_LENGTH"] = "0"
            probe["wsgi.input"] = io.BytesIO(b"")
            probe["HTTP_ACCEPT"] = "application/json"
            seen = {}

            def capture(status, headers, exc_info=None):
                seen["status"] = status
                seen["etag"] = next((v for k, v in headers if k.lower() == "etag"), None)
                return lambda data: None

            for _ in app(probe, capture):
                pass
            current = seen.get("etag")
            if seen.get("status", "").startswith("200") and current is not None and \
                    if_match.strip() != current:
                body = json.dumps({"error": {"code": "PreconditionFailed", "message": {
                    "lang": "en-US",
                    "value": "The entity was changed: its ETag is %s, not %s" % (current, if_match)}}}).encode()
                start_response("412 Precondition Failed", [
                    ("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
                return [body]
        return app(environ, start_response)
    return middleware



def _set(entity, name: str, value) -> None:
    if value is None:
        entity[name].set_null()
    elif isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        entity[name].set_from_value(_dt.datetime(value.year, value.month, value.day))
    else:
        entity[name].set_from_value(value)


def _insert_all(container, set_name: str, rows, fields, extra=None) -> None:
    with container[set_name].open() as collection:
        for row in rows:
            entity = collection.new_entity()
            for name in fields:
                _set(entity, name, row[name])
            if extra is not None:
                extra(entity, row)
            collection.insert_entity(entity)


def _seed(container, sizes: seed.Sizes) -> None:
    _insert_all(container, "Categories", sizes.category_rows(), ["ID", "Name"])

    def product_extra(entity, row):
        # pyslet bumps concurrency tokens on insert: 0 becomes 1, the first ETag W/"1".
        entity["Version"].set_from_value(0)
        entity["Category"].bind_entity(row["CategoryID"])

    _insert_all(container, "Products", sizes.product_rows(),
                ["ID", "Name", "Description", "Price", "Stock", "Discontinued", "Rating",
                 "ReleaseDate", "UUID"], product_extra)
    _insert_all(container, "OrderLines", sizes.order_line_rows(),
                ["OrderID", "LineNo", "ProductID", "Quantity", "UnitPrice", "Note"])
    _insert_all(container, "Customers", seed.customers(), ["CustomerID", "CompanyName", "City"])


def _bind_functions(container) -> None:
    def products_by_rating(function, params):
        rating = params.get("rating")
        value = rating.value if rating is not None and rating else None
        if value is None:
            raise core.BadURISegment("rating is required")
        collection = function.entity_set.open()
        # The server later calls set_filter() with the request's $filter (or None), which
        # would replace a filter set here; AND the function's own condition into it instead.
        base = core.CommonExpression.from_str(f"Rating eq {int(value)}")
        plain_set_filter = collection.set_filter

        def set_filter(extra):
            if extra is None:
                plain_set_filter(base)
            else:
                both = core.BinaryExpression(core.Operator.boolAnd)
                both.add_operand(base)
                both.add_operand(extra)
                plain_set_filter(both)

        collection.set_filter = set_filter
        collection.set_filter(None)
        return collection

    def total_stock(function, params):  # noqa: ARG001 - pyslet's binding signature
        total = 0
        with container["Products"].open() as collection:
            for entity in collection.values():
                total += entity["Stock"].value
        # pyslet names a scalar result after its property definition: give it one.
        p_def = edm.Property(None)
        p_def.name = function.name
        p_def.type = "Edm.Int64"
        p_def.simpleTypeCode = edm.SimpleType.Int64
        result = edm.EDMValue.from_property(p_def)
        result.set_from_value(total)
        return result

    container["ProductsByRating"].bind(products_by_rating)
    container["TotalStock"].bind(total_stock)


