import Foundation
import Testing
@testable import ODataProtocol
@testable import ODataStore

/// The store's regular-expression engine against two real ones:
/// - ECMAScript itself: `Tests/Fixtures/regex/ecmascript_cases.json`, random patterns over
///   every construct with V8's answers (`RegExp(pattern, "u").test(text)`), written by the
///   generator script beside it;
/// - Python's `re.search`, which odatapy's `matchesPattern` calls, run here from the test
///   venv on generated patterns from the part of the syntax where Python and ECMAScript
///   agree (no named groups, fixed-width lookbehinds, a backreference only to a group that
///   always took part, texts without the characters their classes disagree on).
@Suite("Offline: ECMAScript regular expressions against V8 and Python")
struct ECMARegexDifferentialTests {
    // MARK: - V8 fixture

    @Test func agreesWithV8OnTheFixture() throws {
        let json = try JSONValue.parse(OfflineFixtures.bytes("regex/ecmascript_cases.json"))
        guard case .array(let cases) = try #require(json["cases"]) else {
            Issue.record("no cases")
            return
        }
        var checked = 0, refused = 0, lenient = 0
        for c in cases {
            guard case .string(let pattern) = try #require(c["pattern"]) else { continue }
            let regex: ECMARegex
            do {
                regex = try ECMARegex(pattern)
            } catch {
                #expect(c["error"] == .bool(true), "/\(pattern)/u is valid for V8, refused here: \(error)")
                refused += 1
                continue
            }
            if c["error"] == .bool(true) {
                // The one leniency: an escaped character that is not an ASCII letter or
                // digit stands for itself (an error with the u flag).
                if Self.hasIdentityEscapeBeyondTheUFlag(pattern) {
                    lenient += 1
                } else {
                    Issue.record("/\(pattern)/u is a SyntaxError for V8, accepted here")
                }
                continue
            }
            guard case .array(let texts) = try #require(c["texts"]) else { continue }
            for t in texts {
                guard case .array(let pair) = t, pair.count == 2, case .string(let text) = pair[0], case .bool(let expected) = pair[1] else {
                    Issue.record("bad case \(t)")
                    continue
                }
                #expect(try regex.matches(text) == expected, "/\(pattern)/u.test(\(String(reflecting: text)))")
                checked += 1
            }
        }
        print("V8 fixture: \(checked) texts checked, \(refused) patterns refused as V8 refuses them, \(lenient) accepted by the identity-escape leniency")
        #expect(checked > 3000)
        #expect(refused > 50)
    }

    /// True when the pattern has `\` before a character that is neither an ASCII letter or
    /// digit, nor a syntax character or `/` (nor `-` in a class, not told apart here).
    static func hasIdentityEscapeBeyondTheUFlag(_ pattern: String) -> Bool {
        let scalars = Array(pattern.unicodeScalars)
        var i = 0
        while i + 1 < scalars.count {
            if scalars[i] == "\\" {
                let c = scalars[i + 1]
                let alphanumeric = c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c))
                if !alphanumeric && !#"^$\.*+?()[]{}|/"#.unicodeScalars.contains(c) { return true }
                i += 2
            } else {
                i += 1
            }
        }
        return false
    }

    // MARK: - Python re.search

    /// SplitMix64, as the other generated tests.
    struct Generator {
        var random: SeededRandom
        mutating func pick<T>(_ items: [T]) -> T { random.pick(items) }
        mutating func chance(_ percent: Int) -> Bool { random.below(100) < percent }
        mutating func below(_ n: Int) -> Int { random.below(n) }

        static let literals = ["a", "b", "c", "x", "-", " ", "😀", "1", "_", "A"]
        static let escapes = [#"\d"#, #"\D"#, #"\w"#, #"\W"#, #"\s"#, #"\S"#, #"\."#, #"\x61"#, #"\u0062"#, #"\n"#, #"\t"#]
        static let classes = ["[abc]", "[^a]", "[a-c]", #"[^a-c\d]"#, "[😀-😂]", #"[\w-]"#, #"[\s\d]"#, "[-a]", "[a😀]", "[.]"]

        /// One code point wide: what a fixed-width lookbehind of Python may hold.
        mutating func single() -> String {
            switch below(4) {
            case 0: return pick(Self.escapes)
            case 1: return pick(Self.classes)
            case 2: return "."
            default: return pick(Self.literals)
            }
        }

        mutating func atom(_ depth: Int) -> String {
            let r = below(20)
            if r < 12 { return single() }
            if depth > 0 && r < 17 {
                switch below(6) {
                case 0: return "(?:" + disjunction(depth - 1) + ")"
                case 1: return "(" + disjunction(depth - 1) + ")"
                case 2: return pick(["(?=", "(?!"]) + disjunction(depth - 1) + ")"
                case 3: return pick(["(?<=", "(?<!"]) + (0..<(1 + below(3))).map { _ in single() }.joined() + ")"
                default: return "(?:" + disjunction(depth - 1) + ")"
                }
            }
            return pick(["^", "$", #"\b"#, #"\B"#])
        }

        mutating func term(_ depth: Int) -> String {
            let a = atom(depth)
            let quantifiable = !["^", "$", #"\b"#, #"\B"#].contains(a) && !a.hasPrefix("(?=") && !a.hasPrefix("(?!") && !a.hasPrefix("(?<")
            guard quantifiable && chance(35) else { return a }
            return a + pick(["*", "+", "?", "{2}", "{0,1}", "{1,}", "{2,3}"]) + (chance(30) ? "?" : "")
        }

        mutating func alternative(_ depth: Int) -> String {
            (0..<(1 + below(4))).map { _ in term(depth) }.joined()
        }

        mutating func disjunction(_ depth: Int) -> String {
            var s = alternative(depth)
            while chance(20) { s += "|" + alternative(depth) }
            return s
        }

        /// A pattern; a fifth of them `(X)Y\1Z` (group 1 always takes part before `\1`).
        mutating func pattern() -> String {
            let body = disjunction(2)
            guard chance(20) else { return body }
            // Group 1 first: the body's own groups come after it.
            // `(?:\1)`: a digit after it would make another reference (`\11`).
            return "(" + alternative(1) + ")" + alternative(0) + #"(?:\1)"# + (chance(50) ? alternative(0) : "")
        }

        /// 1 to 8 code points, not ending in a newline (Python's `$` matches before one), no
        /// `\r` (Python's `.` matches it), no letters or digits outside ASCII (Python's `\w`
        /// and `\d` are Unicode's), and never empty (Python 3.11's `\B` fails on '').
        mutating func text() -> String {
            var s = (0..<(1 + below(8))).map { _ in pick(["a", "a", "b", "b", "c", "x", "-", " ", "😀", "€", "1", "_", "A", "\n"]) }.joined()
            if s.hasSuffix("\n") { s.removeLast(); s += "a" }
            return s
        }
    }

    /// `re.search(pattern, text) is not None` for each case, from the venv's Python; an
    /// entry is nil when Python refuses the pattern.
    static func pythonSearch(_ cases: [(pattern: String, texts: [String])]) throws -> [[Bool]?] {
        let input = JSONValue.array(cases.map { c in .array([.string(c.pattern), .array(c.texts.map { .string($0) })]) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("regex-cases-\(getpid()).json")
        try Data(input.serialized().utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import json, re, sys
            out = []
            for pattern, texts in json.load(open(sys.argv[1], encoding="utf-8")):
                try:
                    r = re.compile(pattern)
                except re.error:
                    out.append(None)
                    continue
                out.append([r.search(t) is not None for t in texts])
            print(json.dumps(out))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try TestServer.pythonPath())
        p.arguments = ["-c", script, file.path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        guard case .array(let results) = try JSONValue.parse([UInt8](output)) else { return [] }
        return results.map { r in
            guard case .array(let items) = r else { return nil }
            return items.map { $0 == .bool(true) }
        }
    }

    @Test func agreesWithPythonWhereTheyAgree() throws {
        var g = Generator(random: SeededRandom(seed: 0x5EA5C4))
        var cases: [(pattern: String, texts: [String])] = []
        for _ in 0..<300 {
            cases.append((g.pattern(), (0..<4).map { _ in g.text() }))
        }
        let python = try Self.pythonSearch(cases)
        try #require(python.count == cases.count)
        var compared = 0, matched = 0
        for (c, expected) in zip(cases, python) {
            guard let expected else {
                Issue.record("Python refuses /\(c.pattern)/: the generator should not make it")
                continue
            }
            let regex: ECMARegex
            do { regex = try ECMARegex(c.pattern) } catch {
                Issue.record("/\(c.pattern)/ refused: \(error)")
                continue
            }
            for (text, want) in zip(c.texts, expected) {
                #expect(try regex.matches(text) == want, "re.search(\(String(reflecting: c.pattern)), \(String(reflecting: text)))")
                compared += 1
                if want { matched += 1 }
            }
        }
        print("Python re.search: \(compared) pairs compared, \(matched) of them matching")
        #expect(compared >= 1000)
        #expect(matched >= 200 && matched <= compared - 200, "the generator should make both answers common")
    }
}
