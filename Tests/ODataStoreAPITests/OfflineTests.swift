import ODataStore
import Testing

/// An offline store through the async API: opened with its download progress as an
/// AsyncSequence, read locally as Codable values, reopened with the service stopped.
@Suite("Swift API, offline", .serialized, .timeLimit(.minutes(3)))
struct OfflineTests {
    @Test func opensWithProgressAndReadsLocally() async throws {
        let server = try Server.start(.v4, pageSize: 100)
        var options = StoreOptions(serviceRoot: server.root)
        options.kind = .offline
        options.storePath = temporaryPath("products.store")
        options.definingRequests = ["Products", "Customers", "OrderLines?$filter=OrderID le 1010"]
        options.downloadPageSize = 50

        let opening = try Store.opening(options)
        var reports: [DownloadProgress] = []
        for await p in opening.progress { reports.append(p) }  // ends when the download does
        let store = try await opening.opened()
        #expect(store.state == .open)
        let products = reports.filter { $0.definingRequest == "Products" }
        #expect(products.map(\.entities) == [50, 100, 150, 200, 250, 300])
        #expect(products.last?.requestFinished == true)
        let total = reports.last?.totalEntities ?? 0
        #expect(total == 364)  // 300 products, 20 customers, 44 order lines
        // A sequence made after the opening: the whole history, then the end.
        var again = 0
        for await _ in opening.progress { again += 1 }
        #expect(again == reports.count)

        let info = try store.offlineInfo()
        #expect(info.definingRequests.allSatisfy { $0.isComplete })

        // Local reads: the same Codable values, no request to the service.
        let response = try await store.read(ResourcePath(entitySet: "Products").filter("Price gt \(ODataDecimal(990))").orderBy("ID"))
        #expect(response.isLocal)
        let expensive = try response.decode([Product].self)
        #expect(expensive.map(\.id) == (1...300).filter { Seed.price($0) > 990 })
        let fifty = try await store.read(Product.self, from: "Products", key: 50)
        #expect(fifty.stock == 9_007_199_254_741_043 && fifty.releaseDate == Seed.releaseDate(50))
        #expect(try await store.read(Customer.self, from: "Customers", key: "O'NEIL").city != nil)
        #expect(try await store.read(Int64.self, from: "Products/$count") == 300)
        let entity = try await store.read(ODataEntity.self, from: "OrderLines", key: ["OrderID": 1002, "LineNo": 3])
        #expect(entity["UnitPrice"]?.decimal == Seed.price(71))
        // Outside the defining requests: not in scope.
        do {
            _ = try await store.read("Categories")
            Issue.record("Categories was answered")
        } catch {
            #expect(error.code == .notInScope)
        }
        await store.close()

        // Reopened with the service stopped: everything from the file.
        server.stop()
        let reopened = try await Store.open(options)
        let local = try await reopened.read([Product].self, from: ResourcePath(entitySet: "Products").filter("ID le \(3)").orderBy("ID"))
        #expect(local.map(\.price) == [Seed.price(1), Seed.price(2), Seed.price(3)])
        await reopened.close()
    }

    @Test func aFirstOpenThatCannotDownloadThrows() async throws {
        let server = try Server.start(.v4)
        var options = StoreOptions(serviceRoot: server.root)
        options.kind = .offline
        options.storePath = temporaryPath("bad.store")
        options.definingRequests = ["NoSuchSet"]
        do {
            _ = try await Store.open(options)
            Issue.record("a store with an unknown defining request opened")
        } catch {
            #expect(error.code != .cancelled)
            #expect(error.message.contains("NoSuchSet"))
        }
    }

    @Test func v2OfflineStore() async throws {
        let server = try Server.start(.v2)
        var options = StoreOptions(serviceRoot: server.root)
        options.kind = .offline
        options.storePath = temporaryPath("v2.store")
        options.definingRequests = ["Products", "Customers"]
        let store = try await Store.open(options)
        let p = try await store.read(ProductV2.self, from: "Products", key: 50)
        #expect(p.stock == 9_007_199_254_741_043)
        #expect(p.releaseDate == Seed.releaseDate(50))
        let customers = try await store.read([Customer].self, from: ResourcePath(entitySet: "Customers").filter("City eq \("Rome")"))
        #expect(!customers.isEmpty && customers.allSatisfy { $0.city == "Rome" })
        await store.close()
    }

    struct Rename: Codable, Sendable {
        var name: String
        enum CodingKeys: String, CodingKey { case name = "Name" }
    }

    struct PriceChange: Codable, Sendable {
        var price: ODataDecimal
        enum CodingKeys: String, CodingKey { case price = "Price" }
    }

    @Test func localWritesUploadDownloadAndTheErrorArchive() async throws {
        let server = try Server.start(.v4)
        var options = StoreOptions(serviceRoot: server.root)
        options.kind = .offline
        options.storePath = temporaryPath("sync.store")
        options.definingRequests = ["Products", "Customers"]
        let store = try await Store.open(options)
        let online = try await Store.open(serviceRoot: server.root)

        // Someone changes Products(9) on the service: our offline change of it will be stale.
        try await online.update(Rename(name: "Changed online"), in: "Products", key: 9, etag: "W/\"1\"")

        // Local writes through the same calls as online ones.
        let created = try await store.create(Customer(customerID: "UPL1", companyName: "Uploaded", city: "Zug"), in: "Customers")
        #expect(created.isLocal)
        try await store.update(PriceChange(price: "70.70"), in: "Products", key: 7)
        try await store.update(Rename(name: "Changed offline"), in: "Products", key: 9)
        #expect(try await store.read(Product.self, from: "Products", key: 7).price == "70.70")
        #expect(try store.pendingChangeCount() == 3)

        // The upload, with its progress as a sequence.
        let upload = try store.uploading()
        var sent: [Int] = []
        for await p in upload.progress { sent.append(p.sent) }
        let result = try await upload.value()
        #expect(result == UploadResult(confirmed: 2, failed: 1, remaining: 0))
        #expect(sent == [1, 2, 3])
        #expect(try await online.read(Customer.self, from: "Customers", key: "UPL1").city == "Zug")
        #expect(try await online.read(Product.self, from: "Products", key: 7).price == "70.70")

        // The refused change is in the archive; reverting it brings the service's version back.
        let archived = try store.errorArchive()
        #expect(archived.count == 1 && archived.first?.httpStatus == 412)
        try await store.revertError(id: archived[0].id)
        #expect(try store.errorArchive().isEmpty)
        #expect(try await store.read(Product.self, from: "Products", key: 9).name == "Changed online")

        // A download brings what changed on the service since.
        let ten = try await online.read(Product.self, from: "Products", key: 10)
        try await online.update(Rename(name: "Renamed online"), in: "Products", key: 10, etag: ten.etag)
        let download = try store.downloading(["Products"])
        var pages = 0
        for await _ in download.progress { pages += 1 }
        try await download.value()
        #expect(pages > 0)
        #expect(try await store.read(Product.self, from: "Products", key: 10).name == "Renamed online")
        // And without the progress: the plain async call.
        try await store.download()
        #expect(try await store.upload() == UploadResult(confirmed: 0, failed: 0, remaining: 0))

        await online.close()
        await store.close()
    }
}
