// The Swift API in one page: open a store, read typed values, keys as values, a $filter with
// values, a count, a change with its ETag, and the one error type.
//
//   swift run example-quickstart http://127.0.0.1:8080/odata/
//
// Run against the V4 test service by Tests/examples/test_swift_examples.py.
import ODataStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Product: Codable, Sendable {
    var id: Int
    var name: String
    var price: ODataDecimal      // Edm.Decimal: exact digits
    var stock: Int64             // Edm.Int64: exact beyond 2^53
    var releaseDate: ODataDate   // Edm.Date
    var etag: String?

    enum CodingKeys: String, CodingKey {
        case id = "ID", name = "Name", price = "Price", stock = "Stock", releaseDate = "ReleaseDate"
        case etag = "@odata.etag"
    }
}

struct Customer: Codable, Sendable {
    var id: String
    var company: String
    enum CodingKeys: String, CodingKey { case id = "CustomerID", company = "CompanyName" }
}

struct PriceChange: Encodable, Sendable {
    var price: ODataDecimal
    enum CodingKeys: String, CodingKey { case price = "Price" }
}

@main
struct Quickstart {
    static func main() async {
        let root = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "http://127.0.0.1:8080/odata/"

        do {
            let store = try await Store.open(serviceRoot: root)

            // A collection into Codable values; the literal 990 is written for the service's version.
            let minimum: ODataDecimal = 990
            let expensive = try await store.read([Product].self,
                                                 from: ResourcePath(entitySet: "Products").filter("Price gt \(minimum)").orderBy("ID"))
            for p in expensive {
                print("\(p.name) costs \(p.price)")
            }

            // Keys are values: the quote is doubled and the URL encoded by the library.
            let customer = try await store.read(Customer.self, from: "Customers", key: "O'NEIL")
            print("customer \(customer.id): \(customer.company)")

            // A count, and an Int64 beyond 2^53.
            print("products: \(try await store.read(Int64.self, from: "Products/$count"))")
            let fifty = try await store.read(Product.self, from: "Products", key: 50)
            print("stock of \(fifty.name): \(fifty.stock), released \(fifty.releaseDate)")

            // An update with If-Match; a stale ETag is a conflict.
            try await store.update(PriceChange(price: fifty.price + 1), in: "Products", key: 50, etag: fifty.etag)
            do {
                try await store.update(PriceChange(price: 1), in: "Products", key: 50, etag: fifty.etag)
            } catch {
                print("stale ETag: \(error.code), HTTP \(error.httpStatus)")
            }

            // One error type, with the HTTP status and a readable description.
            do {
                _ = try await store.read(Product.self, from: "Products", key: 999)
            } catch {
                print("Products(999): \(error.code), HTTP \(error.httpStatus)")
            }
            await store.close()
        } catch {
            print("error: \(error)")
            exit(1)
        }
    }
}
