/// Base64 (RFC 4648): the one encoder and decoder of the library. Edm.Binary travels as
/// standard base64 in V2 JSON and the library's canonical shape, as base64url in V4 JSON and
/// V4 `binary'...'` literals; Basic authentication and `$batch` bodies use standard base64.
/// Pure functions, no Foundation.
public enum Base64 {
    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` as base64: the standard alphabet (section 4) or the URL-safe one (section 5),
    /// with `=` padding to a multiple of four characters or without.
    public static func encode(_ bytes: [UInt8], urlSafe url: Bool = false, padded: Bool = true) -> String {
        let alphabet = url ? urlSafe : standard
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(n >> 6 & 63)]) }
            if padded { out.append(contentsOf: rest == 2 ? [UInt8(ascii: "=")] : [UInt8(ascii: "="), UInt8(ascii: "=")]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// How strictly `decode` reads its input.
    public enum Strictness: Sendable {
        /// The standard alphabet, padded to a multiple of four (`$batch` bodies).
        case standardPadded
        /// Either alphabet (not mixed within a character's meaning: `+`/`-` are 62, `/`/`_`
        /// 63), padding optional but complete when present (V4 literals and payloads, the
        /// store's own columns).
        case lenient
    }

    /// The bytes of base64 text; nil when it is not base64 as `strictness` reads it (a
    /// character outside the alphabet, `=` before the end or more than two of them, a length
    /// no encoder makes).
    public static func decode(_ text: UnsafeBufferPointer<UInt8>, _ strictness: Strictness = .lenient) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3 + 2)
        var acc: UInt32 = 0
        var digits = 0
        var padding = 0
        for c in text {
            let v: UInt32
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - 97 + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - 48 + 52)
            case UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "/"): v = 63
            case UInt8(ascii: "-") where strictness == .lenient: v = 62
            case UInt8(ascii: "_") where strictness == .lenient: v = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            guard padding == 0 else { return nil }  // data after padding
            acc = acc << 6 | v
            digits += 1
            if digits == 4 {
                out.append(UInt8(acc >> 16 & 0xFF))
                out.append(UInt8(acc >> 8 & 0xFF))
                out.append(UInt8(acc & 0xFF))
                acc = 0
                digits = 0
            }
        }
        // A final group of 2 or 3 digits holds 1 or 2 bytes; 1 digit holds none (no encoder
        // writes it). Padding, when there is any, completes the group.
        guard digits != 1, padding <= 2 else { return nil }
        if padding > 0 || strictness == .standardPadded {
            guard digits > 0 ? digits + padding == 4 : padding == 0 else { return nil }
        }
        if digits == 2 { out.append(UInt8(acc >> 4 & 0xFF)) }
        if digits == 3 {
            out.append(UInt8(acc >> 10 & 0xFF))
            out.append(UInt8(acc >> 2 & 0xFF))
        }
        return out
    }

    /// `decode` of a String's UTF-8.
    public static func decode(_ text: String, _ strictness: Strictness = .lenient) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0, strictness) }
    }
}
