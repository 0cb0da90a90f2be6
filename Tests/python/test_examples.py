"""examples/python/*.py run against the real servers (they must keep working)."""
import os
import subprocess
import sys

import pytest

from conftest import BINDING_SRC, ROOT


def run_example(name, *args):
    env = dict(os.environ, PYTHONPATH=str(BINDING_SRC))
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / name), *args], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("kind", ["v4", "v2"])
def test_quickstart(kind, request):
    # its own server: the example writes (and deletes) a customer
    from conftest import Server
    server = Server([str(ROOT / "Tests/servers/serve.py"), kind])
    try:
        out = run_example("quickstart.py", server.url)
    finally:
        server.stop()
    first = out.splitlines()[0].split()  # the most expensive product (seed.py)
    assert first == ["107", "Product", "107", "Decimal('998.59')", "stock=107000", 'etag=W/"1"']
    assert "Products(50).Stock is exact: 9007199254741043 int" in out
    assert "updated {'CustomerID': 'ADA', 'CompanyName': 'Ada Ltd', 'City': 'Bern'}" in out
    assert "deleted: 404 ODS_ENOTFOUND" in out
    assert "future: Product 007" in out
    assert "async: ['Product 001', 'Product 002', 'Product 003']" in out


def test_callbacks(v4_server):
    out = run_example("callbacks.py", v4_server.url).splitlines()
    assert out[0] == "store: OPENING"
    # requests are held until the store is open; the callbacks share one thread, in order
    assert out[1:5] == ["store: OPEN", "[categories] started #1", "[categories] HTTP 200, 10 entities",
                        "[categories] finished"]
    assert "names: ['Beverages', 'Condiments', 'Confections', 'Dairy Products', 'Grains/Cereals', " \
           "'Meat/Poultry', 'Produce', 'Seafood', 'Frühstück', 'Épicerie fine']" in out
    assert "[missing] failed: NotFoundError (ODS_ENOTFOUND)" in out
    assert "missing: KeyError as expected" in out
    assert out[-2:] == ["store: CLOSING", "store: CLOSED"]


@pytest.mark.parametrize("kind", ["v4", "v2"])
def test_offline(kind, request, tmp_path):
    server = request.getfixturevalue(f"{kind}_server")
    expected = [
        "opened: 330 entities, 3 defining requests, last download set",
        "Products(50): Product 050 9007199254741043 Decimal('868.50') W/\"1\"",
        "Products(1)/Category: Beverages",
        "page: [11, 12, 13] local",
        "count: 300",
        "OrderLines: ODS_ENOTINSCOPE",
        "TotalStock: ODS_EUNSUPPORTED",
        "  Products?$expand=Category -> Products: 300 entities, complete",
        "  Customers -> Customers: 20 entities, complete",
        "  Categories -> Categories: 10 entities, complete",
        "async: ['Product 001', 'Product 002', 'Product 003']",
    ]
    downloads = ["downloaded Products?$expand=Category: 300 entities", "downloaded Customers: 20 entities",
                 "downloaded Categories: 10 entities"]
    out = run_example("offline.py", server.url).splitlines()  # a temporary store file
    assert out == downloads + expected
    path = tmp_path / "example.store"
    assert run_example("offline.py", server.url, str(path)).splitlines() == downloads + expected
    assert path.exists()
    # run again on the same file: everything is there, nothing is downloaded
    assert run_example("offline.py", server.url, str(path)).splitlines() == expected
