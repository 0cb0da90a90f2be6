import ODataStore
import Testing

/// The async API against the real V4 service (odatapy), through `import ODataStore` alone.
@Suite("Swift API, online V4", .serialized, .timeLimit(.minutes(3)))
struct OnlineV4Tests {
    @Test func readsEntitiesAsCodableValuesWithExactTypes() async throws {
        let server = try Server.start(.v4)
        let store = try await Store.open(serviceRoot: server.root)
        #expect(store.state == .open)
        #expect(store.odataVersion == .v4)

        let path = ResourcePath(entitySet: "Products").filter("ID le \(10) or ID eq \(50) or ID eq \(107)").orderBy("ID")
        let products = try await store.read([Product].self, from: path)
        #expect(products.map(\.id) == Array(1...10) + [50, 107])
        for p in products {
            #expect(p.name == "Product " + (p.id < 10 ? "00" : p.id < 100 ? "0" : "") + String(p.id))
            #expect(p.price == Seed.price(p.id))
            #expect(p.stock == Seed.stock(p.id))
            #expect(p.releaseDate == Seed.releaseDate(p.id))
            #expect(p.lastModified == Seed.lastModified(p.id))
            #expect(p.description == Seed.description(p.id))
            #expect(p.rating == Seed.rating(p.id))
            #expect(p.discontinued == (p.id % 5 == 0))
            #expect(p.uuid != nil)
        }
        // Int64 above 2^53 and Decimal digits arrive exact, never through a Double.
        let fifty = try #require(products.first { $0.id == 50 })
        #expect(fifty.stock == 9_007_199_254_741_043)
        #expect(fifty.price.description == "868.50")
        #expect(fifty.releaseDate.description == "2020-02-20")

        // One entity by key, and its ETag under its annotation's name.
        let seven = try await store.read(Product.self, from: "Products", key: 7)
        #expect(seven.id == 7 && seven.description == nil)
        #expect(seven.etag != nil)
        await store.close()
        #expect(store.state == .closed)
    }

    @Test func keysAreValuesNeverQuotedByHand() async throws {
        let server = try Server.start(.v4)
        let store = try await Store.open(serviceRoot: server.root)
        // Quotes, &, #, +, ?, %, space and non-ASCII in string keys.
        for id in Seed.customerIDs {
            let c = try await store.read(Customer.self, from: "Customers", key: EntityKey(id))
            #expect(c.customerID == id)
            #expect(c.companyName == "Company \(id)")
        }
        // A compound key, in any order, and a key after a navigation.
        let line = try await store.read(OrderLine.self, from: "OrderLines", key: ["LineNo": 3, "OrderID": 1002])
        #expect(line.orderID == 1002 && line.lineNo == 3)
        #expect(line.productID == (10 * 7) % 300 + 1)
        let inCategory = try await store.read(Product.self, from: ResourcePath(entitySet: "Categories", key: 3).navigation("Products", key: 13))
        #expect(inCategory.id == 13)
        // A key of the wrong type or shape is refused before anything is sent.
        await #expect(throws: ODataStoreError.self) { try await store.read(Customer.self, from: "Customers", key: 7) }
        do {
            _ = try await store.read(OrderLine.self, from: "OrderLines", key: 1002)
            Issue.record("a compound key given as one value was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("compound key"))
        }
        do {
            _ = try await store.read(Product.self, from: "Nowhere", key: 1)
            Issue.record("an unknown entity set was accepted")
        } catch {
            #expect(error.code == .notFound)
        }
        await store.close()
    }

    @Test func queryTextWritesValuesAsLiterals() async throws {
        let server = try Server.start(.v4)
        let store = try await Store.open(serviceRoot: server.root)
        for id in ["O'NEIL", "A&B", "HASH#1", "PLUS+1", "Q?X", "SP ACE", "ZOË", "PCT%20"] {
            let found = try await store.read([Customer].self, from: ResourcePath(entitySet: "Customers").filter("CustomerID eq \(id)"))
            #expect(found.map(\.customerID) == [id], "\(id)")
        }
        let minimum: ODataDecimal = 990
        let expensive = try await store.read([Product].self, from: ResourcePath(entitySet: "Products").filter("Price gt \(minimum)").orderBy("ID"))
        #expect(expensive.map(\.id) == (1...300).filter { Seed.price($0) > minimum })
        #expect(expensive.allSatisfy { $0.price > minimum })
        let before = ODataDate(year: 2020, month: 1, day: 5)!
        let early = try await store.read([Product].self, from: ResourcePath(entitySet: "Products").filter("ReleaseDate lt \(before)").orderBy("ID"))
        #expect(early.map(\.id) == [1, 2, 3])
        let noDescription: String? = nil
        let nulls = try await store.read([Product].self, from: ResourcePath(entitySet: "Products").filter("Description eq \(noDescription)").top(3).orderBy("ID"))
        #expect(nulls.map(\.id) == [7, 14, 21])
        await store.close()
    }

    @Test func valuesCountsAndOperations() async throws {
        let server = try Server.start(.v4)
        let store = try await Store.open(serviceRoot: server.root)
        #expect(try await store.read(Int64.self, from: "Products/$count") == 300)
        #expect(try await store.read(ODataDecimal.self, from: ResourcePath(entitySet: "Products", key: 7).appending("Price")) == Seed.price(7))
        #expect(try await store.read(String.self, from: "Products(7)/Name") == "Product 007")
        #expect(try await store.call("TotalStock()", returning: Int64.self) == 54_043_195_572_547_008)
        let top = try await store.call("MostExpensive()", returning: Product.self)
        #expect(top.id == 107)
        let rated = try await store.call("ProductsByRating(rating=4)", returning: [Product].self)
        #expect(!rated.isEmpty && rated.allSatisfy { $0.rating == 4 })
        // $count with the results.
        let page = try await store.read(ResourcePath(entitySet: "Products").top(2).count())
        #expect(page.count == 300)
        #expect(try page.decode([Product].self).count == 2)
        await store.close()
    }

    @Test func entitiesTypedByTheModel() async throws {
        let server = try Server.start(.v4)
        let store = try await Store.open(serviceRoot: server.root)
        let entities = try await store.read([ODataEntity].self, from: "Products?$filter=ID eq 50&$expand=Category")
        let p = try #require(entities.first)
        #expect(p.typeName == "ODataStoreTest.Product")
        #expect(p["ID"] == .int(50))
        #expect(p["Price"] == .decimal(ODataDecimal("868.50")))
        #expect(p["Stock"] == .int(9_007_199_254_741_043))
        #expect(p["ReleaseDate"] == .date(Seed.releaseDate(50)))
        #expect(p["LastModified"] == .dateTimeOffset(Seed.lastModified(50)))
        #expect(p["UUID"]?.guid != nil)
        #expect(p["Discontinued"] == .bool(true))
        #expect(p["Description"] == .string("Description of product 50"))
        #expect(p["Category"]?.entity?["Name"] == .string("Épicerie fine"))
        #expect(p["Category"]?.entity?.typeName == "ODataStoreTest.Category")
        // A value result, typed by the property.
        #expect(try await store.read(ODataValue.self, from: "Products(50)/Stock") == .int(9_007_199_254_741_043))
        // Without the model the JSON decides (what Response.entities() gives).
        let untyped = try await store.read("Products(50)").entities()
        #expect(untyped.first?["Price"] == .string("868.50"))
        // An entity back as Codable.
        #expect(try ODataDecoder().decode(Product.self, from: p.canonicalJSON).stock == 9_007_199_254_741_043)
        await store.close()
    }

    @Test func pagesAreAnAsyncSequence() async throws {
        let server = try Server.start(.v4, pageSize: 100)
        let store = try await Store.open(serviceRoot: server.root)
        var ids: [Int] = []
        var pages = 0
        for try await page in store.pages(of: ResourcePath(entitySet: "Products").select("ID", "Name")) {
            pages += 1
            ids += try page.decode([ProductID].self).map(\.id)
        }
        #expect(pages == 3)
        #expect(ids == Array(1...300))
        // Breaking out sends nothing more; .follow reads every page into one response.
        var first: Response?
        for try await page in store.pages(of: "Products") {
            first = page
            break
        }
        #expect(first?.nextLink != nil)
        let all = try await store.read([Product].self, from: "Products", paging: .follow)
        #expect(all.count == 300)
        await store.close()
    }

    struct ProductID: Decodable { var id: Int; enum CodingKeys: String, CodingKey { case id = "ID" } }

    struct NewProduct: Codable, Sendable {
        var name: String
        var price: ODataDecimal
        var stock: Int64
        var discontinued: Bool
        var releaseDate: ODataDate
        var lastModified: ODataDateTimeOffset
        var categoryID: Int
        enum CodingKeys: String, CodingKey {
            case name = "Name", price = "Price", stock = "Stock", discontinued = "Discontinued"
            case releaseDate = "ReleaseDate", lastModified = "LastModified", categoryID = "CategoryID"
        }
    }

    struct PriceChange: Codable, Sendable {
        var id: Int?
        var price: ODataDecimal
        enum CodingKeys: String, CodingKey { case id = "ID", price = "Price" }
    }

    @Test func createUpdateDeleteWithETags() async throws {
        let server = try Server.start(.v4)
        let store = try await Store.open(serviceRoot: server.root)
        let new = NewProduct(name: "Swift product", price: "12.30", stock: 9_007_199_254_740_999, discontinued: false,
                             releaseDate: ODataDate(year: 2024, month: 2, day: 29)!,
                             lastModified: ODataDateTimeOffset("2024-05-06T07:08:09+02:00")!, categoryID: 2)
        let response = try await store.create(new, in: "Products")
        #expect(response.status == 201)
        let created = try response.decode(Product.self)
        #expect(created.id == 301)
        #expect(created.price == "12.3")
        #expect(created.price.description == "12.30")
        #expect(created.stock == 9_007_199_254_740_999)
        #expect(created.releaseDate == new.releaseDate)
        #expect(created.lastModified == new.lastModified)
        let etag = try #require(created.etag ?? response.etag)

        // A stale ETag is a conflict (412); the current one updates.
        do {
            try await store.update(PriceChange(price: "1.00"), in: "Products", key: 301, etag: "W/\"999\"")
            Issue.record("a stale ETag was accepted")
        } catch {
            #expect(error.code == .conflict)
            #expect(error.httpStatus == 412)
            #expect(error.description.contains("HTTP 412"))
        }
        try await store.update(PriceChange(price: "13.45"), in: "Products", key: 301, etag: etag)
        var reread = try await store.read(Product.self, from: "Products", key: 301)
        #expect(reread.price == "13.45")
        #expect(reread.etag != etag)
        // The key from the value itself; the ETag from If-Match "*".
        try await store.update(PriceChange(id: 301, price: "14.00"), in: "Products", etag: "*")
        reread = try await store.read(Product.self, from: "Products", key: 301)
        #expect(reread.price == 14)

        // Without any ETag the service demands one (428).
        do {
            try await store.update(PriceChange(price: "1.00"), in: "Products", key: 301)
            Issue.record("an update without If-Match was accepted")
        } catch {
            #expect(error.code == .preconditionRequired)
            #expect(error.httpStatus == 428)
        }
        try await store.delete(from: "Products", key: 301, etag: reread.etag)
        do {
            _ = try await store.read(Product.self, from: "Products", key: 301)
            Issue.record("the deleted product is still there")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.httpStatus == 404)
        }
        // An action with parameters encoded from Swift values.
        let changed = try await store.call("Discount", parameters: ["categoryID": 3, "percent": 10], returning: Int.self)
        #expect(changed == 30)
        await store.close()
    }

    @Test func aFailedRequestThrowsODataStoreError() async throws {
        let server = try Server.start(.v4)
        let store = try await Store.open(serviceRoot: server.root)
        // Through a function that throws `any Error`, as app code often does:
        // `catch let e as ODataStoreError` matches a failed request.
        func readMissing() async throws -> Response { try await store.read("Products(999)") }
        do {
            _ = try await readMissing()
            Issue.record("Products(999) was found")
        } catch let error as ODataStoreError {
            #expect(error.code == .notFound)
            #expect(error.httpStatus == 404)
            #expect(error.description.hasPrefix("not found (HTTP 404"))
            #expect(!error.message.isEmpty)
        }
        do {
            _ = try await store.read("Products?$filter=NoSuchProperty eq 1")
            Issue.record("a bad $filter was accepted")
        } catch {
            #expect(error.httpStatus == 400)
            #expect(error.code == .http)
            #expect(error.odataMessage != nil || error.odataCode != nil)
        }
        // A path the library refuses before sending.
        await #expect(throws: ODataStoreError.self) { try await store.read("Products(1") }
        await store.close()
        // After close: .closed.
        do {
            _ = try await store.read("Products(1)")
            Issue.record("a closed store answered")
        } catch {
            #expect(error.code == .closed)
        }
    }

    @Test func storeStatesAreAnAsyncSequence() async throws {
        let server = try Server.start(.v4)
        let store = try Store(options: StoreOptions(serviceRoot: server.root))
        let states = store.states
        try await store.waitUntilOpen()
        let watcher = Task {
            var seen: [StoreState] = []
            for await s in states { seen.append(s) }
            return seen
        }
        await store.close()
        let seen = await watcher.value
        #expect(seen.first == .opening || seen.first == .open)
        #expect(Array(seen.drop { $0 == .opening }) == [.open, .closing, .closed])
        // A sequence made after close: the last state, then the end.
        var after: [StoreState] = []
        for await s in store.states { after.append(s) }
        #expect(after == [.closed])
        await store.close()  // idempotent
    }

    @Test func printingShowsWhatMatters() async throws {
        let server = try Server.start(.v4)
        let store = try await Store.open(serviceRoot: server.root)
        let response = try await store.read(ResourcePath(entitySet: "Products").top(3).count())
        #expect(response.description.hasPrefix("Response(200, 3 entities, count 300"))
        #expect(String(describing: store).hasPrefix("Store(online, \(server.root), V4, open)"))
        #expect(ODataStoreError(.notFound, "Products(9): gone", httpStatus: 404, odataCode: "E404").description
            == "not found (HTTP 404, E404): Products(9): gone")
        let entity = try await store.read(ODataEntity.self, from: "Categories(1)")
        #expect(entity.description.contains("Name: \"Beverages\""))
        #expect("\(ResourcePath(entitySet: "Customers", key: "O'NEIL").filter("City eq \("Rome")"))" == "Customers(\"O'NEIL\")?$filter=City eq 'Rome'")
        await store.close()
    }
}
