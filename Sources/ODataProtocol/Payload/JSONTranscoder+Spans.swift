/// A growable array of plain values in raw memory: appends and element writes without the
/// uniqueness check and reference counting each `Array` access costs on the transcoder's hot
/// path (the recorder writes a few of them per member). Same ownership rules as
/// `AtomByteWriter`: copies are for reading only. Not thread-safe.
struct RawSpanBuffer<Element: BitwiseCopyable> {
    private final class Storage {
        /// Nil once handed over (`take`).
        var pointer: UnsafeMutablePointer<Element>?
        init(capacity: Int) { pointer = .allocate(capacity: capacity) }
        deinit { pointer?.deallocate() }
    }

    /// Nil until the first element (a transcoder that does not record allocates nothing).
    private var storage: Storage?
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        if capacity > 0 {
            let s = Storage(capacity: capacity)
            storage = s
            base = s.pointer!
        } else {
            base = UnsafeMutablePointer(bitPattern: MemoryLayout<Element>.alignment)!  // never read: count is 0
        }
        self.capacity = capacity
    }

    private mutating func grow(_ needed: Int) {
        var c = max(capacity * 2, 16)
        while c < needed { c *= 2 }
        guard let storage else {
            let s = Storage(capacity: c)
            storage = s
            base = s.pointer!
            capacity = c
            return
        }
        let p = UnsafeMutablePointer<Element>.allocate(capacity: c)
        p.initialize(from: base, count: count)
        storage.pointer?.deallocate()
        storage.pointer = p
        base = p
        capacity = c
    }

    @inline(__always)
    mutating func append(_ e: Element) {
        if count == capacity { grow(count + 1) }
        (base + count).initialize(to: e)
        count += 1
    }

    /// Appends `n` elements of another buffer's memory.
    mutating func append(_ p: UnsafePointer<Element>, count n: Int) {
        if count + n > capacity { grow(count + n) }
        (base + count).initialize(from: p, count: n)
        count += n
    }

    @inline(__always)
    subscript(i: Int) -> Element {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }

    @inline(__always)
    mutating func truncate(to n: Int) { count = n }

    /// Hands the elements' memory over to the caller, who must deallocate it; the buffer is
    /// left empty and unusable.
    mutating func take() -> (pointer: UnsafeMutablePointer<Element>, count: Int) {
        if storage == nil { grow(1) }
        let r = (base, count)
        storage?.pointer = nil
        storage = nil
        count = 0
        capacity = 0
        return r
    }
}

/// The `PayloadSpans` a transcoder records while it writes, when its caller asked for them
/// (`JSONTranscoder.recording`; otherwise every call below returns at once). Owned by one
/// transcoder, on its thread.
struct SpanRecorder {
    var members: RawSpanBuffer<PayloadSpans.Member>
    var objects: RawSpanBuffer<PayloadSpans.Object>
    /// The members of the objects still open, innermost object's last: an object's members
    /// move to `members` when it closes, so each object's members end up contiguous.
    var pending: RawSpanBuffer<PayloadSpans.Member>
    /// The members of the control information of the object being closed (`insertHeader`),
    /// with offsets into the header buffer.
    var header: RawSpanBuffer<PayloadSpans.Member>
    /// False once the transcoder wrote something the spans do not describe (a value result
    /// wrapped in `{"value":...}` afterwards, counts inserted before an expanded V2 feed):
    /// the payload then gets none.
    var valid = true

    /// `capacity` 0: allocates nothing (a transcoder that does not record).
    init(reserving capacity: Int) {
        members = RawSpanBuffer(capacity: capacity)
        objects = RawSpanBuffer(capacity: capacity / 6)
        pending = RawSpanBuffer(capacity: capacity > 0 ? 64 : 0)
        header = RawSpanBuffer(capacity: capacity > 0 ? 8 : 0)
    }
}

/// An open object's place in the recorder.
struct SpanFrame {
    /// Its index in `objects` (-1 when not recording).
    var object: Int
    /// `pending.count` and `members.count` when it opened.
    var pending: Int
    var members: Int
}

extension JSONTranscoder {
    /// Opens the record of the object whose `{` was just written.
    @inline(__always)
    mutating func spanOpen() -> SpanFrame {
        guard recording else { return SpanFrame(object: -1, pending: 0, members: 0) }
        let f = SpanFrame(object: rec.objects.count, pending: rec.pending.count, members: rec.members.count)
        rec.objects.append(PayloadSpans.Object(start: Int32(truncatingIfNeeded: out.count - 1), end: -1,
                                               firstMember: 0, memberCount: 0, subtreeEnd: 0))
        return f
    }

    /// Ends the value of the object's last member where the output ends now: called before
    /// the `,` of the next member and before the `}`.
    /// A value that ends where the last string without escapes ends (`plainStringEnd`) is that
    /// string: marked `PayloadSpans.plainString`.
    @inline(__always)
    mutating func spanEndValue(_ f: SpanFrame) {
        guard recording, rec.pending.count > f.pending else { return }
        let m = rec.pending.base + (rec.pending.count &- 1)
        m.pointee.valueEnd = Int32(truncatingIfNeeded: out.count)
        if out.count == plainStringEnd { m.pointee.valueKind = PayloadSpans.plainString }
    }

    /// Records a member of the open object whose key (`"name":`, the name `length` bytes
    /// as written) was just written; its value starts here. `ordinal`: its
    /// `PayloadSpans.Member.ordinal`.
    @inline(__always)
    mutating func spanKey(length: Int, escaped: Bool, ordinal: UInt16 = PayloadSpans.noOrdinal) {
        guard recording else { return }
        let n = out.count
        rec.pending.append(PayloadSpans.Member(keyStart: Int32(truncatingIfNeeded: n - 2 - length),
                                               keyEnd: Int32(truncatingIfNeeded: n - 2),
                                               valueStart: Int32(truncatingIfNeeded: n), valueEnd: -1,
                                               keyEscaped: escaped, ordinal: ordinal,
                                               firstObject: Int32(truncatingIfNeeded: rec.objects.count)))
    }

    /// `key(k, comma:)` for a member of the object of `f`, recorded.
    @inline(__always)
    mutating func memberKey(_ k: JSONScanner.StringToken, comma: Bool, _ f: SpanFrame,
                            ordinal: UInt16 = PayloadSpans.noOrdinal) {
        spanEndValue(f)
        key(k, comma: comma)
        spanKey(length: k.length, escaped: k.escaped, ordinal: ordinal)
    }

    mutating func memberKey(_ name: StaticString, comma: Bool, _ f: SpanFrame) {
        spanEndValue(f)
        key(name, comma: comma)
        spanKey(length: name.utf8CodeUnitCount, escaped: false)
    }

    /// A member of the control information written into `header` (before its `,` or after its key).
    @inline(__always)
    mutating func spanHeaderValueEnd() {
        guard recording, rec.header.count > 0 else { return }
        rec.header.base[rec.header.count - 1].valueEnd = Int32(truncatingIfNeeded: header.count)
    }

    @inline(__always)
    mutating func spanHeaderKey(length: Int) {
        guard recording else { return }
        let n = header.count
        rec.header.append(PayloadSpans.Member(keyStart: Int32(truncatingIfNeeded: n - 2 - length),
                                              keyEnd: Int32(truncatingIfNeeded: n - 2),
                                              valueStart: Int32(truncatingIfNeeded: n), valueEnd: -1,
                                              keyEscaped: false, firstObject: Int32(truncatingIfNeeded: rec.objects.count)))
    }

    /// Closes the object of `f` after its `}` was written and `inserted` bytes of control
    /// information (`rec.header`'s members) were inserted at `position`, just after its `{`:
    /// everything recorded inside it moves up by `inserted`, and its members become contiguous
    /// in `members`, the control information first.
    mutating func spanClose(_ f: SpanFrame, insertedAt position: Int, inserted: Int) {
        guard recording else { return }
        let d = Int32(truncatingIfNeeded: inserted)
        if d != 0 {
            for i in f.pending..<rec.pending.count { Self.shift(&rec.pending.base[i], d) }
            for i in f.members..<rec.members.count { Self.shift(&rec.members.base[i], d) }
            var i = f.object + 1
            while i < rec.objects.count {
                rec.objects.base[i].start &+= d
                rec.objects.base[i].end &+= d
                i += 1
            }
        }
        let first = rec.members.count
        let p = Int32(truncatingIfNeeded: position)
        for i in 0..<rec.header.count {
            var h = rec.header[i]
            Self.shift(&h, p)
            rec.members.append(h)
        }
        rec.header.truncate(to: 0)
        rec.members.append(rec.pending.base + f.pending, count: rec.pending.count - f.pending)
        rec.pending.truncate(to: f.pending)
        let o = rec.objects.base + f.object
        o.pointee.end = Int32(truncatingIfNeeded: out.count)
        o.pointee.firstMember = Int32(truncatingIfNeeded: first)
        o.pointee.memberCount = Int32(truncatingIfNeeded: rec.members.count - first)
        o.pointee.subtreeEnd = Int32(truncatingIfNeeded: rec.objects.count)
    }

    /// Moves a member's four offsets by `d`: one vector add when they are the member's first
    /// 16 bytes, as they are declared (every entity with an ETag has its members moved when its
    /// control information is inserted: about 100 instructions per V4 entity as four adds each).
    @inline(__always)
    static func shift(_ m: inout PayloadSpans.Member, _ d: Int32) {
        if MemoryLayout<PayloadSpans.Member>.offset(of: \.keyStart) == 0, MemoryLayout<PayloadSpans.Member>.offset(of: \.keyEnd) == 4,
           MemoryLayout<PayloadSpans.Member>.offset(of: \.valueStart) == 8, MemoryLayout<PayloadSpans.Member>.offset(of: \.valueEnd) == 12 {
            withUnsafeMutableBytes(of: &m) { p in
                p.storeBytes(of: p.loadUnaligned(as: SIMD4<Int32>.self) &+ SIMD4(repeating: d), as: SIMD4<Int32>.self)
            }
        } else {
            m.keyStart &+= d
            m.keyEnd &+= d
            m.valueStart &+= d
            m.valueEnd &+= d
        }
    }

    /// The recorded spans, when they describe the whole output.
    mutating func finishedSpans() -> PayloadSpans? {
        guard recording, rec.valid, rec.pending.count == 0, out.count < Int(Int32.max) else { return nil }
        let m = rec.members.take()
        let o = rec.objects.take()
        return PayloadSpans(members: PayloadSpans.Buffer(pointer: m.pointer, count: m.count),
                            objects: PayloadSpans.Buffer(pointer: o.pointer, count: o.count))
    }
}
