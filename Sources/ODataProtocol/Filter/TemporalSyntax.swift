/// Shape checks for the date/time, duration and GUID literal texts of V2 and V4.
/// They check the lexical form only (digits in the right places), not calendar validity
/// beyond month 01-12, day 01-31, hour 00-23, minute and second 00-59.
enum TemporalSyntax {
    private static func num(_ b: [UInt8], _ i: Int, _ n: Int) -> Int? {
        guard i + n <= b.count else { return nil }
        var v = 0
        for k in i..<(i + n) {
            let c = b[k]
            guard c >= 0x30 && c <= 0x39 else { return nil }
            v = v * 10 + Int(c - 0x30)
        }
        return v
    }

    /// `YYYY-MM-DD` (V4 Edm.Date).
    static func isDate(_ s: String) -> Bool {
        let b = Array(s.utf8)
        return b.count == 10 && dateAt(b, 0)
    }

    private static func dateAt(_ b: [UInt8], _ i: Int) -> Bool {
        guard num(b, i, 4) != nil, b.count > i + 9, b[i + 4] == UInt8(ascii: "-"), b[i + 7] == UInt8(ascii: "-"),
              let m = num(b, i + 5, 2), let d = num(b, i + 8, 2) else { return false }
        return (1...12).contains(m) && (1...31).contains(d)
    }

    /// `hh:mm[:ss[.fffffffffff]]` starting at `i`; returns the end offset.
    private static func timeAt(_ b: [UInt8], _ i: Int) -> Int? {
        guard let h = num(b, i, 2), b.count > i + 4, b[i + 2] == UInt8(ascii: ":"), let m = num(b, i + 3, 2),
              h < 24, m < 60 else { return nil }
        var j = i + 5
        if j < b.count, b[j] == UInt8(ascii: ":") {
            guard let s = num(b, j + 1, 2), s < 60 else { return nil }
            j += 3
            if j < b.count, b[j] == UInt8(ascii: ".") {
                j += 1
                let f = j
                while j < b.count, b[j] >= 0x30 && b[j] <= 0x39 { j += 1 }
                if j == f { return nil }
            }
        }
        return j
    }

    /// V4 Edm.TimeOfDay.
    static func isTimeOfDay(_ s: String) -> Bool {
        let b = Array(s.utf8)
        return timeAt(b, 0) == b.count
    }

    /// `YYYY-MM-DDThh:mm[:ss[.f]]`, followed by `Z` or `±hh:mm` exactly when `offset` (a date-time
    /// offset; V2 `datetime'…'` has none).
    static func isDateTime(_ s: String, offset: Bool) -> Bool {
        let b = Array(s.utf8)
        guard b.count >= 16, dateAt(b, 0), b[10] == UInt8(ascii: "T"), let j = timeAt(b, 11) else { return false }
        if j == b.count { return !offset }
        guard offset else { return false }
        if b[j] == UInt8(ascii: "Z") { return j + 1 == b.count }
        guard b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-"), let h = num(b, j + 1, 2),
              j + 6 == b.count, b[j + 3] == UInt8(ascii: ":"), let m = num(b, j + 4, 2) else { return false }
        return h < 24 && m < 60
    }

    /// An xsd:duration such as `P1DT2H3M4.5S`, `-PT13H20M` (V2 Edm.Time, V4 Edm.Duration).
    static func isDuration(_ s: String) -> Bool {
        var b = Substring(s)
        if b.hasPrefix("-") { b = b.dropFirst() }
        guard b.hasPrefix("P") else { return false }
        b = b.dropFirst()
        var sawPart = false
        var inTime = false
        var number = ""
        for ch in b {
            switch ch {
            case "0"..."9", ".": number.append(ch)
            case "T":
                guard !inTime, number.isEmpty else { return false }
                inTime = true
            case "Y", "D", "H", "S", "M":
                guard !number.isEmpty, number.first != "." else { return false }
                if number.contains(".") && ch != "S" { return false }
                if !inTime && (ch == "H" || ch == "S") { return false }
                if inTime && (ch == "Y" || ch == "D") { return false }
                sawPart = true
                number = ""
            default: return false
            }
        }
        return sawPart && number.isEmpty
    }

    /// 8-4-4-4-12 hex digits.
    static func isGuid(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 36 else { return false }
        for (k, c) in b.enumerated() {
            if k == 8 || k == 13 || k == 18 || k == 23 {
                if c != UInt8(ascii: "-") { return false }
            } else {
                let hex = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
                if !hex { return false }
            }
        }
        return true
    }
}

/// The hex spelling of V2 binary literals (`binary'0A1B'`, `X'0A1B'`); V4's base64url is
/// `Base64`'s.
package enum BinaryLiteral {
    package static func fromHex(_ s: String) -> [UInt8]? {
        let b = Array(s.utf8)
        guard b.count % 2 == 0 else { return nil }
        func v(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(b.count / 2)
        var i = 0
        while i < b.count {
            guard let h = v(b[i]), let l = v(b[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }

    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for x in bytes { out.append(digits[Int(x >> 4)]); out.append(digits[Int(x & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
