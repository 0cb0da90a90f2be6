"""A service that answers an entity read with something that is not OData JSON: every answer
is refused with ProtocolError (never a crash, a hang, a made-up result or unbounded memory),
and the store keeps working. The answers come from the fault proxy's `respond` mode in front
of the real V4 server (Tests/servers/fault_proxy.py)."""
import pytest

import odatastore

HEADERS = [["Content-Type", "application/json;odata.metadata=minimal"], ["OData-Version", "4.0"]]

CASES = {
    "nested arrays 200,000 deep": ('{"value":' + "[" * 200_000 + "]" * 200_000 + "}", "nesting deeper than"),
    "nested objects 100,000 deep": ('{"ID":1,"X":' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}",
                                    "nesting deeper than"),
    "lone surrogate": ('{"ID":1,"Name":"\\ud800"}', "surrogate"),
    "key of a million digits": ('{"ID":' + "9" * 1_000_000 + "}", 'key property "ID"'),
    "duplicate member": ('{"ID":1,"ID":2,"Name":"a"}', 'duplicate property "ID"'),
    "raw NUL in a string": ('{"ID":1,"Name":"a\x00b"}', "control character"),
    "trailing garbage": ('{"ID":1} xyz', "after the JSON value"),
    "bare string": ('"hello"', "expected a JSON object"),
    "bare number": ("42", "expected a JSON object"),
    "bare array": ('[{"ID":1}]', "expected a JSON object"),
    "bare null": ("null", "expected a JSON object"),
    "empty body": ("", "empty body"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_entity_read_answered_with_what_is_not_odata_is_a_protocol_error(v4_proxy, name):
    body, says = CASES[name]
    with odatastore.Store(v4_proxy.url) as store:
        store.wait_open(60)
        v4_proxy.fault(mode="respond", status=200, headers=HEADERS, body=body, match="Products(1)", count=1)
        try:
            with pytest.raises(odatastore.ProtocolError) as info:
                store.read("Products(1)")
            assert says in str(info.value)
            assert info.value.http_status == 200
        finally:
            v4_proxy.clear()
        assert store.read("Products(1)")["ID"] == 1  # the store is fine afterwards


def test_an_embedded_escaped_nul_is_data_not_an_error(v4_proxy):
    # "\u0000" is a valid JSON escape: the value keeps it (C callers read it through the
    # typed accessors with its length).
    with odatastore.Store(v4_proxy.url) as store:
        store.wait_open(60)
        v4_proxy.fault(mode="respond", status=200, headers=HEADERS, body='{"ID":1,"Name":"a\\u0000b"}',
                       match="Products(1)", count=1)
        try:
            assert store.read("Products(1)")["Name"] == "a\x00b"
        finally:
            v4_proxy.clear()
