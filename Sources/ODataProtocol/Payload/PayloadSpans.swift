/// Where the members of the objects of a decoded payload's canonical JSON are: byte offsets
/// into `DecodedPayload.utf8`, recorded by the JSON decoder while it writes the text, when the
/// caller asks (`PayloadDecoder.decode(..., spans: true)`; the online API never does). A
/// consumer that binds entity members one by one (the offline download writing a page into
/// SQLite) takes each member's key and value from here instead of tokenizing the text again.
///
/// Objects are listed in the order they start (pre-order): an object's members are
/// `members[firstMember ..< firstMember + memberCount]`, in the order they appear in the text
/// (control information such as `@odata.etag` first, as written). Arrays have no entry: the
/// elements of an array value are found by walking it (`object(at:candidate:)`): the object
/// starting at an offset is the candidate object (the member's `firstObject`, then each
/// element's `subtreeEnd`) when its `start` is that offset. Objects that are not recorded
/// (values copied unchanged, e.g. inside a geography value) simply have no entry; consumers
/// read such values from the text.
///
/// Each member also says what the decoder already knew of it, so the consumer need not find it
/// again: the declared property it is (`Member.ordinal`, numbered per payload) and whether its
/// value is a string without escapes (`Member.valueKind`). A consumer keeps whatever it maps
/// ordinals to for one payload only.
///
/// Only JSON bodies get spans (V4 JSON, V2 verbose JSON); Atom bodies and results that are not
/// one object at the top level (`{"value": <primitive>}` and the like) have none (`spans` is
/// nil or `root` is nil). Immutable value; offsets are `Int32` (a body too large for them gets
/// no spans).
public struct PayloadSpans: Sendable, Equatable {
    public struct Member: Sendable, Equatable, BitwiseCopyable {
        /// The member name's bytes between its quotes, as written (escapes kept).
        public var keyStart: Int32
        public var keyEnd: Int32
        /// The value's bytes (compact JSON: a string includes its quotes).
        public var valueStart: Int32
        public var valueEnd: Int32
        /// The name contains an escape sequence.
        public var keyEscaped: Bool
        /// What the decoder knew of the value as it wrote it, so that a consumer need not look
        /// again: `PayloadSpans.plainString` (a string with no escape sequence between its
        /// quotes), or 0 (nothing said: read the text).
        public var valueKind: UInt8 = 0
        /// The member's declared property, numbered for this payload: two members with the same
        /// ordinal have the same name, spelled without escapes (a consumer resolves a name once
        /// per payload and then looks the ordinal up). `PayloadSpans.noOrdinal` when the decoder
        /// did not resolve the member as a declared property of the object's type (control
        /// information, annotations, dynamic or escaped names, navigations, objects of a
        /// derived type after their `@odata.type`). Always below `PayloadSpans.ordinalLimit`
        /// otherwise. Held in the padding of the fields around it: a member stays 24 bytes.
        public var ordinal: UInt16 = PayloadSpans.noOrdinal
        /// The number of objects recorded before the value started: the index the value's own
        /// object, or its array's first object element, has when they are recorded.
        public var firstObject: Int32
    }

    /// `Member.valueKind` of a string value whose text between its quotes has no escape
    /// sequence (a backslash): its bytes are its characters' UTF-8.
    public static let plainString: UInt8 = 1
    /// `Member.ordinal` of a member the decoder did not resolve.
    public static let noOrdinal: UInt16 = .max
    /// Every resolved `Member.ordinal` is below this (16 declared types of up to 1,024 members
    /// each are numbered per payload).
    public static let ordinalLimit = 16 * 1024

    public struct Object: Sendable, Equatable, BitwiseCopyable {
        /// Offset of the `{`.
        public var start: Int32
        /// Offset just after the `}`.
        public var end: Int32
        public var firstMember: Int32
        public var memberCount: Int32
        /// The index after this object and every object inside it (its next sibling's index,
        /// when it has one).
        public var subtreeEnd: Int32
    }

    /// Memory the decoder filled and handed over (no copy into an `Array`: a 10,000-entity page
    /// holds about 130,000 members, and copying them cost page faults as well as the copy).
    final class Buffer<Element: BitwiseCopyable>: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<Element>
        let count: Int
        /// Takes ownership of `pointer` (allocated with `UnsafeMutablePointer.allocate`).
        init(pointer: UnsafeMutablePointer<Element>, count: Int) {
            self.pointer = pointer
            self.count = count
        }
        deinit { pointer.deallocate() }
    }

    let memberBuffer: Buffer<Member>
    let objectBuffer: Buffer<Object>

    /// Every recorded member, each object's contiguous (valid while this value exists).
    public var members: UnsafeBufferPointer<Member> { UnsafeBufferPointer(start: memberBuffer.pointer, count: memberBuffer.count) }
    /// Every recorded object, in the order they start (valid while this value exists).
    public var objects: UnsafeBufferPointer<Object> { UnsafeBufferPointer(start: objectBuffer.pointer, count: objectBuffer.count) }

    init(members: Buffer<Member>, objects: Buffer<Object>) {
        memberBuffer = members
        objectBuffer = objects
    }

    public init(members: [Member], objects: [Object]) {
        let m = UnsafeMutablePointer<Member>.allocate(capacity: max(members.count, 1))
        m.initialize(from: members, count: members.count)
        let o = UnsafeMutablePointer<Object>.allocate(capacity: max(objects.count, 1))
        o.initialize(from: objects, count: objects.count)
        self.init(members: Buffer(pointer: m, count: members.count), objects: Buffer(pointer: o, count: objects.count))
    }

    public static func == (a: PayloadSpans, b: PayloadSpans) -> Bool {
        a.members.elementsEqual(b.members) && a.objects.elementsEqual(b.objects)
    }

    /// The object the text starts with, when it is the whole text of `count` bytes.
    public func root(count: Int) -> Int? {
        guard objectBuffer.count > 0 else { return nil }
        let o = objectBuffer.pointer[0]
        guard o.start == 0, Int(o.end) == count else { return nil }
        return 0
    }

    /// The index of the recorded object starting at byte `offset` when it is `candidate`, else nil.
    @inline(__always)
    public func object(at offset: Int, candidate: Int) -> Int? {
        guard candidate >= 0, candidate < objectBuffer.count, Int(objectBuffer.pointer[candidate].start) == offset else { return nil }
        return candidate
    }
}
