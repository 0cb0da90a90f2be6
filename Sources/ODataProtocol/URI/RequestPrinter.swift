/// Prints a `ResourceRequest` as its canonical URL relative to the service root.
///
/// Canonical means: path segments as parsed (key predicates and parameters in the version's
/// literal spelling; after the schema check key segments are folded into parentheses,
/// `Customers/1` → `Customers(1)`), then the query options in a fixed order — V2
/// function-import parameters, `$apply`, `$compute`, `$filter`, `$expand`, `$select`,
/// `$orderby`, `$top`, `$skip`, `$count`/`$inlinecount`, `$search`, `$index`, `$id`,
/// `$skiptoken`, `$format`, other `$` options, parameter aliases, custom options — under their
/// canonical names (`$` and lower case), with expressions printed by `FilterPrinter` and
/// everything percent-encoded by `PercentEncoding` (space as `%20`, `+` as `%2B`; inside
/// nested options and `$search` also `;` as `%3B`). Parsing the output with the same version
/// gives an equal request.
public enum RequestPrinter {
    public static func canonicalURL(_ r: ResourceRequest, version: ODataVersion?) -> String {
        var pairs: [String] = []
        var path: [String] = []
        for s in r.segments {
            var text = s.name
            switch s.role {
            case .filter:
                text = "$filter(" + (s.filter.map { FilterPrinter.print($0, version: version) } ?? "") + ")"
            case .crossjoin:
                text = "$crossjoin(" + (s.crossjoin ?? []).joined(separator: ",") + ")"
            default:
                break
            }
            if let args = s.arguments {
                if s.role == .operationImport && version == .v2 {
                    for a in args.namedArguments ?? [] {
                        pairs.append(PercentEncoding.encode(a.name, .queryName) + "="
                            + PercentEncoding.encode(ArgumentPrinter.value(a.value, version), .queryValue))
                    }
                } else {
                    text += ArgumentPrinter.print(args, version: version)
                }
            }
            if let key = s.key { text += ArgumentPrinter.print(key, version: version) }
            path.append(PercentEncoding.encode(text, .pathSegment))
        }
        pairs += encodedOptionPairs(r.options, version: version)
        var url = path.joined(separator: "/")
        if !pairs.isEmpty { url += "?" + pairs.joined(separator: "&") }
        return url
    }

    /// Decoded `name=value` pairs of the top-level options, in canonical order.
    public static func optionPairs(_ o: QueryOptions, version: ODataVersion?) -> [(String, String)] {
        optionList(o, version, encoded: false)
    }

    /// `name=value` texts of the top-level options, percent-encoded, in canonical order.
    static func encodedOptionPairs(_ o: QueryOptions, version: ODataVersion?) -> [String] {
        optionList(o, version, encoded: true).map { $0.0 + "=" + $0.1 }
    }

    /// The options in canonical order; with `encoded`, names and values are percent-encoded
    /// (`$expand` and `$select` encode their nested option values themselves).
    static func optionList(_ o: QueryOptions, _ version: ODataVersion?, encoded: Bool) -> [(String, String)] {
        var pairs: [(String, String)] = []
        func add(_ name: String, _ value: String, _ context: PercentEncoding.Context = .queryValue) {
            if encoded {
                pairs.append((PercentEncoding.encode(name, .queryName), PercentEncoding.encode(value, context)))
            } else {
                pairs.append((name, value))
            }
        }
        func addPreEncoded(_ name: String, _ value: String) {
            pairs.append((encoded ? PercentEncoding.encode(name, .queryName) : name, value))
        }
        if let a = o.apply { add("$apply", ApplyPrinter.print(a, version), .nestedValue) }
        if let c = o.compute { add("$compute", computeText(c, version)) }
        if let f = o.filter { add("$filter", FilterPrinter.print(f, version: version)) }
        if let e = o.expand { addPreEncoded("$expand", expandText(e, version, encoded: encoded)) }
        if let s = o.select { addPreEncoded("$select", selectText(s, version, encoded: encoded)) }
        if let ob = o.orderBy { add("$orderby", orderByText(ob, version)) }
        if let t = o.top { add("$top", String(t)) }
        if let s = o.skip { add("$skip", String(s)) }
        if let c = o.count {
            if version == .v2 {
                add("$inlinecount", c ? "allpages" : "none")
            } else {
                add("$count", c ? "true" : "false")
            }
        }
        if let s = o.search { add("$search", SearchPrinter.print(s), .nestedValue) }
        if let i = o.index { add("$index", String(i)) }
        if let i = o.id { add("$id", i) }
        if let s = o.skipToken { add("$skiptoken", s) }
        if let f = o.format { add("$format", f) }
        for x in o.otherSystemOptions { add(x.name, x.value) }
        for a in o.aliases { add("@" + a.name, FilterPrinter.print(a.value, version: version)) }
        for c in o.customOptions { add(c.name, c.value) }
        return pairs
    }

    public static func orderByText(_ items: [OrderByItem], _ version: ODataVersion?) -> String {
        items.map { FilterPrinter.print($0.expression, version: version) + ($0.descending ? " desc" : "") }
            .joined(separator: ",")
    }

    static func computeText(_ items: [ComputeItem], _ version: ODataVersion?) -> String {
        items.map { FilterPrinter.print($0.expression, version: version) + " as " + $0.alias }.joined(separator: ",")
    }

    public static func selectText(_ items: [SelectItem]) -> String {
        selectText(items, nil, encoded: false)
    }

    static func selectText(_ items: [SelectItem], _ version: ODataVersion?, encoded: Bool) -> String {
        items.map { item in
            var s = item.path.joined(separator: "/")
            if encoded { s = PercentEncoding.encode(s, .queryValue) }
            if let p = item.parameters { s += "(" + p.map { encoded ? PercentEncoding.encode($0, .queryValue) : $0 }.joined(separator: ",") + ")" }
            let nested = nestedOptions(item.options, version, encoded: encoded)
            if !nested.isEmpty { s += "(" + nested + ")" }
            return s
        }.joined(separator: ",")
    }

    public static func expandText(_ items: [ExpandItem], _ version: ODataVersion?) -> String {
        expandText(items, version, encoded: false)
    }

    static func expandText(_ items: [ExpandItem], _ version: ODataVersion?, encoded: Bool) -> String {
        items.map { item in
            var s = item.path.joined(separator: "/")
            if encoded { s = PercentEncoding.encode(s, .queryValue) }
            if item.isRef { s += "/$ref" }
            if item.isCount { s += "/$count" }
            let nested = nestedOptions(item.options, version, encoded: encoded)
            if !nested.isEmpty { s += "(" + nested + ")" }
            return s
        }.joined(separator: ",")
    }

    /// `$name=value;…` inside `$expand`/`$select` parentheses; with `encoded`, each value is
    /// percent-encoded on its own (a `;` inside a value as `%3B`).
    static func nestedOptions(_ o: QueryOptions, _ version: ODataVersion?, encoded: Bool) -> String {
        var parts: [String] = []
        func add(_ name: String, _ value: String) {
            parts.append(name + "=" + (encoded ? PercentEncoding.encode(value, .nestedValue) : value))
        }
        if let a = o.apply { add("$apply", ApplyPrinter.print(a, version)) }
        if let c = o.compute { add("$compute", computeText(c, version)) }
        if let f = o.filter { add("$filter", FilterPrinter.print(f, version: version)) }
        if let e = o.expand { parts.append("$expand=" + expandText(e, version, encoded: encoded)) }
        if let s = o.select { parts.append("$select=" + selectText(s, version, encoded: encoded)) }
        if let ob = o.orderBy { add("$orderby", orderByText(ob, version)) }
        if let t = o.top { add("$top", String(t)) }
        if let s = o.skip { add("$skip", String(s)) }
        if let c = o.count { add("$count", c ? "true" : "false") }
        if let s = o.search { add("$search", SearchPrinter.print(s)) }
        if let l = o.levels {
            switch l {
            case .max: add("$levels", "max")
            case .count(let n): add("$levels", String(n))
            }
        }
        for a in o.aliases { add("@" + a.name, FilterPrinter.print(a.value, version: version)) }
        return parts.joined(separator: ";")
    }
}
