import Glibc

/// One column's value while an entity is written: taken from the page's canonical JSON bytes
/// without making a String for text that needs no unescaping.
enum CellValue {
    case null
    case integer(Int64)
    case real(Double)
    /// Text exactly as in the page buffer (no escapes): a byte range.
    case raw(Range<Int>)
    /// Text in the writer's page arena (`EntityWriter.arena`, emptied when a page starts): a
    /// value that had escapes, unescaped (a V2 ETag `W/\"1\"` in every entity, SAP's `\/` in
    /// URLs), or text the writer made (a derived type's name). One buffer for the page instead
    /// of an array per value, and no case holds a reference: a cell is copied and dropped
    /// without reference counting.
    case arena(Range<Int>)

    /// Binds the value; `.raw` text is bound without a copy, so `page` must stay valid until
    /// the statement is reset. `.arena` text is copied from `arena` (the writer's arena as it
    /// is at binding time).
    @inline(__always)
    func bind(_ s: SQLiteStatement, at index: Int, page: UnsafeBufferPointer<UInt8>,
              arena: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        switch self {
        case .null: try s.bind(.null, at: index)
        case .integer(let v): try s.bind(.integer(v), at: index)
        case .real(let v): try s.bind(.real(v), at: index)
        case .raw(let r): try s.bindTextNoCopy(UnsafeBufferPointer(rebasing: page[r]), at: index)
        case .arena(let r): try s.bindText(UnsafeBufferPointer(rebasing: arena[r]), at: index)
        }
    }
}

/// Number parsing from JSON bytes (no Strings).
enum JSONNumber {
    /// An integer (optionally negative) with no fraction or exponent; nil otherwise or on overflow.
    static func int64(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let p = b.baseAddress, !b.isEmpty else { return nil }
        var i = 0
        var negative = false
        if p[0] == UInt8(ascii: "-") { negative = true; i = 1 }
        let n = b.count
        guard i < n else { return nil }
        // Eighteen digits or fewer cannot pass Int64's range (10^18 - 1 < 2^63 - 1): read
        // without the checked multiply and add per digit (four or more integer columns in
        // every entity of a download; about 80 instructions per value before).
        if n &- i <= 18 {
            var v: Int64 = 0
            while i < n {
                let d = p[i] &- 48
                guard d < 10 else { return nil }
                v = v &* 10 &+ Int64(d)
                i &+= 1
            }
            return negative ? 0 &- v : v
        }
        var v: Int64 = 0
        while i < b.count {
            let d = b[i] &- 48
            guard d < 10 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(Int64(d)) : m.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            v = s
            i += 1
        }
        return v
    }

    /// A double from a JSON number (strtod on a NUL-terminated copy).
    static func double(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !b.isEmpty, b.count < 512 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: b.count + 1) { buf -> Double? in
            for k in 0..<b.count { buf[k] = CChar(bitPattern: b[k]) }
            buf[b.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let v = strtod(buf.baseAddress!, &end)
            guard let end, end - buf.baseAddress! == b.count else { return nil }
            return v
        }
    }
}
