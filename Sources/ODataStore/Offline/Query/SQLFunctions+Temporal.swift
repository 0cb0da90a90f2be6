import CSQLite
import Glibc

/// Date and time functions (V4.01 Part 2, 5.1.1.8; MS-ODATA 2.2.3.6.1.1 and the V2 URI conventions 4.5 for V2) on the
/// store's text forms: `year`..`second` of a Date, DateTimeOffset (in its own offset), V2
/// DateTime (UTC), TimeOfDay or V2 Time; `fractionalseconds`, `totalseconds`, `date`,
/// `time`, `totaloffsetminutes`, `now`; and the arithmetic of 5.1.1.2 (`ods_dt_add`,
/// `ods_dt_sub`, `ods_dt_diff`, `ods_dur_*`). Results are texts in the forms the store keeps,
/// compared through the store's collations.
extension SQLFunctions {
    enum Component { case year, month, day, hour, minute, second }

    static let temporal: [Entry] = [
        Entry(name: "ods_year", arguments: 1) { c, n, v in SQLFunctions.component(SQLFunctionCall(c, n, v), .year) },
        Entry(name: "ods_month", arguments: 1) { c, n, v in SQLFunctions.component(SQLFunctionCall(c, n, v), .month) },
        Entry(name: "ods_day", arguments: 1) { c, n, v in SQLFunctions.component(SQLFunctionCall(c, n, v), .day) },
        Entry(name: "ods_hour", arguments: 1) { c, n, v in SQLFunctions.component(SQLFunctionCall(c, n, v), .hour) },
        Entry(name: "ods_minute", arguments: 1) { c, n, v in SQLFunctions.component(SQLFunctionCall(c, n, v), .minute) },
        Entry(name: "ods_second", arguments: 1) { c, n, v in SQLFunctions.component(SQLFunctionCall(c, n, v), .second) },
        Entry(name: "ods_fractionalseconds", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            let pico: Int64? = call.withText(0) { b in
                if let p = TemporalText.dateTime(b) { return p.picoseconds }
                return TemporalText.timeOfDay(b)?.picoseconds
            }
            guard let pico else { return call.fail("fractionalseconds needs a date-time or time of day") }
            call.result(TemporalText.fractionalSecondsText(pico))
        },
        Entry(name: "ods_totalseconds", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            guard let d = call.withText(0, { TemporalText.duration($0) }) else { return call.fail("totalseconds needs a duration") }
            call.result(TemporalText.totalSecondsText(d))
        },
        Entry(name: "ods_date", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            guard let p = call.withText(0, { TemporalText.dateTime($0) }) else { return call.fail("date needs a date-time") }
            call.result(TemporalText.dateText(Int64(p.year), p.month, p.day))
        },
        Entry(name: "ods_time", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            guard let p = call.withText(0, { TemporalText.dateTime($0) }) else { return call.fail("time needs a date-time") }
            call.result(TemporalText.timeText(p.hour, p.minute, p.second, p.picoseconds))
        },
        Entry(name: "ods_totaloffsetminutes", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            guard let p = call.withText(0, { TemporalText.dateTime($0) }) else { return call.fail("totaloffsetminutes needs a date-time") }
            call.result(Int64(p.offsetMinutes ?? 0))
        },
        Entry(name: "ods_now", arguments: 0, deterministic: false) { c, n, v in
            SQLFunctionCall(c, n, v).result(SQLFunctions.now())
        },
        Entry(name: "ods_dt_add", arguments: 2) { c, n, v in SQLFunctions.dateTimeArithmetic(SQLFunctionCall(c, n, v), subtract: false) },
        Entry(name: "ods_dt_sub", arguments: 2) { c, n, v in SQLFunctions.dateTimeArithmetic(SQLFunctionCall(c, n, v), subtract: true) },
        Entry(name: "ods_dt_diff", arguments: 2) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            guard let a = call.withText(0, { OrderedText.instant($0) }), let b = call.withText(1, { OrderedText.instant($0) }) else {
                return call.fail("sub needs two dates or date-times")
            }
            guard let d = TemporalText.difference(a, b) else { return call.fail("duration out of range") }
            call.result(TemporalText.durationText(d))
        },
        Entry(name: "ods_dur_add", arguments: 2) { c, n, v in SQLFunctions.durationSum(SQLFunctionCall(c, n, v), subtract: false) },
        Entry(name: "ods_dur_sub", arguments: 2) { c, n, v in SQLFunctions.durationSum(SQLFunctionCall(c, n, v), subtract: true) },
        Entry(name: "ods_dur_neg", arguments: 1) { c, n, v in
            let call = SQLFunctionCall(c, n, v)
            if call.anyNull { return call.resultNull() }
            guard let d = call.withText(0, { TemporalText.duration($0) }) else { return call.fail("not a duration") }
            guard let r = TemporalText.sum(OrderedText.Instant(seconds: 0, picoseconds: 0), d, subtract: true) else {
                return call.fail("duration out of range")
            }
            call.result(TemporalText.durationText(r))
        },
        Entry(name: "ods_dur_mul", arguments: 2) { c, n, v in SQLFunctions.durationScale(SQLFunctionCall(c, n, v), divide: false) },
        Entry(name: "ods_dur_div", arguments: 2) { c, n, v in SQLFunctions.durationScale(SQLFunctionCall(c, n, v), divide: true) },
    ]

    static func component(_ call: SQLFunctionCall, _ which: Component) {
        if call.anyNull { return call.resultNull() }
        let value: Int? = call.withText(0) { b in
            if let p = TemporalText.dateTime(b) {
                switch which {
                case .year: return p.year
                case .month: return p.month
                case .day: return p.day
                case .hour: return p.hour
                case .minute: return p.minute
                case .second: return p.second
                }
            }
            guard which != .year, which != .month, which != .day else { return nil }
            if let t = TemporalText.timeOfDay(b) {
                return which == .hour ? t.hour : (which == .minute ? t.minute : t.second)
            }
            if let d = OrderedText.duration(b) {
                // The components of a duration's length (negative for a negative duration).
                let negative = d.seconds < 0
                let magnitude = negative ? (d.picoseconds > 0 ? -d.seconds - 1 : -d.seconds) : d.seconds
                let v: Int64 = which == .hour ? (magnitude / 3600) % 24 : (which == .minute ? (magnitude / 60) % 60 : magnitude % 60)
                return Int(negative ? -v : v)
            }
            return nil
        }
        guard let value else { return call.fail("not a date, time or duration value") }
        call.result(Int64(value))
    }

    static func dateTimeArithmetic(_ call: SQLFunctionCall, subtract: Bool) {
        if call.anyNull { return call.resultNull() }
        guard let p = call.withText(0, { TemporalText.dateTime($0) }), let d = call.withText(1, { TemporalText.duration($0) }) else {
            return call.fail("add and sub need a date or date-time and a duration")
        }
        guard let r = TemporalText.add(p, d, subtract: subtract) else { return call.fail("date out of range") }
        call.result(r)
    }

    static func durationSum(_ call: SQLFunctionCall, subtract: Bool) {
        if call.anyNull { return call.resultNull() }
        guard let a = call.withText(0, { TemporalText.duration($0) }), let b = call.withText(1, { TemporalText.duration($0) }) else {
            return call.fail("not a duration")
        }
        guard let r = TemporalText.sum(a, b, subtract: subtract) else { return call.fail("duration out of range") }
        call.result(TemporalText.durationText(r))
    }

    static func durationScale(_ call: SQLFunctionCall, divide: Bool) {
        if call.anyNull { return call.resultNull() }
        guard let d = call.withText(0, { TemporalText.duration($0) }) else { return call.fail("not a duration") }
        guard let factor = decimalArgument(call, 1) else { return call.fail("a duration can only be scaled by a finite number") }
        if divide && factor.isZero { return call.fail("division by zero") }
        guard let r = TemporalText.scale(d, by: factor, divide: divide) else { return call.fail("duration out of range") }
        call.result(TemporalText.durationText(r))
    }

    /// The current instant in UTC with microseconds (`2024-05-01T12:00:00.123456Z`).
    static func now() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let seconds = Int64(ts.tv_sec)
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let rest = Int(seconds - days * 86_400)
        let date = TemporalText.civil(fromDays: days)
        let micro = Int64(ts.tv_nsec) / 1000 * 1_000_000
        return TemporalText.dateText(date.year, date.month, date.day) + "T"
            + TemporalText.timeText(rest / 3600, (rest % 3600) / 60, rest % 60, micro) + "Z"
    }
}
