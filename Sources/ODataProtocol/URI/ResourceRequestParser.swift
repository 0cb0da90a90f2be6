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
        var ranges = URLAuthority.segmentRanges(raw, from: pathStart, to: pathEnd)
        if let last = ranges.last, last.isEmpty { ranges.removeLast() }
        let rooted = absolute || raw.first == UInt8(ascii: "/")
        if rooted {
            let skip = try rootSegmentCount(raw, ranges, absolute: absolute, at: pathStart)
            ranges.removeFirst(skip)
        }
        var segments: [PathSegment] = []
        for (index, range) in ranges.enumerated() {
            segments.append(try parseSegment(raw, range, index: index, table))
        }
        var options = QueryOptions()
        if let q = query {
            options = try parseQuery(raw, from: q + 1, to: end, table)
        }
        return ResourceRequest(segments: segments, options: options)
    }

    private func decodedName(_ raw: [UInt8], _ r: Range<Int>) -> String {
        guard let d = try? PercentDecoding.decode(raw, from: r.lowerBound, to: r.upperBound, plusAsSpace: false) else { return "" }
        let text = d.text
        if let paren = text.firstIndex(of: "(") { return String(text[..<paren]) }
        return text
    }

    /// How many leading segments of a rooted URL belong to the service root.
    private func rootSegmentCount(_ raw: [UInt8], _ ranges: [Range<Int>], absolute: Bool, at pathStart: Int) throws(URLParseError) -> Int {
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
        throw URLParseError("cannot tell where the service root ends in an absolute URL; give the service root", at: pathStart)
    }

    // MARK: - Path segments

    private static let dollarSegments: [String: PathSegment.Role] = [
        "$metadata": .metadata, "$batch": .batch, "$count": .count, "$value": .value, "$ref": .ref,
        "$links": .links, "$all": .all, "$entity": .entity,
    ]

    private func parseSegment(_ raw: [UInt8], _ range: Range<Int>, index: Int, _ table: PositionTable) throws(URLParseError) -> PathSegment {
        let comp = try PercentDecoding.decode(raw, from: range.lowerBound, to: range.upperBound, plusAsSpace: plusAsSpace)
        guard !comp.bytes.isEmpty else { throw URLParseError("empty path segment", at: range.lowerBound) }
        do throws(URLParseError) {
            var p = try ExpressionParser(bytes: comp.bytes, version: version, limits: limits)
            p.positionMap = { table.character(atByte: comp.rawOffset(ofDecoded: $0)) }
            guard case .identifier(let name) = p.current.kind, !name.hasPrefix("@"), !name.hasSuffix(".*") else {
                throw p.error("a path segment name")
            }
            try p.advance()
            var args: SegmentArguments? = nil
            if p.current.kind == .lparen {
                args = try p.parseArguments()
            }
            guard p.current.kind == .eof else { throw p.error("end of path segment") }
            var role = PathSegment.Role.unresolved
            if name.hasPrefix("$") {
                if let r = Self.dollarSegments[name] {
                    role = r
                } else if index == 0 && name.count > 1 {
                    role = .contentID
                } else {
                    throw URLParseError("unknown path segment '\(name)'", at: 0)
                }
                if args != nil { throw URLParseError("'\(name)' takes no parentheses", at: name.utf8.count) }
            }
            return PathSegment(name: name, arguments: args, role: role, position: table.character(atByte: range.lowerBound))
        } catch {
            throw URLParseError(error.message, at: comp.rawOffset(ofDecoded: error.position))
        }
    }

    // MARK: - Query options

    private func parseQuery(_ raw: [UInt8], from start: Int, to end: Int, _ table: PositionTable) throws(URLParseError) -> QueryOptions {
        var options = QueryOptions()
        var seen: Set<String> = []
        var i = start
        while i <= end {
            var j = i
            while j < end && raw[j] != UInt8(ascii: "&") { j += 1 }
            if j > i {
                var eq = i
                while eq < j && raw[eq] != UInt8(ascii: "=") { eq += 1 }
                let name = try PercentDecoding.decode(raw, from: i, to: eq, plusAsSpace: plusAsSpace)
                let value = try PercentDecoding.decode(raw, from: min(eq + 1, j), to: j, plusAsSpace: plusAsSpace)
                try apply(name.text, at: i, value, to: &options, seen: &seen, table)
            }
            i = j + 1
        }
        return options
    }

    private func apply(_ name: String, at nameStart: Int, _ value: DecodedComponent, to options: inout QueryOptions,
                       seen: inout Set<String>, _ table: PositionTable) throws(URLParseError) {
        guard !name.isEmpty else { throw URLParseError("empty query option name", at: nameStart) }
        if name.hasPrefix("$") || name.hasPrefix("@") {
            guard seen.insert(name).inserted else { throw URLParseError("duplicate query option \(name)", at: nameStart) }
        }
        func parser() throws(URLParseError) -> ExpressionParser {
            var p = try ExpressionParser(bytes: value.bytes, version: version, limits: limits)
            p.positionMap = { table.character(atByte: value.rawOffset(ofDecoded: $0)) }
            return p
        }
        func requireValue() throws(URLParseError) {
            // Offsets inside the do block are decoded offsets of the value.
            if value.bytes.isEmpty { throw URLParseError("empty value for \(name)", at: 0) }
        }
        do throws(URLParseError) {
            switch name {
            case "$filter":
                try requireValue()
                var p = try parser()
                options.filter = try p.parseExpression()
                try p.expectEnd()
            case "$orderby":
                try requireValue()
                var p = try parser()
                options.orderBy = try p.parseOrderByItems()
                try p.expectEnd()
            case "$select":
                try requireValue()
                var p = try parser()
                options.select = try p.parseSelectItems()
                try p.expectEnd()
            case "$expand":
                try requireValue()
                var p = try parser()
                options.expand = try p.parseExpandItems()
                try p.expectEnd()
            case "$top", "$skip":
                guard let n = Self.nonNegativeInteger(value.bytes) else {
                    throw URLParseError("expected a non-negative integer for \(name)", at: 0)
                }
                if name == "$top" { options.top = n } else { options.skip = n }
            case "$inlinecount" where version != .v4:
                guard options.count == nil else { throw URLParseError("$inlinecount given with $count", at: -1) }
                switch value.text {
                case "allpages": options.count = true
                case "none": options.count = false
                default: throw URLParseError("expected allpages or none for $inlinecount", at: 0)
                }
            case "$count" where version != .v2:
                guard options.count == nil else { throw URLParseError("$count given with $inlinecount", at: -1) }
                switch value.text {
                case "true": options.count = true
                case "false": options.count = false
                default: throw URLParseError("expected true or false for $count", at: 0)
                }
            case "$skiptoken": options.skipToken = value.text
            case "$format":
                try requireValue()
                options.format = value.text
            case "$search" where version != .v2:
                try requireValue()
                options.search = value.text
            default:
                if name.hasPrefix("@") && version != .v2 {
                    guard name.count > 1 else { throw URLParseError("empty parameter alias name", at: -1) }
                    try requireValue()
                    var p = try parser()
                    let e = try p.parseExpression()
                    try p.expectEnd()
                    options.aliases.append(ParameterAlias(name: String(name.dropFirst()), value: e))
                } else if name.hasPrefix("$") {
                    options.otherSystemOptions.append(CustomOption(name: name, value: value.text))
                } else {
                    options.customOptions.append(CustomOption(name: name, value: value.text))
                }
            }
        } catch {
            if error.position < 0 { throw URLParseError(error.message, at: nameStart) }
            throw URLParseError(error.message, at: value.rawOffset(ofDecoded: error.position))
        }
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
