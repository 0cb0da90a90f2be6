"""odatastore binding: create, update (merge and replace), delete against the real servers,
with ETags (If-Match) and typed values going out as the canonical JSON shape."""
import datetime
import decimal
import uuid

import pytest

import odatastore


@pytest.fixture(params=["v4", "v2"])
def store(request):
    # a fresh server per test module holds writes (conftest); one store per test
    server = request.getfixturevalue(f"{request.param}_server")
    with odatastore.Store(server.url) as s:
        s.wait_open(30)  # odata_version is 0 until $metadata is loaded
        yield s


def test_customer_create_update_delete(store):
    key = f"PY{store.odata_version}"
    new = store.create("Customers", {"CustomerID": key, "CompanyName": "Ada Ltd", "City": "Zürich"})
    assert new == {"CustomerID": key, "CompanyName": "Ada Ltd", "City": "Zürich"}
    assert store.update(f"Customers('{key}')", {"City": "Bern"}) is None  # merge: 204
    assert store.read(f"Customers('{key}')") == {"CustomerID": key, "CompanyName": "Ada Ltd", "City": "Bern"}
    store.update(f"Customers('{key}')", {"CustomerID": key, "CompanyName": "Ada AG", "City": "Genf"}, replace=True)
    assert store.read(f"Customers('{key}')")["CompanyName"] == "Ada AG"
    store.delete(f"Customers('{key}')")
    with pytest.raises(odatastore.NotFoundError) as e:
        store.read(f"Customers('{key}')")
    assert isinstance(e.value, KeyError) and isinstance(e.value, LookupError) and e.value.http_status == 404


def product_body(pid, version):
    body = {"Name": "Py product", "Description": None, "Price": decimal.Decimal("1234.50"),
            "Stock": 2 ** 60 + 7, "Discontinued": False, "Rating": 3,
            "UUID": uuid.UUID("12345678-1234-5678-1234-567812345678")}
    if version == 4:
        body.update(ReleaseDate=datetime.date(2025, 5, 17),
                    LastModified=datetime.datetime(2025, 5, 17, 8, 30, tzinfo=datetime.timezone.utc), CategoryID=2)
    else:  # pyslet needs the key in the body; ReleaseDate is a DateTime there
        body.update(ID=pid, ReleaseDate=datetime.datetime(2025, 5, 17, tzinfo=datetime.timezone.utc), Version=1)
    return body


def test_product_typed_values_round_trip_and_etags(store):
    v = store.odata_version
    pid = 1000 + v
    new = store.create("Products", product_body(pid, v))
    if v == 4:
        pid = new["ID"]  # odatapy generates the key
    assert new["Price"] == decimal.Decimal("1234.50") and new["Stock"] == 2 ** 60 + 7
    assert new["UUID"] == uuid.UUID("12345678-1234-5678-1234-567812345678")
    got = store.read(f"Products({pid})")
    assert got["Stock"] == 2 ** 60 + 7 and type(got["Price"]) is decimal.Decimal
    assert got["ReleaseDate"] in (datetime.date(2025, 5, 17), datetime.datetime(2025, 5, 17, tzinfo=datetime.timezone.utc))
    assert got.etag

    # An Entity passed back carries its ETag as If-Match
    got["Price"] = decimal.Decimal("9.99")
    store.update(f"Products({pid})", {"Price": got["Price"]}, etag=got.etag)
    after = store.read(f"Products({pid})")
    assert after["Price"] == decimal.Decimal("9.99") and after.etag != got.etag
    if v == 4:
        # odatapy: a stale If-Match is 412, none at all is 428 (pyslet ignores If-Match, README)
        with pytest.raises(odatastore.ConflictError) as e:
            store.update(f"Products({pid})", {"Rating": 1}, etag=got.etag)
        assert e.value.http_status == 412 and e.value.code == odatastore.ECONFLICT
        with pytest.raises(odatastore.PreconditionRequiredError) as e2:
            store.update(f"Products({pid})", {"Rating": 1})
        assert e2.value.http_status == 428
        changed = store.read(f"Products({pid})")
        changed["Rating"] = 5
        store.update(f"Products({pid})", changed)  # the Entity's own etag goes as If-Match
        assert store.read(f"Products({pid})")["Rating"] == 5
        # entity | changes keeps the ETag (a plain dict merge would drop it: 428)
        read = store.read(f"Products({pid})")
        merged = read | {"Rating": 4}
        assert type(merged) is odatastore.Entity and merged.etag == read.etag and read["Rating"] == 5
        assert merged.pending_state == odatastore.EntityState.CLEAN
        store.update(f"Products({pid})", merged)
        assert store.read(f"Products({pid})")["Rating"] == 4
        read |= {"Rating": 3}
        assert type(read) is odatastore.Entity and read["Rating"] == 3
        with pytest.raises(odatastore.ConflictError):
            store.update(f"Products({pid})", read)  # its ETag is the one before the merged update
        assert ({"x": 1} | merged).__class__ is dict and merged.__or__(5) is NotImplemented
        store.update(f"Products({pid})", {"Rating": 2}, etag="*")
        # delete takes the Entity as read, as update does: its ETag goes as If-Match
        with pytest.raises(odatastore.ConflictError):
            store.delete(f"Products({pid})", changed)  # stale since the update above
        with pytest.raises(odatastore.InvalidArgumentError, match="entity must be an Entity"):
            store.delete(f"Products({pid})", {"ID": pid})
        store.delete(f"Products({pid})", store.read(f"Products({pid})"))
    else:
        store.delete(f"Products({pid})", etag="*")
    with pytest.raises(KeyError):
        store.read(f"Products({pid})")


def test_action_and_bad_bodies(store):
    if store.odata_version == 4:
        changed = store.call("Discount", {"categoryID": 3, "percent": 10})
        assert changed == 30
        assert store.read("Products(3)").etag != 'W/"1"'
    with pytest.raises(odatastore.InvalidArgumentError) as e:
        store.create("Customers", "{not json")
    assert isinstance(e.value, ValueError) and e.value.code_name == "ODS_EINVAL"
    with pytest.raises(TypeError):
        store.create("Customers", {"CustomerID": object()})
    circular: dict = {"CustomerID": 9100}
    circular["Self"] = circular
    deep: dict = {"CustomerID": 9101}
    inner = deep
    for _ in range(5000):
        inner["Next"] = inner = {}
    for bad in (circular, deep, [circular]):  # a clear ValueError, not RecursionError
        with pytest.raises(ValueError, match="contains itself or nests too deeply") as e4:
            store.submit("CREATE", "Customers", bad)
        assert not isinstance(e4.value, RecursionError)
    # odatapy answers 400; pyslet 403 (its insert fails on a NOT NULL constraint): both 4xx errors
    with pytest.raises((odatastore.HTTPError, odatastore.ForbiddenError)) as e3:
        store.create("Customers", {"NoSuchProperty": 1})
    assert 400 <= e3.value.http_status < 500 and e3.value.response is not None
