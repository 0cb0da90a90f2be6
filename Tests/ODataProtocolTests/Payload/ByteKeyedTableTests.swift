import Testing
@testable import ODataProtocol

/// `ByteKeyedTable` against `Dictionary`: growth from empty, replacement, the empty key,
/// keys that share prefixes, and lookups of keys that are absent.
@Suite struct ByteKeyedTableTests {
    func lookup<V>(_ table: ByteKeyedTable<V>, _ key: String) -> V? {
        let bytes = Array(key.utf8)
        return withUnsafePointer(to: 0 as UInt8) { empty in
            bytes.withUnsafeBufferPointer { table.lookup($0.baseAddress ?? empty, $0.count) }
        }
    }

    @Test func anEmptyTableFindsNothing() {
        let table = ByteKeyedTable<Int>()
        #expect(lookup(table, "ID") == nil)
        #expect(lookup(table, "") == nil)
        #expect(table.count == 0)
    }

    @Test func agreesWithDictionaryThroughGrowth() {
        var table = ByteKeyedTable<Int>()
        var reference: [String: Int] = [:]
        // Real member names (TripPin, GWSAMPLE_BASIC) plus prefixes, case variants and the empty key.
        let names = ["UserName", "FirstName", "LastName", "Emails", "AddressInfo", "Gender", "Concurrency",
                     "ProductID", "TypeCode", "Category", "Name", "NameLanguage", "Description", "SupplierID",
                     "SupplierName", "WeightMeasure", "WeightUnit", "CurrencyCode", "Price", "Width", "Depth",
                     "Height", "DimUnit", "CreatedAt", "ChangedAt", "ToSupplier", "ToSalesOrderLineItems",
                     "", "N", "Na", "Nam", "name", "NAME", "é", "日本"]
        for (i, name) in names.enumerated() {
            table.insert(Array(name.utf8), i)
            reference[name] = i
            for probe in names { #expect(lookup(table, probe) == reference[probe], "\(probe) after \(i) inserts") }
        }
        // Replacing a value keeps the count.
        let before = table.count
        table.insert(Array("Price".utf8), -1)
        #expect(table.count == before)
        #expect(lookup(table, "Price") == -1)
        #expect(lookup(table, "Pric") == nil && lookup(table, "Prices") == nil)
    }

    @Test func sizedTablesHoldTheirMembers() {
        var table = ByteKeyedTable<String>(capacity: 3)
        for key in ["a", "b", "c", "d", "e", "f", "g", "h", "i"] { table.insert(Array(key.utf8), key.uppercased()) }
        #expect(table.count == 9)
        #expect(lookup(table, "e") == "E")
        #expect(lookup(table, "z") == nil)
    }
}
