import Testing
@testable import ODataProtocol
@testable import ODataStore

/// A model's tables in an in-memory SQLite database with the store's functions, rows
/// inserted by the tests, and real request URLs answered through `FilterSQL`: the URL is
/// parsed and checked against the model as the store will do it, `$filter` and `$orderby`
/// are translated, and the statement runs on the real database.
final class QueryHarness {
    let model: ServiceModel
    let schema: StoreSchema
    let db: SQLiteConnection
    /// Every statement run, for assertions about the SQL text.
    private(set) var statements: [String] = []

    init(_ model: ServiceModel) throws {
        self.model = model
        schema = StoreSchema(model: model)
        db = try OfflineFixtures.database(schema)
    }

    func table(_ set: String) throws -> EntityTable {
        try #require(schema.table(forSet: set), "no table for \(set)")
    }

    /// Inserts a row: values by property path (`Name`, `Address/City`) or store column (`@type`).
    func insert(_ set: String, _ values: [String: SQLValue]) throws {
        let t = try table(set)
        var names: [String] = []
        var bound: [SQLValue] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            if key.hasPrefix("@") {
                names.append(SQLName.quote(key))
            } else {
                let column = try #require(t.column(key), "\(set) has no column \(key)")
                names.append(column.quoted)
            }
            bound.append(value)
        }
        let placeholders = (1...bound.count).map { "?\($0)" }.joined(separator: ", ")
        try db.run("INSERT INTO \(t.quoted) (\(names.joined(separator: ", "))) VALUES (\(placeholders))", bound)
    }

    /// Links two rows through a navigation's link table (by `@rid`).
    func link(_ set: String, _ navigation: String, from source: Int64, to target: Int64) throws {
        let t = try table(set)
        let l = try schema.link(from: t, navigation: navigation).get()
        guard case .linkTable(let name, let reversed) = l.join else { Issue.record("\(set)/\(navigation) has no link table"); return }
        let (src, dst) = reversed ? (target, source) : (source, target)
        try db.run("INSERT INTO \(SQLName.quote(name)) (src, dst) VALUES (?1, ?2)", [.integer(src), .integer(dst)])
    }

    struct Translation {
        var sql: String
        var values: [SQLValue]
    }

    /// The SELECT for a request URL: the set's key columns of the rows `$filter` keeps, in
    /// `$orderby` order, ties by key.
    func translate(_ url: String) throws -> Translation {
        let request = try ResourceRequestParser(version: model.version).parse(url, checkingAgainst: model)
        let setName = try #require(request.segments.first?.name)
        let t = try table(setName)
        var aliasValues: [String: FilterExpression] = [:]
        for a in request.options.aliases { aliasValues[a.name] = a.value }
        var filter = FilterSQL(schema: schema, aliases: SQLAliases(startingAt: 1), parameterAliases: aliasValues)
        var parameters = SQLParameters()
        let scope = SQLScope(table: t, alias: "t0")
        let keys = t.keyColumns.map { "t0.\($0.quoted)" }
        var sql = "SELECT \(keys.joined(separator: ", ")) FROM \(t.quoted) t0"
        if let f = request.options.filter {
            sql += " WHERE " + (try filter.condition(f, in: scope, &parameters))
        }
        var order: [String] = []
        for item in request.options.orderBy ?? [] {
            order.append(try filter.orderTerm(item.expression, in: scope, &parameters) + (item.descending ? " DESC" : ""))
        }
        order += keys
        sql += " ORDER BY " + order.joined(separator: ", ")
        // Every bound value is used: SQLite only notices a missing last one.
        let used = Self.placeholders(sql)
        for i in parameters.values.indices where !used.contains(i + 1) {
            Issue.record("?\(i + 1) is not used in \(sql) (\(url))")
        }
        return Translation(sql: sql, values: parameters.values)
    }

    /// The keys (joined with `,` for compound keys) of the rows the URL selects, in order.
    func keys(_ url: String) throws -> [String] {
        let t = try translate(url)
        statements.append(t.sql)
        // Nothing is pasted: no literal, no quote character outside identifiers.
        #expect(!t.sql.contains("'"), "a quote in \(t.sql)")
        let rows = try db.rows(t.sql, t.values)
        return rows.map { row in row.map(Self.text).joined(separator: ",") }
    }

    /// The numbers of the `?N` placeholders in SQL text (outside quoted identifiers).
    static func placeholders(_ sql: String) -> Set<Int> {
        var out: Set<Int> = []
        let b = Array(sql.utf8)
        var i = 0
        var quoted = false
        while i < b.count {
            if b[i] == UInt8(ascii: "\"") { quoted.toggle() }
            if !quoted, b[i] == UInt8(ascii: "?") {
                var n = 0
                var j = i + 1
                while j < b.count, b[j] >= 48, b[j] <= 57 { n = n * 10 + Int(b[j] - 48); j += 1 }
                out.insert(n)
                i = j
                continue
            }
            i += 1
        }
        return out
    }

    static func text(_ v: SQLValue) -> String {
        switch v {
        case .null: return "null"
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .text(let s): return s
        case .blob(let b): return b.map(String.init).joined(separator: " ")
        }
    }

    /// Expects each URL to select the keys given, in order.
    func check(_ cases: [(String, [String])], sourceLocation: SourceLocation = #_sourceLocation) {
        for (url, expected) in cases {
            do {
                let got = try keys(url)
                #expect(got == expected, "\(url)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(url): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Expects each URL's translation to be refused as unsupported, naming what it refuses.
    func expectRefused(_ cases: [(String, String)], sourceLocation: SourceLocation = #_sourceLocation) {
        for (url, what) in cases {
            let e = translationError(url)
            #expect(e?.code == .unsupported, "\(url)", sourceLocation: sourceLocation)
            #expect(e?.message.contains("cannot be evaluated offline") == true, "\(url): \(e?.message ?? "-")", sourceLocation: sourceLocation)
            #expect(e?.message.contains(what) == true, "\(url): \(e?.message ?? "-")", sourceLocation: sourceLocation)
        }
    }

    /// The error a URL's translation throws, if any.
    func translationError(_ url: String) -> ODataStoreError? {
        do {
            _ = try translate(url)
            return nil
        } catch let e as ODataStoreError {
            return e
        } catch {
            Issue.record("unexpected error \(error) for \(url)")
            return nil
        }
    }

    /// One SQL value computed by an expression on its own (`SELECT expr`).
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws -> SQLValue? {
        try db.scalar(sql, values)
    }
}
