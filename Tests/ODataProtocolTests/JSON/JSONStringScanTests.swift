import Testing
@testable import ODataProtocol

/// The word-at-a-time string scan (`JSONScanner.skipPlainStringBytes`) against a byte-by-byte
/// reference: every kind of non-plain byte at every offset of a word, at word boundaries and
/// in the tail, so the SWAR masks can neither miss a byte nor stop early.
@Suite struct JSONStringScanTests {
    static func reference(_ bytes: [UInt8], from i: Int) -> Int {
        var p = i
        while p < bytes.count {
            let b = bytes[p]
            if b < 0x20 || b >= 0x80 || b == 0x22 || b == 0x5C { return p }
            p += 1
        }
        return bytes.count
    }

    static func scan(_ bytes: [UInt8], from i: Int) -> Int {
        bytes.withUnsafeBufferPointer { JSONScanner.skipPlainStringBytes($0.baseAddress!, from: i, count: $0.count) }
    }

    /// Bytes that end plain content, and their plain neighbours (the masks' edge cases).
    static let stoppers: [UInt8] = [0x00, 0x01, 0x1F, 0x22, 0x5C, 0x80, 0xC3, 0xFF]
    static let plainEdges: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x7F, 0x41]

    @Test func everyStopperAtEveryOffsetIsFound() {
        for length in 1...40 {
            for at in 0..<length {
                for stopper in Self.stoppers {
                    for filler in Self.plainEdges {
                        var bytes = [UInt8](repeating: filler, count: length)
                        bytes[at] = stopper
                        for from in Set([0, at, max(0, at - 3)]) where from <= at {
                            #expect(Self.scan(bytes, from: from) == at, "len \(length) at \(at) byte \(stopper) from \(from)")
                        }
                    }
                }
            }
        }
    }

    @Test func laterStoppersDoNotHideEarlierOnes() {
        // A control byte (whose subtraction borrows into the next byte) followed by others.
        var rng = SeededRandom(seed: 0x5CA11)
        for _ in 0..<5_000 {
            let length = Int(rng.next() % 48) + 1
            var bytes = (0..<length).map { _ in Self.plainEdges[Int(rng.next() % UInt64(Self.plainEdges.count))] }
            for _ in 0..<Int(rng.next() % 4) {
                bytes[Int(rng.next() % UInt64(length))] = Self.stoppers[Int(rng.next() % UInt64(Self.stoppers.count))]
            }
            let from = Int(rng.next() % UInt64(length))
            #expect(Self.scan(bytes, from: from) == Self.reference(bytes, from: from))
        }
    }

    @Test func plainRunsAreSkippedToTheEnd() {
        for length in 0...33 {
            let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(Self.scan(bytes, from: 0) == length)
        }
    }

    @Test func stringsWithSpecialBytesAtWordEdgesParse() throws {
        // Escapes, UTF-8 and the closing quote straddling 8-byte words, through the real parser.
        let texts = ["1234567\\\"890", "12345678\\n", "1234567é", "123456789012345€", "abcdefgh\\u00e9ijklmnop",
                     "😀2345678", "", "\\/Date(1577923200000)\\/"]
        let expected = ["1234567\"890", "12345678\n", "1234567é", "123456789012345€", "abcdefghéijklmnop",
                        "😀2345678", "", "/Date(1577923200000)/"]
        for (text, value) in zip(texts, expected) {
            #expect(try JSONValue.parse("\"\(text)\"") == .string(value))
        }
        for bad in ["\"1234567\u{01}\"", "\"12345678\u{1F}9\"", "\"1234567", "\"12345678\\x\""] {
            #expect(throws: JSONError.self) { try JSONValue.parse(bad) }
        }
    }
}

/// `JSONScanner.takeKey`: a key matched in place takes exactly what `readKey` followed by
/// `equals` takes for that spelling, and nothing else (the scanner moves past whitespace only).
@Suite struct JSONTakeKeyTests {
    /// Whether `takeKey("type")` takes the key at the start of `text`, and where it leaves the scanner.
    static func take(_ text: String) -> (Bool, Int) {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { b in
            var s = JSONScanner(base: b.baseAddress!, count: b.count, maxDepth: 8)
            let taken = s.takeKey("type")
            return (taken, s.pos)
        }
    }

    /// `readKey` + `equals(key, "type")` on the same text: whether it names `type`, and where it ends.
    static func read(_ text: String) -> (Bool, Int)? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { b in
            var s = JSONScanner(base: b.baseAddress!, count: b.count, maxDepth: 8)
            guard let k = try? s.readKey() else { return nil }
            return (s.equals(k, "type"), s.pos)
        }
    }

    @Test func takesOnlyTheExactSpellingFollowedByAColon() {
        for text in [#""type":"x""#, " \n\t\"type\":1", #""type":"#] {
            let (taken, pos) = Self.take(text)
            #expect(taken && Self.read(text)! == (true, pos), "\(text)")
        }
        for text in [#""type" :"x""#, #""typeX":1"#, #""typ":1"#, #""t\u0079pe":1"#, #""Type":1"#, #""type""#, #""type"#,
                     #"type":1"#, #"{"type":1"#, ""] {
            let (taken, pos) = Self.take(text)
            #expect(!taken && pos == 0, "\(text)")
        }
        let (taken, pos) = Self.take("  \"typo\":1")
        #expect(!taken && pos == 2)
        // The escaped spelling names the key too: readKey's path (the caller's fallback) finds it.
        #expect(Self.read(#""t\u0079pe":1"#)?.0 == true)
    }
}
