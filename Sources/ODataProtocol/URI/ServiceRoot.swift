/// A service root URL split into the parts that matter when stripping it from request URLs:
/// scheme and host compare case-insensitively, a missing port equals the scheme's default
/// (80 for http, 443 for https), and path segments compare after percent-decoding, ignoring
/// a trailing slash.
public struct ServiceRoot: Hashable, Sendable {
    public var scheme: String?
    public var host: String?
    public var port: Int?
    public var pathSegments: [String]

    /// Parses `https://host[:port]/path/` or an absolute path `/path/`; nil when the text is
    /// not a URL of that form.
    public init?(_ text: String) {
        let raw = Array(text.utf8)
        var end = raw.firstIndex(of: UInt8(ascii: "?")) ?? raw.count
        if let h = raw.firstIndex(of: UInt8(ascii: "#")), h < end { end = h }
        var pathStart = 0
        if let authority = URLAuthority.parse(raw, end: end) {
            scheme = authority.scheme
            host = authority.host
            port = authority.port
            pathStart = authority.end
        } else if raw.first != UInt8(ascii: "/") {
            return nil
        }
        var segs: [String] = []
        for range in URLAuthority.segmentRanges(raw, from: pathStart, to: end) {
            guard let d = try? PercentDecoding.decode(raw, from: range.lowerBound, to: range.upperBound, plusAsSpace: false)
            else { return nil }
            if !d.bytes.isEmpty { segs.append(d.text) }
        }
        pathSegments = segs
    }

    /// The root with a trailing slash, as the OData spec writes it.
    public var text: String {
        var s = ""
        if let scheme, let host {
            s = scheme + "://" + host
            if let port, port != URLAuthority.defaultPort(scheme) { s += ":\(port)" }
        }
        s += "/" + pathSegments.map { PercentEncoding.encode($0, .pathSegment) }.joined(separator: "/")
        if !pathSegments.isEmpty { s += "/" }
        return s
    }
}

/// `scheme://[userinfo@]host[:port]` at the start of a URL.
struct URLAuthority {
    var scheme: String
    var host: String
    var port: Int?
    /// Byte offset just after the authority (where the path starts).
    var end: Int

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme { case "http": return 80; case "https": return 443; default: return nil }
    }

    static func parse(_ raw: [UInt8], end: Int) -> URLAuthority? {
        var i = 0
        while i < end, let c = Optional(raw[i]), (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || (i > 0 && ((c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: "."))) {
            i += 1
        }
        guard i > 0, i + 3 <= end, raw[i] == UInt8(ascii: ":"), raw[i + 1] == UInt8(ascii: "/"),
              raw[i + 2] == UInt8(ascii: "/") else { return nil }
        let scheme = String(decoding: raw[0..<i], as: UTF8.self).lowercased()
        let start = i + 3
        var j = start
        while j < end && raw[j] != UInt8(ascii: "/") { j += 1 }
        var hostStart = start
        if let at = raw[start..<j].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
        var hostEnd = j
        var port: Int? = nil
        // IPv6 literal in brackets, else the last ':' separates the port.
        let closeBracket = raw[hostStart..<j].lastIndex(of: UInt8(ascii: "]"))
        if let colon = raw[hostStart..<j].lastIndex(of: UInt8(ascii: ":")), closeBracket.map({ colon > $0 }) ?? true {
            hostEnd = colon
            let digits = String(decoding: raw[(colon + 1)..<j], as: UTF8.self)
            port = digits.isEmpty ? nil : Int(digits)
            if !digits.isEmpty && port == nil { return nil }
        }
        let host = String(decoding: raw[hostStart..<hostEnd], as: UTF8.self).lowercased()
        return URLAuthority(scheme: scheme, host: host, port: port ?? defaultPort(scheme), end: j)
    }

    /// Ranges of the `/`-separated segments of raw[from..<to], skipping one leading `/`.
    /// With `parentheses`, a `/` inside parentheses (outside single-quoted strings there)
    /// does not split: `Products/$filter(Supplier/Name eq 'x')` is two segments.
    static func segmentRanges(_ raw: [UInt8], from: Int, to: Int, parentheses: Bool = false) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var i = from
        if i < to && raw[i] == UInt8(ascii: "/") { i += 1 }
        guard i < to else { return [] }
        var s = i
        var depth = 0
        var quoted = false
        while i <= to {
            if i < to && parentheses {
                let c = raw[i]
                if quoted {
                    if c == UInt8(ascii: "'") { quoted = false }
                } else if c == UInt8(ascii: "'") && depth > 0 {
                    quoted = true
                } else if c == UInt8(ascii: "(") {
                    depth += 1
                } else if c == UInt8(ascii: ")") && depth > 0 {
                    depth -= 1
                }
            }
            if i == to || (raw[i] == UInt8(ascii: "/") && depth == 0) {
                ranges.append(s..<i)
                s = i + 1
                quoted = false
            }
            i += 1
        }
        return ranges
    }
}
