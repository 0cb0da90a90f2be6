/// Shape check of the text inside a V4 `geography'…'`/`geometry'…'` literal, after the OData
/// 4.01 ABNF (section 7, `fullPointLiteral` … `fullCollectionLiteral`):
///
///     SRID=<1-5 digits>;Point(x y)
///     SRID=…;LineString(x y,x y,…)          (two positions or more)
///     SRID=…;Polygon((x y,…),(x y,…))
///     SRID=…;MultiPoint((x y),…)   MultiLineString((x y,…),…)   MultiPolygon(((x y,…)),…)
///     SRID=…;Collection(<any of the above without SRID>,…)
///
/// Keywords compare without case (ABNF strings are case-insensitive); a position is two to
/// four numbers separated by single spaces. Collections nest at most 32 deep.
enum GeoLiteral {
    static func isValid(_ text: String) -> Bool {
        var p = Scanner(bytes: Array(text.utf8))
        guard p.keyword("SRID"), p.take(UInt8(ascii: "=")) else { return false }
        let digits = p.digits()
        guard (1...5).contains(digits), p.take(UInt8(ascii: ";")) else { return false }
        guard p.geo(depth: 0) else { return false }
        return p.i == p.bytes.count
    }

    struct Scanner {
        let bytes: [UInt8]
        var i = 0

        func peek() -> UInt8? { i < bytes.count ? bytes[i] : nil }

        mutating func take(_ c: UInt8) -> Bool {
            guard peek() == c else { return false }
            i += 1
            return true
        }

        /// Case-insensitive keyword.
        mutating func keyword(_ k: String) -> Bool {
            var j = i
            for b in k.utf8 {
                guard j < bytes.count, bytes[j] | 0x20 == b | 0x20 else { return false }
                j += 1
            }
            i = j
            return true
        }

        mutating func digits() -> Int {
            let s = i
            while let c = peek(), c >= 0x30 && c <= 0x39 { i += 1 }
            return i - s
        }

        /// doubleValue: [+/-] digits [. digits] [e [+/-] digits], or NaN / INF / -INF.
        mutating func number() -> Bool {
            if keyword("NaN") || keyword("INF") || keyword("-INF") { return true }
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
            if peek() == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { return false }
            }
            if let e = peek(), e | 0x20 == UInt8(ascii: "e") {
                i += 1
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { return false }
            }
            return true
        }

        mutating func position() -> Bool {
            guard number(), take(0x20), number() else { return false }
            for _ in 0..<2 {
                let save = i
                if take(0x20), number() { continue }
                i = save
                break
            }
            return true
        }

        /// `( position )`
        mutating func pointData() -> Bool { take(UInt8(ascii: "(")) && position() && take(UInt8(ascii: ")")) }

        /// `( position *( , position ) )` with at least `minimum` positions.
        mutating func positions(minimum: Int) -> Bool {
            guard take(UInt8(ascii: "(")), position() else { return false }
            var n = 1
            while take(UInt8(ascii: ",")) {
                guard position() else { return false }
                n += 1
            }
            return n >= minimum && take(UInt8(ascii: ")"))
        }

        mutating func polygonData() -> Bool {
            guard take(UInt8(ascii: "(")), positions(minimum: 1) else { return false }
            while take(UInt8(ascii: ",")) {
                guard positions(minimum: 1) else { return false }
            }
            return take(UInt8(ascii: ")"))
        }

        /// `( [ item *( , item ) ] )`
        mutating func list(_ item: (inout Scanner) -> Bool) -> Bool {
            guard take(UInt8(ascii: "(")) else { return false }
            if take(UInt8(ascii: ")")) { return true }
            guard item(&self) else { return false }
            while take(UInt8(ascii: ",")) {
                guard item(&self) else { return false }
            }
            return take(UInt8(ascii: ")"))
        }

        mutating func geo(depth: Int) -> Bool {
            guard depth < 32 else { return false }
            if keyword("MultiPolygon") { return list { $0.polygonData() } }
            if keyword("MultiLineString") { return list { $0.positions(minimum: 2) } }
            if keyword("MultiPoint") { return list { $0.pointData() } }
            if keyword("Point") { return pointData() }
            if keyword("LineString") { return positions(minimum: 2) }
            if keyword("Polygon") { return polygonData() }
            if keyword("GeometryCollection") || keyword("Collection") {
                guard take(UInt8(ascii: "(")), geo(depth: depth + 1) else { return false }
                while take(UInt8(ascii: ",")) {
                    guard geo(depth: depth + 1) else { return false }
                }
                return take(UInt8(ascii: ")"))
            }
            return false
        }
    }
}
