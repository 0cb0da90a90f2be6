import Testing
@testable import ODataProtocol

@Suite struct JSONParserTests {
    @Test func scalarsAndStructure() throws {
        let v = try JSONValue.parse(#" { "a" : [1, -0.5e+10, true, false, null, "x"], "b": {} , "c": [] } "#)
        #expect(v["a"]?[0] == .number("1"))
        #expect(v["a"]?[1] == .number("-0.5e+10"))
        #expect(v["a"]?[2] == .bool(true))
        #expect(v["a"]?[4] == .null)
        #expect(v["a"]?[5] == .string("x"))
        #expect(v["b"] == .object(JSONObject()))
        #expect(v["c"] == .array([]))
        #expect(v.objectValue?.keys == ["a", "b", "c"])
    }

    @Test func numbersAreLossless() throws {
        let v = try JSONValue.parse(#"[9223372036854775807, 12345678901234567890123.000100, 1E400, -0]"#)
        #expect(v[0]?.numberText == "9223372036854775807")
        #expect(v[0]?.int64Value == Int64.max)
        #expect(v[1]?.numberText == "12345678901234567890123.000100")
        #expect(v[2]?.numberText == "1E400")
        #expect(v[3]?.numberText == "-0")
        #expect(v.serialized() == "[9223372036854775807,12345678901234567890123.000100,1E400,-0]")
    }

    @Test func escapesAndUnicode() throws {
        let v = try JSONValue.parse(#"["Say \"Hello\",\nthen go", "\u00e9\u20AC\uD83D\uDE00", "\/Date(1)\/", "é€😀", "\b\f\r\t\\"]"#)
        #expect(v[0] == .string("Say \"Hello\",\nthen go"))
        #expect(v[1] == .string("é€😀"))
        #expect(v[2] == .string("/Date(1)/"))
        #expect(v[3] == .string("é€😀"))
        #expect(v[4] == .string("\u{8}\u{C}\r\t\\"))
        // The writer escapes only what JSON requires.
        #expect(JSONValue.string("a\"b\\c\n\u{1}/é").serialized() == #""a\"b\\c\n\u0001/é""#)
    }

    @Test func writerRoundTrip() throws {
        let text = #"{"s":"x\ty","n":[1,2.5,-3e-7],"o":{"k":null,"t":true},"e":"😀"}"#
        let v = try JSONValue.parse(text)
        #expect(v.serialized() == text)
        #expect(try JSONValue.parse(v.serialized()) == v)
    }

    @Test func objectOrderAndLookup() throws {
        var o = JSONObject()
        for i in 0..<40 { o["k\(i)"] = .number(String(i)) }  // crosses the index threshold
        #expect(o["k37"] == .number("37"))
        o["k3"] = .string("x")
        #expect(o.keys.count == 40 && o.keys[3] == "k3" && o["k3"] == .string("x"))
        o.removeValue(forKey: "k0")
        #expect(o.keys.first == "k1" && o["k0"] == nil && o["k39"] == .number("39"))
        // Equality ignores member order.
        #expect(try JSONValue.parse(#"{"a":1,"b":2}"#) == JSONValue.parse(#"{"b":2,"a":1}"#))
    }

    @Test func byteOrderMarkIsSkipped() throws {
        #expect(try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == .array([.number("1")]))
    }

    /// Each invalid text must fail with the stated offset.
    @Test(arguments: [
        ("[1,]", 3, "trailing comma"),
        (#"{"a":1,}"#, 7, "trailing comma"),
        ("[01]", 1, "leading zero"),
        ("[-]", 2, "expected a digit"),
        ("[1.]", 3, "after '.'"),
        ("[.5]", 1, "unexpected"),
        ("[+1]", 1, "unexpected"),
        ("[1e]", 3, "exponent"),
        (#"["\x"]"#, 2, "invalid escape"),
        (#"["\u12"]"#, 2, "four hex digits"),
        (#"["\uD800"]"#, 2, "lone high surrogate"),
        (#"["\uD800\u0041"]"#, 2, "lone high surrogate"),
        (#"["\uDC00"]"#, 2, "lone low surrogate"),
        ("[\"a\u{1}\"]", 3, "control character"),
        (#"{"a" 1}"#, 5, "':'"),
        ("{'a':1}", 1, "member name"),
        ("[1] x", 4, "after the JSON value"),
        ("", 0, "empty input"),
        ("   ", 3, "end of input"),
        ("[tru]", 1, "invalid literal"),
        // Literals are compared four bytes at a time: cut short at the end of the input, or
        // one byte off, they must fail without reading past it.
        ("tru", 0, "invalid literal"),
        ("fals", 0, "invalid literal"),
        ("f", 0, "invalid literal"),
        ("nul", 0, "invalid literal"),
        ("[fals]", 1, "invalid literal"),
        ("[falsy]", 1, "invalid literal"),
        ("[nulL]", 1, "invalid literal"),
        ("[True]", 1, "unexpected"),
        ("[NaN]", 1, "unexpected"),
        (#"{"a":1,"a":2}"#, 7, "duplicate member name"),
        ("[1 2]", 3, "expected ',' or ']'"),
        (#"["abc"#, 1, "unterminated string"),
        ("/* c */ 1", 0, "unexpected"),
    ])
    func rejects(_ text: String, _ offset: Int, _ fragment: String) {
        #expect {
            _ = try JSONValue.parse(text)
        } throws: { error in
            guard let e = error as? JSONError else { return false }
            return e.offset == offset && e.message.contains(fragment)
        }
    }

    @Test func literalsEndingTheInputAreRead() throws {
        #expect(try JSONValue.parse("true") == .bool(true))
        #expect(try JSONValue.parse("false") == .bool(false))
        #expect(try JSONValue.parse("null") == .null)
        #expect(try JSONValue.parse(Array("[false,true,null]".utf8)) == .array([.bool(false), .bool(true), .null]))
        // Bytes after the input's end are not the literal's: a buffer cut inside `false`.
        let bytes = Array("false".utf8)
        try bytes.withUnsafeBufferPointer { b in
            #expect(throws: JSONError.self) { try JSONValue.parse(Array(b[0..<4])) }
        }
    }

    @Test func rejectsInvalidUTF8() {
        for bad: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82]] {
            #expect(throws: JSONError.self) { try JSONValue.parse(bad) }
        }
    }

    @Test func duplicateKeysCanKeepLast() throws {
        let v = try JSONValue.parse(#"{"a":1,"b":2,"a":3}"#, options: .init(duplicateKeys: .keepLast))
        #expect(v["a"] == .number("3"))
        #expect(v.objectValue?.keys == ["a", "b"])
    }

    @Test func depthLimitInsteadOfStackOverflow() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError.self) { try JSONValue.parse(deep) }
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try JSONValue.parse(ok) != .null)
        let deepObject = String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)
        #expect(throws: JSONError.self) { try JSONValue.parse(deepObject) }
    }

    /// Every JSON fixture parses, and writing then re-parsing gives the same value.
    @Test func everyFixtureParsesAndRoundTrips() throws {
        let files = PayloadFixtures.files(extensions: [".json"])
        #expect(files.count > 60)
        for f in files {
            let bytes = try PayloadFixtures.bytes(f)
            let options = JSONParseOptions(duplicateKeys: .keepLast)  // JsonInvalidTeamDoubleNameProperty.json
            let v = try JSONValue.parse(bytes, options: options)
            #expect(try JSONValue.parse(v.serialized()) == v, "\(f)")
        }
        #expect(throws: JSONError.self) {
            try JSONValue.parse(PayloadFixtures.bytes(PayloadFixtures.olingo2 + "JsonInvalidTeamDoubleNameProperty.json"))
        }
    }
}
