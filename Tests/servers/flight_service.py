"""The flight demo service, OData V2: SAP's RMTSAMPLEFLIGHT model served by pyslet.

The model is SAP's own `$metadata` of the sample service RMTSAMPLEFLIGHT (openui5's mock
server copy, Tests/Fixtures/SAP/openui5/.../rmtsampleflight/metadata.xml), and clients get
that document byte for byte at `$metadata`. The data is flight_data.py: SAP's carriers,
flights and travel agency from the same mock data, plus generated flights, agencies and
bookings. pyslet keeps it in a fresh SQLite file per server process (writes are kept until
the process ends).

What pyslet cannot serve as SAP declares it is worked around here, in the harness, never in
the client (each is marked "Harness workaround" below):
- pyslet reads a patched copy of the model (the served `$metadata` is SAP's): association
  BookingFlight is 1:1 with both ends required, which no data can satisfy
  (_PYSLET_MODEL_PATCHES).
- Edm.Time: pyslet writes "10:10:00" in V2 JSON; SAP and the V2 JSON format write the
  duration "PT10H10M00S". Responses are rewritten to that form, request bodies back (_v2_times).
- Booking.ORDER_DATE is the ETag (ConcurrencyMode="Fixed"); pyslet sets such DateTime
  tokens to the current time on insert, so the seeded dates are written afterwards.
- Carrier is a media entity (m:HasStream); no media are stored: `$value` is a 404, not
  pyslet's 500 (_no_media).
- Function imports are bound to Python functions here; UpdateAgencyPhoneNo is declared
  m:HttpMethod="PUT", on which pyslet tries to read a body (_put_function_imports).
- The v2_service.py workarounds apply too: If-Match enforced (412), V2 `/Date(...)/`
  request bodies rewritten, properties absent from a MERGE kept.
- pyslet pages collections (topmax, 100 unless serve.py's --page-size says otherwise).
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import logging
import os
import re
import sqlite3

import pyslet.odata2.core as core
import pyslet.odata2.csdl as edm
import pyslet.odata2.metadata as edmx
import pyslet.odata2.server as server
import pyslet.odata2.sqlds as sqlds
from pyslet.iso8601 import Time

import flight_data
import v2_service

MOUNT = "/sap/opu/odata/IWFND/RMTSAMPLEFLIGHT"
CONTAINER = "RMTSAMPLEFLIGHT.RMTSAMPLEFLIGHT_Entities"

#: Harness workaround: what pyslet's copy of the model changes (text replacements).
#: - Association BookingFlight (Flight `flightbooking` <-> Booking `bookedFlight`) is
#:   declared 1:1 with both ends required, which pyslet enforces: no flight could exist
#:   without exactly one booking. Its meaning is a booking's flight (many bookings per
#:   flight), so pyslet is told the Booking end is "*".
_PYSLET_MODEL_PATCHES = [
    ('<End Multiplicity="1" Role="ToRole_BookingFlight"', '<End Multiplicity="*" Role="ToRole_BookingFlight"'),
]


def _read_patched_model():
    with open(flight_data.METADATA, "rb") as f:
        text = f.read()
    for old, new in _PYSLET_MODEL_PATCHES:
        if old.encode() not in text:
            raise RuntimeError(f"model patch does not apply: {old}")
        text = text.replace(old.encode(), new.encode())
    doc = edmx.Document()
    doc.read(io.BytesIO(text))
    return doc


def build_app(service_root: str, workdir: str, page_size: int | None):
    """A WSGI app serving RMTSAMPLEFLIGHT at ``service_root`` (ends in "/")."""
    path = os.path.join(workdir, "flight.sqlite")
    # pyslet warns "Entity set BookingCollection has an unbound principal" while it reads
    # the model: association FlightBookings has no navigation property on its Booking end,
    # so bookings can only be created through their flight, which is how _seed creates them.
    quiet = _DropMessage("has an unbound principal")
    logging.getLogger().addFilter(quiet)
    try:
        doc = _read_patched_model()
        container = doc.root.DataServices[CONTAINER]
        db = _ThrowawaySQLite(file_path=path, container=container)
        db.create_all_tables()
    finally:
        logging.getLogger().removeFilter(quiet)
    _seed(container, path)
    _bind_functions(container)

    v2_service._keep_absent_properties_on_update()
    app = server.Server(serviceRoot=service_root)
    app.set_model(doc)
    app.topmax = page_size or v2_service.DEFAULT_PAGE_SIZE
    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger("pyslet.odata2.sqlds").setLevel(logging.CRITICAL)
    wrapped = v2_service._enforce_if_match(v2_service._rewrite_v2_dates(_v2_times(_put_function_imports(app))))
    return _serve_sap_metadata(_no_media(wrapped))


class _DropMessage(logging.Filter):
    def __init__(self, fragment: str):
        super().__init__()
        self.fragment = fragment

    def filter(self, record: logging.LogRecord) -> bool:
        return self.fragment not in record.getMessage()


class _ThrowawaySQLite(sqlds.SQLiteEntityContainer):
    """pyslet's SQLite container without fsync: the file lives as long as the process (a
    fresh one per server start), so durability buys nothing, and seeding ~800 entities
    with a sync per insert would take seconds."""

    def open(self):
        connection = super().open()
        cursor = connection.cursor()
        cursor.execute("PRAGMA synchronous = OFF")
        cursor.close()
        return connection


def _serve_sap_metadata(app):
    """`$metadata` is SAP's document as it is, not pyslet's rendering of its patched copy."""
    with open(flight_data.METADATA, "rb") as f:
        document = f.read()

    def middleware(environ, start_response):
        if environ.get("PATH_INFO", "").endswith("/$metadata") and environ.get("REQUEST_METHOD") == "GET":
            start_response("200 OK", [("Content-Type", "application/xml"),
                                      ("DataServiceVersion", "2.0"),
                                      ("Content-Length", str(len(document)))])
            return [document]
        return app(environ, start_response)
    return middleware


#: Edm.Time properties of the model (complex type FlightDetails).
TIME_PROPERTIES = frozenset({"departureTime", "arrivalTime"})
_CLOCK = re.compile(r"^(\d{2}):(\d{2}):(\d{2})$")
_DURATION = re.compile(r"^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$")


def _rewrite_times(value, convert):
    if isinstance(value, list):
        return [_rewrite_times(v, convert) for v in value]
    if isinstance(value, dict):
        return {k: (convert(v) if k in TIME_PROPERTIES and isinstance(v, str) else _rewrite_times(v, convert))
                for k, v in value.items()}
    return value


def _to_duration(text: str) -> str:
    m = _CLOCK.match(text)
    return f"PT{m.group(1)}H{m.group(2)}M{m.group(3)}S" if m else text


def _to_clock(text: str) -> str:
    m = _DURATION.match(text)
    if not m or not any(m.groups()):
        return text
    h, mi, se = (int(g or 0) for g in m.groups())
    return f"{h:02d}:{mi:02d}:{se:02d}"


def _v2_times(app):
    """Harness workaround: pyslet 0.7 writes V2 JSON Edm.Time values as "10:10:00".

    OData V2's JSON format writes Edm.Time as an xsd:duration, "PT10H10M00S", which is what
    SAP Gateway sends. JSON responses have the Edm.Time members (TIME_PROPERTIES) rewritten
    to that form, and request bodies back to the form pyslet reads. Atom is left alone.
    """
    def middleware(environ, start_response):
        if environ.get("REQUEST_METHOD") in ("POST", "PUT", "MERGE", "PATCH") and \
                "json" in environ.get("CONTENT_TYPE", ""):
            length = int(environ.get("CONTENT_LENGTH") or 0)
            raw = environ["wsgi.input"].read(length) if length else b""
            try:
                body = json.dumps(_rewrite_times(json.loads(raw), _to_clock)).encode()
            except ValueError:
                body = raw
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        seen = {}

        def capture(status, headers, exc_info=None):
            seen["status"], seen["headers"], seen["exc_info"] = status, headers, exc_info
            return lambda data: None

        result = app(environ, capture)
        try:
            chunks = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()  # WSGI: pyslet releases its database connection here
        headers = seen["headers"]
        content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
        if "json" in content_type and chunks:
            try:
                chunks = json.dumps(_rewrite_times(json.loads(chunks), _to_duration),
                                    ensure_ascii=False, separators=(",", ":")).encode("utf-8")
                headers = [(k, str(len(chunks)) if k.lower() == "content-length" else v) for k, v in headers]
            except ValueError:
                pass
        start_response(seen["status"], headers, seen["exc_info"])
        return [chunks]
    return middleware


def _put_function_imports(app):
    """Harness workaround: pyslet reads the body of a PUT even when it calls a function
    import, and fails on an empty one. SAP declares UpdateAgencyPhoneNo with
    m:HttpMethod="PUT" and its parameters in the query string; pyslet runs function imports
    whatever the method, so such a PUT reaches it as a GET."""
    def middleware(environ, start_response):
        if environ.get("REQUEST_METHOD") == "PUT" and environ.get("PATH_INFO", "").endswith("/UpdateAgencyPhoneNo"):
            environ = dict(environ, REQUEST_METHOD="GET", CONTENT_LENGTH="0", **{"wsgi.input": io.BytesIO(b"")})
        return app(environ, start_response)
    return middleware


_MEDIA = re.compile(r"/CarrierCollection\([^/]*\)/\$value$")


def _no_media(app):
    """Harness workaround: Carrier is a media entity (m:HasStream), and pyslet fails with a
    500 on `$value` when it has no stream store. None is configured (the mock data has no
    media): `$value` of a carrier is answered 404 with a V2 error body."""
    def middleware(environ, start_response):
        if _MEDIA.search(environ.get("PATH_INFO", "")):
            body = json.dumps({"error": {"code": "NoMedia", "message": {
                "lang": "en", "value": "The demo service stores no media for carriers"}}}).encode()
            start_response("404 Not Found", [("Content-Type", "application/json"),
                                             ("Content-Length", str(len(body)))])
            return [body]
        return app(environ, start_response)
    return middleware


# ---- seeding ---------------------------------------------------------------------------

def _set(value_obj, value) -> None:
    if value is None:
        value_obj.set_null()
    elif isinstance(value, _dt.datetime):
        value_obj.set_from_value(value)
    elif isinstance(value, _dt.time):
        value_obj.set_from_value(Time(hour=value.hour, minute=value.minute, second=value.second))
    else:
        value_obj.set_from_value(value)


def _fill(entity, row: dict) -> None:
    for name, value in row.items():
        if isinstance(value, dict):  # a complex value
            for member, member_value in value.items():
                _set(entity[name][member], member_value)
        elif value is None and name in entity and isinstance(entity[name], edm.Complex):
            continue  # a complex value the fixture does not have: its members stay null
        else:
            _set(entity[name], value)


def _seed(container, path: str) -> None:
    with container["CarrierCollection"].open() as collection:
        for row in flight_data.carriers():
            entity = collection.new_entity()
            _fill(entity, row)
            collection.insert_entity(entity)
    with container["TravelagencyCollection"].open() as collection:
        for row in flight_data.travel_agencies():
            entity = collection.new_entity()
            _fill(entity, row)
            collection.insert_entity(entity)

    flights, bookings = flight_data.flights_and_bookings()
    by_flight: dict[tuple, list[dict]] = {}
    for b in bookings:
        by_flight.setdefault((b["carrid"], b["connid"], b["fldate"]), []).append(b)
    with container["FlightCollection"].open() as collection:
        for row in flights:
            entity = collection.new_entity()
            _fill(entity, row)
            entity["FlightCarrier"].bind_entity(row["carrid"])
            collection.insert_entity(entity)
    # A booking can only be created through FlightBookings (the Booking end has no
    # navigation property of its own, so pyslet wants the flight as its principal).
    with container["FlightCollection"].open() as flights_collection:
        for key, rows in by_flight.items():
            flight = flights_collection[key]
            with flight["flightBookings"].open() as nav:
                for row in rows:
                    entity = nav.new_entity()
                    _fill(entity, row)
                    entity["bookedFlight"].bind_entity(flight)
                    nav.insert_entity(entity)
    # Harness workaround: ORDER_DATE is Booking's concurrency token; pyslet set it to
    # the time of insertion. Write the seeded (deterministic) dates.
    _restore_order_dates(path, bookings)


def _restore_order_dates(path: str, bookings: list[dict]) -> None:
    conn = sqlite3.connect(path)
    try:
        columns = [r[1] for r in conn.execute('PRAGMA table_info("BookingCollection")')]
        if "ORDER_DATE" not in columns:
            raise RuntimeError(f"BookingCollection has no ORDER_DATE column: {columns}")
        conn.executemany(
            'UPDATE "BookingCollection" SET "ORDER_DATE" = ? '
            'WHERE "carrid" = ? AND "connid" = ? AND "fldate" = ? AND "bookid" = ?',
            [(b["ORDER_DATE"].strftime("%Y-%m-%d %H:%M:%S"), b["carrid"], b["connid"],
              b["fldate"].strftime("%Y-%m-%d %H:%M:%S"), b["bookid"]) for b in bookings])
        changed = conn.total_changes
        conn.commit()
        if changed != len(bookings):
            raise RuntimeError(f"ORDER_DATE restored on {changed} of {len(bookings)} bookings")
    finally:
        conn.close()


# ---- function imports ------------------------------------------------------------------

def _bind_functions(container) -> None:
    def get_available_flights(function, params):
        parts = []
        for name, prop, op in (("fromdate", "fldate", "ge"), ("todate", "fldate", "le"),
                               ("cityfrom", "flightDetails/cityFrom", "eq"),
                               ("cityto", "flightDetails/cityTo", "eq")):
            value = params.get(name)
            if value is not None and value:
                parts.append(f"{prop} {op} {core.ODataURI.format_literal(value)}")
        collection = function.entity_set.open()
        base = core.CommonExpression.from_str(" and ".join(parts)) if parts else None
        plain_set_filter = collection.set_filter

        def set_filter(extra):
            if extra is None or base is None:
                plain_set_filter(base if extra is None else extra)
            else:
                both = core.BinaryExpression(core.Operator.boolAnd)
                both.add_operand(base)
                both.add_operand(extra)
                plain_set_filter(both)

        collection.set_filter = set_filter
        collection.set_filter(None)
        return collection

    def flight_key(params) -> tuple:
        carrid, connid = params.get("airlineid"), params.get("connectionid")
        if carrid is None or not carrid or connid is None or not connid:
            raise core.BadURISegment("airlineid and connectionid are required")
        return carrid.value, connid.value

    def check_flight_availability(function, params):
        carrid, connid = flight_key(params)
        when = params.get("flightdate")
        if when is None or not when:
            raise core.BadURISegment("flightdate is required")
        with container["FlightCollection"].open() as flights:
            try:
                flight = flights[(carrid, connid, when.value)]
            except KeyError:
                raise core.MissingURISegment(f"no flight {carrid} {connid} on {when.value}") from None
            result = _complex_result(function)
            for kind, maximum, occupied in (("ECONO", "SEATSMAX", "SEATSOCC"), ("BUSIN", "SEATSMAX_B", "SEATSOCC_B"),
                                            ("FIRST", "SEATSMAX_F", "SEATSOCC_F")):
                result[kind + "MAX"].set_from_value(flight[maximum].value)
                result[kind + "FREE"].set_from_value(flight[maximum].value - flight[occupied].value)
        return result

    def get_flight_details(function, params):
        carrid, connid = flight_key(params)
        with container["FlightCollection"].open() as flights:
            flights.set_filter(core.CommonExpression.from_str(
                f"carrid eq {core.ODataURI.format_literal(params['airlineid'])} and "
                f"connid eq {core.ODataURI.format_literal(params['connectionid'])}"))
            first = next(iter(flights.itervalues()), None)
            if first is None:
                raise core.MissingURISegment(f"no connection {carrid} {connid}")
            result = _complex_result(function)
            result.merge(first["flightDetails"])
        return result

    def agency(function, params):
        agency_id = params.get("agency_id")
        if agency_id is None or not agency_id:
            raise core.BadURISegment("agency_id is required")
        collection = function.entity_set.open()
        try:
            return collection, collection[agency_id.value]
        except KeyError:
            collection.close()
            raise core.MissingURISegment(f"no travel agency {agency_id.value}") from None

    def get_agency_details(function, params):
        collection, entity = agency(function, params)
        collection.close()
        return entity

    # Harness note: pyslet runs a function import whatever the HTTP method; SAP declares
    # this one m:HttpMethod="PUT", which is what a client sends.
    def update_agency_phone_no(function, params):
        collection, entity = agency(function, params)
        try:
            telephone = params.get("telephone")
            if telephone is None or not telephone:
                entity["TELEPHONE"].set_null()
            else:
                entity["TELEPHONE"].set_from_value(telephone.value)
            collection.update_entity(entity)
        finally:
            collection.close()
        return entity

    container["GetAvailableFlights"].bind(get_available_flights)
    container["CheckFlightAvailability"].bind(check_flight_availability)
    container["GetFlightDetails"].bind(get_flight_details)
    container["GetAgencyDetails"].bind(get_agency_details)
    container["UpdateAgencyPhoneNo"].bind(update_agency_phone_no)


def _complex_result(function):
    """An empty value of the function's complex return type (pyslet names a result after
    its property definition: give it one)."""
    p_def = edm.Property(None)
    p_def.name = function.name
    p_def.complexType = function.returnTypeRef.type_def
    return edm.Complex(p_def)
