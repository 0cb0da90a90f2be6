import Testing
@testable import ODataStore

/// The offline store's own `$skiptoken` (LocalSkipToken): its text survives a next link, text
/// it did not make is refused, and its value condition continues an order exactly where a
/// page ended, whatever the order's terms hold (NULLs, ties, mixed storage classes, both
/// directions), on a real SQLite database.
@Suite("Offline store: skip tokens")
struct LocalSkipTokenTests {
    @Test func textRoundTripsEveryValue() {
        let values: [SQLValue] = [.null, .integer(0), .integer(Int64.min), .integer(Int64.max), .real(-0.0), .real(1e-310),
                                  .real(.infinity), .real(3.25), .text(""), .text("O'NEIL & Q?X 日本 .~%"),
                                  .blob([]), .blob([0, 255, 46])]
        let token = LocalSkipToken(delivered: 140, after: values)
        let text = token.text
        #expect(text.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E
        }, "\(text)")
        let parsed = LocalSkipToken(text)
        #expect(parsed == token)
        if case .real(let z)? = parsed?.after?[4] { #expect(z.sign == .minus) }  // -0.0 kept as such
        #expect(LocalSkipToken("25") == LocalSkipToken(delivered: 25, after: nil))
        #expect(LocalSkipToken(String(repeating: "9", count: 30))?.delivered == Int.max)
    }

    @Test(arguments: ["", ".", "-1", "+1", "1x", "1.", "1..i2", "1.x", "1.i", "1.i1.5", "1.i99999999999999999999",
                      "1.nn", "1.r12", "1.r00000000000000000", "1.rzzzzzzzzzzzzzzzz", "1.t4", "1.tzz", "1.tff",
                      "1.b0", "0x10", " 1", "1.i2 ", "1.t41%00"])
    func refusesWhatItDidNotMake(_ text: String) {
        #expect(LocalSkipToken(text) == nil, "\(text)")
    }

    /// Random rows and random orders: the pages a chain of tokens gives, joined, are the rows
    /// of one ORDER BY, for page sizes from 1 up.
    @Test func pagesContinueTheOrder() throws {
        let db = try SQLiteConnection(path: ":memory:", create: true)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, a, b, c TEXT)")
        var random = SeededRandom(seed: 20261204)
        let pool: [SQLValue] = [.null, .integer(1), .integer(2), .integer(-3), .real(1.5), .real(2.0), .text("x"), .text("X"),
                                .text(""), .text("ä"), .blob([1]), .blob([])]
        for k in 1...120 {
            try db.run("INSERT INTO t VALUES (?1, ?2, ?3, ?4)",
                       [.integer(Int64(k)), random.pick(pool), random.pick(pool), random.chance(0.3) ? .null : .text(random.pick(["p", "q", "P"]))])
        }
        let columns = ["t0.a", "t0.b", "(t0.c) COLLATE NOCASE", "(t0.a + 0)"]
        for round in 0..<60 {
            var terms: [LocalSkipToken.Term] = []
            for _ in 0..<random.int(0...3) { terms.append(.init(sql: random.pick(columns), descending: random.chance(0.5))) }
            terms.append(.init(sql: "t0.k", descending: false, key: .integer))
            let order = terms.map { $0.descending ? $0.sql + " DESC" : $0.sql }.joined(separator: ", ")
            let whole = try db.rows("SELECT t0.k FROM t t0 ORDER BY \(order)").map { $0[0] }
            let size = 1 + round % 13
            var paged: [SQLValue] = []
            var token: LocalSkipToken? = nil
            var pages = 0
            repeat {
                var params = SQLParameters()
                var whereSQL = "1"
                if let after = token?.after { whereSQL = LocalSkipToken.condition(terms: terms, after: after, &params) }
                let select = terms.map(\.sql).joined(separator: ", ")
                let rows = try db.rows("SELECT t0.k, \(select) FROM t t0 WHERE \(whereSQL) ORDER BY \(order) LIMIT \(size)", params.values)
                paged += rows.map { $0[0] }
                // the token as a next link carries it: through its text
                token = rows.count == size ? LocalSkipToken(LocalSkipToken(delivered: paged.count, after: Array(rows.last!.dropFirst())).text) : nil
                pages += 1
            } while token != nil && pages <= whole.count + 1
            #expect(paged == whole, "order \(order), pages of \(size)")
        }
    }
}
