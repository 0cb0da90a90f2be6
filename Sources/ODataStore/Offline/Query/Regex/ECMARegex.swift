/// An ECMAScript regular expression, compiled: what OData's `matchesPattern` (V4.01 Part 2,
/// 5.1.1.5.8) evaluates offline. `matches` is true when the pattern matches anywhere in the
/// text (`RegExp.prototype.test` without flags, Python's `re.search`), reading the text as
/// code points (the `u` flag's view: a character outside the BMP is one character).
///
/// ```
/// let r = try ECMARegex("^[A-Z]{2}-\\d{4}$")
/// try r.matches("DE-1234")      // true
/// ```
///
/// Compiling throws `RegexError.syntax` for what is not an ECMAScript pattern and a limit
/// error for a pattern beyond `RegexLimits`; matching throws when an evaluation needs more
/// than its step budget or backtracking memory. See ECMAPatternParser for the syntax.
///
/// Threading: immutable; Sendable. One compiled expression may be used from several
/// threads at once (each evaluation has its own state).
struct ECMARegex: Sendable {
    let program: RegexProgram
    let limits: RegexLimits

    init(codePoints pattern: [UInt32], limits: RegexLimits = .standard) throws(RegexError) {
        let parsed = try ECMAPatternParser.parse(pattern, limits: limits)
        program = RegexCompiler.compile(parsed)
        self.limits = limits
    }

    init(_ pattern: String, limits: RegexLimits = .standard) throws(RegexError) {
        try self.init(codePoints: pattern.unicodeScalars.map(\.value), limits: limits)
    }

    /// The pattern, as UTF-8 bytes (invalid sequences read as U+FFFD).
    init(utf8 pattern: UnsafeBufferPointer<UInt8>, limits: RegexLimits = .standard) throws(RegexError) {
        try self.init(codePoints: Self.codePoints(pattern), limits: limits)
    }

    func matches(codePoints text: [UInt32]) throws(RegexError) -> Bool {
        try text.withUnsafeBufferPointer { b throws(RegexError) in try RegexMatcher.search(program, in: b, limits: limits) }
    }

    func matches(_ text: String) throws(RegexError) -> Bool {
        try matches(codePoints: text.unicodeScalars.map(\.value))
    }

    /// The text as UTF-8 bytes (invalid sequences read as U+FFFD).
    func matches(utf8 text: UnsafeBufferPointer<UInt8>) throws(RegexError) -> Bool {
        try matches(codePoints: Self.codePoints(text))
    }

    /// UTF-8 decoded to code points, each invalid sequence replaced by U+FFFD.
    static func codePoints(_ utf8: UnsafeBufferPointer<UInt8>) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(utf8.count)
        _ = transcode(utf8.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: false) { out.append($0) }
        return out
    }
}
