import Foundation
import Testing
@testable import ODataProtocol
@testable import ODataStore

/// The download's writer upserts a collection page's entities in batches of rows
/// (`EntityWriter+Batch.swift`) and must write exactly the store it writes one row per
/// statement (`maxBatchRows = 1`): the same rows, row ids, memberships (runs of row ids and
/// `ods_members` rows) and links, whichever way the batches end: every row new (a first
/// download), rows already there (a refresh), a key twice in one page, a row with local
/// changes the download leaves alone, entities that carry fewer properties (another statement),
/// entities with expanded navigations and removed entries in between.
@Suite("Offline: writing a page's entities in batches of rows", .serialized)
struct BatchWriterTests {
    /// A product; now and then without `Description` or `CategoryID` (`full`: never).
    static func product(_ id: Int, _ generation: Int, _ random: inout SeededRandom, full: Bool = false) -> String {
        var members = ["\"ID\":\(id)", "\"Name\":\"Product \(id) g\(generation)\"", "\"Price\":\(id % 90).\(id % 10)0",
                       "\"Stock\":\(id * 7 + generation)", "\"Discontinued\":\(id % 3 == 0)"]
        if full || random.next() % 17 != 0 { members.append("\"Description\":\"d\\\"\(id)\\\"\"") }  // escaped
        if full || random.next() % 13 != 0 { members.append("\"CategoryID\":\(id % 6 + 1)") }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The first row where two dumps differ (nil: none).
    static func difference(_ a: [String], _ b: [String]) -> String? {
        if let d = zip(a, b).first(where: { $0 != $1 }) { return "\(d.0) != \(d.1)" }
        return a.count == b.count ? nil : "\(a.count) != \(b.count) rows"
    }

    static func page(_ items: [String]) -> [UInt8] { Array(("{\"value\":[" + items.joined(separator: ",") + "]}").utf8) }

    /// Writes `pages` (each in a transaction, as a download does) into a new store file with
    /// at most `rows` rows per statement, marking `locallyChanged` after the first page; the
    /// file's rows, table by table.
    static func write(_ pages: [(definition: String, body: [UInt8])], rows: Int, locallyChanged: Int) throws -> [String] {
        let metadata = try OfflineFixtures.bytes("servers/v4_metadata.xml")
        let model = try MetadataParser.parse(metadata)
        let path = OfflineStoreTests.temporaryPath("batch\(rows).store")
        let file = try StoreFile.open(path: path, serviceRoot: "http://localhost/service/", model: model, metadata: metadata, create: true)
        defer { file.writerShared.finalize() }
        for (n, page) in pages.enumerated() {
            let d = try DefiningRequest.make(page.definition, model: model, schema: file.schema, serviceRoot: "http://localhost/service/")
            let payload = try PayloadDecoder.decode(page.body, contentType: "application/json", version: .v4, model: model,
                                                    entitySet: nil, entityType: d.table.entityType, target: .entities, spans: true)
            let writer = EntityWriter(file: file, requestID: Int64(1 + n % 2))
            writer.maxBatchRows = rows
            let written = try file.connection.transaction {
                try writer.writePage(payload, table: d.table, expand: d.expand, isCollection: true)
            }
            #expect(written == payload.entityCount)
            if n == 0 { try file.connection.execute("UPDATE \"e:Products\" SET \"@state\" = 1 WHERE \"ID\" = \(locallyChanged)") }
        }
        return try SpanWriterTests.dump(file.connection)
    }

    @Test func batchesWriteTheStoreOneRowPerStatementWrites() throws {
        var random = SeededRandom(seed: 7)
        // A first download: 1...230 (a key twice), then a refresh of 150...400 (rows there,
        // new rows, the locally changed row 160, a key twice, a removed entry), then
        // categories with their products expanded (rows there, links), then more products.
        // Each key twice follows its first row, both with every property (one batch).
        var first = (1...230).map { Self.product($0, 1, &random, full: $0 == 17) }
        first.insert(Self.product(17, 2, &random, full: true), at: 17)
        var second = (150...400).map { Self.product($0, 3, &random, full: $0 == 390 || $0 == 170) }
        second.insert(Self.product(390, 4, &random, full: true), at: 241)
        second.insert(Self.product(170, 4, &random, full: true), at: 21)
        second.insert("{\"@odata.removed\":{\"reason\":\"deleted\"},\"@odata.id\":\"Products(3)\"}", at: 70)
        let categories = (1...6).map { c in
            "{\"ID\":\(c),\"Name\":\"C\(c)\",\"Products\":[" + (0..<5).map { Self.product(c * 40 + $0, 5, &random) }.joined(separator: ",") + "]}"
        }
        let third = (380...460).map { Self.product($0, 6, &random) }
        let pages: [(definition: String, body: [UInt8])] = [
            ("Products", Self.page(first)), ("Products", Self.page(second)),
            ("Categories?$expand=Products", Self.page(categories)), ("Products", Self.page(third)),
        ]
        let batched = try Self.write(pages, rows: 32, locallyChanged: 160)
        let single = try Self.write(pages, rows: 1, locallyChanged: 160)
        #expect(batched.count > 460)
        #expect(Self.difference(batched, single) == nil)
        // Escaped text reaches the file unescaped (the page's arena of unescaped values), in
        // a batch and alone: product 17's description, written twice in the first page.
        for dump in [batched, single] {
            #expect(dump.contains { $0.hasPrefix("e:Products: [17, ") && $0.contains(", 'd\"17\"', ") })
            #expect(!dump.contains { $0.contains("d\\\"") })
        }
        // Batches of a few rows end at other places: the same store too.
        #expect(Self.difference(try Self.write(pages, rows: 5, locallyChanged: 160), single) == nil)
    }

    /// A row written outside a batch between two batches of the same table (a product with
    /// its category expanded among products without it) makes the largest row id the batches
    /// remembered stale; the next batch updates a row of the other defining request and
    /// inserts one, so its last row id equals the stale largest plus its rows. That batch must
    /// still record the updated row's membership (the store one row per statement writes).
    @Test func aRowWrittenBetweenBatchesDoesNotFoolTheRowIDCheck() throws {
        var random = SeededRandom(seed: 11)
        let first = (1...3).map { Self.product($0, 1, &random, full: true) }
        var withCategory = Self.product(12, 2, &random, full: true)
        withCategory.removeLast()
        withCategory += ",\"Category\":{\"ID\":\(12 % 6 + 1),\"Name\":\"C\"}}"
        let second = [Self.product(10, 2, &random, full: true), Self.product(11, 2, &random, full: true), withCategory,
                      Self.product(1, 2, &random, full: true), Self.product(13, 2, &random, full: true)]
        let pages: [(definition: String, body: [UInt8])] = [
            ("Products", Self.page(first)), ("Products?$expand=Category", Self.page(second)),
        ]
        let single = try Self.write(pages, rows: 1, locallyChanged: 0)
        #expect(single.count > 8)
        #expect(Self.difference(try Self.write(pages, rows: 32, locallyChanged: 0), single) == nil)
        #expect(Self.difference(try Self.write(pages, rows: 2, locallyChanged: 0), single) == nil)
    }
}
