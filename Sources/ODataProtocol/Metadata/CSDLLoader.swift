/// Turns a parsed EDMX/CSDL element tree into a `ServiceModel` (the work behind
/// `MetadataParser`). One instance per document, used once, on one thread.
///
/// The load runs in passes so that declaration order never matters: envelope and version,
/// schemas and aliases, a name index of every declared type, V2 associations, enum types
/// and type definitions, structured types, their base-type chains (`CSDLLoader+Inheritance`:
/// a chain too deep refuses the document), V4 functions/actions, the entity container(s),
/// then relationships across types (V2 partners and set bindings, V4 partner constraints)
/// and finally the check of every reference (`CSDLLoader+Validation.swift`).
final class CSDLLoader {
    struct Schema {
        let namespace: String
        let element: XMLElement
    }

    let strict: Bool
    var model = ServiceModel(version: .v2)
    var schemas: [Schema] = []
    /// Qualified names of every structured, enum and type-definition type declared.
    var declared: Set<String> = []
    /// Local name -> qualified names, to resolve unqualified type names (seen in the wild).
    var byLocalName: [String: [String]] = [:]
    /// V2 associations by qualified name.
    var associations: [String: CSDLAssociation] = [:]
    /// V2 association sets of every container, with the URL prefix of their entity sets.
    var associationSets: [CSDLAssociationSet] = []
    /// Where types ("T:" + qualified name), sets ("S:" + URL name) and imports ("I:" + URL
    /// name) are declared, for the positions of validation warnings.
    var positions: [String: (line: Int, column: Int)] = [:]
    /// Each structured type's base-type chain, as validation needs it (`resolveInheritance`).
    var lineages: [String: Lineage] = [:]
    /// Construct names already reported as belonging to the other protocol version.
    private var mismatchReported: Set<String> = []

    init(strict: Bool) { self.strict = strict }

    func load(_ document: XMLDocument) throws(MetadataError) -> ServiceModel {
        let schemaElements = try readEnvelope(document.root)
        try registerSchemas(schemaElements)
        indexDeclarations()
        try loadAssociations()
        try loadEnumTypesAndTypeDefinitions()
        try loadStructuredTypes()
        try resolveInheritance()
        try loadOperations()
        try loadContainers()
        linkV2Partners()
        deriveV2Bindings()
        reverseV4PartnerConstraints()
        try validate()
        return model
    }

    // MARK: - Warnings

    /// Records a tolerated problem, or throws it in strict mode.
    func warn(_ kind: MetadataError.Kind, _ message: String, at element: XMLElement?) throws(MetadataError) {
        try warn(kind, message, at: element.map { (line: $0.line, column: $0.column) })
    }

    func warn(_ kind: MetadataError.Kind, _ message: String,
              at position: (line: Int, column: Int)?) throws(MetadataError) {
        let e = MetadataError(kind: kind, message: message,
                              line: position.flatMap { $0.line > 0 ? $0.line : nil },
                              column: position.flatMap { $0.column > 0 ? $0.column : nil })
        if strict { throw e }
        model.warnings.append(e)
    }

    /// Reports, once per construct, an element that belongs to the other protocol version.
    func noteVersion(of construct: String, isV4: Bool, at element: XMLElement) throws(MetadataError) {
        guard isV4 != (model.version == .v4), mismatchReported.insert(construct).inserted else { return }
        let theirs = isV4 ? "V4" : "V2"
        let ours = model.version == .v4 ? "V4" : "V2 (EDMX 1.0)"
        try warn(.versionMismatch, "\(theirs) construct \(construct) in a \(ours) document: loaded as is", at: element)
    }

    // MARK: - Envelope and version

    /// Determines the version and returns the CSDL `Schema` elements of the document.
    private func readEnvelope(_ root: XMLElement) throws(MetadataError) -> [XMLElement] {
        if root.name == "Edmx", CSDLNamespace.isEDMX(root.namespace) {
            let isV4 = root.namespace == CSDLNamespace.edmxV4
            let version = root.attribute("Version")?.csdlTrimmed
            if isV4 {
                switch version {
                case "4.0", "4.01":
                    model.declaredVersion = version
                case nil:
                    try warn(.invalidElement, "edmx:Edmx has no Version attribute: read as 4.0", at: root)
                case let v?:
                    throw MetadataError(kind: .unsupportedVersion,
                                        message: "unsupported EDMX version \"\(v)\" (this library reads 4.0 and 4.01)",
                                        line: root.line, column: root.column)
                }
                model.version = .v4
            } else {
                if let v = version, v != "1.0" {
                    throw MetadataError(kind: .unsupportedVersion,
                                        message: "unsupported EDMX version \"\(v)\" in the \(CSDLNamespace.edmxV1) namespace (expected 1.0)",
                                        line: root.line, column: root.column)
                }
                model.version = .v2
            }
            readReferences(root)
            guard let services = root.children.first(where: {
                $0.name == "DataServices" && CSDLNamespace.isEDMX($0.namespace)
            }) else {
                throw MetadataError(kind: .notMetadata, message: "edmx:Edmx has no edmx:DataServices element",
                                    line: root.line, column: root.column)
            }
            if !isV4 {
                let m = CSDLNamespace.dataServicesMetadata
                switch services.attribute("DataServiceVersion", namespace: m)?.csdlTrimmed {
                case nil:
                    break
                case let v? where v == "1.0" || v == "2.0" || v == "3.0":
                    model.declaredVersion = v
                case let v?:
                    throw MetadataError(kind: .unsupportedVersion,
                                        message: "unsupported DataServiceVersion \"\(v)\" in an EDMX 1.0 document (expected 1.0, 2.0 or 3.0)",
                                        line: services.line, column: services.column)
                }
                model.maxDataServiceVersion = services.attribute("MaxDataServiceVersion", namespace: m)?.csdlTrimmed
            }
            return services.children.filter { $0.name == "Schema" && CSDLNamespace.isEDM($0.namespace) }
        }
        if root.name == "Schema", CSDLNamespace.isEDM(root.namespace) {
            model.version = root.namespace == CSDLNamespace.edmV4 ? .v4 : .v2
            return [root]
        }
        let ns = root.namespace.isEmpty ? "no namespace" : "namespace \(root.namespace)"
        throw MetadataError(kind: .notMetadata,
                            message: "not a $metadata document: the root element is <\(root.name)> in \(ns), expected edmx:Edmx or a CSDL Schema",
                            line: root.line, column: root.column)
    }

    /// `edmx:Reference`/`edmx:Include` (either EDMX namespace: SAP puts V4 references into
    /// V2 documents): remember the namespaces and their aliases; nothing is fetched.
    private func readReferences(_ root: XMLElement) {
        for ref in root.children where ref.name == "Reference" && CSDLNamespace.isEDMX(ref.namespace) {
            for inc in ref.children where inc.name == "Include" && CSDLNamespace.isEDMX(inc.namespace) {
                guard let ns = inc.attribute("Namespace")?.csdlTrimmed, !ns.isEmpty else { continue }
                if !model.referencedNamespaces.contains(ns) { model.referencedNamespaces.append(ns) }
                if let alias = inc.attribute("Alias")?.csdlTrimmed, !alias.isEmpty { model.aliases[alias] = ns }
            }
        }
    }

    // MARK: - Schemas and names

    private func registerSchemas(_ elements: [XMLElement]) throws(MetadataError) {
        for s in elements {
            if s.namespace == CSDLNamespace.edmV4 {
                try noteVersion(of: "Schema (OASIS namespace)", isV4: true, at: s)
            } else {
                try noteVersion(of: "Schema (Microsoft namespace)", isV4: false, at: s)
            }
            guard let ns = s.attribute("Namespace")?.csdlTrimmed, !ns.isEmpty else {
                try warn(.invalidElement, "Schema without a Namespace attribute: skipped", at: s)
                continue
            }
            if !model.namespaces.contains(ns) { model.namespaces.append(ns) }
            if let alias = s.attribute("Alias")?.csdlTrimmed, !alias.isEmpty {
                if let other = model.aliases[alias], other != ns {
                    try warn(.duplicateName, "alias \(alias) already stands for \(other): ignored for \(ns)", at: s)
                } else {
                    model.aliases[alias] = ns
                }
            }
            schemas.append(Schema(namespace: ns, element: s))
        }
    }

    private func indexDeclarations() {
        for s in schemas {
            for c in s.element.children where CSDLNamespace.isEDM(c.namespace) {
                switch c.name {
                case "EntityType", "ComplexType", "EnumType", "TypeDefinition":
                    guard let name = c.attribute("Name")?.csdlTrimmed, !name.isEmpty else { continue }
                    let qn = s.namespace + "." + name
                    if declared.insert(qn).inserted { byLocalName[name, default: []].append(qn) }
                default:
                    break
                }
            }
        }
    }

    /// Resolves a type or element name as written in schema `ns`: alias-qualified names get
    /// their namespace. Unqualified names: CSDL 1.0 writes primitive types without `Edm.`
    /// (`Type="Int32"`), which become `Edm.Int32`; any other unqualified name (not allowed
    /// by CSDL, but found in SAP/pyodata documents) resolves to the schema's own namespace,
    /// else to the only type of that name anywhere.
    func qualify(_ raw: String, in ns: String) -> String {
        let name = raw.csdlTrimmed
        if let dot = name.lastIndex(of: ".") {
            if let target = model.aliases[String(name[..<dot])] { return target + name[dot...] }
            return name
        }
        if let k = EdmPrimitiveKind(rawValue: "Edm." + name), k != .other { return k.rawValue }
        if declared.contains(ns + "." + name) { return ns + "." + name }
        if let candidates = byLocalName[name], candidates.count == 1 { return candidates[0] }
        return ns + "." + name
    }

    /// A `TypeReference` from a `Type`-like attribute value and the facets of `element`.
    func typeReference(_ raw: String, facetsOf element: XMLElement, in ns: String,
                       defaultNullable: Bool = true) -> TypeReference {
        var text = raw.csdlTrimmed
        var isCollection = false
        if text.hasPrefix("Collection("), text.hasSuffix(")") {
            isCollection = true
            text = String(text.dropFirst("Collection(".count).dropLast()).csdlTrimmed
        }
        var t = TypeReference(name: qualify(text, in: ns), isCollection: isCollection,
                              nullable: element.attribute("Nullable").flatMap(csdlBool) ?? defaultNullable)
        if let v = element.attribute("MaxLength")?.csdlTrimmed {
            if v.lowercased() == "max" { t.maxLengthIsMax = true } else { t.maxLength = csdlNonNegative(v) }
        }
        if let v = element.attribute("Precision") { t.precision = csdlNonNegative(v) }
        if let v = element.attribute("Scale")?.csdlTrimmed {
            if v == "variable" || v == "floating" { t.scaleIsVariable = true } else { t.scale = csdlNonNegative(v) }
        }
        return t
    }

    /// The `sap:*` attributes of `element` by local name.
    func sapAnnotations(_ element: XMLElement) -> [String: String] {
        var d: [String: String] = [:]
        for a in element.attributes where a.namespace == CSDLNamespace.sap { d[a.name] = a.value }
        return d
    }

    /// The children of `element` in a CSDL namespace with local name `name`.
    func edmChildren(_ element: XMLElement, _ name: String) -> [XMLElement] {
        element.children.filter { $0.name == name && CSDLNamespace.isEDM($0.namespace) }
    }
}

// MARK: - Attribute value helpers

extension String {
    /// Leading/trailing XML whitespace removed (the common case, none, returns `self`).
    var csdlTrimmed: String {
        let u = utf8
        func ws(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        guard let first = u.first, let last = u.last else { return self }
        if !ws(first) && !ws(last) { return self }
        guard let start = u.firstIndex(where: { !ws($0) }), let end = u.lastIndex(where: { !ws($0) }) else { return "" }
        return String(self[start...end])
    }
}

/// CSDL booleans: `true`/`false` (any case, as some SAP documents write `True`), `1`/`0`.
func csdlBool(_ value: String) -> Bool? {
    switch value.csdlTrimmed.lowercased() {
    case "true", "1": return true
    case "false", "0": return false
    default: return nil
    }
}

func csdlNonNegative(_ value: String) -> Int? {
    guard let n = Int(value.csdlTrimmed), n >= 0 else { return nil }
    return n
}
