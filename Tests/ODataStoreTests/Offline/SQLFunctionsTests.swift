import CSQLite
import Testing
@testable import ODataStore

/// The `ods_*` SQL functions and the store's collations, called through SQLite: their
/// results on real-world values, and that no input (NULLs, wrong storage classes, invalid
/// UTF-8, huge numbers, malformed dates) makes one trap or report anything but a value or
/// an error that starts with `SQLFunctions.errorPrefix`.
@Suite("Offline: SQL functions")
struct SQLFunctionsTests {
    static func db() throws -> SQLiteConnection {
        let c = try SQLiteConnection(path: ":memory:", create: true)
        try SQLFunctions.register(on: c)
        return c
    }

    /// `SELECT <expression>` (test SQL: literals are written inline on purpose).
    func value(_ c: SQLiteConnection, _ expression: String) throws -> SQLValue? {
        try c.scalar("SELECT \(expression)")
    }

    func expectValues(_ cases: [(String, SQLValue)], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let c = try Self.db()
        for (expression, expected) in cases {
            do {
                let got = try value(c, expression)
                #expect(got == expected, "\(expression)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(expression): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    func expectFailure(_ expressions: [String], containing text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let c = try Self.db()
        for expression in expressions {
            do {
                let v = try value(c, expression)
                Issue.record("\(expression) gave \(String(describing: v)) instead of failing", sourceLocation: sourceLocation)
            } catch let e as SQLiteError {
                #expect(e.message.hasPrefix(SQLFunctions.errorPrefix), "\(expression): \(e.message)", sourceLocation: sourceLocation)
                #expect(e.message.contains(text), "\(expression): \(e.message)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func stringFunctions() throws {
        try expectValues([
            ("ods_contains('Größe','öß')", .integer(1)),
            ("ods_contains('abc','')", .integer(1)),
            ("ods_contains('abc','ABC')", .integer(0)),
            ("ods_contains('50% off','%')", .integer(1)),
            ("ods_contains('ab','a_')", .integer(0)),
            ("ods_contains(NULL,'a')", .null),
            ("ods_contains('a',NULL)", .null),
            ("ods_startswith('日本語','日')", .integer(1)),
            ("ods_startswith('abc','abcd')", .integer(0)),
            ("ods_endswith('abc','bc')", .integer(1)),
            ("ods_endswith('a','abc')", .integer(0)),
            ("ods_endswith('é','\u{301}')", .integer(0)),
            ("ods_length('日本')", .integer(2)),
            ("ods_length('😀')", .integer(1)),
            ("ods_length('e\u{301}')", .integer(2)),
            ("ods_length('')", .integer(0)),
            ("ods_length('a' || char(0) || 'b')", .integer(3)),
            ("ods_length(12345)", .integer(5)),
            ("ods_indexof('a😀b','b')", .integer(2)),
            ("ods_indexof('abc','')", .integer(0)),
            ("ods_indexof('abc','x')", .integer(-1)),
            ("ods_indexof('ababab','bab')", .integer(1)),
            ("ods_substring('a😀b',1,1)", .text("😀")),
            ("ods_substring('abc',5)", .text("")),
            ("ods_substring('abc',3)", .text("")),
            ("ods_substring('abc',-1)", .text("c")),
            ("ods_substring('abc',-10,2)", .text("ab")),
            ("ods_substring('abc',1,100)", .text("bc")),
            ("ods_substring('abc',1,0)", .text("")),
            ("ods_substring('abc',9223372036854775807,9223372036854775807)", .text("")),
            ("ods_substring('abc',-9223372036854775808)", .text("abc")),
            ("ods_substring('abc',1.0,1)", .text("b")),
            ("ods_tolower('ΟΔΟΣ ΣΑΣ')", .text("οδος σας")),
            ("ods_tolower('Σ')", .text("σ")),
            ("ods_tolower('İ')", .text("i\u{307}")),
            ("ods_tolower('ZOË Größe')", .text("zoë größe")),
            ("ods_toupper('ß')", .text("SS")),
            ("ods_toupper('ﬁ')", .text("FI")),
            ("ods_toupper('zoë')", .text("ZOË")),
            ("ods_trim(char(12288) || ' a b ' || char(9) || char(10))", .text("a b")),
            ("ods_trim('   ')", .text("")),
            ("ods_trim(NULL)", .null),
        ])
        try expectFailure(["ods_substring('abc',1,-1)"], containing: "negative length")
        try expectFailure(["ods_substring('abc','x')"], containing: "integer")
    }

    @Test func checkedIntegerArithmetic() throws {
        try expectValues([
            ("ods_int_add(9223372036854775806,1)", .integer(.max)),
            ("ods_int_sub(-9223372036854775807,1)", .integer(.min)),
            ("ods_int_mul(3037000499,3037000499)", .integer(9_223_372_030_926_249_001)),
            ("ods_int_div(-7,2)", .integer(-3)),
            ("ods_int_div(7,-2)", .integer(-3)),
            ("ods_int_mod(-7,2)", .integer(-1)),
            ("ods_int_mod(7,-2)", .integer(1)),
            ("ods_int_mod(-9223372036854775808,-1)", .integer(0)),
            ("ods_int_neg(-9223372036854775807)", .integer(.max)),
            ("ods_int_add(NULL,1)", .null),
            ("ods_int_add('12',1)", .integer(13)),
        ])
        try expectFailure(["ods_int_add(9223372036854775807,1)", "ods_int_mul(4611686018427387904,2)",
                           "ods_int_div(-9223372036854775808,-1)", "ods_int_neg(-9223372036854775808)"], containing: "overflow")
        try expectFailure(["ods_int_div(1,0)"], containing: "division by zero")
        try expectFailure(["ods_int_mod(1,0)"], containing: "modulo by zero")
        try expectFailure(["ods_int_add('x',1)", "ods_int_add(1.5,1)"], containing: "not an integer")
    }

    @Test func exactDecimalArithmetic() throws {
        try expectValues([
            ("ods_dec_add('0.1','0.2')", .text("0.3")),
            ("ods_dec_add('1e2',1)", .text("101")),
            ("ods_dec_sub(1,'0.001')", .text("0.999")),
            ("ods_dec_sub('0.10','0.1')", .text("0")),
            ("ods_dec_mul('1.10','2')", .text("2.20")),
            ("ods_dec_mul('-0.01','-0.01')", .text("0.0001")),
            ("ods_dec_mul('9007199254740993','1000')", .text("9007199254740993000")),
            ("ods_dec_div('1','3')", .text("0.3333333333333333333333333333")),
            ("ods_dec_div('2','3')", .text("0.6666666666666666666666666667")),
            ("ods_dec_div('1','4')", .text("0.25")),
            ("ods_dec_div('1.00','1')", .text("1.00")),
            ("ods_dec_div('-7','2')", .text("-3.5")),
            ("ods_dec_div('1e30','3')", .text("333333333333333333333333333300")),
            ("ods_dec_div(10,4)", .text("2.5")),
            ("ods_dec_mod('-7.5','2')", .text("-1.5")),
            ("ods_dec_mod('7.5','-2')", .text("1.5")),
            ("ods_dec_mod('0.3','0.1')", .text("0")),
            ("ods_dec_mod('0.35','0.1')", .text("0.05")),
            ("ods_dec_round('2.5')", .text("3")),
            ("ods_dec_round('-2.5')", .text("-3")),
            ("ods_dec_round('-0.4')", .text("0")),
            ("ods_dec_round('1e3')", .text("1000")),
            ("ods_dec_floor('-0.01')", .text("-1")),
            ("ods_dec_ceiling('-0.01')", .text("0")),
            ("ods_dec_ceiling('0.000000000001')", .text("1")),
            ("ods_dec_floor('1e-99999')", .text("0")),
            ("ods_dec_neg('0')", .text("0")),
            ("ods_dec_neg(5)", .text("-5")),
            ("ods_dec_add(1.5,'0.25')", .text("1.75")),
            ("ods_dec_add(NULL,'1')", .null),
        ])
        try expectFailure(["ods_dec_div('1','0')", "ods_dec_mod(1,'0.00')"], containing: "division by zero")
        try expectFailure(["ods_dec_add('1e99999',1)", "ods_dec_mul('1e99999','1e99999')", "ods_dec_neg('1e99999')"], containing: "out of range")
        try expectFailure(["ods_dec_add('abc',1)", "ods_dec_add('1.',1)", "ods_dec_add(X'00',1)", "ods_dec_add('1e999999',1)"],
                          containing: "not a decimal")
    }

    @Test func doublesFollowIEEE754() throws {
        try expectValues([
            ("ods_dbl_div(1,0)", .real(.infinity)),
            ("ods_dbl_div(-1,0)", .real(-.infinity)),
            ("ods_dbl_div(0,0)", .text("NaN")),
            ("ods_dbl_add('NaN',1)", .text("NaN")),
            ("ods_dbl_add('INF','-INF')", .text("NaN")),
            ("ods_dbl_mul('INF',0)", .text("NaN")),
            ("ods_dbl_add('1.5',1)", .real(2.5)),
            ("ods_dbl_round(2.5)", .real(3)),
            ("ods_dbl_round(-2.5)", .real(-3)),
            ("ods_dbl_floor(-0.5)", .real(-1)),
            ("ods_dbl_ceiling(0.1)", .real(1)),
            ("ods_dbl_mod(-7.5,2)", .real(-1.5)),
            ("ods_dbl_mod(1,0)", .text("NaN")),
            ("ods_dbl_neg('INF')", .real(-.infinity)),
            ("ods_double('INF')", .real(.infinity)),
            ("ods_double('-Infinity')", .real(-.infinity)),
            ("ods_double('NaN')", .text("NaN")),
            ("ods_double(3)", .real(3)),
            ("ods_double('1e400')", .real(.infinity)),
            ("ods_isnum('NaN')", .integer(0)),
            ("ods_isnum(1.5)", .integer(1)),
            ("ods_isnum(2)", .integer(1)),
            ("ods_isnum(NULL)", .integer(0)),
        ])
        try expectFailure(["ods_dbl_add('x',1)", "ods_dbl_add(X'01',1)"], containing: "not a number")
    }

    @Test func enumerationsAndBinary() throws {
        try expectValues([
            ("ods_enum_value('Read, Write','Read:1,Write:2')", .integer(3)),
            ("ods_enum_value('Write','Read:1,Write:2')", .integer(2)),
            ("ods_enum_value('Nope','Read:1,Write:2')", .null),
            ("ods_enum_value(5,'Read:1')", .integer(5)),
            ("ods_enum_value('7','Read:1')", .integer(7)),
            ("ods_enum_value('','Read:1')", .null),
            ("ods_enum_value('Read','garbage,,:,x:')", .null),
            ("ods_unbase64('AAEC')", .blob([0, 1, 2])),
            ("ods_unbase64('-_8')", .blob([0xFB, 0xFF])),
            ("ods_unbase64('+/8=')", .blob([0xFB, 0xFF])),
            ("ods_unbase64('')", .blob([])),
            ("ods_unbase64('***')", .null),
        ])
    }

    @Test func dateAndTimeFunctions() throws {
        try expectValues([
            ("ods_year('2024-01-01T23:00:00-05:00')", .integer(2024)),
            ("ods_day('2024-01-01T23:00:00-05:00')", .integer(1)),
            ("ods_hour('2024-01-01T23:00:00-05:00')", .integer(23)),
            ("ods_year('2020-02-29')", .integer(2020)),
            ("ods_year('-0044-03-15')", .integer(-44)),
            ("ods_year('12345-01-01T00:00:00Z')", .integer(12345)),
            ("ods_hour('13:20:00')", .integer(13)),
            ("ods_second('13:20:59.9')", .integer(59)),
            ("ods_hour('PT25H')", .integer(1)),
            ("ods_minute('-PT1H30M')", .integer(-30)),
            ("ods_fractionalseconds('2024-01-01T00:00:00.1234567Z')", .text("0.1234567")),
            ("ods_fractionalseconds('2024-01-01T00:00:00Z')", .text("0")),
            ("ods_fractionalseconds('10:00:00.5')", .text("0.5")),
            ("ods_totalseconds('P1DT1.5S')", .text("86401.5")),
            ("ods_totalseconds('-PT0.25S')", .text("-0.25")),
            ("ods_totalseconds('13:20:00')", .text("48000")),
            ("ods_date('2024-01-01T01:00:00+14:00')", .text("2024-01-01")),
            ("ods_time('2024-01-01T01:02:03.5+14:00')", .text("01:02:03.5")),
            ("ods_totaloffsetminutes('2024-01-01T00:00:00-03:30')", .integer(-210)),
            ("ods_totaloffsetminutes('2024-01-01T00:00:00Z')", .integer(0)),
            ("ods_dt_add('2024-02-28T23:30:00+01:00','PT1H')", .text("2024-02-29T00:30:00+01:00")),
            ("ods_dt_add('2023-12-31','P1D')", .text("2024-01-01")),
            ("ods_dt_sub('2024-01-01','PT1S')", .text("2023-12-31")),
            ("ods_dt_add('2024-01-01','PT23H59M')", .text("2024-01-01")),
            ("ods_dt_add('2024-01-01T00:00:00Z','-P1DT0.5S')", .text("2023-12-30T23:59:59.5Z")),
            ("ods_dt_add('1969-12-31T23:59:59Z','PT1S')", .text("1970-01-01T00:00:00Z")),
            ("ods_dt_add('2024-01-01T00:00:00Z','10:30:00')", .text("2024-01-01T10:30:00Z")),
            ("ods_dt_diff('2024-01-01T00:00:00+01:00','2023-12-31T23:00:00Z')", .text("PT0S")),
            ("ods_dt_diff('2024-03-01','2024-02-01')", .text("P29D")),
            ("ods_dt_diff('2024-01-01T00:00:00Z','2024-01-01T00:00:01.5Z')", .text("-PT1.5S")),
            ("ods_dur_add('PT1H','PT30M')", .text("PT1H30M")),
            ("ods_dur_sub('PT1H','P1D')", .text("-PT23H")),
            ("ods_dur_neg('PT0S')", .text("PT0S")),
            ("ods_dur_neg('P1DT0.5S')", .text("-P1DT0.5S")),
            ("ods_dur_mul('PT1H',1.5)", .text("PT1H30M")),
            ("ods_dur_mul('PT1H','0.5')", .text("PT30M")),
            ("ods_dur_div('PT1H',3)", .text("PT20M")),
            ("ods_dur_div('PT1S',3)", .text("PT0.333333333333S")),
            ("ods_year(NULL)", .null),
        ])
        try expectFailure(["ods_dur_div('PT1H',0)"], containing: "division by zero")
        try expectFailure(["ods_year('13:20:00')", "ods_hour('yesterday')", "ods_year('2024-02-30')"], containing: "not a date")
        try expectFailure(["ods_dt_add('9999-12-31T00:00:00Z','P999999999999D')"], containing: "out of range")
        try expectFailure(["ods_dur_mul('PT1H','INF')"], containing: "finite")
        // now(): the current instant in UTC, different from call to call only by time.
        let c = try Self.db()
        guard case .text(let now)? = try value(c, "ods_now()") else { Issue.record("ods_now() is not text"); return }
        var t = now
        let parts = t.withUTF8 { TemporalText.dateTime($0) }
        #expect(parts?.zulu == true && parts?.hasTime == true, "\(now)")
        #expect((parts?.year ?? 0) >= 2024)
    }

    @Test func collationsCompareValues() throws {
        let c = try Self.db()
        for (a, op, b, collation) in [("'10:00'", "=", "'10:00:00.000'", "ODS_TIMEOFDAY"), ("'09:59:59.9'", "<", "'10:00'", "ODS_TIMEOFDAY"),
                                      ("'1.50'", "=", "'1.5'", "ODS_DECIMAL"), ("'-0.01'", "<", "'0'", "ODS_DECIMAL"),
                                      ("'2024-01-01T10:00:00Z'", "=", "'2024-01-01T12:00:00+02:00'", "ODS_INSTANT"),
                                      ("'PT1H'", "=", "'PT60M'", "ODS_DURATION"), ("'abc'", ">", "'23:59:59'", "ODS_TIMEOFDAY")] {
            #expect(try value(c, "\(a) COLLATE \(collation) \(op) \(b)") == .integer(1), "\(a) \(op) \(b) \(collation)")
        }
    }

    /// `ods_matches_pattern`: ECMAScript search semantics over code points, NULL in NULL out,
    /// an invalid pattern fails the statement as the service refuses it (HTTP 400), a
    /// pattern beyond the step budget is refused (`.unsupported`), never a hang.
    @Test func matchesPattern() throws {
        try expectValues([
            ("ods_matches_pattern('Größe','^Gr.ße$')", .integer(1)),
            ("ods_matches_pattern('abc','^b')", .integer(0)),
            ("ods_matches_pattern('abc','b')", .integer(1)),
            ("ods_matches_pattern('😀 smile','^.{7}$')", .integer(1)),
            ("ods_matches_pattern('a' || char(10),'a$')", .integer(0)),
            ("ods_matches_pattern('','')", .integer(1)),
            ("ods_matches_pattern(12345,'^\\d+$')", .integer(1)),
            ("ods_matches_pattern('a%b_c','^a%b_c$')", .integer(1)),
            ("ods_matches_pattern(NULL,'a')", .null),
            ("ods_matches_pattern('a',NULL)", .null),
            ("ods_matches_pattern(NULL,'(')", .null),
        ])
        try expectFailure(["ods_matches_pattern('a','(')"],
                          containing: "matchesPattern: invalid regular expression: missing ')', unterminated group at position 0, pattern '('")
        let c = try Self.db()
        let message = try #require(Self.failure(c, "SELECT ods_matches_pattern('\(String(repeating: "a", count: 40))!','(a+)+$')"))
        #expect(message.hasPrefix(SQLFunctions.refusalPrefix), "\(message)")
        #expect(message.contains("matchesPattern cannot be evaluated offline: the pattern needs too many steps"), "\(message)")
        let refused = SQLiteError(code: SQLITE_ERROR, message: message, sql: nil).storeError("read")
        #expect(refused.code == .unsupported)
        #expect(refused.message.hasPrefix("matchesPattern cannot be evaluated offline"), "\(refused.message)")
        let invalid = SQLiteError(code: SQLITE_ERROR, message: try #require(Self.failure(c, "SELECT ods_matches_pattern('a','a{2,1}')")), sql: nil).storeError("read")
        #expect(invalid.code == .http && invalid.httpStatus == 400)
        #expect(invalid.message == "the request cannot be evaluated: matchesPattern: invalid regular expression: numbers out of order in {} quantifier at position 1, pattern 'a{2,1}'")

        // A bound pattern over many rows (compiled once, kept as the argument's auxiliary
        // data), and patterns that change per row (compiled per row).
        try c.execute("CREATE TABLE t(x TEXT, p TEXT)")
        for i in 0..<2000 { try c.run("INSERT INTO t VALUES (?1, ?2)", [.text("item-\(i)"), .text(i % 2 == 0 ? "7$" : "^item-1")]) }
        #expect(try c.scalar("SELECT count(*) FROM t WHERE ods_matches_pattern(x, ?1)", [.text(#"^item-\d*7$"#)]) == .integer(200))
        #expect(try c.scalar("SELECT count(*) FROM t WHERE ods_matches_pattern(x, p)") == .integer(556))
        #expect(try c.scalar("SELECT count(*) FROM t WHERE ods_matches_pattern(x, ?1)", [.text("(?<=-)1")]) == .integer(1111))
    }

    /// The message of the error running `sql` gives, nil when it runs.
    static func failure(_ c: SQLiteConnection, _ sql: String) -> String? {
        do {
            _ = try c.scalar(sql)
            return nil
        } catch {
            return error.message
        }
    }

    /// Every registered function with every combination of hostile arguments: a value or an
    /// error of ours, never a trap and never another SQLite error.
    @Test func noInputMakesAFunctionTrap() throws {
        let c = try Self.db()
        let hostile = ["NULL", "0", "-1", "-9223372036854775808", "9223372036854775807", "1.5", "-0.0", "9e999", "-9e999", "''",
                       "'abc'", "'NaN'", "'INF'", "'-INF'", "'1e99999'", "'1e-99999'", "'2024-02-30T10:00:00Z'",
                       "'9999-12-31T23:59:59.999999999999+14:00'", "'-PT1.5S'", "'P'", "'PT'", "'24:00:00'", "X'FFFEC3'",
                       "CAST(X'FFFEC380' AS TEXT)", "CAST(X'C3' AS TEXT)", "zeroblob(3)", "'\(String(repeating: "9", count: 5000))'",
                       "'Read:1,Write:x'", "'P999999999999DT999999999999H'", "'0001-01-01'"]
        var calls = 0
        for f in SQLFunctions.functions {
            // Variadic functions (ods_array) get three arguments.
            let n = f.arguments < 0 ? 3 : Int(f.arguments)
            var index = [Int](repeating: 0, count: n)
            while true {
                let args = index.map { hostile[$0] }.joined(separator: ",")
                let sql = "SELECT \(f.name)(\(args))"
                if let message = Self.failure(c, sql) {
                    #expect(message.hasPrefix(SQLFunctions.errorPrefix) || message.hasPrefix(SQLFunctions.refusalPrefix), "\(sql): \(message)")
                }
                calls += 1
                // Next combination (three-argument functions take a thinner sample).
                var k = n - 1
                while k >= 0 {
                    index[k] += n == 3 && k == 0 ? 3 : 1
                    if index[k] < hostile.count { break }
                    index[k] = 0
                    k -= 1
                }
                if k < 0 { break }
            }
        }
        #expect(calls > 10_000)
    }
}
