#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The growable byte buffer the streaming Atom decoder and the JSON transcoder write their JSON
/// into: raw memory with inlined appends (no uniqueness check or generic collection path per
/// append, which `[UInt8]` costs on this hot path), JSON string escaping, and moves within the buffer.
///
/// Ownership: the memory belongs to a private storage object shared by copies of the writer.
/// Copies are for reading only (mutating one copy would leave the others with stale `count`
/// and, after growth, a freed `base`). Not thread-safe. A writer made with
/// `init(borrowing:)` writes into the caller's memory until it needs more than that holds,
/// and into memory of its own from then on (`isBorrowing` tells which).
struct AtomByteWriter {
    private final class Storage {
        var pointer: UnsafeMutablePointer<UInt8>
        /// Whether `pointer` is ours to free (false: the caller's, lent to `init(borrowing:)`).
        var owned: Bool
        init(capacity: Int) { pointer = .allocate(capacity: capacity); owned = true }
        init(borrowing p: UnsafeMutablePointer<UInt8>) { pointer = p; owned = false }
        deinit { if owned { pointer.deallocate() } }
    }

    private let storage: Storage
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        let c = max(capacity, 256)
        storage = Storage(capacity: c)
        base = storage.pointer
        self.capacity = c
    }

    /// A writer that writes into `buffer` (which must stay valid, and be used by nobody else,
    /// while the writer writes): the bytes written are at `buffer`'s start as long as
    /// `isBorrowing`. A buffer of fewer than 16 bytes is not used.
    init(borrowing buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let p = buffer.baseAddress, buffer.count >= 16 else {
            self = AtomByteWriter(capacity: 256)
            return
        }
        storage = Storage(borrowing: p)
        base = p
        capacity = buffer.count
    }

    /// Whether the bytes are still in the memory lent to `init(borrowing:)`.
    var isBorrowing: Bool { !storage.owned }

    /// Makes room for `n` more bytes.
    @inline(__always)
    mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    private mutating func grow(_ needed: Int) {
        var c = capacity * 2
        while c < needed { c *= 2 }
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        p.initialize(from: base, count: count)
        if storage.owned { base.deallocate() }
        storage.pointer = p
        storage.owned = true
        base = p
        capacity = c
    }

    @inline(__always)
    mutating func append(_ b: UInt8) {
        if count == capacity { grow(count + 1) }
        base[count] = b
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).initialize(from: p, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    mutating func append(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    /// `"` + `n` bytes at `p` + `"` (a validated string token's raw span, copied as it is).
    @inline(__always)
    mutating func appendQuoted(_ p: UnsafePointer<UInt8>, count n: Int) {
        reserve(n &+ 2)
        let d = base + count
        d[0] = UInt8(ascii: "\"")
        Self.copy(d + 1, p, n)
        d[n &+ 1] = UInt8(ascii: "\"")
        count &+= n &+ 2
    }

    /// `,"name":` (the comma only when `comma`) for a member name's raw span.
    @inline(__always)
    mutating func appendKey(_ p: UnsafePointer<UInt8>, count n: Int, comma: Bool) {
        reserve(n &+ 4)
        var d = base + count
        if comma { d[0] = UInt8(ascii: ","); d += 1 }
        d[0] = UInt8(ascii: "\"")
        Self.copy(d + 1, p, n)
        d[n &+ 1] = UInt8(ascii: "\"")
        d[n &+ 2] = UInt8(ascii: ":")
        count &+= n &+ (comma ? 4 : 3)
    }

    /// Copies `n` bytes from `s` to `d` (which do not overlap): short spans (member names,
    /// numbers, most values) with overlapping word loads and stores that stay inside both
    /// ranges, longer ones with `memcpy`.
    @inline(__always)
    static func copy(_ d: UnsafeMutablePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ n: Int) {
        let src = UnsafeRawPointer(s), dst = UnsafeMutableRawPointer(d)
        if n >= 8 && n <= 16 {
            let a = src.loadUnaligned(as: UInt64.self)
            let b = src.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            dst.storeBytes(of: a, as: UInt64.self)
            dst.storeBytes(of: b, toByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 && n < 8 {
            let a = src.loadUnaligned(as: UInt32.self)
            let b = src.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
            dst.storeBytes(of: a, as: UInt32.self)
            dst.storeBytes(of: b, toByteOffset: n &- 4, as: UInt32.self)
        } else if n < 4 {
            var i = 0
            while i < n { d[i] = s[i]; i &+= 1 }
        } else {
            memcpy(dst, src, n)
        }
    }

    /// Inserts `bytes` (not from this buffer) at `position`, moving the bytes after it up.
    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return }
        let n = bytes.count
        reserve(n)
        memmove(base + position + n, base + position, count - position)
        memcpy(base + position, p, n)
        count += n
    }

    mutating func insert(_ bytes: [UInt8], at position: Int) {
        bytes.withUnsafeBufferPointer { insert($0, at: position) }
    }

    mutating func insert(_ s: StaticString, at position: Int) {
        insert(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount), at: position)
    }

    /// The byte at `i` (< `count`).
    @inline(__always)
    subscript(i: Int) -> UInt8 { base[i] }

    /// A copy of the bytes in `range`.
    func array(_ range: Range<Int>) -> [UInt8] { Array(span(range)) }

    /// Appends `count` bytes of this buffer from `start` (which may be anywhere before the end).
    mutating func appendCopy(from start: Int, count n: Int) {
        reserve(n)
        (base + count).initialize(from: base + start, count: n)  // after `reserve`, which may move `base`
        count += n
    }

    /// The bytes in `range` (valid until the next mutation).
    @inline(__always)
    func span(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    /// Moves the bytes from `from` to the end down to `to` (before `from`) and drops the rest.
    mutating func moveTail(from: Int, to: Int) {
        let n = count - from
        memmove(base + to, base + from, n)
        count = to + n
    }

    mutating func truncate(to n: Int) { count = n }

    // MARK: JSON

    /// `"text"`, escaped as `JSONWriter.writeEscaped` does (`"` `\` and control characters).
    @inline(__always)
    mutating func appendString(_ text: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        appendEscaped(text)
        append(UInt8(ascii: "\""))
    }

    mutating func appendString(_ s: String) {
        var s = s
        s.withUTF8 { appendString($0) }
    }

    /// The escaped content of a JSON string (no quotes). Clean runs are copied whole; eight
    /// bytes at a time are checked for a byte that needs escaping.
    mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        guard let p = text.baseAddress else { return }
        let n = text.count
        var runStart = 0
        var i = 0
        let raw = UnsafeRawPointer(p)
        while i < n {
            if i + 8 <= n {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if !Self.wordNeedsEscape(w) { i += 8; continue }
            }
            let b = p[i]
            if b >= 0x20 && b != 0x22 && b != 0x5C { i += 1; continue }
            append(UnsafeBufferPointer(start: p + runStart, count: i - runStart))
            append(0x5C)
            switch b {
            case 0x22: append(0x22)
            case 0x5C: append(0x5C)
            case 0x0A: append(UInt8(ascii: "n"))
            case 0x0D: append(UInt8(ascii: "r"))
            case 0x09: append(UInt8(ascii: "t"))
            case 0x08: append(UInt8(ascii: "b"))
            case 0x0C: append(UInt8(ascii: "f"))
            default:
                append(UInt8(ascii: "u"))
                append(0x30)
                append(0x30)
                append(Self.hex(b >> 4))
                append(Self.hex(b & 0xF))
            }
            i += 1
            runStart = i
        }
        append(UnsafeBufferPointer(start: p + runStart, count: n - runStart))
    }

    @inline(__always)
    static func hex(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x57 + v }

    /// True when one of the eight bytes of `w` is below 0x20, `"` or `\` (exact: the classic
    /// "has a zero byte" / "has a byte less than n" tests).
    @inline(__always)
    static func wordNeedsEscape(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let below = (w &- ones &* 0x20) & ~w & high
        let q = w ^ (ones &* 0x22)
        let quote = (q &- ones) & ~q & high
        let s = w ^ (ones &* 0x5C)
        let backslash = (s &- ones) & ~s & high
        return (below | quote | backslash) != 0
    }

    /// The bytes as a string.
    func string(_ range: Range<Int>) -> String {
        String(decoding: span(range), as: UTF8.self)
    }
}
