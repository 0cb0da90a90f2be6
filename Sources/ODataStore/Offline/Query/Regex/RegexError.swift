/// Why a pattern was refused or an evaluation stopped. Positions count code points of the
/// pattern from 0 (as Python's `re.error.pos` does).
///
/// Two kinds: the pattern is not a valid ECMAScript pattern (`invalidPattern`: the service
/// refuses it too), or it is valid but beyond what the store evaluates (`isLimit`: too
/// long, nested too deeply, an unsupported construct, too many steps or too much
/// backtracking memory on a value).
enum RegexError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not ECMAScript pattern syntax: what is wrong, and where.
    case syntax(String, position: Int)
    /// Valid ECMAScript the engine does not implement (`\p{...}` property escapes).
    case unsupported(String, position: Int)
    /// More code points than `RegexLimits.patternLength`.
    case patternTooLong(length: Int, limit: Int)
    /// Groups nested deeper than `RegexLimits.nesting`.
    case nestingTooDeep(position: Int, limit: Int)
    /// The evaluation needed more than its step budget.
    case tooManySteps(limit: Int)
    /// The evaluation needed more backtracking entries than `RegexLimits.backtrackEntries`.
    case tooMuchBacktracking(limit: Int)

    /// True for a valid pattern the engine cannot evaluate (a limit or an unsupported
    /// construct); false for a syntax error.
    var isLimit: Bool {
        if case .syntax = self { return false }
        return true
    }

    var description: String {
        switch self {
        case .syntax(let what, let position):
            return "invalid regular expression: \(what) at position \(position)"
        case .unsupported(let what, let position):
            return "\(what) (at position \(position)) is not supported"
        case .patternTooLong(let length, let limit):
            return "the pattern has \(length) characters, more than the limit of \(limit)"
        case .nestingTooDeep(let position, let limit):
            return "the pattern nests groups more than \(limit) deep (at position \(position))"
        case .tooManySteps(let limit):
            return "the pattern needs too many steps on a value (more than \(limit) backtracking steps)"
        case .tooMuchBacktracking(let limit):
            return "the pattern needs too many steps on a value (more than \(limit) saved backtracking states)"
        }
    }
}
