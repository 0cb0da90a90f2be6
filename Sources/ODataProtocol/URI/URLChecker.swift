/// The one entry point behind `odatastore parse` (and the C function `ods_url_check` the lead
/// wraps around it): parse a request URL, check it against a model when one is given, and
/// describe the result as JSON.
///
/// Pure and thread-safe: no I/O, no shared state.
public enum URLChecker {
    /// - Parameters:
    ///   - url: absolute URL, absolute path, or path relative to the service root.
    ///   - model: when given, the request is checked against it (`ResourceRequestChecker`).
    ///   - version: the dialect; nil means the model's version, or both dialects without a model.
    ///   - serviceRoot: the service root URL (required for absolute URLs unless the model or a
    ///     `.svc` segment tells where the resource path starts).
    ///   - plusAsSpace: decode `+` as a space (off: `+` is a literal plus).
    /// - Returns: the JSON description (see docs/cli.md), or the error with its character
    ///   position in `url` (position 0 for a malformed service root).
    public static func check(_ url: String, model: ServiceModel? = nil, version: ODataVersion? = nil,
                             serviceRoot: String? = nil, plusAsSpace: Bool = false) -> Result<String, URLParseError> {
        var parser = ResourceRequestParser(version: version ?? model?.version, plusAsSpace: plusAsSpace)
        if let serviceRoot {
            guard let root = ServiceRoot(serviceRoot) else {
                return .failure(URLParseError("service root must be an http(s) URL or an absolute path: \(serviceRoot)", at: 0))
            }
            parser.serviceRoot = root
        }
        do {
            let request: ResourceRequest
            if let model {
                request = try parser.parse(url, checkingAgainst: model)
            } else {
                request = try parser.parse(url)
            }
            return .success(RequestJSON.describe(request, version: parser.version, checked: model != nil))
        } catch {
            return .failure(error)
        }
    }
}
