#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Decodes one V2 Atom document as libxml2 streams it (SAX2 events, `XMLRawEventSink`) straight
/// into the canonical JSON bytes: no element tree, no `JSONValue` tree, no `String` per element
/// name or attribute. Values are typed from the model and written as they are read; each
/// object's members are put in order when it closes, by `AtomJSONBuffer`, which refuses a
/// repeated property or navigation link as the JSON decoders refuse a repeated member (an
/// entry's media annotations merge).
///
/// The rules (which children count, first/last wins, `xml:base`, typing) are those of the
/// tree-walking reader this replaced, kept exactly but for repeated members, which that reader
/// merged; see `AtomDecoder` for what is read.
///
/// An entry's type comes from its first `atom:category`, which Atom allows after the
/// properties and inline links it types. Such an entry is typed with the declared type while
/// streaming; if the category then names another type, `conflict` is set and `AtomDecoder`
/// decodes the document again with every entry's category known in advance (`knownTerms`).
///
/// One instance per pass over one document; not thread-safe.
struct AtomStreamDecoder {
    /// Member tags of an entry's parts (`AtomMember.tag`); properties candidates count up from
    /// `firstProperties`.
    enum Tag {
        static let nav = 0, media = 1, mediaType = 2, header = 3, firstProperties = 4
    }

    enum Role: UInt8 {
        /// The subtree is skipped (`skipDepth`); nothing happens at its end.
        case ignored
        case feed, entry
        /// Captured text: `m:count` of a feed, `atom:id` of an entry, a `$links` `uri`.
        case feedCount, entryId, uri
        /// An entry's `atom:content` without `src`: its first `m:properties` is a candidate.
        case content
        /// A properties candidate of an entry (`Frame.memberTag` tells which).
        case properties
        case navLink, inline
        case nullValue, primitiveValue, untypedValue, complexValue, collectionValue
        case linksRoot
    }

    /// One open element that is not inside a skipped subtree. Plain data (no references), so
    /// that pushing and popping frames costs no reference counting.
    struct Frame {
        var role: Role
        /// feeds/entries/links index, or the element count of a collection or `$links`.
        var state = 0
        /// The member key of a property value (`hasKey` false: array element or root value).
        var key = AtomKey(start: 0, count: 0, isASCII: true)
        var hasKey = false
        var memberTag = 0
        var valueStart = 0
        var memberBase = 0
        /// content: saw its m:properties; navLink: saw its m:inline.
        var flag = false
        var primitive: EdmPrimitiveKind = .string
        /// complexValue, collectionValue, untypedValue: index into `values`.
        var value = -1

        init(role: Role, state: Int = 0) {
            self.role = role
            self.state = state
        }
    }

    /// What a structured, collection or untyped property value needs while it is open.
    struct ValueInfo {
        /// complexValue: the type of its members.
        var type: PayloadTypeInfo?
        /// collectionValue: the kind of its elements.
        var elementKind: PayloadMember.Kind?
        /// untypedValue without a model: the `m:type` to write if it turns out complex.
        var typeName: String?
    }

    struct FeedState {
        var declared: PayloadTypeInfo?
        var base: String
        var arrayStart: Int
        /// The navigation link that holds this feed inline, or -1 for the root feed.
        var link: Int
        var items = 0
        var count: Int64? = nil
        var next: String? = nil
        var delta: String? = nil
    }

    struct EntryState {
        var declared: PayloadTypeInfo?
        var type: PayloadTypeInfo?
        var ordinal: Int
        var base: String
        var rawStart: Int
        var memberBase: Int
        /// The navigation link that holds this entry inline, -1 for a feed item or the root.
        var link: Int
        var typeDecided = false
        var typeUsed = false
        var sawCategory = false
        var sawDirectProperties = false
        var termID: Int32 = -1
        var etag: Range<Int>? = nil
        var id: Range<Int>? = nil
        var directProperties = -1
        var contentProperties = -1
        var nextTag = Tag.firstProperties
    }

    struct LinkState {
        var entry: Int
        var key: AtomKey
        var member: PayloadMember?
        var isFeedHint: Bool
        var target: PayloadTypeInfo? = nil
        var isFeed = false
        var sawInline = false
        var feedSeen = false
        var feedRange: Range<Int> = 0..<0
        var feedCount: Int64? = nil
        var feedNext: String? = nil
        var entrySeen = false
        var entryRange: Range<Int> = 0..<0
    }

    /// A category term seen in the document, with what it resolves to.
    struct TermInfo {
        var name: String
        var type: PayloadTypeInfo?
        var resolved: String?
        /// `"#<resolved name>"` as a JSON string.
        var typeJSON: [UInt8]
    }

    struct OpenEntry {
        var depth: Int
        var ordinal: Int
        var sawCategory = false
    }

    enum Root { case none, feed, entry, property, links, uri, error, unexpected }

    static let relatedPrefix: StaticString = "http://schemas.microsoft.com/ado/2007/08/dataservices/related/"
    static let metadataURI: StaticString = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
    static let xmlURI: StaticString = "http://www.w3.org/XML/1998/namespace"

    let index: PayloadModelIndex?
    let declared: PayloadTypeInfo?
    let target: PayloadTarget
    /// Second pass: the term of each entry's first category, by entry ordinal.
    let knownTerms: [Int32]?

    var out: AtomJSONBuffer
    var text = AtomTextCapture()
    var depth = 0
    /// The depth of the element whose descendants are being skipped, or 0.
    var skipDepth = 0
    var frames: [Frame] = []
    var values: [ValueInfo] = []
    var feeds: [FeedState] = []
    var entries: [EntryState] = []
    var links: [LinkState] = []

    /// Every `atom:entry` in document order (its ordinal) -> its first category's term id, or -1.
    var entryTerms: [Int32] = []
    var openEntries: [OpenEntry] = []
    var terms: [TermInfo] = []
    var termTable = ByteKeyedTable<Int32>()
    var typeKinds = ByteKeyedTable<(PayloadMember.Kind, Bool)>()

    /// Set when an entry's late category changed a type already used: this pass's output is void.
    var conflict = false
    var root: Root = .none
    var rootName = ""
    var rootNamespace = ""
    /// The root value's span in `out.bytes` (feed array, entry, property value, links array, uri).
    var result: Range<Int> = 0..<0
    var rootFeed: FeedState? = nil
    var rootEtag: String? = nil
    /// An element in the OData V4 Atom namespaces was seen: this reader knows V2's only, and
    /// would otherwise return entries without their properties.
    var sawV4Namespace = false

    init(index: PayloadModelIndex?, declared: PayloadTypeInfo?, target: PayloadTarget, capacity: Int,
         knownTerms: [Int32]? = nil, terms: [TermInfo] = [], termTable: ByteKeyedTable<Int32> = ByteKeyedTable()) {
        self.index = index
        self.declared = declared
        self.target = target
        self.knownTerms = knownTerms
        self.terms = terms
        self.termTable = termTable
        out = AtomJSONBuffer(capacity: capacity)
        frames.reserveCapacity(32)
    }

    // MARK: - Events

    mutating func start(_ name: UnsafePointer<UInt8>?, _ uri: UnsafePointer<UInt8>?, _ attrs: XMLRawAttributes) {
        depth += 1
        let ns = AtomNamespace.classify(uri)
        let local: UnsafeBufferPointer<UInt8>
        if let name {
            local = UnsafeBufferPointer(start: name, count: strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)))
        } else {
            local = UnsafeBufferPointer(start: nil, count: 0)
        }
        let el = local.baseAddress.map { AtomElementName.classify($0, local.count) } ?? .other
        if ns == .v4Data || ns == .v4Metadata { sawV4Namespace = true }
        if ns == .atom && (el == .entry || el == .category) { record(el, attrs) }
        if conflict { return }
        if skipDepth != 0 {
            if text.isActive { text.childStart() }
            return
        }
        guard let top = frames.last else { return startRoot(ns, el, local, uri, attrs) }
        switch top.role {
        case .feed: feedChild(top.state, ns, el, attrs)
        case .entry: entryChild(top.state, ns, el, local, attrs)
        case .content:
            if ns == .metadata && el == .properties && !top.flag {
                frames[frames.count - 1].flag = true
                openProperties(entry: top.state, fromContent: true)
            } else {
                ignore()
            }
        case .properties:
            guard ns == .data else { return ignore() }
            startProperty(local, attrs, member: Self.member(entries[top.state].type, local), parent: .member(top.memberTag))
        case .complexValue:
            guard ns == .data else { return ignore() }
            startProperty(local, attrs, member: Self.member(values[top.value].type, local), parent: .member(0))
        case .untypedValue:
            // The first child element makes it a complex value (its own text is dropped).
            text.cancel()
            let i = frames.count - 1
            frames[i].role = .complexValue
            frames[i].memberBase = out.members.count
            if let t = values[top.value].typeName { addTypeAnnotation(t) }
            guard ns == .data else { return ignore() }
            startProperty(local, attrs, member: nil, parent: .member(0))
        case .collectionValue:
            guard ns == .data else { return ignore() }
            frames[frames.count - 1].state += 1
            if top.state > 0 { out.bytes.append(UInt8(ascii: ",")) }
            let element = values[top.value].elementKind.map { PayloadMember(kind: $0, isCollection: false, isKey: false) }
            startProperty(local, attrs, member: element, parent: .element)
        case .navLink:
            if ns == .metadata && el == .inline && !top.flag {
                frames[frames.count - 1].flag = true
                startInline(link: top.state)
            } else {
                ignore()
            }
        case .inline: inlineChild(top.state, ns, el, attrs)
        case .linksRoot:
            guard el == .uri else { return ignore() }
            frames[frames.count - 1].state += 1
            if top.state > 0 { out.bytes.append(UInt8(ascii: ",")) }
            capture(.uri, state: 0)
        case .ignored, .feedCount, .entryId, .uri, .nullValue, .primitiveValue:
            ignore()  // not reached: these skip their subtree
        }
    }

    mutating func end() {
        defer { depth -= 1 }
        if let last = openEntries.last, last.depth == depth { openEntries.removeLast() }
        if conflict { return }
        if skipDepth != 0 {
            if depth > skipDepth {
                if text.isActive { text.childEnd() }
                return
            }
            skipDepth = 0
        }
        guard let f = frames.popLast() else { return }
        switch f.role {
        case .ignored, .content, .properties, .inline: break
        case .feed: endFeed()
        case .entry: endEntry()
        case .navLink: endNavLink()
        case .feedCount:
            let count = text.finish { t -> Int64? in
                if AtomBytes.isASCII(t) { return Int64(String(decoding: AtomBytes.trimmed(t), as: UTF8.self)) }
                return Int64(MultipartReader.trim(String(decoding: t, as: UTF8.self)))
            }
            feeds[f.state].count = count
        case .entryId:
            let start = out.bytes.count
            text.finish { out.bytes.appendString($0) }
            entries[f.state].id = start..<out.bytes.count
        case .uri:
            let start = out.bytes.count
            out.bytes.append(#"{"@odata.id":"#)
            text.finish { out.bytes.appendString($0) }
            out.bytes.append(UInt8(ascii: "}"))
            if frames.isEmpty { result = start..<out.bytes.count }
        case .nullValue:
            endValue(f)
        case .primitiveValue:
            text.finish { AtomLiteral.write($0, f.primitive, into: &out.bytes) }
            endValue(f)
        case .untypedValue:
            text.finish { out.bytes.appendString($0) }  // Atom's default type is Edm.String
            endValue(f)
        case .complexValue:
            out.selection.append(contentsOf: f.memberBase..<out.members.count)
            out.closeObject(at: f.valueStart, memberBase: f.memberBase)
            endValue(f)
        case .collectionValue:
            out.bytes.append(UInt8(ascii: "]"))
            endValue(f)
        case .linksRoot:
            out.bytes.append(UInt8(ascii: "]"))
            result = f.valueStart..<out.bytes.count
            linkCount = f.state
        }
    }

    @inline(__always)
    mutating func characters(_ chunk: UnsafeBufferPointer<UInt8>) {
        if text.isActive && !conflict { text.append(chunk) }
    }

    // MARK: - Helpers

    /// Skips the element just started, with its subtree.
    mutating func ignore() {
        frames.append(Frame(role: .ignored))
        skipDepth = depth
    }

    /// Captures the string value of the element just started (its subtree is otherwise skipped).
    mutating func capture(_ role: Role, state: Int) {
        frames.append(Frame(role: role, state: state))
        skipDepth = depth
        text.begin()
    }

    /// Counts every `atom:entry` and notes the term of its first `atom:category` child,
    /// whatever the decoder does with the entry (the second pass relies on the numbering).
    mutating func record(_ el: AtomElementName, _ attrs: XMLRawAttributes) {
        if el == .entry {
            openEntries.append(OpenEntry(depth: depth, ordinal: entryTerms.count))
            entryTerms.append(-1)
            return
        }
        guard let top = openEntries.last, top.depth == depth - 1, !top.sawCategory else { return }
        openEntries[openEntries.count - 1].sawCategory = true
        entryTerms[top.ordinal] = attrs.raw("term").map { termID($0) } ?? -1
    }

    mutating func termID(_ raw: UnsafeBufferPointer<UInt8>) -> Int32 {
        let bytes = XMLRawAttributes.needsDecoding(raw) ? XMLRawAttributes.decoded(raw) : Array(raw)
        if let id = bytes.withUnsafeBufferPointer({ b in b.baseAddress.flatMap { termTable.lookup($0, b.count) } }) {
            return id
        }
        let name = String(decoding: bytes, as: UTF8.self)
        let resolved = index?.model.resolve(name)
        var json: [UInt8] = []
        JSONWriter.writeString("#" + (resolved ?? name), into: &json)
        terms.append(TermInfo(name: name, type: index?.type(name), resolved: resolved, typeJSON: json))
        let id = Int32(terms.count - 1)
        termTable.insert(bytes, id)
        return id
    }

    /// The member `name` of `type` (byte lookup; a `String` lookup when that misses, so that
    /// names are matched as the model's dictionary matches them).
    static func member(_ type: PayloadTypeInfo?, _ name: UnsafeBufferPointer<UInt8>) -> PayloadMember? {
        guard let type, let p = name.baseAddress else { return nil }
        if let m = type.memberTable.lookup(p, name.count) { return m }
        return type.members[String(decoding: name, as: UTF8.self)]
    }

    /// The member kind an `m:type` value gives (memoised by its bytes).
    mutating func annotatedKind(_ raw: UnsafeBufferPointer<UInt8>) -> (PayloadMember.Kind, Bool) {
        guard let p = raw.baseAddress, !XMLRawAttributes.needsDecoding(raw) else {
            return PayloadModelIndex.annotatedKind(XMLRawAttributes.string(raw), index: index)
        }
        if let k = typeKinds.lookup(p, raw.count) { return k }
        let k = PayloadModelIndex.annotatedKind(String(decoding: raw, as: UTF8.self), index: index)
        // A body names a few types; one naming thousands must not grow (or crowd) the memo.
        if typeKinds.count < 64 { typeKinds.insert(Array(raw), k) }
        return k
    }

    func xmlBase(_ attrs: XMLRawAttributes) -> String? {
        attrs.raw("base", namespace: Self.xmlURI).map(XMLRawAttributes.string)
    }

    /// Appends the member `"@odata.type": "#<name>"` to the object being built.
    mutating func addTypeAnnotation(_ name: String) {
        let k = out.key("@odata.type")
        let v = out.bytes.count
        out.bytes.appendString("#" + name)
        out.addMember(k, valueStart: v, tag: 0)
    }

    // MARK: - Root

    mutating func startRoot(_ ns: AtomNamespace, _ el: AtomElementName, _ local: UnsafeBufferPointer<UInt8>,
                            _ uri: UnsafePointer<UInt8>?, _ attrs: XMLRawAttributes) {
        rootName = String(decoding: local, as: UTF8.self)
        rootNamespace = uri.map { String(cString: $0) } ?? ""
        if el == .error && (ns == .metadata || ns == .v4Metadata) {
            root = .error
            return ignore()
        }
        let base = xmlBase(attrs) ?? ""
        if ns == .atom && el == .feed {
            root = .feed
            startFeed(attrs, declared: declared, base: base, link: -1)
        } else if ns == .atom && el == .entry {
            root = .entry
            startEntry(attrs, declared: declared, base: base, link: -1)
        } else if ns == .data {
            // A V2 property response: <d:Name m:type="...">value</d:Name>.
            root = .property
            var member: PayloadMember? = nil
            if case .value(let ref?) = target {
                let kind = index?.memberKind(ref.name) ?? PayloadModelIndex.annotatedKind(ref.name, index: nil).0
                member = PayloadMember(kind: kind, isCollection: ref.isCollection, isKey: false)
            } else {
                member = declared?.members[rootName]
            }
            startProperty(local, attrs, member: member, parent: .root)
        } else if el == .links {
            // $links: <links><uri>...</uri></links>.
            root = .links
            var f = Frame(role: .linksRoot)
            f.valueStart = out.bytes.count
            frames.append(f)
            out.bytes.append(UInt8(ascii: "["))
        } else if el == .uri {
            root = .uri
            capture(.uri, state: 0)
        } else {
            root = .unexpected
            ignore()
        }
    }

    /// The decoded payload, once the whole document was parsed (and `conflict` is false).
    func payload(body: [UInt8]) throws(PayloadError) -> DecodedPayload {
        if sawV4Namespace && root != .error {
            throw PayloadError(.unsupportedContentType,
                               "OData V4 Atom (application/atom+xml with the docs.oasis-open.org namespaces) is not supported; request JSON (the library's default Accept header)")
        }
        if let name = out.duplicate { throw PayloadError(.invalid, "duplicate property \"\(name)\"") }
        switch root {
        case .none:
            throw PayloadError(.malformed, "XML: the document has no root element", offset: nil)
        case .error:
            if let e = ErrorBodyDecoder.decodeXML(body) {
                throw PayloadError(.invalid, "the body is an OData error: \(e)")
            }
            throw unexpectedRoot()
        case .unexpected:
            throw unexpectedRoot()
        case .feed:
            guard let feed = rootFeed else { throw unexpectedRoot() }
            var o: [UInt8] = []
            o.reserveCapacity(result.count + 256)
            o.append(UInt8(ascii: "{"))
            if let c = feed.count {
                o.append(contentsOf: #""@odata.count":"#.utf8)
                o.append(contentsOf: String(c).utf8)
                o.append(UInt8(ascii: ","))
            }
            o.append(contentsOf: #""value":"#.utf8)
            o.append(contentsOf: out.bytes.span(result))
            if let n = feed.next {
                o.append(contentsOf: #","@odata.nextLink":"#.utf8)
                JSONWriter.writeString(n, into: &o)
            }
            if let d = feed.delta {
                o.append(contentsOf: #","@odata.deltaLink":"#.utf8)
                JSONWriter.writeString(d, into: &o)
            }
            o.append(UInt8(ascii: "}"))
            return DecodedPayload(utf8: o, count: feed.count, nextLink: feed.next,
                                  deltaLink: feed.delta, entityCount: feed.items)
        case .entry:
            return DecodedPayload(utf8: Array(out.bytes.span(result)), etag: rootEtag, entityCount: 1)
        case .property:
            var o: [UInt8] = []
            o.reserveCapacity(result.count + 16)
            o.append(contentsOf: #"{"value":"#.utf8)
            o.append(contentsOf: out.bytes.span(result))
            o.append(UInt8(ascii: "}"))
            return DecodedPayload(utf8: o)
        case .links:
            var o: [UInt8] = []
            o.reserveCapacity(result.count + 16)
            o.append(contentsOf: #"{"value":"#.utf8)
            o.append(contentsOf: out.bytes.span(result))
            o.append(UInt8(ascii: "}"))
            return DecodedPayload(utf8: o, entityCount: linkCount)
        case .uri:
            return DecodedPayload(utf8: Array(out.bytes.span(result)), entityCount: 1)
        }
    }

    /// The number of `uri` children of a `links` root (kept by its frame while open).
    var linkCount = 0

    func unexpectedRoot() -> PayloadError {
        PayloadError(.invalid, "unexpected XML root element <\(rootName)> (namespace \(rootNamespace))")
    }
}
