import Testing
@testable import ODataProtocol
@testable import ODataStore

/// Tables derived from real $metadata documents.
@Suite("Offline: store schema")
struct StoreSchemaTests {
    @Test func v4TestService() throws {
        let schema = StoreSchema(model: try OfflineFixtures.v4())
        let products = try #require(schema.table(forSet: "Products"))
        #expect(products.sqlName == "e:Products")
        #expect(products.keyColumns.map(\.sqlName) == ["ID"])
        #expect(products.column("Price")?.kind == .decimal)
        #expect(products.column("Stock")?.kind == .integer)
        #expect(products.column("LastModified")?.kind == .instant)
        #expect(products.column("ReleaseDate")?.kind == .text)
        let lines = try #require(schema.table(forSet: "OrderLines"))
        #expect(lines.keyColumns.map(\.sqlName) == ["OrderID", "LineNo"])
        // Product.Category has a referential constraint: a column join, both ways.
        let toCategory = try schema.link(from: products, navigation: "Category").get()
        guard case .columns(let pairs) = toCategory.join else { Issue.record("expected a column join"); return }
        #expect(pairs.map { "\($0.source.sqlName)=\($0.target.sqlName)" } == ["CategoryID=ID"])
        let categories = try #require(schema.table(forSet: "Categories"))
        let toProducts = try schema.link(from: categories, navigation: "Products").get()
        #expect(toProducts.isCollection)
        #expect(toProducts.condition(source: "a", target: "b") == "a.\"ID\" = b.\"CategoryID\"")
        // Every statement runs on a real database.
        let db = try OfflineFixtures.database(schema)
        #expect(try db.scalar("SELECT count(*) FROM \"e:Products\"") == .integer(0))
    }

    @Test func flightSampleV2() throws {
        let schema = StoreSchema(model: try OfflineFixtures.flight())
        let flights = try #require(schema.table(forSet: "FlightCollection"))
        #expect(flights.keyColumns.map(\.sqlName) == ["carrid", "connid", "fldate"])
        // Complex property flattened: flightDetails/cityFrom etc.
        #expect(flights.column("flightDetails")?.kind == .presence)
        #expect(flights.column("flightDetails/cityFrom")?.kind == .text)
        #expect(flights.column("fldate")?.kind == .instant)
        _ = try OfflineFixtures.database(schema)
    }

    @Test func everyFixtureModelGivesAWorkingDatabase() throws {
        for fixture in ["gregorwolf/bookshop-demo/srv/external/GWSAMPLE_BASIC/GWSAMPLE_BASIC.edmx",
                        "SAP/python-pyodata/tests/metadata.xml",
                        "apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core/$metadata.xml",
                        "apache/olingo-odata4/lib/client-core/src/test/resources/org/apache/olingo/client/core/northwind-metadata.xml",
                        "oasis-tcs/odata-openapi/examples/TripPin.xml",
                        "servers/v2_metadata.xml"] {
            let schema = StoreSchema(model: try OfflineFixtures.model(fixture))
            #expect(!schema.tables.isEmpty, "\(fixture)")
            _ = try OfflineFixtures.database(schema)
        }
    }

    @Test func namesThatDifferOnlyInCaseGetDistinctSQLNames() {
        var names = CaseInsensitiveNames()
        #expect(names.claim("e:Products") == "e:Products")
        #expect(names.claim("e:products") == "e:products#2")
        #expect(names.claim("e:PRODUCTS") == "e:PRODUCTS#3")
    }
}
