/// A small open-addressing hash table keyed by UTF-8 byte strings, looked up straight from a
/// span of the input (no `String` is created, no SipHash): the decoders' member and annotation
/// lookups run once per property, so this is on the hot path.
struct ByteKeyedTable<Value> {
    private var keys: [[UInt8]?]
    private var hashes: [UInt64]
    private var values: [Value?]
    private(set) var count = 0

    init(capacity: Int = 8) {
        var n = 8
        while n < capacity * 2 { n <<= 1 }
        keys = Array(repeating: nil, count: n)
        hashes = Array(repeating: 0, count: n)
        values = Array(repeating: nil, count: n)
    }

    @inline(__always)
    static func hash(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for i in 0..<n { h = (h ^ UInt64(p[i])) &* 0x0000_0100_0000_01B3 }
        return h
    }

    func lookup(_ p: UnsafePointer<UInt8>, _ n: Int) -> Value? {
        let h = Self.hash(p, n)
        let mask = keys.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while let k = keys[i] {
            if hashes[i] == h, k.count == n, k.withUnsafeBufferPointer({ kb in
                for j in 0..<n where kb[j] != p[j] { return false }
                return true
            }) {
                return values[i]
            }
            i = (i + 1) & mask
        }
        return nil
    }

    mutating func insert(_ key: [UInt8], _ value: Value) {
        if (count + 1) * 2 > keys.count { grow() }
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in key { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        let mask = keys.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while let k = keys[i] {
            if k == key { values[i] = value; return }
            i = (i + 1) & mask
        }
        keys[i] = key
        hashes[i] = h
        values[i] = value
        count += 1
    }

    private mutating func grow() {
        let old = zip(keys, values).compactMap { k, v -> ([UInt8], Value)? in
            guard let k, let v else { return nil }
            return (k, v)
        }
        let n = keys.count * 2
        keys = Array(repeating: nil, count: n)
        hashes = Array(repeating: 0, count: n)
        values = Array(repeating: nil, count: n)
        count = 0
        for (k, v) in old { insert(k, v) }
    }
}

extension ByteKeyedTable: Sendable where Value: Sendable {}
