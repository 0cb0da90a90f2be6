import Testing
@testable import ODataProtocol
@testable import ODataStore

/// Seeded random `$filter`/`$orderby` texts (mostly well-typed, with tricky literals)
/// parsed and checked like real requests, translated and run on the feature model's
/// database: a statement may only succeed, be refused with `.unsupported`, or fail at run
/// time with one of the store's own errors (overflow, division by zero); never an SQL
/// syntax or parser error, never a crash. Deep expressions either run or are refused.
@Suite("Offline: random filters translate and run")
struct FilterSQLRandomTests {
    struct Outcomes {
        var ran = 0, unsupported = 0, runtime = 0, rejectedByChecker = 0
    }

    static func run(_ h: QueryHarness, _ url: String, _ outcomes: inout Outcomes) {
        let t: QueryHarness.Translation
        do {
            t = try h.translate(url)
        } catch let e as URLParseError {
            outcomes.rejectedByChecker += 1
            _ = e
            return
        } catch let e as ODataStoreError {
            #expect(e.code == .unsupported, "\(url): \(e)")
            #expect(e.message.contains("cannot be evaluated offline"), "\(url): \(e.message)")
            outcomes.unsupported += 1
            return
        } catch {
            Issue.record("\(url): \(error)")
            return
        }
        #expect(!t.sql.contains("'"), "\(url) -> \(t.sql)")
        if let message = failure(h.db, t.sql, t.values) {
            #expect(message.hasPrefix(SQLFunctions.errorPrefix), "\(url)\n\(t.sql)\n\(message)")
            outcomes.runtime += 1
        } else {
            outcomes.ran += 1
        }
    }

    static func failure(_ db: SQLiteConnection, _ sql: String, _ values: [SQLValue]) -> String? {
        do {
            _ = try db.rows(sql, values)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func randomV4Filters() throws {
        let h = try FilterSQLModelFeatureTests.items()
        var outcomes = Outcomes()
        for seed in 0..<1500 {
            var g = FilterTextGenerator(seed: UInt64(seed), version: .v4)
            let filter = g.boolean(g.rng.int(0...4))
            var url = "Items?$filter=" + FilterSQLTests.percentEncoded(filter)
            if g.rng.chance(0.5) { url += "&$orderby=" + FilterSQLTests.percentEncoded(g.orderTerm()) }
            Self.run(h, url, &outcomes)
        }
        #expect(outcomes.ran > 900, "\(outcomes)")
        #expect(outcomes.rejectedByChecker < 150, "\(outcomes)")
    }

    @Test func randomV2Filters() throws {
        let h = try FilterSQLV2Tests.products()
        var outcomes = Outcomes()
        for seed in 0..<1000 {
            var g = FilterTextGenerator(seed: UInt64(seed) &+ 77, version: .v2)
            let filter = g.boolean(g.rng.int(0...4))
            var url = "Products?$filter=" + FilterSQLTests.percentEncoded(filter)
            if g.rng.chance(0.5) { url += "&$orderby=" + FilterSQLTests.percentEncoded(g.orderTerm()) }
            Self.run(h, url, &outcomes)
        }
        #expect(outcomes.ran > 600, "\(outcomes)")
        #expect(outcomes.rejectedByChecker < 100, "\(outcomes)")
    }

    /// Expressions nested past what SQLite's parser takes are refused before they reach it.
    @Test func deepExpressionsRunOrAreRefused() throws {
        let h = try FilterSQLModelFeatureTests.items()
        var outcomes = Outcomes()
        var texts: [String] = []
        for n in [1, 5, 10, 20, 30, 40, 60, 90] {
            texts.append(String(repeating: "not (", count: n) + "Name eq 'x'" + String(repeating: ")", count: n))
            texts.append(String(repeating: "tolower(", count: n) + "Name" + String(repeating: ")", count: n) + " eq 'x'")
            texts.append("Small" + String(repeating: " add 1", count: n * 5) + " gt 0")
            texts.append((0..<(n * 9)).map { "ID eq \($0)" }.joined(separator: " or "))
            texts.append((0..<(n * 9)).map { "Name ne '\($0)'" }.joined(separator: " and "))
            texts.append(String(repeating: "Children/any(c:c/", count: min(n, 40)) + "ID gt 0" + String(repeating: ")", count: min(n, 40)))
            texts.append("ID in (" + (0..<(n * 20)).map(String.init).joined(separator: ",") + ")")
        }
        for text in texts {
            Self.run(h, "Items?$filter=" + FilterSQLTests.percentEncoded(text), &outcomes)
        }
        #expect(outcomes.ran > 20, "\(outcomes)")
        #expect(outcomes.unsupported > 0, "\(outcomes)")
    }
}

extension FilterSQLRandomTests {
    /// `SQLNesting`'s estimate against SQLite's parser: for nestings of every kind the
    /// translator produces, an expression SQLite cannot parse is estimated above the budget,
    /// so the store refuses it instead of sending it.
    @Test func nestingEstimateIsAboveWhatSQLiteRejects() throws {
        let h = try FilterSQLModelFeatureTests.items()
        let patterns: [(String, (Int) -> String)] = [
            ("not", { n in String(repeating: "not (", count: n) + "Name eq 'x'" + String(repeating: ")", count: n) }),
            ("calls", { n in String(repeating: "tolower(", count: n) + "Name" + String(repeating: ")", count: n) + " eq 'x'" }),
            ("left add", { n in "Small" + String(repeating: " add 1", count: n) + " gt 0" }),
            ("right add", { n in String(repeating: "(1 add ", count: n) + "Small" + String(repeating: ")", count: n) + " gt 0" }),
            ("lambdas", { n in String(repeating: "Children/any(c:c/", count: n) + "ID gt 0" + String(repeating: ")", count: n) }),
            ("json lambdas", { n in String(repeating: "Children/any(c:c/", count: n) + "Tags/any(t:t eq 'a')" + String(repeating: ")", count: n) }),
            ("to-one", { n in String(repeating: "Parent/", count: n) + "Name eq 'x'" }),
            ("and/or", { n in (0..<n).map { "(ID eq \($0) or (Name eq 'a' and not (Ratio gt \($0))))" }.joined(separator: " and ") }),
            ("substring", { n in String(repeating: "substring(", count: n) + "Name" + String(repeating: ",1)", count: n) + " eq 'x'" }),
            ("eq", { n in String(repeating: "(", count: n) + "Flag" + String(repeating: " eq true)", count: n) }),
            ("decimals", { n in String(repeating: "round(", count: n) + "Price" + String(repeating: " mul 2)", count: n) + " gt 1" }),
        ]
        var refused = 0
        for (name, make) in patterns {
            for n in 1...45 {
                let url = "Items?$filter=" + FilterSQLTests.percentEncoded(make(n))
                guard let r = try? ResourceRequestParser(version: .v4).parse(url, checkingAgainst: h.model), let f = r.options.filter else { break }
                var translator = FilterSQL(schema: h.schema, aliases: SQLAliases(startingAt: 1))
                var p = SQLParameters()
                let raw = try translator.truth(f, SQLScope(table: try h.table("Items"), alias: "t0"), &p)
                let cost = SQLNesting.cost(raw)
                let message = Self.failure(h.db, "SELECT t0.\"ID\" FROM \"e:Items\" t0 WHERE \(raw) ORDER BY t0.\"ID\"", p.values)
                if let message, message.contains("parser stack overflow") {
                    #expect(cost > SQLNesting.budget + 5, "\(name) \(n): estimated \(cost) but SQLite cannot parse it")
                    refused += 1
                    break
                }
                if cost > SQLNesting.budget { refused += 1 }
            }
        }
        #expect(refused >= 6)
    }
}

/// Random `$filter` texts over the feature model (V4) or the V2 test service's Products.
struct FilterTextGenerator {
    var rng: SeededRandom
    let version: ODataVersion
    var itemVariables: [String] = []
    var stringVariables: [String] = []
    var placeVariables: [String] = []
    var scoreVariables: [String] = []

    init(seed: UInt64, version: ODataVersion) {
        rng = SeededRandom(seed: seed)
        self.version = version
    }

    var v2: Bool { version == .v2 }

    mutating func stringLiteral() -> String {
        let alphabet = ["a", "Z", "0", " ", "''", "&", "%", "+", "#", "/", "?", "(", ")", ",", ";", "ß", "Σ", "日本", "😀", "\"", "\\",
                        "$", "@", "_", "e\u{301}", "\u{200B}", "one", "Apple", "ZOË"]
        var s = ""
        for _ in 0..<rng.int(0...5) { s += rng.pick(alphabet) }
        return "'" + s + "'"
    }

    mutating func numberLiteral() -> String {
        let n = rng.int(-1000...1000)
        if v2 {
            return rng.pick(["\(n)", "\(n)L", "\(n).5M", "\(n).25d", "1.5f", "0", "9007199254740993L", "-0.01M", "2"])
        }
        return rng.pick(["\(n)", "\(n).5", "\(n)e-2", "0", "-0.01", "9007199254740993", "9223372036854775807", "2", "INF", "-INF",
                         "NaN", "1.000000000000000000000000000001", "92233720368547758070"])
    }

    /// A path to a property of the current item, a range variable or a related item.
    mutating func itemPath(_ names: [String]) -> String {
        if let v = itemVariables.last, rng.chance(0.5) { return v + "/" + names.joined(separator: "/") }
        if !v2, rng.chance(0.1) { return "$it/" + names.joined(separator: "/") }
        if !v2, rng.chance(0.1) { return "Parent/" + names.joined(separator: "/") }
        if v2, rng.chance(0.1) { return "Category/" + (names == ["Name"] ? "Name" : "ID") }
        return names.joined(separator: "/")
    }

    mutating func number(_ depth: Int) -> String {
        if let s = scoreVariables.last, rng.chance(0.3) { return s }
        if depth <= 0 || rng.chance(0.3) {
            if v2 { return rng.chance(0.5) ? numberLiteral() : rng.pick(["Price", "Stock", "Rating", "ID", "Version"]) }
            switch rng.int(0...5) {
            case 0, 1: return numberLiteral()
            case 2: return itemPath([rng.pick(["ID", "Ratio", "Weight", "Small", "Price", "Big"])])
            case 3: return rng.pick(["Home/Zip", "Rich.VerySpecialItem/Level", "Children/$count", "Tags/$count", "Home/Geo/Lat"])
            case 4: return placeVariables.last.map { $0 + "/Zip" } ?? "Shape/Rich.Circle/Radius"
            default: return numberLiteral()
            }
        }
        let d = depth - 1
        switch rng.int(0...8) {
        case 0, 1:
            let ops = v2 ? ["add", "sub", "mul", "div", "mod"] : ["add", "sub", "mul", "div", "divby", "mod"]
            return "(\(number(d)) \(rng.pick(ops)) \(number(d)))"
        case 2: return "-(\(number(d)))"
        case 3: return "length(\(string(d)))"
        case 4: return "indexof(\(string(d)),\(string(d)))"
        case 5: return "\(rng.pick(["round", "floor", "ceiling"]))(\(number(d)))"
        case 6:
            if v2 { return "\(rng.pick(["year", "month", "day", "hour", "minute", "second"]))(ReleaseDate)" }
            return "\(rng.pick(["year", "month", "day", "hour", "minute", "second", "totaloffsetminutes", "fractionalseconds"]))(When)"
        case 7: return v2 ? "Stock" : "totalseconds(\(rng.chance(0.5) ? "Span" : "duration'-P1DT0.5S'"))"
        default: return v2 ? "\(rng.pick(["year", "day"]))(ReleaseDate)" : "\(rng.pick(["hour", "minute", "second"]))(At)"
        }
    }

    mutating func string(_ depth: Int) -> String {
        if let v = stringVariables.last, rng.chance(0.3) { return v }
        if depth <= 0 || rng.chance(0.3) {
            if v2 { return rng.chance(0.5) ? stringLiteral() : rng.pick(["Name", "Description", "Category/Name"]) }
            switch rng.int(0...4) {
            case 0: return stringLiteral()
            case 1: return itemPath(["Name"])
            case 2: return rng.pick(["Home/City", "Note/Text", "Rich.SpecialItem/Extra", "Note/Mood", "Shape/Label"])
            case 3: return placeVariables.last.map { $0 + "/City" } ?? "cast(Small,Edm.String)"
            default: return stringLiteral()
            }
        }
        let d = depth - 1
        switch rng.int(0...5) {
        case 0: return "\(rng.pick(["tolower", "toupper", "trim"]))(\(string(d)))"
        case 1: return "concat(\(string(d)),\(string(d)))"
        case 2:
            let n = rng.chance(0.5) ? "\(rng.int(-3...8))" : (v2 ? "Rating" : "ID")
            return rng.chance(0.5) ? "substring(\(string(d)),\(n))" : "substring(\(string(d)),\(n),\(rng.int(0...4)))"
        case 3 where v2: return "replace(\(string(d)),\(string(d)),\(string(d)))"
        default: return stringLiteral()
        }
    }

    mutating func temporalComparison() -> String {
        func two(_ x: Int) -> String { x < 10 ? "0\(x)" : "\(x)" }
        let date = "\(rng.int(1969...2030))-\(two(rng.int(1...12)))-\(two(rng.int(1...28)))"
        let time = "\(two(rng.int(0...23))):\(two(rng.int(0...59))):\(two(rng.int(0...59)))"
        let op = rng.pick(["eq", "ne", "gt", "ge", "lt", "le"])
        if v2 {
            switch rng.int(0...2) {
            case 0: return "ReleaseDate \(op) datetime'\(date)T\(time)'"
            case 1: return "ReleaseDate \(op) datetimeoffset'\(date)T\(time)\(rng.pick(["Z", "+01:00", "-08:00"]))'"
            default: return "ReleaseDate \(op) null"
            }
        }
        let offset = rng.pick(["Z", "+01:00", "-08:00", "+14:00"])
        switch rng.int(0...8) {
        case 0: return "When \(op) \(date)T\(time)\(offset)"
        case 1: return "When add duration'PT\(rng.int(0...48))H' \(op) \(date)T\(time)\(offset)"
        case 2: return "When sub \(date)T\(time)\(offset) \(op) duration'P\(rng.int(0...400))D'"
        case 3: return "Day \(op) \(date)"
        case 4: return "date(When) \(op) Day"
        case 5: return "At \(op) \(time)"
        case 6: return "time(When) \(op) At"
        case 7: return "Span \(op) duration'\(rng.pick(["PT1H", "-PT30M", "P1D", "PT0S"]))'"
        default: return "When \(op) \(rng.pick(["now()", "maxdatetime()", "mindatetime()"]))"
        }
    }

    mutating func boolean(_ depth: Int) -> String {
        if depth <= 0 {
            if v2 { return rng.pick(["true", "false", "Discontinued", "Description eq null", "Rating gt 3", "Category eq null"]) }
            return rng.pick(["true", "false", "Flag", "Flag eq null", "isof(Rich.SpecialItem)", "Home eq null", "Parent eq null",
                             "Access has Rich.Access'Read'", "Color eq Rich.Color'Red'"])
        }
        let d = depth - 1
        let choices = v2 ? 9 : 15
        switch rng.int(0...choices) {
        case 0: return "(\(boolean(d)) \(rng.pick(["and", "or"])) \(boolean(d)))"
        case 1: return "not (\(boolean(d)))"
        case 2, 3: return "\(number(d)) \(rng.pick(["eq", "ne", "gt", "ge", "lt", "le"])) \(number(d))"
        case 4: return "\(string(d)) \(rng.pick(["eq", "ne", "lt", "ge"])) \(string(d))"
        case 5:
            let f = v2 ? rng.pick(["substringof", "startswith", "endswith"]) : rng.pick(["contains", "startswith", "endswith"])
            return "\(f)(\(string(d)),\(string(d)))"
        case 6: return temporalComparison()
        case 7: return "(\(boolean(d))) eq \(rng.pick(["true", "false", "null"]))"
        case 8: return v2 ? "isof('ODataStoreTestV2.Product')" : "isof(\(rng.pick(["Shape", "Parent", "$it"])),\(rng.pick(["Rich.Circle", "Rich.SpecialItem", "Rich.Shape"])))"
        case 9: return v2 ? "UUID eq guid'0f8fad5b-d9cb-469f-a165-70867728950e'" : "\(number(d)) in (\(number(d)),\(numberLiteral()),null)"
        case 10:
            let v = "c\(itemVariables.count)"
            itemVariables.append(v)
            let p = boolean(d)
            itemVariables.removeLast()
            return "Children/\(rng.pick(["any", "all"]))(\(v):\(p))"
        case 11:
            let v = "t\(stringVariables.count)"
            stringVariables.append(v)
            let p = rng.chance(0.5) ? "\(v) eq \(string(d))" : "startswith(\(v),\(string(d)))"
            stringVariables.removeLast()
            return "Tags/\(rng.pick(["any", "all"]))(\(v):\(p))"
        case 12:
            let v = "p\(placeVariables.count)"
            placeVariables.append(v)
            let p = boolean(d)
            placeVariables.removeLast()
            return "Places/\(rng.pick(["any", "all"]))(\(v):\(p))"
        case 13:
            let v = "s\(scoreVariables.count)"
            scoreVariables.append(v)
            let p = "\(v) \(rng.pick(["eq", "gt", "lt"])) \(number(d))"
            scoreVariables.removeLast()
            return "Scores/any(\(v):\(p))"
        case 14: return "Access has Rich.Access'\(rng.pick(["Read", "Write,Delete", "None", "3"]))'"
        default: return "Color \(rng.pick(["eq", "ne", "gt", "le"])) Rich.Color'\(rng.pick(["Red", "Green", "2"]))'"
        }
    }

    mutating func orderTerm() -> String {
        let base: String
        switch rng.int(0...3) {
        case 0: base = number(2)
        case 1: base = string(2)
        case 2: base = v2 ? rng.pick(["ReleaseDate", "UUID", "Discontinued"]) : rng.pick(["When", "Day", "At", "Span", "Color", "Access", "Data", "Ratio"])
        default: base = boolean(1)
        }
        return base + (rng.chance(0.5) ? " desc" : "")
    }
}
