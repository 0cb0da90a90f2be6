/// Writes request bodies for create/update (and V4 action parameters) from canonical JSON
/// (docs/json-shape.md), in the format of the service's protocol version. Pure, thread-safe.
///
/// - V4: JSON with `odata.metadata=minimal;IEEE754Compatible=true`; Int64/Decimal strings pass
///   through; `@odata.type` and `Name@odata.bind` are kept, every other annotation (`@odata.etag`,
///   `@odata.id`, media links, counts, ...) is removed; Binary is written base64url (V4's form).
/// - V2: verbose JSON (no `d` wrapper, as V2 servers expect in requests) with
///   `"__metadata":{"type":...}` when the type is known; DateTime as `/Date(ms)/`,
///   DateTimeOffset as `/Date(ms+mmmm)/` (offset in minutes), TimeOfDay as `PThhHmmMssS`,
///   Int64/Decimal as strings, other numbers as numbers; expanded navigation (deep insert) as
///   plain arrays/objects; `Name@odata.bind` as `"Name":{"__metadata":{"uri":...}}`.
/// Without a model values are written as given (only annotations are handled).
public enum PayloadEncoder {
    public static let v4ContentType = "application/json;odata.metadata=minimal;IEEE754Compatible=true"
    public static let v2ContentType = "application/json"

    public static func encodeEntity(_ canonicalJSON: String, version: ODataVersion, model: ServiceModel?,
                                    entitySet: String?, entityType: String? = nil) throws(PayloadError) -> (body: [UInt8], contentType: String) {
        let value: JSONValue
        do { value = try JSONValue.parse(canonicalJSON) } catch {
            throw PayloadError(.malformed, "entity JSON: \(error.message)", offset: error.offset)
        }
        return try encodeEntity(value, version: version, model: model, entitySet: entitySet, entityType: entityType)
    }

    /// `schema`: the model's shared flattened types (pass the store's, so a type is flattened
    /// once rather than for every entity written).
    public static func encodeEntity(_ entity: JSONValue, version: ODataVersion, model: ServiceModel?,
                                    entitySet: String?, entityType: String? = nil,
                                    schema: PayloadSchema? = nil) throws(PayloadError) -> (body: [UInt8], contentType: String) {
        guard case .object(let o) = entity else { throw PayloadError(.invalid, "an entity must be a JSON object") }
        let index = schema.map(PayloadModelIndex.init) ?? model.map(PayloadModelIndex.init)
        var declared: PayloadTypeInfo? = nil
        if let entityType { declared = index?.type(entityType) }
        if declared == nil, let entitySet { declared = index?.typeOfSet(entitySet) }
        let w = EntityWriter(version: version, index: index)
        var out: [UInt8] = []
        w.object(o, declared: declared, isEntity: true).write(into: &out)
        return (out, version == .v4 ? v4ContentType : v2ContentType)
    }

    /// The JSON body of a V4 action call: `parameters` (a JSON object of canonical values) typed
    /// by the operation's parameter types. Binding parameters are skipped.
    public static func encodeActionParameters(_ parameters: JSONValue, operation: Operation?,
                                              model: ServiceModel?) throws(PayloadError) -> (body: [UInt8], contentType: String) {
        guard case .object(let o) = parameters else { throw PayloadError(.invalid, "action parameters must be a JSON object") }
        let index = model.map(PayloadModelIndex.init)
        let w = EntityWriter(version: .v4, index: index)
        var result = JSONObject()
        let params = operation?.parameters ?? []
        for (i, p) in params.enumerated() where !(operation?.isBound == true && i == 0) {
            guard let v = o[p.name] else { continue }
            let kind = index?.memberKind(p.type.name) ?? PayloadModelIndex.annotatedKind(p.type.name, index: nil).0
            result[p.name] = w.value(v, member: PayloadMember(kind: kind, isCollection: p.type.isCollection, isKey: false))
        }
        if operation == nil { for m in o { result[m.key] = w.value(m.value, member: nil) } }
        var out: [UInt8] = []
        JSONValue.object(result).write(into: &out)
        return (out, v4ContentType)
    }
}

/// Converts canonical values into one version's request form.
struct EntityWriter {
    let version: ODataVersion
    let index: PayloadModelIndex?

    func object(_ o: JSONObject, declared: PayloadTypeInfo?, isEntity: Bool) -> JSONValue {
        var type = declared
        var typeName = declared?.qualifiedName
        if case .string(let t)? = o["@odata.type"] {
            let name = t.hasPrefix("#") ? String(t.dropFirst()) : t
            typeName = index?.model.resolve(name) ?? name
            if let ti = index?.type(name) { type = ti }
        }
        var out = JSONObject()
        if version == .v2, let typeName, isEntity || typeName != declared?.qualifiedName {
            out["__metadata"] = .object(JSONObject([("type", .string(typeName))]))
        } else if version == .v4, let typeName, typeName != declared?.qualifiedName {
            out["@odata.type"] = .string("#" + typeName)
        }
        for (key, value) in o {
            if key.hasPrefix("@") { continue }  // instance annotations (type handled above)
            if let at = key.firstIndex(of: "@") {
                let name = String(key[..<at])
                let term = key[key.index(after: at)...]
                guard term == "odata.bind" else { continue }
                if version == .v4 { out[key] = value; continue }
                let uris = value.arrayValue ?? [value]
                let refs = uris.compactMap { $0.stringValue }.map {
                    JSONValue.object(JSONObject([("__metadata", .object(JSONObject([("uri", .string($0))])))]))
                }
                out[name] = value.arrayValue != nil ? .array(refs) : (refs.first ?? .null)
                continue
            }
            out[key] = self.value(value, member: type?.members[key])
        }
        return .object(out)
    }

    func value(_ v: JSONValue, member: PayloadMember?) -> JSONValue {
        if case .null = v { return .null }
        guard let member else {
            switch v {
            case .object(let o): return object(o, declared: nil, isEntity: false)
            case .array(let a): return .array(a.map { value($0, member: nil) })
            default: return v
            }
        }
        if member.isCollection, case .array(let a) = v {
            let element = PayloadMember(kind: member.kind, isCollection: false, isKey: false)
            return .array(a.map { value($0, member: element) })
        }
        switch member.kind {
        case .navigation(let target):
            let t = index?.type(target)
            switch v {
            case .object(let o): return object(o, declared: t, isEntity: true)
            case .array(let a): return .array(a.map { $0.objectValue.map { object($0, declared: t, isEntity: true) } ?? $0 })
            default: return v
            }
        case .structured(let name):
            if case .object(let o) = v { return object(o, declared: index?.type(name), isEntity: false) }
            return v
        case .primitive(let k): return primitive(v, k)
        case .enumeration, .unknown: return v
        }
    }

    func primitive(_ v: JSONValue, _ k: EdmPrimitiveKind) -> JSONValue {
        switch (k, v) {
        case (.int64, .number(let n)), (.decimal, .number(let n)): return .string(n)
        case (.int16, .string(let s)), (.int32, .string(let s)), (.byte, .string(let s)), (.sbyte, .string(let s)):
            return EdmLiteral.isJSONInteger(Array(s.utf8)) ? .number(s) : v
        case (.binary, .string(let s)) where version == .v4:
            return .string(EdmLiteral.base64url(EdmLiteral.standardBase64(s) ?? s))
        case (.dateTime, .string(let s)) where version == .v2:
            return .string(EdmLiteral.v2Date(fromISO: s, keepOffset: false) ?? s)
        case (.dateTimeOffset, .string(let s)) where version == .v2:
            return .string(EdmLiteral.v2Date(fromISO: s, keepOffset: true) ?? s)
        case (.timeOfDay, .string(let s)) where version == .v2, (.time, .string(let s)) where version == .v2:
            return .string(EdmLiteral.duration(fromTimeOfDay: s) ?? s)
        default: return v
        }
    }
}
