import Testing
@testable import ODataProtocol
@testable import ODataStore

/// `$filter` and `$orderby` over the parts of a V4 model the test service does not have:
/// doubles with NaN and infinities, enumerations (flags with `has`), durations, times of
/// day, binary values, collections of primitives and of complex values (JSON columns,
/// lambdas through `json_each`), flattened and JSON-held complex values (polymorphic and
/// open), derived entity types (`isof`, type casts in paths), navigation through link
/// tables, and dynamic properties of open entity types.
@Suite("Offline: $filter and $orderby to SQL (model features)")
struct FilterSQLModelFeatureTests {
    static let metadata = """
    <?xml version="1.0" encoding="UTF-8"?>
    <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.01"><edmx:DataServices>
    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Rich" Alias="R">
      <EnumType Name="Color"><Member Name="Red" Value="0"/><Member Name="Green" Value="1"/><Member Name="Blue" Value="2"/></EnumType>
      <EnumType Name="Access" IsFlags="true"><Member Name="None" Value="0"/><Member Name="Read" Value="1"/><Member Name="Write" Value="2"/><Member Name="Delete" Value="4"/></EnumType>
      <ComplexType Name="Point"><Property Name="Lat" Type="Edm.Double"/><Property Name="Lon" Type="Edm.Double"/></ComplexType>
      <ComplexType Name="Address"><Property Name="City" Type="Edm.String"/><Property Name="Zip" Type="Edm.Int32"/><Property Name="Geo" Type="Rich.Point"/></ComplexType>
      <ComplexType Name="Shape"><Property Name="Label" Type="Edm.String"/></ComplexType>
      <ComplexType Name="Circle" BaseType="Rich.Shape"><Property Name="Radius" Type="Edm.Decimal"/></ComplexType>
      <ComplexType Name="Note" OpenType="true"><Property Name="Text" Type="Edm.String"/></ComplexType>
      <EntityType Name="Item">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Name" Type="Edm.String"/>
        <Property Name="Ratio" Type="Edm.Double"/>
        <Property Name="Weight" Type="Edm.Single"/>
        <Property Name="Color" Type="Rich.Color"/>
        <Property Name="Access" Type="Rich.Access"/>
        <Property Name="Span" Type="Edm.Duration"/>
        <Property Name="At" Type="Edm.TimeOfDay"/>
        <Property Name="Data" Type="Edm.Binary"/>
        <Property Name="Small" Type="Edm.Byte"/>
        <Property Name="Flag" Type="Edm.Boolean"/>
        <Property Name="Price" Type="Edm.Decimal" Scale="variable"/>
        <Property Name="Big" Type="Edm.Int64"/>
        <Property Name="When" Type="Edm.DateTimeOffset"/>
        <Property Name="Day" Type="Edm.Date"/>
        <Property Name="Tags" Type="Collection(Edm.String)"/>
        <Property Name="Scores" Type="Collection(Edm.Int64)"/>
        <Property Name="Amounts" Type="Collection(Edm.Decimal)"/>
        <Property Name="Home" Type="Rich.Address"/>
        <Property Name="Places" Type="Collection(Rich.Address)"/>
        <Property Name="Shape" Type="Rich.Shape"/>
        <Property Name="Note" Type="Rich.Note"/>
        <Property Name="Location" Type="Edm.GeographyPoint"/>
        <NavigationProperty Name="Children" Type="Collection(Rich.Item)" Partner="Parent"/>
        <NavigationProperty Name="Parent" Type="Rich.Item" Partner="Children"/>
        <NavigationProperty Name="Owner" Type="Rich.Person"/>
        <NavigationProperty Name="Revisions" Type="Collection(Rich.Person)" ContainsTarget="true"/>
      </EntityType>
      <EntityType Name="SpecialItem" BaseType="Rich.Item">
        <Property Name="Extra" Type="Edm.String"/>
        <NavigationProperty Name="Friends" Type="Collection(Rich.Person)"/>
      </EntityType>
      <EntityType Name="VerySpecialItem" BaseType="Rich.SpecialItem"><Property Name="Level" Type="Edm.Int32"/></EntityType>
      <EntityType Name="Person" OpenType="true">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.String" Nullable="false"/>
        <Property Name="Name" Type="Edm.String"/>
      </EntityType>
      <EntityContainer Name="C">
        <EntitySet Name="Items" EntityType="Rich.Item">
          <NavigationPropertyBinding Path="Children" Target="Items"/>
          <NavigationPropertyBinding Path="Parent" Target="Items"/>
          <NavigationPropertyBinding Path="Owner" Target="People"/>
          <NavigationPropertyBinding Path="Rich.SpecialItem/Friends" Target="People"/>
        </EntitySet>
        <EntitySet Name="People" EntityType="Rich.Person"/>
      </EntityContainer>
    </Schema></edmx:DataServices></edmx:Edmx>
    """

    static func model() throws -> ServiceModel { try MetadataParser.parse(Array(metadata.utf8)) }

    static func items() throws -> QueryHarness {
        let h = try QueryHarness(try model())
        let rows: [[String: SQLValue]] = [
            ["@rid": 1, "ID": 1, "Name": "one", "Ratio": .real(1.5), "Weight": .real(0.1), "Color": "Red", "Access": "Read,Write",
             "Span": "PT1H", "At": "10:00:00", "Data": "AAEC", "Small": 255, "Tags": #"["a","B","日本"]"#,
             "Scores": #"["9007199254740993","1"]"#, "Amounts": #"["1.50","-0.01"]"#,
             "Home": 1, "Home/City": "Paris", "Home/Zip": 75001, "Home/Geo": 1, "Home/Geo/Lat": .real(48.85),
             "Places": #"[{"City":"Rome","Zip":1},{"City":"Oslo","Zip":null}]"#, "Shape": #"{"Label":"box"}"#,
             "Note": #"{"Text":"hi","Mood":"happy"}"#],
            ["@rid": 2, "@type": "Rich.SpecialItem", "ID": 2, "Name": "two", "Ratio": "NaN", "Color": "Blue", "Access": "Delete",
             "Span": "P1D", "At": "10:00", "Data": "AAEC", "Small": 1, "Tags": "[]", "Scores": "[]", "Places": "[]",
             "Shape": ##"{"@odata.type":"#Rich.Circle","Label":"disc","Radius":"2.5"}"##, "Extra": "x"],
            ["@rid": 3, "@type": "Rich.VerySpecialItem", "ID": 3, "Name": "three", "Ratio": .real(.infinity), "Color": "Green",
             "Access": "None", "Span": "-PT30M", "At": "23:59:59.5", "Data": "/w==", "Small": 0, "Tags": #"["b","a"]"#,
             "Scores": #"["-1"]"#, "Home": 1, "Home/Zip": 0, "Places": #"[{"City":"Paris","Zip":75001}]"#,
             "Shape": ##"{"@odata.type":"#Rich.Circle","Radius":"1"}"##, "Extra": "y", "Level": 7],
            ["@rid": 4, "ID": 4, "Name": "four", "Ratio": .real(-.infinity), "Span": "PT3600S", "At": "09:00:00",
             "Tags": #"["日本"]"#, "Home": 1, "Home/City": "Rome", "Note": #"{"Text":"x"}"#],
            ["@rid": 5, "ID": 5, "Name": "five", "Ratio": .real(0), "Color": "Red", "Access": "Read,Delete", "Span": "PT0S",
             "At": "00:00:00", "Tags": #"["a"]"#],
        ]
        let more: [[String: SQLValue]] = [
            ["Flag": 1, "Price": "1.50", "Big": .integer(9_007_199_254_740_993), "When": "2024-01-01T10:00:00Z", "Day": "2024-01-01"],
            ["Flag": 0, "Price": "-0.01", "Big": .integer(-9_223_372_036_854_775_807), "When": "2024-01-01T12:00:00+02:00", "Day": "2020-02-29"],
            ["Flag": .null, "Price": "0", "Big": 0, "When": "2023-12-31T23:30:00-05:00", "Day": .null],
            ["Flag": 1, "Price": "999999999999.999999", "Big": .integer(.max), "When": .null, "Day": "0001-01-01"],
            ["Flag": 0, "Price": .null, "Big": .null, "When": "9999-12-31T23:59:59.9999999Z", "Day": "9999-12-31"],
        ]
        for (row, extra) in zip(rows, more) { try h.insert("Items", row.merging(extra) { a, _ in a }) }
        try h.insert("People", ["@rid": 1, "ID": "p1", "Name": "Ann", "@extra": #"{"Nick":"annie","Age":30}"#])
        try h.insert("People", ["@rid": 2, "ID": "p2", "Name": "Bob", "@extra": #"{"Age":40}"#])
        try h.insert("People", ["@rid": 3, "ID": "p3", "Name": "Cy"])
        try h.link("Items", "Children", from: 1, to: 2)
        try h.link("Items", "Children", from: 1, to: 3)
        try h.link("Items", "Children", from: 3, to: 4)
        try h.link("Items", "Owner", from: 1, to: 1)
        try h.link("Items", "Owner", from: 2, to: 2)
        try h.link("Items", "Friends", from: 2, to: 1)
        try h.link("Items", "Friends", from: 2, to: 2)
        return h
    }

    func check(_ h: QueryHarness, _ cases: [(String, [String])], sourceLocation: SourceLocation = #_sourceLocation) {
        for (url, expected) in cases {
            do {
                let got = try h.keys(url)
                #expect(got == expected, "\(url)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(url): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func doublesWithNaNAndInfinities() throws {
        let h = try Self.items()
        check(h, [
            ("Items?$filter=Ratio eq 1.5", ["1"]),
            ("Items?$filter=Ratio gt 1", ["1", "3"]),
            ("Items?$filter=Ratio lt 0", ["4"]),
            ("Items?$filter=Ratio eq INF", ["3"]),
            ("Items?$filter=Ratio eq -INF", ["4"]),
            ("Items?$filter=Ratio eq NaN", []),
            ("Items?$filter=Ratio ne NaN", ["1", "2", "3", "4", "5"]),
            ("Items?$filter=Ratio ne 1.5", ["2", "3", "4", "5"]),
            ("Items?$filter=Ratio eq Ratio", ["1", "3", "4", "5"]),
            ("Items?$filter=not (Ratio gt 1)", ["2", "4", "5"]),
            ("Items?$filter=Ratio in (1.5, NaN, INF)", ["1", "3"]),
            ("Items?$filter=Ratio add 1 eq 2.5", ["1"]),
            ("Items?$filter=Ratio div 0 eq INF", ["1", "3"]),
            ("Items?$filter=Ratio mul 0 eq 0", ["1", "5"]),
            ("Items?$filter=Ratio sub Ratio eq 0", ["1", "5"]),
            ("Items?$filter=round(Ratio) eq 2", ["1"]),
            ("Items?$filter=floor(Ratio) eq 1", ["1"]),
            ("Items?$filter=ceiling(Ratio) eq 2", ["1"]),
            ("Items?$filter=Ratio mod 1 eq 0.5", ["1"]),
            ("Items?$filter=-Ratio eq -1.5", ["1"]),
            ("Items?$filter=Weight eq 0.1", ["1"]),
            ("Items?$filter=Weight eq null", ["2", "3", "4", "5"]),
            ("Items?$filter=Ratio gt Small", ["3"]),
        ])
        check(h, [("Items?$orderby=Ratio", ["4", "5", "1", "3", "2"]), ("Items?$orderby=Ratio desc", ["2", "3", "1", "5", "4"])])
    }

    @Test func enumerationsAndFlags() throws {
        let h = try Self.items()
        check(h, [
            ("Items?$filter=Color eq Rich.Color'Red'", ["1", "5"]),
            ("Items?$filter=Color eq R.Color'Red'", ["1", "5"]),
            ("Items?$filter=Color eq 'Blue'", ["2"]),
            ("Items?$filter=Color eq Rich.Color'2'", ["2"]),
            ("Items?$filter=Color ne Rich.Color'Red'", ["2", "3", "4"]),
            ("Items?$filter=Color gt Rich.Color'Red'", ["2", "3"]),
            ("Items?$filter=Color eq null", ["4"]),
            ("Items?$filter=Color in (Rich.Color'Green', Rich.Color'Blue')", ["2", "3"]),
            ("Items?$filter=Access has Rich.Access'Write'", ["1"]),
            ("Items?$filter=Access has Rich.Access'Read'", ["1", "5"]),
            ("Items?$filter=Access has Rich.Access'Read,Write'", ["1"]),
            ("Items?$filter=Access has Rich.Access'None'", ["1", "2", "3", "5"]),
            ("Items?$filter=not (Access has Rich.Access'Read')", ["2", "3"]),
            ("Items?$filter=Access eq Rich.Access'Write,Read'", ["1"]),
            ("Items?$filter=Access eq Rich.Access'3'", ["1"]),
            ("Items?$filter=Access eq Rich.Access'None'", ["3"]),
        ])
        check(h, [("Items?$orderby=Color", ["4", "1", "5", "3", "2"]), ("Items?$orderby=Access desc", ["5", "2", "1", "3", "4"])])
    }

    @Test func durationsTimesOfDayAndBinary() throws {
        let h = try Self.items()
        check(h, [
            ("Items?$filter=Span eq duration'PT60M'", ["1", "4"]),
            ("Items?$filter=Span gt duration'PT59M'", ["1", "2", "4"]),
            ("Items?$filter=Span lt duration'PT0S'", ["3"]),
            ("Items?$filter=Span add duration'PT30M' eq duration'PT0S'", ["3"]),
            ("Items?$filter=Span sub duration'PT1H' eq duration'PT0S'", ["1", "4"]),
            ("Items?$filter=Span mul 2 eq duration'PT2H'", ["1", "4"]),
            ("Items?$filter=Span div 2 eq duration'PT30M'", ["1", "4"]),
            ("Items?$filter=Span mul 1.5 eq duration'PT1H30M'", ["1", "4"]),
            ("Items?$filter=-Span eq duration'PT30M'", ["3"]),
            ("Items?$filter=totalseconds(Span) eq 3600", ["1", "4"]),
            ("Items?$filter=totalseconds(Span) eq -1800", ["3"]),
            ("Items?$filter=totalseconds(Span) eq 86400", ["2"]),
            ("Items?$filter=At eq 10:00:00", ["1", "2"]),
            ("Items?$filter=At gt 12:00", ["3"]),
            ("Items?$filter=hour(At) eq 10", ["1", "2"]),
            ("Items?$filter=second(At) eq 59", ["3"]),
            ("Items?$filter=fractionalseconds(At) eq 0.5", ["3"]),
            ("Items?$filter=Data eq binary'AAEC'", ["1", "2"]),
            ("Items?$filter=Data eq binary'_w'", ["3"]),
            ("Items?$filter=Data ne null", ["1", "2", "3"]),
            ("Items?$filter=Small eq 255", ["1"]),
            ("Items?$filter=Small add 1 eq 256", ["1"]),
        ])
        check(h, [("Items?$orderby=Span", ["3", "5", "1", "4", "2"]), ("Items?$orderby=At", ["5", "4", "1", "2", "3"]),
                  ("Items?$orderby=Data", ["4", "5", "1", "2", "3"])])
    }

    @Test func collectionsOfPrimitivesAndComplexValues() throws {
        let h = try Self.items()
        check(h, [
            ("Items?$filter=Tags/any(t:t eq 'a')", ["1", "3", "5"]),
            ("Items?$filter=Tags/any(t:t eq 'A')", []),
            ("Items?$filter=Tags/all(t:t ne 'a')", ["2", "4"]),
            ("Items?$filter=Tags/any()", ["1", "3", "4", "5"]),
            ("Items?$filter=Tags/$count eq 2", ["3"]),
            ("Items?$filter=Tags/$count eq 0", ["2"]),
            ("Items?$filter=length(Tags) eq 3", ["1"]),
            ("Items?$filter=Tags/any(t:startswith(t,'日'))", ["1", "4"]),
            ("Items?$filter=Tags/any(t:tolower(t) eq 'b')", ["1", "3"]),
            ("Items?$filter=Tags/any(t:t eq $it/Name)", []),
            ("Items?$filter=Scores/any(s:s eq 9007199254740993)", ["1"]),
            ("Items?$filter=Scores/any(s:s lt 0)", ["3"]),
            ("Items?$filter=Scores/all(s:s gt 0)", ["1", "2", "4", "5"]),
            ("Items?$filter=Scores/$count eq 0", ["2", "4", "5"]),
            ("Items?$filter=Amounts/any(a:a lt 0)", ["1"]),
            ("Items?$filter=Amounts/any(a:a eq 1.5)", ["1"]),
            ("Items?$filter=Places/any(p:p/City eq 'Rome')", ["1"]),
            ("Items?$filter=Places/any(p:p/Zip eq null)", ["1"]),
            ("Items?$filter=Places/all(p:p/Zip gt 0)", ["2", "3", "4", "5"]),
            ("Items?$filter=Places/$count eq 2", ["1"]),
            ("Items?$filter=Places/any(p:p/Geo/Lat gt 0)", []),
            ("Items?$filter=Places/any(p:p/City eq 'Paris' and p/Zip eq 75001)", ["3"]),
            ("Items?$filter=Places/any(p:p/City eq $it/Home/City)", []),
            ("Items?$filter=Places/any(p:p/Zip eq $it/Home/Zip)", []),
        ])
    }

    @Test func complexValuesFlattenedAndInJSON() throws {
        let h = try Self.items()
        check(h, [
            ("Items?$filter=Home/City eq 'Paris'", ["1"]),
            ("Items?$filter=Home eq null", ["2", "5"]),
            ("Items?$filter=Home ne null", ["1", "3", "4"]),
            ("Items?$filter=Home/City eq null", ["2", "3", "5"]),
            ("Items?$filter=Home/Zip gt 0", ["1"]),
            ("Items?$filter=Home/Geo/Lat gt 48", ["1"]),
            ("Items?$filter=Home/Geo eq null", ["2", "3", "4", "5"]),
            ("Items?$filter=Shape/Label eq 'box'", ["1"]),
            ("Items?$filter=isof(Shape,Rich.Circle)", ["2", "3"]),
            ("Items?$filter=isof(Shape,Rich.Shape)", ["1", "2", "3"]),
            ("Items?$filter=Shape/Rich.Circle/Radius gt 2", ["2"]),
            ("Items?$filter=Shape/Rich.Circle/Radius eq null", ["1", "4", "5"]),
            ("Items?$filter=Shape eq null", ["4", "5"]),
            ("Items?$filter=Shape/Label eq null", ["3", "4", "5"]),
            ("Items?$filter=Note/Text eq 'hi'", ["1"]),
            ("Items?$filter=Note/Mood eq 'happy'", ["1"]),
            ("Items?$filter=Note eq null", ["2", "3", "5"]),
            ("Items?$filter=Location eq null", ["1", "2", "3", "4", "5"]),
        ])
        check(h, [("Items?$orderby=Home/City desc,ID", ["4", "1", "2", "3", "5"])])
    }

    @Test func derivedTypesAndTypeFunctions() throws {
        let h = try Self.items()
        check(h, [
            ("Items?$filter=isof(Rich.SpecialItem)", ["2", "3"]),
            ("Items?$filter=isof(Rich.VerySpecialItem)", ["3"]),
            ("Items?$filter=isof(Rich.Item)", ["1", "2", "3", "4", "5"]),
            ("Items?$filter=isof($it,Rich.SpecialItem)", ["2", "3"]),
            ("Items?$filter=not isof(Rich.SpecialItem)", ["1", "4", "5"]),
            ("Items?$filter=Rich.SpecialItem/Extra eq 'x'", ["2"]),
            ("Items?$filter=Rich.VerySpecialItem/Level eq 7", ["3"]),
            ("Items?$filter=Rich.SpecialItem/Extra eq null", ["1", "4", "5"]),
            ("Items?$filter=Rich.SpecialItem/Name eq 'one'", []),
            ("Items?$filter=Rich.SpecialItem/Name eq 'two'", ["2"]),
            ("Items?$filter=cast(Small,Edm.Int32) eq 255", ["1"]),
            ("Items?$filter=cast(Small,Edm.String) eq '255'", ["1"]),
            ("Items?$filter=cast(ID,Edm.Decimal) eq 1.0", ["1"]),
            ("Items?$filter=cast(ID,Edm.Byte) eq null", []),
            ("Items?$filter=cast(ID,Edm.Double) gt 4.5", ["5"]),
            ("Items?$filter=cast(Color,Edm.String) eq 'Red'", ["1", "5"]),
            ("Items?$filter=isof(Name,Edm.String)", ["1", "2", "3", "4", "5"]),
            ("Items?$filter=isof(Small,Edm.Int64)", ["1", "2", "3"]),
            ("Items?$filter=isof(ID,Edm.Byte)", ["1", "2", "3", "4", "5"]),
            ("Items?$filter=isof(Name,Rich.Item)", []),
        ])
    }

    @Test func navigationThroughLinkTables() throws {
        let h = try Self.items()
        check(h, [
            ("Items?$filter=Children/any()", ["1", "3"]),
            ("Items?$filter=Children/any(c:c/Name eq 'four')", ["3"]),
            ("Items?$filter=Children/$count eq 2", ["1"]),
            ("Items?$filter=Parent/Name eq 'one'", ["2", "3"]),
            ("Items?$filter=Parent eq null", ["1", "5"]),
            ("Items?$filter=Parent/Parent/Name eq 'one'", ["4"]),
            ("Items?$filter=Children/Rich.SpecialItem/any()", ["1"]),
            ("Items?$filter=Children/Rich.VerySpecialItem/$count eq 1", ["1"]),
            ("Items?$filter=Children/any(c:isof(c,Rich.VerySpecialItem))", ["1"]),
            ("Items?$filter=Children/any(c:c/Children/any(d:d/Name eq 'four'))", ["1"]),
            ("Items?$filter=Children/all(c:c/Parent/ID eq $it/ID)", ["1", "2", "3", "4", "5"]),
            ("Items?$filter=Owner/Name eq 'Ann'", ["1"]),
            ("Items?$filter=Owner eq null", ["3", "4", "5"]),
            ("Items?$filter=Rich.SpecialItem/Friends/any(f:f/Name eq 'Bob')", ["2"]),
            ("Items?$filter=isof(Parent,Rich.SpecialItem)", ["4"]),
            ("Items?$filter=Parent/Rich.SpecialItem/Extra eq 'y'", ["4"]),
            ("Items?$filter=Parent/Children/any(c:c/Name eq 'three')", ["2", "3"]),
            ("Items?$filter=Parent/Tags/any(t:t eq 'a')", ["2", "3", "4"]),
            ("Items?$filter=Parent/Children/$count eq 2", ["2", "3"]),
            ("Items?$filter=Rich.SpecialItem/Friends/$count eq 2", ["2"]),
            ("Items?$filter=isof(Parent,Rich.Item)", ["2", "3", "4"]),
            ("Items?$filter=Children/any(c:c/Tags/any(t:t eq 'b'))", ["1"]),
            ("Items?$filter=Children/any(c:c/Tags/any(t:t eq c/Name or t eq $it/Name))", []),
        ])
        check(h, [("Items?$orderby=Parent/Name desc,ID", ["4", "2", "3", "1", "5"])])
    }

    @Test func dynamicPropertiesOfOpenTypes() throws {
        let h = try Self.items()
        check(h, [
            ("People?$filter=Nick eq 'annie'", ["p1"]),
            ("People?$filter=Age gt 35", ["p2"]),
            ("People?$filter=Age eq null", ["p3"]),
            ("People?$filter=Age add 1 eq 31", ["p1"]),
        ])
        check(h, [("People?$orderby=Age desc", ["p2", "p1", "p3"])])
    }

    @Test func unsupportedConstructsNameThemselves() throws {
        let h = try Self.items()
        for (url, construct) in [
            ("Items?$filter=geo.length(Location) gt 1", "geo.length"),
            ("Items?$filter=cast(Ratio,Edm.String) eq '1.5'", "cast"),
            // Items compared with `eq`: complex values and entities are not (docs/offline-queries.md).
            ("Items?$filter=hassubsequence(Places,Places)", "complex values"),
            ("Items?$filter=contains(Children,Children)", "collection of entities"),
            ("Items?$filter=Revisions/any()", "containment"),
        ] {
            let e = h.translationError(url)
            #expect(e?.code == .unsupported, "\(url)")
            #expect(e?.message.contains("cannot be evaluated offline") == true, "\(url): \(e?.message ?? "-")")
            #expect(e?.message.contains(construct) == true, "\(url): \(e?.message ?? "-")")
        }
    }
}
