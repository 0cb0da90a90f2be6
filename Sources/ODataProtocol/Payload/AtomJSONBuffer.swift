#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// One member of a JSON object the Atom decoder is assembling: spans of `AtomJSONBuffer.bytes`.
struct AtomMember {
    /// The escaped key, without quotes.
    var keyStart: Int
    var keyCount: Int
    /// A complete JSON value.
    var valueStart: Int
    var valueCount: Int
    /// Which part of an entry the member belongs to (`AtomStreamDecoder.Tag`); 0 elsewhere.
    var tag: Int
    var keyIsASCII: Bool
}

/// An escaped key written into `AtomJSONBuffer.bytes`.
struct AtomKey {
    var start: Int
    var count: Int
    var isASCII: Bool
}

/// The output of the streaming Atom decoder: JSON bytes, and the members of the objects still
/// open, whose order and duplicates are only settled when the object closes.
///
/// Values are written into `bytes` as they are read. An object's members (key and value spans)
/// collect in `members` while it is open; when it closes, `closeObject` writes it in its final
/// form over the span its parts used, so the bytes always end with finished values. A repeated
/// key is refused (`duplicate`), as the JSON decoders refuse one (docs/json-shape.md: neither
/// "first" nor "last wins" is safe), except among the members the caller says merge (an
/// entry's media annotations, from attributes of repeated `atom:content`/`edit-media`
/// elements): those keep the first position and take the last value.
///
/// One instance per decode; not thread-safe.
struct AtomJSONBuffer {
    var bytes: AtomByteWriter
    var members: [AtomMember] = []
    /// Indices into `members` of the object to close, in output order (filled by the caller).
    var selection: [Int] = []
    private var kept: [AtomMember] = []
    /// The first repeated key `closeObject` met (then the bytes are no longer meaningful and
    /// the decode fails with `PayloadError(.invalid, "duplicate property ...")`).
    private(set) var duplicate: String?

    init(capacity: Int) {
        bytes = AtomByteWriter(capacity: capacity)
        members.reserveCapacity(64)
        selection.reserveCapacity(64)
        kept.reserveCapacity(64)
    }

    /// Writes the key for an XML local name: names hold no `"`, `\` or control character, so
    /// the bytes are the escaped key.
    mutating func key(xmlName name: UnsafeBufferPointer<UInt8>) -> AtomKey {
        let start = bytes.count
        bytes.append(name)
        return AtomKey(start: start, count: name.count, isASCII: AtomBytes.isASCII(name))
    }

    /// Writes an escaped key (no quotes).
    mutating func key(_ name: UnsafeBufferPointer<UInt8>) -> AtomKey {
        let start = bytes.count
        bytes.appendEscaped(name)
        return AtomKey(start: start, count: bytes.count - start, isASCII: AtomBytes.isASCII(name))
    }

    mutating func key(_ name: StaticString) -> AtomKey {
        let start = bytes.count
        bytes.append(name)
        return AtomKey(start: start, count: name.utf8CodeUnitCount, isASCII: true)
    }

    /// Records a member whose value spans from `valueStart` to the end of `bytes`.
    @inline(__always)
    mutating func addMember(_ key: AtomKey, valueStart: Int, tag: Int) {
        members.append(AtomMember(keyStart: key.start, keyCount: key.count, valueStart: valueStart,
                                  valueCount: bytes.count - valueStart, tag: tag, keyIsASCII: key.isASCII))
    }

    /// Records a member whose value is `value`.
    @inline(__always)
    mutating func addMember(_ key: AtomKey, value: Range<Int>, tag: Int) {
        members.append(AtomMember(keyStart: key.start, keyCount: key.count, valueStart: value.lowerBound,
                                  valueCount: value.count, tag: tag, keyIsASCII: key.isASCII))
    }

    /// True when the key of member `i` spells `name` (as `String` equality would say).
    func memberKey(_ i: Int, equals name: String) -> Bool {
        let m = members[i]
        let k = bytes.span(m.keyStart..<(m.keyStart + m.keyCount))
        var name = name
        return name.withUTF8 { n in
            if k.count == n.count, k.elementsEqual(n) { return true }
            if m.keyIsASCII && AtomBytes.isASCII(n) { return false }
            return String(decoding: k, as: UTF8.self) == String(decoding: n, as: UTF8.self)
        }
    }

    /// Writes the object made of the members listed in `selection` over `bytes[start...]`
    /// (the span its parts were written in) and drops `members[memberBase...]`. Returns the
    /// object's length (it starts at `start`).
    ///
    /// A key that two selected members have sets `duplicate`, unless both members' tags are in
    /// `merging`: then the first keeps its position and takes the second's value. Keys are
    /// compared as `String`s (canonical equivalence, as `JSONObject` compares them): bytes for
    /// up to 32 ASCII keys, a dictionary otherwise, so linear in the number of members.
    @discardableResult
    mutating func closeObject(at start: Int, memberBase: Int, merging: ClosedRange<Int>? = nil) -> Int {
        kept.removeAll(keepingCapacity: true)
        var allASCII = selection.count <= 32
        if allASCII {
            for i in selection where !members[i].keyIsASCII { allASCII = false; break }
        }
        let base = bytes.base
        if allASCII {
            // Small ASCII objects: compare key bytes.
            for i in selection {
                let m = members[i]
                var j = 0
                var found = false
                while j < kept.count {
                    let k = kept[j]
                    if k.keyCount == m.keyCount, memcmp(base + k.keyStart, base + m.keyStart, m.keyCount) == 0 {
                        merge(into: j, m, merging)
                        found = true
                        break
                    }
                    j += 1
                }
                if !found { kept.append(m) }
            }
        } else {
            // Large objects or non-ASCII keys: `String` keys, so that duplicates are found as
            // `JSONObject` finds them (canonical equivalence) and in linear time.
            var positions: [String: Int] = [:]
            for i in selection {
                let m = members[i]
                let k = bytes.string(m.keyStart..<(m.keyStart + m.keyCount))
                if let j = positions[k] {
                    merge(into: j, m, merging)
                } else {
                    positions[k] = kept.count
                    kept.append(m)
                }
            }
        }
        // Written after the parts, then moved down over them.
        let objectStart = bytes.count
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for m in kept {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(UInt8(ascii: "\""))
            bytes.appendCopy(from: m.keyStart, count: m.keyCount)
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ":"))
            bytes.appendCopy(from: m.valueStart, count: m.valueCount)
        }
        bytes.append(UInt8(ascii: "}"))
        let length = bytes.count - objectStart
        bytes.moveTail(from: objectStart, to: start)
        members.removeSubrange(memberBase...)
        selection.removeAll(keepingCapacity: true)
        return length
    }

    /// `m` repeats the key of `kept[j]`: merged when both tags are in `merging`, else the first
    /// such key is noted in `duplicate`.
    private mutating func merge(into j: Int, _ m: AtomMember, _ merging: ClosedRange<Int>?) {
        if let merging, merging.contains(kept[j].tag), merging.contains(m.tag) {
            kept[j].valueStart = m.valueStart
            kept[j].valueCount = m.valueCount
        } else if duplicate == nil {
            duplicate = bytes.string(m.keyStart..<(m.keyStart + m.keyCount))
        }
    }
}
