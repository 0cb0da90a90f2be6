import Foundation
import ODataStoreFoundation
import Testing

/// ODataStoreFoundation: Foundation's types as Edm values, with Foundation imported next to
/// the API (no name clashes: `Operation` here is Foundation's).
@Suite("Swift API, Foundation bridging", .serialized, .timeLimit(.minutes(3)))
struct FoundationTests {
    /// Foundation's `Operation` still means Foundation's with ODataStore imported.
    final class Noop: Operation, @unchecked Sendable {}

    struct Product: Codable, Sendable {
        var id: Int
        var price: Decimal
        var stock: Int64
        var releaseDate: Date
        var lastModified: Date
        var uuid: UUID
        enum CodingKeys: String, CodingKey {
            case id = "ID", price = "Price", stock = "Stock", releaseDate = "ReleaseDate", lastModified = "LastModified", uuid = "UUID"
        }
    }

    struct NewProduct: Codable, Sendable {
        var name: String
        var price: Decimal
        var stock: Int64
        var discontinued: Bool
        var releaseDate: Date   // an Edm.Date property: sent as its date
        var lastModified: Date
        var categoryID: Int
        var uuid: UUID
        enum CodingKeys: String, CodingKey {
            case name = "Name", price = "Price", stock = "Stock", discontinued = "Discontinued"
            case releaseDate = "ReleaseDate", lastModified = "LastModified", categoryID = "CategoryID", uuid = "UUID"
        }
    }

    @Test func foundationValuesBothWays() async throws {
        #expect(Noop().isFinished == false)
        let server = try Server.start(.v4)
        let store = try await Store.open(StoreOptions(serviceRoot: URL(string: server.root)!))
        let p = try await store.read(Product.self, from: "Products", key: 50)
        #expect(p.price == Decimal(string: "868.5"))
        #expect(p.stock == 9_007_199_254_741_043)
        #expect(p.releaseDate == Date(Seed.releaseDate(50)))
        #expect(p.lastModified == Date(Seed.lastModified(50)))
        // Keys and $filter literals from Foundation values.
        let byUUID = try await store.read([Product].self, from: ResourcePath(entitySet: "Products").filter("UUID eq \(p.uuid)"))
        #expect(byUUID.map(\.id) == [50])
        let since = Date(ODataDateTimeOffset("2024-01-13T00:00:00Z")!)
        let recent = try await store.read([Product].self, from: ResourcePath(entitySet: "Products").filter("LastModified lt \(since)").orderBy("ID"))
        #expect(recent.map(\.id) == Array(1...287))  // 2024-01-01 + i hours

        let when = Date(timeIntervalSince1970: 1_717_243_200.25)  // 2024-06-01T12:00:00.25Z
        let id = UUID()
        let created = try await store.create(NewProduct(name: "Foundation", price: Decimal(string: "19.99")!, stock: 5,
                                                        discontinued: false, releaseDate: when, lastModified: when,
                                                        categoryID: 1, uuid: id), in: "Products")
        let back = try created.decode(Product.self)
        #expect(back.price == Decimal(string: "19.99"))
        #expect(back.releaseDate == Date(ODataDate(year: 2024, month: 6, day: 1)!))
        // LastModified has no Precision facet (0 digits): the service keeps whole seconds.
        #expect(back.lastModified == Date(timeIntervalSince1970: 1_717_243_200))
        #expect(back.uuid == id)

        // Raw JSON as Data, for JSONSerialization or JSONDecoder users.
        let response = try await store.read("Products(50)")
        let object = try JSONSerialization.jsonObject(with: response.data) as? [String: Any]
        #expect(object?["Stock"] as? String == "9007199254741043")
        #expect(try ODataDecoder().decode(Product.self, from: response.data).id == 50)
        await store.close()
    }

    @Test func conversions() {
        #expect(ODataDecimal(Decimal(string: "123.456")!) == "123.456")
        #expect(Decimal(ODataDecimal("-0.5")) == Decimal(string: "-0.5"))
        let d = ODataDateTimeOffset("2012-12-03T07:16:23.5+01:00")!
        #expect(Date(d).timeIntervalSince1970 == 1_354_515_383.5)
        #expect(ODataDateTimeOffset(Date(d)) == d)
        #expect(ODataDate(Date(timeIntervalSince1970: 86_400 * 365)) == ODataDate(year: 1971, month: 1, day: 1))
        let u = UUID()
        #expect(UUID(ODataGuid(u)) == u)
        #expect(Data([1, 2, 3]).canonicalJSON == .string("AQID"))
        #expect(Data(canonicalJSON: .string("AQID")) == Data([1, 2, 3]))
    }
}
