// An offline store from Swift: open it with its download progress as an AsyncSequence, then
// read from the store file (also with the service gone).
//
//   swift run example-offline http://127.0.0.1:8080/odata/ /tmp/products.store
//
// Run against the V4 test service by Tests/examples/test_swift_examples.py.
import ODataStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Product: Decodable {
    var id: Int
    var name: String
    var price: ODataDecimal
    enum CodingKeys: String, CodingKey { case id = "ID", name = "Name", price = "Price" }
}

@main
struct OfflineExample {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            print("usage: example-offline SERVICE_ROOT STORE_FILE")
            exit(64)
        }

        var options = StoreOptions(serviceRoot: arguments[1])
        options.kind = .offline
        options.storePath = arguments[2]
        options.definingRequests = ["Products?$filter=CategoryID eq 2", "Customers"]

        do {
            let opening = try Store.opening(options)
            for await progress in opening.progress where progress.requestFinished {
                print("downloaded \(progress.definingRequest): \(progress.entities) entities")
            }
            let store = try await opening.opened()

            let cheap = try await store.read(ResourcePath(entitySet: "Products").filter("Price lt \(ODataDecimal(100))").orderBy("ID"))
            print("answered from the store file: \(cheap.isLocal)")
            for p in try cheap.decode([Product].self) {
                print("\(p.id) \(p.name) \(p.price)")
            }
            do {
                _ = try await store.read("Categories")
            } catch {
                print("Categories: \(error.code)")
            }
            let info = try store.offlineInfo()
            print("\(info.definingRequests.count) defining requests, complete: \(info.definingRequests.allSatisfy(\.isComplete))")
            await store.close()
        } catch {
            print("error: \(error)")
            exit(1)
        }
    }
}
