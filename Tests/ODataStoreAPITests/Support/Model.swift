// The test services' entities as an app would declare them (Tests/servers/README.md), and
// the seed's formulas (Tests/servers/seed.py) to compute what the services hold.
import ODataStore

/// A V4 product: every Edm type as its Swift value type.
struct Product: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var description: String?
    var price: ODataDecimal
    var stock: Int64
    var discontinued: Bool
    var rating: Int?
    var releaseDate: ODataDate
    var lastModified: ODataDateTimeOffset
    var uuid: ODataGuid?
    var categoryID: Int
    var etag: String?

    enum CodingKeys: String, CodingKey {
        case id = "ID", name = "Name", description = "Description", price = "Price", stock = "Stock"
        case discontinued = "Discontinued", rating = "Rating", releaseDate = "ReleaseDate"
        case lastModified = "LastModified", uuid = "UUID", categoryID = "CategoryID"
        case etag = "@odata.etag"
    }
}

/// A V2 product (Edm.DateTime for the date, a Version concurrency token, no LastModified).
struct ProductV2: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var description: String?
    var price: ODataDecimal
    var stock: Int64
    var discontinued: Bool
    var rating: Int?
    var releaseDate: ODataDate?
    var uuid: ODataGuid?
    var version: Int?

    enum CodingKeys: String, CodingKey {
        case id = "ID", name = "Name", description = "Description", price = "Price", stock = "Stock"
        case discontinued = "Discontinued", rating = "Rating", releaseDate = "ReleaseDate", uuid = "UUID"
        case version = "Version"
    }
}

struct Customer: Codable, Sendable, Equatable {
    var customerID: String
    var companyName: String
    var city: String?
    enum CodingKeys: String, CodingKey { case customerID = "CustomerID", companyName = "CompanyName", city = "City" }
}

struct OrderLine: Codable, Sendable, Equatable {
    var orderID: Int
    var lineNo: Int
    var productID: Int
    var quantity: Int
    var unitPrice: ODataDecimal
    var note: String?
    enum CodingKeys: String, CodingKey {
        case orderID = "OrderID", lineNo = "LineNo", productID = "ProductID", quantity = "Quantity"
        case unitPrice = "UnitPrice", note = "Note"
    }
}

struct Category: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var products: [Product]?
    enum CodingKeys: String, CodingKey { case id = "ID", name = "Name", products = "Products" }
}

enum Seed {
    static let customerIDs = [
        "ALFKI", "ANATR", "ANTON", "AROUT", "BERGS", "BLAUS", "BLONP", "BOLID", "BONAP", "BOTTM",
        "O'NEIL", "ZOË", "A&B", "SP ACE", "PLUS+1", "HASH#1", "PCT%20", "Q?X", "ÄÖÜ", "日本",
    ]

    static func price(_ i: Int) -> ODataDecimal {
        let cents = (i * 3737) % 100_000
        return ODataDecimal("\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)")!
    }

    static func stock(_ i: Int) -> Int64 { i % 50 == 0 ? 9_007_199_254_740_993 + Int64(i) : Int64(i) * 1000 }

    static func releaseDate(_ i: Int) -> ODataDate {
        ODataDate(daysSince1970: ODataDate(year: 2020, month: 1, day: 1)!.daysSince1970 + Int64(i))
    }

    static func lastModified(_ i: Int) -> ODataDateTimeOffset {
        ODataDateTimeOffset(secondsSince1970: ODataDateTimeOffset("2024-01-01T00:00:00Z")!.secondsSince1970 + Int64(i) * 3600)
    }

    static func description(_ i: Int) -> String? {
        i % 7 == 0 ? nil : (i % 10 == 3 ? "Größe \(i) – naïve café" : "Description of product \(i)")
    }

    static func rating(_ i: Int) -> Int? { i % 11 == 0 ? nil : i % 5 + 1 }
}
