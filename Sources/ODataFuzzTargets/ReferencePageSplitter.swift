import ODataProtocol

/// `PageSplitter` as it was before its wide scan (issue 7): outside strings byte by byte with
/// a table, inside strings eight bytes at a time. Kept, unchanged but for its name, as the
/// reference the wide scan is compared with: the `split` fuzz target and
/// Tests/ODataStoreTests/PageSplitterDifferentialTests.swift feed both the same pieces and
/// require the same runs, envelope, counters and errors. Not used by the library.
///
/// Pure (no I/O), a value type; not shared between threads.
public struct ReferencePageSplitter {
    private enum Phase { case preamble, array, trailer }

    public let version: ODataVersion
    public let maxHeldBytes: Int
    public let maxDepth: Int

    private var phase = Phase.preamble
    /// Bytes up to and including the entity array's `[`.
    private var preamble: [UInt8] = []
    /// The brackets that close the page after the entity array's `]` (`}`, `}}`).
    private var closers: [UInt8] = []
    /// Array content received and not taken: complete entities up to `cut`, then the rest.
    private var body: [UInt8] = []
    /// End of the complete entities in `body` (the position of the `,` after the last one).
    private var cut = 0
    /// Complete entities in `body[..<cut]`.
    private var ready = 0
    /// A non-space byte of an element seen since the last `,` (the last element is not empty).
    private var elementStarted = false
    /// A `,` was seen in the entity array.
    private var commaSeen = false
    /// From the array's `]` on.
    private var trailer: [UInt8] = []

    // Lexical state, kept across pieces.
    private var inString = false
    private var escaped = false
    /// Open containers, innermost last: true for an object.
    private var stack: [Bool] = []
    /// In an object, where the next string is a member name.
    private var expectingKey = false
    /// The string being read is a member name.
    private var stringIsKey = false
    /// Preamble: where the current string started (its first content byte).
    private var stringStart = 0
    /// Preamble: the last member name at depth 1 and 2 (top-level object, `d` object).
    private var key1: [UInt8] = []
    private var key2: [UInt8] = []
    /// Preamble: member names seen at depth 1, and whether the first one at depth 2 is a V2
    /// feed member (`results`, `__count`, `__next`, `__delta`). The decoder reads `d` as the
    /// V2 wrapper only when it is the first member, and `d`'s object as a feed only when its
    /// first member is a feed member (else as one entity): the split must agree with it.
    private var keys1 = 0
    private var keys2 = 0
    private var firstKey2IsFeed = false
    /// The page is not split but held and decoded whole: what comes before its array makes
    /// the decoder read it otherwise than as a feed (a single-entity context), or could (an
    /// escaped member name at the top level, which the decoder unescapes).
    private var wholePage = false
    private var total = 0
    /// Depth of the entity array's content (`stack.count` there), -1 outside the array.
    private var arrayLevel = -1
    /// Brackets open inside the current element of the entity array (not on `stack`: their
    /// kinds are left to the decoder, which reads every element whole).
    private var inner = 0

    public init(version: ODataVersion, maxHeldBytes: Int, maxDepth: Int = PayloadDecoder.maxDepth + 2) {
        self.version = version
        self.maxHeldBytes = maxHeldBytes
        self.maxDepth = maxDepth
    }

    /// Bytes of complete entities ready to take.
    public var readyBytes: Int { cut }
    /// Complete entities ready to take.
    public var readyEntities: Int { ready }
    /// Whether the entity array was found (entities are being split off).
    public var foundArray: Bool { phase != .preamble }
    /// Bytes fed so far.
    public var bytesFed: Int { total }
    /// Bytes held now (the high-water mark of this is what streaming bounds).
    public var heldBytes: Int { preamble.count + body.count + trailer.count }

    /// Takes the next piece of the body.
    ///
    /// Speed (it sees every byte of a download): a string is skipped eight bytes at a time to
    /// its next quote or backslash, and outside strings, except between the entities, bytes
    /// other than quotes, brackets and commas are skipped with a table lookup.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(PayloadError) {
        guard let raw = bytes.baseAddress, !bytes.isEmpty else { return }
        let p = UnsafeBufferPointer(start: raw.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        let table = referenceStructuralTable
        var i = 0
        var segment = 0  // start of the bytes of `p` not yet copied into the phase's buffer
        let n = p.count
        while i < n {
            if inString {
                if escaped {
                    escaped = false
                    i += 1
                    continue
                }
                i = Self.scanString(p, i)
                if i == n { break }
                if p[i] == 0x5C {
                    escaped = true
                    i += 1
                    continue
                }
                inString = false
                if stringIsKey {  // a member name before the entity array
                    stringIsKey = false
                    flush(p, &segment, i)
                    let name = Array(preamble[stringStart...])
                    if stack.count == 1 {
                        key1 = name
                        keys1 += 1
                        if name.contains(0x5C) { wholePage = true }  // an escaped name: the decoder's to read
                    } else if stack.count == 2 {
                        key2 = name
                        if keys2 == 0 { firstKey2IsFeed = Self.feedKeys.contains(name) }
                        keys2 += 1
                    }
                } else if phase == .preamble, stack.count == 1, version == .v4,
                          Self.contextKeys.contains(key1) {
                    // `"@odata.context": "...#People(1)/$entity"` before `value`: the decoder
                    // reads the page as one entity whose `value` is a property, not a feed.
                    flush(p, &segment, i)
                    let text = preamble[stringStart...]
                    if text.contains(0x5C) || Self.endsWithEntity(text) { wholePage = true }
                }
                i += 1
                continue
            }
            if inner > 0 {
                // Inside an entity: brackets are counted, strings skipped; nothing else matters.
                let end = skipInterior(p, i, table)
                if end < 0 {
                    throw PayloadError(.malformed, "the page nests deeper than \(maxDepth) levels", offset: total + i)
                }
                i = end
                if i == n { break }
                continue
            }
            if phase != .array || stack.count != arrayLevel {
                // Before or after the array: only quotes, brackets and commas change anything.
                while i < n, table[Int(p[i])] == 0 { i += 1 }
                if i == n { break }
            }
            let c = p[i]
            switch c {
            case 0x22:  // "
                inString = true
                if phase == .preamble {
                    flush(p, &segment, i + 1)
                    stringStart = preamble.count
                    stringIsKey = expectingKey
                } else if phase == .array, stack.count == arrayLevel {
                    elementStarted = true
                }
                expectingKey = false
            case 0x7B, 0x5B:  // { [
                if phase == .array, stack.count == arrayLevel {
                    // An entity (or other element) begins: counted, not stacked, to its end.
                    elementStarted = true
                    inner = 1
                    break
                }
                let object = c == 0x7B
                stack.append(object)
                if stack.count > maxDepth {
                    throw PayloadError(.malformed, "the page nests deeper than \(maxDepth) levels", offset: total + i)
                }
                expectingKey = object
                if phase == .preamble, !object, isEntityArray() {
                    flush(p, &segment, i + 1)
                    phase = .array
                    closers = stack.dropLast().reversed().map { $0 ? 0x7D : 0x5D }
                    arrayLevel = stack.count
                }
            case 0x7D, 0x5D:  // } ]
                guard let top = stack.last, top == (c == 0x7D) else {
                    throw PayloadError(.malformed, "unbalanced \(c == 0x7D ? "}" : "]") in the page", offset: total + i)
                }
                if phase == .array, stack.count == arrayLevel {
                    // The entity array ends: the last element is complete.
                    flush(p, &segment, i)
                    if !elementStarted, commaSeen {
                        throw PayloadError(.malformed, "a comma before the end of the page's entities", offset: total + i)
                    }
                    if elementStarted {
                        cut = body.count
                        ready += 1
                        elementStarted = false
                    }
                    phase = .trailer
                    arrayLevel = -1
                }
                stack.removeLast()
                expectingKey = false
            case 0x2C:  // ,
                if phase == .array, stack.count == arrayLevel {
                    guard elementStarted else {
                        throw PayloadError(.malformed, "an empty element among the page's entities", offset: total + i)
                    }
                    commaSeen = true
                    // Where the comma will be in `body` once the piece is copied (at its end,
                    // in one copy); takeChunk drops it with the entities before it.
                    cut = body.count + (i - segment)
                    ready += 1
                    elementStarted = false
                } else {
                    expectingKey = stack.last == true
                }
            case 0x20, 0x0A, 0x0D, 0x09, 0x3A:
                break
            default:
                if phase == .array, stack.count == arrayLevel { elementStarted = true }
            }
            i += 1
        }
        flush(p, &segment, n)
        total += n
        if phase == .preamble, preamble.count > maxHeldBytes {
            throw PayloadError(.invalid, "more than \(maxHeldBytes) bytes before the page's entities", offset: total)
        }
        if body.count - cut > maxHeldBytes {
            throw PayloadError(.invalid, "an entity of the page is larger than \(maxHeldBytes) bytes", offset: total)
        }
        if trailer.count > maxHeldBytes {
            throw PayloadError(.invalid, "more than \(maxHeldBytes) bytes after the page's entities", offset: total)
        }
    }

    /// The complete entities received and not taken yet, as a document of the page's shape
    /// (nil when there are none), and how many there are.
    public mutating func takeChunk() -> (document: [UInt8], entities: Int)? {
        var doc: [UInt8] = []
        guard let entities = takeChunk(into: &doc) else { return nil }
        return (doc, entities)
    }

    /// `takeChunk` into `doc` (emptied first; its memory is reused when it is the only
    /// reference to it): the number of entities, nil when there are none (`doc` unchanged).
    public mutating func takeChunk(into doc: inout [UInt8]) -> Int? {
        guard ready > 0 else { return nil }
        doc.removeAll(keepingCapacity: true)
        doc.reserveCapacity(preamble.count + cut + 1 + closers.count)
        doc.append(contentsOf: preamble)
        doc.append(contentsOf: body[..<cut])
        doc.append(0x5D)
        doc.append(contentsOf: closers)
        let entities = ready
        // Drop the taken entities and the comma after them (when the array goes on).
        let rest = cut < body.count && body[cut] == 0x2C ? cut + 1 : cut
        body.removeSubrange(..<rest)
        cut = 0
        ready = 0
        return entities
    }

    /// After the last piece: the page without its entities (take them all first), which
    /// carries the page's annotations; the whole page when no entity array was found.
    public mutating func finish() throws(PayloadError) -> [UInt8] {
        if inString || !stack.isEmpty {
            throw PayloadError(.malformed, "the page ends inside \(inString ? "a string" : "an object or array")", offset: total)
        }
        if phase == .preamble { return preamble }
        if ready > 0 || phase == .array {
            throw PayloadError(.malformed, "the page's entities were not all taken", offset: total)
        }
        return preamble + trailer
    }

    // MARK: -

    /// Skips the inside of an element from `start`: strings (escapes included) and brackets,
    /// counted in `inner`. Returns the index after the element's closing bracket, or the end
    /// of the piece (with `inString`/`escaped`/`inner` saved for the next one); -1 when the
    /// nesting passes `maxDepth`.
    @inline(__always)
    private mutating func skipInterior(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ table: UnsafePointer<UInt8>) -> Int {
        var i = start
        let n = p.count
        var depth = inner
        defer { inner = depth }
        while i < n {
            let c = p[i]
            if table[Int(c)] == 0 {
                i += 1
                continue
            }
            switch c {
            case 0x22:
                i = Self.scanString(p, i + 1)
                while i < n, p[i] == 0x5C {
                    if i + 1 >= n {
                        inString = true
                        escaped = true
                        return n
                    }
                    i = Self.scanString(p, i + 2)
                }
                if i >= n {
                    inString = true
                    return n
                }
            case 0x7B, 0x5B:
                depth += 1
                if depth + stack.count > maxDepth { return -1 }
            case 0x7D, 0x5D:
                depth -= 1
                if depth == 0 { return i + 1 }
            default:
                break
            }
            i += 1
        }
        return n
    }

    /// Index of the next quote or backslash at or after `i` (or the end): eight bytes at a
    /// time (a zero byte of `w ^ pattern` is a match; the lowest flagged byte is exact).
    @inline(__always)
    static func scanString(_ p: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        let n = p.count
        let raw = UnsafeRawPointer(p.baseAddress!)
        while i + 8 <= n {
            let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let q = w ^ 0x2222_2222_2222_2222
            let b = w ^ 0x5C5C_5C5C_5C5C_5C5C
            let m = (((q &- 0x0101_0101_0101_0101) & ~q) | ((b &- 0x0101_0101_0101_0101) & ~b)) & 0x8080_8080_8080_8080
            if m != 0 { return i + (UInt64(littleEndian: m).trailingZeroBitCount >> 3) }
            i += 8
        }
        while i < n, p[i] != 0x22, p[i] != 0x5C { i += 1 }
        return i
    }

    /// Whether the array just opened (last on the stack) is the page's entity array.
    private func isEntityArray() -> Bool {
        if wholePage { return false }
        switch version {
        case .v4:
            return stack.count == 2 && stack[0] && key1 == Self.value
        case .v2:
            // `{"d": [...]}` or `{"d": {"results": [...], ...}}`, read as the decoder reads
            // them (`JSONTranscoder.decodeV2`): `d` first, and `d`'s first member a feed one.
            guard stack[0], keys1 == 1, key1 == Self.d else { return false }
            if stack.count == 2 { return true }
            return stack.count == 3 && stack[1] && firstKey2IsFeed && key2 == Self.results
        }
    }

    private static let value = Array("value".utf8)
    private static let d = Array("d".utf8)
    private static let results = Array("results".utf8)
    /// The spellings of the context control member (`JSONTranscoder.controlTerm`).
    private static let contextKeys = ["@odata.context", "odata.context", "@context"].map { Array($0.utf8) }
    private static let entitySuffix = Array("/$entity".utf8)

    private static func endsWithEntity(_ text: ArraySlice<UInt8>) -> Bool {
        text.count >= entitySuffix.count && text.suffix(entitySuffix.count).elementsEqual(entitySuffix)
    }
    private static let feedKeys = ["results", "__count", "__next", "__delta"].map { Array($0.utf8) }

    /// Copies `p[segment..<end]` into the current phase's buffer.
    private mutating func flush(_ p: UnsafeBufferPointer<UInt8>, _ segment: inout Int, _ end: Int) {
        guard end > segment else { return }
        let slice = UnsafeBufferPointer(rebasing: p[segment..<end])
        switch phase {
        case .preamble: preamble.append(contentsOf: slice)
        case .array: body.append(contentsOf: slice)
        case .trailer: trailer.append(contentsOf: slice)
        }
        segment = end
    }
}

/// 1 for the bytes that matter outside strings within an entity: `"` `,` `[` `]` `{` `}`.
/// Allocated once, never written after its initialisation (hence safe to share) and never freed.
nonisolated(unsafe) private let referenceStructuralTable: UnsafePointer<UInt8> = {
    let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    t.initialize(repeating: 0, count: 256)
    for c in [0x22, 0x2C, 0x5B, 0x5D, 0x7B, 0x7D] { t[c] = 1 }
    return UnsafePointer(t)
}()
