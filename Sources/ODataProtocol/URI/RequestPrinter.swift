/// Prints a `ResourceRequest` as its canonical URL relative to the service root.
///
/// Canonical means: path segments as parsed (key predicates and parameters in the version's
/// literal spelling), then the query options in a fixed order — V2 function-import parameters,
/// `$filter`, `$expand`, `$select`, `$orderby`, `$top`, `$skip`, `$count`/`$inlinecount`,
/// `$search`, `$skiptoken`, `$format`, other `$` options, parameter aliases, custom options —
/// with expressions printed by `FilterPrinter` and everything percent-encoded by
/// `PercentEncoding` (space as `%20`, `+` as `%2B`). Parsing the output with the same version
/// gives an equal request.
public enum RequestPrinter {
    public static func canonicalURL(_ r: ResourceRequest, version: ODataVersion?) -> String {
        var pairs: [(String, String)] = []
        var path: [String] = []
        for s in r.segments {
            var text = s.name
            if let args = s.arguments {
                if s.role == .operationImport && version == .v2 {
                    for a in args.namedArguments ?? [] { pairs.append((a.name, ArgumentPrinter.value(a.value, version))) }
                } else {
                    text += ArgumentPrinter.print(args, version: version)
                }
            }
            path.append(PercentEncoding.encode(text, .pathSegment))
        }
        pairs += optionPairs(r.options, version: version)
        var url = path.joined(separator: "/")
        if !pairs.isEmpty {
            url += "?" + pairs.map {
                PercentEncoding.encode($0.0, .queryName) + "=" + PercentEncoding.encode($0.1, .queryValue)
            }.joined(separator: "&")
        }
        return url
    }

    /// Decoded `name=value` pairs of the top-level options, in canonical order.
    public static func optionPairs(_ o: QueryOptions, version: ODataVersion?) -> [(String, String)] {
        var pairs: [(String, String)] = []
        if let f = o.filter { pairs.append(("$filter", FilterPrinter.print(f, version: version))) }
        if let e = o.expand { pairs.append(("$expand", expandText(e, version))) }
        if let s = o.select { pairs.append(("$select", selectText(s))) }
        if let ob = o.orderBy { pairs.append(("$orderby", orderByText(ob, version))) }
        if let t = o.top { pairs.append(("$top", String(t))) }
        if let s = o.skip { pairs.append(("$skip", String(s))) }
        if let c = o.count {
            if version == .v2 {
                pairs.append(("$inlinecount", c ? "allpages" : "none"))
            } else {
                pairs.append(("$count", c ? "true" : "false"))
            }
        }
        if let s = o.search { pairs.append(("$search", s)) }
        if let s = o.skipToken { pairs.append(("$skiptoken", s)) }
        if let f = o.format { pairs.append(("$format", f)) }
        for x in o.otherSystemOptions { pairs.append((x.name, x.value)) }
        for a in o.aliases { pairs.append(("@" + a.name, FilterPrinter.print(a.value, version: version))) }
        for c in o.customOptions { pairs.append((c.name, c.value)) }
        return pairs
    }

    public static func orderByText(_ items: [OrderByItem], _ version: ODataVersion?) -> String {
        items.map { FilterPrinter.print($0.expression, version: version) + ($0.descending ? " desc" : "") }
            .joined(separator: ",")
    }

    public static func selectText(_ items: [SelectItem]) -> String {
        items.map { $0.path.joined(separator: "/") }.joined(separator: ",")
    }

    public static func expandText(_ items: [ExpandItem], _ version: ODataVersion?) -> String {
        items.map { item in
            var s = item.path.joined(separator: "/")
            if item.isRef { s += "/$ref" }
            if item.isCount { s += "/$count" }
            let nested = nestedOptions(item.options, version)
            if !nested.isEmpty { s += "(" + nested + ")" }
            return s
        }.joined(separator: ",")
    }

    static func nestedOptions(_ o: QueryOptions, _ version: ODataVersion?) -> String {
        var parts: [String] = []
        if let f = o.filter { parts.append("$filter=" + FilterPrinter.print(f, version: version)) }
        if let e = o.expand { parts.append("$expand=" + expandText(e, version)) }
        if let s = o.select { parts.append("$select=" + selectText(s)) }
        if let ob = o.orderBy { parts.append("$orderby=" + orderByText(ob, version)) }
        if let t = o.top { parts.append("$top=\(t)") }
        if let s = o.skip { parts.append("$skip=\(s)") }
        if let c = o.count { parts.append("$count=\(c)") }
        if let s = o.search { parts.append("$search=" + s) }
        if let l = o.levels {
            switch l {
            case .max: parts.append("$levels=max")
            case .count(let n): parts.append("$levels=\(n)")
            }
        }
        return parts.joined(separator: ";")
    }
}
