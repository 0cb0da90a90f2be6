import Testing
@testable import ODataStore

/// The collection functions (`ods_hassubset`, `ods_hassubsequence`, `ods_coll_*`,
/// `ods_array`) called through SQLite: the relations of OData 4.01 (Part 2, 5.1.1.5 and
/// 5.1.1.6) under each item equality, NULLs, and hostile arguments.
@Suite("Offline: collection SQL functions")
struct CollectionFunctionsTests {
    func expectValues(_ cases: [(String, SQLValue)], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let c = try SQLFunctionsTests.db()
        for (expression, expected) in cases {
            do {
                let got = try c.scalar("SELECT \(expression)")
                #expect(got == expected, "\(expression)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(expression): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func relationsFollowTheSpecificationsExamples() throws {
        try expectValues([
            // 5.1.1.6.1
            ("ods_hassubset('[4,1,3]','[4,1,3]','i')", 1),
            ("ods_hassubset('[4,1,3]','[1,3,4]','i')", 1),
            ("ods_hassubset('[4,1,3]','[3,1]','i')", 1),
            ("ods_hassubset('[4,1,3]','[4,3]','i')", 1),
            ("ods_hassubset('[4,1,3,1]','[1,1]','i')", 1),
            ("ods_hassubset('[1,2]','[1,1,2]','i')", 0),
            ("ods_hassubset('[]','[]','i')", 1),
            ("ods_hassubset('[]','[1]','i')", 0),
            // 5.1.1.6.2
            ("ods_hassubsequence('[4,1,3]','[4,1,3]','i')", 1),
            ("ods_hassubsequence('[4,1,3]','[4,1]','i')", 1),
            ("ods_hassubsequence('[4,1,3]','[4,3]','i')", 1),
            ("ods_hassubsequence('[4,1,3,1]','[1,1]','i')", 1),
            ("ods_hassubsequence('[4,1,3]','[1,3,4]','i')", 0),
            ("ods_hassubsequence('[4,1,3]','[3,1]','i')", 0),
            ("ods_hassubsequence('[1,2]','[1,1,2]','i')", 0),
            // 5.1.1.5.2, .3, .4, .6
            ("ods_coll_contains('[4,1,3]','[1,3]','i')", 1),
            ("ods_coll_contains('[4,1,3]','[4,3]','i')", 0),
            ("ods_coll_contains('[4,1,3]','[]','i')", 1),
            ("ods_coll_startswith('[4,1,3]','[4,1]','i')", 1),
            ("ods_coll_startswith('[4,1,3]','[1]','i')", 0),
            ("ods_coll_startswith('[4]','[4,1]','i')", 0),
            ("ods_coll_endswith('[4,1,3]','[1,3]','i')", 1),
            ("ods_coll_endswith('[4,1,3]','[4,1]','i')", 0),
            ("ods_coll_endswith('[3]','[1,3]','i')", 0),
            ("ods_coll_indexof('[4,1,3,1]','[3,1]','i')", 2),
            ("ods_coll_indexof('[4,1,3,1]','[1]','i')", 1),
            ("ods_coll_indexof('[4,1,3,1]','[1,1]','i')", -1),
            ("ods_coll_indexof('[]','[]','i')", 0),
            ("ods_coll_indexof('[1]','[1,1]','i')", -1),
        ])
    }

    @Test func itemsAreEqualAsEqSays() throws {
        try expectValues([
            // Null items equal null items.
            ("ods_hassubset('[null,1]','[null]','i')", 1),
            ("ods_hassubset('[1]','[null]','i')", 0),
            // Integers from numbers or strings, exactly.
            (#"ods_hassubset('["9007199254740993"]','[9007199254740993]','i')"#, 1),
            (#"ods_hassubset('["9007199254740993"]','[9007199254740992]','i')"#, 0),
            // Decimals by value.
            (#"ods_hassubset('["1.0","2"]','["1.00"]','m')"#, 1),
            (#"ods_hassubset('["0"]','["-0.00"]','m')"#, 1),
            (#"ods_hassubset('["1e2"]','[100]','m')"#, 1),
            (#"ods_hassubset('["0.1"]','["0.10000000000000000001"]','m')"#, 0),
            // Doubles: NaN equals nothing; integers compare exactly, decimals as doubles.
            (#"ods_hassubset('["NaN"]','["NaN"]','ddd')"#, 0),
            ("ods_hassubset('[0.1]','[0.1]','ddx')", 1),
            ("ods_hassubset('[0.1]','[\"0.1\"]','ddd')", 1),
            ("ods_hassubset('[-0.0]','[0]','ddx')", 1),
            (#"ods_hassubset('["INF"]','[1e999]','ddd')"#, 1),
            (#"ods_hassubset('["-INF"]','["INF"]','ddd')"#, 0),
            (#"ods_hassubset('["9007199254740993"]','[9007199254740992.0]','dxd')"#, 0),
            (#"ods_hassubset('["9007199254740993"]','[9007199254740992.0]','ddd')"#, 1),
            (#"ods_hassubset('["9007199254740993"]','[9007199254740993]','ddd')"#, 1),
            ("ods_hassubset('[9007199254740992.0]','[9007199254740993]','ddx')", 0),
            ("ods_hassubset('[9007199254740992.0]','[9007199254740992]','ddx')", 1),
            ("ods_hassubset('[2.0]','[2]','ddd')", 1),
            // Strings by code point.
            (#"ods_hassubset('["\#u{E9}"]','["e\#u{301}"]','s')"#, 0),
            (#"ods_hassubset('["a\u0062"]','["ab"]','s')"#, 1),
            (#"ods_hassubset('["A"]','["a"]','s')"#, 0),
            (#"ods_hassubset('["1"]','[1]','s')"#, 0),
            // GUIDs, instants, times of day, durations, binary, Booleans, flags.
            (#"ods_hassubset('["ABC"]','["abc"]','g')"#, 1),
            (#"ods_hassubset('["2024-01-01T10:00:00Z"]','["2024-01-01T12:00:00+02:00"]','t')"#, 1),
            (#"ods_hassubset('["2024-01-01"]','["2024-01-01T00:00:00Z"]','t')"#, 1),
            (#"ods_hassubset('["10:00"]','["10:00:00.000"]','h')"#, 1),
            (#"ods_hassubset('["PT1H"]','["PT60M"]','u')"#, 1),
            (#"ods_hassubset('["+/8="]','["-_8"]','y')"#, 1),
            ("ods_hassubset('[true]','[1]','b')", 1),
            ("ods_hassubset('[false]','[1]','b')", 0),
            (#"ods_hassubset('["Read,Write"]','["Write,Read"]','f:Read:1,Write:2')"#, 1),
            (#"ods_hassubset('["Read,Write"]','[3]','f:Read:1,Write:2')"#, 1),
            (#"ods_hassubset('["Read"]','["Read,Write"]','f:Read:1,Write:2')"#, 0),
            // Text that is not of the type equals only the same text.
            (#"ods_hassubset('["x"]','["x"]','t')"#, 1),
            (#"ods_hassubset('["x"]','["y"]','t')"#, 0),
        ])
    }

    @Test func substringConcatAndArraysKeepItemsAsWritten() throws {
        try expectValues([
            ("ods_coll_substring('[4,1,3]',1)", "[1,3]"),
            ("ods_coll_substring('[4,1,3]',-1)", "[3]"),
            ("ods_coll_substring('[4,1,3]',-9)", "[4,1,3]"),
            ("ods_coll_substring('[4,1,3]',5)", "[]"),
            ("ods_coll_substring('[4,1,3]',0,2)", "[4,1]"),
            ("ods_coll_substring('[4,1,3]',2,9223372036854775807)", "[3]"),
            (#"ods_coll_substring('["9007199254740993", 1.50 ,{"a":[1]},null]',0)"#, #"["9007199254740993",1.50,{"a":[1]},null]"#),
            (#"ods_coll_concat('[1]','["a",null]')"#, #"[1,"a",null]"#),
            ("ods_coll_concat('[]','[]')", "[]"),
            ("ods_array()", "[]"),
            ("ods_array(1, 2.5, 'x\"y', NULL, 1e999, -1e999, 3.141592653589793, 9223372036854775807)",
             #"[1,2.5,"x\"y",null,"INF","-INF",3.141592653589793,9223372036854775807]"#),
            ("json_array_length(ods_array(1, NULL))", 2),
        ])
    }

    @Test func nullArgumentsGiveNull() throws {
        try expectValues([
            ("ods_hassubset(NULL,'[]','i')", .null),
            ("ods_hassubsequence('[]',NULL,'i')", .null),
            ("ods_coll_contains('[]','[]',NULL)", .null),
            ("ods_coll_indexof(NULL,NULL,'i')", .null),
            ("ods_coll_concat(NULL,'[]')", .null),
            ("ods_coll_substring('[1]',NULL)", .null),
            ("ods_coll_substring('[1]',0,NULL)", .null),
        ])
    }

    @Test func failuresAreReportedNotTrapped() throws {
        let c = try SQLFunctionsTests.db()
        for (sql, text) in [
            ("ods_hassubset('x','[]','i')", "not a JSON array"),
            ("ods_coll_startswith('{}','[]','i')", "not a JSON array"),
            ("ods_coll_concat('[1]','1')", "not a JSON array"),
            ("ods_hassubset('[1]','[1]','?')", "unknown collection item equality"),
            ("ods_hassubset('[1]','[1]','dq')", "unknown collection item equality"),
            ("ods_coll_substring('[1]',0,-1)", "negative length"),
            ("ods_coll_substring('[1]','a')", "integer start"),
        ] {
            #expect(throws: (any Error).self, "\(sql)") { _ = try c.scalar("SELECT \(sql)") }
            let message = SQLFunctionsTests.failure(c, "SELECT \(sql)") ?? ""
            #expect(message.hasPrefix(SQLFunctions.errorPrefix) && message.contains(text), "\(sql): \(message)")
        }
        // Hostile arrays and equalities: a value or an error of ours.
        let values = ["NULL", "'[]'", "'[1,\"1\",null,true,\"NaN\",\"INF\",1e999,-0.0,\"\"]'", "'[[1],{\"a\":1}]'", "'[\"\\ud83d\\ude00\"]'",
                      "'[1'", "CAST(X'5B22FF225D' AS TEXT)", "'[\"\(String(repeating: "9", count: 400))\"]'", "1", "X'00'"]
        let hows = ["'i'", "'m'", "'ddx'", "'dxd'", "'dim'", "'s'", "'g'", "'b'", "'t'", "'h'", "'u'", "'y'", "'f:A:1'", "'f'", "''", "NULL", "3"]
        for f in ["ods_hassubset", "ods_hassubsequence", "ods_coll_contains", "ods_coll_startswith", "ods_coll_endswith", "ods_coll_indexof"] {
            for a in values {
                for b in values {
                    for how in hows {
                        let sql = "SELECT \(f)(\(a),\(b),\(how))"
                        if let message = SQLFunctionsTests.failure(c, sql) {
                            #expect(message.hasPrefix(SQLFunctions.errorPrefix), "\(sql): \(message)")
                        }
                    }
                }
            }
        }
    }
}
