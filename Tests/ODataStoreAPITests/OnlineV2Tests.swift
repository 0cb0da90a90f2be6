import ODataStore
import Testing

/// The same API against the real V2 service (pyslet): the values come out the same although
/// the service speaks V2 JSON (DateTime as /Date(...)/, Int64 and Decimal as strings).
@Suite("Swift API, online V2", .serialized, .timeLimit(.minutes(3)))
struct OnlineV2Tests {
    @Test func readsTypedValuesKeysAndOperations() async throws {
        let server = try Server.start(.v2)
        let store = try await Store.open(serviceRoot: server.root)
        #expect(store.odataVersion == .v2)
        let products = try await store.read([ProductV2].self, from: ResourcePath(entitySet: "Products").filter("ID le \(5) or ID eq \(50)").orderBy("ID"))
        #expect(products.map(\.id) == [1, 2, 3, 4, 5, 50])
        for p in products {
            #expect(p.price == Seed.price(p.id))
            #expect(p.stock == Seed.stock(p.id))
            // Edm.DateTime at midnight UTC reads as a date.
            #expect(p.releaseDate == Seed.releaseDate(p.id))
            #expect(p.description == Seed.description(p.id))
        }
        // Keys typed and spelled for V2; pyslet cannot read non-ASCII or '%' keys (README).
        for id in ["O'NEIL", "A&B", "SP ACE", "PLUS+1", "HASH#1", "Q?X", "ALFKI"] {
            #expect(try await store.read(Customer.self, from: "Customers", key: EntityKey(id)).customerID == id)
        }
        let line = try await store.read(OrderLine.self, from: "OrderLines", key: ["OrderID": 1002, "LineNo": 3])
        #expect(line.productID == 71)
        // Typed by the model: V2 DateTime as a date-time, Int64 and Decimal exact.
        let entity = try await store.read(ODataEntity.self, from: "Products", key: 50)
        #expect(entity["ReleaseDate"] == .dateTimeOffset(ODataDateTimeOffset("2020-02-20T00:00:00Z")!))
        #expect(entity["Stock"] == .int(9_007_199_254_741_043))
        #expect(entity["Price"]?.decimal?.description == "868.50")
        // Operations and counts.
        #expect(try await store.call("TotalStock", returning: Int64.self) == 54_043_195_572_547_008)
        let rated = try await store.call(ResourcePath("ProductsByRating").query("rating", "\(4)"), returning: [ProductV2].self)
        #expect(!rated.isEmpty && rated.allSatisfy { $0.rating == 4 })
        #expect(try await store.read(Int64.self, from: "Products/$count") == 300)
        let counted = try await store.read(ResourcePath(entitySet: "Products").top(2).count())
        #expect(counted.count == 300)
        await store.close()
    }

    @Test func pagesFollowV2NextLinks() async throws {
        let server = try Server.start(.v2)
        let store = try await Store.open(serviceRoot: server.root)
        var ids: [Int] = []
        var pages = 0
        for try await page in store.pages(of: "Products") {
            pages += 1
            ids += try page.decode([ProductV2].self).map(\.id)
        }
        // pyslet sends a next link with its third full page, and then an empty fourth page.
        #expect(pages == 4)
        #expect(ids.sorted() == Array(1...300))
        await store.close()
    }

    struct NewProduct: Codable, Sendable {
        var id: Int
        var name: String
        var price: ODataDecimal
        var stock: Int64
        var discontinued: Bool
        var releaseDate: ODataDate
        var version: Int
        enum CodingKeys: String, CodingKey {
            case id = "ID", name = "Name", price = "Price", stock = "Stock", discontinued = "Discontinued"
            case releaseDate = "ReleaseDate", version = "Version"
        }
    }

    struct Rename: Codable, Sendable {
        var id: Int
        var name: String
        enum CodingKeys: String, CodingKey { case id = "ID", name = "Name" }
    }

    @Test func createUpdateDelete() async throws {
        let server = try Server.start(.v2)
        let store = try await Store.open(serviceRoot: server.root)
        // An ODataDate for an Edm.DateTime property goes as midnight UTC (/Date(ms)/ on the wire).
        let new = NewProduct(id: 1001, name: "V2 product", price: "7.05", stock: 9_007_199_254_740_995, discontinued: true,
                             releaseDate: ODataDate(year: 2023, month: 12, day: 31)!, version: 1)
        let created = try await store.create(new, in: "Products")
        #expect(created.status == 201)
        var p = try await store.read(ProductV2.self, from: "Products", key: 1001)
        #expect(p.name == "V2 product")
        #expect(p.price.description == "7.05")
        #expect(p.stock == 9_007_199_254_740_995)
        #expect(p.releaseDate == new.releaseDate)
        // MERGE with the key taken from the value.
        let updated = try await store.update(Rename(id: 1001, name: "Renamed"), in: "Products")
        #expect(updated.status == 204)
        p = try await store.read(ProductV2.self, from: "Products", key: 1001)
        #expect(p.name == "Renamed")
        #expect(p.price.description == "7.05")
        try await store.delete(from: "Products", key: 1001)
        do {
            _ = try await store.read(ProductV2.self, from: "Products", key: 1001)
            Issue.record("the deleted product is still there")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.httpStatus == 404)
        }
        await store.close()
    }
}
