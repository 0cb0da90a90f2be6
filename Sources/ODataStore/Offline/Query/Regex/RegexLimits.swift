/// The bounds of the engine: a pattern's length and nesting (checked when it is parsed),
/// and the work one evaluation may do (checked while matching). A catastrophic pattern
/// such as `(a+)+$` on a long value fails with `RegexError.tooManySteps` instead of
/// running for hours; memory is bounded by `backtrackEntries`.
/// Threading: a value type; Sendable.
struct RegexLimits: Equatable, Sendable {
    /// Longest pattern, in code points.
    var patternLength = 8192
    /// Deepest nesting of groups (capturing, non-capturing, lookarounds).
    var nesting = 100
    /// Steps (one per instruction executed or backtracking entry undone) one evaluation
    /// may take: `baseSteps + stepsPerCharacter * length of the value`, so work linear in
    /// the value's length is always allowed and only superlinear backtracking is stopped.
    var baseSteps = 2_000_000
    var stepsPerCharacter = 100
    /// Saved backtracking entries at one time (16 bytes each: 2 M is 32 MB).
    var backtrackEntries = 2_000_000

    static let standard = RegexLimits()

    func steps(forLength n: Int) -> Int {
        let (perChar, o1) = stepsPerCharacter.multipliedReportingOverflow(by: n)
        let (total, o2) = baseSteps.addingReportingOverflow(perChar)
        return o1 || o2 ? Int.max : total
    }
}
