/// Equality of two short byte spans (member names: a key of the input against the name the
/// model or a cache expects), a word at a time. Member names are 2 to 20 bytes: a byte loop
/// cost about six instructions a byte, a `memcmp` call about twenty per name; two
/// overlapping loads of 4 or 8 bytes cover any length from 4 to 16 with no loop and read
/// only bytes inside both spans. Pure; no allocation. `@inlinable`: the download's writer
/// (another module) compares each member's name with it.
package enum ShortBytes {
    /// Whether `a[0..<n]` and `b[0..<n]` hold the same bytes.
    @inlinable @inline(__always)
    package static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count n: Int) -> Bool {
        let ra = UnsafeRawPointer(a)
        let rb = UnsafeRawPointer(b)
        if n >= 8 {
            var i = 0
            while i &+ 8 < n {
                guard ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) == rb.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                else { return false }
                i &+= 8
            }
            // The last eight bytes (overlapping the ones compared above when n is no multiple of 8).
            return ra.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) == rb.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        }
        if n >= 4 {
            return ra.loadUnaligned(as: UInt32.self) == rb.loadUnaligned(as: UInt32.self)
                && ra.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self) == rb.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
        }
        var i = 0
        while i < n {
            if a[i] != b[i] { return false }
            i &+= 1
        }
        return true
    }
}
