#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The namespaces the Atom decoder tells apart, classified from libxml2's NUL-terminated URI
/// by length and bytes (no `String` per element).
enum AtomNamespace: UInt8 {
    case none, atom, metadata, data, tombstones, v4Metadata, v4Data, other

    static func classify(_ uri: UnsafePointer<UInt8>?) -> AtomNamespace {
        guard let uri, uri.pointee != 0 else { return .none }
        let n = strlen(UnsafeRawPointer(uri).assumingMemoryBound(to: CChar.self))
        switch n {
        case 27: return AtomBytes.equal(uri, n, "http://www.w3.org/2005/Atom") ? .atom : .other
        case 38: return AtomBytes.equal(uri, n, "http://purl.org/atompub/tombstones/1.0") ? .tombstones : .other
        case 40: return AtomBytes.equal(uri, n, "http://docs.oasis-open.org/odata/ns/data") ? .v4Data : .other
        case 44: return AtomBytes.equal(uri, n, "http://docs.oasis-open.org/odata/ns/metadata") ? .v4Metadata : .other
        case 53: return AtomBytes.equal(uri, n, "http://schemas.microsoft.com/ado/2007/08/dataservices") ? .data : .other
        case 62:
            return AtomBytes.equal(uri, n, "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata")
                ? .metadata : .other
        default: return .other
        }
    }
}

/// The element local names the Atom decoder acts on (whatever their namespace).
enum AtomElementName: UInt8 {
    case other, feed, entry, deletedEntry, count, link, category, id, content, properties, inline, uri, links, error

    static func classify(_ p: UnsafePointer<UInt8>, _ n: Int) -> AtomElementName {
        switch n {
        case 2: return AtomBytes.equal(p, n, "id") ? .id : .other
        case 3: return AtomBytes.equal(p, n, "uri") ? .uri : .other
        case 4:
            if AtomBytes.equal(p, n, "feed") { return .feed }
            if AtomBytes.equal(p, n, "link") { return .link }
            return .other
        case 5:
            if AtomBytes.equal(p, n, "entry") { return .entry }
            if AtomBytes.equal(p, n, "count") { return .count }
            if AtomBytes.equal(p, n, "links") { return .links }
            if AtomBytes.equal(p, n, "error") { return .error }
            return .other
        case 6: return AtomBytes.equal(p, n, "inline") ? .inline : .other
        case 7: return AtomBytes.equal(p, n, "content") ? .content : .other
        case 8: return AtomBytes.equal(p, n, "category") ? .category : .other
        case 10: return AtomBytes.equal(p, n, "properties") ? .properties : .other
        case 13: return AtomBytes.equal(p, n, "deleted-entry") ? .deletedEntry : .other
        default: return .other
        }
    }
}

/// Byte-level helpers of the Atom decoder.
enum AtomBytes {
    /// True when the `n` bytes at `p` spell `s`.
    @inline(__always)
    static func equal(_ p: UnsafePointer<UInt8>, _ n: Int, _ s: StaticString) -> Bool {
        n == s.utf8CodeUnitCount && memcmp(p, s.utf8Start, n) == 0
    }

    @inline(__always)
    static func equal(_ b: UnsafeBufferPointer<UInt8>, _ s: StaticString) -> Bool {
        guard let p = b.baseAddress else { return s.utf8CodeUnitCount == 0 }
        return equal(p, b.count, s)
    }

    /// True when every byte is ASCII. Where this holds, byte comparisons give exactly what Swift's
    /// `String` comparisons (Unicode canonical equivalence, grapheme clusters) give; the decoder
    /// takes a `String` path for anything else.
    static func isASCII(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = b.baseAddress else { return true }
        let n = b.count
        var i = 0
        let raw = UnsafeRawPointer(p)
        while i + 8 <= n {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if p[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// True when `b` starts with `prefix` (bytes).
    @inline(__always)
    static func hasPrefix(_ b: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard let p = b.baseAddress, b.count >= prefix.utf8CodeUnitCount else { return false }
        return memcmp(p, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
    }

    /// True when `b` contains `needle` (bytes).
    static func contains(_ b: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Bool {
        let m = needle.utf8CodeUnitCount
        guard let p = b.baseAddress, b.count >= m else { return false }
        var i = 0
        while i + m <= b.count {
            if p[i] == needle.utf8Start.pointee, memcmp(p + i, needle.utf8Start, m) == 0 { return true }
            i += 1
        }
        return false
    }

    /// The offset of the first occurrence of `needle` in `b`.
    static func firstIndex(of needle: StaticString, in b: UnsafeBufferPointer<UInt8>) -> Int? {
        let m = needle.utf8CodeUnitCount
        guard let p = b.baseAddress, b.count >= m else { return nil }
        var i = 0
        while i + m <= b.count {
            if memcmp(p + i, needle.utf8Start, m) == 0 { return i }
            i += 1
        }
        return nil
    }

    /// `b` without leading and trailing spaces and tabs (ASCII input: the same as
    /// `MultipartReader.trim`).
    @inline(__always)
    static func trimmed(_ b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lo = 0, hi = b.count
        while lo < hi, b[lo] == 0x20 || b[lo] == 0x09 { lo += 1 }
        while hi > lo, b[hi - 1] == 0x20 || b[hi - 1] == 0x09 { hi -= 1 }
        return UnsafeBufferPointer(rebasing: b[lo..<hi])
    }

    /// True when `b` matches the JSON number grammar (as `EdmLiteral.isJSONNumber`, without
    /// copying). With `integer`, a fraction or an exponent fails it.
    static func isJSONNumber(_ b: UnsafeBufferPointer<UInt8>, integer: Bool) -> Bool {
        let n = b.count
        var i = 0
        @inline(__always) func digit(_ k: Int) -> Bool { k < n && b[k] &- 48 < 10 }
        if i < n, b[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else { return false }
        if b[i] == 48 { i += 1 } else { while digit(i) { i += 1 } }
        if i < n, b[i] == UInt8(ascii: ".") {
            if integer { return false }
            i += 1
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        if i < n, b[i] | 0x20 == UInt8(ascii: "e") {
            if integer { return false }
            i += 1
            if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        return i == n
    }
}
