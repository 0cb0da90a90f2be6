import Testing
@testable import ODataProtocol

/// The JSON transcoder's per-member fast paths (members looked up by their position in the
/// previous entity, duplicates of declared members kept in a bit set, key ranges checked on
/// bytes) give the same answers as the general path: same output, same errors.
@Suite struct TranscoderMemberLookupTests {
    /// `NS.Wide` has 70 properties (more than the 64 bits of the duplicate bit set), `NS.Base`
    /// and `NS.Derived` an inheritance pair, `NS.Small` Int16/Byte/SByte keys.
    static let model: ServiceModel = {
        var wide = ""
        for i in 0..<70 { wide += "<Property Name=\"P\(i)\" Type=\"Edm.String\"/>" }
        let csdl = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="NS">
        <EntityType Name="Wide"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/>\(wide)</EntityType>
        <EntityType Name="Base"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/>
          <Property Name="Name" Type="Edm.String"/><Property Name="Big" Type="Edm.Int64"/></EntityType>
        <EntityType Name="Derived" BaseType="NS.Base"><Property Name="Extra" Type="Edm.Decimal"/></EntityType>
        <EntityType Name="Small"><Key><PropertyRef Name="A"/><PropertyRef Name="B"/><PropertyRef Name="C"/></Key>
          <Property Name="A" Type="Edm.Int16" Nullable="false"/><Property Name="B" Type="Edm.Byte" Nullable="false"/>
          <Property Name="C" Type="Edm.SByte" Nullable="false"/></EntityType>
        <EntityContainer Name="C"><EntitySet Name="Wides" EntityType="NS.Wide"/><EntitySet Name="Bases" EntityType="NS.Base"/>
          <EntitySet Name="Smalls" EntityType="NS.Small"/></EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """
        do { return try MetadataParser.parse(Array(csdl.utf8)) } catch { fatalError("test model: \(error)") }
    }()

    func decode(_ body: String, set: String) throws -> String {
        try PayloadDecoder.decode(Array(body.utf8), contentType: "application/json", version: .v4, model: Self.model,
                                  entitySet: set).json
    }

    func failure(_ body: String, set: String) -> PayloadError? {
        do { _ = try decode(body, set: set); return nil } catch let e as PayloadError { return e } catch { return nil }
    }

    @Test func entitiesInChangingMemberOrders() throws {
        // Each entity alone and all of them in one page: the same objects whatever order came before.
        let entities = [
            #"{"ID":1,"Name":"a","Big":5}"#, #"{"Big":6,"ID":2,"Name":"b"}"#, #"{"Name":"c","ID":3}"#,
            #"{"ID":4,"Name":"d","Big":7,"Other":true}"#, #"{"@odata.etag":"W/\"1\"","ID":5,"Big":8,"Name":"e"}"#,
            #"{"ID":6,"Name":"f","Big":9}"#, #"{"ID":7,"Name":"g","Big":10}"#,
        ]
        let alone = try entities.map { try decode(#"{"value":["# + $0 + "]}", set: "Bases") }
        let page = try decode(#"{"value":["# + entities.joined(separator: ",") + "]}", set: "Bases")
        let items = alone.map { String($0.dropFirst(10).dropLast(2)) }
        #expect(page == #"{"value":["# + items.joined(separator: ",") + "]}")
        #expect(items[1] == #"{"Big":"6","ID":2,"Name":"b"}"#)
        #expect(items[4] == #"{"@odata.etag":"W/\"1\"","ID":5,"Big":"8","Name":"e"}"#)
    }

    /// A key the member-order memo predicts is matched without scanning it
    /// (`JSONTranscoder.predictedKey`) only when its bytes are the name's and `:` follows at
    /// once; every near miss (whitespace around the key or before `:`, an escaped spelling, a
    /// longer or shorter name, a quote or a control character in the key) takes the full path
    /// and decodes as the entity does alone, or fails as it does alone.
    @Test func predictedKeysMatchOnlyTheirExactSpelling() throws {
        let lead = [#"{"ID":1,"Name":"a","Big":5}"#, #"{"ID":2,"Name":"b","Big":6}"#]
        let entities = [
            #"{"ID":3, "Name":"c","Big":7}"#, #"{"ID":4,"Name" :"d","Big":8}"#, #"{"ID":5,"Name":"e","Big":9}"#,
            #"{"ID":6,"Names":"f","Big":10}"#, #"{"ID":7,"Nam":"g","Big":11}"#, #"{ "ID" : 8 , "Name" : "h" , "Big" : 12 }"#,
            #"{"ID":9,"Name":"i","Big":13}"#,
        ]
        for e in entities {
            let alone = try decode(#"{"value":["# + e + "]}", set: "Bases")
            let page = try decode(#"{"value":["# + (lead + [e]).joined(separator: ",") + "]}", set: "Bases")
            let leadOnly = try decode(#"{"value":["# + lead.joined(separator: ",") + "]}", set: "Bases")
            #expect(page == String(leadOnly.dropLast(2)) + "," + String(alone.dropFirst(10)), "\(e)")
        }
        // Keys that are not valid JSON where a name is expected fail as they fail alone.
        for bad in [#"{"ID":3,"Name"x:"c"}"#, #"{"ID":3,"Na"me":"c"}"#, "{\"ID\":3,\"Na\u{1}me\":\"c\"}", #"{"ID":3,"Name":"c","Name":"d"}"#,
                    #"{"ID":3,"Name""#] {
            let alone = failure(#"{"value":["# + bad + "]}", set: "Bases")
            let page = failure(#"{"value":["# + (lead + [bad]).joined(separator: ",") + "]}", set: "Bases")
            #expect(alone != nil && page != nil, "\(bad)")
        }
    }

    @Test func duplicatesAreRejectedInEveryPosition() {
        let cases: [(String, String, String)] = [
            (#"{"ID":1,"Name":"a","ID":2}"#, "Bases", "ID"),
            (#"{"ID":1,"Name":"a","Name":"b"}"#, "Bases", "Name"),
            (#"{"ID":1,"X":1,"X":2}"#, "Bases", "X"),  // not a member: the list
            (#"{"@odata.etag":"1","ID":1,"@odata.etag":"2"}"#, "Bases", "@odata.etag"),
            (#"{"ID":1,"P69":"a","P3":"b","P69":"c"}"#, "Wides", "P69"),  // beyond the bit set
            (#"{"ID":1,"P63":"a","P63":"c"}"#, "Wides", "P63"),  // the last bit
            // The type changes after the member: still the same name spelled the same way.
            (##"{"Name":"a","@odata.type":"#NS.Derived","Extra":1,"Name":"b"}"##, "Bases", "Name"),
            (##"{"Extra":1,"@odata.type":"#NS.Derived","Extra":2}"##, "Bases", "Extra"),
        ]
        for (body, set, name) in cases {
            for wrapped in [body, #"{"value":[{"ID":0},"# + body + "]}"] {
                let e = failure(wrapped, set: set)
                #expect(e?.kind == .invalid && e?.message == "duplicate property \"\(name)\"", "\(wrapped): \(String(describing: e))")
            }
        }
        // In a second entity whose first one had the same members: the order memo must not hide it.
        let e = failure(#"{"value":[{"ID":1,"Name":"a"},{"ID":2,"Name":"b","Name":"c"}]}"#, set: "Bases")
        #expect(e?.message == "duplicate property \"Name\"")
    }

    @Test func namesAreComparedAsSpelled() throws {
        // As before the bit set: an escaped spelling is another name for the duplicate check.
        let r = try decode(#"{"ID":1,"\u004eame":"a","Name":"b"}"#, set: "Bases")
        #expect(r == #"{"ID":1,"\u004eame":"a","Name":"b"}"#)
        let wide = try decode(#"{"ID":1,"P\u0036\u0039":"a","P69":"b"}"#, set: "Wides")
        #expect(wide == #"{"ID":1,"P\u0036\u0039":"a","P69":"b"}"#)
    }

    @Test func keyRangesAreChecked() {
        #expect(failure(#"{"ID":2147483647}"#, set: "Bases") == nil)
        #expect(failure(#"{"ID":-2147483648}"#, set: "Bases") == nil)
        #expect(failure(#"{"ID":2147483648}"#, set: "Bases")?.message.contains("not a valid Edm.Int32") == true)
        #expect(failure(#"{"ID":4294967297}"#, set: "Bases") != nil)
        #expect(failure(#"{"ID":1.0}"#, set: "Bases") != nil)
        #expect(failure(#"{"ID":1e3}"#, set: "Bases") != nil)
        #expect(failure(#"{"ID":-0}"#, set: "Bases") == nil)
        #expect(failure(#"{"ID":"7"}"#, set: "Bases") == nil)  // a string: kept, not range-checked
        #expect(failure(#"{"A":-32768,"B":255,"C":-128}"#, set: "Smalls") == nil)
        #expect(failure(#"{"A":32768,"B":0,"C":0}"#, set: "Smalls") != nil)
        #expect(failure(#"{"A":0,"B":256,"C":0}"#, set: "Smalls") != nil)
        #expect(failure(#"{"A":0,"B":-1,"C":0}"#, set: "Smalls") != nil)
        #expect(failure(#"{"A":0,"B":0,"C":128}"#, set: "Smalls") != nil)
    }

    @Test func typesTooWideForTheOrderMemo() throws {
        // 1,100 members: no member-order memo (hashing only), duplicates beyond the bit set in the list.
        var props = ""
        for i in 0..<1100 { props += "<Property Name=\"Q\(i)\" Type=\"Edm.Int64\"/>" }
        let csdl = """
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>
        <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="W"><EntityType Name="T"><Key><PropertyRef Name="Q0"/></Key>\(props)</EntityType>
        <EntityContainer Name="C"><EntitySet Name="Ts" EntityType="W.T"/></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>
        """
        let model = try MetadataParser.parse(Array(csdl.utf8))
        func decode(_ body: String) throws -> String {
            try PayloadDecoder.decode(Array(body.utf8), contentType: "application/json", version: .v4, model: model, entitySet: "Ts").json
        }
        #expect(try decode(#"{"value":[{"Q0":1,"Q1099":2},{"Q1099":3,"Q0":4}]}"#) == #"{"value":[{"Q0":"1","Q1099":"2"},{"Q1099":"3","Q0":"4"}]}"#)
        #expect(throws: PayloadError.self) { try decode(#"{"value":[{"Q0":1,"Q700":2,"Q700":3}]}"#) }
    }

    @Test func byteIntegerCheckReadsAsIntegerInitializers() {
        let texts = ["0", "-0", "+0", "1", "-1", "+12", "2147483647", "2147483648", "-2147483648", "-2147483649",
                     "00000000000000000000000000000000000001", "99999999999999999999999999", "-", "+", "", "1.0", "1e3",
                     "12a", "--1", "255", "256", "-128", "-129", "32767", "32768", "-32768", "-32769", "1 ", " 1"]
        for t in texts {
            let bytes = Array(t.utf8)
            bytes.withUnsafeBufferPointer { b in
                #expect(JSONTranscoder.integer(b, fitsIn: Int64(Int32.min)...Int64(Int32.max)) == (Int32(t) != nil), "\(t)")
                #expect(JSONTranscoder.integer(b, fitsIn: Int64(Int16.min)...Int64(Int16.max)) == (Int16(t) != nil), "\(t)")
                #expect(JSONTranscoder.integer(b, fitsIn: 0...255) == (UInt8(t) != nil), "\(t)")
                #expect(JSONTranscoder.integer(b, fitsIn: -128...127) == (Int8(t) != nil), "\(t)")
            }
        }
    }
}
