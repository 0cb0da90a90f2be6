/// One transformation of a V4 `$apply` (OData Extension for Data Aggregation 4.0, section 3;
/// its ABNF `applyExpr`): the ones clients send. Transformations apply in order
/// (`filter(…)/groupby(…)/orderby(…)/top(3)`).
public indirect enum ApplyTransformation: Hashable, Sendable {
    /// `aggregate(Amount with sum as Total,$count as N)`.
    case aggregate([AggregateItem])
    /// `groupby((Region,Product/Name),aggregate(…))`: grouping properties (member paths) and the
    /// transformations applied to each group (nil: none).
    case groupBy([FilterExpression], [ApplyTransformation]?)
    case filter(FilterExpression)
    case search(SearchExpression)
    case orderBy([OrderByItem])
    case top(Int)
    case skip(Int)
    case identity
    /// `compute(Amount mul Quantity as Revenue)`.
    case compute([ComputeItem])
    /// `concat(t1, t2, …)`: the union of applying each sequence (two or more).
    case concat([[ApplyTransformation]])
    /// A service-defined transformation: a namespace-qualified function `NS.Trafo(p=…)`.
    case function(String, [FunctionArgument])
}

/// One item of `aggregate(…)`.
public struct AggregateItem: Hashable, Sendable {
    /// The aggregated value; nil for `$count as N`.
    public var expression: FilterExpression?
    /// `sum`, `min`, `max`, `average`, `countdistinct` or a qualified custom method; nil for
    /// `$count`, `Path/$count` and custom aggregates.
    public var method: String?
    /// `as Name`; nil only for a custom aggregate written without an alias.
    public var alias: String?
    public init(expression: FilterExpression?, method: String?, alias: String?) {
        self.expression = expression
        self.method = method
        self.alias = alias
    }
}

extension ExpressionParser {
    /// `applyTrafo *( "/" applyTrafo )`.
    mutating func parseApply() throws(URLParseError) -> [ApplyTransformation] {
        var out: [ApplyTransformation] = []
        repeat {
            if !out.isEmpty { try advance() }
            out.append(try parseTransformation())
        } while current.kind == .slash
        return out
    }

    @inline(never)
    mutating func parseTransformation() throws(URLParseError) -> ApplyTransformation {
        let token = current
        guard case .identifier(let name) = token.kind else { throw error("a transformation such as filter(…), groupby(…) or aggregate(…)") }
        try advance()
        if name == "identity" { return .identity }
        guard current.kind == .lparen else {
            throw error("'(' after \(name)")
        }
        let open = current.start
        try enter(at: open)
        defer { leave() }
        if name.contains(".") {
            let args = try parseCallArguments()
            guard args.allSatisfy({ $0.name != nil }) else { throw URLParseError("parameters of \(name) must be named (name=value)", at: open) }
            return .function(name, args.map { FunctionArgument(name: $0.name ?? "", value: $0.value) })
        }
        if name == "search" {
            // Search words are not expression tokens: scan them from the raw text.
            let (s, close) = try parseSearchUntilClose(open, from: current.end)
            lexer.reposition(to: close)
            try advance()
            try expect(.rparen, "')' to close search(")
            return .search(s)
        }
        try advance()  // (
        let t: ApplyTransformation
        switch name {
        case "aggregate":
            var items: [AggregateItem] = []
            repeat {
                if !items.isEmpty { try advance() }
                items.append(try parseAggregateItem())
            } while current.kind == .comma
            t = .aggregate(items)
        case "groupby":
            let listOpen = current.start
            guard current.kind == .lparen else { throw error("'(' and the grouping properties: groupby((A,B),…)") }
            try advance()
            try enter(at: listOpen)
            var paths: [FilterExpression] = []
            repeat {
                if !paths.isEmpty { try advance() }
                if isIdentifier("rollup") || isIdentifier("rolluprecursive") {
                    throw URLParseError("\(current.identifier ?? "rollup") in groupby is not supported", at: current.start)
                }
                let e = try parsePrimary()
                guard case .member(let m) = e.kind, m.lambda == nil, m.root == .implicit else {
                    throw URLParseError("expected a property path to group by", at: listOpen)
                }
                paths.append(e)
            } while current.kind == .comma
            try expect(.rparen, "',' or ')' after the grouping properties")
            leave()
            var nested: [ApplyTransformation]? = nil
            if current.kind == .comma {
                try advance()
                nested = try parseApply()
            }
            t = .groupBy(paths, nested)
        case "filter":
            t = .filter(try parseExpression())
        case "orderby":
            t = .orderBy(try parseOrderByItems())
        case "top", "skip":
            guard case .literal(.integer(let text)) = current.kind, let n = ResourceRequestParser.saturatingCount(text.utf8) else {
                throw error("a non-negative integer for \(name)")
            }
            try advance()
            t = name == "top" ? .top(n) : .skip(n)
        case "compute":
            t = .compute(try parseComputeItems())
        case "concat":
            var seqs: [[ApplyTransformation]] = []
            repeat {
                if !seqs.isEmpty { try advance() }
                seqs.append(try parseApply())
            } while current.kind == .comma
            guard seqs.count >= 2 else { throw URLParseError("concat needs two or more transformation sequences", at: token.start) }
            t = .concat(seqs)
        default:
            throw URLParseError("unknown or unsupported transformation '\(name)'", at: token.start)
        }
        try expect(.rparen, "')' to close \(name)(")
        return t
    }

    /// `expr with method [as Alias]`, `$count as Alias`, `Path/$count as Alias`,
    /// `CustomAggregate [as Alias]`.
    @inline(never)
    mutating func parseAggregateItem() throws(URLParseError) -> AggregateItem {
        let start = current.start
        if isIdentifier("$count") {
            try advance()
            return AggregateItem(expression: nil, method: nil, alias: try parseAsAlias(required: true))
        }
        let e = try parseExpression()
        if isIdentifier("from") {
            throw URLParseError("'from' in aggregate is not supported", at: current.start)
        }
        if isIdentifier("with") {
            guard current.spaceBefore else { throw URLParseError("expected whitespace before 'with'", at: current.start) }
            try advance()
            try requireSpaceAfter("with")
            guard case .identifier(let method) = current.kind, !method.hasPrefix("$"), !method.hasPrefix("@") else {
                throw error("an aggregation method (sum, min, max, average, countdistinct)")
            }
            guard ["sum", "min", "max", "average", "countdistinct"].contains(method) || method.contains(".") else {
                throw URLParseError("unknown aggregation method '\(method)'", at: current.start)
            }
            try advance()
            if isIdentifier("from") { throw URLParseError("'from' in aggregate is not supported", at: current.start) }
            return AggregateItem(expression: e, method: method, alias: try parseAsAlias(required: true))
        }
        // Path/$count, or a custom aggregate (a plain name or path).
        guard case .member(let m) = e.kind, m.lambda == nil, m.root == .implicit else {
            throw URLParseError("expected 'with' and an aggregation method", at: start)
        }
        if m.segments.last == .count {
            return AggregateItem(expression: e, method: nil, alias: try parseAsAlias(required: true))
        }
        return AggregateItem(expression: e, method: nil, alias: try parseAsAlias(required: false))
    }

    /// `RWS "as" RWS alias`.
    mutating func parseAsAlias(required: Bool) throws(URLParseError) -> String? {
        guard isIdentifier("as") else {
            if required { throw error("'as' and an alias") }
            return nil
        }
        guard current.spaceBefore else { throw URLParseError("expected whitespace before 'as'", at: current.start) }
        try advance()
        try requireSpaceAfter("as")
        guard case .identifier(let alias) = current.kind, Self.isPlainIdentifier(alias) else {
            throw error("an alias name (an identifier)")
        }
        try advance()
        return alias
    }

    static func isPlainIdentifier(_ s: String) -> Bool {
        guard let f = s.utf8.first, !(f >= 0x30 && f <= 0x39) else { return false }
        return !s.contains(".") && !s.hasPrefix("$") && !s.hasPrefix("@") && !s.contains("#")
    }

    /// `expr as Alias (, expr as Alias)*` ($compute and the compute transformation).
    mutating func parseComputeItems() throws(URLParseError) -> [ComputeItem] {
        var items: [ComputeItem] = []
        repeat {
            if !items.isEmpty { try advance() }
            let e = try parseExpression()
            guard let alias = try parseAsAlias(required: true) else { throw error("'as' and an alias") }
            items.append(ComputeItem(expression: e, alias: alias))
        } while current.kind == .comma
        return items
    }

    /// The `$search` expression from the current token up to the `)` that closes the
    /// parenthesis opened at `open` (phrases may contain parentheses); returns it with the
    /// offset of that `)`.
    mutating func parseSearchUntilClose(_ open: Int, from start: Int) throws(URLParseError) -> (SearchExpression, Int) {
        let bytes = lexer.bytes
        var i = start
        var depth = 0
        var inPhrase = false
        while i < lexer.end {
            let c = bytes[i]
            if inPhrase {
                if c == UInt8(ascii: "\"") { inPhrase = false }
            } else if c == UInt8(ascii: "\"") {
                inPhrase = true
            } else if c == UInt8(ascii: "(") {
                depth += 1
            } else if c == UInt8(ascii: ")") {
                if depth == 0 { break }
                depth -= 1
            }
            i += 1
        }
        guard i < lexer.end else { throw URLParseError("expected ')' to close search(", at: open) }
        var p = SearchParser(bytes, from: start, to: i, encoded: encoded, limits: limits)
        p.nesting = nesting
        return (try p.parseAll(), i)
    }
}

/// Prints `$apply` canonically.
enum ApplyPrinter {
    static func print(_ ts: [ApplyTransformation], _ v: ODataVersion?) -> String {
        ts.map { transformation($0, v) }.joined(separator: "/")
    }

    static func transformation(_ t: ApplyTransformation, _ v: ODataVersion?) -> String {
        switch t {
        case .aggregate(let items):
            return "aggregate(" + items.map { aggregateItem($0, v) }.joined(separator: ",") + ")"
        case .groupBy(let paths, let nested):
            var s = "groupby((" + paths.map { FilterPrinter.print($0, version: v) }.joined(separator: ",") + ")"
            if let nested { s += "," + print(nested, v) }
            return s + ")"
        case .filter(let e): return "filter(" + FilterPrinter.print(e, version: v) + ")"
        case .search(let s): return "search(" + SearchPrinter.print(s) + ")"
        case .orderBy(let items): return "orderby(" + RequestPrinter.orderByText(items, v) + ")"
        case .top(let n): return "top(\(n))"
        case .skip(let n): return "skip(\(n))"
        case .identity: return "identity"
        case .compute(let items): return "compute(" + RequestPrinter.computeText(items, v) + ")"
        case .concat(let seqs): return "concat(" + seqs.map { print($0, v) }.joined(separator: ",") + ")"
        case .function(let name, let args):
            return name + "(" + args.map { $0.name + "=" + FilterPrinter.print($0.value, version: v) }.joined(separator: ",") + ")"
        }
    }

    static func aggregateItem(_ a: AggregateItem, _ v: ODataVersion?) -> String {
        var s = a.expression.map { FilterPrinter.print($0, version: v) } ?? "$count"
        if let m = a.method { s += " with " + m }
        if let alias = a.alias { s += " as " + alias }
        return s
    }
}
