// Foundation's types with the Swift API (the optional ODataStoreFoundation module): a URL for
// the service, Decimal and Date properties, UUIDs in $filter, the JSON as Data.
//
//   swift run example-foundation http://127.0.0.1:8080/odata/
//
// Run against the V4 test service by Tests/examples/test_swift_examples.py.
import Foundation
import ODataStoreFoundation

struct Product: Codable, Sendable {
    var id: Int
    var name: String
    var price: Decimal
    var lastModified: Date
    var uuid: UUID
    enum CodingKeys: String, CodingKey {
        case id = "ID", name = "Name", price = "Price", lastModified = "LastModified", uuid = "UUID"
    }
}

@main
struct FoundationExample {
    static func main() async {
        let root = URL(string: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "http://127.0.0.1:8080/odata/")!

        do {
            let store = try await Store.open(StoreOptions(serviceRoot: root))
            let seven = try await store.read(Product.self, from: "Products", key: 7)
            let formatter = ISO8601DateFormatter()
            print("\(seven.name): \(seven.price), modified \(formatter.string(from: seven.lastModified))")

            let same = try await store.read([Product].self, from: ResourcePath(entitySet: "Products").filter("UUID eq \(seven.uuid)"))
            print("found by UUID: \(same.map(\.id))")

            let response = try await store.read("Categories(1)")
            let json = try JSONSerialization.jsonObject(with: response.data) as? [String: Any]
            print("category 1: \(json?["Name"] as? String ?? "?")")
            await store.close()
        } catch {
            print("error: \(error)")
            exit(1)
        }
    }
}
