"""A second OData V4 test service (odatapy) with data chosen to trip up a query evaluator:
the offline store's differential tests answer generated queries locally and compare the
answers with this service's.

Model (namespace ``ODataStoreTricky``, container ``Container``):

* ``Groups``: ``ID`` Int32 key, ``Title`` String; navigation ``Items`` (collection).
* ``Items``: ``ID`` Int32 key, ``Name`` String, ``Code`` String, ``Note`` String null,
  ``Amount`` Decimal(12,2), ``Big`` Int64, ``Ratio`` Double, ``When`` DateTimeOffset null,
  ``Day`` Date null, ``Flag`` Boolean, ``Count`` Int32 null, ``GroupID`` Int32 null;
  navigation ``Group`` (referential constraint GroupID -> Groups.ID).
* ``Bags``: ``ID`` Int32 key, collections of primitive values ``Tags`` (String, some with null
  items), ``Nums`` (Int32), ``Bigs`` (Int64), ``Amounts`` (Decimal, variable scale),
  ``Ratios`` (Double), ``Whens`` (DateTimeOffset), ``ParentID`` Int32 null; navigation
  ``Parent`` (to-one, ParentID -> Bags.ID), for the 4.01 collection functions (``hassubset``,
  ``hassubsequence``, the collection overloads of ``contains`` ... ``concat``).

Values (deterministic, `item(i)` for i = 1..ITEM_COUNT): apostrophes, non-ASCII (including a
character outside the BMP), empty strings, nulls, names that differ only in case, negative and
-0.01 decimals, Int64 values beyond 2^53 and at the limits, date-times at different offsets
(some the same instant), items without a group and groups without items. Bags (`bag(i)`, i =
1..BAG_COUNT): empty collections, duplicates, the examples of the specification (`[4,1,3]`,
`[4,1,3,1]`, `[1,2]`), decimals equal in value but not in scale (1.0, 1.00, 1), strings equal
only after Unicode normalization (é and e + U+0301, which OData's `eq` tells apart), Int64
values one apart beyond 2^53, the same instant at different offsets, bags without a parent.

odatapy 5.3.0 evaluates `contains`, `startswith`, `endswith`, `indexof` and `substring` on the
text of Python's `str()` of a collection, refuses them (and `concat`, `length`) for
collections of anything but strings, and types `concat`/`substring` of collections as
strings; OData 4.01 (Part 2, 5.1.1.5) defines them on collections. `_collection_overloads`
(a harness workaround) evaluates those overloads as the specification says, with odatapy's
own item equality (`_equals`, the one its `hassubset` and `in` use); the string forms stay
odatapy's.
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
BAG_COUNT = 40

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


TAG_POOL = ["a", "b", "A", "", "日本", "😀", "ß", "Straße", "o'neil", "\u00e9", "e\u0301", "a b"]
NUM_POOL = [4, 1, 3, 1, 2, 0, -1, 3, 7]
BIG_POOL = [9007199254740993, 9007199254740992, -1, 0, 9223372036854775807, -9223372036854775808, 42]
AMOUNT_POOL = ["1.0", "1.00", "1", "-0.01", "0.10", "0.1", "12.30", "0", "-0"]
RATIO_POOL = [0.1, 1e10, -2.5, 0.0, 3.14159, 2.0, 1.0, -0.0]
WHEN_POOL = [dt.datetime(2024, 3, 10, 12, 0, tzinfo=dt.timezone.utc),
             dt.datetime(2024, 3, 10, 14, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),   # the same instant
             dt.datetime(2024, 3, 10, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
             dt.datetime(2020, 2, 29, 0, 0, tzinfo=dt.timezone.utc),
             dt.datetime(2024, 3, 10, 17, 30, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30)))]  # again 12:00Z
#: Bags whose collections are fixed (the specification's examples, empty ones, duplicates).
FIXED_BAGS = {
    1: {"Tags": ["a", "b", "a"], "Nums": [4, 1, 3], "Amounts": ["1.0", "2"], "Ratios": [0.1, 2.0]},
    2: {"Tags": [], "Nums": [4, 1, 3, 1], "Amounts": ["1.00"], "Ratios": []},
    3: {"Tags": ["日本", "😀"], "Nums": [1, 2], "Amounts": [], "Bigs": [9007199254740993]},
    4: {"Tags": ["a", None, "b"], "Nums": [], "Amounts": ["1", "1.0"], "Bigs": [9007199254740992]},
    5: {"Tags": ["a"], "Nums": [1, 1, 2], "Amounts": ["0.10", "-0.01", "12.30"], "Bigs": []},
}


def _pick(pool: list, i: int, salt: int, n: int) -> list:
    return [pool[(i * (5 + salt) + k * (3 + salt) + k * k) % len(pool)] for k in range(n)]


def bag(i: int) -> dict:
    row = {
        "ID": i,
        "Tags": _pick(TAG_POOL, i, 0, (i * 5 + 1) % 6),
        "Nums": _pick(NUM_POOL, i, 1, (i * 3 + 2) % 6),
        "Bigs": _pick(BIG_POOL, i, 2, i % 4),
        "Amounts": _pick(AMOUNT_POOL, i, 3, (i * 7) % 5),
        "Ratios": _pick(RATIO_POOL, i, 4, (i + 2) % 4),
        "Whens": _pick(WHEN_POOL, i, 5, (i * 2) % 4),
        "ParentID": None if i % 4 == 0 else (i * 7) % BAG_COUNT + 1,
    }
    if i % 9 == 7:
        row["Tags"] = row["Tags"] + [None]
    row.update(FIXED_BAGS.get(i, {}))
    row["Amounts"] = [Decimal(a) for a in row["Amounts"]]
    return row


_TYPES = {
    "Groups": {"ID": "Edm.Int32", "Title": "Edm.String"},
    "Items": {"ID": "Edm.Int32", "Name": "Edm.String", "Code": "Edm.String", "Note": "Edm.String",
              "Amount": "Edm.Decimal", "Big": "Edm.Int64", "Ratio": "Edm.Double", "When": "Edm.DateTimeOffset",
              "Day": "Edm.Date", "Flag": "Edm.Boolean", "Count": "Edm.Int32", "GroupID": "Edm.Int32"},
    "Bags": {"ID": "Edm.Int32", "Tags": "Edm.String", "Nums": "Edm.Int32", "Bigs": "Edm.Int64", "Amounts": "Edm.Decimal",
             "Ratios": "Edm.Double", "Whens": "Edm.DateTimeOffset", "ParentID": "Edm.Int32"},
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
        bag_type = CsdlEntityType(
            name="Bag", key=[CsdlPropertyRef(name="ID")],
            properties=[
                CsdlProperty(name="ID", type="Edm.Int32", nullable=False),
                CsdlProperty(name="Tags", type="Edm.String", collection=True),
                CsdlProperty(name="Nums", type="Edm.Int32", collection=True, nullable=False),
                CsdlProperty(name="Bigs", type="Edm.Int64", collection=True, nullable=False),
                CsdlProperty(name="Amounts", type="Edm.Decimal", collection=True, nullable=False, scale="variable"),
                CsdlProperty(name="Ratios", type="Edm.Double", collection=True, nullable=False),
                CsdlProperty(name="Whens", type="Edm.DateTimeOffset", collection=True, nullable=False),
                CsdlProperty(name="ParentID", type="Edm.Int32"),
            ],
            navigation_properties=[CsdlNavigationProperty(
                name="Parent", type=_fqn("Bag"),
                referential_constraints=[CsdlReferentialConstraint(property="ParentID", referenced_property="ID")])],
        )
        container = CsdlEntityContainer(name="Container", entity_sets=[
            CsdlEntitySet(name="Groups", type=_fqn("Group"),
                          navigation_property_bindings=[CsdlNavigationPropertyBinding(path="Items", target="Items")]),
            CsdlEntitySet(name="Items", type=_fqn("Item"),
                          navigation_property_bindings=[CsdlNavigationPropertyBinding(path="Group", target="Groups")]),
            CsdlEntitySet(name="Bags", type=_fqn("Bag"),
                          navigation_property_bindings=[CsdlNavigationPropertyBinding(path="Parent", target="Bags")]),
        ])
        return [CsdlSchema(namespace=NS, entity_types=[grp, itm, bag_type], entity_container=container)]


def _collection_overloads() -> None:
    """Harness workaround (odatapy 5.3.0 departs from OData 4.01 here): the collection
    overloads of `contains`, `startswith`, `endswith`, `indexof`, `substring`, `concat` and
    `length` (Part 2, 5.1.1.5.1 to 5.1.1.5.7).

    odatapy type-checks these functions as string functions (a collection of numbers is a
    400, and `concat`/`substring` of collections are typed Edm.String, so `hassubset` refuses
    their result) and evaluates `contains`/`startswith`/`endswith`/`indexof`/`substring` on
    `str()` of the Python list (`contains(Tags,['a'])` looks for the text "['a']"). With a
    collection argument they are evaluated here as the specification says, elements compared
    with odatapy's own `_equals` (the `eq` its `hassubset`, `hassubsequence` and `in` use);
    string arguments keep odatapy's code. Applied once, before the first request is parsed.
    """
    from odatapy.server import eval as ev
    from odatapy.server.uri import expression_parser as ep
    from odatapy.server.uri.expression import MethodKind as M

    if getattr(ep.ExpressionParser, "_ods_collection_overloads", False):
        return
    ep.ExpressionParser._ods_collection_overloads = True
    overloaded = {M.CONTAINS, M.STARTSWITH, M.ENDSWITH, M.INDEXOF, M.SUBSTRING, M.CONCAT, M.LENGTH}

    check = ep.ExpressionParser._check_method_arguments

    def check_method_arguments(self, method, params, tok):
        if method in overloaded and any(p.is_collection for p in params):
            if method is M.SUBSTRING:
                for p in params[1:]:
                    if p.type_fqn not in (None, ep._NULL) and p.type_fqn not in ep._INTEGER_TYPES:
                        raise ep.UriParserException(f"Method substring expects integer argument(s), got {p.type_fqn}.")
            return
        check(self, method, params, tok)

    parse_method = ep.ExpressionParser._parse_method

    def parse(self, method, tok):
        node = parse_method(self, method, tok)
        if method in (M.SUBSTRING, M.CONCAT) and any(p.is_collection for p in node.parameters):
            node.is_collection = True
            node.type_fqn = next((p.type_fqn for p in node.parameters if p.is_collection and p.type_fqn not in (None, ep._NULL)), None)
        return node

    ep.ExpressionParser._check_method_arguments = check_method_arguments
    ep.ExpressionParser._parse_method = parse

    def is_list(value):
        return isinstance(value, (list, tuple))

    def index_of(items, part):
        items, part = list(items), list(part)
        for i in range(len(items) - len(part) + 1):
            if all(ev._equals(items[i + k], part[k]) for k in range(len(part))):
                return i
        return -1

    def starts(items, part):
        return len(part) <= len(items) and index_of(items[:len(part)], part) == 0

    def ends(items, part):
        return len(part) <= len(items) and index_of(items[len(items) - len(part):], part) == 0

    def substring(p):
        items = list(ev._as_sequence(p[0]))
        start = int(p[1])
        if start < 0:
            start = max(0, len(items) + start)
        if len(p) == 2:
            return items[start:]
        if int(p[2]) < 0:
            raise ev.ODataApplicationException("substring with a negative length", ev.HttpStatusCode.BAD_REQUEST)
        return items[start:start + int(p[2])]

    collection_forms = {
        M.CONTAINS: lambda p: index_of(p[0], p[1]) >= 0,
        M.STARTSWITH: lambda p: starts(list(p[0]), list(p[1])),
        M.ENDSWITH: lambda p: ends(list(p[0]), list(p[1])),
        M.INDEXOF: lambda p: index_of(p[0], p[1]),
        M.SUBSTRING: substring,
    }
    for kind, form in collection_forms.items():
        original = ev._METHODS[kind]
        ev._METHODS[kind] = (lambda form, original: lambda p: form(p) if is_list(p[0]) or is_list(p[1]) else original(p))(form, original)


def _entity(entity_set: str, row: dict) -> Entity:
    entity = Entity()
    for name, value in row.items():
        kind = ValueType.COLLECTION_PRIMITIVE if isinstance(value, list) else ValueType.PRIMITIVE
        entity.set_property(name, value, kind, _TYPES[entity_set][name])
    return entity


def build_app(page_size: int | None):
    _collection_overloads()
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
    bags = [_entity("Bags", bag(i)) for i in range(1, BAG_COUNT + 1)]
    store.set_entities("Bags", bags)
    for b in bags:
        parent = b.get_value("ParentID")
        if parent is not None:
            store.set_relation("Bags", repr(b.get_value("ID")), "Parent", [bags[parent - 1]])
    handler.register(InMemoryProcessor(store, page_size=page_size))
    return ODataWSGIApp(handler, mount_path=MOUNT)
