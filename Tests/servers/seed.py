"""Deterministic seed data shared by the V4 (odatapy) and V2 (pyslet) test services.

Every value is a pure function of the row number, so tests can compute the expected
value of any entity without asking the server (see README.md, "Seed data").
No randomness, no clock: two servers started at different times hold the same data.
"""

from __future__ import annotations

import datetime as _dt
import uuid as _uuid
from decimal import Decimal

CATEGORY_COUNT = 10
PRODUCT_COUNT = 300
ORDER_LINE_COUNT = 200

#: Int64 values above 2**53 (not representable as a double) appear every 50th product.
BIG_INT64_BASE = 9007199254740993  # 2**53 + 1

_CATEGORY_NAMES = [
    "Beverages", "Condiments", "Confections", "Dairy Products", "Grains/Cereals",
    "Meat/Poultry", "Produce", "Seafood", "Frühstück", "Épicerie fine",
]

#: String keys with characters that need percent-encoding or quote doubling in URLs.
CUSTOMER_IDS = [
    "ALFKI", "ANATR", "ANTON", "AROUT", "BERGS", "BLAUS", "BLONP", "BOLID", "BONAP", "BOTTM",
    "O'NEIL", "ZOË", "A&B", "SP ACE", "PLUS+1", "HASH#1", "PCT%20", "Q?X", "ÄÖÜ", "日本",
]


def category(i: int) -> dict:
    """Category ``i`` (1-based). Beyond the ten named ones (``serve.py --categories N``) the
    names repeat with the number appended: category 17 is ``Produce 17``."""
    name = _CATEGORY_NAMES[(i - 1) % len(_CATEGORY_NAMES)]
    return {"ID": i, "Name": name if i <= len(_CATEGORY_NAMES) else f"{name} {i}"}


def product(i: int, category_count: int = CATEGORY_COUNT) -> dict:
    """Product ``i`` (1-based). Nullable fields are null on a fixed pattern. Products are
    spread over ``category_count`` categories round-robin."""
    price = Decimal((i * 3737) % 100000) / Decimal(100)  # 0.00 .. 999.99, two digits
    return {
        "ID": i,
        "Name": f"Product {i:03d}",
        # null every 7th; some non-ASCII text elsewhere
        "Description": None if i % 7 == 0 else (
            f"Größe {i} – naïve café" if i % 10 == 3 else f"Description of product {i}"),
        "Price": price.quantize(Decimal("0.01")),
        "Stock": BIG_INT64_BASE + i if i % 50 == 0 else i * 1000,
        "Discontinued": i % 5 == 0,
        "Rating": None if i % 11 == 0 else (i % 5) + 1,
        "ReleaseDate": _dt.date(2020, 1, 1) + _dt.timedelta(days=i),
        "LastModified": _dt.datetime(2024, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(hours=i),
        "UUID": _uuid.uuid5(_uuid.NAMESPACE_URL, f"urn:odatastore:product:{i}"),
        "CategoryID": (i - 1) % category_count + 1,
    }


def order_line(i: int, product_count: int = PRODUCT_COUNT) -> dict:
    """Order line ``i`` (0-based): compound key (OrderID, LineNo)."""
    product_id = (i * 7) % product_count + 1
    return {
        "OrderID": 1000 + i // 4,
        "LineNo": i % 4 + 1,
        "ProductID": product_id,
        "Quantity": i % 9 + 1,
        "UnitPrice": product(product_id)["Price"],
        "Note": None if i % 3 else f"note {i}",
    }


def customer(i: int) -> dict:
    """Customer ``i`` (0-based) with a String key."""
    cid = CUSTOMER_IDS[i]
    return {"CustomerID": cid, "CompanyName": f"Company {cid}", "City": ["Berlin", "Paris", "Rome", "Tokyo"][i % 4]}


def categories(count: int = CATEGORY_COUNT) -> list[dict]:
    return [category(i) for i in range(1, count + 1)]


def products(count: int = PRODUCT_COUNT, category_count: int = CATEGORY_COUNT) -> list[dict]:
    return [product(i, category_count) for i in range(1, count + 1)]


def order_lines(count: int = ORDER_LINE_COUNT, product_count: int = PRODUCT_COUNT) -> list[dict]:
    return [order_line(i, product_count) for i in range(count)]


class Sizes:
    """How many rows a server is seeded with (``serve.py --products/--categories/--orderlines``,
    for benchmarks); the defaults are the data every test relies on."""

    def __init__(self, products: int | None = None, categories: int | None = None,
                 order_lines: int | None = None) -> None:
        self.products = PRODUCT_COUNT if products is None else products
        self.categories = CATEGORY_COUNT if categories is None else categories
        self.order_lines = ORDER_LINE_COUNT if order_lines is None else order_lines
        if self.products < 1 or self.categories < 1 or self.order_lines < 0:
            raise ValueError("at least one product and one category, no negative counts")

    def is_default(self) -> bool:
        return (self.products, self.categories, self.order_lines) == (
            PRODUCT_COUNT, CATEGORY_COUNT, ORDER_LINE_COUNT)

    def category_rows(self) -> list[dict]:
        return categories(self.categories)

    def product_rows(self) -> list[dict]:
        return products(self.products, self.categories)

    def order_line_rows(self) -> list[dict]:
        return order_lines(self.order_lines, self.products)


def customers() -> list[dict]:
    return [customer(i) for i in range(len(CUSTOMER_IDS))]
