/// Builds the absolute URL of a request from the service root and the app's path.
///
/// The app writes paths the way OData documents show them ("Products?$filter=Name eq 'A b'");
/// this percent-encodes what may not appear in a URL (spaces, quotes are fine, non-ASCII as
/// UTF-8) while keeping existing `%XX` escapes, and encodes `+` in the query as `%2B` because
/// many servers decode a literal `+` as a space. Full URLs are accepted only under the
/// service root (same scheme, host and port, and a path that starts with the root's), so
/// credentials are never sent elsewhere; and no path may hold a `.` or `..` segment (also
/// percent-encoded), which libcurl would resolve and so leave the root.
enum RequestURL {
    static func make(serviceRoot: String, path: String) throws(ODataStoreError) -> String {
        if isAbsolute(path) {
            let root = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
            // Control characters shown as spaces: the URL may be a service's next link.
            let shown = ResponseErrors.printable(URLRedaction.redactingPassword(path), limit: 300)
            guard let rootOrigin = origin(of: root), origin(of: path) == rootOrigin else {
                throw .invalid("the URL \"\(shown)\" is not on the service's host \(origin(of: root) ?? root)")
            }
            guard !URLRedaction.hasUserinfo(path) else {
                throw .invalid("the URL \"\(shown)\" must not contain user:password@")
            }
            let rootPath = pathAndQuery(of: root)
            let requested = pathAndQuery(of: path)
            guard requested.hasPrefix(rootPath) || requested + "/" == rootPath else {
                throw .invalid("the URL \"\(shown)\" is not under the service root \(URLRedaction.redactingPassword(root))")
            }
            try checkDotSegments(String(requested.dropFirst(min(rootPath.count, requested.count))))
            return encode(path)
        }
        try checkDotSegments(path)
        // root + "/" if missing + path without leading slashes, joined in one buffer; encoded
        // only when some byte needs it (most paths need nothing).
        var root = serviceRoot
        var relative = path
        let (joined, plain) = root.withUTF8 { r in
            relative.withUTF8 { p -> ([UInt8], Bool) in
                var start = 0
                while start < p.count, p[start] == UInt8(ascii: "/") { start += 1 }
                var out: [UInt8] = []
                out.reserveCapacity(r.count + 1 + p.count - start)
                out.append(contentsOf: r)
                if r.last != UInt8(ascii: "/") { out.append(UInt8(ascii: "/")) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: p[start...]))
                let table = allowedTable
                var plain = true
                for c in out where !table[Int(c)] || c == UInt8(ascii: "%") || c == UInt8(ascii: "+") {
                    plain = false
                    break
                }
                return (out, plain)
            }
        }
        let url = String(decoding: joined, as: UTF8.self)
        return plain ? url : encode(url)
    }

    /// `text` with every `%` that does not start a `%XX` escape written as `%25`, as `encode`
    /// sends it, so a path parsed locally means what the service receives (`'a%b'` is the
    /// string a%b). Also returns the character offsets (in `text`) of those `%`s, to map
    /// positions in the result back onto `text`.
    static func escapingStrayPercents(_ text: String) -> (text: String, escaped: [Int]) {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return (text, []) }
        var out = ""
        var escaped: [Int] = []
        let chars = Array(text)
        for (i, c) in chars.enumerated() {
            out.append(c)
            guard c == "%" else { continue }
            let hex: (Character) -> Bool = { $0.isASCII && $0.isHexDigit }
            if i + 2 < chars.count, hex(chars[i + 1]), hex(chars[i + 2]) { continue }
            out.append("25")
            escaped.append(i)
        }
        return (out, escaped)
    }

    /// A position in the text `escapingStrayPercents` made, as a position in its input.
    static func originalPosition(_ position: Int, escaped: [Int]) -> Int {
        var shift = 0
        for (k, e) in escaped.enumerated() {
            // The k-th escaped '%' stands at e + 2k in the result; its "25" follows it.
            if e + 2 * k < position { shift += min(2, position - (e + 2 * k) - 1) }
        }
        return max(position - shift, 0)
    }

    /// Starts with "http://" or "https://" (as the origin check compares them: exactly).
    private static func isAbsolute(_ path: String) -> Bool {
        var p = path
        return p.withUTF8 { b in
            func starts(_ prefix: StaticString) -> Bool {
                let n = prefix.utf8CodeUnitCount
                guard b.count >= n else { return false }
                for i in 0..<n where b[i] != prefix.utf8Start[i] { return false }
                return true
            }
            return starts("http://") || starts("https://")
        }
    }

    /// The part of an absolute URL after its authority ("/odata/Products?$top=1"), or "/".
    private static func pathAndQuery(of url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { return "/" }
        let tail = String(rest[slash...])
        return tail.hasPrefix("/") ? tail : "/" + tail
    }

    /// Refuses "." and ".." segments (also as %2E) in the resource part of a path: libcurl
    /// removes them (RFC 3986 section 5.2.4), which moves the request out of the service root.
    static func checkDotSegments(_ path: String) throws(ODataStoreError) {
        var bytes = path
        let bad: Int? = bytes.withUTF8 { p -> Int? in
            var start = 0
            var i = 0
            while true {
                let atEnd = i == p.count || p[i] == UInt8(ascii: "?") || p[i] == UInt8(ascii: "#")
                if atEnd || p[i] == UInt8(ascii: "/") {
                    if isDotSegment(UnsafeBufferPointer(rebasing: p[start..<i])) { return start }
                    if atEnd { return nil }
                    start = i + 1
                }
                i += 1
            }
        }
        if let bad {
            throw ODataStoreError(.invalidArgument,
                                  "the resource path has a '.' or '..' segment at byte \(bad); paths must stay under the service root",
                                  position: bad)
        }
    }

    private static func isDotSegment(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var dots = 0
        var i = 0
        while i < s.count {
            if s[i] == UInt8(ascii: ".") {
                i += 1
            } else if s[i] == UInt8(ascii: "%"), i + 2 < s.count, s[i + 1] == UInt8(ascii: "2"),
                      s[i + 2] | 0x20 == UInt8(ascii: "e") {
                i += 3
            } else {
                return false
            }
            dots += 1
        }
        return dots == 1 || dots == 2
    }

    /// scheme://host[:port] of an absolute URL, lowercased, default ports removed.
    static func origin(of url: String) -> String? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var hostPort = authority.lowercased()
        if let at = hostPort.lastIndex(of: "@") { hostPort = String(hostPort[hostPort.index(after: at)...]) }
        if scheme == "http", hostPort.hasSuffix(":80") { hostPort.removeLast(3) }
        if scheme == "https", hostPort.hasSuffix(":443") { hostPort.removeLast(4) }
        return scheme + "://" + hostPort
    }

    /// Percent-encodes bytes that are not allowed in a URL; keeps valid `%XX` escapes.
    static func encode(_ url: String) -> String {
        // Fast path: most URLs need no escaping at all; return them as they are.
        let table = allowedTable
        var plain = url
        if plain.withUTF8({ bytes in !bytes.contains { !table[Int($0)] || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") } }) {
            return url
        }
        let bytes = Array(url.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var inQuery = false
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "?") { inQuery = true }
            if c == UInt8(ascii: "%"), i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out.append(contentsOf: bytes[i...i + 2])
                i += 3
                continue
            }
            if isAllowed(c) && !(inQuery && c == UInt8(ascii: "+")) {
                out.append(c)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(c >> 4))
                out.append(hexDigit(c & 15))
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An ASCII hex digit (also `ServiceRootRules`' check of escapes and IPv6 literals).
    static func isHex(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 48 + v : 55 + v }

    /// RFC 3986 unreserved and reserved characters (the `%` case is handled by the caller).
    private static func isAllowed(_ c: UInt8) -> Bool { allowedTable[Int(c)] }

    /// `isAllowedSlow` for every byte value, computed once.
    private static let allowedTable: [Bool] = (0..<256).map { isAllowedSlow(UInt8($0)) }

    private static func isAllowedSlow(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~:/?#[]@!$&'()*+,;=".utf8.contains(c)
        }
    }
}
