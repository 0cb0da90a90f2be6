/// An Edm.DateTimeOffset: a date and time of day at an offset from UTC, also V2's
/// Edm.DateTime, which the canonical shape writes in UTC (`1999-01-01T00:00:00Z`).
///
/// `ODataDateTimeOffset("2012-12-03T07:16:23+01:00")`,
/// `ODataDateTimeOffset(secondsSince1970: 1_700_000_000)`. Equality, hashing and order are
/// by the instant (`10:00+01:00 == 09:00Z`), as for Foundation's `Date`; `description` keeps
/// the local time and offset. Foundation's `Date` converts both ways in `ODataStoreFoundation`.
public struct ODataDateTimeOffset: Sendable, Hashable, Comparable, LosslessStringConvertible {
    /// The local date and time at `offsetMinutes`.
    public let date: ODataDate
    public let time: ODataTimeOfDay
    /// Minutes east of UTC (`+01:00`: 60); 0 is written `Z`.
    public let offsetMinutes: Int

    public init?(date: ODataDate, time: ODataTimeOfDay, offsetMinutes: Int = 0) {
        guard abs(offsetMinutes) < 24 * 60 else { return nil }
        self.date = date
        self.time = time
        self.offsetMinutes = offsetMinutes
    }

    /// `YYYY-MM-DDThh:mm[:ss[.f]](Z|±hh:mm)`; text without an offset is read as UTC (the
    /// V2 DateTime convention).
    public init?(_ description: String) {
        guard let p = TemporalParsing.dateTime(description), p.hasTime,
              let d = ODataDate(year: p.year, month: p.month, day: p.day),
              let t = ODataTimeOfDay(hour: p.hour, minute: p.minute, second: p.second, picoseconds: p.picoseconds) else { return nil }
        self.init(date: d, time: t, offsetMinutes: p.offsetMinutes ?? 0)
    }

    /// The instant `seconds` (+ `picoseconds`) after 1970-01-01T00:00:00Z, shown at `offsetMinutes`.
    public init(secondsSince1970 seconds: Int64, picoseconds: Int64 = 0, offsetMinutes: Int = 0) {
        let offset = abs(offsetMinutes) < 24 * 60 ? offsetMinutes : 0
        var s = seconds + Int64(offset * 60)
        var pico = picoseconds % TemporalText.picosPerSecond
        s += picoseconds / TemporalText.picosPerSecond
        if pico < 0 {
            pico += TemporalText.picosPerSecond
            s -= 1
        }
        let days = s >= 0 ? s / 86_400 : (s - 86_399) / 86_400
        let rest = Int(s - days * 86_400)
        date = ODataDate(daysSince1970: days)
        time = ODataTimeOfDay(hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60, picoseconds: pico)!
        self.offsetMinutes = offset
    }

    /// Seconds since 1970-01-01T00:00:00Z (the instant, whatever the offset), rounded down.
    public var secondsSince1970: Int64 {
        date.daysSince1970 * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second) - Int64(offsetMinutes * 60)
    }

    /// The same instant at another offset (`inUTC`: at `Z`).
    public func atOffset(minutes: Int) -> ODataDateTimeOffset {
        ODataDateTimeOffset(secondsSince1970: secondsSince1970, picoseconds: time.picoseconds, offsetMinutes: minutes)
    }

    public var inUTC: ODataDateTimeOffset { atOffset(minutes: 0) }

    public var description: String {
        var out = date.description + "T" + time.description
        if offsetMinutes == 0 {
            out += "Z"
        } else {
            let a = abs(offsetMinutes)
            out += (offsetMinutes < 0 ? "-" : "+") + TemporalText.two(a / 60) + ":" + TemporalText.two(a % 60)
        }
        return out
    }

    public static func == (a: ODataDateTimeOffset, b: ODataDateTimeOffset) -> Bool {
        a.secondsSince1970 == b.secondsSince1970 && a.time.picoseconds == b.time.picoseconds
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(secondsSince1970)
        hasher.combine(time.picoseconds)
    }

    public static func < (a: ODataDateTimeOffset, b: ODataDateTimeOffset) -> Bool {
        (a.secondsSince1970, a.time.picoseconds) < (b.secondsSince1970, b.time.picoseconds)
    }

    /// A date-time, or a date read as midnight UTC.
    init?(lenient text: String) {
        if let v = ODataDateTimeOffset(text) {
            self = v
        } else if let d = ODataDate(text) {
            self.init(date: d, time: ODataTimeOfDay(hour: 0, minute: 0)!, offsetMinutes: 0)
        } else {
            return nil
        }
    }
}

/// An Edm.Guid, kept as its lowercase text (`7e0a6c4e-...`). `UUID` converts both ways in
/// `ODataStoreFoundation`.
public struct ODataGuid: Sendable, Hashable, Comparable, LosslessStringConvertible {
    public let description: String

    /// 8-4-4-4-12 hexadecimal digits, any case.
    public init?(_ description: String) {
        let bytes = Array(description.utf8)
        guard bytes.count == 36 else { return nil }
        for (i, c) in bytes.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
            } else {
                guard (c >= 48 && c <= 57) || (c | 0x20 >= 97 && c | 0x20 <= 102) else { return nil }
            }
        }
        self.description = description.lowercased()
    }

    public static func < (a: ODataGuid, b: ODataGuid) -> Bool { a.description < b.description }
}
