"""A second OData V4 test service (odatapy) with data chosen to trip up a query evaluator:
the offline store's differential tests answer generated queries locally and compare the
answers with this service's.

Model (namespace ``ODataStoreTricky``, container ``Container``):

* ``Groups``: ``ID`` Int32 key, ``Title`` String; navigation ``Items`` (collection).
* ``Items``: ``ID`` Int32 key, ``Name`` String, ``Code`` String, ``Note`` String null,
  ``Amount`` Decimal(12,2), ``Big`` Int64, ``Ratio`` Double, ``When`` DateTimeOffset null,
  ``Day`` Date null, ``Flag`` Boolean, ``Count`` Int32 null, ``GroupID`` Int32 null;
  navigation ``Group`` (referential constraint GroupID -> Groups.ID).

Values (deterministic, `item(i)` for i = 1..ITEM_COUNT): apostrophes, non-ASCII (including a
character outside the BMP), empty strings, nulls, names that differ only in case, negative and
-0.01 decimals, Int64 values beyond 2^53 and at the limits, date-times at different offsets
(some the same instant), items without a group and groups without items.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from odatapy.data import Entity, ValueType
from odatapy.edm.csdl import (
    CsdlAbstractEdmProvider,
    CsdlEntityContainer,
    CsdlEntitySet,
    CsdlEntityType,
    CsdlNavigationProperty,
    CsdlNavigationPropertyBinding,
    CsdlProperty,
    CsdlPropertyRef,
    CsdlReferentialConstraint,
    CsdlSchema,
)
from odatapy.server import OData
from odatapy.server.adapters import ODataWSGIApp
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor

NS = "ODataStoreTricky"
MOUNT = "/tricky"
GROUP_COUNT = 12          # groups 11 and 12 have no items
ITEM_COUNT = 240

NAMES = ["O'Neil", "o'neil", "ZOË", "zoë", "Größe", "GRÖSSE", "日本", "", "  padded  ", "a%b_c",
         "Ünïcödé", "😀 smile", "ABC", "abc", "Abc", "x'y''z", "Straße", "İstanbul", "ǅemal", "naïve café"]
CODES = ["alpha", "Alpha", "ALPHA", "beta", "Beta", "gamma", "", "delta-1", "delta_2", "Ω"]
AMOUNTS = ["-0.01", "0.00", "0.01", "-1000.50", "999.99", "12.30", "12.31", "-12.30", "100.00", "0.10",
           "5.55", "-5.55", "1234567890.12", "-0.10", "7.00"]
BIGS = [9007199254740993, 9007199254740992, -9007199254740993, 0, 1, -1, 9223372036854775807,
        -9223372036854775808, 123456789012345678, 42]
RATIOS = [0.1, -2.5, 1e10, 3.14159, 0.0, 2.0, -0.001, 100.25]
OFFSETS = [dt.timezone.utc, dt.timezone(dt.timedelta(hours=2)), dt.timezone(dt.timedelta(hours=-5)),
           dt.timezone(dt.timedelta(hours=5, minutes=30))]


def group(i: int) -> dict:
    return {"ID": i, "Title": ["Alpha team", "beta Team", "GAMMA", "Δelta", "O'Brien & Co", "", "zeta",
                               "Eta", "theta", "Iota", "kappa (empty)", "Lambda (empty)"][i - 1]}


def item(i: int) -> dict:
    base = dt.datetime(2024, 3, 10, 12, 0, 0, tzinfo=dt.timezone.utc) + dt.timedelta(hours=7 * (i % 17) - 40)
    when = None if i % 13 == 0 else base.astimezone(OFFSETS[i % len(OFFSETS)])
    return {
        "ID": i,
        "Name": NAMES[i % len(NAMES)],
        "Code": CODES[(i * 7) % len(CODES)],
        "Note": None if i % 6 == 0 else ("" if i % 6 == 1 else f"note {i % 9} {NAMES[(i * 3) % len(NAMES)]}"),
        "Amount": Decimal(AMOUNTS[(i * 5) % len(AMOUNTS)]),
        "Big": BIGS[(i * 3) % len(BIGS)],
        "Ratio": RATIOS[i % len(RATIOS)],
        "When": when,
        "Day": None if i % 11 == 0 else dt.date(2020, 2, 27) + dt.timedelta(days=(i * 37) % 800),
        "Flag": i % 3 == 0,
        "Count": None if i % 10 == 0 else (i % 23) - 7,
        "GroupID": None if i % 19 == 0 else (i % 10) + 1,
    }


_TYPES = {
    "Groups": {"ID": "Edm.Int32", "Title": "Edm.String"},
    "Items": {"ID": "Edm.Int32", "Name": "Edm.String", "Code": "Edm.String", "Note": "Edm.String",
              "Amount": "Edm.Decimal", "Big": "Edm.Int64", "Ratio": "Edm.Double", "When": "Edm.DateTimeOffset",
              "Day": "Edm.Date", "Flag": "Edm.Boolean", "Count": "Edm.Int32", "GroupID": "Edm.Int32"},
}


def _fqn(name: str) -> str:
    return f"{NS}.{name}"


class Provider(CsdlAbstractEdmProvider):
    def get_schemas(self):
        grp = CsdlEntityType(
            name="Group", key=[CsdlPropertyRef(name="ID")],
            properties=[CsdlProperty(name="ID", type="Edm.Int32", nullable=False),
                        CsdlProperty(name="Title", type="Edm.String", nullable=False)],
            navigation_properties=[CsdlNavigationProperty(name="Items", type=_fqn("Item"), collection=True,
                                                          partner="Group")],
        )
        itm = CsdlEntityType(
            name="Item", key=[CsdlPropertyRef(name="ID")],
            properties=[
                CsdlProperty(name="ID", type="Edm.Int32", nullable=False),
                CsdlProperty(name="Name", type="Edm.String", nullable=False),
                CsdlProperty(name="Code", type="Edm.String", nullable=False),
                CsdlProperty(name="Note", type="Edm.String"),
                CsdlProperty(name="Amount", type="Edm.Decimal", nullable=False, precision=12, scale=2),
                CsdlProperty(name="Big", type="Edm.Int64", nullable=False),
                CsdlProperty(name="Ratio", type="Edm.Double", nullable=False),
                CsdlProperty(name="When", type="Edm.DateTimeOffset", precision=0),
                CsdlProperty(name="Day", type="Edm.Date"),
                CsdlProperty(name="Flag", type="Edm.Boolean", nullable=False),
                CsdlProperty(name="Count", type="Edm.Int32"),
                CsdlProperty(name="GroupID", type="Edm.Int32"),
            ],
            navigation_properties=[CsdlNavigationProperty(
                name="Group", type=_fqn("Group"), partner="Items",
                referential_constraints=[CsdlReferentialConstraint(property="GroupID", referenced_property="ID")])],
        )
        container = CsdlEntityContainer(name="Container", entity_sets=[
            CsdlEntitySet(name="Groups", type=_fqn("Group"),
                          navigation_property_bindings=[CsdlNavigationPropertyBinding(path="Items", target="Items")]),
            CsdlEntitySet(name="Items", type=_fqn("Item"),
                          navigation_property_bindings=[CsdlNavigationPropertyBinding(path="Group", target="Groups")]),
        ])
        return [CsdlSchema(namespace=NS, entity_types=[grp, itm], entity_container=container)]


def _entity(entity_set: str, row: dict) -> Entity:
    entity = Entity()
    for name, value in row.items():
        entity.set_property(name, value, ValueType.PRIMITIVE, _TYPES[entity_set][name])
    return entity


def build_app(page_size: int | None):
    odata = OData.new_instance()
    handler = odata.create_handler(odata.create_service_metadata(Provider()))
    store = InMemoryDataStore()
    groups = [_entity("Groups", group(i)) for i in range(1, GROUP_COUNT + 1)]
    items = [_entity("Items", item(i)) for i in range(1, ITEM_COUNT + 1)]
    store.set_entities("Groups", groups)
    store.set_entities("Items", items)
    by_group: dict[int, list[Entity]] = {g.get_value("ID"): [] for g in groups}
    for it in items:
        gid = it.get_value("GroupID")
        if gid is None:
            continue
        by_group[gid].append(it)
        owner = next(g for g in groups if g.get_value("ID") == gid)
        store.set_relation("Items", repr(it.get_value("ID")), "Group", [owner])
    for gid, members in by_group.items():
        store.set_relation("Groups", repr(gid), "Items", members)
    handler.register(InMemoryProcessor(store, page_size=page_size))
    return ODataWSGIApp(handler, mount_path=MOUNT)
