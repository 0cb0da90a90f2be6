/// Conversions between the V2 and V4 wire forms of Edm primitive values, used by the codecs.
/// Pure functions on strings; nil means "not in the expected form" (callers then keep the value).
enum EdmLiteral {
    // MARK: Dates

    /// `/Date(1234567890000)/` (Edm.DateTime) or `/Date(1234567890000+0060)/` (Edm.DateTimeOffset,
    /// offset in minutes) to ISO 8601: `2009-02-13T23:31:30Z`, `2009-02-14T00:31:30+01:00`.
    /// The number is milliseconds since 1970-01-01T00:00:00Z (negative before it); the offset only
    /// says in which zone to show that instant.
    static func isoFromV2Date(_ s: String) -> String? {
        var s = s
        return s.withUTF8 { text in
            var out: [UInt8] = []
            guard appendISO(fromV2Date: text, escapedSlashes: false, into: &out) else { return nil }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// `isoFromV2Date` on bytes: appends the ISO 8601 text (no quotes) to `out` and returns true,
    /// or leaves `out` as it was and returns false. With `escapedSlashes` the bytes are a JSON
    /// string's raw contents, and `\/Date(...)\/` (as V2 services send it) is accepted as well
    /// as `/Date(...)/`.
    static func appendISO(fromV2Date b: UnsafeBufferPointer<UInt8>, escapedSlashes: Bool,
                          into out: inout [UInt8]) -> Bool {
        let slash = UInt8(ascii: "/"), backslash = UInt8(ascii: "\\")
        var i = 0
        var end = b.count
        if escapedSlashes, i < end, b[i] == backslash { i += 1 }
        guard end - i > 8, b[i] == slash, b[i + 1] == UInt8(ascii: "D"), b[i + 2] == UInt8(ascii: "a"),
              b[i + 3] == UInt8(ascii: "t"), b[i + 4] == UInt8(ascii: "e"), b[i + 5] == UInt8(ascii: "(")
        else { return false }
        i += 6
        guard b[end - 1] == slash else { return false }
        end -= 1
        if escapedSlashes, b[end - 1] == backslash { end -= 1 }
        guard end > i, b[end - 1] == UInt8(ascii: ")") else { return false }
        end -= 1
        func digits() -> Int64? {
            var v: Int64 = 0
            let start = i
            while i < end, b[i] &- 48 < 10 {
                guard i - start < 18 else { return nil }
                v = v * 10 + Int64(b[i] &- 48)
                i += 1
            }
            return i > start ? v : nil
        }
        var negative = false
        if i < end, b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        guard let ms = digits() else { return false }
        var offset: Int? = nil
        if i < end {
            let sign = b[i]
            guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return false }
            i += 1
            guard let off = digits(), off < 100_000 else { return false }
            offset = Int(off) * (sign == UInt8(ascii: "-") ? -1 : 1)
        }
        guard i == end else { return false }
        // JavaScript's Date range (+-8.64e15 ms) keeps every later computation in range.
        guard ms <= 8_640_000_000_000_000 else { return false }
        appendISO(epochMillis: negative ? -ms : ms, offsetMinutes: offset, into: &out)
        return true
    }

    /// ISO 8601 for an instant; with an offset the local wall time and `+hh:mm` are written,
    /// otherwise UTC with `Z`. Milliseconds are written only when non-zero (trailing zeros trimmed).
    static func iso(epochMillis: Int64, offsetMinutes: Int?) -> String {
        var out: [UInt8] = []
        appendISO(epochMillis: epochMillis, offsetMinutes: offsetMinutes, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `iso(epochMillis:offsetMinutes:)` appended to `out` as UTF-8, without building Strings.
    static func appendISO(epochMillis: Int64, offsetMinutes: Int?, into out: inout [UInt8]) {
        let local = epochMillis + Int64(offsetMinutes ?? 0) * 60_000
        let (days, msOfDay) = floorDivMod(local, 86_400_000)
        let (y, m, d) = civil(fromDays: days)
        if y >= 0, y < 10_000, abs(offsetMinutes ?? 0) < 6000 {
            // The common case (a V2 date in every entity of a page), written into a stack
            // buffer and appended once: the same text as the general path below.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buf in
                let n = writeISO(year: Int(y), m, d, msOfDay: Int(msOfDay), offsetMinutes: offsetMinutes, into: buf.baseAddress!)
                out.append(contentsOf: UnsafeBufferPointer(start: buf.baseAddress!, count: n))
            }
            return
        }
        appendISOGeneral(y, m, d, msOfDay: msOfDay, offsetMinutes: offsetMinutes, into: &out)
    }

    /// `appendISO(epochMillis:offsetMinutes:into:)` for any year and offset, from the civil date.
    static func appendISOGeneral(_ y: Int64, _ m: Int, _ d: Int, msOfDay: Int64, offsetMinutes: Int?, into out: inout [UInt8]) {
        appendYear(y, into: &out)
        out.append(UInt8(ascii: "-")); appendPad2(m, into: &out)
        out.append(UInt8(ascii: "-")); appendPad2(d, into: &out)
        out.append(UInt8(ascii: "T"))
        let secs = Int(msOfDay / 1000)
        appendPad2(secs / 3600, into: &out)
        out.append(UInt8(ascii: ":")); appendPad2(secs / 60 % 60, into: &out)
        out.append(UInt8(ascii: ":")); appendPad2(secs % 60, into: &out)
        var millis = Int(msOfDay % 1000)
        if millis > 0 {
            out.append(UInt8(ascii: "."))
            var divisor = 100
            while millis > 0 {
                out.append(UInt8(48 + millis / divisor))
                millis %= divisor
                divisor /= 10
            }
        }
        if let off = offsetMinutes, off != 0 {
            out.append(off < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            appendPad2(abs(off) / 60, into: &out)
            out.append(UInt8(ascii: ":"))
            appendPad2(abs(off) % 60, into: &out)
        } else {
            out.append(UInt8(ascii: "Z"))
        }
    }

    /// `appendISO(epochMillis:offsetMinutes:into:)`'s text for a year in 0...9999 and an offset
    /// under 100 hours, written at `p` (at most 29 bytes); returns its length.
    @inline(__always)
    static func writeISO(year: Int, _ m: Int, _ d: Int, msOfDay: Int, offsetMinutes: Int?, into p: UnsafeMutablePointer<UInt8>) -> Int {
        @inline(__always) func two(_ v: Int, _ at: Int) {
            p[at] = UInt8(truncatingIfNeeded: 48 + v / 10)
            p[at + 1] = UInt8(truncatingIfNeeded: 48 + v % 10)
        }
        two(year / 100, 0)
        two(year % 100, 2)
        p[4] = UInt8(ascii: "-"); two(m, 5)
        p[7] = UInt8(ascii: "-"); two(d, 8)
        p[10] = UInt8(ascii: "T")
        let secs = msOfDay / 1000
        two(secs / 3600, 11)
        p[13] = UInt8(ascii: ":"); two(secs / 60 % 60, 14)
        p[16] = UInt8(ascii: ":"); two(secs % 60, 17)
        var n = 19
        var millis = msOfDay % 1000
        if millis > 0 {
            p[n] = UInt8(ascii: "."); n += 1
            var divisor = 100
            while millis > 0 {
                p[n] = UInt8(truncatingIfNeeded: 48 + millis / divisor); n += 1
                millis %= divisor
                divisor /= 10
            }
        }
        if let off = offsetMinutes, off != 0 {
            p[n] = off < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
            two(abs(off) / 60, n + 1)
            p[n + 3] = UInt8(ascii: ":")
            two(abs(off) % 60, n + 4)
            n += 6
        } else {
            p[n] = UInt8(ascii: "Z"); n += 1
        }
        return n
    }

    /// Two digits, zero-padded; `v` in 0...99 (larger values are written in full).
    @inline(__always) static func appendPad2(_ v: Int, into out: inout [UInt8]) {
        if v >= 100 { out.append(contentsOf: String(v).utf8); return }
        out.append(UInt8(48 + v / 10))
        out.append(UInt8(48 + v % 10))
    }

    /// A year with at least four digits, `-` before negative years.
    static func appendYear(_ y: Int64, into out: inout [UInt8]) {
        if y < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = y.magnitude
        if magnitude < 10_000 {
            let v = Int(magnitude)
            out.append(UInt8(48 + v / 1000))
            out.append(UInt8(48 + v / 100 % 10))
            out.append(UInt8(48 + v / 10 % 10))
            out.append(UInt8(48 + v % 10))
        } else {
            out.append(contentsOf: String(magnitude).utf8)
        }
    }

    /// Parses `yyyy-mm-ddThh:mm[:ss[.fff...]][Z|+hh:mm|-hh:mm]` to milliseconds since the epoch
    /// (digits beyond milliseconds are dropped) and the offset in minutes (nil when none was given).
    static func epochMillis(fromISO s: String) -> (millis: Int64, offsetMinutes: Int?)? {
        let b = Array(s.utf8)
        var i = 0
        func num(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in 0..<n {
                let d = Int(b[i + k]) - 48
                guard d >= 0 && d < 10 else { return nil }
                v = v * 10 + d
            }
            i += n
            return v
        }
        func lit(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue else { return false }
            i += 1
            return true
        }
        var negativeYear = false
        if lit("-") { negativeYear = true }
        let yStart = i
        while i < b.count && b[i] >= 48 && b[i] <= 57 { i += 1 }
        // At most six year digits: milliseconds since 1970 then stay far inside Int64
        // (longer years are not dates any service sends, and would overflow).
        guard i - yStart >= 4, i - yStart <= 6,
              let yv = Int(String(decoding: b[yStart..<i], as: UTF8.self)) else { return nil }
        let y = negativeYear ? -yv : yv
        guard lit("-"), let mo = num(2), lit("-"), let d = num(2), lit("T") || lit("t"),
              let h = num(2), lit(":"), let mi = num(2) else { return nil }
        var sec = 0, ms = 0
        if lit(":") {
            guard let sv = num(2) else { return nil }
            sec = sv
            if lit(".") {
                var digits = 0
                while i < b.count, b[i] >= 48 && b[i] <= 57 {
                    if digits < 3 { ms = ms * 10 + Int(b[i]) - 48 }
                    digits += 1; i += 1
                }
                guard digits > 0 else { return nil }
                for _ in digits..<max(digits, 3) { ms *= 10 }
            }
        }
        guard (1...12).contains(mo), (1...31).contains(d), h <= 24, mi < 60, sec < 61 else { return nil }
        var offset: Int? = nil
        if lit("Z") || lit("z") {
            offset = 0
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = num(2), lit(":"), let om = num(2) else { return nil }
            offset = sign * (oh * 60 + om)
        }
        guard i == b.count else { return nil }
        let days = days(fromCivil: y, mo, d)
        let local = (days * 86_400 + Int64(h * 3600 + mi * 60 + sec)) * 1000 + Int64(ms)
        return (local - Int64(offset ?? 0) * 60_000, offset)
    }

    /// A V2 JSON date literal for an ISO 8601 value: `/Date(ms)/`, or `/Date(ms+mmmm)/` when
    /// `keepOffset` and the value has a non-zero offset.
    static func v2Date(fromISO s: String, keepOffset: Bool) -> String? {
        guard let (ms, off) = epochMillis(fromISO: s) else { return nil }
        var out = "/Date(\(ms)"
        if keepOffset, let off, off != 0 {
            let a = abs(off)
            out += (off < 0 ? "-" : "+") + String(repeating: "0", count: max(0, 4 - String(a).count)) + String(a)
        }
        return out + ")/"
    }

    static func floorDivMod(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        var q = a / b
        var r = a % b
        if r < 0 { q -= 1; r += b }
        return (q, r)
    }

    /// Proleptic Gregorian date from days since 1970-01-01 (H. Hinnant's algorithm).
    static func civil(fromDays z0: Int64) -> (Int64, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func days(fromCivil y0: Int, _ m: Int, _ d: Int) -> Int64 {
        let y = Int64(m <= 2 ? y0 - 1 : y0)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(m > 2 ? m - 3 : m + 9)
        let doy = (153 * mp + 2) / 5 + Int64(d) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func pad2(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }

    // MARK: Time

    /// V2 Edm.Time (`PT13H20M`, `PT9H5M3.25S`, `P0DT1H`) to a V4 TimeOfDay (`13:20:00`,
    /// `09:05:03.25`, `01:00:00`); nil for negative values, values of 24 hours or more, and
    /// anything that is not a day-time duration.
    static func timeOfDay(fromDuration s: String) -> String? {
        let b = Array(s.utf8)
        guard b.first == UInt8(ascii: "P") else { return nil }
        var i = 1
        var days = 0, hours = 0, minutes = 0, seconds = 0
        var frac = ""
        var inTime = false
        var any = false
        while i < b.count {
            if b[i] == UInt8(ascii: "T") { guard !inTime else { return nil }; inTime = true; i += 1; continue }
            let start = i
            while i < b.count, b[i] >= 48 && b[i] <= 57 { i += 1 }
            guard i > start, i - start <= 9, let v = Int(String(decoding: b[start..<i], as: UTF8.self)) else { return nil }
            var f = ""
            if i < b.count, b[i] == UInt8(ascii: ".") {
                let fs = i + 1
                i += 1
                while i < b.count, b[i] >= 48 && b[i] <= 57 { i += 1 }
                guard i > fs else { return nil }
                f = String(decoding: b[fs..<i], as: UTF8.self)
            }
            guard i < b.count else { return nil }
            let unit = b[i]
            i += 1
            any = true
            switch (inTime, unit) {
            case (false, UInt8(ascii: "D")) where f.isEmpty: days = v
            case (true, UInt8(ascii: "H")) where f.isEmpty: hours = v
            case (true, UInt8(ascii: "M")) where f.isEmpty: minutes = v
            case (true, UInt8(ascii: "S")): seconds = v; frac = f
            default: return nil
            }
        }
        guard any else { return nil }
        let total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds
        guard total < 86_400 else { return nil }
        while frac.hasSuffix("0") { frac.removeLast() }
        return pad2(total / 3600) + ":" + pad2(total / 60 % 60) + ":" + pad2(total % 60) + (frac.isEmpty ? "" : "." + frac)
    }

    /// V4 TimeOfDay (`13:20:00`, `13:20`, `09:05:03.25`) to a V2 Edm.Time duration (`PT13H20M0S`, `PT9H5M3.25S`).
    static func duration(fromTimeOfDay s: String) -> String? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]),
              (0..<24).contains(h), (0..<60).contains(m) else { return nil }
        var sec = "0"
        if parts.count == 3 {
            let sp = parts[2]
            guard let first = sp.split(separator: ".", omittingEmptySubsequences: false).first, let sv = Int(first), sv < 60,
                  sp.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
            sec = String(sp)
        }
        return "PT\(h)H\(m)M\(sec)S"
    }

    // MARK: Numbers

    /// True when `s` matches the JSON number grammar.
    static func isJSONNumber(_ s: some Collection<UInt8>) -> Bool {
        var it = Array(s)[...]
        if it.first == UInt8(ascii: "-") { it = it.dropFirst() }
        guard let f = it.first, f &- 48 < 10 else { return false }
        if f == 48 { it = it.dropFirst() } else { it = it.drop(while: { $0 &- 48 < 10 }) }
        if it.first == UInt8(ascii: ".") {
            it = it.dropFirst()
            guard let d = it.first, d &- 48 < 10 else { return false }
            it = it.drop(while: { $0 &- 48 < 10 })
        }
        if let e = it.first, e | 0x20 == UInt8(ascii: "e") {
            it = it.dropFirst()
            if let sgn = it.first, sgn == UInt8(ascii: "+") || sgn == UInt8(ascii: "-") { it = it.dropFirst() }
            guard let d = it.first, d &- 48 < 10 else { return false }
            it = it.drop(while: { $0 &- 48 < 10 })
        }
        return it.isEmpty
    }

    /// True for an optionally signed run of decimal digits (an integer literal), JSON style.
    static func isJSONInteger(_ s: some Collection<UInt8>) -> Bool {
        isJSONNumber(s) && !s.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
    }

    enum FloatLiteral: Equatable { case number(String), special(String) }

    /// A Double/Single literal as the canonical form wants it: a JSON number, or the strings
    /// `NaN`, `INF`, `-INF`. Accepts V2/XML spellings (`1.5E+10`, `+1`, `.5`, `5.`, `1.0d`, `Infinity`).
    static func floatLiteral(_ s: String) -> FloatLiteral? {
        switch s {
        case "NaN": return .special("NaN")
        case "INF", "Infinity", "+INF", "+Infinity": return .special("INF")
        case "-INF", "-Infinity": return .special("-INF")
        default: break
        }
        var t = s
        if let last = t.last, "dDfFmM".contains(last) { t.removeLast() }
        if t.hasPrefix("+") { t.removeFirst() }
        var neg = ""
        if t.hasPrefix("-") { neg = "-"; t.removeFirst() }
        if t.hasPrefix(".") { t = "0" + t }
        t = t.replacingOccurrences(".e", with: ".0e").replacingOccurrences(".E", with: ".0E")
        if t.hasSuffix(".") { t.removeLast() }
        // Leading zeros ("007") are not JSON.
        while t.count > 1, t.hasPrefix("0"), let second = t.dropFirst().first, second.isNumber { t.removeFirst() }
        t = neg + t
        return isJSONNumber(Array(t.utf8)) ? .number(t) : nil
    }

    // MARK: Binary

    /// Any base64 or base64url text (padding optional, whitespace ignored) to standard padded base64.
    static func standardBase64(_ s: String) -> String? {
        var out = [UInt8]()
        out.reserveCapacity(s.utf8.count + 3)
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                out.append(c)
            case UInt8(ascii: "-"): out.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): out.append(UInt8(ascii: "/"))
            case UInt8(ascii: "="), 0x20, 0x0A, 0x0D, 0x09: continue
            default: return nil
            }
        }
        if out.count % 4 == 1 { return nil }
        while out.count % 4 != 0 { out.append(UInt8(ascii: "=")) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Standard base64 to base64url (RFC 4648 section 5), padding kept.
    static func base64url(_ s: String) -> String {
        String(decoding: s.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: "-") : $0 == UInt8(ascii: "/") ? UInt8(ascii: "_") : $0 },
               as: UTF8.self)
    }
}

extension String {
    /// Foundation-free replacement of every occurrence of `target` (non-empty) by `replacement`.
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var out = ""
        var rest = self[...]
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
