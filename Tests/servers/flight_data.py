"""The data of the flight demo service (SAP's sample model RMTSAMPLEFLIGHT), for V2 and V4.

The carriers, the three Air France flights and travel agency 00000002 are SAP's own openui5
mock data (Tests/Fixtures/SAP/openui5/.../rmtsampleflight/, Apache-2.0, source recorded in
Tests/Fixtures/README.md). There are no bookings in that mock data and only one agency, so
the rest is generated here: flights of the classic SAP flight data model's connections
(LH 0400 Frankfurt - New York and so on) on fixed dates, travel agencies and bookings.

Deterministic: every value is a function of its row's position, no randomness, no clock,
so the demo can print and check what it reads. Values are plain Python (str, int,
Decimal, datetime.datetime, datetime.time); flight_service.py (pyslet, V2) and
flight_v4_service.py (odatapy, V4) load them into their own stores.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from decimal import Decimal

FIXTURES = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "SAP", "openui5", "src", "sap.ui.core",
    "test", "sap", "ui", "core", "qunit", "mockserver", "testdata", "rmtsampleflight")
METADATA = os.path.normpath(os.path.join(FIXTURES, "metadata.xml"))

#: The first generated flight date; each connection flies every FLIGHT_INTERVAL days from it.
FIRST_DATE = _dt.datetime(2026, 6, 1)
FLIGHT_INTERVAL = 7
#: Dates per connection: LH gets more, so its defining request has several pages to download.
DATES = {"LH": 12}
DEFAULT_DATES = 4

# Connections of SAP's flight data model (SPFLI): carrier, number, from, to (country, city,
# airport), flight time in minutes, departure, arrival, distance, its unit, days later,
# plane type, airfare.
_CONNECTIONS = [
    ("LH", "0400", ("DE", "Frankfurt", "FRA"), ("US", "New York", "JFK"), 444, "10:10", "11:34", "6162", "KM", 0, "A340-600", "666.00"),
    ("LH", "0401", ("US", "New York", "JFK"), ("DE", "Frankfurt", "FRA"), 435, "18:30", "07:45", "6162", "KM", 1, "A340-600", "666.00"),
    ("LH", "0402", ("DE", "Frankfurt", "FRA"), ("US", "New York", "JFK"), 455, "13:30", "15:05", "6162", "KM", 0, "747-400", "669.00"),
    ("LH", "2402", ("DE", "Frankfurt", "FRA"), ("DE", "Berlin", "SXF"), 65, "10:30", "11:35", "555", "KM", 0, "A319", "242.00"),
    ("LH", "2407", ("DE", "Berlin", "TXL"), ("DE", "Frankfurt", "FRA"), 65, "07:10", "08:15", "555", "KM", 0, "A319", "242.00"),
    ("AA", "0017", ("US", "New York", "JFK"), ("US", "San Francisco", "SFO"), 361, "11:00", "14:01", "2572", "MI", 0, "747-400", "422.94"),
    ("AA", "0064", ("US", "San Francisco", "SFO"), ("US", "New York", "JFK"), 321, "09:00", "17:21", "2572", "MI", 0, "A310-300", "422.94"),
    ("AZ", "0555", ("IT", "Rome", "FCO"), ("DE", "Frankfurt", "FRA"), 125, "19:00", "21:05", "845", "MI", 0, "737-800", "185.00"),
    ("AZ", "0788", ("IT", "Rome", "FCO"), ("JP", "Tokyo", "TYO"), 775, "12:00", "08:55", "6130", "MI", 1, "767-200", "1060.00"),
    ("JL", "0407", ("JP", "Tokyo", "NRT"), ("DE", "Frankfurt", "FRA"), 725, "13:30", "17:35", "9100", "KM", 0, "A340-600", "106136"),
    ("QF", "0005", ("SG", "Singapore", "SIN"), ("DE", "Frankfurt", "FRA"), 825, "22:50", "05:35", "10000", "KM", 1, "A380-800", "1537.00"),
    ("SQ", "0002", ("SG", "Singapore", "SIN"), ("US", "San Francisco", "SFO"), 945, "17:00", "19:45", "8452", "MI", 0, "A380-800", "849.00"),
    ("UA", "0941", ("DE", "Frankfurt", "FRA"), ("US", "San Francisco", "SFO"), 680, "14:30", "21:06", "5685", "MI", 0, "777-200", "879.82"),
]

# Seats (economy, business, first) by plane type.
_SEATS = {
    "A340-600": (330, 30, 20), "747-400": (385, 31, 21), "A319": (120, 0, 0),
    "A310-300": (280, 22, 10), "737-800": (140, 12, 0), "767-200": (260, 20, 10),
    "A380-800": (475, 30, 20), "777-200": (370, 30, 20), "A330-300": (320, 20, 0),
}

_FIRST_NAMES = ["Anna", "Ben", "Chiara", "David", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas",
                "Kemal", "Lena", "Marco", "Nora", "Oskar", "Paula", "Quentin", "Rosa", "Sven", "Tomoko"]
_LAST_NAMES = ["Becker", "Rossi", "Dubois", "Schmidt", "Tanaka", "Nowak", "Fischer", "Garcia", "Jensen",
               "Martin", "Weber", "Kowalski", "Bianchi", "Meyer", "Lindqvist", "Ocampo", "Hoffmann"]
_AGENCY_WORDS = ["Sunny", "Blue Sky", "Happy Hopping", "Globetrotter", "Fly Away", "Horizon", "Wanderlust",
                 "Compass", "Jet Set", "Atlas", "Voyager", "Seaside"]
_AGENCY_KINDS = ["Travel", "Tours", "Reisen", "Voyages", "Holidays"]
_AGENCY_CITIES = [  # city, country, region, postcode, currency, language
    ("Walldorf", "DE", "BW", "69190", "EUR", "D"), ("Berlin", "DE", "BE", "10115", "EUR", "D"),
    ("Hamburg", "DE", "HH", "20095", "EUR", "D"), ("Rome", "IT", "RM", "00184", "EUR", "I"),
    ("Paris", "FR", "75", "75008", "EUR", "F"), ("New York", "US", "NY", "10017", "USD", "E"),
    ("San Francisco", "US", "CA", "94105", "USD", "E"), ("Tokyo", "JP", "13", "100-0005", "JPY", "J"),
    ("Singapore", "SG", "", "018956", "SGD", "E"), ("Zurich", "CH", "ZH", "8001", "CHF", "D"),
]
GENERATED_AGENCIES = 60


def _fixture(name: str):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return json.load(f)


def _v2_date(text: str) -> _dt.datetime:
    """``/Date(ms)/`` (UTC) as a naive datetime."""
    ms = int(text.strip("\\/").removeprefix("Date(").removesuffix(")"))
    return _dt.datetime(1970, 1, 1) + _dt.timedelta(milliseconds=ms)


def _time(text: str) -> _dt.time:
    hours, minutes = text.split(":")
    return _dt.time(int(hours), int(minutes))


def carriers() -> list[dict]:
    """The 18 carriers of SAP's mock data (Carrier.json), in its order."""
    return [{name: row[name] for name in ("carrid", "CARRNAME", "CURRCODE", "URL", "mimeType")}
            for row in _fixture("Carrier.json")["d"]["results"]]


def currency_of(carrid: str) -> str:
    return next(c["CURRCODE"] for c in carriers() if c["carrid"] == carrid)


def travel_agencies() -> list[dict]:
    """Agency 00000002 of SAP's mock data (Travelagency.json), then the generated ones."""
    fixture = _fixture("Travelagency.json")["d"]
    rows = [{k: v for k, v in fixture.items() if k != "__metadata"}]
    for i in range(GENERATED_AGENCIES):
        city, country, region, postcode, currency, langu = _AGENCY_CITIES[i % len(_AGENCY_CITIES)]
        name = f"{_AGENCY_WORDS[i % len(_AGENCY_WORDS)]} {_AGENCY_KINDS[(i // len(_AGENCY_WORDS)) % len(_AGENCY_KINDS)]}"
        rows.append({
            "agencynum": f"{100 + i:08d}",
            "NAME": name,
            "STREET": f"{(i * 7) % 90 + 1} Main Street" if country in ("US", "SG") else f"Hauptstrasse {(i * 7) % 90 + 1}",
            "POSTBOX": None if i % 3 else f"{1000 + i}",
            "POSTCODE": postcode,
            "CITY": city,
            "COUNTRY": country,
            "REGION": region,
            "TELEPHONE": f"+{10 + i % 80} {1000000 + i * 7919 % 9000000}",
            "URL": "http://www." + name.lower().replace(" ", "") + ".example",
            "LANGU": langu,
            "CURRENCY": currency,
            "mimeType": "text/html",
        })
    return rows


def _flight_details(conn) -> dict:
    _, _, frm, to, minutes, dep, arr, distance, unit, period, _, _ = conn
    return {
        "countryFrom": frm[0], "cityFrom": frm[1], "airportFrom": frm[2],
        "countryTo": to[0], "cityTo": to[1], "airportTo": to[2],
        "flightTime": minutes, "departureTime": _time(dep), "arrivalTime": _time(arr),
        "distance": Decimal(distance).quantize(Decimal("0.0001")), "distanceUnit": unit,
        "flightType": "", "period": period,
    }


def _bookings_for(flight_index: int, flight: dict, agencies: list[dict], first_bookid: int) -> list[dict]:
    """3..11 bookings for a flight (none for the fixture's 2002 flights)."""
    count = 3 + (flight_index * 5) % 9
    rows = []
    for n in range(count):
        k = flight_index * 31 + n
        cls = "F" if n % 10 == 9 else ("C" if n % 4 == 3 else "Y")
        factor = {"Y": Decimal(1), "C": Decimal("2.5"), "F": Decimal(4)}[cls]
        amount = (Decimal(flight["PRICE"]) * factor).quantize(Decimal("0.01"))
        birth = _dt.datetime(1950 + k % 50, 1 + k % 12, 1 + k % 28)
        rows.append({
            "carrid": flight["carrid"], "connid": flight["connid"], "fldate": flight["fldate"],
            "bookid": f"{first_bookid + n:08d}",
            "CUSTOMID": f"{(k * 37) % 4000 + 1:08d}",
            "CUSTTYPE": "B" if k % 3 == 0 else "P",
            "SMOKER": "",
            "WUNIT": "KG",
            "LUGGWEIGHT": (Decimal(8 + k % 20) + Decimal(k % 10) / 10).quantize(Decimal("0.0001")),
            "INVOICE": "X" if k % 2 else "",
            "CLASS": cls,
            # SAP declares FORCURAM/LOCCURAM Precision 15 Scale 14; the amounts are real
            # airfares (two decimals), as SAP's own service sends them.
            "FORCURAM": amount, "FORCURKEY": flight["CURRENCY"],
            "LOCCURAM": amount, "LOCCURKEY": flight["CURRENCY"],
            "ORDER_DATE": flight["fldate"] - _dt.timedelta(days=20 + k % 60),
            "COUNTER": f"{k % 8 + 1:08d}",
            "AGENCYNUM": agencies[k % len(agencies)]["agencynum"],
            "CANCELLED": "",
            "RESERVED": "",
            "PASSNAME": f"{_FIRST_NAMES[k % len(_FIRST_NAMES)]} {_LAST_NAMES[(k * 7) % len(_LAST_NAMES)]}",
            "PASSFORM": "Mr." if k % 2 else "Ms.",  # the first names alternate
            "PASSBIRTH": birth,
        })
    return rows


def flights_and_bookings() -> tuple[list[dict], list[dict]]:
    """All flights (the fixture's three, then the generated ones by connection and date) and
    their bookings. A flight's SEATSOCC* and PAYMENTSUM add up its bookings."""
    agencies = travel_agencies()
    flights: list[dict] = []
    for row in _fixture("Flight.json"):  # SAP's three AF flights of 2002-12-23, as they are
        flight = dict(row)
        flight["fldate"] = _v2_date(row["fldate"])
        for name in ("PRICE", "PAYMENTSUM"):
            flight[name] = Decimal(row[name])
        flight["flightDetails"] = None
        flights.append(flight)
    bookings: list[dict] = []
    bookid = {}
    generated = 0
    for conn in _CONNECTIONS:
        carrid, connid = conn[0], conn[1]
        plane, price = conn[10], Decimal(conn[11])
        seats = _SEATS[plane]
        for d in range(DATES.get(carrid, DEFAULT_DATES)):
            flight = {
                "carrid": carrid, "connid": connid,
                "fldate": FIRST_DATE + _dt.timedelta(days=FLIGHT_INTERVAL * d + (generated % 3)),
                "PRICE": price.quantize(Decimal("0.01")), "CURRENCY": currency_of(carrid),
                "PLANETYPE": plane,
                "SEATSMAX": seats[0], "SEATSMAX_B": seats[1], "SEATSMAX_F": seats[2],
                "flightDetails": _flight_details(conn),
            }
            first = bookid.get(carrid, 1)
            rows = _bookings_for(generated, flight, agencies, first)
            bookid[carrid] = first + len(rows)
            flight["SEATSOCC"] = sum(1 for b in rows if b["CLASS"] == "Y")
            flight["SEATSOCC_B"] = sum(1 for b in rows if b["CLASS"] == "C")
            flight["SEATSOCC_F"] = sum(1 for b in rows if b["CLASS"] == "F")
            flight["PAYMENTSUM"] = sum((b["LOCCURAM"] for b in rows), Decimal("0.00"))
            flights.append(flight)
            bookings.extend(rows)
            generated += 1
    return flights, bookings


if __name__ == "__main__":
    f, b = flights_and_bookings()
    print(len(carriers()), "carriers,", len(travel_agencies()), "agencies,", len(f), "flights,", len(b), "bookings")
    lh = [x for x in f if x["carrid"] == "LH"]
    print(len(lh), "LH flights,", sum(1 for x in b if x["carrid"] == "LH"), "LH bookings")
    print(lh[0])
