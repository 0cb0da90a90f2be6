import ODataProtocol
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
