/// A lexical token of the OData expression syntax (shared by `$filter`, `$orderby`, `$select`,
/// `$expand`, key predicates and function parameters).
struct Token: Sendable {
    enum Kind: Equatable, Sendable {
        /// A name: `Price`, `NS.Type`, `geo.distance`, `$it`, `$count`, `@alias`, `NS.*`.
        case identifier(String)
        case literal(Literal)
        case lparen, rparen, comma, slash, colon, equals, semicolon, star
        /// V4 JSON array and object delimiters (`[`, `]`, `{`, `}`).
        case lbracket, rbracket, lbrace, rbrace
        /// V4 `"…"`: a JSON string (only valid inside a JSON array or object, and in `$search`
        /// phrases), already unescaped.
        case jsonString(String)
        /// A `-` not followed by a digit (negation).
        case minus
        case eof
    }
    var kind: Kind
    /// Byte offsets into the lexer's buffer.
    var start: Int
    var end: Int
    /// Whitespace (space or tab, also percent-encoded) came right before the token: the
    /// grammar requires it around binary operators (`RWS "and" RWS`).
    var spaceBefore = false

    var identifier: String? {
        if case .identifier(let s) = kind { return s }
        return nil
    }

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .identifier(let s): return "'\(s)'"
        case .literal(let l): return "literal (\(l.kindName))"
        case .lparen: return "'('"
        case .rparen: return "')'"
        case .comma: return "','"
        case .slash: return "'/'"
        case .colon: return "':'"
        case .equals: return "'='"
        case .semicolon: return "';'"
        case .star: return "'*'"
        case .lbracket: return "'['"
        case .rbracket: return "']'"
        case .lbrace: return "'{'"
        case .rbrace: return "'}'"
        case .jsonString: return "JSON string"
        case .minus: return "'-'"
        case .eof: return "end of input"
        }
    }
}
