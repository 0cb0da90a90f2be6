"""The OData V4 test service: odatapy's in-memory reference processor behind waitress.

Model (namespace ``ODataStoreTest``, container ``Container``), documented in README.md:
Categories, Products (ETag), OrderLines (compound key), Customers (String key),
functions ProductsByRating / MostExpensive / TotalStock, action Discount.
Writes are held in memory: every server process starts from the seed in seed.py.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from odatapy.data import Entity, ValueType
from odatapy.edm.csdl import (
    CsdlAbstractEdmProvider,
    CsdlAction,
    CsdlActionImport,
    CsdlAnnotation,
    CsdlEntityContainer,
    CsdlEntitySet,
    CsdlEntityType,
    CsdlFunction,
    CsdlFunctionImport,
    CsdlNavigationProperty,
    CsdlNavigationPropertyBinding,
    CsdlParameter,
    CsdlProperty,
    CsdlPropertyRef,
    CsdlReferentialConstraint,
    CsdlReturnType,
    CsdlSchema,
)
from odatapy.errors import ODataApplicationException
from odatapy.http.status import HttpStatusCode
from odatapy.server import OData
from odatapy.server.adapters import ODataWSGIApp
from odatapy.server.deserializer.json_deserializer import ODataJsonDeserializer
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor
from odatapy.server.processor import ActionProcessor, CustomETagSupport
from odatapy.server.serializer.json_serializer import PrimitiveSerializerOptions

import seed

NS = "ODataStoreTest"
MOUNT = "/odata"

#: Entity sets whose entities carry an ETag: a change without If-Match is answered 428,
#: a change with a stale If-Match 412.
ETAG_SETS = frozenset({"Products", "Categories"})

# Edm type of each seeded property, per entity set.
_TYPES = {
    "Categories": {"ID": "Edm.Int32", "Name": "Edm.String"},
    "Products": {
        "ID": "Edm.Int32", "Name": "Edm.String", "Description": "Edm.String",
        "Price": "Edm.Decimal", "Stock": "Edm.Int64", "Discontinued": "Edm.Boolean",
        "Rating": "Edm.Int32", "ReleaseDate": "Edm.Date", "LastModified": "Edm.DateTimeOffset",
        "UUID": "Edm.Guid", "CategoryID": "Edm.Int32",
    },
    "OrderLines": {
        "OrderID": "Edm.Int32", "LineNo": "Edm.Int32", "ProductID": "Edm.Int32",
        "Quantity": "Edm.Int32", "UnitPrice": "Edm.Decimal", "Note": "Edm.String",
    },
    "Customers": {"CustomerID": "Edm.String", "CompanyName": "Edm.String", "City": "Edm.String"},
}


def _fqn(name: str) -> str:
    return f"{NS}.{name}"


class Provider(CsdlAbstractEdmProvider):
    """The CSDL of the test service."""

    _schemas = None

    def get_schemas(self):
        """Harness workaround (speed only): odatapy asks the provider for its schemas about
        ten times per request; building them each time took about 1 ms of every request.
        They are built once; the objects are the same as before, so is every answer."""
        if Provider._schemas is None:
            Provider._schemas = self._build_schemas()
        return Provider._schemas

    def _build_schemas(self):
        category = CsdlEntityType(
            name="Category",
            key=[CsdlPropertyRef(name="ID")],
            properties=[
                CsdlProperty(name="ID", type="Edm.Int32", nullable=False),
                CsdlProperty(name="Name", type="Edm.String", nullable=False, max_length=50),
            ],
            navigation_properties=[
                CsdlNavigationProperty(name="Products", type=_fqn("Product"), collection=True,
                                       partner="Category"),
            ],
        )
        product = CsdlEntityType(
            name="Product",
            key=[CsdlPropertyRef(name="ID")],
            properties=[
                CsdlProperty(name="ID", type="Edm.Int32", nullable=False),
                CsdlProperty(name="Name", type="Edm.String", nullable=False, max_length=100),
                CsdlProperty(name="Description", type="Edm.String"),
                CsdlProperty(name="Price", type="Edm.Decimal", nullable=False, precision=12, scale=2),
                CsdlProperty(name="Stock", type="Edm.Int64", nullable=False),
                CsdlProperty(name="Discontinued", type="Edm.Boolean", nullable=False),
                CsdlProperty(name="Rating", type="Edm.Int32"),
                CsdlProperty(name="ReleaseDate", type="Edm.Date"),
                CsdlProperty(name="LastModified", type="Edm.DateTimeOffset", precision=0),
                CsdlProperty(name="UUID", type="Edm.Guid"),
                CsdlProperty(name="CategoryID", type="Edm.Int32"),
            ],
            navigation_properties=[
                CsdlNavigationProperty(
                    name="Category", type=_fqn("Category"), partner="Products",
                    referential_constraints=[
                        CsdlReferentialConstraint(property="CategoryID", referenced_property="ID"),
                    ],
                ),
            ],
        )
        order_line = CsdlEntityType(
            name="OrderLine",
            key=[CsdlPropertyRef(name="OrderID"), CsdlPropertyRef(name="LineNo")],
            properties=[
                CsdlProperty(name="OrderID", type="Edm.Int32", nullable=False),
                CsdlProperty(name="LineNo", type="Edm.Int32", nullable=False),
                CsdlProperty(name="ProductID", type="Edm.Int32", nullable=False),
                CsdlProperty(name="Quantity", type="Edm.Int32", nullable=False),
                CsdlProperty(name="UnitPrice", type="Edm.Decimal", nullable=False, precision=12, scale=2),
                CsdlProperty(name="Note", type="Edm.String"),
            ],
        )
        customer = CsdlEntityType(
            name="Customer",
            key=[CsdlPropertyRef(name="CustomerID")],
            properties=[
                CsdlProperty(name="CustomerID", type="Edm.String", nullable=False, max_length=20),
                CsdlProperty(name="CompanyName", type="Edm.String", nullable=False),
                CsdlProperty(name="City", type="Edm.String"),
            ],
        )
        functions = [
            CsdlFunction(
                name="ProductsByRating",
                parameters=[CsdlParameter(name="rating", type="Edm.Int32", nullable=False)],
                return_type=CsdlReturnType(type=_fqn("Product"), collection=True),
            ),
            CsdlFunction(name="MostExpensive", return_type=CsdlReturnType(type=_fqn("Product"))),
            CsdlFunction(name="TotalStock", return_type=CsdlReturnType(type="Edm.Int64", nullable=False)),
        ]
        actions = [
            CsdlAction(
                name="Discount",
                parameters=[
                    CsdlParameter(name="categoryID", type="Edm.Int32", nullable=False),
                    CsdlParameter(name="percent", type="Edm.Int32", nullable=False),
                ],
                return_type=CsdlReturnType(type="Edm.Int32", nullable=False),
            ),
        ]
        optimistic = [CsdlAnnotation(term="Org.OData.Core.V1.OptimisticConcurrency", value=None)]
        container = CsdlEntityContainer(
            name="Container",
            entity_sets=[
                CsdlEntitySet(
                    name="Categories", type=_fqn("Category"),
                    navigation_property_bindings=[
                        CsdlNavigationPropertyBinding(path="Products", target="Products")],
                ),
                CsdlEntitySet(
                    name="Products", type=_fqn("Product"),
                    navigation_property_bindings=[
                        CsdlNavigationPropertyBinding(path="Category", target="Categories")],
                ),
                CsdlEntitySet(name="OrderLines", type=_fqn("OrderLine")),
                CsdlEntitySet(name="Customers", type=_fqn("Customer")),
            ],
            function_imports=[
                CsdlFunctionImport(name="ProductsByRating", function=_fqn("ProductsByRating"),
                                   entity_set="Products", include_in_service_document=True),
                CsdlFunctionImport(name="MostExpensive", function=_fqn("MostExpensive"),
                                   entity_set="Products"),
                CsdlFunctionImport(name="TotalStock", function=_fqn("TotalStock")),
            ],
            action_imports=[CsdlActionImport(name="Discount", action=_fqn("Discount"))],
        )
        del optimistic  # see README: odatapy declares ETags through CustomETagSupport
        return [CsdlSchema(namespace=NS, entity_types=[category, product, order_line, customer],
                           functions=functions, actions=actions, entity_container=container)]


class KeyedStore(InMemoryDataStore):
    """Harness workaround (speed only): odatapy's in-memory store finds whether a new
    entity's key is taken, and the next key of a set whose keys it generates, by reading the
    key of every entity of the set (``_check_duplicate``, ``_next_key``): each create cost
    time in proportion to the set, so uploading 10,000 creates took time in the square of
    that. This store keeps, per entity set, the keys it holds (a key tuple -> count) and the
    largest integer key, updated on every insert; a removal, a replaced set or a rolled-back
    changeset makes it read the set again, as odatapy did. The answers are the same.
    """

    def __init__(self, key_names: dict[str, tuple[str, ...]]) -> None:
        super().__init__()
        self._key_names = key_names
        self._keys: dict[str, dict[tuple, int]] = {}
        self._max_int: dict[str, int | None] = {}

    def _key(self, entity_set: str, entity: Entity) -> tuple:
        return tuple(entity.get_value(n) for n in self._key_names.get(entity_set, ()))

    def _index(self, entity_set: str) -> dict[tuple, int]:
        keys = self._keys.get(entity_set)
        if keys is None:
            keys = {}
            largest = None
            for e in self.data.get(entity_set, ()):
                k = self._key(entity_set, e)
                keys[k] = keys.get(k, 0) + 1
                if len(k) == 1 and isinstance(k[0], int) and not isinstance(k[0], bool):
                    largest = k[0] if largest is None else max(largest, k[0])
            self._keys[entity_set] = keys
            self._max_int[entity_set] = largest
        return keys

    def key_taken(self, entity_set: str, key: tuple) -> bool:
        with self._lock:
            return self._index(entity_set).get(key, 0) > 0

    def largest_int_key(self, entity_set: str) -> int | None:
        with self._lock:
            self._index(entity_set)
            return self._max_int.get(entity_set)

    def _forget(self, entity_set: str | None = None) -> None:
        if entity_set is None:
            self._keys.clear()
            self._max_int.clear()
        else:
            self._keys.pop(entity_set, None)
            self._max_int.pop(entity_set, None)

    def set_entities(self, entity_set, entities) -> None:
        with self._lock:
            super().set_entities(entity_set, entities)
            self._forget(entity_set)

    def insert_entity(self, entity_set, entity, index=None) -> None:
        with self._lock:
            super().insert_entity(entity_set, entity, index)
            keys = self._keys.get(entity_set)
            if keys is not None:
                k = self._key(entity_set, entity)
                keys[k] = keys.get(k, 0) + 1
                if len(k) == 1 and isinstance(k[0], int) and not isinstance(k[0], bool):
                    largest = self._max_int.get(entity_set)
                    self._max_int[entity_set] = k[0] if largest is None else max(largest, k[0])

    def remove_entity(self, entity_set, entity) -> bool:
        with self._lock:
            self._forget(entity_set)
            return super().remove_entity(entity_set, entity)

    def restore(self, snapshot) -> None:
        with self._lock:
            super().restore(snapshot)
            self._forget()


def _entity(entity_set: str, row: dict) -> Entity:
    entity = Entity()
    for name, value in row.items():
        entity.set_property(name, value, ValueType.PRIMITIVE, _TYPES[entity_set][name])
    return entity


class TestProcessor(InMemoryProcessor, ActionProcessor, CustomETagSupport):
    """odatapy's in-memory processor plus the action import and the ETag declaration."""

    def has_etag(self, entity_set_or_singleton) -> bool:
        return getattr(entity_set_or_singleton, "name", None) in ETAG_SETS

    def _page_offset(self, skiptoken, entities, entity_set) -> int:
        """Harness workaround: odatapy finds where a ``$skiptoken`` (``<offset>!<key>``) resumes
        by formatting the key of every entity from the first one on (about 50 us each), so
        each next page costs time in proportion to its offset: a 100,000-entity download
        spent minutes in it (bench/download). The entity the previous page ended on is
        almost always still at ``offset - 1``: check it first, and scan as odatapy does when
        it is not (an entity was inserted or deleted between pages). Same answer, exactly.
        """
        token = str(skiptoken) if skiptoken else ""
        fallback, _, key = token.partition("!")
        if key and entity_set is not None and fallback.isdigit():
            at = int(fallback) - 1
            if 0 <= at < len(entities) and self._key_of(entity_set, entities[at]) == key:
                return at + 1
        return super()._page_offset(skiptoken, entities, entity_set)

    def _next_key(self, entity_set):
        """The largest integer key + 1, from the store's key index (see KeyedStore)."""
        key_names = entity_set.entity_type.key_predicate_names
        largest = self.store.largest_int_key(entity_set.name)
        return key_names[0], (largest + 1 if largest is not None else 1)

    def _check_duplicate(self, entity_set, entity) -> None:
        """odatapy's check (409 for a key that is taken), through the store's key index."""
        key_names = entity_set.entity_type.key_predicate_names
        values = {name: entity.get_value(name) for name in key_names}
        if self.store.key_taken(entity_set.name, tuple(values[n] for n in key_names)):
            raise ODataApplicationException(
                f"An entity with key "
                f"({', '.join(f'{k}={v!r}' for k, v in values.items())}) "
                f"already exists in '{entity_set.name}'.",
                HttpStatusCode.CONFLICT,
                code="409",
            )

    def _sync_link(self, owner, nav, targets) -> None:
        """Harness workaround: odatapy relates two entities when one is created through a
        navigation (``POST Categories(1)/Products``) or bound to the other
        (``"Category@odata.bind": "Categories(1)"``, or ``"$1"`` inside a changeset), but
        leaves the dependent's foreign key as it was, although the referential constraint
        says it equals the principal's key (CSDL 4.01, 8.5: ``Product.CategoryID`` =
        ``Category.ID``). A service with a database sets it; so does this one, here, where
        odatapy records the relationship (before the answer is written). The offline store's
        upload relates entities created in one changeset this way.
        """
        super()._sync_link(owner, nav, targets)
        targets = list(targets or [])
        if not nav.is_collection:
            if targets:
                for rc in nav.referential_constraints:
                    self._set_key_copy(owner, rc.property, targets[0].get_value(rc.referenced_property))
            return
        partner = nav.partner_property
        for rc in (partner.referential_constraints if partner is not None else []):
            for target in targets:
                self._set_key_copy(target, rc.property, owner.get_value(rc.referenced_property))

    @staticmethod
    def _set_key_copy(entity, name: str, value) -> None:
        if value is None or entity.get_value(name) == value:
            return
        fqn = next((types[name] for types in _TYPES.values() if name in types), "Edm.Int32")
        entity.set_property(name, value, ValueType.PRIMITIVE, fqn)

    def process_action_primitive(self, request, response, uri_info, request_ct, response_ct) -> None:
        part = uri_info.last_resource
        if getattr(part, "name", "") != "Discount":
            raise ODataApplicationException("Unknown action.", HttpStatusCode.NOT_FOUND)
        edm = self.service_metadata.edm
        action = part.action
        params = ODataJsonDeserializer().action_parameters(edm, action, request.body)
        category_id = params["categoryID"].value
        percent = params["percent"].value
        if not 0 <= percent <= 100:
            raise ODataApplicationException("percent must be 0..100.", HttpStatusCode.BAD_REQUEST)
        products_set = edm.get_entity_set("Products")
        changed = 0
        with self.lock:
            for entity in self.store.entities("Products"):
                if entity.get_value("CategoryID") != category_id:
                    continue
                old = entity.get_value("Price")
                new = (old * (100 - percent) / 100).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
                entity.set_property("Price", new, ValueType.PRIMITIVE, "Edm.Decimal")
                self._bump_etag(products_set, entity)
                self.store.record_change("Products", entity, "changed")
                changed += 1
        body = self._serializer(response_ct, request).primitive(
            changed,
            PrimitiveSerializerOptions(context_url=self._context(request, "Edm.Int32"),
                                       type_fqn="Edm.Int32"),
            edm,
        )
        self._write(request, response, body, response_ct)


def _linear_exact_number_writer() -> None:
    """Harness workaround: odatapy writes each JSON response in time quadratic in its size
    when it holds Decimal or Int64 numbers (responses without ``IEEE754Compatible=true``).

    ``odatapy.edm.json_value.dumps`` puts a marker string in place of each exact number,
    runs ``json.dumps``, then calls ``str.replace`` on the whole text once per marker: a
    page of 10,000 products took 30 s instead of 3 (bench/download, python-odata's
    download). Here the markers are replaced in one pass, with the same result byte for
    byte. Only the serializer's reference to ``dumps`` is changed.
    """
    import json
    import re
    import uuid

    import odatapy.edm.json_value as json_value
    import odatapy.server.serializer.json_serializer as json_serializer

    def dumps(obj, *, exponential_decimals: bool = False, indent: int | None = None) -> str:
        tokens: dict[str, str] = {}
        prefix = f"__odatapy_num_{uuid.uuid4().hex}_"
        prepared = json_value._tokenize(obj, tokens, prefix, exponential_decimals)
        separators = (",", ":") if indent is None else None
        text = json.dumps(prepared, ensure_ascii=False, separators=separators, indent=indent)
        if not tokens:
            return text
        marker = re.compile('"(' + re.escape(prefix) + '[0-9]+__)"')
        return marker.sub(lambda m: tokens.get(m.group(1), m.group(0)), text)

    json_serializer._odata_dumps = dumps


def _lean_changesets() -> None:
    """Benchmarks only (``serve.py v4 --lean-changesets``): odatapy deep-copies its whole
    in-memory store at the start of every changeset, so that it can roll the changeset back;
    with 1,300 products that is about 0.3 s per changeset, and an upload that sends each
    change in a changeset of its own (bench/upload) spent minutes copying. Here a changeset
    of ONE request runs as that request runs outside a batch, without the copy (odatapy does
    not copy for a request of its own either); changesets of several requests keep it. What
    differs: a single request that fails after changing something is not undone, as it is
    not outside a batch. The tests run without this.
    """
    from odatapy.server import batch

    original = batch.BatchHandler._run_changeset

    def run_changeset(self, changeset):
        if len(changeset.items) != 1:
            return original(self, changeset)
        item = changeset.items[0]
        response = self.handler.process(item.request)
        if response.status_code >= 400:
            return [(item.content_id, self._changeset_error(item, response))], False
        return [(item.content_id, response)], True

    batch.BatchHandler._run_changeset = run_changeset


def build_app(page_size: int | None, sizes: seed.Sizes | None = None, lean_changesets: bool = False):
    """A WSGI app serving the test model at MOUNT, seeded from seed.py (``sizes``: the row
    counts, for benchmarks; default: the seed every test relies on)."""
    sizes = sizes or seed.Sizes()
    _linear_exact_number_writer()
    if lean_changesets:
        _lean_changesets()
    odata = OData.new_instance()
    handler = odata.create_handler(odata.create_service_metadata(Provider()))
    store = KeyedStore({"Categories": ("ID",), "Products": ("ID",), "OrderLines": ("OrderID", "LineNo"),
                        "Customers": ("CustomerID",)})

    categories = [_entity("Categories", row) for row in sizes.category_rows()]
    products = [_entity("Products", row) for row in sizes.product_rows()]
    # odatapy assigns an ETag lazily on the first single-entity read; set it up front so
    # collection responses carry @odata.etag from the start.
    for entity in categories + products:
        entity.etag = 'W/"1"'
    store.set_entities("Categories", categories)
    store.set_entities("Products", products)
    store.set_entities("OrderLines", [_entity("OrderLines", row) for row in sizes.order_line_rows()])
    store.set_entities("Customers", [_entity("Customers", row) for row in seed.customers()])
    # A POST without a key gets max(ID) + 1, as a server with generated keys does (the
    # offline store maps its local keys to the server's on upload).
    store.declare_key_auto_generating("Products", "Categories")
    # Relations are kept in odatapy's relation table (keyed by repr of the key value);
    # seed both directions so $expand works from either side.
    by_category: dict[int, list[Entity]] = {c.get_value("ID"): [] for c in categories}
    owners = {c.get_value("ID"): c for c in categories}
    for product in products:
        cid = product.get_value("CategoryID")
        by_category[cid].append(product)
        store.set_relation("Products", repr(product.get_value("ID")), "Category", [owners[cid]])
    for cid, members in by_category.items():
        store.set_relation("Categories", repr(cid), "Products", members)

    processor = TestProcessor(store, page_size=page_size)
    processor.register_function("ProductsByRating", _products_by_rating(store))
    processor.register_function("MostExpensive", _most_expensive(store))
    processor.register_function("TotalStock", _total_stock(store))
    handler.register(processor)
    return ODataWSGIApp(handler, mount_path=MOUNT)


def _products_by_rating(store: InMemoryDataStore):
    def run(target, part):  # noqa: ARG001 - odatapy's function signature
        rating = part.typed_parameters.get("rating")
        return [e for e in store.entities("Products") if e.get_value("Rating") == rating]
    return run


def _most_expensive(store: InMemoryDataStore):
    def run(target, part):  # noqa: ARG001
        items = store.entities("Products")
        return max(items, key=lambda e: (e.get_value("Price"), -e.get_value("ID"))) if items else None
    return run


def _total_stock(store: InMemoryDataStore):
    def run(target, part):  # noqa: ARG001
        return sum(e.get_value("Stock") for e in store.entities("Products"))
    return run
