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


TEXT = [["Content-Type", "text/plain"], ["OData-Version", "4.0"]]


@pytest.mark.parametrize("body", ["twelve", "-5", "", "+3", "1.5", "99999999999999999999", "7" + " " * 100])
def test_a_count_that_is_not_a_non_negative_integer_is_a_protocol_error(v4_proxy, body):
    # /$count answers a non-negative 64-bit integer, as @odata.count must be (which was
    # already checked); "twelve", -5 and an empty 200 used to come back as values.
    with odatastore.Store(v4_proxy.url) as store:
        store.wait_open(60)
        v4_proxy.fault(mode="respond", status=200, headers=TEXT, body=body, match="Products/$count", count=1)
        try:
            with pytest.raises(odatastore.ProtocolError) as info:
                store.read("Products/$count")
            assert "count" in str(info.value) and info.value.http_status == 200
        finally:
            v4_proxy.clear()
        assert store.read("Products/$count") == 300
        v4_proxy.fault(mode="respond", status=200, headers=TEXT, body=" 42\r\n", match="Products/$count", count=1)
        try:
            assert store.read("Products/$count") == 42  # whitespace around it is fine
        finally:
            v4_proxy.clear()


@pytest.mark.parametrize("link", ["http://elsewhere.example/odata/Products?$skiptoken=2",
                                  "{ROOT}Products?$select=ID,Name&$skiptoken=\r\n\x1b[31mred",  # on the root: followed once, then repeated
                                  "//elsewhere.example/odata/Products"])
def test_a_next_link_that_cannot_be_followed_is_the_services_fault(v4_proxy, link):
    # Never followed off the service; a protocol error (the service's fault, not the app's
    # invalid argument), its message free of the link's control characters.
    page = '{"value":[{"ID":1,"Name":"a"}],"@odata.nextLink":' + __import__("json").dumps(link.replace("{ROOT}", v4_proxy.url)) + "}"
    with odatastore.Store(v4_proxy.url) as store:
        store.wait_open(60)
        v4_proxy.fault(mode="respond", status=200, headers=HEADERS, body=page, match="Products?$select=ID,Name", count=-1)
        try:
            with pytest.raises(odatastore.ProtocolError) as info:
                store.read("Products?$select=ID,Name", all_pages=True)
            message = str(info.value)
            assert "next link" in message and not any(ord(c) < 0x20 or ord(c) == 0x7F for c in message), message
        finally:
            v4_proxy.clear()


@pytest.mark.parametrize("extra", [[["Content-Length", "10"]], [["Content-Length", "99999999999999999999"]],
                                   [["Content-Length", "abc"]]])
def test_a_response_whose_length_is_ambiguous_is_never_a_success(v4_proxy, extra):
    # Two Content-Length values (the proxy adds the true one after these) or one that is not
    # a length: libcurl 7.88 took one of them and reported success with the body cut (RFC
    # 9112 section 6.3: the message is invalid). The raw $value is where no parse would notice.
    body = "x" * 88_000
    with odatastore.Store(v4_proxy.url) as store:
        store.wait_open(60)
        v4_proxy.fault(mode="respond", status=200, headers=[["Content-Type", "text/plain"]] + extra, body=body,
                       match="Products(1)/Name/$value", count=-1)  # -1: the retries of the GET get it too
        try:
            with pytest.raises((odatastore.IOFailureError, odatastore.ProtocolError)) as info:
                store.read("Products(1)/Name/$value")
            assert "Content-Length" in str(info.value) or "framing" in str(info.value), str(info.value)
        finally:
            v4_proxy.clear()
        # one value, or a list of one value repeated, is fine
        v4_proxy.fault(mode="respond", status=200, headers=[["Content-Type", "text/plain"], ["Content-Length", "88000"]],
                       body=body, match="Products(1)/Name/$value", count=1)
        try:
            assert store.read("Products(1)/Name/$value") == body  # text/plain: a str
        finally:
            v4_proxy.clear()


def test_an_entity_with_a_hundred_thousand_undeclared_members_is_typed_by_what_is_declared(v4_proxy):
    # The library decodes it in linear time (its duplicate check hashes past 32 names); the
    # binding types the declared properties and leaves the others as sent, without asking the
    # store about each undeclared name (that was ~25 us a name: half a minute for 10**6).
    import decimal
    members = ",".join(f'"X{i}":"{i}"' for i in range(100_000))
    body = '{"ID":1,"Name":"wide","Price":"12.50","Stock":"9007199254740993",' + members + "}"
    with odatastore.Store(v4_proxy.url) as store:
        store.wait_open(60)
        v4_proxy.fault(mode="respond", status=200, headers=HEADERS, body=body, match="Products(1)", count=1)
        try:
            wide = store.read("Products(1)")
        finally:
            v4_proxy.clear()
        assert wide["Price"] == decimal.Decimal("12.50") and wide["Stock"] == 9007199254740993
        assert len(wide) == 100_004 and wide["X99999"] == "99999"


@pytest.mark.parametrize("status", [600, 799, 999])
def test_a_status_beyond_599_is_not_an_http_status(v4_proxy, status):
    # libcurl takes any three digits from a status line; 6xx-9xx are no HTTP status (RFC 9110
    # 15): a protocol error, not the service error a 5xx is.
    with odatastore.Store(v4_proxy.url) as store:
        store.wait_open(60)
        v4_proxy.fault(mode="respond", status=status, headers=HEADERS, body='{"ID":1}', match="Products(1)", count=1)
        try:
            with pytest.raises(odatastore.ProtocolError) as info:
                store.read("Products(1)")
            assert info.value.http_status == status
        finally:
            v4_proxy.clear()
