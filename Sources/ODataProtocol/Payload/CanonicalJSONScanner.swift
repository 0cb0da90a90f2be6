/// Byte-level navigation of a response's canonical JSON (the compact JSON the decoder wrote),
/// so that the C views can find entities and single properties without building a
/// `JSONValue` tree of the whole payload (which cost about 20,000 instructions for one
/// 12-property entity; finding it and one property this way costs a few hundred).
///
/// The text is expected to be valid JSON (the library wrote it), but nothing here traps on
/// text that is not: every index is bounds-checked and a structure that does not close
/// yields nil/false. Member names and strings with escapes or non-ASCII bytes take a slow
/// path through `JSONValue.parse`, so names compare exactly as `JSONObject` keys do (Swift
/// `String` equality).
///
/// A value type over borrowed memory: valid only inside the closure that provides the buffer.
/// `CanonicalDocument` is the owning, typed interface over it.
public struct CanonicalJSONScanner {
    public let base: UnsafePointer<UInt8>
    public let count: Int

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        // An empty buffer may have no address: count 0 keeps every read out of the placeholder.
        base = bytes.baseAddress ?? UnsafePointer(Self.placeholder)
        count = bytes.baseAddress == nil ? 0 : bytes.count
    }

    /// Never read (count is 0 whenever it is used) nor written.
    nonisolated(unsafe) private static let placeholder = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    public var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// One member of an object: the name's content (between the quotes) and the value's bytes.
    public struct Member {
        public var name: Range<Int>
        /// The name has neither escapes nor non-ASCII bytes (compared byte for byte).
        public var namePlain: Bool
        public var value: Range<Int>
    }

    @inline(__always) public func byte(_ i: Int) -> UInt8 { i >= 0 && i < count ? base[i] : 0 }

    @inline(__always) public func skipSpace(_ i: Int) -> Int {
        var i = i
        while i < count {
            let c = base[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { break }
            i += 1
        }
        return i
    }

    /// `i` at an opening quote: the index after the closing quote, and whether the content is
    /// plain (no escapes, ASCII only); nil when the string does not close.
    @inline(__always) public func endOfString(_ i: Int) -> (end: Int, plain: Bool)? {
        guard byte(i) == UInt8(ascii: "\"") else { return nil }
        var j = i + 1
        var bits: UInt8 = 0
        var escaped = false
        while j < count {
            let c = base[j]
            if c == UInt8(ascii: "\"") { return (j + 1, !escaped && bits < 0x80) }
            if c == UInt8(ascii: "\\") {
                escaped = true
                j += 2
                continue
            }
            bits |= c
            j += 1
        }
        return nil
    }

    /// `i` at the first byte of a value: the index after it; nil when it does not end.
    public func endOfValue(_ i: Int) -> Int? {
        guard i >= 0, i < count else { return nil }
        switch base[i] {
        case UInt8(ascii: "\""):
            return endOfString(i)?.end
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var j = i
            while j < count {
                switch base[j] {
                case UInt8(ascii: "\""):
                    guard let e = endOfString(j) else { return nil }
                    j = e.end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return j + 1 }
                default:
                    break
                }
                j += 1
            }
            return nil
        case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"):
            return nil
        default:
            // A number or a literal: up to the next delimiter.
            var j = i + 1
            while j < count {
                let c = base[j]
                if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]")
                    || c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { break }
                j += 1
            }
            return j
        }
    }

    /// Calls `body` for each member of the object that starts at `i`, until it returns false.
    /// Returns the index after the object when every member was visited, `i` when `body`
    /// stopped early, and nil when the object is malformed.
    @discardableResult
    public func forEachMember(ofObjectAt i: Int, _ body: (Member) -> Bool) -> Int? {
        guard byte(i) == UInt8(ascii: "{") else { return nil }
        var j = skipSpace(i + 1)
        if byte(j) == UInt8(ascii: "}") { return j + 1 }
        while true {
            guard let name = endOfString(j) else { return nil }
            let nameRange = (j + 1)..<(name.end - 1)
            j = skipSpace(name.end)
            guard byte(j) == UInt8(ascii: ":") else { return nil }
            let valueStart = skipSpace(j + 1)
            guard let valueEnd = endOfValue(valueStart) else { return nil }
            if !body(Member(name: nameRange, namePlain: name.plain, value: valueStart..<valueEnd)) { return i }
            j = skipSpace(valueEnd)
            switch byte(j) {
            case UInt8(ascii: ","): j = skipSpace(j + 1)
            case UInt8(ascii: "}"): return j + 1
            default: return nil
            }
        }
    }

    /// Calls `body` with the range of each element of the array that starts at `i`.
    /// Returns false when the array is malformed.
    @discardableResult
    public func forEachElement(ofArrayAt i: Int, _ body: (Range<Int>) -> Void) -> Bool {
        guard byte(i) == UInt8(ascii: "[") else { return false }
        var j = skipSpace(i + 1)
        if byte(j) == UInt8(ascii: "]") { return true }
        while true {
            guard let end = endOfValue(j) else { return false }
            body(j..<end)
            j = skipSpace(end)
            switch byte(j) {
            case UInt8(ascii: ","): j = skipSpace(j + 1)
            case UInt8(ascii: "]"): return true
            default: return false
            }
        }
    }

    /// The member's name equals `name`, compared as Swift `String`s. `asciiName` is `name`'s
    /// UTF-8 when it is all ASCII (then a plain name compares byte for byte), else nil.
    public func name(of member: Member, equals name: @autoclosure () -> String, asciiName: UnsafeBufferPointer<UInt8>?) -> Bool {
        if member.namePlain, let asciiName {
            // Two ASCII strings are equal as Strings exactly when their bytes are.
            guard member.name.count == asciiName.count else { return false }
            var k = 0
            for i in member.name {
                if base[i] != asciiName[k] { return false }
                k += 1
            }
            return true
        }
        return string(quoted: (member.name.lowerBound - 1)..<(member.name.upperBound + 1)) == name()
    }

    /// The member's name equals an ASCII constant.
    public func name(of member: Member, is constant: StaticString) -> Bool {
        let ascii = UnsafeBufferPointer(start: constant.utf8Start, count: constant.utf8CodeUnitCount)
        return name(of: member, equals: constant.description, asciiName: ascii)
    }

    /// The member's name starts with `@` (an annotation).
    public func nameIsAnnotation(_ member: Member) -> Bool {
        let first = byte(member.name.lowerBound)
        if member.name.isEmpty { return false }
        if first != UInt8(ascii: "\\") { return first == UInt8(ascii: "@") }
        return string(quoted: (member.name.lowerBound - 1)..<(member.name.upperBound + 1))?.hasPrefix("@") ?? false
    }

    /// The string value whose bytes (quotes included) are `range`, unescaped; nil when it is
    /// not a valid JSON string.
    public func string(quoted range: Range<Int>) -> String? {
        guard range.count >= 2, range.lowerBound >= 0, range.upperBound <= count else { return nil }
        let content = (range.lowerBound + 1)..<(range.upperBound - 1)
        var escaped = false
        for i in content where base[i] == UInt8(ascii: "\\") {
            escaped = true
            break
        }
        if !escaped {
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[content]), as: UTF8.self)
        }
        guard case .string(let s)? = try? JSONValue.parse(UnsafeBufferPointer(rebasing: buffer[range])) else { return nil }
        return s
    }

    /// The raw text of the bytes in `range` (numbers as spelled).
    public func text(_ range: Range<Int>) -> String {
        guard range.lowerBound >= 0, range.upperBound <= count else { return "" }
        return String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self)
    }
}
