/// An Edm.Date: a day of the proleptic Gregorian calendar, without time or time zone.
///
/// `ODataDate(year: 2020, month: 1, day: 2)`, `ODataDate("2020-01-02")`; `description` is the
/// ISO 8601 text the canonical JSON and V4 URLs use. V2 has no Edm.Date: a V2 service's
/// Edm.DateTime arrives as `2020-01-02T00:00:00Z`, which also decodes into an `ODataDate` (its
/// date part), and an `ODataDate` sent to an Edm.DateTime property becomes midnight UTC.
public struct ODataDate: Sendable, Hashable, Comparable, LosslessStringConvertible {
    public let year: Int
    /// 1...12
    public let month: Int
    /// 1...31
    public let day: Int

    /// Nil when the day does not exist (`2023-02-29`).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= TemporalText.daysIn(month, year),
              (-999_999_999...999_999_999).contains(year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// `YYYY-MM-DD` (a year of more than four digits, or negative, as ISO 8601 extends it).
    public init?(_ description: String) {
        guard let p = TemporalParsing.dateTime(description), !p.hasTime, p.offsetMinutes == nil, !p.zulu else { return nil }
        self.init(year: p.year, month: p.month, day: p.day)
    }

    /// The date of 1970-01-01 plus `days`.
    public init(daysSince1970 days: Int64) {
        let c = TemporalText.civil(fromDays: days)
        year = Int(c.year)
        month = c.month
        day = c.day
    }

    /// Days since 1970-01-01 (negative before).
    public var daysSince1970: Int64 { Int64(OrderedText.daysFromCivil(year: year, month: month, day: day)) }

    public var description: String { TemporalText.dateText(Int64(year), month, day) }

    public static func < (a: ODataDate, b: ODataDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// A date, or the local date of a date-time (`2020-01-02T13:00:00+01:00` is 2020-01-02).
    init?(lenient text: String) {
        guard let p = TemporalParsing.dateTime(text) else { return nil }
        self.init(year: p.year, month: p.month, day: p.day)
    }
}

/// An Edm.TimeOfDay (V4), also V2's Edm.Time as the canonical shape writes it: `13:20:00`,
/// `09:05:03.25`. Fractions keep up to 12 digits (picoseconds).
public struct ODataTimeOfDay: Sendable, Hashable, Comparable, LosslessStringConvertible {
    /// 0...23
    public let hour: Int
    public let minute: Int
    public let second: Int
    /// The fraction of the second, 0 ..< 10^12.
    public let picoseconds: Int64

    public init?(hour: Int, minute: Int, second: Int = 0, picoseconds: Int64 = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
              (0..<TemporalText.picosPerSecond).contains(picoseconds) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
        self.picoseconds = picoseconds
    }

    /// `hh:mm[:ss[.fffffffffff]]`.
    public init?(_ description: String) {
        var text = description
        guard let t = text.withUTF8({ TemporalText.timeOfDay($0) }) else { return nil }
        self.init(hour: t.hour, minute: t.minute, second: t.second, picoseconds: t.picoseconds)
    }

    public var description: String { TemporalText.timeText(hour, minute, second, picoseconds) }

    /// Time since midnight.
    public var sinceMidnight: Duration {
        .seconds(hour * 3600 + minute * 60 + second) + Duration(secondsComponent: 0, attosecondsComponent: picoseconds * 1_000_000)
    }

    public static func < (a: ODataTimeOfDay, b: ODataTimeOfDay) -> Bool {
        (a.hour, a.minute, a.second, a.picoseconds) < (b.hour, b.minute, b.second, b.picoseconds)
    }
}

/// Reading ISO 8601 text with the offline store's parser.
enum TemporalParsing {
    static func dateTime(_ s: String) -> TemporalText.DateTimeParts? {
        var text = s
        return text.withUTF8 { TemporalText.dateTime($0) }
    }

    static func duration(_ s: String) -> Duration? {
        var text = s
        guard let d = text.withUTF8({ OrderedText.duration($0) }) else { return nil }
        return Duration(secondsComponent: d.seconds, attosecondsComponent: d.picoseconds * 1_000_000)
    }

    /// `[-]PnDTnHnMn.fS`, the canonical Edm.Duration text (sub-picosecond parts dropped).
    static func durationText(_ d: Duration) -> String {
        let (s, atto) = d.components
        // components: seconds and attoseconds have the same sign; the store's form wants
        // 0 <= picoseconds < 10^12 with the sign in the seconds.
        var seconds = s
        var pico = atto / 1_000_000
        if pico < 0 {
            seconds -= 1
            pico += TemporalText.picosPerSecond
        }
        return TemporalText.durationText(OrderedText.Instant(seconds: seconds, picoseconds: pico))
    }
}
