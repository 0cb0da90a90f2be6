/// A small open-addressing hash table keyed by UTF-8 byte strings, looked up straight from a
/// span of the input (no `String` is created, no SipHash): the decoders' member and annotation
/// lookups run once per property, so this is on the hot path.
///
/// The keys' bytes live in one pool, so a probe compares a hash, a length and bytes without
/// touching a reference count.
struct ByteKeyedTable<Value> {
    /// Per slot: the key's hash, where its bytes start in `pool` (-1: empty slot), its length.
    private struct Slot {
        var hash: UInt64 = 0
        var start: Int = -1
        var length: Int = 0
    }
    private var slots: [Slot]
    private var values: [Value?]
    private var pool: [UInt8] = []
    private(set) var count = 0

    /// An empty table that allocates nothing until the first insert (most decodes never
    /// insert into their memo tables).
    init() {
        slots = []
        values = []
    }

    init(capacity: Int) {
        self.init()
        var n = 8
        while n < capacity * 2 { n <<= 1 }
        allocate(slots: n)
    }

    private mutating func allocate(slots n: Int) {
        slots = Array(repeating: Slot(), count: n)
        values = Array(repeating: nil, count: n)
    }

    @inline(__always)
    static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for i in 0..<n { h = (h ^ UInt64(p[i])) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// The slot holding the key at `p` (`n` bytes) with hash `h`, or the empty slot where it
    /// would go. The table is never full (at most half the slots are used).
    private func slot(_ p: UnsafePointer<UInt8>, _ n: Int, hash h: UInt64) -> Int {
        slots.withUnsafeBufferPointer { table in
            pool.withUnsafeBufferPointer { bytes in
                let mask = table.count - 1
                var i = Int(truncatingIfNeeded: h) & mask
                while true {
                    let slot = table[i]
                    if slot.start < 0 { return i }
                    if slot.hash == h, slot.length == n {
                        var j = 0
                        while j < n, bytes[slot.start &+ j] == p[j] { j &+= 1 }
                        if j == n { return i }
                    }
                    i = (i &+ 1) & mask
                }
            }
        }
    }

    func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> Value? {
        if count == 0 { return nil }
        let i = slot(p, n, hash: Self.hash(p, n))
        return slots[i].start < 0 ? nil : values[i]
    }

    mutating func insert(_ key: [UInt8], _ value: Value) {
        if (count + 1) * 2 > slots.count { grow() }
        key.withUnsafeBufferPointer { k in
            // A non-null pointer even for the empty key (its bytes are never read).
            withUnsafePointer(to: 0 as UInt8) { empty in
                let p = k.baseAddress ?? empty
                let h = Self.hash(p, k.count)
                let i = slot(p, k.count, hash: h)
                if slots[i].start >= 0 { values[i] = value; return }
                slots[i] = Slot(hash: h, start: pool.count, length: k.count)
                values[i] = value
                pool.append(contentsOf: k)
                count += 1
            }
        }
    }

    private mutating func grow() {
        var old: [([UInt8], Value)] = []
        old.reserveCapacity(count)
        for i in slots.indices where slots[i].start >= 0 {
            old.append((Array(pool[slots[i].start..<slots[i].start + slots[i].length]), values[i]!))
        }
        allocate(slots: max(8, slots.count * 2))
        pool.removeAll(keepingCapacity: true)
        count = 0
        for (k, v) in old { insert(k, v) }
    }
}

extension ByteKeyedTable: Sendable where Value: Sendable {}
