/// Parses `$filter` and `$orderby` text that is already percent-decoded (for whole URLs see
/// `ResourceRequestParser`, which decodes and maps error positions back onto the URL).
///
/// `version` selects the dialect: `.v2` and `.v4` accept only their own syntax; nil accepts
/// the union of both (useful when the service version is unknown). Errors carry the 0-based
/// character position in `text`.
public enum FilterParser {
    public static func parse(_ text: String, version: ODataVersion? = nil,
                             limits: ParserLimits = .default) throws(URLParseError) -> FilterExpression {
        let bytes = Array(text.utf8)
        let table = PositionTable(text)
        do {
            var p = try ExpressionParser(bytes: bytes, version: version, limits: limits)
            p.positionMap = { table.character(atByte: $0) }
            let e = try p.parseExpression()
            try p.expectEnd()
            return e
        } catch {
            throw URLParseError(error.message, at: table.character(atByte: error.position))
        }
    }

    public static func parseOrderBy(_ text: String, version: ODataVersion? = nil,
                                    limits: ParserLimits = .default) throws(URLParseError) -> [OrderByItem] {
        let bytes = Array(text.utf8)
        let table = PositionTable(text)
        do {
            var p = try ExpressionParser(bytes: bytes, version: version, limits: limits)
            p.positionMap = { table.character(atByte: $0) }
            let items = try p.parseOrderByItems()
            try p.expectEnd()
            return items
        } catch {
            throw URLParseError(error.message, at: table.character(atByte: error.position))
        }
    }
}

/// One `$orderby` item: an expression and its direction.
public struct OrderByItem: Hashable, Sendable {
    public var expression: FilterExpression
    public var descending: Bool
    public init(expression: FilterExpression, descending: Bool = false) {
        self.expression = expression
        self.descending = descending
    }
}

extension ExpressionParser {
    /// `expr [asc|desc] (, expr [asc|desc])*`.
    mutating func parseOrderByItems() throws(URLParseError) -> [OrderByItem] {
        var items: [OrderByItem] = []
        repeat {
            if !items.isEmpty { try advance() }
            let e = try parseExpression()
            var descending = false
            if isKeyword("desc") || isKeyword("asc") {
                guard current.spaceBefore else { throw URLParseError("expected whitespace before '\(current.identifier ?? "")'", at: current.start) }
                descending = isKeyword("desc")
                try advance()
            }
            items.append(OrderByItem(expression: e, descending: descending))
        } while current.kind == .comma
        return items
    }
}
