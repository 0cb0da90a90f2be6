/// Turns a CSDL JSON document (OData 4.01, "CSDL JSON Representation") into the equivalent
/// EDMX element tree, so that one loader (`CSDLLoader`) gives both representations the same
/// meaning, checks and warnings.
///
/// The mapping follows the JSON representation's rules: `$Version` -> `edmx:Edmx/@Version`,
/// `$Reference` -> `edmx:Reference/edmx:Include`, every other non-`$`/`@` member of the
/// document is a schema; schema members are model elements told apart by `$Kind`
/// (arrays are operation overloads; container children by `$Collection`/`$Type`,
/// `$Action` and `$Function`); `$Key` entries are names or `{alias: path}` objects. The
/// JSON defaults that differ from XML are made explicit: `$Nullable` defaults to false,
/// `$Type` to `Edm.String`. The container named by `$EntityContainer` is marked as the
/// default one. Annotations (`@...` members, `$Annotations`) and terms are dropped.
/// Elements carry the line/column of their JSON object, for warnings.
enum CSDLJSONConverter {
    private static let edmx = CSDLNamespace.edmxV4
    private static let edm = CSDLNamespace.edmV4

    static func document(_ root: CSDLJSONValue) throws(MetadataError) -> XMLDocument {
        guard root.isObject else {
            throw MetadataError(kind: .notMetadata, message: "a CSDL JSON document must be a JSON object",
                                line: root.line, column: root.column)
        }
        var envelope = element("Edmx", ns: edmx, at: root)
        if let v = root["$Version"]?.scalarText { envelope.attributes.append(XMLAttribute(name: "Version", value: v)) }
        if let refs = root["$Reference"] {
            for (uri, ref) in refs.members {
                var r = element("Reference", ns: edmx, at: ref, attributes: ["Uri": uri])
                for inc in ref["$Include"]?.array ?? [] {
                    var attrs: [String: String] = [:]
                    attrs["Namespace"] = inc["$Namespace"]?.string
                    attrs["Alias"] = inc["$Alias"]?.string
                    r.children.append(element("Include", ns: edmx, at: inc, attributes: attrs))
                }
                envelope.children.append(r)
            }
        }
        let defaultContainer = root["$EntityContainer"]?.string
        var services = element("DataServices", ns: edmx, at: root)
        for (namespace, schema) in root.members where !namespace.hasPrefix("$") && !namespace.hasPrefix("@") {
            guard schema.isObject else { continue }
            services.children.append(Self.schema(namespace, schema, defaultContainer: defaultContainer))
        }
        envelope.children.append(services)
        return XMLDocument(root: envelope)
    }

    // MARK: - Elements

    private static func element(_ name: String, ns: String, at v: CSDLJSONValue,
                                attributes: [String: String] = [:]) -> XMLElement {
        XMLElement(name: name, namespace: ns,
                   attributes: attributes.sorted { $0.key < $1.key }.map { XMLAttribute(name: $0.key, value: $0.value) },
                   line: v.line, column: v.column)
    }

    /// Model members of a JSON object: names without `$` or `@`.
    private static func modelMembers(_ v: CSDLJSONValue) -> [(key: String, value: CSDLJSONValue)] {
        v.members.filter { !$0.key.hasPrefix("$") && !$0.key.contains("@") }
    }

    private static func schema(_ namespace: String, _ s: CSDLJSONValue, defaultContainer: String?) -> XMLElement {
        var attrs = ["Namespace": namespace]
        attrs["Alias"] = s["$Alias"]?.string
        var e = element("Schema", ns: edm, at: s, attributes: attrs)
        for (name, member) in modelMembers(s) {
            if let overloads = member.array {
                for o in overloads {
                    if let op = operation(name, o) { e.children.append(op) }
                }
                continue
            }
            switch member["$Kind"]?.string {
            case "EntityType", "ComplexType":
                e.children.append(structuredType(name, member))
            case "EnumType":
                var attrs = ["Name": name]
                attrs["UnderlyingType"] = member["$UnderlyingType"]?.string
                attrs["IsFlags"] = member["$IsFlags"]?.scalarText
                var en = element("EnumType", ns: edm, at: member, attributes: attrs)
                for (m, value) in modelMembers(member) {
                    var ma = ["Name": m]
                    ma["Value"] = value.scalarText
                    en.children.append(element("Member", ns: edm, at: value, attributes: ma))
                }
                e.children.append(en)
            case "TypeDefinition":
                var attrs = facets(member)
                attrs["Name"] = name
                attrs["UnderlyingType"] = member["$UnderlyingType"]?.string
                attrs["Nullable"] = nil
                e.children.append(element("TypeDefinition", ns: edm, at: member, attributes: attrs))
            case "EntityContainer":
                let qualified = namespace + "." + name
                e.children.append(container(name, member, isDefault: defaultContainer == qualified
                    || (s["$Alias"]?.string).map { defaultContainer == $0 + "." + name } == true))
            default:
                continue  // Term, unknown kinds
            }
        }
        return e
    }

    /// `$Type`, `$Collection`, `$Nullable` and facets as XML attributes (JSON defaults applied).
    private static func facets(_ v: CSDLJSONValue, typeKey: String = "$Type") -> [String: String] {
        var a: [String: String] = [:]
        let type = v[typeKey]?.string ?? "Edm.String"
        a["Type"] = v["$Collection"]?.bool == true ? "Collection(\(type))" : type
        a["Nullable"] = v["$Nullable"]?.bool == true ? "true" : "false"
        a["MaxLength"] = v["$MaxLength"]?.scalarText
        a["Precision"] = v["$Precision"]?.scalarText
        a["Scale"] = v["$Scale"]?.scalarText
        a["SRID"] = v["$SRID"]?.scalarText
        return a
    }

    private static func structuredType(_ name: String, _ t: CSDLJSONValue) -> XMLElement {
        var attrs = ["Name": name]
        attrs["BaseType"] = t["$BaseType"]?.string
        attrs["Abstract"] = t["$Abstract"]?.scalarText
        attrs["OpenType"] = t["$OpenType"]?.scalarText
        attrs["HasStream"] = t["$HasStream"]?.scalarText
        let kind = t["$Kind"]?.string ?? "EntityType"
        var e = element(kind, ns: edm, at: t, attributes: attrs)
        if let key = t["$Key"]?.array {
            var k = element("Key", ns: edm, at: t)
            for entry in key {
                if let n = entry.string {
                    k.children.append(element("PropertyRef", ns: edm, at: entry, attributes: ["Name": n]))
                } else {
                    for (alias, path) in entry.members {
                        var ra = ["Alias": alias]
                        ra["Name"] = path.string
                        k.children.append(element("PropertyRef", ns: edm, at: entry, attributes: ra))
                    }
                }
            }
            e.children.append(k)
        }
        for (member, p) in modelMembers(t) where p.isObject {
            var a = facets(p)
            a["Name"] = member
            if p["$Kind"]?.string == "NavigationProperty" {
                if p["$Collection"]?.bool == true, p["$Nullable"] == nil {
                    // Nullable means nothing for a collection; report true as V2 ("*") and XML do.
                    a["Nullable"] = "true"
                }
                a["Partner"] = p["$Partner"]?.string
                a["ContainsTarget"] = p["$ContainsTarget"]?.scalarText
                a["MaxLength"] = nil
                a["Precision"] = nil
                a["Scale"] = nil
                var nav = element("NavigationProperty", ns: edm, at: p, attributes: a)
                if let rc = p["$ReferentialConstraint"] {
                    for (property, referenced) in modelMembers(rc) {
                        var ra = ["Property": property]
                        ra["ReferencedProperty"] = referenced.string
                        nav.children.append(element("ReferentialConstraint", ns: edm, at: referenced, attributes: ra))
                    }
                }
                e.children.append(nav)
            } else {
                a["DefaultValue"] = p["$DefaultValue"]?.scalarText
                e.children.append(element("Property", ns: edm, at: p, attributes: a))
            }
        }
        return e
    }

    private static func operation(_ name: String, _ o: CSDLJSONValue) -> XMLElement? {
        guard let kind = o["$Kind"]?.string, kind == "Function" || kind == "Action" else { return nil }
        var attrs = ["Name": name]
        attrs["IsBound"] = o["$IsBound"]?.scalarText
        attrs["IsComposable"] = o["$IsComposable"]?.scalarText
        attrs["EntitySetPath"] = o["$EntitySetPath"]?.string
        var e = element(kind, ns: edm, at: o, attributes: attrs)
        for p in o["$Parameter"]?.array ?? [] {
            var a = facets(p)
            a["Name"] = p["$Name"]?.string
            e.children.append(element("Parameter", ns: edm, at: p, attributes: a))
        }
        if let r = o["$ReturnType"], r.isObject {
            e.children.append(element("ReturnType", ns: edm, at: r, attributes: facets(r)))
        }
        return e
    }

    private static func container(_ name: String, _ c: CSDLJSONValue, isDefault: Bool) -> XMLElement {
        var e = element("EntityContainer", ns: edm, at: c, attributes: ["Name": name])
        if isDefault {
            e.attributes.append(XMLAttribute(namespace: CSDLNamespace.dataServicesMetadata,
                                             name: "IsDefaultEntityContainer", value: "true"))
        }
        for (member, m) in modelMembers(c) where m.isObject {
            var child: XMLElement
            if let action = m["$Action"]?.string {
                var a = ["Name": member, "Action": action]
                a["EntitySet"] = m["$EntitySet"]?.string
                child = element("ActionImport", ns: edm, at: m, attributes: a)
            } else if let function = m["$Function"]?.string {
                var a = ["Name": member, "Function": function]
                a["EntitySet"] = m["$EntitySet"]?.string
                child = element("FunctionImport", ns: edm, at: m, attributes: a)
            } else if let type = m["$Type"]?.string {
                let isSet = m["$Collection"]?.bool == true
                child = element(isSet ? "EntitySet" : "Singleton", ns: edm, at: m,
                                attributes: ["Name": member, isSet ? "EntityType" : "Type": type])
                for (path, target) in m["$NavigationPropertyBinding"]?.members ?? [] {
                    var a = ["Path": path]
                    a["Target"] = target.string
                    child.children.append(element("NavigationPropertyBinding", ns: edm, at: target, attributes: a))
                }
            } else {
                continue
            }
            e.children.append(child)
        }
        return e
    }
}
