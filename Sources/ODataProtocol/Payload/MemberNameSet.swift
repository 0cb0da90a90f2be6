#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The member names of one wide JSON object as a hash set, for the JSON transcoder's duplicate
/// check (`JSONTranscoder.noteKey`) once the object has `JSONTranscoder.linearNameLimit` names
/// to check: finding or adding a name then costs one hash of its bytes and, expected, one
/// comparison, where comparing it with every earlier name made the object cost n²/2
/// comparisons (a body of 10^6 members did not decode in minutes).
///
/// Names are kept as spans of the input (`JSONScanner.StringToken`, the bytes are not
/// copied) and are equal when their raw bytes are (as spelled, escapes not decoded), as in the
/// linear check. Hashes are the standard library's `Hasher` (SipHash, seeded per process), so
/// a body cannot be made of names that all collide. Open addressing, linear probing, at most
/// half full: 24 bytes per name and 8 to 16 of slots.
///
/// Plain data owned by one transcoder (one decode, one thread); its memory is reused for the
/// next wide object (`reset`).
struct MemberNameSet {
    /// Where the object's names start in the transcoder's `seenKeys` (the object's frame).
    private(set) var frame = 0
    private var names: [JSONScanner.StringToken] = []
    /// Per slot the position in `names` plus one; 0: an empty slot.
    private var slots: [UInt32] = []

    /// Empties the set for the object whose names start at `frame`, sized for `expected` names.
    /// Costs O(`expected`); keeps the memory of earlier use.
    mutating func reset(frame: Int, expected: Int) {
        self.frame = frame
        names.removeAll(keepingCapacity: true)
        var n = 64
        while n < expected * 2 { n <<= 1 }
        slots.removeAll(keepingCapacity: true)
        slots.append(contentsOf: repeatElement(0, count: n))
    }

    @inline(__always)
    static func hash(_ base: UnsafePointer<UInt8>, _ t: JSONScanner.StringToken) -> Int {
        var h = Hasher()
        h.combine(bytes: UnsafeRawBufferPointer(start: base + t.start, count: t.length))
        return h.finalize()
    }

    /// Adds the name `k` (bytes at `base`); false when a name with the same bytes is in the set
    /// already (then nothing is added). Expected O(1) plus the name's length.
    mutating func insert(_ k: JSONScanner.StringToken, base: UnsafePointer<UInt8>) -> Bool {
        if (names.count + 1) * 2 > slots.count { grow(base: base) }
        let n = k.length
        let next = UInt32(truncatingIfNeeded: names.count &+ 1)
        let found = names.withUnsafeBufferPointer { known in
            slots.withUnsafeMutableBufferPointer { table -> Bool in
                let mask = table.count - 1
                var s = Self.hash(base, k) & mask
                while true {
                    let entry = Int(table[s])
                    if entry == 0 {
                        table[s] = next
                        return false
                    }
                    let o = known[entry &- 1]
                    if o.length == n && (n == 0 || memcmp(base + o.start, base + k.start, n) == 0) { return true }
                    s = (s &+ 1) & mask
                }
            }
        }
        if !found { names.append(k) }
        return !found
    }

    /// Doubles the slots and puts every name back (amortized O(1) per insert).
    private mutating func grow(base: UnsafePointer<UInt8>) {
        let n = max(64, slots.count * 2)
        slots.removeAll(keepingCapacity: true)
        slots.append(contentsOf: repeatElement(0, count: n))
        names.withUnsafeBufferPointer { known in
            slots.withUnsafeMutableBufferPointer { table in
                let mask = table.count - 1
                for (i, t) in known.enumerated() {
                    var s = Self.hash(base, t) & mask
                    while table[s] != 0 { s = (s &+ 1) & mask }
                    table[s] = UInt32(truncatingIfNeeded: i &+ 1)
                }
            }
        }
    }
}
