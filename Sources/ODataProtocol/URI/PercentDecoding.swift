/// One component of a URL (a path segment, a query option name or value) after
/// percent-decoding, with a map from each decoded byte back to its offset in the raw URL.
struct DecodedComponent: Sendable {
    var bytes: [UInt8]
    /// `rawOffsets[i]` is the raw-URL byte offset of decoded byte `i`; one extra entry holds
    /// the raw end offset.
    var rawOffsets: [Int]
    /// `encoded[i]`: decoded byte `i` was percent-encoded in the URL (`%3B` rather than `;`).
    var encoded: [Bool]

    var text: String { String(decoding: bytes, as: UTF8.self) }

    func rawOffset(ofDecoded i: Int) -> Int {
        if i < 0 { return rawOffsets.first ?? 0 }
        if i < rawOffsets.count { return rawOffsets[i] }
        return (rawOffsets.last ?? 0) + (i - rawOffsets.count + 1)
    }
}

/// Percent-decoding as the OData URL Conventions (section 2.1) prescribe: each path segment,
/// query option name and query option value is decoded exactly once, after the URL has been
/// split at `/`, `?`, `&` and `=`. `%24filter` is `$filter`; multi-byte UTF-8 sequences may be
/// encoded byte by byte. A `%` not followed by two hex digits, and decoded bytes that are not
/// valid UTF-8, are errors with the raw position.
///
/// `+` stays a literal plus by default: neither RFC 3986 nor OData gives it a meaning (OData
/// V4.01 Part 2 section 2.1 notes that some implementations decode it as a space and advises
/// clients to send `%20` and `%2B`). `plusAsSpace` decodes it as a space for input that came
/// from an HTML-form style encoder.
enum PercentDecoding {
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    static func decode(_ raw: [UInt8], from start: Int, to end: Int, plusAsSpace: Bool) throws(URLParseError) -> DecodedComponent {
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        var encoded: [Bool] = []
        bytes.reserveCapacity(end - start)
        offsets.reserveCapacity(end - start + 1)
        encoded.reserveCapacity(end - start)
        var i = start
        while i < end {
            let c = raw[i]
            if c == UInt8(ascii: "%") {
                guard i + 2 < end, let h = hexValue(raw[i + 1]), let l = hexValue(raw[i + 2]) else {
                    throw URLParseError("malformed percent-encoding (expected two hex digits after '%')", at: i)
                }
                bytes.append(h << 4 | l)
                offsets.append(i)
                encoded.append(true)
                i += 3
            } else {
                bytes.append(plusAsSpace && c == UInt8(ascii: "+") ? 0x20 : c)
                offsets.append(i)
                encoded.append(false)
                i += 1
            }
        }
        offsets.append(end)
        if let bad = firstInvalidUTF8(bytes) {
            throw URLParseError("invalid UTF-8 in percent-encoded text", at: offsets[bad])
        }
        return DecodedComponent(bytes: bytes, rawOffsets: offsets, encoded: encoded)
    }

    /// Index of the first byte that does not start a valid UTF-8 sequence (no overlongs, no
    /// surrogates, nothing above U+10FFFF), or nil.
    static func firstInvalidUTF8(_ b: [UInt8]) -> Int? {
        var i = 0
        while i < b.count {
            let c = b[i]
            if c < 0x80 { i += 1; continue }
            var need = 0
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; hi = 0x9F
            case 0xF0: need = 3; lo = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; hi = 0x8F
            default: return i
            }
            guard i + need < b.count else { return i }
            for k in 1...need {
                let x = b[i + k]
                let (l, h): (UInt8, UInt8) = k == 1 ? (lo, hi) : (0x80, 0xBF)
                if x < l || x > h { return i }
            }
            i += need + 1
        }
        return nil
    }
}

/// Percent-encoding for the canonical printer.
enum PercentEncoding {
    enum Context { case pathSegment, queryName, queryValue, nestedValue }

    /// Keeps the unreserved characters and the sub-delimiters OData uses literally
    /// (`$ ' ( ) * , ; = : @ /`); encodes everything else, including space (`%20`), `+` (`%2B`),
    /// `&`, `#`, `%`, `"` and non-ASCII bytes. In path segments `/` and `?` are encoded too;
    /// in `nestedValue` (a value inside `$expand`/`$select` options, or `$search`) `;` is
    /// encoded, since a literal `;` separates options there.
    static func encode(_ s: String, _ context: Context) -> String {
        var out: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for c in s.utf8 {
            let keep: Bool
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                keep = true
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
                 UInt8(ascii: "$"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
                 UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "@"):
                keep = true
            case UInt8(ascii: ";"):
                keep = context != .nestedValue
            case UInt8(ascii: "="):
                keep = context != .queryName
            case UInt8(ascii: "/"), UInt8(ascii: "?"):
                keep = context == .queryValue || context == .nestedValue
            default:
                keep = false
            }
            if keep {
                out.append(c)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 15)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
