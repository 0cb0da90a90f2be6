#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Receives the events of a `LibXML2SAXSession` as libxml2 reports them, without any `String`
/// or array being built: for decoders that stream a large document straight into their output
/// (the Atom payload decoder). Every pointer is only valid during the call.
///
/// Events come synchronously on the thread that feeds the session; every `startElement` is
/// matched by one `endElement`. The session's hardening (no DTD, no entities, no network,
/// depth limit, errors captured) is the same as for `XMLEventSink`.
protocol XMLRawEventSink: AnyObject {
    /// A start tag: NUL-terminated UTF-8 local name and namespace URI (nil when the element is
    /// in no namespace; libxml2 never gives a nil name, read it as ""), and its attributes
    /// (namespace declarations are not among them).
    func startElement(localName: UnsafePointer<UInt8>?, namespace: UnsafePointer<UInt8>?, attributes: XMLRawAttributes)
    func endElement()
    /// A piece of character data (text, CDATA, character references, whitespace).
    func characters(_ chunk: UnsafeBufferPointer<UInt8>)
}

/// The attributes of one start tag, borrowed from libxml2's SAX2 callback: five pointers per
/// attribute (local name, prefix, namespace URI, value start, value end). Valid only during
/// `XMLRawEventSink.startElement`.
struct XMLRawAttributes {
    let pointers: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    let count: Int

    /// The raw bytes of the attribute `name` in the namespace `namespace` ("" for an unprefixed
    /// attribute), or nil. The bytes still hold `&#38;` for `&` (see `decoded(_:)`).
    func raw(_ name: StaticString, namespace: StaticString = "") -> UnsafeBufferPointer<UInt8>? {
        guard let p = pointers else { return nil }
        for i in 0..<count {
            let b = i * 5
            guard let local = p[b], Self.equals(local, name) else { continue }
            let uri = p[b + 2]
            if namespace.utf8CodeUnitCount == 0 {
                guard uri == nil || uri?.pointee == 0 else { continue }
            } else {
                guard let uri, Self.equals(uri, namespace) else { continue }
            }
            guard let start = p[b + 3], let end = p[b + 4], end >= start else {
                return UnsafeBufferPointer(start: nil, count: 0)
            }
            return UnsafeBufferPointer(start: start, count: end - start)
        }
        return nil
    }

    /// True when the NUL-terminated `p` spells `s` exactly.
    @inline(__always)
    static func equals(_ p: UnsafePointer<UInt8>, _ s: StaticString) -> Bool {
        // Byte by byte: `p` may be shorter than `s` (its NUL then differs and stops the loop).
        let n = s.utf8CodeUnitCount
        let q = s.utf8Start
        var i = 0
        while i < n {
            if p[i] != q[i] { return false }
            i += 1
        }
        return p[n] == 0
    }

    /// True when `raw` holds a `&` that stands for `&#38;` (see `decoded(_:)`).
    @inline(__always)
    static func needsDecoding(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = raw.baseAddress, raw.count >= 5 else { return false }
        return memchr(base, 0x26, raw.count) != nil
    }

    /// The attribute value itself. Without entity substitution, libxml2's SAX2 hands over every
    /// `&` in an attribute value (written as `&amp;` or `&#38;`) as the five characters `&#38;`;
    /// everything else is already decoded and no other `&` can occur (no DTD means no other
    /// entities), so turning `&#38;` back into `&` gives the exact value.
    static func decoded(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            if raw[i] == 0x26, i + 5 <= raw.count, raw[i + 1] == 0x23, raw[i + 2] == 0x33, raw[i + 3] == 0x38,
               raw[i + 4] == 0x3B {
                out.append(0x26)
                i += 5
            } else {
                out.append(raw[i])
                i += 1
            }
        }
        return out
    }

    /// The attribute value as a string.
    static func string(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        needsDecoding(raw) ? String(decoding: decoded(raw), as: UTF8.self) : String(decoding: raw, as: UTF8.self)
    }
}
