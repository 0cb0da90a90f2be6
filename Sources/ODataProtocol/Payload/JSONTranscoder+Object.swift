#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Control information gathered while an object is written; it is inserted at the start of
/// the object once the object is complete (V2 `__metadata` and V4 annotations may come in any order).
/// Made, copied and dropped once or more per entity: it holds two references at most, so that
/// costs two reference counts, not one per field.
struct ObjectHeader {
    var etag: JSONScanner.StringToken?
    /// The type the payload stated (`@odata.type`, V2 `__metadata.type`): its name without
    /// `#`, model type and reported name (`JSONTranscoder.typeMemo`).
    var typeMemo: TypeNameMemo?
    var id: JSONScanner.StringToken?
    /// What only some objects have (delta items, deleted entries, media entities); nil for the others.
    var rare: RareObjectHeader?
    var isTombstone = false
    var isLink = false

    /// Qualified type name without `#`, as the payload stated it.
    var type: String? { typeMemo?.name }

    /// `rare`, made on first use.
    mutating func rareFields() -> RareObjectHeader {
        if let r = rare { return r }
        let r = RareObjectHeader()
        rare = r
        return r
    }
}

/// The parts of an `ObjectHeader` only some objects have. Owned by one header while its object
/// is written.
final class RareObjectHeader {
    /// `@odata.context` kept for delta items (fragment form, e.g. `#Orders/$entity`).
    var context: String?
    /// Compact JSON of the `@odata.removed` object of a deleted-entity entry.
    var removed: [UInt8]?
    var media: [(name: StaticString, value: JSONScanner.StringToken)] = []
}

enum ObjectRole { case topLevel, nested, reference }

/// Control-information terms the codecs act on.
enum ControlTerm {
    case context, etag, type, id, count, nextLink, deltaLink, removed, bind
    case mediaReadLink, mediaEditLink, mediaContentType, mediaEtag
    /// Another `odata.` term (editLink, navigationLink, metadataEtag, ...): dropped.
    case other
    /// A term of another vocabulary: dropped.
    case custom

    static let table: [(StaticString, ControlTerm)] = [
        ("type", .type), ("etag", .etag), ("id", .id), ("context", .context), ("count", .count),
        ("nextLink", .nextLink), ("deltaLink", .deltaLink), ("removed", .removed), ("bind", .bind),
        ("mediaReadLink", .mediaReadLink), ("mediaEditLink", .mediaEditLink),
        ("mediaContentType", .mediaContentType), ("mediaEtag", .mediaEtag),
    ]

    var name: String {
        for (n, t) in ControlTerm.table where t == self { return n.description }
        return ""
    }
}

/// State of the top-level object of a V4 body (count, links, context, `value`).
struct TopLevelState {
    var count: String?
    var nextLink: String?
    var deltaLink: String?
    var context: String?
    /// Type of the elements of `value` when it holds primitive or complex values.
    var valueKind: (PayloadMember.Kind, Bool)?
    /// Items type for entity collections.
    var itemType: PayloadTypeInfo?
    var referencesExpected = false
    /// Set when `value` was an array: the number of its elements.
    var items: Int?
    var sawValue = false
    var sawProperty = false
}

extension JSONTranscoder {
    /// Writes the object at the current position in canonical form and returns its control
    /// information. `declared` is the type the schema expects there (nil without a model).
    @discardableResult
    mutating func writeObject(declared: PayloadTypeInfo?, role: ObjectRole) throws(JSONError) -> ObjectHeader {
        var top = TopLevelState()
        return try writeObject(declared: declared, role: role, top: &top)
    }

    mutating func writeObject(declared: PayloadTypeInfo?, role: ObjectRole, top: inout TopLevelState) throws(JSONError) -> ObjectHeader {
        byte(UInt8(ascii: "{"))
        let bodyStart = out.count
        let sf = spanOpen()
        var wrote = false
        var h = ObjectHeader()
        var current = declared
        var keysSeen = 0
        var hintKey: JSONScanner.StringToken? = nil
        var hint: (PayloadMember.Kind, Bool) = (.unknown, false)
        let frame = seenKeys.count
        // Duplicates: a name spelled like one of `declared`'s first 64 members is a bit in
        // `seenBits`; every other name goes to `seenKeys`. The split depends on the spelling
        // alone, so a repeated name always meets its first occurrence.
        var seenBits: UInt64 = 0
        // Per key only trivial values are read (no reference counting): the declared type's
        // member slots and names, its member-order memo, whether `current` is still `declared`.
        let (chain, ordinals) = declared.map { chainBase($0) } ?? (-1, -1)
        let slots = declared?.slotPointer
        let names = declared?.namePointer
        var sameType = true
        var prev = -1
        if try s.beginObject() {
            repeat {
                let k: JSONScanner.StringToken
                var number = -1
                if let slots, let names, let predicted = predictedKey(slots, names, chain: chain, prev: prev) {
                    k = predicted.key
                    number = predicted.number
                    prev = number
                } else {
                    k = try s.readKey()
                    if let slots, let names, let n = memberNumber(declared, slots, names, k, chain: chain, prev: prev) {
                        number = n
                        prev = n
                    }
                }
                if number >= 0 && number < 64 {
                    let bit = UInt64(1) << UInt64(number)
                    if seenBits & bit != 0 { throw duplicate(k) }
                    seenBits |= bit
                    // The common case, a plain declared member of an entity or complex value:
                    // none of the control-information rules below can apply.
                    if role == .nested, !k.escaped, !h.isTombstone, sameType, let slots {
                        let slot = slots[number]
                        if slot.isPlain {
                            try writeDeclaredMember(k, declared, number, slot, hintKey: hintKey, hint: hint,
                                                    keysSeen: &keysSeen, wrote: &wrote, sf, ordinals: ordinals)
                            continue
                        }
                    }
                } else {
                    try noteKey(k, frame: frame)
                }
                let first = k.length > 0 ? s.base[k.start] : 0
                if first == UInt8(ascii: "@") || first == UInt8(ascii: "#") || (first == UInt8(ascii: "o") && s.hasPrefix(k, "odata.")) {
                    try controlMember(k, &h, &current, role: role, top: &top)
                    sameType = current === declared
                    continue
                }
                if first == UInt8(ascii: "_") && version == .v2 && s.equals(k, "__metadata") {
                    try readV2Metadata(&h)
                    if let ti = h.typeMemo?.info { current = ti }
                    sameType = current === declared
                    continue
                }
                if let at = annotationSeparator(k) {
                    try propertyAnnotation(k, at: at, &hintKey, &hint, &wrote, sf)
                    continue
                }
                if role == .topLevel && s.equals(k, "value") && !contextIsSingle(top.context) {
                    top.sawValue = true
                    memberKey(k, comma: wrote, sf); wrote = true
                    try writeTopValue(&top)
                    continue
                }
                if role == .topLevel { top.sawProperty = true }
                if h.isTombstone {
                    if s.equals(k, "id"), try s.peek() == UInt8(ascii: "\"") { h.id = try s.scanString(); continue }
                    if s.equals(k, "reason") {
                        let start = out.count
                        ascii("{\"reason\":"); try copyValue(); byte(UInt8(ascii: "}"))
                        h.rareFields().removed = out.array(start..<out.count); out.truncate(to: start); plainStringEnd = -1
                        continue
                    }
                    if s.equals(k, "when") { try s.skipValue(); continue }
                }
                if role == .reference && s.equals(k, "uri"), try s.peek() == UInt8(ascii: "\"") {
                    h.id = try s.scanString()
                    continue
                }
                let member = k.escaped ? current?.members[s.string(k)] : current?.memberTable.lookup(s.base + k.start, k.length)
                if let m = member {
                    if m.isKey { keysSeen += 1 }
                    if case .navigation(let target) = m.kind {
                        try writeNavigation(k, targetName: target, collection: m.isCollection, &wrote, sf)
                        continue
                    }
                } else if version == .v2, try s.peek() == UInt8(ascii: "{"), let fk = try peekFirstKey(),
                          s.equals(fk, "__deferred") || isV2FeedKey(fk) {
                    try writeNavigation(k, targetName: nil, collection: true, &wrote, sf)
                    continue
                }
                memberKey(k, comma: wrote, sf)
                wrote = true
                if let hk = hintKey, hk.length == k.length, memcmpEqual(hk.start, k.start, k.length) {
                    try writeValue(hint.0, collection: hint.1)
                } else if let m = member {
                    let valueStart = out.count
                    try writeValue(m.kind, collection: m.isCollection)
                    if m.isKey, case .primitive(let kind) = m.kind { try checkKeyRange(kind, k, from: valueStart) }
                } else {
                    try writeUntyped()
                }
            } while try s.nextMember()
        }
        dropKeys(frame: frame)
        if role == .topLevel {
            if let n = top.nextLink { memberKey("@odata.nextLink", comma: wrote, sf); string(n); wrote = true }
            if let d = top.deltaLink { memberKey("@odata.deltaLink", comma: wrote, sf); string(d); wrote = true }
        }
        spanEndValue(sf)
        byte(UInt8(ascii: "}"))
        let inserted = insertHeader(h, at: bodyStart, declared: declared, current: current, keysSeen: keysSeen,
                                    role: role, top: top, hasMembers: wrote)
        spanClose(sf, insertedAt: bodyStart, inserted: inserted)
        return h
    }

    /// A member of `declared` (number `number`) whose name is plain, in an object of that type:
    /// what the general path of `writeObject` does for it, without its lookups and copies.
    @inline(__always)
    mutating func writeDeclaredMember(_ k: JSONScanner.StringToken, _ declared: PayloadTypeInfo?, _ number: Int, _ slot: PayloadMemberSlot,
                                      hintKey: JSONScanner.StringToken?, hint: (PayloadMember.Kind, Bool),
                                      keysSeen: inout Int, wrote: inout Bool, _ sf: SpanFrame, ordinals: Int) throws(JSONError) {
        if slot.isKey { keysSeen += 1 }
        if slot.isNavigation, let d = declared {
            let m = d.memberList[number]
            if case .navigation(let target) = m.kind {
                return try writeNavigation(k, targetName: target, collection: m.isCollection, &wrote, sf)
            }
        }
        // The member's ordinal (the key is unescaped here): its name for the spans' consumer.
        memberKey(k, comma: wrote, sf, ordinal: ordinals >= 0 ? UInt16(truncatingIfNeeded: ordinals &+ number) : PayloadSpans.noOrdinal)
        wrote = true
        if let hk = hintKey, hk.length == k.length, memcmpEqual(hk.start, k.start, k.length) {
            try writeValue(hint.0, collection: hint.1)
        } else if let p = slot.primitive {
            let valueStart = out.count
            if try s.peek() == UInt8(ascii: "n") {
                _ = try s.scanLiteral()
                ascii("null")
            } else {
                try writePrimitive(p)
            }
            if slot.isKey { try checkKeyRange(p, k, from: valueStart) }
        } else if let d = declared {
            let m = d.memberList[number]
            let valueStart = out.count
            try writeValue(m.kind, collection: m.isCollection)
            if m.isKey, case .primitive(let kind) = m.kind { try checkKeyRange(kind, k, from: valueStart) }
        }
    }

    /// Position of `@` inside a member name (a property annotation `Name@term`), if any.
    func annotationSeparator(_ k: JSONScanner.StringToken) -> Int? {
        var i = k.start + 1
        while i < k.end {
            if s.base[i] == UInt8(ascii: "@") { return i }
            i += 1
        }
        return nil
    }

    /// The annotation term of a member name from `start` (at `@` or at `odata.`), compared as
    /// bytes: `@odata.etag`, `@etag` (4.01) and `odata.etag` (legacy) are the same term; terms of
    /// other vocabularies (`@com.contoso.x`) are `.custom`.
    func controlTerm(_ k: JSONScanner.StringToken, from start: Int) -> ControlTerm {
        // The term of nearly every entity of a page, answered before the general rules.
        if k.end - start == 11 && matchesPrefix(start, k.end, "@odata.etag") { return .etag }
        var i = start
        if i < k.end && s.base[i] == UInt8(ascii: "@") { i += 1 }
        if matchesPrefix(i, k.end, "odata.") {
            i += 6
        } else {
            var j = i
            while j < k.end { if s.base[j] == UInt8(ascii: ".") { return .custom }; j += 1 }
        }
        let n = k.end - i
        for (name, term) in ControlTerm.table where name.utf8CodeUnitCount == n && matchesPrefix(i, k.end, name) {
            return term
        }
        return .other
    }

    @inline(__always) func matchesPrefix(_ i: Int, _ end: Int, _ p: StaticString) -> Bool {
        let n = p.utf8CodeUnitCount
        guard end - i >= n else { return false }
        let q = p.utf8Start
        for k in 0..<n where s.base[i + k] != q[k] { return false }
        return true
    }

    /// Kind of a type annotation value (`#Int64`, `Edm.String`, `#Collection(NS.T)`), memoized.
    mutating func annotatedKind(_ tok: JSONScanner.StringToken) -> (PayloadMember.Kind, Bool) {
        if !tok.escaped, let k = typeHints.lookup(s.base + tok.start, tok.length) { return k }
        let k = PayloadModelIndex.annotatedKind(s.string(tok), index: index)
        // A body names a few types; one naming thousands must not grow (or crowd) the memo.
        if !tok.escaped && typeHints.count < 64 {
            typeHints.insert(Array(UnsafeBufferPointer(start: s.base + tok.start, count: tok.length)), k)
        }
        return k
    }

    mutating func controlMember(_ k: JSONScanner.StringToken, _ h: inout ObjectHeader, _ current: inout PayloadTypeInfo?,
                                role: ObjectRole, top: inout TopLevelState) throws(JSONError) {
        // "#Namespace.Action": an advertised operation, never data.
        guard s.base[k.start] != UInt8(ascii: "#") else { return try s.skipValue() }
        let term = controlTerm(k, from: k.start)
        let isString = try s.peek() == UInt8(ascii: "\"")
        switch term {
        case .etag where isString: h.etag = try s.scanString()
        case .id where isString: h.id = try s.scanString()
        case .type where isString:
            let tok = try s.scanString()
            let hash = !tok.escaped && tok.length > 0 && s.base[tok.start] == UInt8(ascii: "#")
            let m = typeMemo(hash ? JSONScanner.StringToken(start: tok.start + 1, end: tok.end, escaped: false) : tok)
            if role == .topLevel, current == nil || m.info == nil {
                let kind = PayloadModelIndex.annotatedKind(m.name, index: index)
                if case .primitive = kind.0 { top.valueKind = kind; return }
                if kind.1 { top.valueKind = kind; return }
            }
            h.typeMemo = m
            if let ti = m.info { current = ti }
        case .context where isString:
            let c = s.string(try s.scanString())
            if role == .topLevel {
                top.context = c
                if top.valueKind == nil { top.valueKind = valueKind(fromContext: c) }
                return
            }
            let fragment = Self.firstIndex(of: UInt8(ascii: "#"), in: c).map { String(c[$0...]) } ?? ("#" + c)
            if c.hasSuffix("$deletedEntity") {
                h.isTombstone = true
            } else if c.hasSuffix("$link") || c.hasSuffix("$deletedLink") {
                h.isLink = true
                h.rareFields().context = fragment
            } else if c.hasSuffix("/$entity") {
                h.rareFields().context = fragment
                let set = fragment.dropFirst().split(separator: "/").first.map(String.init) ?? ""
                if let ti = index?.typeOfSet(set) { current = ti }
            }
        case .removed:
            let start = out.count
            try copyValue()
            h.rareFields().removed = out.array(start..<out.count)
            out.truncate(to: start)
            plainStringEnd = -1
            h.isTombstone = true
        case .count where role == .topLevel: top.count = try readScalarText()
        case .nextLink where role == .topLevel: top.nextLink = try readLink()
        case .deltaLink where role == .topLevel: top.deltaLink = try readLink()
        case .mediaReadLink where isString: h.rareFields().media.append(("mediaReadLink", try s.scanString()))
        case .mediaEditLink where isString: h.rareFields().media.append(("mediaEditLink", try s.scanString()))
        case .mediaContentType where isString: h.rareFields().media.append(("mediaContentType", try s.scanString()))
        case .mediaEtag where isString: h.rareFields().media.append(("mediaEtag", try s.scanString()))
        default: try s.skipValue()
        }
    }

    /// `Name@odata.type` becomes the type of the following `Name`; navigation counts and links,
    /// and stream-property media links, are kept; every other property annotation is dropped.
    mutating func propertyAnnotation(_ k: JSONScanner.StringToken, at: Int, _ hintKey: inout JSONScanner.StringToken?,
                                     _ hint: inout (PayloadMember.Kind, Bool), _ wrote: inout Bool,
                                     _ sf: SpanFrame) throws(JSONError) {
        let term = controlTerm(k, from: at)
        switch term {
        case .type:
            guard try s.peek() == UInt8(ascii: "\"") else { return try s.skipValue() }
            let t = try s.scanString()
            hintKey = JSONScanner.StringToken(start: k.start, end: at, escaped: false)
            hint = annotatedKind(t)
        case .count:
            guard let n = try readScalarText(), EdmLiteral.isJSONInteger(Array(n.utf8)) else { return }
            writeAnnotationKey(k, at: at, term: "@odata.count", &wrote, sf)
            out.append(n)
        case .nextLink, .deltaLink, .mediaReadLink, .mediaEditLink, .mediaContentType, .mediaEtag:
            guard try s.peek() == UInt8(ascii: "\"") else { return try s.skipValue() }
            let v = try s.scanString()
            writeAnnotationKey(k, at: at, term: "@odata." + term.name, &wrote, sf)
            rawString(v)
        default: try s.skipValue()
        }
    }

    mutating func writeAnnotationKey(_ k: JSONScanner.StringToken, at: Int, term: String, _ wrote: inout Bool, _ sf: SpanFrame) {
        spanEndValue(sf)
        if wrote { byte(UInt8(ascii: ",")) }
        wrote = true
        let keyStart = out.count + 1
        byte(UInt8(ascii: "\""))
        rawBytes(k.start..<at)
        out.append(term)
        ascii("\":")
        spanKey(length: out.count - 2 - keyStart, escaped: k.escaped)
    }

    /// A navigation property's value: dropped when deferred (V2 `__deferred`), otherwise the
    /// expanded entity, `null`, or an array of entities with `Name@odata.count`/`Name@odata.nextLink`.
    /// The target type (`targetName`, qualified) is only looked up when the value is written:
    /// a deferred one, as every V2 entity's unexpanded navigations are, needs none.
    mutating func writeNavigation(_ k: JSONScanner.StringToken, targetName: String?, collection: Bool,
                                  _ wrote: inout Bool, _ sf: SpanFrame) throws(JSONError) {
        func targetType() -> PayloadTypeInfo? { targetName.flatMap { index?.type($0) } }
        let b = try s.peek()
        if b == UInt8(ascii: "{"), version == .v2, let fk = try peekFirstKey() {
            if s.equals(fk, "__deferred") { return try s.skipValue() }
            if isV2FeedKey(fk) {
                spanEndValue(sf)
                if wrote { byte(UInt8(ascii: ",")) }
                wrote = true
                let annotationAt = out.count
                key(k, comma: false)
                spanKey(length: k.length, escaped: k.escaped)
                return try writeV2InlineFeed(target: targetType(), navName: k, annotationAt: annotationAt)
            }
        }
        memberKey(k, comma: wrote, sf)
        wrote = true
        switch b {
        case UInt8(ascii: "{"): try writeObject(declared: targetType(), role: .nested)
        case UInt8(ascii: "["): try writeEntityArray(targetType())
        default: try copyValue()
        }
    }

    mutating func writeEntityArray(_ type: PayloadTypeInfo?) throws(JSONError) {
        byte(UInt8(ascii: "["))
        if try s.beginArray() {
            var comma = false
            repeat {
                if comma { byte(UInt8(ascii: ",")) }
                comma = true
                if try s.peek() == UInt8(ascii: "{") { try writeObject(declared: type, role: .nested) } else { try writeUntyped() }
            } while try s.nextElement()
        }
        byte(UInt8(ascii: "]"))
    }

    /// A V2 inline feed object (`{"results": [...], "__count": "2", "__next": "..."}`) written as an
    /// array; its count and next link become `Name@odata.count`/`Name@odata.nextLink`, inserted
    /// before the property at `annotationAt`.
    mutating func writeV2InlineFeed(target: PayloadTypeInfo?, navName: JSONScanner.StringToken?,
                                    annotationAt: Int?) throws(JSONError) {
        var count: String? = nil
        var next: String? = nil
        var wroteResults = false
        if try s.beginObject() {
            repeat {
                let k = try s.readKey()
                if s.equals(k, "results"), !wroteResults, try s.peek() == UInt8(ascii: "[") {
                    try writeEntityArray(target)
                    wroteResults = true
                } else if s.equals(k, "__count") {
                    count = try readScalarText()
                } else if s.equals(k, "__next") {
                    next = try readLink()
                } else {
                    try s.skipValue()
                }
            } while try s.nextMember()
        }
        if !wroteResults { ascii("[]") }
        guard let navName, let annotationAt, count != nil || next != nil else { return }
        var ann: [UInt8] = []
        let name = UnsafeBufferPointer(start: s.base + navName.start, count: navName.length)
        if let count, EdmLiteral.isJSONInteger(Array(count.utf8)) {
            ann.append(UInt8(ascii: "\"")); ann.append(contentsOf: name); ann.append(contentsOf: "@odata.count\":".utf8)
            ann.append(contentsOf: count.utf8); ann.append(UInt8(ascii: ","))
        }
        if let next {
            ann.append(UInt8(ascii: "\"")); ann.append(contentsOf: name); ann.append(contentsOf: "@odata.nextLink\":".utf8)
            JSONWriter.writeString(next, into: &ann); ann.append(UInt8(ascii: ","))
        }
        rec.valid = false  // members inserted before the one recorded last: not described
        out.insert(ann, at: annotationAt)
    }

    /// Reads V2 `__metadata`: etag, type (`h.typeMemo`), id (or uri) and the media-resource links.
    mutating func readV2Metadata(_ h: inout ObjectHeader) throws(JSONError) {
        guard try s.peek() == UInt8(ascii: "{") else {
            try s.skipValue()
            return
        }
        var uri: JSONScanner.StringToken? = nil
        if try s.beginObject() {
            repeat {
                // The keys every entity has, as servers spell them, are matched in place.
                let known = s.takeKey("uri") ? 1 : s.takeKey("type") ? 2 : s.takeKey("etag") ? 3 : 0
                if known != 0 {
                    guard try s.peek() == UInt8(ascii: "\"") else { try s.skipValue(); continue }
                    switch known {
                    case 1: uri = try s.scanString()
                    case 2: h.typeMemo = typeMemo(try s.scanString())
                    default: h.etag = try s.scanString()
                    }
                    continue
                }
                let k = try s.readKey()
                guard try s.peek() == UInt8(ascii: "\"") else { try s.skipValue(); continue }
                if s.equals(k, "etag") { h.etag = try s.scanString() }
                else if s.equals(k, "type") { h.typeMemo = typeMemo(try s.scanString()) }
                else if s.equals(k, "id") { h.id = try s.scanString() }
                else if s.equals(k, "uri") { uri = try s.scanString() }
                else if s.equals(k, "media_src") { h.rareFields().media.append(("mediaReadLink", try s.scanString())) }
                else if s.equals(k, "edit_media") { h.rareFields().media.append(("mediaEditLink", try s.scanString())) }
                else if s.equals(k, "content_type") { h.rareFields().media.append(("mediaContentType", try s.scanString())) }
                else if s.equals(k, "media_etag") { h.rareFields().media.append(("mediaEtag", try s.scanString())) }
                else { try s.skipValue() }
            } while try s.nextMember()
        }
        if h.id == nil { h.id = uri }
    }

    /// The name, model type and reported name of a type name in a payload (a V2
    /// `__metadata.type` value, a V4 `@odata.type` without its `#`): the entities of a feed
    /// state one type or a few, so the last few are kept (`typeMemos`) and a value with the
    /// same bytes costs no `String`, no type lookup and no name resolution.
    mutating func typeMemo(_ t: JSONScanner.StringToken) -> TypeNameMemo {
        if !t.escaped {
            for m in typeMemos where m.bytes.count == t.length
                && m.bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, s.base + t.start, t.length) == 0 }) {
                return m
            }
        }
        let name = s.string(t)
        let m = TypeNameMemo(bytes: t.escaped ? [] : Array(UnsafeBufferPointer(start: s.base + t.start, count: t.length)),
                             name: name, info: index?.type(name), resolved: resolvedStructuredName(name))
        if !t.escaped {
            if typeMemos.count == 8 { typeMemos.removeLast() }
            typeMemos.insert(m, at: 0)
        }
        return m
    }

    /// The value type a top-level context URL names: `#Edm.Int64`, `#Collection(Edm.String)`, or
    /// a property of an entity (`#Products(1)/Price`, typed through the model). Nil otherwise.
    func valueKind(fromContext c: String) -> (PayloadMember.Kind, Bool)? {
        // Search the UTF-8 bytes: Character search over a context URL cost ~10,000
        // instructions per call, the generic `utf8.firstIndex(of:)` about 850. The usual
        // answer (an entity set, `Set/$entity`, a `$select` list) is told from the bytes
        // alone, with no String made: that cost about 1,500 instructions per single-entity GET.
        var bytes = c
        let interesting = bytes.withUTF8 { (u: UnsafeBufferPointer<UInt8>) -> Bool in
            guard let hash = u.firstIndex(of: UInt8(ascii: "#")) else { return false }
            let f = UnsafeBufferPointer(rebasing: u[(hash + 1)...])
            if f.starts(with: "Edm.".utf8) || f.starts(with: "Collection(Edm.".utf8) { return true }
            // A property of one entity: `Set(key)/Name`.
            guard let close = f.lastIndex(of: UInt8(ascii: ")")), close + 1 < f.count, f[close + 1] == UInt8(ascii: "/") else {
                return false
            }
            return f[..<close].contains(UInt8(ascii: "("))
        }
        guard interesting, let hash = Self.firstIndex(of: UInt8(ascii: "#"), in: c) else { return nil }
        let fragment = String(c[c.utf8.index(after: hash)...])
        if fragment.hasPrefix("Edm.") || fragment.hasPrefix("Collection(Edm.") {
            return PayloadModelIndex.annotatedKind(fragment, index: index)
        }
        let f = fragment.utf8
        guard let index, let open = f.firstIndex(of: UInt8(ascii: "(")), let close = f.lastIndex(of: UInt8(ascii: ")")),
              close > open, fragment[f.index(after: close)...].hasPrefix("/") else { return nil }
        let set = String(fragment[..<open])
        let path = fragment[f.index(close, offsetBy: 2)...].split(separator: "/")
        guard path.count == 1, let type = index.typeOfSet(set), let m = type.members[String(path[0])] else { return nil }
        if case .navigation = m.kind { return nil }
        return (m.kind, m.isCollection)
    }

    /// The index of the first `byte` in `text`'s UTF-8, searched in its contiguous storage.
    static func firstIndex(of byte: UInt8, in text: String) -> String.Index? {
        var copy = text  // shares the storage; withUTF8 only copies a non-contiguous (bridged) string
        guard let offset = copy.withUTF8({ $0.firstIndex(of: byte) }) else { return nil }
        return text.utf8.index(text.utf8.startIndex, offsetBy: offset)
    }

    /// True when a top-level context URL says the payload is one entity (`.../$entity`).
    func contextIsSingle(_ context: String?) -> Bool {
        guard let c = context else { return false }
        return c.hasSuffix("/$entity")
    }

    /// The top-level `value`: a collection (entities, values or references) or a single value.
    mutating func writeTopValue(_ top: inout TopLevelState) throws(JSONError) {
        let b = try s.peek()
        guard b == UInt8(ascii: "[") else {
            if let vk = top.valueKind { try writeValue(vk.0, collection: vk.1) } else { try writeUntyped() }
            return
        }
        byte(UInt8(ascii: "["))
        var n = 0
        if try s.beginArray() {
            repeat {
                if n > 0 { byte(UInt8(ascii: ",")) }
                n += 1
                if let vk = top.valueKind {
                    try writeValue(vk.0, collection: false)
                } else if try s.peek() == UInt8(ascii: "{") {
                    try writeObject(declared: top.itemType, role: top.referencesExpected ? .reference : .nested)
                } else {
                    try writeUntyped()
                }
            } while try s.nextElement()
        }
        byte(UInt8(ascii: "]"))
        top.items = n
    }

    /// Inserts the object's control information after its `{` at `position`; returns the
    /// number of bytes inserted.
    mutating func insertHeader(_ h: ObjectHeader, at position: Int, declared: PayloadTypeInfo?, current: PayloadTypeInfo?,
                               keysSeen: Int, role: ObjectRole, top: TopLevelState, hasMembers: Bool) -> Int {
        header.truncate(to: 0)  // reused: no allocation per object
        if role == .topLevel, let c = top.count, EdmLiteral.isJSONInteger(Array(c.utf8)) {
            headerMember("@odata.count"); header.append(c)
        }
        if let c = h.rare?.context { headerMember("@odata.context"); header.appendString(c) }
        if h.isTombstone {
            headerMember("@odata.removed")
            if let removed = h.rare?.removed { header.append(removed) } else { header.append(#"{"reason":"deleted"}"# as StaticString) }
        }
        if let id = h.id {
            let keysIncomplete = current.map { $0.isEntity && keysSeen < $0.keyNames.count } ?? true
            if h.isTombstone || role == .reference || keysIncomplete {
                headerMember("@odata.id"); header.appendQuoted(s.base + id.start, count: id.length)
            }
        }
        if let e = h.etag { headerMember("@odata.etag"); header.appendQuoted(s.base + e.start, count: e.length) }
        let isValueResult = role == .topLevel && top.sawValue && !top.sawProperty
        if let m = h.typeMemo, !isValueResult, let resolved = m.resolved, resolved != declared?.qualifiedName {
            headerMember("@odata.type"); header.appendString("#" + resolved)
        }
        for m in h.rare?.media ?? [] {
            spanHeaderValueEnd()
            if header.count > 0 { header.append(UInt8(ascii: ",")) }
            header.append("\"@odata." as StaticString)
            header.append(m.name)
            header.append("\":" as StaticString)
            spanHeaderKey(length: 7 + m.name.utf8CodeUnitCount)
            header.appendQuoted(s.base + m.value.start, count: m.value.length)
        }
        guard header.count > 0 else { return 0 }
        spanHeaderValueEnd()
        if hasMembers { header.append(UInt8(ascii: ",")) }
        out.insert(header.span(0..<header.count), at: position)
        return header.count
    }

    /// `"name":` in `header`, after a comma unless it is the first member there.
    private mutating func headerMember(_ name: StaticString) {
        spanHeaderValueEnd()
        if header.count > 0 { header.append(UInt8(ascii: ",")) }
        header.append(UInt8(ascii: "\""))
        header.append(name)
        header.append("\":" as StaticString)
        spanHeaderKey(length: name.utf8CodeUnitCount)
    }
}

extension JSONTranscoder {
    /// A key of a small integer type must fit it: a key the server sent out of range
    /// (`"ID": 4294967297` for an Edm.Int32) would name another entity once stored or sent back.
    func checkKeyRange(_ kind: EdmPrimitiveKind, _ name: JSONScanner.StringToken, from start: Int) throws(JSONError) {
        let range: ClosedRange<Int64>
        switch kind {
        case .int32: range = Int64(Int32.min)...Int64(Int32.max)
        case .int16: range = Int64(Int16.min)...Int64(Int16.max)
        case .byte: range = 0...Int64(UInt8.max)
        case .sbyte: range = Int64(Int8.min)...Int64(Int8.max)
        default: return
        }
        guard start < out.count else { return }
        let first = out[start]
        guard first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39) else { return }
        guard !Self.integer(out.span(start..<out.count), fitsIn: range) else { return }
        let text = out.string(start..<out.count)
        throw JSONError(offset: s.pos, message: "key property \"\(s.string(name))\" is \(text), not a valid \(kind.rawValue)")
    }

    /// True when `text` reads as an integer in `range` the way `Int32(_: String)` and its
    /// siblings read it: an optional `+` or `-`, then one or more ASCII digits, nothing else.
    static func integer(_ text: UnsafeBufferPointer<UInt8>, fitsIn range: ClosedRange<Int64>) -> Bool {
        var i = 0
        var negative = false
        if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < text.count else { return false }
        var magnitude: Int64 = 0
        while i < text.count {
            let d = text[i] &- 0x30
            guard d < 10 else { return false }
            magnitude = magnitude * 10 + Int64(d)
            if magnitude > 1 << 40 { return false }  // far outside every range checked here
            i += 1
        }
        return range.contains(negative ? -magnitude : magnitude)
    }
}
