@testable import ODataProtocol

/// The tree-walking Atom decoder the library used before `AtomStreamDecoder` (libxml2 ->
/// `XMLDocument` -> `JSONValue` tree -> JSON text), kept verbatim as the reference the streaming
/// decoder is checked against (`AtomStreamingEquivalenceTests`). Not used by the library.
/// One change since: a repeated member is refused (`AtomReader.duplicate`, reported as the
/// streaming decoder meets it: an object's own repeats when it is complete, after those of the
/// values inside it) where this reader merged it.
///
/// V2 Atom (`application/atom+xml`, also `application/xml` entries) to the canonical shape.
/// Read only. Feeds (`m:count`, `next` and `delta` links, `at:deleted-entry` tombstones),
/// entries (`m:etag`, category type, media link entries, `m:properties` with `m:type`/`m:null`),
/// inline feeds and entries (`m:inline`, empty = null / []), deferred links dropped. Relative
/// links are resolved against `xml:base`.
enum AtomTreeDecoder {
    static let atom = "http://www.w3.org/2005/Atom"
    static let metadata = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
    static let data = "http://schemas.microsoft.com/ado/2007/08/dataservices"
    static let tombstones = "http://purl.org/atompub/tombstones/1.0"
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    static let relatedPrefix = "http://schemas.microsoft.com/ado/2007/08/dataservices/related/"

    static func decode(_ body: [UInt8], model: ServiceModel?, index: PayloadModelIndex?, declared: PayloadTypeInfo?,
                       target: PayloadTarget) throws(PayloadError) -> DecodedPayload {
        let doc: XMLDocument
        do { doc = try XMLDocument.parse(body) } catch {
            throw PayloadError(.malformed, "XML: \(error.message)", offset: nil)
        }
        // Only an `error` root can be an OData error: parse the body a second time only then.
        if doc.root.name == "error", ErrorBodyDecoder.metadataNamespaces.contains(doc.root.namespace),
           let e = ErrorBodyDecoder.decodeXML(body) {
            throw PayloadError(.invalid, "the body is an OData error: \(e)")
        }
        let reader = AtomReader(index: index)
        let root = doc.root
        let base = root.attribute("base", namespace: xmlNamespace) ?? ""
        func refuseDuplicate() throws(PayloadError) {
            if let name = reader.duplicate { throw PayloadError(.invalid, "duplicate property \"\(name)\"") }
        }
        if root.isNamed("feed", namespace: atom) {
            let feed = reader.feed(root, declared: declared, base: base)
            try refuseDuplicate()
            var o = JSONObject()
            if let c = feed.count { o["@odata.count"] = .number(String(c)) }
            o["value"] = .array(feed.items)
            if let n = feed.next { o["@odata.nextLink"] = .string(n) }
            if let d = feed.delta { o["@odata.deltaLink"] = .string(d) }
            return DecodedPayload(json: JSONValue.object(o).serialized(), count: feed.count, nextLink: feed.next,
                                  deltaLink: feed.delta, entityCount: feed.items.count)
        }
        if root.isNamed("entry", namespace: atom) {
            let (entity, etag) = reader.entry(root, declared: declared, base: base)
            try refuseDuplicate()
            return DecodedPayload(json: JSONValue.object(entity).serialized(), etag: etag, entityCount: 1)
        }
        if root.namespace == data {
            // A V2 property response: <d:Name m:type="...">value</d:Name>.
            var kind: (PayloadMember.Kind, Bool)? = nil
            if case .value(let ref?) = target {
                kind = (index?.memberKind(ref.name) ?? PayloadModelIndex.annotatedKind(ref.name, index: nil).0, ref.isCollection)
            }
            let v = reader.property(root, member: kind.map { PayloadMember(kind: $0.0, isCollection: $0.1, isKey: false) }
                                    ?? declared?.members[root.name])
            try refuseDuplicate()
            return DecodedPayload(json: JSONValue.object(JSONObject([("value", v)])).serialized())
        }
        if root.name == "links" || root.name == "uri" {
            // $links: <links><uri>...</uri></links> or a single <uri>.
            let uris = root.name == "uri" ? [root] : root.children.filter { $0.name == "uri" }
            let refs = uris.map { JSONValue.object(JSONObject([("@odata.id", .string($0.allText))])) }
            if root.name == "uri", let one = refs.first {
                return DecodedPayload(json: one.serialized(), entityCount: 1)
            }
            return DecodedPayload(json: JSONValue.object(JSONObject([("value", .array(refs))])).serialized(),
                                  entityCount: refs.count)
        }
        throw PayloadError(.invalid, "unexpected XML root element <\(root.name)> (namespace \(root.namespace))")
    }
}

/// Walks one parsed Atom document; `index` types the values. One instance per decode call.
final class AtomReader {
    let index: PayloadModelIndex?
    typealias A = AtomTreeDecoder
    /// Memo of `m:type` values to member kinds.
    private var typeKinds: [String: (PayloadMember.Kind, Bool)] = [:]

    /// The first repeated member name met.
    var duplicate: String?

    init(index: PayloadModelIndex?) { self.index = index }

    /// Notes `local` (the first repeat of an object, found while it was built) once the object
    /// is complete: repeats inside its values were noted before.
    func noteRepeat(_ local: String?) {
        if duplicate == nil { duplicate = local }
    }

    struct Feed {
        var items: [JSONValue] = []
        var count: Int64?
        var next: String?
        var delta: String?
    }

    func feed(_ f: XMLElement, declared: PayloadTypeInfo?, base: String) -> Feed {
        let base = f.attribute("base", namespace: A.xmlNamespace).map { resolve($0, against: base) } ?? base
        var out = Feed()
        for c in f.children {
            if c.isNamed("entry", namespace: A.atom) {
                out.items.append(.object(entry(c, declared: declared, base: base).0))
            } else if c.isNamed("deleted-entry", namespace: A.tombstones) {
                var o = JSONObject()
                o["@odata.removed"] = .object(JSONObject([("reason", "deleted")]))
                if let ref = c.attribute("ref") { o["@odata.id"] = .string(ref) }
                out.items.append(.object(o))
            } else if c.isNamed("count", namespace: A.metadata) {
                out.count = Int64(MultipartReader.trim(c.allText))
            } else if c.isNamed("link", namespace: A.atom), let href = c.attribute("href") {
                switch c.attribute("rel") {
                case "next": out.next = resolve(href, against: base)
                case "delta", "http://docs.oasis-open.org/odata/ns/delta": out.delta = resolve(href, against: base)
                default: break
                }
            }
        }
        return out
    }

    /// An entry as a canonical object, and its ETag.
    func entry(_ e: XMLElement, declared: PayloadTypeInfo?, base: String) -> (JSONObject, String?) {
        let base = e.attribute("base", namespace: A.xmlNamespace).map { resolve($0, against: base) } ?? base
        var header = JSONObject()
        var body = JSONObject()
        let etag = e.attribute("etag", namespace: A.metadata)
        var type = declared
        var typeName: String? = nil
        if let cat = e.child("category", namespace: A.atom), let term = cat.attribute("term") {
            typeName = term
            if let t = index?.type(term) { type = t }
        }
        var id: String? = nil
        var properties: XMLElement? = e.child("properties", namespace: A.metadata)
        var media: [(String, String)] = []
        var bodyKeys: [String] = []  // every navigation member in order, repeats included
        for c in e.children where c.namespace == A.atom {
            switch c.name {
            case "id": id = c.allText
            case "content":
                if let src = c.attribute("src") {
                    media.append(("@odata.mediaReadLink", resolve(src, against: base)))
                    if let t = c.attribute("type") { media.insert(("@odata.mediaContentType", t), at: 0) }
                } else if let p = c.child("properties", namespace: A.metadata) {
                    properties = p
                }
            case "link":
                guard let rel = c.attribute("rel") else { continue }
                if rel == "edit-media", let href = c.attribute("href") {
                    media.append(("@odata.mediaEditLink", resolve(href, against: base)))
                    if let me = c.attribute("etag", namespace: A.metadata) { media.append(("@odata.mediaEtag", me)) }
                } else if rel.hasPrefix(A.relatedPrefix), let inline = c.child("inline", namespace: A.metadata) {
                    let name = String(rel.dropFirst(A.relatedPrefix.count))
                    let member = type?.members[name]
                    var target: PayloadTypeInfo? = nil
                    if case .navigation(let t)? = member?.kind { target = index?.type(t) }
                    let isFeed = member?.isCollection ?? (c.attribute("type")?.contains("type=feed") ?? false)
                    if let f = inline.child("feed", namespace: A.atom) {
                        let inner = feed(f, declared: target, base: base)
                        if let n = inner.count { body[name + "@odata.count"] = .number(String(n)); bodyKeys.append(name + "@odata.count") }
                        if let n = inner.next { body[name + "@odata.nextLink"] = .string(n); bodyKeys.append(name + "@odata.nextLink") }
                        body[name] = .array(inner.items)
                    } else if let en = inline.child("entry", namespace: A.atom) {
                        body[name] = .object(entry(en, declared: target, base: base).0)
                    } else {
                        body[name] = isFeed ? .array([]) : .null
                    }
                    bodyKeys.append(name)
                }
            default: break
            }
        }
        var propertyNames: [String] = []
        var repeated: String? = nil
        if let props = properties {
            var propsObject = JSONObject()
            for p in props.children where p.namespace == A.data {
                let value = property(p, member: type?.members[p.name])
                if propsObject[p.name] != nil, repeated == nil { repeated = p.name }
                propsObject[p.name] = value
                propertyNames.append(p.name)
            }
            // Properties first, then expanded navigation properties.
            for m in body { propsObject[m.key] = m.value }
            body = propsObject
        }
        if let etag { header["@odata.etag"] = .string(etag) }
        if let t = typeName, index?.model.resolve(t) != declared?.qualifiedName || declared == nil {
            header["@odata.type"] = .string("#" + (index?.model.resolve(t) ?? t))
        }
        if let id, type == nil || !(type?.keyNames.allSatisfy { body[$0] != nil } ?? false) {
            header["@odata.id"] = .string(id)
        }
        for (k, v) in media { header[k] = .string(v) }
        if repeated == nil {
            // The streaming order: header, media, properties, then the navigation members.
            var seen = Set(header.keys.map { $0 })
            for n in propertyNames { seen.insert(n) }
            for k in bodyKeys where !seen.insert(k).inserted { repeated = k; break }
        }
        noteRepeat(repeated)
        for m in body { header[m.key] = m.value }
        return (header, etag)
    }

    /// A `d:` property element as a canonical JSON value.
    func property(_ p: XMLElement, member: PayloadMember?) -> JSONValue {
        if p.attribute("null", namespace: A.metadata) == "true" { return .null }
        var kind = member?.kind
        var collection = member?.isCollection ?? false
        if let t = p.attribute("type", namespace: A.metadata) {
            let annotated: (PayloadMember.Kind, Bool)
            if let k = typeKinds[t] { annotated = k } else {
                annotated = PayloadModelIndex.annotatedKind(t, index: index)
                typeKinds[t] = annotated
            }
            if case .unknown = annotated.0 {} else { kind = annotated.0 }
            collection = annotated.1 || collection
        }
        if collection {
            let element = kind.map { PayloadMember(kind: $0, isCollection: false, isKey: false) }
            return .array(p.children.filter { $0.namespace == A.data }.map { property($0, member: element) })
        }
        switch kind {
        case .structured(let name)?:
            return complex(p, type: index?.type(name), typeName: p.attribute("type", namespace: A.metadata))
        case .primitive(let k)?:
            return AtomReader.primitive(p.allText, k)
        default:
            if !p.children.isEmpty { return complex(p, type: nil, typeName: p.attribute("type", namespace: A.metadata)) }
            return .string(p.allText)  // Atom's default type is Edm.String
        }
    }

    func complex(_ p: XMLElement, type: PayloadTypeInfo?, typeName: String?) -> JSONValue {
        var o = JSONObject()
        if index == nil, let t = typeName { o["@odata.type"] = .string("#" + t) }
        var repeated: String? = nil
        for c in p.children where c.namespace == A.data {
            let value = property(c, member: type?.members[c.name])
            if o[c.name] != nil, repeated == nil { repeated = c.name }
            o[c.name] = value
        }
        noteRepeat(repeated)
        return .object(o)
    }

    /// XML literal text to the canonical JSON form of `kind`.
    static func primitive(_ text: String, _ kind: EdmPrimitiveKind) -> JSONValue {
        switch kind {
        case .int16, .int32, .byte, .sbyte:
            let t = MultipartReader.trim(text)
            return EdmLiteral.isJSONInteger(Array(t.utf8)) ? .number(t) : .string(text)
        case .int64, .decimal:
            return .string(MultipartReader.trim(text))
        case .double, .single:
            switch EdmLiteral.floatLiteral(MultipartReader.trim(text)) {
            case .number(let n)?: return .number(n)
            case .special(let s)?: return .string(s)
            case nil: return .string(text)
            }
        case .boolean:
            switch MultipartReader.trim(text) {
            case "true", "1": return .bool(true)
            case "false", "0": return .bool(false)
            default: return .string(text)
            }
        case .dateTime:
            if let (_, offset) = EdmLiteral.epochMillis(fromISO: text), offset == nil { return .string(text + "Z") }
            return .string(text)
        case .time:
            return .string(EdmLiteral.timeOfDay(fromDuration: text) ?? text)
        case .binary:
            return .string(EdmLiteral.standardBase64(text) ?? text)
        default:
            return .string(text)
        }
    }

    /// `href` resolved against `base` (absolute URLs and absent bases leave it unchanged).
    func resolve(_ href: String, against base: String) -> String {
        if base.isEmpty || href.contains("://") { return href }
        if href.hasPrefix("/") {
            // Absolute path: keep the scheme and authority of the base.
            if let schemeEnd = base.firstRange(of: "://"),
               let slash = base[schemeEnd.upperBound...].firstIndex(of: "/") {
                return String(base[..<slash]) + href
            }
            return href
        }
        if base.hasSuffix("/") { return base + href }
        if let slash = base.lastIndex(of: "/") { return String(base[...slash]) + href }
        return href
    }
}
