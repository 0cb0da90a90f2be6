/// Turns a parsed pattern into a `RegexProgram`, following ECMAScript's matcher semantics
/// (ECMA-262, 22.2.2 Pattern Semantics):
///
/// - alternatives in order of preference; a sequence's terms right to left inside a
///   lookbehind (direction -1), where a group saves its end before its start;
/// - a quantifier over a single code point becomes a `run`; any other quantified atom a
///   counted loop whose repetitions clear the captures inside the atom, and whose optional
///   repetitions may not match the empty string (RepeatMatcher); `{0}` matches the empty
///   string, `{1}` is the atom itself;
/// - lookarounds between `lookStart`/`lookEnd`: atomic, as in ECMAScript.
///
/// The recursion follows the tree's depth, which the parser bounds (`RegexLimits.nesting`).
struct RegexCompiler {
    private var code: [RegexProgram.Instruction] = []
    private var sets: [CodePointSet] = []
    private var runs: [RegexProgram.Run] = []
    private var loops: [RegexProgram.Loop] = []
    private var looks: [RegexProgram.Look] = []
    private let groupCount: Int

    static func compile(_ pattern: ECMAPatternParser.Pattern) -> RegexProgram {
        var c = RegexCompiler(groupCount: pattern.groupCount)
        c.emit(pattern.root, backward: false)
        c.code.append(.match)
        let (first, nullable) = Self.firstCharacters(pattern.root)
        return RegexProgram(instructions: c.code, sets: c.sets, runs: c.runs, loops: c.loops, looks: c.looks,
                            registerCount: 2 * (pattern.groupCount + 1) + 2 * c.loops.count,
                            groupCount: pattern.groupCount,
                            anchoredAtStart: Self.anchored(pattern.root),
                            firstCharacters: nullable ? nil : first)
    }

    private init(groupCount: Int) {
        self.groupCount = groupCount
    }

    private mutating func set(_ s: CodePointSet) -> Int {
        if let i = sets.firstIndex(of: s) { return i }
        sets.append(s)
        return sets.count - 1
    }

    private static func bound(_ n: Int?) -> Int32 {
        guard let n else { return Int32.max }
        return Int32(clamping: n)
    }

    private mutating func emit(_ node: RegexNode, backward: Bool) {
        switch node {
        case .empty:
            break
        case .character(let c):
            code.append(.character(c, backward: backward))
        case .set(let s):
            code.append(.set(set(s), backward: backward))
        case .sequence(let items):
            for item in backward ? Array(items.reversed()) : items { emit(item, backward: backward) }
        case .alternation(let alternatives):
            var jumps: [Int] = []
            for (k, alternative) in alternatives.enumerated() {
                guard k < alternatives.count - 1 else {
                    emit(alternative, backward: backward)
                    break
                }
                let split = code.count
                code.append(.split(prefer: split + 1, other: -1))
                emit(alternative, backward: backward)
                jumps.append(code.count)
                code.append(.jump(-1))
                code[split] = .split(prefer: split + 1, other: code.count)
            }
            for j in jumps { code[j] = .jump(code.count) }
        case .capture(let g, let body):
            code.append(.save(backward ? 2 * g + 1 : 2 * g))
            emit(body, backward: backward)
            code.append(.save(backward ? 2 * g : 2 * g + 1))
        case .look(let behind, let negative, let body):
            let index = looks.count
            looks.append(RegexProgram.Look(negative: negative, end: -1))
            code.append(.lookStart(index))
            emit(body, backward: behind)
            code.append(.lookEnd(index))
            looks[index].end = code.count
        case .backreference(let g):
            code.append(.backreference(group: g, backward: backward))
        case .assertion(let a):
            code.append(.assertion(a))
        case .quantified(let body, let min, let max, let greedy, let groups):
            quantified(body, min: min, max: max, greedy: greedy, groups: groups, backward: backward)
        }
    }

    private mutating func quantified(_ body: RegexNode, min: Int, max: Int?, greedy: Bool, groups: ClosedRange<Int>?, backward: Bool) {
        if max == 0 { return }
        if min == 1 && max == 1 { return emit(body, backward: backward) }
        switch body {
        case .character(let c):
            return run(RegexProgram.Run(character: c, set: -1, min: Self.bound(min), max: Self.bound(max), greedy: greedy, backward: backward, next: -1))
        case .set(let s):
            return run(RegexProgram.Run(character: nil, set: set(s), min: Self.bound(min), max: Self.bound(max), greedy: greedy, backward: backward, next: -1))
        default:
            break
        }
        let index = loops.count
        let registers = 2 * (groupCount + 1) + 2 * index
        let captures = groups.map { (2 * $0.lowerBound)..<(2 * $0.upperBound + 2) } ?? 0..<0
        loops.append(RegexProgram.Loop(counter: registers, start: registers + 1, min: Self.bound(min), max: Self.bound(max),
                                       greedy: greedy, captures: captures, head: -1, exit: -1))
        code.append(.loopInit(index))
        loops[index].head = code.count
        code.append(.loopHead(index))
        code.append(.loopEnter(index))
        emit(body, backward: backward)
        code.append(.loopTail(index))
        loops[index].exit = code.count
    }

    private mutating func run(_ r: RegexProgram.Run) {
        var r = r
        code.append(.run(runs.count))
        r.next = code.count
        runs.append(r)
    }

    // MARK: - Search shortcuts

    /// True when every match starts at position 0.
    static func anchored(_ node: RegexNode) -> Bool {
        switch node {
        case .assertion(.start): return true
        case .sequence(let items): return items.first.map(anchored) ?? false
        case .alternation(let alternatives): return alternatives.allSatisfy(anchored)
        case .capture(_, let body): return anchored(body)
        default: return false
        }
    }

    /// The code points a match of `node` can start with (nil: any) and whether it can
    /// match the empty string.
    static func firstCharacters(_ node: RegexNode) -> (CodePointSet?, nullable: Bool) {
        switch node {
        case .empty, .assertion, .look:
            return (.empty, true)
        case .character(let c):
            return (CodePointSet([c...c]), false)
        case .set(let s):
            return (s, false)
        case .backreference:
            return (nil, true)
        case .capture(_, let body):
            return firstCharacters(body)
        case .quantified(let body, let min, let max, _, _):
            if max == 0 { return (.empty, true) }
            let (s, nullable) = firstCharacters(body)
            return (s, nullable || min == 0)
        case .sequence(let items):
            var all = CodePointSet()
            for item in items {
                let (s, nullable) = firstCharacters(item)
                guard let s else { return (nil, true) }
                all.formUnion(s)
                if !nullable { return (all, false) }
            }
            return (all, true)
        case .alternation(let alternatives):
            var all = CodePointSet()
            var anyNullable = false
            for a in alternatives {
                let (s, nullable) = firstCharacters(a)
                guard let s else { return (nil, true) }
                all.formUnion(s)
                anyNullable = anyNullable || nullable
            }
            return (all, anyNullable)
        }
    }
}
