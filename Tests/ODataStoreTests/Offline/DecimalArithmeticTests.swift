import Testing
@testable import ODataStore

/// Exact decimal arithmetic behind `ods_dec_*`: results that match Python's `decimal`
/// module in its default context (what odatapy computes with), checked against values
/// Python printed, and randomized identities against 128-bit integer arithmetic.
@Suite("Offline: exact decimal arithmetic")
struct DecimalArithmeticTests {
    func d(_ s: String) -> ExactDecimal {
        guard let v = ExactDecimal(s) else { Issue.record("not a decimal: \(s)"); return ExactDecimal(0) }
        return v
    }

    @Test func divisionMatchesPythonsDefaultContext() throws {
        // format(Decimal(a) / Decimal(b), 'f') in CPython 3.11.
        for (a, b, expected) in [
            ("1", "3", "0.3333333333333333333333333333"), ("2", "3", "0.6666666666666666666666666667"),
            ("-7", "3", "-2.333333333333333333333333333"), ("1", "7", "0.1428571428571428571428571429"),
            ("22", "7", "3.142857142857142857142857143"), ("1e30", "7", "142857142857142857142857142900"),
            ("0.1", "0.3", "0.3333333333333333333333333333"), ("999.99", "-0.01", "-99999"),
            ("9007199254740993", "2", "4503599627370496.5"), ("1", "9007199254740993", "0.0000000000000001110223024625156417164115227"),
            ("123456789012345678901234567890", "3", "41152263004115226300411522630"), ("5", "8", "0.625"),
            ("-0.0001", "3", "-0.00003333333333333333333333333333"), ("100", "0.0003", "333333.3333333333333333333333"),
            ("2.5", "0.5", "5"), ("1", "1.000000000000000000000000000001", "1.000000000000000000000000000"),
        ] {
            #expect(try ExactDecimal.divide(d(a), d(b)).text() == expected, "\(a) / \(b)")
        }
        #expect(throws: ExactDecimal.Failure.divisionByZero) { try ExactDecimal.divide(d("1"), d("0.000")) }
    }

    @Test func remainderTakesTheSignOfTheDividend() throws {
        for (a, b, expected) in [("-7.5", "2", "-1.5"), ("7.5", "-2", "1.5"), ("10", "3", "1"), ("-10", "3", "-1"),
                                 ("9007199254740993", "7", "5"), ("1e5", "0.3", "0.1"), ("-0.01", "0.003", "-0.001")] {
            #expect(try ExactDecimal.remainder(d(a), d(b)).text() == expected, "\(a) mod \(b)")
        }
    }

    @Test func rounding() throws {
        for (x, away, floor, ceiling) in [("2.5", "3", "2", "3"), ("-2.5", "-3", "-3", "-2"), ("0.49", "0", "0", "1"),
                                          ("-0.01", "0", "-1", "0"), ("1e-9", "0", "0", "1"), ("12", "12", "12", "12"),
                                          ("1e2", "100", "100", "100"), ("9.5", "10", "9", "10")] {
            #expect(try d(x).rounded(.halfAwayFromZero).text() == away, "round \(x)")
            #expect(try d(x).rounded(.floor).text() == floor, "floor \(x)")
            #expect(try d(x).rounded(.ceiling).text() == ceiling, "ceiling \(x)")
        }
        #expect(try d("0.125").rounded(.halfEven, places: 2).text() == "0.12")
        #expect(try d("0.135").rounded(.halfEven, places: 2).text() == "0.14")
        #expect(try d("0.1251").rounded(.halfEven, places: 2).text() == "0.13")
    }

    @Test func parsingAndText() throws {
        for (s, text) in [("1.50", "1.50"), ("-0", "0"), ("+3", "3"), (".5", "0.5"), ("1e3", "1000"), ("1.5E-3", "0.0015"),
                          ("-000.0100", "-0.0100"), ("9007199254740993", "9007199254740993")] {
            #expect(try d(s).text() == text, "\(s)")
        }
        for bad in ["", "-", ".", "1.", "1e", "1e+", "abc", "1,5", "1.5.5", " 1", "0x10", "inf", "NaN", "1e100001"] {
            #expect(ExactDecimal(bad) == nil, "\(bad)")
        }
        #expect(throws: ExactDecimal.Failure.tooLarge) { try d("1e99999").text() }
        #expect(throws: ExactDecimal.Failure.tooLarge) { try d("1e99999") + d("1") }
    }

    /// Sums, differences and products of random decimals equal 128-bit integer arithmetic on
    /// their coefficients; exact quotients come back exactly.
    @Test func randomizedAgainstIntegerArithmetic() throws {
        var rng = SeededRandom(seed: 0xDEC1_3A1)
        func text(_ coefficient: Int128, scale: Int) -> String {
            let negative = coefficient < 0
            var digits = String(coefficient.magnitude)
            guard scale > 0 else { return (negative ? "-" : "") + digits }
            while digits.count <= scale { digits = "0" + digits }
            let cut = digits.index(digits.endIndex, offsetBy: -scale)
            return (negative ? "-" : "") + digits[..<cut] + "." + digits[cut...]
        }
        func pow10(_ n: Int) -> Int128 { (0..<n).reduce(Int128(1)) { r, _ in r * 10 } }
        for _ in 0..<2000 {
            let ca = Int128(rng.int(-1_000_000_000...1_000_000_000)), cb = Int128(rng.int(-1_000_000_000...1_000_000_000))
            let sa = rng.int(0...8), sb = rng.int(0...8)
            let a = d(text(ca, scale: sa)), b = d(text(cb, scale: sb))
            let s = max(sa, sb)
            let sum = ca * pow10(s - sa) + cb * pow10(s - sb)
            let diff = ca * pow10(s - sa) - cb * pow10(s - sb)
            #expect(try (a + b).text() == (sum == 0 ? "0" : text(sum, scale: s)))
            #expect(try (a - b).text() == (diff == 0 ? "0" : text(diff, scale: s)))
            let product = ca * cb
            #expect(try (a * b).text() == (product == 0 ? "0" : text(product, scale: sa + sb)))
            if cb != 0 {
                let q = try ExactDecimal.divide(a * b, b)
                #expect(OrderedText.compareDecimalParts(parts(try q.text()), parts(try a.text())) == 0, "\(a) * \(b) / \(b)")
                let r = try ExactDecimal.remainder(a, b)
                let ar = ca * pow10(s - sa), br = cb * pow10(s - sb)
                let expected = ar % br
                #expect(try r.text() == (expected == 0 ? "0" : text(expected, scale: s)), "\(a) mod \(b)")
            }
        }
    }

    func parts(_ s: String) -> OrderedText.DecimalParts {
        var s = s
        return s.withUTF8 { OrderedText.decimalParts($0) } ?? OrderedText.DecimalParts(negative: false, digits: [], exponent: 0)
    }
}
