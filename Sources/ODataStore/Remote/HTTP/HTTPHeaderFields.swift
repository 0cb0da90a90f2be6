/// Response header fields in the order received: one byte buffer holding every trimmed name
/// and value, plus where each is. Names and values become `String`s only when asked for
/// (making two Strings per header line as lines arrive cost about 1,000 instructions per
/// line, and a response is typically asked for two or three fields by name).
///
/// A value type; lookups by name compare ASCII case-insensitively and return the first match.
public struct HTTPHeaderFields: Sendable, CustomStringConvertible {
    private var bytes: [UInt8] = []
    private var fields: [Field] = []

    private struct Field {
        var name: Range<Int>
        var value: Range<Int>
    }

    public init() {}

    public init(_ pairs: [(name: String, value: String)]) {
        for (name, value) in pairs {
            var n = name, v = value
            n.withUTF8 { nb in v.withUTF8 { vb in append(name: nb, value: vb) } }
        }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The field at `index` (0 ..< count).
    public subscript(index: Int) -> (name: String, value: String) {
        let f = fields[index]
        return (string(f.name), string(f.value))
    }

    /// Every field as (name, value) Strings.
    public var pairs: [(name: String, value: String)] {
        fields.map { (string($0.name), string($0.value)) }
    }

    /// Position of the first field with this name (ASCII case-insensitive), if any.
    public func index(named name: String) -> Int? {
        var key = name
        return key.withUTF8 { k -> Int? in
            for (i, f) in fields.enumerated() where f.name.count == k.count {
                var equal = true
                var j = f.name.lowerBound
                for c in k {
                    let b = bytes[j]
                    if (b >= 65 && b <= 90 ? b | 0x20 : b) != (c >= 65 && c <= 90 ? c | 0x20 : c) {
                        equal = false
                        break
                    }
                    j += 1
                }
                if equal { return i }
            }
            return nil
        }
    }

    /// What is wrong with the message's Content-Length fields, nil when nothing is (none, or
    /// one value: RFC 9112 section 6.3 also takes a list of one value repeated, "100, 100").
    /// Several differing values or one that is not a decimal number of at most 18 digits
    /// (libcurl 7.88 then reads to the last of them, or to the end of the connection, and
    /// reports success with the body cut or grown) mean the body's end is unknown: the
    /// response cannot be trusted. One pass over the fields, no String made.
    func contentLengthProblem() -> String? {
        let name = Self.contentLengthName
        var first: ArraySlice<UInt8>? = nil
        for f in fields where f.name.count == name.count {
            var equal = true
            for (k, j) in f.name.enumerated() {
                let b = bytes[j]
                if (b >= 65 && b <= 90 ? b | 0x20 : b) != name[k] { equal = false; break }
            }
            guard equal else { continue }
            // each comma-separated item, spaces trimmed
            for item in bytes[f.value].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let v = item.drop(while: { $0 == 0x20 || $0 == 0x09 }).reversed().drop(while: { $0 == 0x20 || $0 == 0x09 }).reversed()
                let digits = ArraySlice(v)
                guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    return "Content-Length \"\(String(decoding: bytes[f.value].prefix(40), as: UTF8.self))\" is not a length"
                }
                if let first, first != digits {
                    return "two different Content-Length values (\(String(decoding: first, as: UTF8.self)) and \(String(decoding: digits, as: UTF8.self)))"
                }
                first = digits
            }
        }
        return nil
    }

    private static let contentLengthName: [UInt8] = Array("content-length".utf8)  // made once, not per response

    /// The length of the body, decoded, that a final response with `status` and these headers
    /// declares: its Content-Length when nothing else frames or transforms the body (no
    /// Transfer-Encoding, no Content-Encoding but identity) and the status has a body (not
    /// 1xx, 204, 304, or another 3xx, whose body a followed redirect never delivers). nil
    /// otherwise, or when the field is not one length (`contentLengthProblem` says so).
    func declaredBodyLength(status: Int) -> Int? {
        guard status >= 200, status != 204, !(300..<400).contains(status) else { return nil }
        guard value(named: "Transfer-Encoding") == nil else { return nil }
        if let coding = value(named: "Content-Encoding"), !asciiCaseInsensitiveEquals(coding, "identity") { return nil }
        guard contentLengthProblem() == nil, let text = value(named: "Content-Length") else { return nil }
        // Sound (checked above): items of 1 to 18 digits, all equal; the first one's digits.
        var n = 0
        for b in text.utf8.drop(while: { $0 == 0x20 || $0 == 0x09 }) {
            guard b >= 0x30 && b <= 0x39 else { break }
            n = n * 10 + Int(b - 0x30)
        }
        return n
    }

    /// The value of the first field with this name (ASCII case-insensitive), if any.
    public func value(named name: String) -> String? {
        index(named: name).map { string(fields[$0].value) }
    }

    public var description: String { "\(pairs)" }

    private func string(_ range: Range<Int>) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    // MARK: - Building (the transport, as lines arrive)

    /// Appends a field; `name` and `value` are already trimmed.
    mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        reserveOnce()
        let nameStart = bytes.count
        bytes.append(contentsOf: name)
        let valueStart = bytes.count
        bytes.append(contentsOf: value)
        fields.append(Field(name: nameStart..<valueStart, value: valueStart..<bytes.count))
    }

    /// Appends a field whose name is `line[name]` and value `line[value]` (trimmed ranges of
    /// one header line, the name first): one copy of the line from the name to the value's end.
    mutating func append(line: UnsafeBufferPointer<UInt8>, name: Range<Int>, value: Range<Int>) {
        reserveOnce()
        let base = bytes.count - name.lowerBound
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: line[name.lowerBound..<max(name.upperBound, value.upperBound)]))
        fields.append(Field(name: (base + name.lowerBound)..<(base + name.upperBound),
                            value: (base + value.lowerBound)..<(base + value.upperBound)))
    }

    @inline(__always) private mutating func reserveOnce() {
        if fields.capacity == 0 {
            bytes.reserveCapacity(512)
            fields.reserveCapacity(16)
        }
    }

    /// Obsolete line folding: `more` continues the last field's value, after one space.
    /// The last value is always at the end of the buffer, so it stays contiguous.
    mutating func continueLastValue(_ more: UnsafeBufferPointer<UInt8>) {
        guard !fields.isEmpty else { return }
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: more)
        fields[fields.count - 1].value = fields[fields.count - 1].value.lowerBound..<bytes.count
    }

    /// Forgets every field (a new response begins: 1xx, redirects).
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
    }
}
