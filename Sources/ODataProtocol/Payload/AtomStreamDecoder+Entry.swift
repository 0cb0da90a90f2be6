/// Feeds, entries and navigation links of the streaming Atom decoder.
///
/// Feed: `{"@odata.count", "value": [...], "@odata.nextLink", "@odata.deltaLink"}` from its
/// `atom:entry`, `at:deleted-entry`, `m:count` and `atom:link` (next/delta) children.
/// Entry: `@odata.etag`, `@odata.type` (when the category names another type than declared),
/// `@odata.id` (when the key properties are missing), media annotations, then the properties
/// (the last `atom:content`'s `m:properties`, else the first direct `m:properties`), then the
/// inline navigation properties.
extension AtomStreamDecoder {
    // MARK: Feeds

    mutating func startFeed(_ attrs: XMLRawAttributes, declared: PayloadTypeInfo?, base: String, link: Int) {
        let base = xmlBase(attrs).map { AtomLiteral.resolve($0, against: base) } ?? base
        feeds.append(FeedState(declared: declared, base: base, arrayStart: out.bytes.count, link: link))
        frames.append(Frame(role: .feed, state: feeds.count - 1))
        out.bytes.append(UInt8(ascii: "["))
    }

    mutating func feedChild(_ fi: Int, _ ns: AtomNamespace, _ el: AtomElementName, _ attrs: XMLRawAttributes) {
        switch (ns, el) {
        case (.atom, .entry):
            if feeds[fi].items > 0 { out.bytes.append(UInt8(ascii: ",")) }
            feeds[fi].items += 1
            startEntry(attrs, declared: feeds[fi].declared, base: feeds[fi].base, link: -1)
        case (.tombstones, .deletedEntry):
            if feeds[fi].items > 0 { out.bytes.append(UInt8(ascii: ",")) }
            feeds[fi].items += 1
            out.bytes.append(#"{"@odata.removed":{"reason":"deleted"}"#)
            if let ref = attrs.raw("ref") {
                out.bytes.append(#","@odata.id":"#)
                out.bytes.appendString(XMLRawAttributes.string(ref))
            }
            out.bytes.append(UInt8(ascii: "}"))
            ignore()
        case (.metadata, .count):
            capture(.feedCount, state: fi)
        case (.atom, .link):
            if let href = attrs.raw("href") {
                let rel = attrs.raw("rel")
                if let rel, AtomBytes.equal(rel, "next") {
                    feeds[fi].next = AtomLiteral.resolve(XMLRawAttributes.string(href), against: feeds[fi].base)
                } else if let rel, AtomBytes.equal(rel, "delta") || AtomBytes.equal(rel, "http://docs.oasis-open.org/odata/ns/delta") {
                    feeds[fi].delta = AtomLiteral.resolve(XMLRawAttributes.string(href), against: feeds[fi].base)
                }
            }
            ignore()
        default:
            ignore()
        }
    }

    mutating func endFeed() {
        out.bytes.append(UInt8(ascii: "]"))
        guard let feed = feeds.popLast() else { return }
        let range = feed.arrayStart..<out.bytes.count
        if feed.link >= 0 {
            links[feed.link].feedSeen = true
            links[feed.link].feedRange = range
            links[feed.link].feedCount = feed.count
            links[feed.link].feedNext = feed.next
        } else {
            result = range
            rootFeed = feed
        }
    }

    // MARK: Entries

    mutating func startEntry(_ attrs: XMLRawAttributes, declared: PayloadTypeInfo?, base: String, link: Int) {
        let base = xmlBase(attrs).map { AtomLiteral.resolve($0, against: base) } ?? base
        var e = EntryState(declared: declared, type: declared, ordinal: entryTerms.count - 1, base: base,
                           rawStart: out.bytes.count, memberBase: out.members.count, link: link)
        if let known = knownTerms {
            Self.decideType(&e, term: e.ordinal < known.count ? known[e.ordinal] : -1, terms: terms)
        }
        if let etag = attrs.raw("etag", namespace: Self.metadataURI) {
            let value = XMLRawAttributes.string(etag)
            let start = out.bytes.count
            out.bytes.appendString(value)
            e.etag = start..<out.bytes.count
            if frames.isEmpty { rootEtag = value }
        }
        entries.append(e)
        frames.append(Frame(role: .entry, state: entries.count - 1))
    }

    /// Types the entry with its category's term (-1: none).
    static func decideType(_ e: inout EntryState, term: Int32, terms: [TermInfo]) {
        e.termID = term
        e.type = term >= 0 ? (terms[Int(term)].type ?? e.declared) : e.declared
        e.typeDecided = true
    }

    mutating func entryChild(_ ei: Int, _ ns: AtomNamespace, _ el: AtomElementName, _ local: UnsafeBufferPointer<UInt8>,
                             _ attrs: XMLRawAttributes) {
        if ns == .metadata && el == .properties && !entries[ei].sawDirectProperties {
            entries[ei].sawDirectProperties = true
            return openProperties(entry: ei, fromContent: false)
        }
        guard ns == .atom else { return ignore() }
        switch el {
        case .category:
            if !entries[ei].sawCategory {
                entries[ei].sawCategory = true
                if !entries[ei].typeDecided {
                    let before = entries[ei].type
                    Self.decideType(&entries[ei], term: entryTerms[entries[ei].ordinal], terms: terms)
                    if entries[ei].typeUsed && entries[ei].type !== before { conflict = true }
                }
            }
            ignore()
        case .id:
            capture(.entryId, state: ei)
        case .content:
            if let src = attrs.raw("src") {
                addMediaLink(ei, "@odata.mediaReadLink", src)
                if let t = attrs.raw("type") { addMedia(ei, "@odata.mediaContentType", t, tag: Tag.mediaType) }
                ignore()
            } else {
                frames.append(Frame(role: .content, state: ei))
            }
        case .link:
            guard let rel = attrs.raw("rel") else { return ignore() }
            if AtomBytes.equal(rel, "edit-media"), let href = attrs.raw("href") {
                addMediaLink(ei, "@odata.mediaEditLink", href)
                if let me = attrs.raw("etag", namespace: Self.metadataURI) {
                    addMedia(ei, "@odata.mediaEtag", me, tag: Tag.media)
                }
                ignore()
            } else if XMLRawAttributes.needsDecoding(rel) {
                let decoded = XMLRawAttributes.decoded(rel)
                decoded.withUnsafeBufferPointer { startNavLinkIfRelated(ei, $0, attrs) }
            } else {
                startNavLinkIfRelated(ei, rel, attrs)
            }
        default:
            ignore()
        }
    }

    /// A media member whose value is the attribute value `raw`.
    mutating func addMedia(_ ei: Int, _ key: StaticString, _ raw: UnsafeBufferPointer<UInt8>, tag: Int) {
        let k = out.key(key)
        let v = out.bytes.count
        if XMLRawAttributes.needsDecoding(raw) {
            XMLRawAttributes.decoded(raw).withUnsafeBufferPointer { out.bytes.appendString($0) }
        } else {
            out.bytes.appendString(raw)
        }
        out.addMember(k, valueStart: v, tag: tag)
    }

    /// A media link member: the attribute value `raw` resolved against the entry's base.
    mutating func addMediaLink(_ ei: Int, _ key: StaticString, _ raw: UnsafeBufferPointer<UInt8>) {
        let k = out.key(key)
        let v = out.bytes.count
        if XMLRawAttributes.needsDecoding(raw) {
            XMLRawAttributes.decoded(raw).withUnsafeBufferPointer {
                AtomLiteral.writeResolved($0, against: entries[ei].base, into: &out.bytes)
            }
        } else {
            AtomLiteral.writeResolved(raw, against: entries[ei].base, into: &out.bytes)
        }
        out.addMember(k, valueStart: v, tag: Tag.media)
    }

    /// Starts a navigation link when `rel` (decoded) has the related-link prefix; the
    /// property name is the rest. Otherwise the link is skipped.
    mutating func startNavLinkIfRelated(_ ei: Int, _ rel: UnsafeBufferPointer<UInt8>, _ attrs: XMLRawAttributes) {
        let n = Self.relatedPrefix.utf8CodeUnitCount
        let related: Bool
        if AtomBytes.isASCII(rel) {
            related = AtomBytes.hasPrefix(rel, Self.relatedPrefix)
        } else {
            // String semantics: a combining mark after the prefix's last "/" makes it no prefix.
            let prefix = String(decoding: UnsafeBufferPointer(start: Self.relatedPrefix.utf8Start, count: n), as: UTF8.self)
            related = String(decoding: rel, as: UTF8.self).hasPrefix(prefix)
        }
        guard related else { return ignore() }
        startNavLink(ei, UnsafeBufferPointer(rebasing: rel[n...]), attrs)
    }

    mutating func openProperties(entry ei: Int, fromContent: Bool) {
        let tag = entries[ei].nextTag
        entries[ei].nextTag += 1
        if fromContent { entries[ei].contentProperties = tag } else { entries[ei].directProperties = tag }
        if !entries[ei].typeDecided { entries[ei].typeUsed = true }
        var f = Frame(role: .properties, state: ei)
        f.memberTag = tag
        frames.append(f)
    }

    mutating func endEntry() {
        guard let e = entries.popLast() else { return }
        let propertiesTag = e.contentProperties >= 0 ? e.contentProperties : e.directProperties
        let partsEnd = out.members.count
        // Header members.
        if let etag = e.etag {
            out.addMember(out.key("@odata.etag"), value: etag, tag: Tag.header)
        }
        if e.termID >= 0 {
            let info = terms[Int(e.termID)]
            if info.resolved != e.declared?.qualifiedName || e.declared == nil {
                let k = out.key("@odata.type")
                let v = out.bytes.count
                out.bytes.append(info.typeJSON)
                out.addMember(k, valueStart: v, tag: Tag.header)
            }
        }
        if let id = e.id, e.type == nil || !keysPresent(e, propertiesTag: propertiesTag, partsEnd: partsEnd) {
            out.addMember(out.key("@odata.id"), value: id, tag: Tag.header)
        }
        // Output order: header, media (content types first, last first), properties, navigation.
        out.selection.append(contentsOf: partsEnd..<out.members.count)
        var i = partsEnd
        while i > e.memberBase {
            i -= 1
            if out.members[i].tag == Tag.mediaType { out.selection.append(i) }
        }
        for tag in [Tag.media, propertiesTag, Tag.nav] where tag >= 0 {
            for j in e.memberBase..<partsEnd where out.members[j].tag == tag { out.selection.append(j) }
        }
        let length = out.closeObject(at: e.rawStart, memberBase: e.memberBase, merging: Tag.media...Tag.mediaType)
        let range = e.rawStart..<(e.rawStart + length)
        if e.link >= 0 {
            links[e.link].entrySeen = true
            links[e.link].entryRange = range
        } else if frames.isEmpty {
            result = range
        }
    }

    /// True when every key property of the entry's type is among its properties and inline
    /// navigation members.
    func keysPresent(_ e: EntryState, propertiesTag: Int, partsEnd: Int) -> Bool {
        guard let type = e.type else { return false }
        for name in type.keyNames {
            var found = false
            for j in e.memberBase..<partsEnd {
                let tag = out.members[j].tag
                if (tag == propertiesTag || tag == Tag.nav) && out.memberKey(j, equals: name) { found = true; break }
            }
            if !found { return false }
        }
        return true
    }

    // MARK: Navigation links

    mutating func startNavLink(_ ei: Int, _ name: UnsafeBufferPointer<UInt8>, _ attrs: XMLRawAttributes) {
        let key = out.key(name)
        let member = Self.member(entries[ei].type, name)
        var hint = false
        if let t = attrs.raw("type") {
            if XMLRawAttributes.needsDecoding(t) {
                hint = String(decoding: XMLRawAttributes.decoded(t), as: UTF8.self).contains("type=feed")
            } else {
                hint = AtomBytes.isASCII(t) ? AtomBytes.contains(t, "type=feed")
                    : String(decoding: t, as: UTF8.self).contains("type=feed")
            }
        }
        links.append(LinkState(entry: ei, key: key, member: member, isFeedHint: hint))
        frames.append(Frame(role: .navLink, state: links.count - 1))
    }

    mutating func startInline(link li: Int) {
        let ei = links[li].entry
        if !entries[ei].typeDecided { entries[ei].typeUsed = true }
        let member = links[li].member
        if case .navigation(let t)? = member?.kind { links[li].target = index?.type(t) }
        links[li].isFeed = member?.isCollection ?? links[li].isFeedHint
        links[li].sawInline = true
        frames.append(Frame(role: .inline, state: li))
    }

    mutating func inlineChild(_ li: Int, _ ns: AtomNamespace, _ el: AtomElementName, _ attrs: XMLRawAttributes) {
        guard ns == .atom, !links[li].feedSeen else { return ignore() }
        let base = entries[links[li].entry].base
        if el == .feed {
            startFeed(attrs, declared: links[li].target, base: base, link: li)
        } else if el == .entry && !links[li].entrySeen {
            startEntry(attrs, declared: links[li].target, base: base, link: li)
        } else {
            ignore()
        }
    }

    mutating func endNavLink() {
        guard let l = links.popLast(), l.sawInline else { return }
        if l.feedSeen {
            if let c = l.feedCount {
                let k = suffixedKey(l.key, "@odata.count")
                let v = out.bytes.count
                out.bytes.append(String(c))
                out.addMember(k, valueStart: v, tag: Tag.nav)
            }
            if let n = l.feedNext {
                let k = suffixedKey(l.key, "@odata.nextLink")
                let v = out.bytes.count
                out.bytes.appendString(n)
                out.addMember(k, valueStart: v, tag: Tag.nav)
            }
            out.addMember(l.key, value: l.feedRange, tag: Tag.nav)
        } else if l.entrySeen {
            out.addMember(l.key, value: l.entryRange, tag: Tag.nav)
        } else {
            let v = out.bytes.count
            out.bytes.append(l.isFeed ? "[]" : "null")
            out.addMember(l.key, valueStart: v, tag: Tag.nav)
        }
    }

    /// Writes the key `<name><suffix>` for the navigation key `name`.
    mutating func suffixedKey(_ name: AtomKey, _ suffix: StaticString) -> AtomKey {
        let start = out.bytes.count
        out.bytes.appendCopy(from: name.start, count: name.count)
        out.bytes.append(suffix)
        return AtomKey(start: start, count: out.bytes.count - start, isASCII: name.isASCII)
    }
}
