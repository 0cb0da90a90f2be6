/// Total orders on the text forms of Edm values that SQLite cannot compare itself, used by
/// the store's collations. Each compares two UTF-8 texts and returns <0, 0 or >0; text that
/// does not parse sorts after every valid value, byte by byte, so the order stays total.
/// Pure and allocation-free.
enum OrderedText {
    // MARK: - Decimal

    /// A decimal in a normal form: sign, significant digits (no leading or trailing zeros),
    /// and the power of ten of the first digit.
    struct DecimalParts {
        var negative: Bool
        /// Range of the significant digits in the text, possibly spanning a '.'.
        var digits: [UInt8]
        var exponent: Int
        var isZero: Bool { digits.isEmpty }
    }

    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]`.
    static func decimalParts(_ b: UnsafeBufferPointer<UInt8>) -> DecimalParts? {
        var i = 0
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            negative = b[i] == UInt8(ascii: "-")
            i += 1
        }
        var digits: [UInt8] = []
        var intDigits = 0
        var sawDigit = false
        var leading = true
        while i < b.count, b[i] &- 48 < 10 {
            sawDigit = true
            if leading && b[i] == 48 { i += 1; continue }
            leading = false
            digits.append(b[i])
            intDigits += 1
            i += 1
        }
        var fracLeadingZeros = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var fracDigit = false
            while i < b.count, b[i] &- 48 < 10 {
                fracDigit = true
                if leading && b[i] == 48 {
                    fracLeadingZeros += 1
                } else {
                    leading = false
                    digits.append(b[i])
                }
                i += 1
            }
            guard fracDigit else { return nil }
            sawDigit = true
        }
        guard sawDigit else { return nil }
        var exp = 0
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            var expNegative = false
            if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
                expNegative = b[i] == UInt8(ascii: "-")
                i += 1
            }
            var any = false
            while i < b.count, b[i] &- 48 < 10 {
                any = true
                if exp < 1_000_000 { exp = exp * 10 + Int(b[i] - 48) }
                i += 1
            }
            guard any else { return nil }
            if expNegative { exp = -exp }
        }
        guard i == b.count else { return nil }
        while let last = digits.last, last == 48 { digits.removeLast() }
        // Power of ten of the first significant digit.
        let exponent = intDigits > 0 ? intDigits - 1 + exp : -(fracLeadingZeros + 1) + exp
        if digits.isEmpty { negative = false }
        return DecimalParts(negative: negative, digits: digits, exponent: exponent)
    }

    static func compareDecimalParts(_ x: DecimalParts, _ y: DecimalParts) -> Int {
        if x.isZero && y.isZero { return 0 }
        let sx = x.isZero ? 0 : (x.negative ? -1 : 1)
        let sy = y.isZero ? 0 : (y.negative ? -1 : 1)
        if sx != sy { return sx < sy ? -1 : 1 }
        // Same sign, both non-zero: compare magnitudes.
        var magnitude: Int
        if x.exponent != y.exponent {
            magnitude = x.exponent < y.exponent ? -1 : 1
        } else {
            magnitude = 0
            let n = min(x.digits.count, y.digits.count)
            for k in 0..<n where x.digits[k] != y.digits[k] {
                magnitude = x.digits[k] < y.digits[k] ? -1 : 1
                break
            }
            if magnitude == 0, x.digits.count != y.digits.count { magnitude = x.digits.count < y.digits.count ? -1 : 1 }
        }
        return sx < 0 ? -magnitude : magnitude
    }

    static func compareDecimal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        switch (decimalParts(a), decimalParts(b)) {
        case let (x?, y?): return compareDecimalParts(x, y)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return compareBytes(a, b)
        }
    }

    // MARK: - Instants

    /// An instant: seconds since 1970-01-01T00:00:00Z and the fraction's digits (up to 12).
    struct Instant: Equatable {
        var seconds: Int64
        /// The fraction of a second in picoseconds (12 digits), so 7-digit fractions compare exactly.
        var picoseconds: Int64
    }

    /// Parses `[-]YYYY-MM-DD[THH:MM[:SS[.f+]]][Z|±HH:MM]` (no offset means UTC, as the
    /// canonical form of V2 DateTime states). A date alone is its midnight.
    static func instant(_ b: UnsafeBufferPointer<UInt8>) -> Instant? {
        var i = 0
        func number(_ width: Int) -> Int? {
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
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        var negativeYear = false
        if i < b.count, b[i] == UInt8(ascii: "-") { negativeYear = true; i += 1 }
        // Years have at least four digits (more are allowed).
        var yearDigits = 0
        while i + yearDigits < b.count, b[i + yearDigits] &- 48 < 10 { yearDigits += 1 }
        guard yearDigits >= 4, yearDigits <= 9, var year = number(yearDigits) else { return nil }
        if negativeYear { year = -year }
        guard expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")), let day = number(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var hour = 0, minute = 0, second = 0
        var pico: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") {
            i += 1
            guard let h = number(2), expect(UInt8(ascii: ":")), let m = number(2), h <= 24, m <= 59 else { return nil }
            hour = h
            minute = m
            if i < b.count, b[i] == UInt8(ascii: ":") {
                i += 1
                guard let s = number(2), s <= 60 else { return nil }
                second = s
                if i < b.count, b[i] == UInt8(ascii: ".") {
                    i += 1
                    var digits = 0
                    var scale: Int64 = 100_000_000_000
                    while i < b.count, b[i] &- 48 < 10 {
                        if digits < 12 { pico += Int64(b[i] - 48) * scale; scale /= 10 }
                        digits += 1
                        i += 1
                    }
                    guard digits > 0 else { return nil }
                }
            }
        }
        var offsetMinutes = 0
        if i < b.count {
            if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = number(2), expect(UInt8(ascii: ":")), let om = number(2), oh <= 23, om <= 59 else { return nil }
                offsetMinutes = sign * (oh * 60 + om)
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return Instant(seconds: seconds, picoseconds: pico)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func compareInstant(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        switch (instant(a), instant(b)) {
        case let (x?, y?):
            if x.seconds != y.seconds { return x.seconds < y.seconds ? -1 : 1 }
            if x.picoseconds != y.picoseconds { return x.picoseconds < y.picoseconds ? -1 : 1 }
            return 0
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return compareBytes(a, b)
        }
    }

    // MARK: - Durations

    /// Parses `[-]P[nD][T[nH][nM][n[.f]S]]` into picoseconds (saturating at about 106 days
    /// of picoseconds is too little: seconds and picoseconds are kept apart).
    static func duration(_ b: UnsafeBufferPointer<UInt8>) -> Instant? {
        var i = 0
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if i < b.count, b[i] == UInt8(ascii: "+") { i += 1 }
        guard i < b.count, b[i] == UInt8(ascii: "P") else { return nil }
        i += 1
        var seconds: Int64 = 0
        var pico: Int64 = 0
        var inTime = false
        var any = false
        while i < b.count {
            if b[i] == UInt8(ascii: "T") {
                guard !inTime else { return nil }
                inTime = true
                i += 1
                continue
            }
            var value: Int64 = 0
            var digits = 0
            while i < b.count, b[i] &- 48 < 10 {
                if value < 1_000_000_000_000 { value = value * 10 + Int64(b[i] - 48) }
                digits += 1
                i += 1
            }
            var fraction: Int64 = 0
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                var scale: Int64 = 100_000_000_000
                var fd = 0
                while i < b.count, b[i] &- 48 < 10 {
                    if fd < 12 { fraction += Int64(b[i] - 48) * scale; scale /= 10 }
                    fd += 1
                    i += 1
                }
                guard fd > 0 else { return nil }
            }
            guard digits > 0, i < b.count else { return nil }
            let unit = b[i]
            i += 1
            any = true
            switch (inTime, unit) {
            case (false, UInt8(ascii: "D")): seconds += value * 86_400
            case (true, UInt8(ascii: "H")): seconds += value * 3600
            case (true, UInt8(ascii: "M")): seconds += value * 60
            case (true, UInt8(ascii: "S")):
                seconds += value
                pico += fraction
            default: return nil
            }
            if fraction != 0 && unit != UInt8(ascii: "S") { return nil }
        }
        guard any else { return nil }
        return negative ? Instant(seconds: -seconds - (pico > 0 ? 1 : 0), picoseconds: pico > 0 ? 1_000_000_000_000 - pico : 0)
                        : Instant(seconds: seconds, picoseconds: pico)
    }

    static func compareDuration(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        switch (duration(a), duration(b)) {
        case let (x?, y?):
            if x.seconds != y.seconds { return x.seconds < y.seconds ? -1 : 1 }
            if x.picoseconds != y.picoseconds { return x.picoseconds < y.picoseconds ? -1 : 1 }
            return 0
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return compareBytes(a, b)
        }
    }

    // MARK: - Times of day

    /// Compares `hh:mm[:ss[.f]]` texts by the time they name (`10:00` = `10:00:00.000`).
    static func compareTimeOfDay(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        switch (TemporalText.timeOfDay(a), TemporalText.timeOfDay(b)) {
        case let (x?, y?):
            let (p, q) = (x.totalPicoseconds, y.totalPicoseconds)
            return p == q ? 0 : (p < q ? -1 : 1)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return compareBytes(a, b)
        }
    }

    // MARK: -

    static func compareBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(a.count, b.count)
        for k in 0..<n where a[k] != b[k] { return a[k] < b[k] ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
