/// Parses a request URL (absolute, absolute-path or relative to the service root) into a
/// `ResourceRequest` without looking at any schema. See `ResourceRequestChecker` for the
/// schema-checked parse.
///
/// Errors are `URLParseError`s whose position is the 0-based character offset in the URL
/// string given to `parse`, also for errors inside percent-encoded `$filter` values.
/// Value type, `Sendable`: share one configured parser between threads freely.
public struct ResourceRequestParser: Sendable {
    /// Dialect: `.v2`/`.v4` accept only their own syntax; nil accepts both.
    public var version: ODataVersion?
    /// The service root (`https://host/sap/opu/odata/IWFND/RMTSAMPLEFLIGHT/`, or an absolute
    /// path); absolute URLs and absolute paths must lie under it.
    public var serviceRoot: ServiceRoot?
    /// Decode `+` as a space (off by default: `+` is a literal plus, see `PercentDecoding`).
    public var plusAsSpace: Bool
    public var limits: ParserLimits
    /// Names that may start a resource path (entity sets, singletons, operation imports):
    /// used to find the service root in an absolute URL when `serviceRoot` is nil.
    public var knownRootNames: Set<String>

    public init(version: ODataVersion? = nil, serviceRoot: ServiceRoot? = nil, plusAsSpace: Bool = false,
                limits: ParserLimits = .default, knownRootNames: Set<String> = []) {
        self.version = version
        self.serviceRoot = serviceRoot
        self.plusAsSpace = plusAsSpace
        self.limits = limits
        self.knownRootNames = knownRootNames
    }

    public func parse(_ url: String) throws(URLParseError) -> ResourceRequest {
        let raw = Array(url.utf8)
        let table = PositionTable(url)
        do {
            return try parseRaw(raw, table)
        } catch {
            // Internal errors carry raw byte offsets; report characters.
            throw URLParseError(error.message, at: table.character(atByte: error.position))
        }
    }

    // MARK: - Splitting

    private func parseRaw(_ raw: [UInt8], _ table: PositionTable) throws(URLParseError) -> ResourceRequest {
        let end = raw.firstIndex(of: UInt8(ascii: "#")) ?? raw.count
        let query = raw[0..<end].firstIndex(of: UInt8(ascii: "?"))
        let pathEnd = query ?? end
        var pathStart = 0
        var absolute = false
        if let authority = URLAuthority.parse(raw, end: pathEnd) {
            absolute = true
            pathStart = authority.end
            if let root = serviceRoot {
                if let s = root.scheme, s != authority.scheme {
                    throw URLParseError("URL scheme does not match the service root \(root.text)", at: 0)
                }
                if let h = root.host, h != authority.host || root.port != authority.port {
                    throw URLParseError("URL host does not match the service root \(root.text)", at: 0)
                }
            }
        }
        var ranges = URLAuthority.segmentRanges(raw, from: pathStart, to: pathEnd, parentheses: version != .v2)
        var trailingSlash: Int? = nil
        if let last = ranges.last, last.isEmpty {
            trailingSlash = last.lowerBound - 1
            ranges.removeLast()
        }
        let rooted = absolute || raw.first == UInt8(ascii: "/")
        if rooted {
            let skip = try rootSegmentCount(raw, ranges, absolute: absolute, at: pathStart, trailingSlash: trailingSlash != nil)
            ranges.removeFirst(skip)
        }
        // A trailing slash belongs to the service root (`…/service/`); a resource path does
        // not end in one (`Products(1)/`).
        if let slash = trailingSlash, !ranges.isEmpty {
            throw URLParseError("a resource path does not end in '/'", at: slash)
        }
        var segments: [PathSegment] = []
        for (index, range) in ranges.enumerated() {
            segments.append(try parseSegment(raw, range, index: index, table))
        }
        try validatePath(segments, ranges)
        var options = QueryOptions()
        var optionStarts: [String: Int] = [:]
        if let q = query {
            // `id=` without `$` is `$id` only where an id belongs: `$entity`, `…/$ref`.
            let idAllowed = segments.first?.role == .entity || segments.last?.role == .ref
            options = try parseQuery(raw, from: q + 1, to: end, table, &optionStarts, idAllowed: idAllowed)
        }
        try validateOptions(segments, options, optionStarts, urlEnd: end)
        return ResourceRequest(segments: segments, options: options)
    }

    private func decodedName(_ raw: [UInt8], _ r: Range<Int>) -> String {
        guard let d = try? PercentDecoding.decode(raw, from: r.lowerBound, to: r.upperBound, plusAsSpace: false) else { return "" }
        let text = d.text
        if let paren = text.firstIndex(of: "(") { return String(text[..<paren]) }
        return text
    }

    /// How many leading segments of a rooted URL belong to the service root.
    private func rootSegmentCount(_ raw: [UInt8], _ ranges: [Range<Int>], absolute: Bool, at pathStart: Int,
                                  trailingSlash: Bool) throws(URLParseError) -> Int {
        if let root = serviceRoot {
            for (i, name) in root.pathSegments.enumerated() {
                guard i < ranges.count else {
                    throw URLParseError("URL is not under the service root \(root.text)", at: pathStart)
                }
                let r = ranges[i]
                let d = try PercentDecoding.decode(raw, from: r.lowerBound, to: r.upperBound, plusAsSpace: false)
                guard d.text == name else {
                    throw URLParseError("URL is not under the service root \(root.text) (expected '\(name)')", at: r.lowerBound)
                }
            }
            return root.pathSegments.count
        }
        let reserved: Set<String> = ["$metadata", "$batch", "$all", "$entity", "$crossjoin"]
        if !knownRootNames.isEmpty {
            for (i, r) in ranges.enumerated() {
                let name = decodedName(raw, r)
                if knownRootNames.contains(name) || reserved.contains(name) { return i }
            }
        }
        if !absolute { return 0 }
        for (i, r) in ranges.enumerated() where decodedName(raw, r).hasSuffix(".svc") { return i + 1 }
        for (i, r) in ranges.enumerated() where reserved.contains(decodedName(raw, r)) { return i }
        // A URL that ends in '/' is a service root (ABNF serviceRoot): the service document.
        if trailingSlash || ranges.isEmpty { return ranges.count }
        throw URLParseError("cannot tell where the service root ends in an absolute URL; give the service root", at: pathStart)
    }

    // MARK: - Path segments

    private static let dollarSegments: [String: PathSegment.Role] = [
        "$metadata": .metadata, "$batch": .batch, "$count": .count, "$value": .value, "$ref": .ref,
        "$links": .links, "$all": .all, "$entity": .entity, "$each": .each, "$query": .query,
    ]

    /// Roles of `$` segments that only V4 has, and V2's `$links`.
    private static let v4Only: Set<PathSegment.Role> = [.ref, .all, .entity, .each, .query, .filter, .crossjoin]

    private func parseSegment(_ raw: [UInt8], _ range: Range<Int>, index: Int, _ table: PositionTable) throws(URLParseError) -> PathSegment {
        let comp = try PercentDecoding.decode(raw, from: range.lowerBound, to: range.upperBound, plusAsSpace: plusAsSpace)
        guard !comp.bytes.isEmpty else { throw URLParseError("empty path segment", at: range.lowerBound) }
        let position = table.character(atByte: range.lowerBound)
        // Only a filter segment's expression may hold a literal '/' (its member paths); in a
        // key predicate or parameter value it must be written %2F (4.01 Part 2, 2.1).
        if !comp.bytes.starts(with: Array("$filter(".utf8)), let slash = raw[range].firstIndex(of: UInt8(ascii: "/")) {
            throw URLParseError("a '/' in a key or parameter value must be percent-encoded (%2F)", at: slash)
        }
        do throws(URLParseError) {
            return try parseNamedSegment(comp, index: index, position: position, table)
        } catch {
            // Key-as-segment (4.01 Part 2, 4.3.6): `Customers/1`, `People/O'Neil`. A segment
            // with parentheses or a `$` is never a key here: its own error is more useful.
            if index > 0, version != .v2, comp.bytes.first != UInt8(ascii: "$"),
               !comp.bytes.contains(UInt8(ascii: "(")), !comp.bytes.contains(UInt8(ascii: ")")) {
                return PathSegment(name: comp.text, role: .key, position: position)
            }
            throw URLParseError(error.message, at: comp.rawOffset(ofDecoded: error.position))
        }
    }

    /// `name`, `name(args)`, V4 `name(args)(key)`, the `$` segments, `$filter(expr)[(key)]`,
    /// `$crossjoin(A,B)`. Errors carry decoded offsets.
    private func parseNamedSegment(_ comp: DecodedComponent, index: Int, position: Int, _ table: PositionTable) throws(URLParseError) -> PathSegment {
        var p = try ExpressionParser(bytes: comp.bytes, version: version, limits: limits)
        p.positionMap = { table.character(atByte: comp.rawOffset(ofDecoded: $0)) }
        p.encoded = comp.encoded
        guard case .identifier(let name) = p.current.kind, !name.hasPrefix("@"), !name.hasSuffix(".*") else {
            throw p.error("a path segment name")
        }
        try p.advance()
        var segment = PathSegment(name: name, position: position)
        if name == "$filter" && version != .v2 && index > 0 {
            guard p.current.kind == .lparen else { throw p.error("'(' and a Boolean expression after $filter") }
            let open = p.current.start
            try p.advance()
            try p.enter(at: open)
            segment.filter = try p.parseExpression()
            try p.expect(.rparen, "')'")
            p.leave()
            segment.role = .filter
            if p.current.kind == .lparen { segment.key = try p.parseArguments() }
        } else if name == "$crossjoin" && version != .v2 {
            guard index == 0 else { throw URLParseError("$crossjoin must be the first segment", at: 0) }
            try p.expect(.lparen, "'(' and entity sets after $crossjoin")
            var sets: [String] = []
            repeat {
                if !sets.isEmpty { try p.advance() }
                guard case .identifier(let n) = p.current.kind, ExpressionParser.isPlainIdentifier(n) else {
                    throw p.error("an entity set name")
                }
                sets.append(n)
                try p.advance()
            } while p.current.kind == .comma
            try p.expect(.rparen, "',' or ')'")
            segment.role = .crossjoin
            segment.crossjoin = sets
        } else if name.hasPrefix("$") {
            if let r = Self.dollarSegments[name], version != .v2 || !Self.v4Only.contains(r), version != .v4 || r != .links {
                segment.role = r
            } else if index == 0 && name.count > 1 && !name.dropFirst().contains(".") {
                segment.role = .contentID
            } else if name == "$links" {
                throw URLParseError("$links is V2; V4 uses $ref", at: 0)
            } else if name == "$ref" {
                throw URLParseError("$ref is V4; V2 uses $links", at: 0)
            } else {
                throw URLParseError("unknown path segment '\(name)'", at: 0)
            }
            if p.current.kind == .lparen { throw URLParseError("'\(name)' takes no parentheses", at: name.utf8.count) }
        } else if p.current.kind == .lparen {
            segment.arguments = try p.parseArguments()
            if p.current.kind == .lparen {
                guard version != .v2 else { throw p.error("end of path segment") }
                segment.key = try p.parseArguments()
            }
        }
        guard p.current.kind == .eof else { throw p.error("end of path segment") }
        return segment
    }

    /// The path's grammar without a model: where the `$` segments may stand and what may
    /// follow them (4.01 ABNF `odataRelativeUri`, `resourcePath`; V2 URI Conventions 3).
    private func validatePath(_ segments: [PathSegment], _ ranges: [Range<Int>]) throws(URLParseError) {
        func fail(_ message: String, _ i: Int) -> URLParseError {
            URLParseError(message, at: i < ranges.count ? ranges[i].lowerBound : (ranges.last?.upperBound ?? 0))
        }
        for (i, s) in segments.enumerated() {
            let last = i == segments.count - 1
            let name = s.role == .unresolved || s.role == .key ? "'\(s.name)'" : s.name
            switch s.role {
            case .metadata, .batch:
                if i > 0 { throw fail("\(s.name) must be the first segment", i) }
                if !last { throw fail("nothing may follow \(s.name)", i + 1) }
            case .entity, .all:
                if i > 0 { throw fail("\(s.name) must be the first segment", i) }
                if !last {
                    let next = segments[i + 1]
                    guard next.role == .unresolved, next.name.contains("."), next.arguments == nil, next.key == nil else {
                        throw fail("only a type cast (a qualified entity type name) may follow \(s.name)", i + 1)
                    }
                    if i + 2 < segments.count { throw fail("nothing may follow the type cast after \(s.name)", i + 2) }
                }
            case .crossjoin:
                if !last && (segments[i + 1].role != .query) { throw fail("only $query may follow $crossjoin(…)", i + 1) }
            case .count, .value, .ref, .query:
                if i == 0 { throw fail("\(s.name) cannot start a resource path", i) }
                if !last { throw fail("nothing may follow \(s.name)", i + 1) }
            case .links:
                if i == 0 { throw fail("$links cannot start a resource path", i) }
                guard !last, segments[i + 1].role == .unresolved, !segments[i + 1].name.contains(".") else {
                    throw fail("$links must be followed by a navigation property", i + 1)
                }
                if i + 2 < segments.count { throw fail("nothing may follow '\(segments[i + 1].name)'", i + 2) }
            case .each:
                if i == 0 { throw fail("$each cannot start a resource path", i) }
                if !last && segments[i + 1].role != .unresolved { throw fail("only a bound action or function may follow $each", i + 1) }
            case .filter, .key:
                if i == 0 { throw fail("\(name) cannot start a resource path", i) }
            case .unresolved:
                if i == 0 && s.name.contains(".") {
                    throw fail("a resource path cannot start with a qualified name (a bound action or function needs the resource it is bound to)", i)
                }
            default:
                break
            }
        }
    }

    // MARK: - Query options

    private func parseQuery(_ raw: [UInt8], from start: Int, to end: Int, _ table: PositionTable,
                            _ starts: inout [String: Int], idAllowed: Bool) throws(URLParseError) -> QueryOptions {
        var options = QueryOptions()
        var i = start
        while i <= end {
            var j = i
            while j < end && raw[j] != UInt8(ascii: "&") { j += 1 }
            if j > i {
                var eq = i
                while eq < j && raw[eq] != UInt8(ascii: "=") { eq += 1 }
                let name = try PercentDecoding.decode(raw, from: i, to: eq, plusAsSpace: plusAsSpace)
                let value = try PercentDecoding.decode(raw, from: min(eq + 1, j), to: j, plusAsSpace: plusAsSpace)
                try apply(name.text, at: i, hasEquals: eq < j, value, to: &options, starts: &starts, table, idAllowed: idAllowed)
            }
            i = j + 1
        }
        return options
    }

    /// System query options of each dialect (4.01 ABNF `systemQueryOption`; V2 URI
    /// Conventions 4.1).
    static let v4Options: Set<String> = [
        "$filter", "$orderby", "$top", "$skip", "$count", "$select", "$expand", "$search", "$format",
        "$skiptoken", "$deltatoken", "$apply", "$compute", "$index", "$id", "$schemaversion",
    ]
    static let v2Options: Set<String> = [
        "$filter", "$orderby", "$top", "$skip", "$inlinecount", "$select", "$expand", "$format", "$skiptoken",
    ]

    /// The canonical name of a system query option, or nil for a custom option or alias. V4
    /// names compare without case and may omit the `$` (4.01 Part 2, 5); V2 names are as
    /// written. `id` without `$` is a custom option unless `idAllowed` (with `$entity` and
    /// `$ref`; elsewhere URLs rarely mean the entity id by it).
    func systemOptionName(_ name: String, idAllowed: Bool = false) -> String? {
        if name.hasPrefix("@") { return nil }
        if version == .v2 { return name.hasPrefix("$") ? name : nil }
        let canonical = ExpressionParser.systemOptionName(name, version: version)
        if name.hasPrefix("$") { return canonical }
        guard Self.v4Options.contains(canonical), canonical != "$id" || idAllowed else { return nil }
        return canonical
    }

    private func apply(_ name: String, at nameStart: Int, hasEquals: Bool, _ value: DecodedComponent, to options: inout QueryOptions,
                       starts: inout [String: Int], _ table: PositionTable, idAllowed: Bool) throws(URLParseError) {
        guard !name.isEmpty else { throw URLParseError("empty query option name", at: nameStart) }
        let system = systemOptionName(name, idAllowed: idAllowed)
        if let system {
            let known = version == .v2 ? Self.v2Options : version == .v4 ? Self.v4Options : Self.v4Options.union(Self.v2Options)
            guard known.contains(system) else {
                throw URLParseError("unknown system query option '\(name)'", at: nameStart)
            }
            // "The same system query option, irrespective of casing or whether or not it is
            // prefixed with a $, MUST NOT be specified more than once" (4.01 Part 2, 5).
            guard starts[system] == nil else { throw URLParseError("duplicate query option \(system)", at: nameStart) }
            if (system == "$count" && starts["$inlinecount"] != nil) || (system == "$inlinecount" && starts["$count"] != nil) {
                throw URLParseError("\(system) given with \(system == "$count" ? "$inlinecount" : "$count")", at: nameStart)
            }
            starts[system] = nameStart
        } else if name.hasPrefix("@") && version != .v2 {
            guard starts[name] == nil else { throw URLParseError("duplicate query option \(name)", at: nameStart) }
            starts[name] = nameStart
        }
        func parser() throws(URLParseError) -> ExpressionParser {
            var p = try ExpressionParser(bytes: value.bytes, version: version, limits: limits)
            p.positionMap = { table.character(atByte: value.rawOffset(ofDecoded: $0)) }
            p.encoded = value.encoded
            return p
        }
        func requireValue() throws(URLParseError) {
            // Offsets inside the do block are decoded offsets of the value.
            if value.bytes.isEmpty { throw URLParseError("empty value for \(name)", at: hasEquals ? 0 : -1) }
        }
        /// Expression values have no leading or trailing whitespace (4.01 ABNF `filter = "$filter"
        /// EQ boolCommonExpr`, V2 alike; only `$search` allows BWS).
        func requireTrimmed() throws(URLParseError) {
            guard let f = value.bytes.first, let l = value.bytes.last else { return }
            if f == 0x20 || f == 0x09 { throw URLParseError("unexpected whitespace at the start of \(name)", at: 0) }
            if l == 0x20 || l == 0x09 { throw URLParseError("unexpected whitespace at the end of \(name)", at: value.bytes.count - 1) }
        }
        do throws(URLParseError) {
            switch system {
            case "$filter"?:
                try requireValue(); try requireTrimmed()
                var p = try parser()
                options.filter = try p.parseExpression()
                try p.expectEnd()
            case "$orderby"?:
                try requireValue(); try requireTrimmed()
                var p = try parser()
                options.orderBy = try p.parseOrderByItems()
                try p.expectEnd()
            case "$select"?:
                try requireValue(); try requireTrimmed()
                var p = try parser()
                options.select = try p.parseSelectItems()
                try p.expectEnd()
            case "$expand"?:
                try requireValue(); try requireTrimmed()
                var p = try parser()
                options.expand = try p.parseExpandItems()
                try p.expectEnd()
            case "$compute"?:
                try requireValue(); try requireTrimmed()
                var p = try parser()
                options.compute = try p.parseComputeItems()
                try p.expectEnd()
            case "$apply"?:
                try requireValue(); try requireTrimmed()
                var p = try parser()
                options.apply = try p.parseApply()
                try p.expectEnd()
            case "$search"?:
                try requireValue()
                var p = SearchParser(value.bytes, from: 0, to: value.bytes.count, encoded: value.encoded, limits: limits)
                options.search = try p.parseAll()
            case "$top"?, "$skip"?:
                // The ABNF's 1*DIGIT has no bound: a count beyond Int.max means as many as
                // there are (the service answers it), so it is kept as Int.max.
                guard let n = Self.saturatingCount(value.bytes) else {
                    throw URLParseError("expected a non-negative integer for \(name)", at: hasEquals ? 0 : -1)
                }
                if system == "$top" { options.top = n } else { options.skip = n }
            case "$index"?:
                var digits = value.bytes[...]
                if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
                guard let n = Self.nonNegativeInteger(Array(digits)) else {
                    throw URLParseError("expected an integer for \(name)", at: hasEquals ? 0 : -1)
                }
                options.index = value.bytes.first == UInt8(ascii: "-") ? -n : n
            case "$inlinecount"?:
                switch value.text {
                case "allpages": options.count = true
                case "none": options.count = false
                default: throw URLParseError("expected allpages or none for $inlinecount", at: hasEquals ? 0 : -1)
                }
            case "$count"?:
                switch version == .v2 ? value.text : value.text.lowercased() {
                case "true": options.count = true
                case "false": options.count = false
                default: throw URLParseError("expected true or false for $count", at: hasEquals ? 0 : -1)
                }
            case "$skiptoken"?:
                try requireValue()
                options.skipToken = value.text
            case "$format"?:
                try requireValue()
                options.format = value.text
            case "$id"?:
                try requireValue()
                options.id = value.text
            case "$deltatoken"?, "$schemaversion"?:
                try requireValue()
                options.otherSystemOptions.append(CustomOption(name: system ?? name, value: value.text))
            default:
                if name.hasPrefix("@") && version != .v2 {
                    guard name.count > 1, ExpressionParser.isPlainIdentifier(String(name.dropFirst())) else {
                        throw URLParseError("invalid parameter alias name '\(name)' (an alias is @ and an identifier)", at: -1)
                    }
                    try requireValue(); try requireTrimmed()
                    var p = try parser()
                    let e = try p.parseExpression()
                    try p.expectEnd()
                    options.aliases.append(ParameterAlias(name: String(name.dropFirst()), value: e))
                } else {
                    options.customOptions.append(CustomOption(name: name, value: value.text))
                }
            }
        } catch {
            if error.position < 0 { throw URLParseError(error.message, at: nameStart) }
            throw URLParseError(error.message, at: value.rawOffset(ofDecoded: error.position))
        }
    }

    /// What the path says about the options: `$entity` needs `$id`, and takes `$select` and
    /// `$expand` only after a type cast (4.01 ABNF `entityOptions`, `entityCastOptions`).
    private func validateOptions(_ segments: [PathSegment], _ o: QueryOptions, _ starts: [String: Int], urlEnd: Int) throws(URLParseError) {
        guard segments.first?.role == .entity else { return }
        guard o.id != nil else { throw URLParseError("$entity needs $id (the entity's id)", at: urlEnd) }
        let cast = segments.count > 1
        let allowed: Set<String> = cast ? ["$id", "$format", "$select", "$expand"] : ["$id", "$format"]
        for (name, start) in starts.sorted(by: { $0.value < $1.value }) where name.hasPrefix("$") && !allowed.contains(name) {
            throw URLParseError(cast ? "\(name) is not allowed with $entity" : "\(name) with $entity needs a type cast ($entity/NS.Type)", at: start)
        }
    }

    /// The digits `b` as a count ($top, $skip), Int.max when they are more than that; nil
    /// unless `b` is one or more ASCII digits.
    static func saturatingCount<Digits: Collection<UInt8>>(_ b: Digits) -> Int? {
        guard !b.isEmpty else { return nil }
        var n = 0
        for d in b {
            guard d >= 0x30 && d <= 0x39 else { return nil }
            let (times10, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(d &- 0x30))
            n = o1 || o2 ? Int.max : sum
        }
        return n
    }

    static func nonNegativeInteger(_ b: [UInt8]) -> Int? {
        guard !b.isEmpty, b.count < 19, b.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(String(decoding: b, as: UTF8.self))
    }
}

extension ResourceRequestParser {
    /// Parses `url` and checks it against `model` (see `ResourceRequestChecker`). The model's
    /// version is used when `version` is nil, and its entity sets and operation imports help
    /// find the service root in absolute URLs when `serviceRoot` is nil.
    public func parse(_ url: String, checkingAgainst model: ServiceModel) throws(URLParseError) -> ResourceRequest {
        var p = self
        if p.version == nil { p.version = model.version }
        if p.knownRootNames.isEmpty {
            p.knownRootNames = Set(model.entitySets.keys).union(model.operationImports.keys)
        }
        return try ResourceRequestChecker(model: model).check(p.parse(url))
    }
}
