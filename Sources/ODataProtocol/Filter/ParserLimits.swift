/// Bounds that keep the recursive-descent parsers safe on hostile input: a request such as
/// `$filter=((((…` with 10,000 parentheses is rejected with an error instead of exhausting the
/// stack.
///
/// Stack use: operator chains (`a or b or …`) are walked in loops by the parser, `==`,
/// `hash`, the printers and the type checker, so only nesting costs stack. With the default
/// limits the deepest accepted input needs under 512 KB of stack in a release build (about
/// 2 MB in a debug build); see `StackDepthTests`.
public struct ParserLimits: Sendable, Hashable {
    /// Deepest nesting of parentheses, function calls, lambdas, unary operators and `$expand`
    /// options.
    public var maxNesting: Int
    /// Greatest height of an expression tree (a chain of 500 `or` terms has height 500).
    public var maxTreeHeight: Int

    public init(maxNesting: Int = 100, maxTreeHeight: Int = 1000) {
        self.maxNesting = maxNesting
        self.maxTreeHeight = maxTreeHeight
    }

    public static let `default` = ParserLimits()
}
