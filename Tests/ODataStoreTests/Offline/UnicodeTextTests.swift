import Testing
@testable import ODataStore

/// Code point counting, matching and case mapping behind the string functions, compared
/// with what Python (odatapy's language) gives, and robust on bytes that are not UTF-8.
@Suite("Offline: Unicode text functions")
struct UnicodeTextTests {
    func with<T>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        var s = s
        return s.withUTF8(body)
    }

    @Test func caseMappingMatchesPython() {
        // (text, text.lower(), text.upper()) from CPython 3.11.
        for (s, lower, upper) in [("ΟΔΟΣ", "οδος", "ΟΔΟΣ"), ("ΣΑΣ Σ", "σας σ", "ΣΑΣ Σ"), ("ΑΣ.", "ας.", "ΑΣ."), ("Σ", "σ", "Σ"),
                                  ("ἈΣ", "ἀς", "ἈΣ"), ("ΜΆΪΟΣ", "μάϊος", "ΜΆΪΟΣ"), ("İstanbul", "i\u{307}stanbul", "İSTANBUL"),
                                  ("ǅemal", "ǆemal", "ǄEMAL"), ("ΌΣΟΣ ΜΑΣ", "όσος μας", "ΌΣΟΣ ΜΑΣ"), ("A\u{301}Σ", "a\u{301}ς", "A\u{301}Σ"),
                                  ("ʼΣ", "ʼσ", "ʼΣ"), ("Größe", "größe", "GRÖSSE"), ("ﬁx", "ﬁx", "FIX")] {
            #expect(UnicodeText.lowercased(s).unicodeScalars.elementsEqual(lower.unicodeScalars), "\(s).lower()")
            #expect(UnicodeText.uppercased(s).unicodeScalars.elementsEqual(upper.unicodeScalars), "\(s).upper()")
        }
    }

    @Test func trimRemovesUnicodeWhiteSpace() {
        #expect(UnicodeText.trimmed("\u{3000}\u{A0} a b \t\n\u{2029}") == "a b")
        #expect(UnicodeText.trimmed("\u{200B}a") == "\u{200B}a")  // ZERO WIDTH SPACE is not White_Space
        #expect(UnicodeText.trimmed(" \t ") == "")
    }

    @Test func codePointsNotGraphemesOrBytes() throws {
        #expect(with("e\u{301}") { UnicodeText.length($0) } == 2)
        #expect(with("👍🏽") { UnicodeText.length($0) } == 2)
        #expect(with("日本") { UnicodeText.length($0) } == 2)
        #expect(with("a😀b") { h in with("b") { UnicodeText.indexOf(h, $0) } } == 2)
        #expect(with("a😀b") { b in try? UnicodeText.substring(b, start: 1, length: 1) } == 1..<5)
        // A needle that is the tail of a code point does not match inside it.
        #expect(with("é") { h in with("\u{301}") { UnicodeText.contains(h, $0) } } == false)
    }

    /// Random bytes (mostly not UTF-8): every function returns in-range results.
    @Test func arbitraryBytesNeverTrap() throws {
        var rng = SeededRandom(seed: 0xB17E5)
        let alphabet: [UInt8] = [0x61, 0x62, 0x00, 0x80, 0xBF, 0xC3, 0xA9, 0xE6, 0x97, 0xA5, 0xF0, 0x9F, 0x98, 0x80, 0xFF, 0xFE]
        for _ in 0..<3000 {
            let h = (0..<rng.int(0...12)).map { _ in rng.pick(alphabet) }
            let n = (0..<rng.int(0...3)).map { _ in rng.pick(alphabet) }
            h.withUnsafeBufferPointer { hb in
                n.withUnsafeBufferPointer { nb in
                    let count = UnicodeText.length(hb)
                    #expect(count <= hb.count)
                    let i = UnicodeText.indexOf(hb, nb)
                    #expect(i >= -1 && i <= count)
                    _ = UnicodeText.hasPrefix(hb, nb)
                    _ = UnicodeText.hasSuffix(hb, nb)
                    let start = Int64(rng.int(-20...20)), length = Int64(rng.int(0...20))
                    if let r = try? UnicodeText.substring(hb, start: start, length: rng.chance(0.5) ? length : nil) {
                        #expect(r.lowerBound >= 0 && r.upperBound <= hb.count && r.lowerBound <= r.upperBound)
                    }
                }
            }
            let s = String(decoding: h, as: UTF8.self)
            _ = UnicodeText.lowercased(s)
            _ = UnicodeText.uppercased(s)
            _ = UnicodeText.trimmed(s)
        }
    }
}
