"""odatastore binding: reads against the real V4 (odatapy) and V2 (pyslet) servers, values
typed from the service's model and compared with the seed formulas (Tests/servers/seed.py);
and the shapes of canonical payloads (an entity, a collection, a property's value) told apart."""
import datetime
import decimal
import json
import uuid

import pytest

import odatastore
import seed


def expected_product(i, version):
    p = seed.product(i)
    if version == 2:  # V2 model: ReleaseDate is an Edm.DateTime (UTC), no LastModified/CategoryID, a Version
        p["ReleaseDate"] = datetime.datetime.combine(p["ReleaseDate"], datetime.time(), datetime.timezone.utc)
        del p["LastModified"], p["CategoryID"]
        p["Version"] = 1
    return p


@pytest.fixture(scope="module", params=["v4", "v2"])
def store(request):
    server = request.getfixturevalue(f"{request.param}_server")
    with odatastore.Store(server.url) as s:
        s.wait_open(30)
        yield s


def test_one_entity_is_typed_like_the_seed(store):
    version = store.odata_version
    for i in (1, 3, 50, 77, 300):  # 50: Int64 above 2**53; 3: non-ASCII text; 77: null Description
        one = store.read(f"Products({i})")
        assert isinstance(one, odatastore.Entity)
        assert dict(one) == expected_product(i, version)
        assert one.etag == 'W/"1"'
    one = store.read("Products(50)")
    assert type(one["Stock"]) is int and one["Stock"] == seed.BIG_INT64_BASE + 50
    assert type(one["Price"]) is decimal.Decimal and str(one["Price"]) == "868.50"
    assert isinstance(one["UUID"], uuid.UUID)
    release = one["ReleaseDate"]
    if version == 4:
        assert type(release) is datetime.date
        assert one["LastModified"].tzinfo is not None and one["LastModified"].utcoffset() == datetime.timedelta(0)
    else:
        assert type(release) is datetime.datetime and release.tzinfo is not None


def test_collection_is_an_entity_list_with_count(store):
    count_option = "$count=true" if store.odata_version == 4 else "$inlinecount=allpages"
    rows = store.read(f"Products?$filter=ID le 20 and Discontinued eq true&$orderby=ID&{count_option}")
    assert isinstance(rows, odatastore.EntityList)
    assert [r["ID"] for r in rows] == [5, 10, 15, 20]
    assert rows.total_count == 4
    assert all(isinstance(r, odatastore.Entity) for r in rows)
    assert [dict(r) for r in rows] == [expected_product(i, store.odata_version) for i in (5, 10, 15, 20)]
    assert rows.count(rows[0]) == 1  # still a list


def test_string_keys_that_need_escaping(store):
    # pyslet unescapes non-ASCII and % keys twice (Tests/servers/README.md): read those by $filter there
    keys = ["O'NEIL", "A&B", "SP ACE", "PLUS+1", "HASH#1", "Q?X"]
    if store.odata_version == 4:
        keys += ["ZOË", "PCT%20", "日本"]
    import urllib.parse
    for key in keys:
        literal = urllib.parse.quote(key.replace("'", "''"), safe="")
        one = store.read(f"Customers('{literal}')")
        assert one["CustomerID"] == key and one == seed.customer(seed.CUSTOMER_IDS.index(key))


def test_count_and_values(store):
    assert store.read("Products/$count") == 300
    assert store.read("Products(7)/Name") == "Product 007"
    assert store.read("Products?$filter=ID eq 9999") == []


def test_single_properties_are_typed_like_the_entitys(store):
    # A property read ({"value": v}) gets the property's Edm type, as the entity's properties do.
    for i in (50, 77, 3):
        whole = store.read(f"Products({i})")
        for name, value in whole.items():
            one = store.read(f"Products({i})/{name}")
            assert one == value and type(one) is type(value), (i, name, one)
    assert type(store.read("Products(50)/Stock")) is int
    assert type(store.read("Products(50)/Price")) is decimal.Decimal
    assert isinstance(store.read("Products(50)/UUID"), uuid.UUID)
    assert store.read("Products(12)/Category/Name") == "Condiments"  # through a to-one navigation
    line = store.read("OrderLines(OrderID=1000,LineNo=2)/UnitPrice")
    assert type(line) is decimal.Decimal and line == seed.order_line(1)["UnitPrice"]
    # $value stays the text the library gives (docs/json-shape.md: an integer as a number)
    assert store.read("Products(7)/Name/$value") == "Product 007"



def test_metadata_document(store):
    """READ $metadata gives the service's CSDL document (XML, asked with Accept:
    application/xml: the OData JSON Accept of other reads got 406) as bytes."""
    import xml.etree.ElementTree as ET
    doc = store.read("$metadata")
    assert type(doc) is bytes
    root = ET.fromstring(doc)
    assert root.tag.endswith("}Edmx") and root.get("Version") == ("4.0" if store.odata_version == 4 else "1.0")
    assert b'Name="Products"' in doc
    req = store.request("READ", "$metadata")
    assert req.result(30) == doc and req.response.status == 200 and req.response.json_text == ""
    assert "xml" in (req.response.header("Content-Type") or "") and not req.response.is_local



def test_model(store):
    """store.model: ods_store_model_json's summary of $metadata as a new dict each time."""
    model = store.model
    assert model["odataVersion"] == ("4.0" if store.odata_version == 4 else "2.0")
    sets = {s["name"]: s for s in model["entitySets"]}
    products = sets["Products"]
    assert products["kind"] == "entitySet" and products["key"] == ["ID"]
    types = {p["name"]: p["type"] for p in products["properties"]}
    assert types["Price"] == "Edm.Decimal" and types["Stock"] == "Edm.Int64" and types["UUID"] == "Edm.Guid"
    assert any(n["name"] == "Category" and n["collection"] is False for n in products["navigation"])
    assert "ProductsByRating" in {o["name"] for o in model["operations"]}
    model["entitySets"].clear()
    assert store.model["entitySets"]  # a new dict: the caller's changes stay the caller's
    with odatastore.Store("http://127.0.0.1:1/odata/", connect_timeout=5) as unreachable:
        with pytest.raises(odatastore.StateError):
            unreachable.model


def test_function_import(store):
    path = "ProductsByRating(rating=4)" if store.odata_version == 4 else "ProductsByRating?rating=4"
    rows = store.call(path)
    assert rows and all(r["Rating"] == 4 for r in rows)
    assert {r["ID"] for r in rows} == {i for i in range(1, 301) if i % 11 and i % 5 + 1 == 4}
    assert all(type(r["Price"]) is decimal.Decimal for r in rows)
    # A primitive result is not typed: the C API gives no way to learn a function's return
    # type (docs/python.md), so Edm.Int64 stays the canonical exact string.
    total = store.call("TotalStock()" if store.odata_version == 4 else "TotalStock")
    assert int(total) == sum(seed.product(i)["Stock"] for i in range(1, 301))


def test_expand_types_nested_entities(store):
    if store.odata_version == 4:
        cat = store.read("Categories(2)?$expand=Products($orderby=ID)")
        assert cat["Name"] == "Condiments"
        assert [dict(p) for p in cat["Products"]] == [expected_product(i, 4) for i in range(2, 301, 10)]
        assert all(p.etag == 'W/"1"' for p in cat["Products"])
    else:  # V2: to-many expansion of one entity is typed through the navigation's own path
        cat = store.read("Categories(2)?$expand=Products")
        assert sorted(p["ID"] for p in cat["Products"]) == list(range(2, 301, 10))
        assert all(type(p["Price"]) is decimal.Decimal for p in cat["Products"])
    one = store.read("Products(12)?$expand=Category")
    assert one["Category"]["Name"] == "Condiments"
    assert dict(one)["ID"] == 12 and type(one["Price"]) is decimal.Decimal
    # A to-many expansion inside a collection is typed as in one entity's (V2: by the
    # declared types of the navigation's target, store.model; V4: $expand=N($orderby=P))
    rows = store.read("Categories?$expand=Products&$top=3&$orderby=ID")
    single = store.read("Categories(2)?$expand=Products")
    assert [c["ID"] for c in rows] == [1, 2, 3]
    by_id = {p["ID"]: p for p in rows[1]["Products"]}
    for p in single["Products"]:
        got = by_id[p["ID"]]
        assert {k: (v, type(v)) for k, v in got.items()} == {k: (v, type(v)) for k, v in p.items()}, p["ID"]
    nested = rows[0]["Products"][0]
    assert type(nested["Price"]) is decimal.Decimal and type(nested["Stock"]) is int
    assert isinstance(nested["UUID"], uuid.UUID)


def test_select_types_what_is_there(store):
    rows = store.read("OrderLines?$filter=OrderID eq 1000&$select=LineNo,UnitPrice&$orderby=LineNo")
    assert [r["LineNo"] for r in rows] == [1, 2, 3, 4]
    assert [r["UnitPrice"] for r in rows] == [seed.order_line(n)["UnitPrice"] for n in range(4)]


def test_untyped_store_gives_the_canonical_json_values(store, request):
    server = request.getfixturevalue(f"v{store.odata_version}_server")
    with odatastore.Store(server.url, typed=False) as raw:
        one = raw.read("Products(50)")
    assert one["Stock"] == "9007199254741043" and one["Price"] == "868.50"


def test_paging_next_links_pages_and_all_pages(request):
    # Both servers page with --page-size: V4 nextLink, V2 pyslet's "__next": {"uri"} (a string here)
    from conftest import Server, ROOT
    for kind in ("v4", "v2"):
        server = Server([str(ROOT / "Tests/servers/serve.py"), kind, "--page-size", "40"])
        try:
            with odatastore.Store(server.url) as store:
                first = store.read("Products?$orderby=ID")
                assert len(first) == 40 and first.next_link
                second = store.read(first.next_link)
                assert [r["ID"] for r in second] == list(range(41, 81))
                assert type(second[0]["Price"]) is decimal.Decimal
                pages = list(store.pages("Products?$orderby=ID"))
                assert [len(p) for p in pages] == [40] * 7 + [20]
                assert pages[-1].next_link is None
                every = store.read("Products?$orderby=ID", all_pages=True)
                assert [r["ID"] for r in every] == list(range(1, 301)) and every.next_link is None
                assert dict(every[49]) == expected_product(50, store.odata_version)
        finally:
            server.stop()


def test_request_object_gives_the_response(store):
    req = store.request("READ", "Products(5)", headers={"X-Test": "1"}, timeout=20, context={"screen": 1})
    assert req.state == odatastore.RequestState.NEW and req.id > 0
    assert req.context == {"screen": 1} and req.mode == odatastore.Mode.READ and req.path == "Products(5)"
    req.start()
    one = req.result(timeout=30)
    assert one["ID"] == 5 and req.state == odatastore.RequestState.FINISHED and req.done
    resp = req.response
    assert resp.status == 200 and resp.etag == 'W/"1"'
    assert resp.header("content-type").startswith("application/json")
    assert any(n.lower() == "content-type" for n, _ in resp.headers)
    assert resp.json()["ID"] == 5 and resp.body and resp.entity_count == 1
    assert resp.data is one


def test_check_url(store):
    checked = store.check_url("Products?$filter=Price gt 10")
    assert checked["checked"] is True and checked["path"][0]["kind"] == "entitySet"
    with pytest.raises(odatastore.ODataSyntaxError) as e:
        store.check_url("Products?$filter=Price gt 'x'")
    assert e.value.position is not None and e.value.position > 0 and isinstance(e.value, ValueError)
    plain = odatastore.check_url("Products(1)/Name", odata_version=4)
    assert plain["checked"] is False and plain["path"][0]["name"] == "Products"
    with pytest.raises(odatastore.ODataSyntaxError):
        odatastore.check_url("Products?$filter=(", odata_version=4)


def test_version_and_library():
    assert odatastore.version() == "0.2.0" and odatastore.version_number() == 2000
    assert odatastore.library_path()
    assert odatastore.strerror(odatastore.ENOTFOUND)


@pytest.mark.parametrize("text,entity_count,want", [
    # an entity with a collection property named "value" (with and without an ETag, one item or
    # more): an Entity, never a collection of its property's items
    ('{"@odata.etag":"W/\\"1\\"","ID":1,"value":[{"a":1},{"a":2}]}', 1, "entity"),
    ('{"@odata.etag":"W/\\"1\\"","ID":1,"value":[{"a":1}]}', 1, "entity"),
    ('{"ID":1,"value":[{"a":1}]}', 1, "entity"),
    ('{"ID":1,"value":[{"a":1},{"a":2}]}', 1, "entity"),
    ('{"ID":1,"value":[1,2]}', 1, "entity"),
    ('{"ID":1,"value":"text"}', 1, "entity"),
    # collections: "value" and annotations only
    ('{"value":[{"ID":1}]}', 1, "list"),
    ('{"value":[{"ID":1},{"ID":2}],"@odata.nextLink":"Products?$skiptoken=2"}', 2, "list"),
    ('{"@odata.count":5,"value":[{"ID":1}]}', 1, "list"),
    ('{"value":[]}', 0, "list"),
    # one entity whose only property is a "value" list ($select=value): entity_count says so
    ('{"value":[{"a":1},{"a":2}]}', 1, "entity"),
    # a property's value
    ('{"value":"text"}', 0, "value"),
])
def test_payload_shapes(text, entity_count, want):
    resp = odatastore.Response(200, [], text, text.encode(), None, None, None, entity_count)
    data = resp.data
    if want == "entity":
        assert type(data) is odatastore.Entity and "value" in data
    elif want == "list":
        assert type(data) is odatastore.EntityList and all(type(e) is odatastore.Entity for e in data)
        assert [dict(e) for e in data] == json.loads(text)["value"]
    else:
        assert data == "text"
