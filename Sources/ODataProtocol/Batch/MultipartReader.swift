/// RFC 2046 multipart splitting over a byte buffer, as OData $batch uses it.
///
/// Accepted: CRLF line breaks (the RFC) and also bare LF (real files have it; a part's body
/// ends before the line break that precedes the next delimiter, whichever kind it is);
/// transport padding (spaces/tabs) after a delimiter; a preamble before the first delimiter
/// and an epilogue after the close delimiter, both ignored; a UTF-8 BOM at the start.
/// Rejected: no delimiter at all, a missing close delimiter, header lines without a colon.
/// `Content-Length` headers of parts are not trusted (delimiters decide where a part ends).
enum MultipartReader {
    struct Part {
        var headers: BatchHeaders
        /// Byte range of the body inside the buffer.
        var body: Range<Int>
    }

    /// Splits `bytes[range]` into parts delimited by `--boundary`.
    static func split(_ bytes: [UInt8], _ range: Range<Int>, boundary: String) throws(BatchError) -> [Part] {
        let delimiter = Array(("--" + boundary).utf8)
        var parts: [Part] = []
        var partStart: Int? = nil
        var lineStart = range.lowerBound
        if bytes.count >= lineStart + 3, bytes[lineStart] == 0xEF, bytes[lineStart + 1] == 0xBB, bytes[lineStart + 2] == 0xBF {
            lineStart += 3
        }
        var closed = false
        while lineStart < range.upperBound {
            let lineEnd = endOfLine(bytes, from: lineStart, limit: range.upperBound)
            if let kind = delimiterKind(bytes, lineStart, lineEnd.content, delimiter) {
                if let start = partStart {
                    let bodyEnd = max(start, precedingBreak(bytes, lineStart, floor: start))
                    parts.append(try parsePart(bytes, start..<bodyEnd))
                }
                if kind == .close { closed = true; break }
                partStart = lineEnd.next
            } else if let start = partStart, let at = closeDelimiterAtEnd(bytes, lineStart, lineEnd.content, delimiter) {
                // Tolerated: a close delimiter glued to the last body line without a line break
                // (odata.net's NamedStreamRequest.txt writes a binary body so).
                parts.append(try parsePart(bytes, start..<at))
                closed = true
                break
            }
            lineStart = lineEnd.next
        }
        guard !parts.isEmpty || partStart != nil || closed else {
            throw BatchError("no multipart delimiter '--\(boundary)' found", offset: range.lowerBound)
        }
        guard closed else { throw BatchError("missing close delimiter '--\(boundary)--'", offset: range.upperBound) }
        return parts
    }

    enum DelimiterKind { case open, close }

    /// Where a line that ends with `--boundary--` (plus optional padding) has its close delimiter.
    static func closeDelimiterAtEnd(_ b: [UInt8], _ start: Int, _ end: Int, _ d: [UInt8]) -> Int? {
        var e = end
        while e > start, b[e - 1] == 0x20 || b[e - 1] == 0x09 { e -= 1 }
        let n = d.count + 2
        guard e - start > n, b[e - 1] == UInt8(ascii: "-"), b[e - 2] == UInt8(ascii: "-") else { return nil }
        let at = e - n
        for i in 0..<d.count where b[at + i] != d[i] { return nil }
        return at
    }

    static func delimiterKind(_ b: [UInt8], _ start: Int, _ end: Int, _ d: [UInt8]) -> DelimiterKind? {
        guard end - start >= d.count else { return nil }
        for i in 0..<d.count where b[start + i] != d[i] { return nil }
        var i = start + d.count
        var kind = DelimiterKind.open
        if i + 2 <= end, b[i] == UInt8(ascii: "-"), b[i + 1] == UInt8(ascii: "-") { kind = .close; i += 2 }
        while i < end {
            guard b[i] == 0x20 || b[i] == 0x09 else { return nil }  // a longer boundary, not ours
            i += 1
        }
        return kind
    }

    /// End of the line starting at `from`: where its content ends (before CR LF / LF) and where the next line starts.
    static func endOfLine(_ b: [UInt8], from: Int, limit: Int) -> (content: Int, next: Int) {
        var i = from
        while i < limit {
            if b[i] == 0x0A {
                let content = i > from && b[i - 1] == 0x0D ? i - 1 : i
                return (content, i + 1)
            }
            i += 1
        }
        return (limit, limit)
    }

    /// Start of the line break (CRLF or LF) that ends right before `lineStart`.
    static func precedingBreak(_ b: [UInt8], _ lineStart: Int, floor: Int) -> Int {
        var i = lineStart
        if i > floor, b[i - 1] == 0x0A { i -= 1 } else { return lineStart }
        if i > floor, b[i - 1] == 0x0D { i -= 1 }
        return i
    }

    /// Headers up to the first empty line, then the body.
    static func parsePart(_ b: [UInt8], _ r: Range<Int>) throws(BatchError) -> Part {
        let (headers, bodyStart) = try parseHeaders(b, from: r.lowerBound, limit: r.upperBound)
        return Part(headers: headers, body: bodyStart..<r.upperBound)
    }

    /// Header lines (`Name: value`, obsolete line folding joined) up to an empty line. Read
    /// as bytes (the colon, the name's spaces and the padding are ASCII), so each field costs
    /// two String conversions and no Character scans: a `$batch` answer has a few header
    /// lines per change.
    static func parseHeaders(_ b: [UInt8], from: Int, limit: Int) throws(BatchError) -> (BatchHeaders, Int) {
        var headers = BatchHeaders()
        var i = from
        while i < limit {
            let (content, next) = endOfLine(b, from: i, limit: limit)
            if content == i { return (headers, next) }  // empty line: headers end
            if (b[i] == 0x20 || b[i] == 0x09), let last = headers.fields.last {
                let line = String(decoding: b[i..<content], as: UTF8.self)
                headers.remove(last.name)
                headers.add(last.name, last.value + " " + trim(line))
            } else {
                guard let colon = b[i..<content].firstIndex(of: UInt8(ascii: ":")) else {
                    throw BatchError("malformed header line '\(String(decoding: b[i..<content], as: UTF8.self).prefix(60))'", offset: i)
                }
                let name = trimmed(b, i, colon)
                guard !name.isEmpty, !b[name].contains(0x20) else {
                    throw BatchError("malformed header name in '\(String(decoding: b[i..<content], as: UTF8.self).prefix(60))'", offset: i)
                }
                headers.add(String(decoding: b[name], as: UTF8.self), String(decoding: b[trimmed(b, colon + 1, content)], as: UTF8.self))
            }
            i = next
        }
        return (headers, limit)
    }

    /// `start..<end` without leading and trailing spaces and tabs.
    static func trimmed(_ b: [UInt8], _ start: Int, _ end: Int) -> Range<Int> {
        var s = start, e = end
        while s < e, b[s] == 0x20 || b[s] == 0x09 { s += 1 }
        while e > s, b[e - 1] == 0x20 || b[e - 1] == 0x09 { e -= 1 }
        return s..<e
    }

    static func trim(_ s: String) -> String {
        var sub = Substring(s)
        while let f = sub.first, f == " " || f == "\t" { sub.removeFirst() }
        while let l = sub.last, l == " " || l == "\t" { sub.removeLast() }
        return String(sub)
    }

    /// The `boundary` parameter of a multipart Content-Type (quoted or not), if any.
    static func boundary(fromContentType ct: String) -> String? {
        for param in ct.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, trim(String(kv[0])).lowercased() == "boundary" else { continue }
            var v = trim(String(kv[1]))
            if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
            return v.isEmpty ? nil : v
        }
        return nil
    }

    /// The boundary named by the first `--boundary` line of a body (for bodies stored without their Content-Type).
    static func sniffBoundary(_ b: [UInt8]) -> String? {
        var i = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        while i < b.count {
            let (content, next) = endOfLine(b, from: i, limit: b.count)
            if content - i > 2, b[i] == UInt8(ascii: "-"), b[i + 1] == UInt8(ascii: "-") {
                var line = String(decoding: b[(i + 2)..<content], as: UTF8.self)
                while let l = line.last, l == " " || l == "\t" { line.removeLast() }
                return line
            }
            i = next
        }
        return nil
    }

    static func isMultipart(_ ct: String?) -> Bool { ct.map { MediaType.essence($0).hasPrefix("multipart/") } ?? false }
    static func isHTTP(_ ct: String?) -> Bool { ct.map { MediaType.essence($0) == "application/http" } ?? false }
}
