/// Property values (`d:` elements) of the streaming Atom decoder.
///
/// `m:null="true"` is null; `m:type` (or the model) gives the kind. A collection is an array
/// of its `d:` children; a structured value an object of its `d:` children (with
/// `@odata.type` when there is no model); a primitive the conversion of its string value
/// (`AtomLiteral`); without a type, an element with children is an object and one without a
/// string (Atom's default type is Edm.String).
extension AtomStreamDecoder {
    /// Where a property value goes.
    enum Parent {
        /// A member of the object being built, with this tag.
        case member(Int)
        /// An element of a collection (the comma is already written).
        case element
        /// The root value of a property response.
        case root
    }

    mutating func startProperty(_ local: UnsafeBufferPointer<UInt8>, _ attrs: XMLRawAttributes, member: PayloadMember?,
                                parent: Parent) {
        var f = Frame(role: .nullValue)
        if case .member(let tag) = parent {
            f.key = out.key(xmlName: local)
            f.hasKey = true
            f.memberTag = tag
        }
        f.valueStart = out.bytes.count
        if let null = attrs.raw("null", namespace: Self.metadataURI), AtomBytes.equal(null, "true") {
            out.bytes.append("null")
            frames.append(f)
            skipDepth = depth
            return
        }
        var kind = member?.kind
        var collection = member?.isCollection ?? false
        let typeAttribute = attrs.raw("type", namespace: Self.metadataURI)
        if let t = typeAttribute {
            let annotated = annotatedKind(t)
            if case .unknown = annotated.0 {} else { kind = annotated.0 }
            collection = annotated.1 || collection
        }
        if collection {
            f.role = .collectionValue
            f.value = values.count
            values.append(ValueInfo(type: nil, elementKind: kind, typeName: nil))
            frames.append(f)
            out.bytes.append(UInt8(ascii: "["))
            return
        }
        switch kind {
        case .structured(let name)?:
            f.role = .complexValue
            f.value = values.count
            values.append(ValueInfo(type: index?.type(name), elementKind: nil, typeName: nil))
            f.memberBase = out.members.count
            frames.append(f)
            if index == nil, let t = typeAttribute { addTypeAnnotation(XMLRawAttributes.string(t)) }
        case .primitive(let k)?:
            f.role = .primitiveValue
            f.primitive = k
            frames.append(f)
            skipDepth = depth
            text.begin()
        default:
            f.role = .untypedValue
            f.value = values.count
            let typeName = index == nil ? typeAttribute.map(XMLRawAttributes.string) : nil
            values.append(ValueInfo(type: nil, elementKind: nil, typeName: typeName))
            frames.append(f)
            text.begin()
        }
    }

    /// A property value is complete at the end of `bytes`: record it in its parent.
    @inline(__always)
    mutating func endValue(_ f: Frame) {
        if f.value >= 0 { values.removeLast() }
        if f.hasKey {
            out.addMember(f.key, valueStart: f.valueStart, tag: f.memberTag)
        } else if frames.isEmpty {
            result = f.valueStart..<out.bytes.count
        }
    }
}
