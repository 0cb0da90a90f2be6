"""Python values for OData's Edm types, and the type lookup that decides which to use.

The canonical JSON (docs/json-shape.md) carries Int64 and Decimal as exact strings and dates,
times, GUIDs and binaries as strings. Typing them needs the service's model, which the C API
does not expose directly. What it does offer is ``ods_store_check_url``: it parses a request
URL against the store's $metadata and gives every ``$orderby`` expression its Edm type. So the
type of property ``P`` of the entities a request ``R`` returns is the type of ``$orderby=P``
checked on ``R``'s own path (keys and function parameters included); a to-one navigation or
complex property ``N`` is typed with ``$orderby=N/P``, and a V4 to-many navigation with
``$expand=N($orderby=P)``; a single property read ``R/P`` is typed with ``R?$orderby=P``. One
check per path shape (keys left out) and property set, cached by the store. What cannot be typed this way (primitive function results, V2 to-many
navigation expanded in a collection, collections of primitives) keeps its canonical JSON value.
"""
from __future__ import annotations

import base64
import datetime
import decimal
import json
import math
import re
import sys
import uuid
from typing import Any, Callable, Optional, Sequence

from ._errors import EINVAL, InvalidArgumentError

Converter = Callable[[Any], Any]


def _int(v: Any) -> Any:
    return int(v) if isinstance(v, str) else v


def _decimal(v: Any) -> Any:
    if isinstance(v, str):
        return decimal.Decimal(v)
    if isinstance(v, (int, float)):  # a number from a server that ignored IEEE754Compatible
        return decimal.Decimal(str(v))
    return v


def _float(v: Any) -> Any:
    if isinstance(v, str):
        return float({"INF": "inf", "-INF": "-inf", "NaN": "nan"}.get(v, v))
    return v


def _date(v: Any) -> Any:
    return datetime.date.fromisoformat(v) if isinstance(v, str) else v


def _datetime(v: Any) -> Any:
    if not isinstance(v, str):
        return v
    text = v[:-1] + "+00:00" if v.endswith(("Z", "z")) else v
    value = datetime.datetime.fromisoformat(text)
    if value.tzinfo is None:  # the canonical shape writes V2 DateTime in UTC with Z
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value


def _time(v: Any) -> Any:
    return datetime.time.fromisoformat(v) if isinstance(v, str) else v


def _guid(v: Any) -> Any:
    return uuid.UUID(v) if isinstance(v, str) else v


# The canonical shape's own forms, converted by C functions alone: the plans (_FlatPlan) call
# these first for a str value and fall back to the converters above when they raise.
_UTC = datetime.timezone.utc
_new_uuid = object.__new__
_set_slot = object.__setattr__
_UUID = uuid.UUID
_SAFE_UNKNOWN = uuid.SafeUUID.unknown


def _guid_fast(v: str) -> Any:
    """``uuid.UUID(v)`` for the 36-character form: what UUID's own __init__ does with it
    (int(hex, 16) of the 32 digits), without its prefix and brace handling."""
    if len(v) != 36:
        raise ValueError(v)
    digits = v.replace("-", "")
    if len(digits) != 32:
        raise ValueError(v)
    u = _new_uuid(_UUID)
    _set_slot(u, "int", int(digits, 16))
    _set_slot(u, "is_safe", _SAFE_UNKNOWN)
    return u


def _datetime_fast(v: str) -> Any:
    """``_datetime`` where ``fromisoformat`` reads the "Z" itself (Python 3.11+)."""
    value = _FROMISO(v)
    if value.tzinfo is None:
        raise ValueError(v)  # _datetime adds UTC
    return value


_FROMISO = datetime.datetime.fromisoformat
try:
    _guid_ok = _guid_fast("0cc4150d-ef37-5878-a93d-8c5321885e54") == uuid.UUID("0cc4150d-ef37-5878-a93d-8c5321885e54")
except Exception:  # noqa: BLE001 - a Python whose UUID has other slots: no fast path
    _guid_ok = False
try:
    _dt_ok = _FROMISO("2024-01-01T01:00:00Z") == _datetime("2024-01-01T01:00:00Z")
except ValueError:  # before 3.11: no "Z"
    _dt_ok = False

# converter -> a C callable (or small function) doing the same for a str value, or raising
FAST: dict[Converter, Converter] = {
    _int: int,
    _decimal: decimal.Decimal,
    _date: datetime.date.fromisoformat,
    _time: datetime.time.fromisoformat,
}
if _guid_ok:
    FAST[_guid] = _guid_fast
if _dt_ok:
    FAST[_datetime] = _datetime_fast
# the fast forms _FlatPlan.apply writes out in its loop (the same code without a call)
_INLINED: dict[Any, int] = {_guid_fast: 1, _datetime_fast: 2}


def _binary(v: Any) -> Any:
    return base64.b64decode(v, validate=True) if isinstance(v, str) else v


CONVERTERS: dict[str, Converter] = {
    "Edm.Int64": _int,
    "Edm.Decimal": _decimal,
    "Edm.Double": _float,
    "Edm.Single": _float,
    "Edm.Date": _date,
    "Edm.DateTimeOffset": _datetime,
    "Edm.DateTime": _datetime,
    "Edm.TimeOfDay": _time,
    "Edm.Time": _time,
    "Edm.Guid": _guid,
    "Edm.Binary": _binary,
}


def converter_for(edm_type: Optional[str]) -> Optional[Converter]:
    """The function turning a canonical JSON value of ``edm_type`` into Python, or None."""
    if not edm_type:
        return None
    if edm_type.startswith("Collection(") and edm_type.endswith(")"):
        inner = CONVERTERS.get(edm_type[11:-1])
        if inner is None:
            return None
        item = inner

        def each(v: Any) -> Any:
            return [None if x is None else item(x) for x in v] if isinstance(v, list) else v
        return each
    return CONVERTERS.get(edm_type)


def convert(edm_type: Optional[str], value: Any) -> Any:
    """``value`` as the Python type for ``edm_type``; unchanged when it is not in the expected
    form (servers have quirks; the library keeps such values too) or the type needs nothing."""
    fn = converter_for(edm_type)
    if fn is None or value is None:
        return value
    try:
        return fn(value)
    except (ValueError, TypeError, decimal.InvalidOperation):
        return value


# ---------------------------------------------------------------------------------------
# Python -> canonical JSON
# ---------------------------------------------------------------------------------------

_SAFE_INT = 2 ** 53
#: A Decimal goes out in its exact fixed-point form: one needing more digits than this (1E+100000
#: would be 100 kB of zeros) is refused with InvalidArgumentError, as no Edm.Decimal holds it.
MAX_DECIMAL_DIGITS = 400


def to_json_value(o: Any) -> Any:
    """``json.dumps`` default: Python values in the canonical shape (Decimal and Int64 as
    exact strings, ISO 8601 dates and times, GUIDs as text, binary as standard base64)."""
    if isinstance(o, decimal.Decimal):
        if not o.is_finite():
            raise ValueError(f"{o} is not a value of Edm.Decimal")
        _, digits, exponent = o.as_tuple()
        assert isinstance(exponent, int)
        length = len(digits) + exponent if exponent > 0 else max(len(digits), -exponent)
        if length > MAX_DECIMAL_DIGITS:
            raise InvalidArgumentError(f"the Decimal {o:.6E} would be sent with {length} digits: at most "
                                       f"{MAX_DECIMAL_DIGITS} (its exact fixed-point form)", EINVAL)
        return format(o, "f")
    if isinstance(o, datetime.datetime):
        return o.isoformat().replace("+00:00", "Z")
    if isinstance(o, (datetime.date, datetime.time)):
        return o.isoformat()
    if isinstance(o, uuid.UUID):
        return str(o)
    if isinstance(o, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(o)).decode("ascii")
    if isinstance(o, datetime.timedelta):
        return _duration(o)
    raise TypeError(f"{type(o).__name__} is not a value odatastore can send")


def _duration(d: datetime.timedelta) -> str:
    sign = "-" if d < datetime.timedelta(0) else ""
    d = abs(d)
    seconds = d.seconds + d.microseconds / 1e6
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    sec_text = f"{secs:.6f}".rstrip("0").rstrip(".")
    return f"{sign}P{d.days}DT{int(hours)}H{int(minutes)}M{sec_text}S"


def _prepare(o: Any, types: Optional[dict[str, Optional[str]]]) -> Any:
    """Ints above 2**53 and Int64-typed ints as strings (IEEE754Compatible); floats that JSON
    cannot spell as the strings OData uses."""
    if isinstance(o, dict):
        out: dict[str, Any] = {}
        for k, v in o.items():
            if not isinstance(k, str):  # json would write 1 as "1", and the service take it so
                raise InvalidArgumentError(f"the request body has a key that is not a str: {k!r} "
                                           f"({type(k).__name__})", EINVAL)
            t = types.get(k) if types else None
            if isinstance(v, bool) or v is None:
                out[k] = v
            elif isinstance(v, int) and (t == "Edm.Int64" or abs(v) >= _SAFE_INT):
                out[k] = str(v)
            elif isinstance(v, (int, float)) and t == "Edm.Decimal":
                out[k] = to_json_value(decimal.Decimal(str(v)))
            elif isinstance(v, datetime.datetime) and v.tzinfo is None and t == "Edm.DateTimeOffset":
                # without an offset the service would take it as UTC, whatever the app meant
                raise InvalidArgumentError(f"{k} is an Edm.DateTimeOffset: pass an aware datetime (with tzinfo, "
                                           f"e.g. datetime.timezone.utc), not the naive {v.isoformat()}", EINVAL)
            else:
                out[k] = _prepare(v, None)
        return out
    if isinstance(o, (list, tuple)):
        return [_prepare(v, None) for v in o]
    if isinstance(o, float) and not math.isfinite(o):
        return "NaN" if math.isnan(o) else ("INF" if o > 0 else "-INF")
    if isinstance(o, int) and not isinstance(o, bool) and abs(o) >= _SAFE_INT:
        return str(o)
    return o


def dumps(body: Any, types: Optional[dict[str, Optional[str]]] = None) -> str:
    """A request body (entity, action parameters) as canonical JSON text. ValueError for a
    body that contains itself or nests deeper than Python's recursion limit (about 1,000
    levels), TypeError for a value that has no JSON form."""
    try:
        return json.dumps(_prepare(body, types), default=to_json_value, ensure_ascii=False,
                          separators=(",", ":"), allow_nan=False)
    except RecursionError:
        raise ValueError("the request body contains itself or nests too deeply "
                         f"(more than about {sys.getrecursionlimit()} levels)") from None


# ---------------------------------------------------------------------------------------
# Type lookup through ods_store_check_url
# ---------------------------------------------------------------------------------------

def split_request(path: str) -> tuple[str, str]:
    """(path without query, the query's non-system options joined with '&')."""
    head, _, query = path.partition("?")
    keep = [p for p in query.split("&") if p and not p.startswith(("$", "%24", "@"))]
    return head, "&".join(keep)


_KEY_PREDICATE = re.compile(r"\([^()']*\)")  # a parenthesised part without quotes or parentheses


def shape_of(head: str) -> str:
    """The path with key predicates and parameters left out, for caching types per shape:
    ``Customers('O''NEIL')/Orders(3)`` -> ``Customers()/Orders()``."""
    if "(" not in head:
        return head
    if "'" not in head:  # the usual key predicates: one substitution, the walk for the rest
        shape = _KEY_PREDICATE.sub("()", head)
        rest = shape.replace("()", "")
        if "(" not in rest and ")" not in rest:  # nothing nested or unbalanced
            return shape
    return _shape_by_walk(head)


def _shape_by_walk(head: str) -> str:
    """shape_of for any path: a walk over its characters (quoted parts, nesting)."""
    out: list[str] = []
    depth = 0
    quoted = False
    for ch in head:
        if quoted:
            if ch == "'":
                quoted = False
            continue
        if depth and ch == "'":
            quoted = True
        elif ch == "(":
            depth += 1
            if depth == 1:
                out.append("()")
        elif ch == ")":
            depth = max(0, depth - 1)
        elif not depth:
            out.append(ch)
    return "".join(out)


def _orderby_types(result: dict[str, Any], expand: Optional[str] = None) -> list[Optional[str]]:
    query = result.get("query") or {}
    if expand is not None:
        items = query.get("$expand") or []
        query = items[0].get("options") or {} if items else {}
    return [(item.get("expression") or {}).get("type") for item in query.get("$orderby") or []]


_ONE_BY_ONE = 64  # names TypeCache._lookup asks about one at a time after a failed check of them all
_PATHS_KEPT = 4096   # request paths whose shape is remembered (cleared when full)
_PLANS_KEPT = 1024   # flat-entity plans (cleared when full)


class _FlatPlan:
    """The conversions of entities whose properties are all primitive (no object or list
    value), for one path shape and one set of property names: what :meth:`TypeCache._type_level`
    would do for them, found once. ``watch`` are the names that were not typed as primitives
    (navigation or complex properties that were null, collections, dynamic properties): when
    one of them holds an object or a list, the plan does not apply and the full walk runs
    instead. (A converter leaves an object or list unchanged, so a primitive-typed property
    needs no watching.)"""

    __slots__ = ("convs", "watch", "fast")

    def __init__(self, convs: tuple[tuple[str, Converter], ...], watch: tuple[str, ...]) -> None:
        self.convs = convs
        self.watch = watch
        # (name, the converter's C form for a str value or the converter, the converter, how
        # apply calls the C form: 0 as is, 1 and 2 _guid_fast and _datetime_fast written out)
        self.fast = tuple((n, FAST.get(f, f), f, _INLINED.get(FAST.get(f), 0)) for n, f in convs)

    def apply(self, entities: Sequence[dict[str, Any]]) -> bool:
        """Converts ``entities`` in place and returns True, or returns False having changed
        nothing when one of them has an object or list value where the plan saw none."""
        watch = self.watch
        if watch:
            for e in entities:
                for n in watch:
                    if isinstance(e[n], (dict, list)):
                        return False
        for e in entities:
            for n, fast, f, inlined in self.fast:
                v = e[n]
                if v is None:
                    continue
                if v.__class__ is str:  # the C form first (the fast functions without their frame)
                    if inlined == 1:  # _guid_fast
                        if len(v) == 36:
                            digits = v.replace("-", "")
                            if len(digits) == 32:
                                try:
                                    number = int(digits, 16)
                                except ValueError:
                                    pass
                                else:
                                    u = _new_uuid(_UUID)
                                    _set_slot(u, "int", number)
                                    _set_slot(u, "is_safe", _SAFE_UNKNOWN)
                                    e[n] = u
                                    continue
                    elif inlined == 2:  # _datetime_fast
                        try:
                            value = _FROMISO(v)
                        except ValueError:
                            pass
                        else:
                            if value.tzinfo is not None:
                                e[n] = value
                                continue
                    else:
                        try:
                            e[n] = fast(v)
                            continue
                        except (ValueError, TypeError, decimal.InvalidOperation):
                            pass
                try:  # the converter itself (not a str, or the C form refused the value)
                    e[n] = f(v)
                except (ValueError, TypeError, decimal.InvalidOperation):
                    pass
        return True


def _convert(entities: Sequence[dict[str, Any]], convs: dict[str, Converter]) -> None:
    """Applies ``convs`` (property name -> converter) to ``entities`` in place; a value not in
    its type's expected form is kept as sent (a converter leaves objects and lists alone)."""
    for e in entities:
        for n, f in convs.items():
            v = e.get(n)
            if v is not None:
                try:
                    e[n] = f(v)
                except (ValueError, TypeError, decimal.InvalidOperation):
                    pass


class TypeCache:
    """Edm types of response properties, found with ``check`` (ods_store_check_url) and
    cached per path shape. Thread-safe: entries are only ever added (a race checks twice)."""

    def __init__(self, check: Callable[[str], Optional[dict[str, Any]]], odata_version: int,
                 model: Optional[Callable[[], Optional[dict[str, Any]]]] = None) -> None:
        self._check = check
        self._version = odata_version
        self._model = model  # the store's model summary (ods_store_model_json), asked once
        # entity set -> (navigation name -> target type), entity type -> property types
        self._navigation: Optional[dict[str, dict[str, str]]] = None
        self._declared: dict[str, dict[str, str]] = {}
        self._all_declared: Optional[frozenset[str]] = None  # _declared_names
        self._types: dict[tuple[str, str], Optional[str]] = {}
        # request path -> (path without query, its non-system options, the shape key)
        self._paths: dict[str, tuple[str, str, str]] = {}
        # (shape key, property names of a flat entity) -> its _FlatPlan
        self._plans: dict[tuple[str, tuple[str, ...]], _FlatPlan] = {}
        # shape key of a request for one property's value -> the converter of its Edm type
        self._value_types: dict[str, Optional[Converter]] = {}

    def _lookup(self, key_shape: str, url_for: Callable[[list[str]], str], names: list[str],
                prefix: str, expand: Optional[str] = None) -> dict[str, Optional[str]]:
        missing = [n for n in names if (key_shape, prefix + n) not in self._types]
        if missing:
            result = self._check(url_for(missing))
            types = _orderby_types(result, expand) if result else []
            if len(types) == len(missing):
                for n, t in zip(missing, types):
                    self._types[(key_shape, prefix + n)] = t
            elif len(missing) == 1:
                self._types[(key_shape, prefix + missing[0])] = None
            else:  # one name does not check (not sortable, dynamic): ask one by one
                if len(missing) > _ONE_BY_ONE:
                    # More names than a real entity has, one of them not declared: a check
                    # each (~25 us) would make a hostile answer of 10**6 undeclared members
                    # cost half a minute. Only names the model declares somewhere are asked
                    # (at the top level; nested, none); the others are not typed.
                    declared = self._declared_names() if not prefix else frozenset()
                    for n in missing:
                        if n not in declared:
                            self._types[(key_shape, prefix + n)] = None
                    missing = [n for n in missing if n in declared]
                for n in missing:
                    self._lookup(key_shape, url_for, [n], prefix, expand)
        return {n: self._types.get((key_shape, prefix + n)) for n in names}

    def property_types(self, path: str, names: list[str]) -> dict[str, Optional[str]]:
        """The Edm types of top-level properties ``names`` of the entities ``path`` addresses."""
        head, params = split_request(path)
        base = head + "?" + (params + "&" if params else "")
        return self._lookup(shape_of(head) + "?" + params, lambda ns: base + "$orderby=" + ",".join(ns), names, "")

    def type_value(self, path: str, value: Any) -> Any:
        """``value`` (the ``{"value": v}`` of request ``path``) typed when ``path`` addresses a
        primitive property (``Products(1)/Price``, ``Customers(1)/Address/City``): the type
        ``$orderby`` gives that property on the path of its entity. Other values (``$count``,
        ``$value``, function results) stay as they are."""
        if value is None or isinstance(value, (dict, list)):
            return value
        head, params, shape = self._path_info(path)
        if shape in self._value_types:
            fn = self._value_types[shape]
        else:
            fn = converter_for(self._property_type(head, params))
            if len(self._value_types) >= _PATHS_KEPT:
                self._value_types.clear()
            self._value_types[shape] = fn
        if fn is None:
            return value
        try:
            return fn(value)
        except (ValueError, TypeError, decimal.InvalidOperation):
            return value

    def _property_type(self, head: str, params: str) -> Optional[str]:
        result = self._check(head + ("?" + params if params else ""))
        segments = (result or {}).get("path") or []
        names: list[str] = []
        for segment in reversed(segments):  # the trailing property segments
            if segment.get("kind") != "property" or not isinstance(segment.get("name"), str):
                break
            names.append(segment["name"])
        if not names or len(names) == len(segments):
            return None
        names.reverse()
        suffix = "/" + "/".join(names)
        if not head.endswith(suffix):  # spelt otherwise in the request (escapes): not typed
            return None
        base = head[:-len(suffix)] + "?" + (params + "&" if params else "")
        checked = self._check(base + "$orderby=" + "/".join(names))
        types = _orderby_types(checked) if checked else []
        return types[0] if len(types) == 1 else None

    def _path_info(self, path: str) -> tuple[str, str, str]:
        info = self._paths.get(path)
        if info is None:
            head, params = split_request(path)
            info = (head, params, shape_of(head) + "?" + params)
            if len(self._paths) >= _PATHS_KEPT:
                self._paths.clear()
            self._paths[path] = info
        return info

    def type_entities(self, path: str, entities: Sequence[dict[str, Any]]) -> None:
        """Converts, in place, the values of ``entities`` (the result of request ``path``)."""
        if not entities:
            return
        info = self._paths.get(path)
        head, params, shape = info if info is not None else self._path_info(path)
        names = tuple(entities[0])
        if len(entities) > 1:
            first = entities[0].keys()
            if any(e.keys() != first for e in entities):
                names = ()
        plan = self._plans.get((shape, names)) if names else None
        if plan is not None and plan.apply(entities):
            return
        base = head + "?" + (params + "&" if params else "")
        self._type_level(shape, entities, lambda exprs: base + "$orderby=" + ",".join(exprs), "",
                         head, params, top=True, plan_key=(shape, names) if names else None)

    def _type_level(self, shape: str, entities: Sequence[dict[str, Any]], url_for: Callable[[list[str]], str],
                    prefix: str, head: str, params: str, top: bool, expand: Optional[str] = None,
                    in_expand: bool = False, plan_key: Optional[tuple[str, tuple[str, ...]]] = None) -> None:
        scalars: dict[str, None] = {}
        objects: dict[str, None] = {}
        lists: dict[str, None] = {}
        for e in entities:
            for k, v in e.items():
                if "@" in k:
                    continue
                if isinstance(v, dict):
                    objects[k] = None
                elif isinstance(v, list):
                    lists[k] = None
                else:
                    scalars[k] = None
        if scalars:
            names = list(scalars)
            types = self._lookup(shape, lambda ns: url_for([prefix + n for n in ns]), names,
                                 (expand + "[]/" if expand else "") + prefix, expand if in_expand else None)
            convs: dict[str, Converter] = {}
            for n, t in types.items():
                fn = converter_for(t)
                if fn is not None:
                    convs[n] = fn
            if plan_key is not None and not objects and not lists:
                # A flat level: later entities with the same names take the same conversions
                # without this walk (_FlatPlan), unless one of their values is an object or list.
                watch = tuple(n for n in plan_key[1] if "@" not in n and not (types.get(n) or "").startswith("Edm."))
                if len(self._plans) >= _PLANS_KEPT:
                    self._plans.clear()
                self._plans[plan_key] = _FlatPlan(tuple(convs.items()), watch)
            _convert(entities, convs)
        for name in objects:  # complex values and expanded to-one navigation: $orderby=N/P
            inner = [e[name] for e in entities if isinstance(e.get(name), dict)]
            self._type_level(shape, inner, url_for, prefix + name + "/", head, params, False, expand, in_expand)
        if not top or expand is not None:
            return
        for name in lists:  # expanded to-many navigation (lists of primitives stay as they are)
            inner = [x for e in entities for x in (e.get(name) or []) if isinstance(x, dict)]
            if not inner:
                continue
            base = head + "?" + (params + "&" if params else "")
            if self._version == 4:
                def nested(exprs: list[str], n: str = name) -> str:
                    return base + "$expand=" + n + "($orderby=" + ",".join(exprs) + ")"
                self._type_level(shape, inner, nested, "", head, params, False, name, True)
            elif "(" not in head and "/" not in head:
                # V2, a collection of a set: no URL has the expansion's own options, so the
                # declared types of the navigation's target (the store's model) type it
                self._type_declared(head, name, inner)
            else:  # V2 has no nested options: the navigation's own path, when it is one entity's
                nav = head + "/" + name + "?" + (params + "&" if params else "")

                def nested_v2(exprs: list[str], url: str = nav) -> str:
                    return url + "$orderby=" + ",".join(exprs)
                self._type_level(shape, inner, nested_v2, "", head, params, False, name)

    def _declared_names(self) -> frozenset[str]:
        """Every property name the model summary declares on an entity type (empty without one)."""
        names = self._all_declared
        if names is None:
            self._load_model()
            names = self._all_declared = frozenset(n for types in self._declared.values() for n in types)
        return names

    def _load_model(self) -> dict[str, dict[str, str]]:
        """Navigation targets per entity set and property types per entity type, from the
        model summary (empty when the store has none)."""
        navigation = self._navigation
        if navigation is None:
            navigation = {}
            summary = self._model() if self._model is not None else None
            for entity_set in (summary or {}).get("entitySets", []):
                navigation[entity_set["name"]] = {n["name"]: n["target"] for n in entity_set.get("navigation", [])}
                self._declared[entity_set["entityType"]] = {p["name"]: p["type"] for p in entity_set.get("properties", [])}
            self._navigation = navigation
        return navigation

    def _type_declared(self, entity_set: str, navigation: str, entities: Sequence[dict[str, Any]]) -> None:
        """Converts, in place, the primitive values of ``entities`` (expanded through
        ``navigation`` of ``entity_set``) by the declared types of the navigation's target."""
        target = self._load_model().get(entity_set, {}).get(navigation)
        types = self._declared.get(target or "", {})
        _convert(entities, {n: f for n, t in types.items() if (f := converter_for(t)) is not None})
