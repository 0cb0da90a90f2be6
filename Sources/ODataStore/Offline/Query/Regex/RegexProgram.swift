/// A compiled pattern: instructions for `RegexMatcher`, a backtracking machine over code
/// points with registers (capture positions, loop counters) whose every change is undone
/// on backtracking. `RegexCompiler` builds it from a `RegexNode` tree; its size is linear
/// in the pattern's (counted repetitions use counters, they are never unrolled).
///
/// Instructions that read the text carry a direction: the body of a lookbehind is matched
/// right to left, as ECMAScript defines it (22.2.2.4, `direction` -1), so lookbehinds of
/// any length work and its captures and backreferences mean what they mean there.
///
/// Threading: immutable once built; Sendable, shared by every evaluation.
struct RegexProgram: Sendable {
    enum Instruction: Equatable, Sendable {
        /// Consume this code point.
        case character(UInt32, backward: Bool)
        /// Consume one code point of `sets[i]`.
        case set(Int, backward: Bool)
        /// `runs[i]`: a quantified single code point (`a*`, `[0-9]{2,4}?`, `.+`), matched
        /// without a saved state per code point.
        case run(Int)
        /// Continue at `prefer`; on failure, at `other`.
        case split(prefer: Int, other: Int)
        case jump(Int)
        /// Register `r` = the current position.
        case save(Int)
        case assertion(RegexNode.Assertion)
        /// The text captured by the group, or nothing when it captured nothing.
        case backreference(group: Int, backward: Bool)
        /// `loops[i]`: counter set to 0, then the head.
        case loopInit(Int)
        /// `loops[i]`: enter the body, leave, or try one and then the other (greedy or lazy).
        case loopHead(Int)
        /// `loops[i]`: start of one repetition (position saved, inner captures cleared).
        case loopEnter(Int)
        /// `loops[i]`: end of one repetition: fails an optional repetition that matched the
        /// empty string (RepeatMatcher, step 2.b), counts it and goes back to the head.
        case loopTail(Int)
        /// `looks[i]`: start of a lookaround (a barrier on the backtracking stack).
        case lookStart(Int)
        /// `looks[i]`: its body matched.
        case lookEnd(Int)
        /// The whole pattern matched.
        case match
    }

    /// A single code point matcher under a quantifier.
    struct Run: Equatable, Sendable {
        /// The code point, or nil to use `set`.
        var character: UInt32?
        var set: Int
        var min: Int32
        var max: Int32
        var greedy: Bool
        var backward: Bool
        /// The instruction after the run.
        var next: Int
    }

    /// A quantified atom that is not a single code point.
    struct Loop: Equatable, Sendable {
        /// Register counting the repetitions done.
        var counter: Int
        /// Register holding the position where the current repetition started.
        var start: Int
        var min: Int32
        var max: Int32
        var greedy: Bool
        /// Capture registers cleared at the start of each repetition (2g and 2g+1 for each
        /// group g inside the atom), or an empty range.
        var captures: Range<Int>
        /// The `loopHead` instruction and the first instruction after the loop.
        var head: Int
        var exit: Int
    }

    struct Look: Equatable, Sendable {
        var negative: Bool
        /// The instruction after the `lookEnd`.
        var end: Int
    }

    let instructions: [Instruction]
    let sets: [CodePointSet]
    let runs: [Run]
    let loops: [Loop]
    let looks: [Look]
    /// Registers: 2 per capture group (start, end; group g at 2g, 2g+1, group 0 unused),
    /// then 2 per loop (counter, start).
    let registerCount: Int
    let groupCount: Int
    /// Every match starts at position 0 (the pattern begins with `^` in every alternative).
    let anchoredAtStart: Bool
    /// When set, a match cannot be empty and its first code point is in the set: other
    /// start positions are skipped without running the machine.
    let firstCharacters: CodePointSet?
}
