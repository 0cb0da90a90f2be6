#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The streaming core of the JSON payload decoders: reads a V2 or V4 JSON body token by token
/// (`JSONScanner`) and writes the canonical shape (docs/json-shape.md) straight into `out`,
/// typing values from the model as it goes. No tree is built for entity data: validated
/// strings and numbers are copied as byte spans.
///
/// A type name of a payload (V2 `__metadata.type`, V4 `@odata.type`) as
/// `JSONTranscoder.typeMemo` resolved it (a class: handed out per entity with one retain).
/// Immutable.
final class TypeNameMemo {
    /// The value's bytes as written (no escapes).
    let bytes: [UInt8]
    let name: String
    /// `PayloadModelIndex.type(name)`.
    let info: PayloadTypeInfo?
    /// `JSONTranscoder.resolvedStructuredName(name)`.
    let resolved: String?

    init(bytes: [UInt8], name: String, info: PayloadTypeInfo?, resolved: String?) {
        self.bytes = bytes
        self.name = name
        self.info = info
        self.resolved = resolved
    }
}

/// One instance decodes one body on one thread; it borrows the scanner's memory.
struct JSONTranscoder {
    var s: JSONScanner
    /// The canonical JSON being written (raw memory, see `AtomByteWriter`).
    var out: AtomByteWriter
    /// Scratch bytes reused per object for the control information inserted at its start.
    var header = AtomByteWriter(capacity: 256)
    /// Scratch bytes for converted values (V2 dates).
    var scratch: [UInt8] = []
    let version: ODataVersion
    let index: PayloadModelIndex?
    /// Raw member-name spans of the objects being written (duplicate detection), one frame per
    /// open object: the names that are not in the object's bit set of declared members.
    var seenKeys: [JSONScanner.StringToken] = []
    /// Hash sets of the open objects with `linearNameLimit` names in `seenKeys` (their later
    /// names are there), innermost last; `nameSetCount` are in use, the others keep their
    /// memory for the next.
    var nameSets: [MemberNameSet] = []
    var nameSetCount = 0
    /// Up to this many names an object's duplicate check compares a new name with each earlier
    /// one (what entities need: a handful of annotations and undeclared or 65th-and-later
    /// members); past it the object's names go into a `MemberNameSet`.
    static let linearNameLimit = 32
    /// Member-order memos, one per declared type met (at most 16): after the type's entry at
    /// `base`, `chains[base + 1 + n]` is the member number that followed member `n` in the last
    /// object of that type (`chains[base]`: its first member), -1 when none. The members of a
    /// page's entities come in the same order, so the next key is checked against that member's
    /// name before any hashing.
    var chains: [Int32] = []
    var chainTypes: [(type: PayloadTypeInfo, base: Int)] = []
    /// Memo of type-annotation values to member kinds.
    var typeHints = ByteKeyedTable<(PayloadMember.Kind, Bool)>()
    /// Memo of `@odata.type`/`__metadata.type` names to the qualified name to report (nil: primitive/collection).
    /// A short list searched in order: a response names one or two types, and a dictionary
    /// cost an allocation and a hash per response.
    var structuredNames: [(name: String, resolved: String?)] = []
    /// The type names met last without escapes, the latest first (`typeMemo`; at most 8).
    var typeMemos: [TypeNameMemo] = []
    /// Whether `PayloadSpans` are recorded into `rec` while writing (`JSONTranscoder+Spans.swift`).
    let recording: Bool
    var rec: SpanRecorder
    /// Where in `out` the last string known to have no escape sequence ends (`rawString` of a
    /// token without escapes, a number quoted as a string), -1 after one that may have some or
    /// when `out` was cut back: a value that ends there is that string (only a string ends with
    /// a quote), `PayloadSpans.plainString` (`spanEndValue`). Everything written later lies
    /// after it, as `out` only grows (an insertion moves the end further).
    var plainStringEnd = -1

    /// The output memory for a body of `bodyBytes`: the canonical text is rarely longer than
    /// the body (annotations go; quotes around Int64 and Decimal numbers and V2's converted
    /// dates come), so this is rarely outgrown.
    static func outputCapacity(forBody bodyBytes: Int) -> Int { bodyBytes + bodyBytes / 8 + 64 }

    /// `output`: memory to write the canonical text into (`AtomByteWriter.init(borrowing:)`,
    /// valid while the transcoder writes), else the transcoder allocates
    /// `outputCapacity(forBody: capacity)` bytes of its own.
    init(scanner: JSONScanner, version: ODataVersion, index: PayloadModelIndex?, capacity: Int, spans: Bool = false,
         output: UnsafeMutableBufferPointer<UInt8>? = nil) {
        s = scanner
        self.version = version
        self.index = index
        out = output.map { AtomByteWriter(borrowing: $0) } ?? AtomByteWriter(capacity: Self.outputCapacity(forBody: capacity))
        recording = spans
        // Members reserved for one per 8 body bytes (an entity page has one per 20 or more): not
        // grown in practice; reserved memory a page does not use is never touched, so costs nothing.
        rec = SpanRecorder(reserving: spans ? capacity / 8 + 64 : 0)
        seenKeys.reserveCapacity(32)  // one allocation, not one per doubling up to an entity's width
    }

    // MARK: Output helpers

    @inline(__always) mutating func byte(_ b: UInt8) { out.append(b) }

    @inline(__always) mutating func ascii(_ text: StaticString) { out.append(text) }

    /// Appends the raw span of a string token, quotes included (already valid JSON).
    @inline(__always) mutating func rawString(_ t: JSONScanner.StringToken) {
        out.appendQuoted(s.base + t.start, count: t.length)
        plainStringEnd = t.escaped ? -1 : out.count
    }

    @inline(__always) mutating func rawBytes(_ r: Range<Int>) {
        out.append(UnsafeBufferPointer(start: s.base + r.lowerBound, count: r.count))
    }

    mutating func string(_ text: String) {
        plainStringEnd = -1
        out.appendString(text)
    }

    /// `"name":` with a leading comma when `comma`.
    @inline(__always) mutating func key(_ t: JSONScanner.StringToken, comma: Bool) {
        out.appendKey(s.base + t.start, count: t.length, comma: comma)
    }

    mutating func key(_ name: StaticString, comma: Bool) {
        if comma { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\""))
        ascii(name)
        ascii("\":")
    }

    /// The namespace-qualified name of a structured type named in a payload (aliases resolved),
    /// or nil for primitive and collection types (never written as an entity's `@odata.type`).
    mutating func resolvedStructuredName(_ t: String) -> String? {
        for entry in structuredNames where entry.name == t { return entry.resolved }
        var r: String? = nil
        if let ti = index?.type(t) {
            r = ti.qualifiedName
        } else if !t.hasPrefix("Collection(") {
            let resolved = index?.model.resolve(t) ?? t
            r = EdmPrimitiveKind(qualifiedName: resolved.contains(".") ? resolved : "Edm." + resolved) == nil ? resolved : nil
        }
        if structuredNames.count < 16 { structuredNames.append((t, r)) }  // feeds of many types: stop memoising
        return r
    }

    // MARK: Generic copies

    /// Copies one value compactly, unchanged (whitespace between tokens dropped).
    mutating func copyValue() throws(JSONError) {
        let b = try s.peek()
        switch b {
        case UInt8(ascii: "\""): rawString(try s.scanString())
        case UInt8(ascii: "{"):
            byte(UInt8(ascii: "{"))
            if try s.beginObject() {
                var comma = false
                repeat {
                    key(try s.readKey(), comma: comma)
                    comma = true
                    try copyValue()
                } while try s.nextMember()
            }
            byte(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            byte(UInt8(ascii: "["))
            if try s.beginArray() {
                var comma = false
                repeat {
                    if comma { byte(UInt8(ascii: ",")) }
                    comma = true
                    try copyValue()
                } while try s.nextElement()
            }
            byte(UInt8(ascii: "]"))
        case UInt8(ascii: "-"), 0x30...0x39: rawBytes(try s.scanNumber())
        case UInt8(ascii: "t"):
            _ = try s.scanLiteral(); ascii("true")
        case UInt8(ascii: "f"):
            _ = try s.scanLiteral(); ascii("false")
        case UInt8(ascii: "n"):
            _ = try s.scanLiteral(); ascii("null")
        default: throw s.fail("unexpected \(JSONScanner.describe(b))")
        }
    }

    /// Reads a string or a number as text (a count sent as `"5"` or `5`); nil for other values (skipped).
    mutating func readScalarText() throws(JSONError) -> String? {
        let b = try s.peek()
        if b == UInt8(ascii: "\"") { return s.string(try s.scanString()) }
        if b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39) { return s.text(try s.scanNumber()) }
        try s.skipValue()
        return nil
    }

    /// A next/delta link: a string, or pyslet's `{"uri": "..."}` object.
    mutating func readLink() throws(JSONError) -> String? {
        let b = try s.peek()
        if b == UInt8(ascii: "\"") { return s.string(try s.scanString()) }
        if b == UInt8(ascii: "{") {
            var link: String? = nil
            if try s.beginObject() {
                repeat {
                    let k = try s.readKey()
                    if s.equals(k, "uri"), try s.peek() == UInt8(ascii: "\"") {
                        link = s.string(try s.scanString())
                    } else {
                        try s.skipValue()
                    }
                } while try s.nextMember()
            }
            return link
        }
        try s.skipValue()
        return nil
    }

    /// The first member name of the object at the current position, without consuming anything.
    mutating func peekFirstKey() throws(JSONError) -> JSONScanner.StringToken? {
        let save = (s.pos, s.depth)
        defer { s.pos = save.0; s.depth = save.1 }
        guard try s.peek() == UInt8(ascii: "{"), try s.beginObject() else { return nil }
        return try s.readKey()
    }

    /// True when the first member of the object at the current position has an object value (looks ahead).
    mutating func firstValueIsObject() throws(JSONError) -> Bool {
        let save = (s.pos, s.depth)
        defer { s.pos = save.0; s.depth = save.1 }
        guard try s.peek() == UInt8(ascii: "{"), try s.beginObject() else { return false }
        _ = try s.readKey()
        return try s.peek() == UInt8(ascii: "{")
    }

    /// True when the object at the current position has exactly one member (looks ahead, consumes nothing).
    mutating func objectHasSingleMember() throws(JSONError) -> Bool {
        let save = (s.pos, s.depth)
        defer { s.pos = save.0; s.depth = save.1 }
        guard try s.peek() == UInt8(ascii: "{"), try s.beginObject() else { return false }
        _ = try s.readKey()
        try s.skipValue()
        return try !s.nextMember()
    }

    /// Records a member name of the current object (its names start at `frame` in `seenKeys`);
    /// throws on a repeated name (compared as spelled). O(1) per name, expected: the first
    /// `linearNameLimit` names of an object are compared with each other (fewer than 500 byte
    /// comparisons, no hashing), later ones go through the object's `MemberNameSet`.
    mutating func noteKey(_ k: JSONScanner.StringToken, frame: Int) throws(JSONError) {
        guard seenKeys.count &- frame < Self.linearNameLimit else { return try noteKeyHashed(k, frame: frame) }
        let base = s.base
        let n = k.length
        let duplicate = seenKeys.withUnsafeBufferPointer { seen -> Bool in
            var i = frame
            while i < seen.count {
                let o = seen[i]
                if o.end &- o.start == n && (n == 0 || base[o.start] == base[k.start]) {
                    var j = 1
                    while j < n && base[o.start &+ j] == base[k.start &+ j] { j &+= 1 }
                    if j >= n { return true }
                }
                i &+= 1
            }
            return false
        }
        if duplicate { throw self.duplicate(k) }
        seenKeys.append(k)
    }

    /// `noteKey` for an object with `linearNameLimit` names or more in `seenKeys`: the object's
    /// later names go into the innermost `MemberNameSet` (not into `seenKeys`), made from its
    /// names so far (distinct) on the first of them.
    @inline(never)
    mutating func noteKeyHashed(_ k: JSONScanner.StringToken, frame: Int) throws(JSONError) {
        let base = s.base
        if nameSetCount == 0 || nameSets[nameSetCount - 1].frame != frame {
            if nameSetCount == nameSets.count { nameSets.append(MemberNameSet()) }
            nameSets[nameSetCount].reset(frame: frame, expected: 4 * Self.linearNameLimit)
            for i in frame..<seenKeys.count { _ = nameSets[nameSetCount].insert(seenKeys[i], base: base) }
            nameSetCount += 1
        }
        if !nameSets[nameSetCount - 1].insert(k, base: base) { throw duplicate(k) }
    }

    /// Forgets the names of the object whose names start at `frame` (it is complete).
    @inline(__always)
    mutating func dropKeys(frame: Int) {
        while seenKeys.count > frame { seenKeys.removeLast() }
        if nameSetCount != 0 { dropNameSet(frame: frame) }
    }

    /// The part of `dropKeys` for wide objects, out of line: inlined, it made `writeObject`
    /// too large for the compiler to keep inlining `writeDeclaredMember` into it (measured:
    /// +2% instructions per V4 page).
    @inline(never)
    mutating func dropNameSet(frame: Int) {
        if nameSets[nameSetCount - 1].frame == frame { nameSetCount -= 1 }
    }

    /// The error for a repeated member name.
    func duplicate(_ k: JSONScanner.StringToken) -> JSONError {
        JSONError(offset: k.start - 1, message: "duplicate property \"\(s.string(k))\"")
    }

    /// Where `type`'s member-order memo starts in `chains` (made on first use), or -1 (no memo:
    /// more than 16 types met, or a type of more than 1,024 members, whose memo would cost more
    /// to set up per decode than hashing its keys).
    ///
    /// `ordinals`: what the spans' member ordinals of `type` start at (its place among the types
    /// with a memo, times 1,024: `PayloadSpans.Member.ordinal` is that plus the member's
    /// number), -1 without a memo.
    mutating func chainBase(_ type: PayloadTypeInfo) -> (base: Int, ordinals: Int) {
        for (i, c) in chainTypes.enumerated() where c.type === type { return (c.base, i &* 1024) }
        guard chainTypes.count < 16, type.memberSlots.count <= 1024 else { return (-1, -1) }
        let base = chains.count
        chains.append(contentsOf: repeatElement(-1, count: type.memberSlots.count + 1))
        chainTypes.append((type, base))
        return (base, (chainTypes.count - 1) &* 1024)
    }

    /// The number of `type`'s member whose name is `k`'s raw spelling, or nil. The member that
    /// followed member `prev` (-1: the first member) in the last object of this type is tried first.
    /// `slots` and `names` are `type`'s `slotPointer` and `namePointer`.
    @inline(__always)
    mutating func memberNumber(_ type: PayloadTypeInfo?, _ slots: UnsafeMutablePointer<PayloadMemberSlot>,
                               _ names: UnsafeMutablePointer<UInt8>, _ k: JSONScanner.StringToken,
                               chain: Int, prev: Int) -> Int? {
        let p = s.base + k.start
        if chain >= 0 {
            let expected = Int(chains[chain &+ prev &+ 1])
            if expected >= 0 {
                let slot = slots[expected]
                if slot.nameLength == k.length {
                    let name = names + slot.nameStart
                    var i = 0
                    while i < k.length && name[i] == p[i] { i &+= 1 }
                    if i == k.length { return expected }
                }
            }
        }
        guard let type, !(k.length > 0 && p[0] == UInt8(ascii: "@") && !type.hasNameStartingWithAt),
              let n = type.memberNumbers.lookup(p, k.length) else { return nil }
        if chain >= 0 { chains[chain &+ prev &+ 1] = Int32(truncatingIfNeeded: n) }
        return n
    }

    /// The next key when it is the member the memo expects after `prev` (-1: the first
    /// member), spelled exactly, after whitespace at most and directly followed by `:`: its
    /// token and the member's number, the scanner moved past the `:`. Nil otherwise, the scanner
    /// moved past the whitespace only: the caller reads the key in full (`readKey`, `memberNumber`). The member's
    /// name has no byte JSON would escape (`isVerbatimKey`), so the token is the one `readKey`
    /// gives, and a key is matched without scanning it (about 60% of a V2 entity's keys' cost).
    @inline(__always)
    mutating func predictedKey(_ slots: UnsafeMutablePointer<PayloadMemberSlot>, _ names: UnsafeMutablePointer<UInt8>,
                               chain: Int, prev: Int) -> (key: JSONScanner.StringToken, number: Int)? {
        guard chain >= 0 else { return nil }
        let expected = Int(chains[chain &+ prev &+ 1])
        guard expected >= 0 else { return nil }
        let slot = slots[expected]
        s.skipWhitespace()  // as readKey does first
        let q = s.pos
        let n = slot.nameLength
        guard slot.isVerbatimKey, q &+ n &+ 3 <= s.count, s.base[q] == UInt8(ascii: "\""),
              s.base[q &+ n &+ 1] == UInt8(ascii: "\""), s.base[q &+ n &+ 2] == UInt8(ascii: ":") else { return nil }
        // One `memcmp` call: a byte loop here was about 500 instructions per V4 product (eleven
        // names of 2 to 12 bytes); `ShortBytes.equal` inlined here made `writeObject` too large
        // for the compiler to keep inlining `writeDeclaredMember` into it (measured: +200).
        guard memcmp(names + slot.nameStart, s.base + q + 1, n) == 0 else { return nil }
        s.pos = q &+ n &+ 3
        return (JSONScanner.StringToken(start: q &+ 1, end: q &+ 1 &+ n, escaped: false), expected)
    }

    @inline(__always) func memcmpEqual(_ a: Int, _ b: Int, _ n: Int) -> Bool {
        var i = 0
        while i < n {
            if s.base[a + i] != s.base[b + i] { return false }
            i += 1
        }
        return true
    }
}
