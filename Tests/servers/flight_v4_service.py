"""The flight demo service, OData V4: SAP's RMTSAMPLEFLIGHT model translated to V4, served
by odatapy's in-memory processor (the V2 original is flight_service.py, on pyslet).

There is no V4 edition of RMTSAMPLEFLIGHT, so this one is derived from SAP's V2 `$metadata`
(Tests/Fixtures/SAP/openui5/.../rmtsampleflight/metadata.xml): the properties of Carrier,
Flight, Booking, Travelagency and the complex type FlightDetails are read from that document,
with the V2 types mapped to V4 ones:

- Edm.DateTime -> Edm.Date: every DateTime of these types is an SAP date (fldate, ORDER_DATE,
  PASSBIRTH; Precision 0, no time of day), which SAP's V4 services expose as Edm.Date, so a
  flight's key reads FlightCollection(carrid='LH',connid='0400',fldate=2026-06-01).
- Edm.Time -> Edm.TimeOfDay (departureTime, arrivalTime).
- The associations become navigation properties with partners and referential constraints:
  Carrier carrierFlights <-> Flight FlightCarrier, Flight flightBookings <-> Booking
  bookedFlight. SAP's second, 1:1 association BookingFlight (Flight `flightbooking`) is left
  out: its Booking end is bookedFlight.
- Left out: Subscription, Notification, the *_DQ types and sets, the second agency set
  TravelAgencies, Carrier's media stream (m:HasStream), and the function imports other than
  GetAvailableFlights (a V4 function import with Date parameters) and GetAgencyDetails.
- Booking has an ETag (ORDER_DATE is its concurrency token in V2): W/"1", +1 per change.

The data is flight_data.py, the same as the V2 service's. Writes are held in memory.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from odatapy.data import ComplexValue, Entity, Property, ValueType
from odatapy.edm.csdl import (
    CsdlAbstractEdmProvider,
    CsdlComplexType,
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
from odatapy.server import OData
from odatapy.server.adapters import ODataWSGIApp
from odatapy.server.inmemory import InMemoryDataStore, InMemoryProcessor
from odatapy.server.processor import CustomETagSupport

import flight_data

NS = "RMTSAMPLEFLIGHT"
MOUNT = "/sap/opu/odata4/RMTSAMPLEFLIGHT"
EDM = "{http://schemas.microsoft.com/ado/2008/09/edm}"

#: V2 type -> V4 type (see the module docstring).
_TYPE_MAP = {"Edm.DateTime": "Edm.Date", "Edm.Time": "Edm.TimeOfDay"}
ETAG_SETS = frozenset({"BookingCollection"})
_SETS = {"Carrier": "CarrierCollection", "Flight": "FlightCollection", "Booking": "BookingCollection",
         "Travelagency": "TravelagencyCollection"}


def _fqn(name: str) -> str:
    return f"{NS}.{name}"


def _sap_types() -> dict[str, tuple[list[str], list[CsdlProperty]]]:
    """Key and properties of SAP's entity and complex types, in V4 terms."""
    root = ET.parse(flight_data.METADATA).getroot()
    schema = root.find(f".//{EDM}Schema")
    types: dict[str, tuple[list[str], list[CsdlProperty]]] = {}
    for element in list(schema.findall(f"{EDM}EntityType")) + list(schema.findall(f"{EDM}ComplexType")):
        keys = [ref.get("Name") for ref in element.findall(f"{EDM}Key/{EDM}PropertyRef")]
        properties = []
        for p in element.findall(f"{EDM}Property"):
            v2_type = p.get("Type")
            v4_type = _TYPE_MAP.get(v2_type, v2_type)
            properties.append(CsdlProperty(
                name=p.get("Name"), type=v4_type,
                nullable=p.get("Nullable", "true") != "false",
                max_length=int(p.get("MaxLength")) if p.get("MaxLength") else None,
                precision=int(p.get("Precision")) if p.get("Precision") and v4_type == "Edm.Decimal" else None,
                scale=int(p.get("Scale")) if p.get("Scale") else None,
            ))
        types[element.get("Name")] = (keys, properties)
    return types


_TYPES = _sap_types()


class Provider(CsdlAbstractEdmProvider):
    def get_schemas(self):
        def entity_type(name, navigation):
            keys, properties = _TYPES[name]
            return CsdlEntityType(name=name, key=[CsdlPropertyRef(name=k) for k in keys],
                                  properties=properties, navigation_properties=navigation)

        flight_key = ["carrid", "connid", "fldate"]
        carrier = entity_type("Carrier", [
            CsdlNavigationProperty(name="carrierFlights", type=_fqn("Flight"), collection=True,
                                   partner="FlightCarrier")])
        flight = entity_type("Flight", [
            CsdlNavigationProperty(
                name="FlightCarrier", type=_fqn("Carrier"), partner="carrierFlights", nullable=False,
                referential_constraints=[CsdlReferentialConstraint(property="carrid", referenced_property="carrid")]),
            CsdlNavigationProperty(name="flightBookings", type=_fqn("Booking"), collection=True,
                                   partner="bookedFlight"),
        ])
        booking = entity_type("Booking", [
            CsdlNavigationProperty(
                name="bookedFlight", type=_fqn("Flight"), partner="flightBookings", nullable=False,
                referential_constraints=[CsdlReferentialConstraint(property=k, referenced_property=k)
                                         for k in flight_key]),
        ])
        agency = entity_type("Travelagency", [])
        details = CsdlComplexType(name="FlightDetails", properties=_TYPES["FlightDetails"][1])
        functions = [
            CsdlFunction(
                name="GetAvailableFlights",
                parameters=[CsdlParameter(name="fromdate", type="Edm.Date"),
                            CsdlParameter(name="todate", type="Edm.Date"),
                            CsdlParameter(name="cityfrom", type="Edm.String", max_length=20),
                            CsdlParameter(name="cityto", type="Edm.String", max_length=20)],
                return_type=CsdlReturnType(type=_fqn("Flight"), collection=True)),
            CsdlFunction(
                name="GetAgencyDetails",
                parameters=[CsdlParameter(name="agency_id", type="Edm.String", max_length=8)],
                return_type=CsdlReturnType(type=_fqn("Travelagency"))),
        ]

        def binding(path, target):
            return CsdlNavigationPropertyBinding(path=path, target=target)

        container = CsdlEntityContainer(
            name="RMTSAMPLEFLIGHT_Entities",
            entity_sets=[
                CsdlEntitySet(name="CarrierCollection", type=_fqn("Carrier"),
                              navigation_property_bindings=[binding("carrierFlights", "FlightCollection")]),
                CsdlEntitySet(name="FlightCollection", type=_fqn("Flight"),
                              navigation_property_bindings=[binding("FlightCarrier", "CarrierCollection"),
                                                            binding("flightBookings", "BookingCollection")]),
                CsdlEntitySet(name="BookingCollection", type=_fqn("Booking"),
                              navigation_property_bindings=[binding("bookedFlight", "FlightCollection")]),
                CsdlEntitySet(name="TravelagencyCollection", type=_fqn("Travelagency")),
            ],
            function_imports=[
                CsdlFunctionImport(name="GetAvailableFlights", function=_fqn("GetAvailableFlights"),
                                   entity_set="FlightCollection"),
                CsdlFunctionImport(name="GetAgencyDetails", function=_fqn("GetAgencyDetails"),
                                   entity_set="TravelagencyCollection"),
            ],
        )
        return [CsdlSchema(namespace=NS, entity_types=[carrier, flight, booking, agency],
                           complex_types=[details], functions=functions, entity_container=container)]


def _types_of(type_name: str) -> dict[str, str]:
    return {p.name: p.type for p in _TYPES[type_name][1]}


def _v4_value(value, edm_type: str):
    if edm_type == "Edm.Date" and value is not None:
        return value.date()
    return value


def _entity(type_name: str, row: dict) -> Entity:
    types = _types_of(type_name)
    entity = Entity()
    for name, value in row.items():
        edm_type = types[name]
        if edm_type == _fqn("FlightDetails"):
            if value is None:
                continue  # the fixture's 2002 flights have no details
            member_types = _types_of("FlightDetails")
            complex_value = ComplexValue(type_name=edm_type, properties=[
                Property(name=k, value=_v4_value(v, member_types[k]), value_type=ValueType.PRIMITIVE,
                         type=member_types[k]) for k, v in value.items()])
            entity.set_property(name, complex_value, ValueType.COMPLEX, edm_type)
        else:
            entity.set_property(name, _v4_value(value, edm_type), ValueType.PRIMITIVE, edm_type)
    return entity


class FlightProcessor(InMemoryProcessor, CustomETagSupport):
    def has_etag(self, entity_set_or_singleton) -> bool:
        return getattr(entity_set_or_singleton, "name", None) in ETAG_SETS


def _key(entity: Entity, names: list[str]) -> str:
    # odatapy keeps relations under the repr of the key values joined by "|".
    return "|".join(repr(entity.get_value(n)) for n in names)


def build_app(page_size: int | None):
    odata = OData.new_instance()
    handler = odata.create_handler(odata.create_service_metadata(Provider()))
    store = InMemoryDataStore()

    carriers = [_entity("Carrier", row) for row in flight_data.carriers()]
    agencies = [_entity("Travelagency", row) for row in flight_data.travel_agencies()]
    flight_rows, booking_rows = flight_data.flights_and_bookings()
    flights = [_entity("Flight", row) for row in flight_rows]
    bookings = [_entity("Booking", row) for row in booking_rows]
    for booking in bookings:
        booking.etag = 'W/"1"'
    store.set_entities("CarrierCollection", carriers)
    store.set_entities("TravelagencyCollection", agencies)
    store.set_entities("FlightCollection", flights)
    store.set_entities("BookingCollection", bookings)

    flight_key = ["carrid", "connid", "fldate"]
    carrier_by_id = {c.get_value("carrid"): c for c in carriers}
    flights_of: dict[str, list[Entity]] = {}
    for flight in flights:
        carrier = carrier_by_id[flight.get_value("carrid")]
        store.set_relation("FlightCollection", _key(flight, flight_key), "FlightCarrier", [carrier])
        flights_of.setdefault(carrier.get_value("carrid"), []).append(flight)
    for carrid, members in flights_of.items():
        store.set_relation("CarrierCollection", repr(carrid), "carrierFlights", members)
    flight_by_key = {_key(f, flight_key): f for f in flights}
    bookings_of: dict[str, list[Entity]] = {}
    for booking in bookings:
        k = _key(booking, flight_key)
        store.set_relation("BookingCollection", _key(booking, flight_key + ["bookid"]), "bookedFlight",
                           [flight_by_key[k]])
        bookings_of.setdefault(k, []).append(booking)
    for k in flight_by_key:
        store.set_relation("FlightCollection", k, "flightBookings", bookings_of.get(k, []))

    processor = FlightProcessor(store, page_size=page_size)
    processor.register_function("GetAvailableFlights", _get_available_flights(store))
    processor.register_function("GetAgencyDetails", _get_agency_details(store))
    handler.register(processor)
    return ODataWSGIApp(handler, mount_path=MOUNT)


def _get_available_flights(store: InMemoryDataStore):
    def run(target, part):  # noqa: ARG001 - odatapy's function signature
        p = part.typed_parameters
        result = []
        for flight in store.entities("FlightCollection"):
            details = flight.get_value("flightDetails")
            members = details.as_dict() if isinstance(details, ComplexValue) else {}
            when = flight.get_value("fldate")
            if p.get("fromdate") is not None and when < p["fromdate"]:
                continue
            if p.get("todate") is not None and when > p["todate"]:
                continue
            if p.get("cityfrom") and members.get("cityFrom") != p["cityfrom"]:
                continue
            if p.get("cityto") and members.get("cityTo") != p["cityto"]:
                continue
            result.append(flight)
        return result
    return run


def _get_agency_details(store: InMemoryDataStore):
    def run(target, part):  # noqa: ARG001
        wanted = part.typed_parameters.get("agency_id")
        return next((a for a in store.entities("TravelagencyCollection") if a.get_value("agencynum") == wanted), None)
    return run
