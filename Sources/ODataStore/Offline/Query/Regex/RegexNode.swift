/// The parsed form of an ECMAScript pattern (ECMA-262, 22.2.1 Patterns), what
/// `ECMAPatternParser` builds and `RegexCompiler` turns into a `RegexProgram`.
///
/// Capture groups are numbered from 1 in the order of their opening parenthesis, as
/// ECMAScript numbers them; named groups have a number too (`\k<name>` is resolved to it).
///
/// Threading: immutable values; Sendable.
indirect enum RegexNode: Equatable, Sendable {
    /// Matches the empty string (an empty alternative, `()`'s body).
    case empty
    /// One code point.
    case character(UInt32)
    /// One code point of the set: a class, `.`, `\d`, `\W`, ...
    case set(CodePointSet)
    /// Terms matched one after the other.
    case sequence([RegexNode])
    /// Alternatives tried from left to right.
    case alternation([RegexNode])
    /// A capturing group (`(...)`, `(?<name>...)`) with its number.
    case capture(Int, RegexNode)
    /// `(?=...)`, `(?!...)`, `(?<=...)`, `(?<!...)`: zero-width and atomic.
    case look(behind: Bool, negative: Bool, RegexNode)
    /// A quantified atom: `*` `+` `?` `{n}` `{n,}` `{n,m}`, greedy or lazy (`?` after it).
    /// `max` nil is unbounded. `groups` are the capture numbers inside the atom, reset to
    /// undefined at the start of every repetition (22.2.2.3.1 RepeatMatcher, step 4).
    case quantified(RegexNode, min: Int, max: Int?, greedy: Bool, groups: ClosedRange<Int>?)
    /// `\1`, `\k<name>`: the text group n captured (the empty string when it captured nothing).
    case backreference(Int)
    /// `^`, `$`, `\b`, `\B`.
    case assertion(Assertion)

    enum Assertion: Equatable, Sendable {
        /// `^` without the `m` flag: the start of the input.
        case start
        /// `$` without the `m` flag: the end of the input.
        case end
        /// `\b`: a `\w` character on exactly one side.
        case wordBoundary
        /// `\B`.
        case notWordBoundary
    }
}
