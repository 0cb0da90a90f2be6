/// Dates, times and durations in the text forms the store keeps (see `ColumnKind`): the
/// components OData's date and time functions return, evaluated in the value's own offset
/// (V4.01 Part 2, 5.1.1.8: "evaluated in the time zone of the DateTimeOffset parameter
/// value"), and the arithmetic of 5.1.1.2 (DateTimeOffset ± Duration, Date ± Duration,
/// DateTimeOffset − DateTimeOffset, Date − Date, Duration ± Duration, Duration × number).
/// Pure; never traps.
enum TemporalText {
    static let picosPerSecond: Int64 = 1_000_000_000_000

    /// A date or date-time as written: local components and the offset (nil when none was
    /// written, which the store reads as UTC, as V2 DateTime values are).
    struct DateTimeParts: Equatable {
        var year: Int
        var month: Int
        var day: Int
        var hour = 0
        var minute = 0
        var second = 0
        var picoseconds: Int64 = 0
        var hasTime = false
        /// Offset in minutes; nil for `Z` or none.
        var offsetMinutes: Int?
        var zulu = false

        /// Seconds since 1970-01-01T00:00 in local time (the offset not applied).
        var localSeconds: Int64 {
            Int64(OrderedText.daysFromCivil(year: year, month: month, day: day)) * 86_400
                + Int64(hour * 3600 + minute * 60 + second)
        }
    }

    /// `[-]YYYY-MM-DD[Thh:mm[:ss[.f+]]][Z|±hh:mm]`.
    static func dateTime(_ b: UnsafeBufferPointer<UInt8>) -> DateTimeParts? {
        var r = Reader(b)
        var negativeYear = false
        if r.peek == UInt8(ascii: "-") { negativeYear = true; r.i += 1 }
        var yearDigits = 0
        while r.i + yearDigits < b.count, b[r.i + yearDigits] &- 48 < 10 { yearDigits += 1 }
        guard yearDigits >= 4, yearDigits <= 9, var year = r.number(yearDigits) else { return nil }
        if negativeYear { year = -year }
        guard r.expect(UInt8(ascii: "-")), let month = r.number(2), r.expect(UInt8(ascii: "-")), let day = r.number(2),
              (1...12).contains(month), (1...daysIn(month, year)).contains(day) else { return nil }
        var parts = DateTimeParts(year: year, month: month, day: day)
        if r.peek == UInt8(ascii: "T") || r.peek == UInt8(ascii: "t") {
            r.i += 1
            guard let t = r.timeOfDay() else { return nil }
            parts.hour = t.hour
            parts.minute = t.minute
            parts.second = t.second
            parts.picoseconds = t.picoseconds
            parts.hasTime = true
        }
        if let c = r.peek {
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                r.i += 1
                parts.zulu = true
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                r.i += 1
                guard let oh = r.number(2), r.expect(UInt8(ascii: ":")), let om = r.number(2), oh <= 23, om <= 59 else { return nil }
                let minutes = oh * 60 + om
                parts.offsetMinutes = c == UInt8(ascii: "-") ? -minutes : minutes
            } else {
                return nil
            }
        }
        guard r.atEnd else { return nil }
        return parts
    }

    struct TimeParts: Equatable {
        var hour: Int
        var minute: Int
        var second: Int
        var picoseconds: Int64
        var totalPicoseconds: Int64 { Int64(hour * 3600 + minute * 60 + second) * TemporalText.picosPerSecond + picoseconds }
    }

    /// `hh:mm[:ss[.f+]]` (a TimeOfDay, and V2 Time as the store keeps it).
    static func timeOfDay(_ b: UnsafeBufferPointer<UInt8>) -> TimeParts? {
        var r = Reader(b)
        guard let t = r.timeOfDay(), r.atEnd else { return nil }
        return t
    }

    /// A duration as seconds and picoseconds (normalized: 0 <= picoseconds < 10^12); also
    /// accepts a time of day (`13:20:00`), the form V2 Edm.Time values are stored in.
    static func duration(_ b: UnsafeBufferPointer<UInt8>) -> OrderedText.Instant? {
        if let d = OrderedText.duration(b) { return d }
        if let t = timeOfDay(b) {
            return OrderedText.Instant(seconds: Int64(t.hour * 3600 + t.minute * 60 + t.second), picoseconds: t.picoseconds)
        }
        return nil
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    static func civil(fromDays z0: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (m <= 2 ? y + 1 : y, m, d)
    }

    // MARK: - Text

    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    static func yearText(_ y: Int64) -> String {
        let m = y.magnitude
        var digits = "\(m)"
        while digits.utf8.count < 4 { digits = "0" + digits }
        return (y < 0 ? "-" : "") + digits
    }

    /// `.5`, `.123`: the fraction without trailing zeros, empty when zero.
    static func fractionText(_ pico: Int64) -> String {
        guard pico > 0 else { return "" }
        var digits = "\(pico)"
        while digits.utf8.count < 12 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "." + digits
    }

    static func offsetText(_ parts: DateTimeParts) -> String {
        guard let m = parts.offsetMinutes else { return "Z" }
        let a = abs(m)
        return (m < 0 ? "-" : "+") + two(a / 60) + ":" + two(a % 60)
    }

    static func dateText(_ year: Int64, _ month: Int, _ day: Int) -> String {
        yearText(year) + "-" + two(month) + "-" + two(day)
    }

    static func timeText(_ hour: Int, _ minute: Int, _ second: Int, _ pico: Int64) -> String {
        two(hour) + ":" + two(minute) + ":" + two(second) + fractionText(pico)
    }

    /// The canonical duration text `[-]PnDTnHnMn[.f]S` (`PT0S` for zero).
    static func durationText(_ d: OrderedText.Instant) -> String {
        var seconds = d.seconds
        var pico = d.picoseconds
        var negative = false
        if seconds < 0 {
            negative = true
            if pico > 0 {
                seconds = -seconds - 1
                pico = picosPerSecond - pico
            } else {
                seconds = -seconds
            }
        }
        let days = seconds / 86_400
        let rest = seconds % 86_400
        var out = negative ? "-P" : "P"
        if days > 0 { out += "\(days)D" }
        let h = rest / 3600, m = (rest % 3600) / 60, s = rest % 60
        if h > 0 || m > 0 || s > 0 || pico > 0 || days == 0 {
            out += "T"
            if h > 0 { out += "\(h)H" }
            if m > 0 { out += "\(m)M" }
            if s > 0 || pico > 0 || (h == 0 && m == 0) { out += "\(s)" + fractionText(pico) + "S" }
        }
        return out
    }

    // MARK: - Components

    /// The fraction of a second as a decimal text (`0.5`, `0`).
    static func fractionalSecondsText(_ pico: Int64) -> String {
        pico == 0 ? "0" : "0" + fractionText(pico)
    }

    /// Total seconds of a duration as a decimal text (`86401.5`, `-0.25`).
    static func totalSecondsText(_ d: OrderedText.Instant) -> String {
        let total = ExactDecimal.fromDuration(d).reduced
        return (try? total.text()) ?? "0"
    }

    // MARK: - Arithmetic

    /// Normalizes seconds + picoseconds (picoseconds may be out of range or negative).
    static func normalized(seconds: Int64, picoseconds: Int64) -> OrderedText.Instant? {
        let (carry, pico) = picoseconds.quotientAndRemainder(dividingBy: picosPerSecond)
        var s = seconds.addingReportingOverflow(carry)
        var p = pico
        if p < 0 {
            p += picosPerSecond
            s = s.partialValue.subtractingReportingOverflow(1)
        }
        guard !s.overflow else { return nil }
        return OrderedText.Instant(seconds: s.partialValue, picoseconds: p)
    }

    /// A date-time plus (or minus) a duration, written at the same offset; a date plus a
    /// duration is the date of (midnight + duration), so adding less than a day to a date
    /// keeps the date and subtracting less than a day gives the day before (5.1.1.2.1).
    static func add(_ parts: DateTimeParts, _ d: OrderedText.Instant, subtract: Bool) -> String? {
        var secs = d.seconds
        var pico = d.picoseconds
        if subtract {
            guard let n = normalized(seconds: -secs, picoseconds: -pico) else { return nil }
            secs = n.seconds
            pico = n.picoseconds
        }
        guard let sum = normalized(seconds: parts.localSeconds &+ secs, picoseconds: parts.picoseconds + pico),
              abs(sum.seconds) < 86_400 * 366 * 1_000_000 else { return nil }
        let days = sum.seconds >= 0 ? sum.seconds / 86_400 : -((-sum.seconds + 86_399) / 86_400)
        let rest = Int(sum.seconds - days * 86_400)
        let date = civil(fromDays: days)
        guard abs(date.year) <= 999_999_999 else { return nil }
        let dateText = dateText(date.year, date.month, date.day)
        if !parts.hasTime && parts.offsetMinutes == nil && !parts.zulu { return dateText }
        return dateText + "T" + timeText(rest / 3600, (rest % 3600) / 60, rest % 60, sum.picoseconds) + offsetText(parts)
    }

    /// `a - b` between two instants (or two dates) as a duration.
    static func difference(_ a: OrderedText.Instant, _ b: OrderedText.Instant) -> OrderedText.Instant? {
        let (s, o) = a.seconds.subtractingReportingOverflow(b.seconds)
        guard !o else { return nil }
        return normalized(seconds: s, picoseconds: a.picoseconds - b.picoseconds)
    }

    static func sum(_ a: OrderedText.Instant, _ b: OrderedText.Instant, subtract: Bool) -> OrderedText.Instant? {
        if subtract {
            let (s, o) = a.seconds.subtractingReportingOverflow(b.seconds)
            guard !o else { return nil }
            return normalized(seconds: s, picoseconds: a.picoseconds - b.picoseconds)
        }
        let (s, o) = a.seconds.addingReportingOverflow(b.seconds)
        guard !o else { return nil }
        return normalized(seconds: s, picoseconds: a.picoseconds + b.picoseconds)
    }

    /// A duration multiplied (or divided) by a number, rounded to picoseconds.
    static func scale(_ d: OrderedText.Instant, by factor: ExactDecimal, divide: Bool) -> OrderedText.Instant? {
        let seconds = ExactDecimal.fromDuration(d)
        guard let product = divide ? try? ExactDecimal.divide(seconds, factor, precision: 40) : try? seconds * factor,
              let rounded = try? product.rounded(.halfEven, places: 12) else { return nil }
        return rounded.duration
    }

    // MARK: - Reading

    struct Reader {
        let b: UnsafeBufferPointer<UInt8>
        var i = 0
        init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }
        var atEnd: Bool { i == b.count }
        var peek: UInt8? { i < b.count ? b[i] : nil }

        mutating func number(_ width: Int) -> Int? {
            guard i + width <= b.count else { return nil }
            var v = 0
            for k in 0..<width {
                let d = b[i + k] &- 48
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            i += width
            return v
        }

        mutating func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }

        /// `hh:mm[:ss[.f+]]`; 24:00:00 is accepted as the end of the day.
        mutating func timeOfDay() -> TimeParts? {
            guard let h = number(2), expect(UInt8(ascii: ":")), let m = number(2), h <= 24, m <= 59 else { return nil }
            var t = TimeParts(hour: h, minute: m, second: 0, picoseconds: 0)
            if peek == UInt8(ascii: ":") {
                i += 1
                guard let s = number(2), s <= 60 else { return nil }
                t.second = s
                if peek == UInt8(ascii: ".") {
                    i += 1
                    var digits = 0
                    var scale: Int64 = 100_000_000_000
                    while let c = peek, c &- 48 < 10 {
                        if digits < 12 { t.picoseconds += Int64(c - 48) * scale; scale /= 10 }
                        digits += 1
                        i += 1
                    }
                    guard digits > 0 else { return nil }
                }
            }
            return t
        }
    }
}

extension ExactDecimal {
    /// The number of seconds of a duration.
    static func fromDuration(_ d: OrderedText.Instant) -> ExactDecimal {
        var pico = ExactDecimal(d.picoseconds)
        pico.scale = 12
        return (try? ExactDecimal(d.seconds) + pico) ?? ExactDecimal(0)
    }

    /// A whole number of picoseconds as a duration (nil when out of range).
    var duration: OrderedText.Instant? {
        guard let whole = try? rounded(.floor), let wholeText = try? whole.text(), let seconds = Int64(wholeText),
              let fraction = try? self - whole, let picoText = try? (fraction * ExactDecimal(TemporalText.picosPerSecond)).rounded(.halfEven).text(),
              let pico = Int64(picoText) else { return nil }
        return TemporalText.normalized(seconds: seconds, picoseconds: pico)
    }
}
