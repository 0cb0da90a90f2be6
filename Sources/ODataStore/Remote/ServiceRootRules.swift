/// What a service root may look like: `http(s)://host[:port]/path/`, nothing else. Every
/// request URL is the root plus a path, so a fragment would swallow every path, a query would
/// end up in the middle of the URL, and credentials belong in the store's authentication
/// options (where they are sent only to this host), not in a URL that is echoed in messages.
enum ServiceRootRules {
    static func check(_ root: String) throws(ODataStoreError) {
        let shown = URLRedaction.redactingPassword(root)
        guard root.hasPrefix("http://") || root.hasPrefix("https://"), root.utf8.count > 8 else {
            throw .invalid("service_root must be an http:// or https:// URL, got \"\(shown)\"")
        }
        guard isValidHeaderValue(root), !root.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalid("service_root contains spaces or control characters")
        }
        guard !URLRedaction.hasUserinfo(root) else {
            throw .invalid("service_root must not contain user:password@; use the auth, username and password options")
        }
        guard !root.contains("#") else {
            throw .invalid("service_root must not contain a fragment ('#'): \"\(shown)\"")
        }
        guard !root.contains("?") else {
            throw .invalid("service_root must not contain a query ('?'); put query options in each request's path, or send them as headers (e.g. sap-client): \"\(shown)\"")
        }
        guard let origin = RequestURL.origin(of: root), origin.count > (root.hasPrefix("https") ? 8 : 7) else {
            throw .invalid("service_root has no host: \"\(shown)\"")
        }
        if let problem = authorityProblem(root) {
            throw .invalid("service_root has \(problem): \"\(shown)\"")
        }
    }

    /// What is wrong with the root's `host[:port]` (RFC 3986 3.2.2-3.2.3), or nil: an IP
    /// literal in brackets holds hex digits, ':' and '.' (and a "%25" zone); a name holds
    /// letters, digits, "-._~", percent escapes, sub-delims or non-ASCII bytes (an
    /// internationalized name); a port is at most five digits, 1-65535. Checked here so a
    /// malformed root fails `open` with a message, not every request with libcurl's.
    static func authorityProblem(_ root: String) -> String? {
        let bytes = Array(root.utf8)
        guard let start = bytes.firstRange(of: Array("://".utf8))?.upperBound else { return "no host" }
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "/") { end += 1 }
        let authority = bytes[start..<end]
        var portStart: Int? = nil
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return "an IP literal without its ']'" }
            let literal = bytes[(start + 1)..<close]
            let address = literal[..<(literal.firstRange(of: Array("%25".utf8))?.lowerBound ?? literal.endIndex)]
            guard !address.isEmpty, address.contains(UInt8(ascii: ":")),
                  address.allSatisfy({ RequestURL.isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                return "an invalid IP literal"
            }
            if close + 1 < end {
                guard bytes[close + 1] == UInt8(ascii: ":") else { return "text after its IP literal" }
                portStart = close + 2
            }
        } else {
            let colon = authority.lastIndex(of: UInt8(ascii: ":"))
            let host = authority[..<(colon ?? end)]
            guard !host.isEmpty else { return "no host" }
            var i = host.startIndex
            while i < host.endIndex {
                let b = host[i]
                if b == UInt8(ascii: "%") {
                    guard i + 2 < host.endIndex, RequestURL.isHex(host[i + 1]), RequestURL.isHex(host[i + 2]) else {
                        return "a '%' in its host that is not an escape"
                    }
                    i += 3
                    continue
                }
                guard b >= 0x80 || isHostByte(b) else { return "a character not allowed in a host name" }
                i += 1
            }
            if let colon { portStart = colon + 1 }
        }
        if let portStart, portStart < end {
            let port = bytes[portStart..<end]
            guard port.count <= 5, port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let value = Int(String(decoding: port, as: UTF8.self)), (1...65535).contains(value) else {
                return "an invalid port (1-65535)"
            }
        }
        return nil
    }

    /// unreserved and sub-delims of RFC 3986 (reg-name, without the percent escapes).
    private static func isHostByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("-._~!$&'()*+,;=".utf8).contains(b)
        }
    }
}
