import Testing
@testable import ODataStore

/// The store's ECMAScript regular-expression engine (Sources/ODataStore/Offline/Query/Regex),
/// behind `matchesPattern`: real-world patterns with the answers of ECMAScript (checked with
/// V8's `RegExp(pattern, "u").test(text)`), syntax errors with their positions, and hostile
/// patterns that must end with a limit error, never a hang or a trap.
@Suite("Offline: ECMAScript regular expressions")
struct ECMARegexTests {
    func expectMatches(_ cases: [(String, String, Bool)], sourceLocation: SourceLocation = #_sourceLocation) {
        for (pattern, text, expected) in cases {
            do {
                let r = try ECMARegex(pattern)
                #expect(try r.matches(text) == expected, "/\(pattern)/u.test(\(String(reflecting: text)))", sourceLocation: sourceLocation)
            } catch {
                Issue.record("/\(pattern)/: \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    func syntaxError(_ pattern: String) -> (message: String, position: Int)? {
        do {
            _ = try ECMARegex(pattern)
            return nil
        } catch {
            if case .syntax(let m, let p) = error { return (m, p) }
            return ("not a syntax error: \(error)", -1)
        }
    }

    @Test func realWorldPatterns() {
        expectMatches([
            // E-mail addresses, loosely and more strictly.
            (#"^[^@\s]+@[^@\s]+\.[a-z]{2,}$"#, "jane.doe@example.com", true),
            (#"^[^@\s]+@[^@\s]+\.[a-z]{2,}$"#, "jane.doe@example", false),
            (#"^[^@\s]+@[^@\s]+\.[a-z]{2,}$"#, "jane doe@example.com", false),
            (#"^[\w.+-]+@[\w-]+(\.[\w-]+)+$"#, "a+b@mail.example.co.uk", true),
            (#"^[\w.+-]+@[\w-]+(\.[\w-]+)+$"#, "a@b", false),
            // ISO dates and times.
            (#"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"#, "2024-02-29", true),
            (#"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"#, "2024-13-01", false),
            (#"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"#, "2024-1-01", false),
            (#"T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$"#, "2024-03-09T05:00:00.125+02:00", true),
            (#"T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$"#, "2024-03-09T05:00:00+0200", false),
            // ISO country and currency codes, IBAN-like and postal codes.
            (#"^[A-Z]{2}$"#, "DE", true),
            (#"^[A-Z]{2}$"#, "De", false),
            (#"^[A-Z]{3}$"#, "EUR", true),
            (#"^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$"#, "DE89370400440532013000", true),
            (#"^\d{5}(-\d{4})?$"#, "12345-6789", true),
            (#"^\d{5}(-\d{4})?$"#, "1234", false),
            (#"^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$"#, "SW1A 1AA", true),
            // Search semantics: anywhere in the text, unless anchored.
            ("ell", "Hello", true),
            ("^ell", "Hello", false),
            ("llo$", "Hello", true),
            ("ll$", "Hello", false),
            ("", "", true),
            ("", "abc", true),
            ("^$", "", true),
            ("^$", "a", false),
            ("a|", "xyz", true),
            ("x*", "", true),
            // `$` is only the end (no multiline), even before a final newline (Python's `$`
            // also matches there).
            ("a$", "a\n", false),
            ("^b", "a\nb", false),
            // Classes, ranges, negation, escapes in classes.
            ("[a-c]x", "bx", true),
            ("[^a-c]x", "bx", false),
            ("[^a-c]x", "dx", true),
            (#"[\d-]+"#, "12-34", true),
            ("[-a]", "-", true),
            ("[a-]", "-", true),
            (#"[\]]"#, "]", true),
            (#"[\b]"#, "\u{8}", true),
            ("[]", "a", false),
            ("[^]", "\n", true),
            (#"[\u0041-\u005A]+$"#, "ABC", true),
            (#"^[\x41-\x43]{3}$"#, "ACB", true),
            // `.`: not a line terminator; one code point, also outside the BMP.
            ("^.$", "😀", true),
            ("^..$", "😀", false),
            ("^.$", "\n", false),
            ("^.$", "\r", false),
            ("^.$", "\u{2028}", false),
            ("^.$", "\u{85}", true),
            ("^.{7}$", "😀 smile", true),
            ("^[😀-😂]$", "😁", true),
            (#"^\u{1F600}$"#, "😀", true),
            (#"^\uD83D\uDE00$"#, "😀", true),
            (#"^\ud83d$"#, "😀", false),
            // `\d`, `\w`, `\b` are ASCII; `\s` is ECMAScript's WhiteSpace and LineTerminator.
            (#"\d"#, "٣", false),
            (#"\w"#, "é", false),
            (#"^\w+$"#, "snake_case_9", true),
            (#"\bcafé\b"#, "un café noir", false),
            (#"\bcaf"#, "un café noir", true),
            (#"\Bfé"#, "café", true),
            (#"\s"#, "\u{A0}", true),
            (#"\s"#, "\u{FEFF}", true),
            (#"\s"#, "\u{3000}", true),
            (#"\s"#, "\u{85}", false),
            (#"\s"#, "\u{1C}", false),
            (#"\S"#, " \t\n", false),
            (#"^\D\W$"#, "a-", true),
            // Escapes.
            (#"\t\n\v\f\r\0"#, "\t\n\u{B}\u{C}\r\0", true),
            (#"\cJ"#, "\n", true),
            (#"\x41\u0042\u{43}"#, "ABC", true),
            (#"\.\*\+\?\(\)\[\]\{\}\|\^\$\\\/"#, #".*+?()[]{}|^$\/"#, true),
            // An escaped character that is not an ASCII letter or digit is itself (ECMAScript
            // without the u flag and Python agree; with the u flag this is an error).
            (##"\-\@\ \#"##, "-@ #", true),
            // Greedy and lazy quantifiers (the answer differs only with what follows).
            ("^a{2,3}$", "aaa", true),
            ("^a{2,3}$", "aaaa", false),
            ("^a{2,}$", "aaaaaaa", true),
            ("^a{2}$", "aa", true),
            ("^a{0}$", "", true),
            ("^(?:ab){2}$", "abab", true),
            ("^<.+?>x$", "<a><b>x", true),
            ("^<.+>$", "<a><b>", true),
            ("^a+?$", "aaa", true),
            ("^(a+?)(a*)$", "aaa", true),
            ("^(?:a|ab)(?:c|bcd)(d*)$", "abcd", true),
            ("^(a*)*$", "aaa", true),
            ("^(a*)+$", "b", false),
            ("^(?:a?)*?b", "aab", true),
            // Groups, alternation, backreferences (a group that captured nothing matches the
            // empty string; captures inside a repeated group are cleared per repetition).
            (#"^(\w)\w*\1$"#, "abca", true),
            (#"^(\w)\w*\1$"#, "abcd", false),
            (#"(.)\1"#, "Straße", false),
            (#"(.)\1"#, "padded", true),
            (#"(a)|b\1"#, "b", true),
            (#"^(?:(a)|b)+\1$"#, "abb", true),
            (#"^(?:(a)|b)+\1$"#, "aba", false),
            (#"\1(a)"#, "a", true),
            (#"^(?<year>\d{4})-(?<month>\d{2})-\k<month>$"#, "2024-05-05", true),
            (#"^(?<year>\d{4})-(?<month>\d{2})-\k<month>$"#, "2024-05-06", false),
            (#"^(?<q>['"]).*\k<q>$"#, "'quoted'", true),
            (#"^(?<q>['"]).*\k<q>$"#, "'quoted\"", false),
            (#"\k<late>(?<late>x)"#, "x", true),
            (#"^(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10$"#, "abcdefghijj", true),
            // Lookarounds: zero-width, atomic; lookbehind of any length, matched backwards.
            ("^(?=.*\\d)(?=.*[a-z]).{6,}$", "abc123", true),
            ("^(?=.*\\d)(?=.*[a-z]).{6,}$", "abcdef", false),
            ("^(?!.*password).*$", "my secret", true),
            ("^(?!.*password).*$", "my password", false),
            ("(?<=\\$)\\d+", "cost: $42", true),
            ("(?<=\\$)\\d+", "cost: 42", false),
            ("(?<!\\$)\\b\\d+", "$42", false),
            ("(?<=^a+)b", "aaab", true),
            ("(?<=(\\d+)(\\d+))$", "1053", true),
            ("(?<=\\1(a))b", "aab", true),
            ("(?<=\\1(a))b", "ab", false),
            ("(?=(a+))a*b\\1", "baaabac", true),
            ("^(?=(a+?))\\1ab", "aaab", false),
            ("(?!(a))\\1b", "b", true),
            ("(?<=ab(?=c)c)d", "abcd", true),
            // Surrogate pairs written as escapes are one code point, in classes too; escapes
            // in group names; counted repetitions of groups; controls.
            (#"^[\uD83D\uDE00-\uD83D\uDE02]$"#, "😁", true),
            (#"^[^\uD83D]$"#, "😀", true),
            (#"(?<\u0061b>x)\k<ab>"#, "xx", true),
            (#"^(?:a|b){3,5}$"#, "ababab", false),
            (#"^(?:a|b){3,5}$"#, "abab", true),
            (#"(?<=(?<x>a)b)\k<x>"#, "aba", true),
            (#"^(?:(?=(\w))\1)+$"#, "abc", true),
            (#"(?<!a{2,})b"#, "aab", false),
            (#"(?<=\b)x"#, "-x", true),
            (#"^\cZ$"#, "\u{1A}", true),
            (#"^[\cA-\cC]$"#, "\u{2}", true),
            (#"^(?:){5}$"#, "", true),
            (#"(a*)+?b"#, "aab", true),
            (#"^(?:x*?){2,}y$"#, "xxy", true),
            // Non-BMP and non-ASCII literal text.
            ("日本", "日本語", true),
            ("^Ü.*é$", "Ünïcödé", true),
            ("😀 s", "😀 smile", true),
            // Empty texts.
            ("a", "", false),
            ("a?", "", true),
            ("\\b", "", false),
            ("\\B", "", true),
            ("(?=)", "", true),
            ("(?!)", "", false),
        ])
    }

    @Test func syntaxErrorsNameThePosition() throws {
        for (pattern, position, text) in [
            ("(a", 0, "unterminated group"),
            ("a)", 1, "unmatched ')'"),
            ("*a", 0, "nothing to repeat"),
            ("a**", 2, "nothing to repeat"),
            ("a{2,1}", 1, "out of order"),
            ("a{", 1, "incomplete quantifier"),
            ("a{,3}", 1, "incomplete quantifier"),
            ("x}", 1, "lone '}'"),
            ("x]", 1, "lone ']'"),
            ("[a", 0, "unterminated character class"),
            ("[z-a]", 2, "out of order"),
            (#"[\d-z]"#, 3, "class escape"),
            (#"\1"#, 0, "group 1"),
            (#"(a)\2"#, 3, "group 2"),
            (#"\k<x>"#, 0, "'x'"),
            (#"(?<a>x)(?<a>y)"#, 9, "duplicate group name"),
            ("(?<>x)", 3, "empty group name"),
            ("(?i)abc", 0, "invalid group"),
            ("(?P<n>x)", 0, "invalid group"),
            (#"\q"#, 0, "invalid escape"),
            (#"\c1"#, 0, "\\c"),
            (#"\x4"#, 0, "\\x"),
            (#"\u12"#, 0, "Unicode escape"),
            (#"\u{110000}"#, 0, "U+10FFFF"),
            (#"\01"#, 0, "octal"),
            (#"[\1]"#, 1, "backreference"),
            ("a\\", 1, "end of the pattern"),
            ("(?=a)*", 5, "assertion cannot be quantified"),
            ("^*", 1, "assertion cannot be quantified"),
            (#"\b+"#, 2, "assertion cannot be quantified"),
        ] {
            let e = syntaxError(pattern)
            #expect(e?.position == position, "/\(pattern)/: \(String(describing: e))")
            #expect(e?.message.contains(text) == true, "/\(pattern)/: \(String(describing: e))")
        }
        let e = try #require(throws: RegexError.self) { try ECMARegex("ab(cd") }
        #expect(e.description == "invalid regular expression: missing ')', unterminated group at position 2")
        #expect(!e.isLimit)
    }

    @Test func unsupportedAndLimitsAreLimits() throws {
        let p = try #require(throws: RegexError.self) { try ECMARegex(#"\p{L}"#) }
        #expect(p == .unsupported(#"the Unicode property escape \p{...}"#, position: 0))
        #expect(p.isLimit)
        let long = try #require(throws: RegexError.self) { try ECMARegex(String(repeating: "a", count: 9000)) }
        #expect(long == .patternTooLong(length: 9000, limit: 8192))
        #expect(try ECMARegex(String(repeating: "a", count: 8192)).matches(String(repeating: "a", count: 8192)))
    }

    // MARK: - Hostile patterns

    /// Catastrophic backtracking ends with `tooManySteps` (here with the standard budget:
    /// 2,000,000 + 100 per code point), quickly.
    @Test func catastrophicBacktrackingIsBounded() throws {
        let clock = ContinuousClock()
        for (pattern, text) in [
            ("(a+)+$", String(repeating: "a", count: 40) + "!"),
            ("(a|aa)+$", String(repeating: "a", count: 60) + "!"),
            ("(a|a)+$", String(repeating: "a", count: 40) + "!"),
            ("^(\\w+\\s?)*$", String(repeating: "word ", count: 20) + "!"),
            ("(x+x+)+y", String(repeating: "x", count: 50)),
            ("(.*a){25}", String(repeating: "a", count: 40)),
            ("^(([a-z])+.)+[A-Z]([a-z])+$", String(repeating: "a", count: 40) + "!"),
            ("(?:a*)*b", String(repeating: "a", count: 5000)),
            ("(?=(a+)+$)", String(repeating: "a", count: 40) + "!"),
            ("(?<=^(a+)+)b", "!" + String(repeating: "a", count: 40) + "b"),
        ] {
            let r = try ECMARegex(pattern)
            let start = clock.now
            let e = try #require(throws: RegexError.self, "/\(pattern)/") { try r.matches(text) }
            #expect(e == .tooManySteps(limit: 2_000_000 + 100 * text.unicodeScalars.count), "/\(pattern)/")
            #expect(e.isLimit)
            #expect(clock.now - start < .seconds(30), "/\(pattern)/ took \(clock.now - start)")
        }
    }

    /// The budget grows with the text: linear work on a long text is never refused.
    @Test func longTextsWithLinearWork() throws {
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 20_000) + "needle"
        #expect(try ECMARegex("needle").matches(text))
        #expect(try ECMARegex("ne+dle$").matches(text))
        #expect(try ECMARegex("^(?:\\w+ )*needle$").matches(text))
        #expect(try ECMARegex(".\\bneedle").matches(text))
        #expect(try !ECMARegex("needles").matches(text))
        #expect(try ECMARegex("^[^x]*$").matches(text))
    }

    @Test func smallBudgetsAndStacks() throws {
        var limits = RegexLimits()
        limits.baseSteps = 1000
        limits.stepsPerCharacter = 0
        #expect(throws: RegexError.tooManySteps(limit: 1000)) { try ECMARegex("(a+)+$", limits: limits).matches(String(repeating: "a", count: 20) + "!") }
        limits = RegexLimits()
        limits.backtrackEntries = 100
        // One saved state per repetition of a group: 1000 of them do not fit in 100.
        #expect(throws: RegexError.tooMuchBacktracking(limit: 100)) { try ECMARegex("^(?:ab)*$", limits: limits).matches(String(repeating: "ab", count: 1000)) }
        // A quantified single character keeps one saved state, whatever its length.
        #expect(try ECMARegex("^a*$", limits: limits).matches(String(repeating: "a", count: 100_000)))
    }

    /// Deep nesting is refused with a limit error at parse time, and nesting up to the limit
    /// works (no recursion beyond it, no stack overflow).
    @Test func deepNestingIsRefusedWithoutACrash() throws {
        let tooLong = String(repeating: "(", count: 10_000) + "a" + String(repeating: ")", count: 10_000)
        #expect(throws: RegexError.patternTooLong(length: 20_001, limit: 8192)) { try ECMARegex(tooLong) }
        var limits = RegexLimits()
        limits.patternLength = 100_000
        for open in ["(", "(?:", "(?=", "(?<!"] {
            let deep = String(repeating: open, count: 10_000) + "a" + String(repeating: ")", count: 10_000)
            let e = try #require(throws: RegexError.self) { try ECMARegex(deep, limits: limits) }
            #expect(e == .nestingTooDeep(position: 100 * open.count, limit: 100), "\(open)")
        }
        let limit = String(repeating: "(", count: 100) + "a" + String(repeating: ")*", count: 100)
        #expect(try ECMARegex(limit).matches("aaa"))
        let classes = String(repeating: "[", count: 10_000)
        #expect(throws: RegexError.syntax("unterminated character class", position: 0)) { try ECMARegex(classes, limits: limits) }
        let quantifiers = "a" + String(repeating: "{1}", count: 5000)
        #expect(throws: RegexError.syntax("nothing to repeat", position: 4)) { try ECMARegex(quantifiers, limits: limits) }
        let alternatives = String(repeating: "a|", count: 4000) + "b"
        #expect(try ECMARegex(alternatives).matches("b"))
    }

    /// Random pattern-like text and random texts: every call returns a value or throws a
    /// `RegexError`, never traps.
    @Test func randomInputNeverTraps() throws {
        var g = SeededRandom(seed: 0xEC4A)
        let pieces = ["a", "b", "(", ")", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<n>", "\\k<n>", "[", "]", "[^", "-", "^", "$",
                      "|", "*", "+", "?", "{", "}", "{2}", "{1,3}", "{0,}", ",", "\\", "\\1", "\\2", "\\b", "\\B", "\\d", "\\w",
                      "\\s", "\\u", "\\u{1F600}", "\\x4", "\\c", ".", "😀", "é", "\u{0}", "0", "9"]
        var compiled = 0
        var limits = RegexLimits()
        limits.baseSteps = 20_000
        for _ in 0..<20_000 {
            let pattern = (0..<g.int(1...12)).map { _ in g.pick(pieces) }.joined()
            guard let r = try? ECMARegex(pattern, limits: limits) else { continue }
            compiled += 1
            for _ in 0..<3 {
                let text = String((0..<g.int(0...10)).map { _ in g.pick(Array("ab😀é-1 \n")) })
                do { _ = try r.matches(text) } catch { #expect(error.isLimit, "/\(pattern)/ on \(text): \(error)") }
            }
        }
        #expect(compiled > 1000)
    }

    @Test func invalidUTF8ReadsAsReplacementCharacters() throws {
        let r = try ECMARegex("^a.b$")
        let bytes: [UInt8] = [0x61, 0xFF, 0x62]
        #expect(try bytes.withUnsafeBufferPointer { try r.matches(utf8: $0) })
        #expect(ECMARegex.codePoints(UnsafeBufferPointer(start: nil, count: 0)).isEmpty)
    }

    @Test func compiledProgramsStaySmall() throws {
        // Counted repetitions use counters, never copies.
        let r = try ECMARegex("(?:ab|cd){1000000}(?:x(y)){2,99999999999}")
        #expect(r.program.instructions.count < 40)
        #expect(try !r.matches("abab"))
        #expect(try ECMARegex("^(?:ab){2,3}$").matches("ababab"))
    }
}
