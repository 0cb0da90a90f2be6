/// The `PayloadSpans` a transcoder records while it writes, when its caller asked for them
/// (`JSONTranscoder.recording`; otherwise every call below returns at once). Owned by one
/// transcoder, on its thread.
struct SpanRecorder {
    var members: [PayloadSpans.Member] = []
    var objects: [PayloadSpans.Object] = []
    /// The members of the objects still open, innermost object's last: an object's members
    /// move to `members` when it closes, so each object's members end up contiguous.
    var pending: [PayloadSpans.Member] = []
    /// The members of the control information of the object being closed (`insertHeader`),
    /// with offsets into the header buffer.
    var header: [PayloadSpans.Member] = []
    /// False once the transcoder wrote something the spans do not describe (a value result
    /// wrapped in `{"value":...}` afterwards, counts inserted before an expanded V2 feed):
    /// the payload then gets none.
    var valid = true

    init(reserving capacity: Int) {
        guard capacity > 0 else { return }
        members.reserveCapacity(capacity)
        pending.reserveCapacity(64)
        header.reserveCapacity(8)
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
    @inline(__always)
    mutating func spanEndValue(_ f: SpanFrame) {
        guard recording, rec.pending.count > f.pending else { return }
        rec.pending[rec.pending.count - 1].valueEnd = Int32(truncatingIfNeeded: out.count)
    }

    /// Records a member of the open object whose key (`"name":`, the name `length` bytes
    /// as written) was just written; its value starts here.
    @inline(__always)
    mutating func spanKey(length: Int, escaped: Bool) {
        guard recording else { return }
        let n = out.count
        rec.pending.append(PayloadSpans.Member(keyStart: Int32(truncatingIfNeeded: n - 2 - length),
                                               keyEnd: Int32(truncatingIfNeeded: n - 2),
                                               valueStart: Int32(truncatingIfNeeded: n), valueEnd: -1,
                                               keyEscaped: escaped, firstObject: Int32(truncatingIfNeeded: rec.objects.count)))
    }

    /// `key(k, comma:)` for a member of the object of `f`, recorded.
    @inline(__always)
    mutating func memberKey(_ k: JSONScanner.StringToken, comma: Bool, _ f: SpanFrame) {
        spanEndValue(f)
        key(k, comma: comma)
        spanKey(length: k.length, escaped: k.escaped)
    }

    mutating func memberKey(_ name: StaticString, comma: Bool, _ f: SpanFrame) {
        spanEndValue(f)
        key(name, comma: comma)
        spanKey(length: name.utf8CodeUnitCount, escaped: false)
    }

    /// A member of the control information written into `header` (before its `,` or after its key).
    @inline(__always)
    mutating func spanHeaderValueEnd() {
        guard recording, !rec.header.isEmpty else { return }
        rec.header[rec.header.count - 1].valueEnd = Int32(truncatingIfNeeded: header.count)
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
            for i in f.pending..<rec.pending.count { Self.shift(&rec.pending[i], d) }
            for i in f.members..<rec.members.count { Self.shift(&rec.members[i], d) }
            for i in (f.object + 1)..<rec.objects.count {
                rec.objects[i].start &+= d
                rec.objects[i].end &+= d
            }
        }
        let first = rec.members.count
        let p = Int32(truncatingIfNeeded: position)
        for var h in rec.header {
            Self.shift(&h, p)
            rec.members.append(h)
        }
        rec.header.removeAll(keepingCapacity: true)
        rec.members.append(contentsOf: rec.pending[f.pending...])
        rec.pending.removeSubrange(f.pending...)
        rec.objects[f.object].end = Int32(truncatingIfNeeded: out.count)
        rec.objects[f.object].firstMember = Int32(truncatingIfNeeded: first)
        rec.objects[f.object].memberCount = Int32(truncatingIfNeeded: rec.members.count - first)
        rec.objects[f.object].subtreeEnd = Int32(truncatingIfNeeded: rec.objects.count)
    }

    @inline(__always)
    static func shift(_ m: inout PayloadSpans.Member, _ d: Int32) {
        m.keyStart &+= d
        m.keyEnd &+= d
        m.valueStart &+= d
        m.valueEnd &+= d
    }

    /// The recorded spans, when they describe the whole output.
    func finishedSpans() -> PayloadSpans? {
        guard recording, rec.valid, rec.pending.isEmpty, out.count < Int(Int32.max) else { return nil }
        return PayloadSpans(members: rec.members, objects: rec.objects)
    }
}
