/// Reads the error object of a failed OData response. Pure and thread-safe.
///
/// Accepted shapes:
/// - V4 JSON `{"error": {"code", "message", "target", "details": [...]}}`,
/// - V2 JSON `{"error": {"code", "message": {"lang", "value"}}}`,
/// - V3 JSON light `{"odata.error": {...}}` (same members as V2),
/// - XML `<m:error><m:code/><m:message/></m:error>` in the V2 (`.../2007/08/dataservices/metadata`)
///   or V4 (`http://docs.oasis-open.org/odata/ns/metadata`) namespace, with `m:innererror` ignored.
public enum ErrorBodyDecoder {
    /// The error detail, or nil when the body is not an OData error (callers then fall back to
    /// the HTTP status text). Never throws: a broken error body is simply not an OData error.
    public static func decode(_ body: [UInt8], contentType: String?) -> ODataErrorDetail? {
        switch MediaType.classify(contentType, body: body) {
        case .json: return decodeJSON(body)
        case .xml: return decodeXML(body)
        case .other:
            // Some servers label error bodies text/plain; try JSON, then XML, by the first byte.
            switch MediaType.classify(nil, body: body) {
            case .json: return decodeJSON(body)
            default: return decodeXML(body)
            }
        }
    }

    static func decodeJSON(_ body: [UInt8]) -> ODataErrorDetail? {
        guard let root = try? JSONValue.parse(body, options: .init(maxDepth: 64, duplicateKeys: .keepLast)),
              let error = root["error"] ?? root["odata.error"], case .object = error else { return nil }
        return detail(error)
    }

    static func detail(_ e: JSONValue) -> ODataErrorDetail? {
        let code = text(e["code"]) ?? ""
        var message = ""
        switch e["message"] {
        case .string(let m)?: message = m
        case .object(let o)?: message = text(o["value"]) ?? ""
        default: break
        }
        guard !(code.isEmpty && message.isEmpty) || e["details"] != nil else { return nil }
        let details = (e["details"]?.arrayValue ?? []).compactMap { detail($0) }
        return ODataErrorDetail(code: code, message: message, target: text(e["target"]), details: details)
    }

    private static func text(_ v: JSONValue?) -> String? {
        switch v {
        case .string(let s)?: return s
        case .number(let n)?: return n
        default: return nil
        }
    }

    static let metadataNamespaces: Set<String> = [
        "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata",
        "http://docs.oasis-open.org/odata/ns/metadata",
    ]

    static func decodeXML(_ body: [UInt8]) -> ODataErrorDetail? {
        guard let doc = try? XMLDocument.parse(body), doc.root.name == "error",
              metadataNamespaces.contains(doc.root.namespace) else { return nil }
        let ns = doc.root.namespace
        let code = doc.root.child("code", namespace: ns)?.allText ?? ""
        let message = doc.root.child("message", namespace: ns)?.allText ?? ""
        let target = doc.root.child("target", namespace: ns)?.allText
        var details: [ODataErrorDetail] = []
        if let ds = doc.root.child("details", namespace: ns) {
            for d in ds.children where d.name == "detail" {
                details.append(ODataErrorDetail(code: d.child("code", namespace: ns)?.allText ?? "",
                                                message: d.child("message", namespace: ns)?.allText ?? "",
                                                target: d.child("target", namespace: ns)?.allText))
            }
        }
        return ODataErrorDetail(code: code, message: message, target: target, details: details)
    }
}
