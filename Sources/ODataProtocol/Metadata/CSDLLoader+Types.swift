/// Types: enum types, type definitions, entity and complex types with their members.
extension CSDLLoader {
    func loadEnumTypesAndTypeDefinitions() throws(MetadataError) {
        for s in schemas {
            for e in edmChildren(s.element, "EnumType") {
                try noteVersion(of: "EnumType", isV4: true, at: e)
                guard let name = try declaredName(e, what: "EnumType", ns: s.namespace) else { continue }
                var t = EnumType(namespace: s.namespace, name: name,
                                 underlyingType: qualify(e.attribute("UnderlyingType") ?? "Edm.Int32", in: s.namespace),
                                 isFlags: e.attribute("IsFlags").flatMap(csdlBool) ?? false)
                // Implicit values: 0 for the first member, previous + 1 afterwards (CSDL's rule
                // for non-flags enums, also applied to flags enums that omit values).
                var next: Int64 = 0
                var seen: Set<String> = []
                for m in edmChildren(e, "Member") {
                    guard let memberName = m.attribute("Name")?.csdlTrimmed, !memberName.isEmpty else {
                        try warn(.invalidElement, "enum \(t.qualifiedName): Member without a Name: skipped", at: m)
                        continue
                    }
                    guard seen.insert(memberName).inserted else {
                        try warn(.duplicateName, "enum \(t.qualifiedName): member \(memberName) is declared twice", at: m)
                        continue
                    }
                    var value = next
                    if let raw = m.attribute("Value") {
                        if let v = Int64(raw.csdlTrimmed) {
                            value = v
                        } else {
                            try warn(.invalidElement,
                                     "enum \(t.qualifiedName): member \(memberName) has a non-integer Value \"\(raw)\": \(next) used",
                                     at: m)
                        }
                    }
                    t.members.append((name: memberName, value: value))
                    next = value &+ 1
                }
                model.enumTypes[t.qualifiedName] = t
                positions["T:" + t.qualifiedName] = (e.line, e.column)
            }
            for e in edmChildren(s.element, "TypeDefinition") {
                try noteVersion(of: "TypeDefinition", isV4: true, at: e)
                guard let name = try declaredName(e, what: "TypeDefinition", ns: s.namespace) else { continue }
                guard let underlying = e.attribute("UnderlyingType") else {
                    try warn(.invalidElement, "TypeDefinition \(s.namespace).\(name) has no UnderlyingType: skipped", at: e)
                    continue
                }
                model.typeDefinitions[s.namespace + "." + name] = qualify(underlying, in: s.namespace)
                positions["T:" + s.namespace + "." + name] = (e.line, e.column)
            }
        }
    }

    func loadStructuredTypes() throws(MetadataError) {
        for s in schemas {
            for e in s.element.children where CSDLNamespace.isEDM(e.namespace) {
                let kind: StructuredType.Kind
                switch e.name {
                case "EntityType": kind = .entity
                case "ComplexType": kind = .complex
                default: continue
                }
                guard let name = try declaredName(e, what: e.name, ns: s.namespace) else { continue }
                model.types[s.namespace + "." + name] = try structuredType(e, kind: kind, name: name, ns: s.namespace)
                positions["T:" + s.namespace + "." + name] = (e.line, e.column)
            }
        }
    }

    /// The `Name` of a type declaration, or nil (with a warning) when it is missing or the
    /// qualified name was already taken by an earlier declaration.
    private func declaredName(_ e: XMLElement, what: String, ns: String) throws(MetadataError) -> String? {
        guard let name = e.attribute("Name")?.csdlTrimmed, !name.isEmpty else {
            try warn(.invalidElement, "\(what) without a Name in schema \(ns): skipped", at: e)
            return nil
        }
        let qn = ns + "." + name
        if model.types[qn] != nil || model.enumTypes[qn] != nil || model.typeDefinitions[qn] != nil {
            try warn(.duplicateName, "type \(qn) is declared twice: the second \(what) is ignored", at: e)
            return nil
        }
        return name
    }

    private func structuredType(_ e: XMLElement, kind: StructuredType.Kind, name: String,
                                ns: String) throws(MetadataError) -> StructuredType {
        let m = CSDLNamespace.dataServicesMetadata
        let qn = ns + "." + name
        var t = StructuredType(kind: kind, namespace: ns, name: name,
                               baseType: e.attribute("BaseType").map { qualify($0, in: ns) },
                               isAbstract: e.attribute("Abstract").flatMap(csdlBool) ?? false,
                               isOpen: e.attribute("OpenType").flatMap(csdlBool) ?? false,
                               hasStream: (e.attribute("HasStream", namespace: m) ?? e.attribute("HasStream"))
                                   .flatMap(csdlBool) ?? false,
                               sapAnnotations: sapAnnotations(e))

        for keyElement in edmChildren(e, "Key") {
            for ref in edmChildren(keyElement, "PropertyRef") {
                guard let path = ref.attribute("Name")?.csdlTrimmed, !path.isEmpty else {
                    try warn(.invalidElement, "key of \(qn): PropertyRef without a Name: skipped", at: ref)
                    continue
                }
                if let alias = ref.attribute("Alias")?.csdlTrimmed, !alias.isEmpty {
                    t.key.append(alias)
                    t.keyAliases[alias] = path
                } else {
                    t.key.append(path)
                }
            }
        }

        var properties: [StructuralProperty] = []
        var navigation: [NavigationProperty] = []
        var memberNames: Set<String> = []
        for c in e.children where CSDLNamespace.isEDM(c.namespace) {
            guard c.name == "Property" || c.name == "NavigationProperty" else { continue }
            guard let memberName = c.attribute("Name")?.csdlTrimmed, !memberName.isEmpty else {
                try warn(.invalidElement, "\(c.name) without a Name in \(qn): skipped", at: c)
                continue
            }
            guard memberNames.insert(memberName).inserted else {
                try warn(.duplicateName, "\(qn) declares the member \(memberName) twice: the second is ignored", at: c)
                continue
            }
            if c.name == "Property" {
                guard let typeName = c.attribute("Type") else {
                    try warn(.invalidElement, "property \(qn)/\(memberName) has no Type: skipped", at: c)
                    continue
                }
                properties.append(StructuralProperty(
                    name: memberName, type: typeReference(typeName, facetsOf: c, in: ns),
                    sapAnnotations: sapAnnotations(c),
                    concurrencyToken: c.attribute("ConcurrencyMode")?.csdlTrimmed == "Fixed",
                    defaultValue: c.attribute("DefaultValue")))
            } else if let typeName = c.attribute("Type") {
                try noteVersion(of: "NavigationProperty with Type", isV4: true, at: c)
                navigation.append(try v4NavigationProperty(c, name: memberName, type: typeName, owner: qn, in: ns))
            } else if c.attribute("Relationship") != nil {
                try noteVersion(of: "NavigationProperty with Relationship", isV4: false, at: c)
                if let nav = try v2NavigationProperty(c, name: memberName, owner: qn, in: ns) { navigation.append(nav) }
            } else {
                try warn(.invalidElement,
                         "navigation property \(qn)/\(memberName) has neither Type nor Relationship: skipped", at: c)
            }
        }
        t.properties = properties
        t.navigationProperties = navigation
        return t
    }

    private func v4NavigationProperty(_ c: XMLElement, name: String, type: String, owner: String,
                                      in ns: String) throws(MetadataError) -> NavigationProperty {
        let ref = typeReference(type, facetsOf: c, in: ns)
        var constraints: [(property: String, referencedProperty: String)] = []
        for rc in edmChildren(c, "ReferentialConstraint") {
            guard let p = rc.attribute("Property")?.csdlTrimmed,
                  let r = rc.attribute("ReferencedProperty")?.csdlTrimmed else {
                try warn(.invalidElement,
                         "navigation property \(owner)/\(name): ReferentialConstraint without Property or ReferencedProperty: skipped",
                         at: rc)
                continue
            }
            constraints.append((property: p, referencedProperty: r))
        }
        return NavigationProperty(name: name, targetType: ref.name, isCollection: ref.isCollection,
                                  nullable: ref.nullable, partner: c.attribute("Partner")?.csdlTrimmed,
                                  referentialConstraints: constraints,
                                  containsTarget: c.attribute("ContainsTarget").flatMap(csdlBool) ?? false)
    }
}
