import Testing
@testable import ODataProtocol

/// The library's one Base64: RFC 4648's test vectors (section 10), both alphabets, with and
/// without padding, and what each strictness refuses.
@Suite struct Base64Tests {
    /// RFC 4648, section 10: BASE64("") = "", ("f") = "Zg==", ... ("foobar") = "Zm9vYmFy".
    static let vectors: [(String, String)] = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                                              ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")]

    @Test func rfc4648Vectors() {
        for (plain, encoded) in Self.vectors {
            let bytes = Array(plain.utf8)
            #expect(Base64.encode(bytes) == encoded)
            #expect(Base64.encode(bytes, urlSafe: true, padded: false) == encoded.replacingAll("=", ""))
            #expect(Base64.decode(encoded, .standardPadded) == bytes)
            #expect(Base64.decode(encoded) == bytes)
            #expect(Base64.decode(encoded.replacingAll("=", "")) == bytes, "unpadded \(encoded)")
        }
    }

    /// Every byte value and every length remainder round-trips through both alphabets.
    @Test func everyByteRoundTrips() {
        let all = (0...255).map(UInt8.init)
        for n in 0...all.count {
            let bytes = Array(all.prefix(n).reversed())
            #expect(Base64.decode(Base64.encode(bytes), .standardPadded) == bytes)
            #expect(Base64.decode(Base64.encode(bytes, urlSafe: true, padded: false)) == bytes)
            #expect(Base64.decode(Base64.encode(bytes, urlSafe: true)) == bytes)
        }
        // 0xFB 0xFF: the characters that differ between the alphabets.
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
        #expect(Base64.encode([0xFB, 0xFF], urlSafe: true, padded: false) == "-_8")
        #expect(Base64.decode("-_8=") == [0xFB, 0xFF])
        #expect(Base64.decode("-_8=", .standardPadded) == nil)  // $batch bodies: standard only
    }

    @Test func malformedInputIsRefused() {
        for bad in ["Z", "Zm9vY", "Zg=a", "Zg===", "=Zg=", "Zm 9v", "Zm9v\n", "Zm9v!", "Z===", "Zm9vYmFy="] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
            #expect(Base64.decode(bad, .standardPadded) == nil, "\(bad)")
        }
        // Unpadded is fine when lenient, never in $batch.
        #expect(Base64.decode("Zm8") == Array("fo".utf8))
        #expect(Base64.decode("Zm8", .standardPadded) == nil)
    }
}

private extension String {
    func replacingAll(_ a: Character, _ b: String) -> String { split(separator: a, omittingEmptySubsequences: false).joined(separator: b) }
}
