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
import logging
import os

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


def build_app(service_root: str, workdir: str, page_size: int | None):
    """A WSGI app serving v2_metadata.xml at ``service_root``, seeded from seed.py."""
    doc = edmx.Document()
    with open(METADATA, "rb") as f:
        doc.read(f)
    container = doc.root.DataServices[CONTAINER]
    db = sqlds.SQLiteEntityContainer(
        file_path=os.path.join(workdir, "v2.sqlite"), container=container)
    db.create_all_tables()
    _seed(container)
    _bind_functions(container)

    _keep_absent_properties_on_update()
    app = server.Server(serviceRoot=service_root)
    app.set_model(doc)
    app.topmax = page_size or DEFAULT_PAGE_SIZE
    logging.getLogger().setLevel(logging.WARNING)  # sqlds logs every statement at INFO
    # sqlds logs "released database connection originally acquired by Thread[...]" at ERROR
    # whenever a collection is closed on another thread than the one that opened it (the
    # garbage collector does that for function results); it is harmless noise.
    logging.getLogger("pyslet.odata2.sqlds").setLevel(logging.CRITICAL)
    return app



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


def _seed(container) -> None:
    _insert_all(container, "Categories", seed.categories(), ["ID", "Name"])

    def product_extra(entity, row):
        # pyslet bumps concurrency tokens on insert: 0 becomes 1, the first ETag W/"1".
        entity["Version"].set_from_value(0)
        entity["Category"].bind_entity(row["CategoryID"])

    _insert_all(container, "Products", seed.products(),
                ["ID", "Name", "Description", "Price", "Stock", "Discontinued", "Rating",
                 "ReleaseDate", "UUID"], product_extra)
    _insert_all(container, "OrderLines", seed.order_lines(),
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


