/// The backtracking machine that runs a `RegexProgram` over a text of code points.
///
/// No recursion: the alternatives not yet tried are entries on an explicit stack, next to
/// the undo entries of every register change (a trail), so backtracking restores captures
/// and loop counters exactly and a failed attempt leaves the registers as it found them.
/// A lookaround puts a barrier on the stack: when its body matches, the entries above the
/// barrier that offer alternatives are dropped (ECMAScript's lookarounds are atomic) and its
/// undo entries kept; a negative one that matches undoes its body and fails.
///
/// Bounded: every instruction executed, code point consumed by a run or a backreference,
/// and entry popped is a step, and an evaluation that exceeds its budget
/// (`RegexLimits.steps(forLength:)`) throws `RegexError.tooManySteps`; the stack is limited
/// to `RegexLimits.backtrackEntries`. Nothing traps: the text is only read after a bounds
/// check, and every index into the program was made by the compiler.
struct RegexMatcher {
    private struct Entry {
        enum Kind: UInt8 {
            /// Resume at `pc` with position `a`.
            case choice
            /// Restore register `a` to the value `b`.
            case undo
            /// Start of `looks[pc]` at position `a`.
            case barrier
            /// `runs[pc]` (greedy) took code points down to `a`; it is now at `b` and may
            /// give one back.
            case greedyRun
            /// `runs[pc]` (lazy) is at `a` and may take up to `b` more code points.
            case lazyRun
        }
        var kind: Kind
        var pc: Int32
        var a: Int32
        var b: Int32
    }

    private let program: RegexProgram
    private let text: UnsafeBufferPointer<UInt32>
    private let count: Int32
    private var registers: [Int32]
    private var stack: [Entry] = []
    private var steps = 0
    private let stepLimit: Int
    private let stackLimit: Int

    /// True when the program matches somewhere in `text` (RegExp.prototype.test without
    /// flags, Python's `re.search`): tried at each start position from 0 to the end.
    static func search(_ program: RegexProgram, in text: UnsafeBufferPointer<UInt32>, limits: RegexLimits) throws(RegexError) -> Bool {
        guard text.count < Int(Int32.max) else { throw .tooManySteps(limit: limits.steps(forLength: text.count)) }
        var m = RegexMatcher(program: program, text: text, limits: limits)
        if program.anchoredAtStart { return try m.attempt(at: 0) }
        for start in 0...text.count {
            if let first = program.firstCharacters {
                if start == text.count || !first.contains(text[start]) { continue }
            }
            if try m.attempt(at: Int32(start)) { return true }
        }
        return false
    }

    private init(program: RegexProgram, text: UnsafeBufferPointer<UInt32>, limits: RegexLimits) {
        self.program = program
        self.text = text
        self.count = Int32(text.count)
        // Captures start undefined (-1), loop registers are set before they are read.
        self.registers = [Int32](repeating: -1, count: program.registerCount)
        self.stepLimit = limits.steps(forLength: text.count)
        self.stackLimit = max(16, limits.backtrackEntries)
    }

    // MARK: - Registers and the stack

    private mutating func push(_ kind: Entry.Kind, _ pc: Int, _ a: Int32, _ b: Int32 = 0) throws(RegexError) {
        guard stack.count < stackLimit else { throw .tooMuchBacktracking(limit: stackLimit) }
        stack.append(Entry(kind: kind, pc: Int32(truncatingIfNeeded: pc), a: a, b: b))
    }

    private mutating func set(_ r: Int, _ value: Int32) throws(RegexError) {
        let old = registers[r]
        guard old != value else { return }
        try push(.undo, 0, Int32(truncatingIfNeeded: r), old)
        registers[r] = value
    }

    private mutating func step(_ n: Int = 1) throws(RegexError) {
        steps += n
        if steps > stepLimit { throw .tooManySteps(limit: stepLimit) }
    }

    // MARK: - Reading the text

    private func matches(_ run: RegexProgram.Run, at p: Int32) -> Bool {
        let c: UInt32
        if run.backward {
            guard p > 0 else { return false }
            c = text[Int(p) - 1]
        } else {
            guard p < count else { return false }
            c = text[Int(p)]
        }
        if let ch = run.character { return c == ch }
        return program.sets[run.set].contains(c)
    }

    private func isWord(_ p: Int32) -> Bool {
        guard p >= 0, p < count else { return false }
        return CodePointSet.word.contains(text[Int(p)])
    }

    private func holds(_ a: RegexNode.Assertion, at p: Int32) -> Bool {
        switch a {
        case .start: return p == 0
        case .end: return p == count
        case .wordBoundary: return isWord(p - 1) != isWord(p)
        case .notWordBoundary: return isWord(p - 1) == isWord(p)
        }
    }

    /// The text of group g matched at `p` (forward: starting there; backward: ending there);
    /// the new position, or nil.
    private mutating func backreference(_ g: Int, backward: Bool, at p: Int32) throws(RegexError) -> Int32? {
        let s = registers[2 * g], e = registers[2 * g + 1]
        guard s >= 0, e >= s else { return p }   // the group captured nothing: matches empty
        let length = e - s
        try step(Int(length))
        let from = backward ? p - length : p
        guard from >= 0, from + length <= count else { return nil }
        for k in 0..<Int(length) where text[Int(s) + k] != text[Int(from) + k] { return nil }
        return backward ? from : from + length
    }

    // MARK: - One attempt

    /// Runs the program from `start`; on failure the registers are back to their values
    /// before the call (every change was undone).
    private mutating func attempt(at start: Int32) throws(RegexError) -> Bool {
        let code = program.instructions
        var pc = 0
        var pos = start
        stack.removeAll(keepingCapacity: true)
        execute: while true {
            try step()
            var ok = true
            switch code[pc] {
            case .character(let c, let backward):
                if backward {
                    if pos > 0 && text[Int(pos) - 1] == c { pos -= 1; pc += 1 } else { ok = false }
                } else {
                    if pos < count && text[Int(pos)] == c { pos += 1; pc += 1 } else { ok = false }
                }
            case .set(let s, let backward):
                if backward {
                    if pos > 0 && program.sets[s].contains(text[Int(pos) - 1]) { pos -= 1; pc += 1 } else { ok = false }
                } else {
                    if pos < count && program.sets[s].contains(text[Int(pos)]) { pos += 1; pc += 1 } else { ok = false }
                }
            case .run(let r):
                let run = program.runs[r]
                let delta: Int32 = run.backward ? -1 : 1
                var taken: Int32 = 0
                var p = pos
                while taken < run.min, matches(run, at: p) { p += delta; taken += 1 }
                if taken < run.min {
                    try step(Int(taken))
                    ok = false
                    break
                }
                if run.greedy {
                    let low = p
                    while taken < run.max, matches(run, at: p) { p += delta; taken += 1 }
                    try step(Int(taken))
                    if p != low { try push(.greedyRun, r, low, p) }
                } else {
                    try step(Int(taken))
                    if run.max > run.min { try push(.lazyRun, r, p, run.max - run.min) }
                }
                pos = p
                pc = run.next
            case .split(let prefer, let other):
                try push(.choice, other, pos)
                pc = prefer
            case .jump(let target):
                pc = target
            case .save(let r):
                try set(r, pos)
                pc += 1
            case .assertion(let a):
                if holds(a, at: pos) { pc += 1 } else { ok = false }
            case .backreference(let g, let backward):
                if let p = try backreference(g, backward: backward, at: pos) { pos = p; pc += 1 } else { ok = false }
            case .loopInit(let l):
                try set(program.loops[l].counter, 0)
                pc += 1
            case .loopHead(let l):
                let loop = program.loops[l]
                let done = registers[loop.counter]
                if done < loop.min {
                    pc += 1
                } else if done >= loop.max {
                    pc = loop.exit
                } else if loop.greedy {
                    try push(.choice, loop.exit, pos)
                    pc += 1
                } else {
                    try push(.choice, pc + 1, pos)
                    pc = loop.exit
                }
            case .loopEnter(let l):
                let loop = program.loops[l]
                try set(loop.start, pos)
                for r in loop.captures { try set(r, -1) }
                try step(loop.captures.count)
                pc += 1
            case .loopTail(let l):
                let loop = program.loops[l]
                let done = registers[loop.counter]
                if done >= loop.min && pos == registers[loop.start] {
                    ok = false
                } else {
                    try set(loop.counter, done + 1)
                    pc = loop.head
                }
            case .lookStart(let l):
                try push(.barrier, l, pos)
                pc += 1
            case .lookEnd(let l):
                guard let barrier = stack.lastIndex(where: { $0.kind == .barrier }) else {
                    ok = false
                    break
                }
                try step(stack.count - barrier)
                if program.looks[l].negative {
                    // The body matched: the negative lookaround fails, its changes undone.
                    while let e = stack.popLast() {
                        if e.kind == .undo { registers[Int(e.a)] = e.b } else if e.kind == .barrier { break }
                    }
                    ok = false
                } else {
                    // Atomic: keep the undo entries of the body, drop its alternatives.
                    pos = stack[barrier].a
                    var kept = barrier
                    for k in (barrier + 1)..<stack.count where stack[k].kind == .undo {
                        stack[kept] = stack[k]
                        kept += 1
                    }
                    stack.removeLast(stack.count - kept)
                    pc = program.looks[l].end
                }
            case .match:
                return true
            }
            if ok { continue execute }
            // Backtrack to the most recent alternative.
            while let e = stack.popLast() {
                try step()
                switch e.kind {
                case .undo:
                    registers[Int(e.a)] = e.b
                case .choice:
                    pc = Int(e.pc)
                    pos = e.a
                    continue execute
                case .barrier:
                    let look = program.looks[Int(e.pc)]
                    if look.negative {
                        // The body failed everywhere: the negative lookaround holds.
                        pos = e.a
                        pc = look.end
                        continue execute
                    }
                case .greedyRun:
                    let run = program.runs[Int(e.pc)]
                    let p = run.backward ? e.b + 1 : e.b - 1
                    if p != e.a { try push(.greedyRun, Int(e.pc), e.a, p) }
                    pos = p
                    pc = run.next
                    continue execute
                case .lazyRun:
                    let run = program.runs[Int(e.pc)]
                    guard matches(run, at: e.a) else { continue }
                    let p = run.backward ? e.a - 1 : e.a + 1
                    if e.b > 1 { try push(.lazyRun, Int(e.pc), p, e.b - 1) }
                    pos = p
                    pc = run.next
                    continue execute
                }
            }
            return false
        }
    }
}
