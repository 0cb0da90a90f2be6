/// Typed value conversion: V2/V4 wire forms to the canonical forms (docs/json-shape.md).
extension JSONTranscoder {
    /// Writes the value at the current position as member `m` says (or unchanged/untyped when nil).
    mutating func writeValue(_ kind: PayloadMember.Kind?, collection: Bool) throws(JSONError) {
        guard let kind else { return try writeUntyped() }
        let b = try s.peek()
        if b == UInt8(ascii: "n") { _ = try s.scanLiteral(); return ascii("null") }
        if collection {
            if b == UInt8(ascii: "[") { return try writeArray(kind) }
            // V2 collection property: {"__metadata": {...}, "results": [...]}
            if b == UInt8(ascii: "{") {
                var wrote = false
                if try s.beginObject() {
                    repeat {
                        let k = try s.readKey()
                        if s.equals(k, "results"), try s.peek() == UInt8(ascii: "[") {
                            try writeArray(kind)
                            wrote = true
                        } else {
                            try s.skipValue()
                        }
                    } while try s.nextMember()
                }
                if !wrote { ascii("[]") }
                return
            }
            return try copyValue()
        }
        switch kind {
        case .primitive(let p): try writePrimitive(p)
        case .structured(let name):
            if b == UInt8(ascii: "{") {
                try writeObject(declared: index?.type(name), role: .nested)
            } else {
                try copyValue()
            }
        case .navigation(let target):
            if b == UInt8(ascii: "{") { try writeObject(declared: index?.type(target), role: .nested) }
            else if b == UInt8(ascii: "[") { try writeEntityArray(index?.type(target)) }
            else { try copyValue() }
        case .enumeration, .unknown: try writeUntyped()
        }
    }

    mutating func writeArray(_ kind: PayloadMember.Kind) throws(JSONError) {
        byte(UInt8(ascii: "["))
        if try s.beginArray() {
            var comma = false
            repeat {
                if comma { byte(UInt8(ascii: ",")) }
                comma = true
                try writeValue(kind, collection: false)
            } while try s.nextElement()
        }
        byte(UInt8(ascii: "]"))
    }

    /// A value without schema information: objects go through the object writer (which drops
    /// V2 `__metadata`/`__deferred` and V4 control information), V2 `/Date(...)/` strings become
    /// ISO 8601, everything else is copied.
    mutating func writeUntyped() throws(JSONError) {
        let b = try s.peek()
        switch b {
        case UInt8(ascii: "{"):
            if version == .v2, let first = try peekFirstKey() {
                if s.equals(first, "__deferred") { try s.skipValue(); return ascii("null") }
                if isV2FeedKey(first) { return try writeV2InlineFeed(target: nil, navName: nil, annotationAt: nil) }
            }
            try writeObject(declared: nil, role: .nested)
        case UInt8(ascii: "["):
            byte(UInt8(ascii: "["))
            if try s.beginArray() {
                var comma = false
                repeat {
                    if comma { byte(UInt8(ascii: ",")) }
                    comma = true
                    try writeUntyped()
                } while try s.nextElement()
            }
            byte(UInt8(ascii: "]"))
        case UInt8(ascii: "\""):
            let t = try s.scanString()
            if version == .v2, t.length > 8, s.hasPrefix(t, "\\/Date(") || s.hasPrefix(t, "/Date("),
               writeV2Date(t) {
                return
            }
            rawString(t)
        default: try copyValue()
        }
    }

    func isV2FeedKey(_ k: JSONScanner.StringToken) -> Bool {
        s.equals(k, "results") || s.equals(k, "__count") || s.equals(k, "__next") || s.equals(k, "__delta")
    }

    mutating func writePrimitive(_ kind: EdmPrimitiveKind) throws(JSONError) {
        let b = try s.peek()
        let isString = b == UInt8(ascii: "\"")
        let isNumber = b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39)
        switch kind {
        case .int64, .decimal:
            if isNumber {
                let r = try s.scanNumber()
                byte(UInt8(ascii: "\"")); rawBytes(r); byte(UInt8(ascii: "\""))
                plainStringEnd = out.count
                return
            }
        case .int16, .int32, .byte, .sbyte:
            if isString {
                let t = try s.scanString()
                let raw = UnsafeBufferPointer(start: s.base + t.start, count: t.length)
                if !t.escaped, EdmLiteral.isJSONInteger(raw) { out.append(raw) } else { rawString(t) }
                return
            }
        case .double, .single:
            if isString {
                let t = try s.scanString()
                let text = s.string(t)
                switch EdmLiteral.floatLiteral(text) {
                case .number(let n): out.append(n)
                case .special(let sp): string(sp)
                case nil: rawString(t)
                }
                return
            }
        case .boolean:
            if isString {
                let t = try s.scanString()
                if s.equals(t, "true") || s.equals(t, "1") { ascii("true") }
                else if s.equals(t, "false") || s.equals(t, "0") { ascii("false") }
                else { rawString(t) }
                return
            }
        case .dateTime, .dateTimeOffset:
            if isString {
                let t = try s.scanString()
                if writeV2Date(t) { return }
                if kind == .dateTime {
                    let text = s.string(t)
                    if let (_, offset) = EdmLiteral.epochMillis(fromISO: text), offset == nil {
                        string(text + "Z"); return
                    }
                }
                rawString(t)
                return
            }
        case .time:
            if isString {
                let t = try s.scanString()
                if let tod = EdmLiteral.timeOfDay(fromDuration: s.string(t)) { string(tod) } else { rawString(t) }
                return
            }
        case .binary:
            if isString {
                let t = try s.scanString()
                if !t.escaped, t.length % 4 == 0, !containsByte(t, UInt8(ascii: "-")), !containsByte(t, UInt8(ascii: "_")) {
                    rawString(t)  // already standard, padded base64
                } else if let std = EdmLiteral.standardBase64(s.string(t)) {
                    string(std)
                } else {
                    rawString(t)
                }
                return
            }
        case .geography, .geometry, .other, .stream:
            return try copyValue()
        default: break
        }
        // Unchanged (what copyValue does, without peeking again).
        if isString { return rawString(try s.scanString()) }
        if isNumber { return rawBytes(try s.scanNumber()) }
        try copyValue()
    }

    /// Writes a V2 `/Date(...)/` string token as a quoted ISO 8601 string; false (nothing
    /// written) when it is not one. Converted straight from the input bytes; tokens with
    /// escapes other than `\/` take the String route.
    mutating func writeV2Date(_ t: JSONScanner.StringToken) -> Bool {
        // Decoded, it must start with `/`: raw, with `/` or an escape (`\/`, `\u002F`).
        guard t.length > 8, s.base[t.start] == UInt8(ascii: "/") || s.base[t.start] == UInt8(ascii: "\\") else { return false }
        let raw = UnsafeBufferPointer(start: s.base + t.start, count: t.length)
        scratch.removeAll(keepingCapacity: true)
        if EdmLiteral.appendISO(fromV2Date: raw, escapedSlashes: true, into: &scratch) {
            out.append(UInt8(ascii: "\""))
            out.append(scratch)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if t.escaped, let iso = EdmLiteral.isoFromV2Date(s.string(t)) {
            string(iso)
            return true
        }
        return false
    }

    func containsByte(_ t: JSONScanner.StringToken, _ c: UInt8) -> Bool {
        var i = t.start
        while i < t.end { if s.base[i] == c { return true }; i += 1 }
        return false
    }
}
