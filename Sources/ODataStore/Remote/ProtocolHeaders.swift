/// The headers an OData client sends for each protocol version and request kind.
enum ProtocolHeaders {
    /// Accept for data requests: V4 minimal metadata with IEEE754-compatible numbers (our
    /// canonical shape, so little needs converting); V2 verbose JSON.
    static func accept(_ version: ODataVersion) -> String {
        switch version {
        case .v4: "application/json;odata.metadata=minimal;IEEE754Compatible=true"
        case .v2: "application/json"
        }
    }

    /// Accept for `$count` and `$value`, which answer with raw text or media.
    static let rawAccept = "text/plain, application/octet-stream;q=0.9, */*;q=0.8"

    static func version(_ version: ODataVersion) -> [(name: String, value: String)] {
        switch version {
        case .v4: [("OData-Version", "4.0"), ("OData-MaxVersion", "4.0")]
        case .v2: [("DataServiceVersion", "2.0"), ("MaxDataServiceVersion", "2.0")]
        }
    }

    static func authorization(_ auth: Authentication) -> (name: String, value: String)? {
        switch auth {
        case .none: nil
        case .basic(let user, let password): ("Authorization", "Basic " + Base64.encode(Array((user + ":" + password).utf8)))
        case .bearer(let token): ("Authorization", "Bearer " + token)
        }
    }
}

/// RFC 4648 base64 (for Basic authentication), without Foundation.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], 61, 61]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], 61]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
