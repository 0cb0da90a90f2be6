/// What the top level of a body said besides the canonical JSON itself.
struct TopLevelSummary {
    var count: String?
    var nextLink: String?
    var deltaLink: String?
    var etag: String?
    var entityCount = 0
    /// The output is one entity (or entity reference) object and nothing else.
    var singleEntity = false
}

extension JSONTranscoder {
    // MARK: V2 (verbose JSON)

    /// A V2 body: `{"d": ...}` or the same without the `d` wrapper; feeds as `{"results": [...]}`
    /// with `__count`/`__next`/`__delta`, or as bare arrays (V1).
    mutating func decodeV2(declared: PayloadTypeInfo?, target: PayloadTarget,
                           valueKind: (PayloadMember.Kind, Bool)?) throws(JSONError) -> TopLevelSummary {
        if try s.peek() == UInt8(ascii: "{"), let fk = try peekFirstKey(), s.equals(fk, "d") {
            _ = try s.beginObject()
            _ = try s.readKey()
            let r = try decodeV2Inner(declared: declared, target: target, valueKind: valueKind)
            while try s.nextMember() { _ = try s.readKey(); try s.skipValue() }  // nothing else belongs beside "d"
            return r
        }
        return try decodeV2Inner(declared: declared, target: target, valueKind: valueKind)
    }

    mutating func decodeV2Inner(declared: PayloadTypeInfo?, target: PayloadTarget,
                                valueKind: (PayloadMember.Kind, Bool)?) throws(JSONError) -> TopLevelSummary {
        let b = try s.peek()
        if b == UInt8(ascii: "[") { return try writeV2Collection(declared: declared, target: target, valueKind: valueKind) }
        guard b == UInt8(ascii: "{") else {
            ascii("{\"value\":")
            if let vk = valueKind { try writeValue(vk.0, collection: vk.1) } else { try writeUntyped() }
            byte(UInt8(ascii: "}"))
            return TopLevelSummary()
        }
        let first = try peekFirstKey()
        if let fk = first, s.equals(fk, "results"), try firstValueIsObject() {
            // pyslet wraps single results in "results": {"d": {"results": {"TotalStock": "5"}}}.
            _ = try s.beginObject()
            _ = try s.readKey()
            let r = try decodeV2Inner(declared: declared, target: target, valueKind: valueKind)
            while try s.nextMember() { _ = try s.readKey(); try s.skipValue() }
            return r
        }
        if let fk = first, isV2FeedKey(fk) {
            return try writeV2Collection(declared: declared, target: target, valueKind: valueKind)
        }
        switch target {
        case .references:
            try writeObject(declared: nil, role: .reference)
            return TopLevelSummary(entityCount: 1, singleEntity: true)
        case .value:
            return try writeV2SingleValue(declared: declared, valueKind: valueKind)
        case .automatic where declared == nil:
            if let fk = first, !s.equals(fk, "__metadata"), try objectHasSingleMember() {
                if s.equals(fk, "uri") {
                    try writeObject(declared: nil, role: .reference)
                    return TopLevelSummary(entityCount: 1, singleEntity: true)
                }
                return try writeV2SingleValue(declared: declared, valueKind: valueKind)
            }
        default: break
        }
        let h = try writeObject(declared: declared, role: .nested)
        if index != nil, let t = h.type, let ti = index?.type(t), !ti.isEntity, declared == nil {
            // A complex value (V2 complex property or function result): canonical {"value": {...}}.
            rec.valid = false  // a value, not an object of members
            out.insert("{\"value\":", at: 0)
            byte(UInt8(ascii: "}"))
            return TopLevelSummary()
        }
        return TopLevelSummary(etag: h.etag.map { s.string($0) }, entityCount: 1, singleEntity: true)
    }

    /// `{"Name": value}` (a V2 property or function result) as `{"value": value}`.
    mutating func writeV2SingleValue(declared: PayloadTypeInfo?, valueKind: (PayloadMember.Kind, Bool)?) throws(JSONError) -> TopLevelSummary {
        ascii("{\"value\":")
        var wrote = false
        if try s.beginObject() {
            repeat {
                let k = try s.readKey()
                if wrote || s.equals(k, "__metadata") { try s.skipValue(); continue }
                wrote = true
                if let vk = valueKind {
                    try writeValue(vk.0, collection: vk.1)
                } else if let m = declared?.members[s.string(k)] {
                    try writeValue(m.kind, collection: m.isCollection)
                } else {
                    try writeUntyped()
                }
            } while try s.nextMember()
        }
        if !wrote { ascii("null") }
        byte(UInt8(ascii: "}"))
        return TopLevelSummary()
    }

    /// A V2 feed (`{"results": [...], ...}` or a bare array) as `{"@odata.count":..,"value":[...],...}`.
    mutating func writeV2Collection(declared: PayloadTypeInfo?, target: PayloadTarget,
                                    valueKind: (PayloadMember.Kind, Bool)?) throws(JSONError) -> TopLevelSummary {
        var r = TopLevelSummary()
        byte(UInt8(ascii: "{"))
        let start = out.count
        let sf = spanOpen()
        memberKey("value", comma: false, sf)
        if try s.peek() == UInt8(ascii: "[") {
            r.entityCount = try writeV2Items(declared: declared, target: target, valueKind: valueKind)
        } else {
            var wroteResults = false
            if try s.beginObject() {
                repeat {
                    let k = try s.readKey()
                    if s.equals(k, "results"), !wroteResults, try s.peek() == UInt8(ascii: "[") {
                        r.entityCount = try writeV2Items(declared: declared, target: target, valueKind: valueKind)
                        wroteResults = true
                    } else if s.equals(k, "__count") {
                        r.count = try readScalarText()
                    } else if s.equals(k, "__next") {
                        r.nextLink = try readLink()
                    } else if s.equals(k, "__delta") {
                        r.deltaLink = try readLink()
                    } else {
                        try s.skipValue()
                    }
                } while try s.nextMember()
            }
            if !wroteResults { ascii("[]") }
        }
        if let n = r.nextLink { memberKey("@odata.nextLink", comma: true, sf); string(n) }
        if let d = r.deltaLink { memberKey("@odata.deltaLink", comma: true, sf); string(d) }
        spanEndValue(sf)
        byte(UInt8(ascii: "}"))
        var inserted = 0
        if let c = r.count, EdmLiteral.isJSONInteger(Array(c.utf8)) {
            let member = Array("\"@odata.count\":\(c),".utf8)
            if recording {
                let n = Int32(truncatingIfNeeded: member.count)
                rec.header.append(PayloadSpans.Member(keyStart: 1, keyEnd: 13, valueStart: 15, valueEnd: n - 1,
                                                      keyEscaped: false, firstObject: Int32(truncatingIfNeeded: rec.objects.count)))
            }
            out.insert(member, at: start)
            inserted = member.count
        }
        spanClose(sf, insertedAt: start, inserted: inserted)
        return r
    }

    mutating func writeV2Items(declared: PayloadTypeInfo?, target: PayloadTarget,
                               valueKind: (PayloadMember.Kind, Bool)?) throws(JSONError) -> Int {
        byte(UInt8(ascii: "["))
        var n = 0
        if try s.beginArray() {
            repeat {
                if n > 0 { byte(UInt8(ascii: ",")) }
                n += 1
                if let vk = valueKind {
                    try writeValue(vk.0, collection: false)
                } else if try s.peek() == UInt8(ascii: "{") {
                    try writeObject(declared: declared, role: target == .references ? .reference : .nested)
                } else {
                    try writeUntyped()
                }
            } while try s.nextElement()
        }
        byte(UInt8(ascii: "]"))
        return n
    }

    // MARK: V4 JSON

    mutating func decodeV4(declared: PayloadTypeInfo?, target: PayloadTarget,
                           valueKind: (PayloadMember.Kind, Bool)?) throws(JSONError) -> TopLevelSummary {
        let b = try s.peek()
        guard b == UInt8(ascii: "{") else {
            if target.expectsEntities(declaredEntityType: declared != nil) { throw s.fail("expected a JSON object (an entity, or entities under \"value\")") }
            ascii("{\"value\":")
            if b == UInt8(ascii: "[") {
                var top = TopLevelState(valueKind: valueKind, itemType: declared, referencesExpected: target == .references)
                try writeTopValue(&top)
                byte(UInt8(ascii: "}"))
                return TopLevelSummary(entityCount: top.items ?? 0)
            }
            if let vk = valueKind { try writeValue(vk.0, collection: vk.1) } else { try writeUntyped() }
            byte(UInt8(ascii: "}"))
            return TopLevelSummary()
        }
        var top = TopLevelState(valueKind: valueKind, itemType: declared, referencesExpected: target == .references)
        // A single complex value (V4 sends its members at the top level) is typed by the target's type.
        var objectType = declared
        if case .value = target, let vk = valueKind, !vk.1, case .structured(let name) = vk.0 { objectType = index?.type(name) }
        let h = try writeObject(declared: objectType, role: .topLevel, top: &top)
        var r = TopLevelSummary(count: top.count, nextLink: top.nextLink, deltaLink: top.deltaLink)
        if let items = top.items {
            r.entityCount = items
            return r
        }
        if top.sawValue && !top.sawProperty { return r }  // {"value": <primitive or complex>}
        let isValue: Bool
        switch target {
        case .value: isValue = true
        case .automatic where declared == nil: isValue = Self.contextNamesProperty(top.context)
        default: isValue = false
        }
        if isValue {
            rec.valid = false  // a value, not an object of members
            out.insert("{\"value\":", at: 0)
            byte(UInt8(ascii: "}"))
            return r
        }
        r.etag = h.etag.map { s.string($0) }
        r.entityCount = 1
        r.singleEntity = true
        return r
    }

    /// True for a context URL whose fragment addresses a property of an entity
    /// (`#Employees(3)/HomeAddress`) rather than an entity (`#People/$entity`, `#VipCustomer`).
    static func contextNamesProperty(_ context: String?) -> Bool {
        guard let c = context, let hash = c.firstIndex(of: "#") else { return false }
        let fragment = c[c.index(after: hash)...]
        guard !fragment.hasSuffix("$entity"), let close = fragment.lastIndex(of: ")") else { return false }
        let rest = fragment[fragment.index(after: close)...]
        return rest.hasPrefix("/") && rest.count > 1
    }
}
