@testable import ODataProtocol

/// An order-preserving JSON value for writing test documents (member order defines
/// property order in CSDL, so Foundation's JSONSerialization will not do).
enum TestJSON {
    case object([(String, TestJSON)])
    case array([TestJSON])
    case string(String)
    case number(String)
    case bool(Bool)

    /// Value-level mutation for the fuzz test: remove, duplicate or retype a member, recursively.
    func mutated<G: RandomNumberGenerator>(depth: Int, rng: inout G) -> TestJSON {
        switch self {
        case .object(let members) where !members.isEmpty && depth < 8:
            var m = members
            let i = Int.random(in: 0..<m.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0:
                m.remove(at: i)
            case 1:
                let replacements: [TestJSON] = [.string("Edm.Int32"), .number("-7"), .bool(true), .array([]),
                                                .object([]), .string("Collection(x"), .number("1e999")]
                m[i].1 = replacements[Int.random(in: 0..<replacements.count, using: &rng)]
            case 2:
                m.append(m[i])
            default:
                m[i].1 = m[i].1.mutated(depth: depth + 1, rng: &rng)
            }
            return .object(m)
        case .array(let items) where !items.isEmpty && depth < 8:
            var a = items
            let i = Int.random(in: 0..<a.count, using: &rng)
            a[i] = Int.random(in: 0..<3, using: &rng) == 0 ? .string("x") : a[i].mutated(depth: depth + 1, rng: &rng)
            return .array(a)
        default:
            let replacements: [TestJSON] = [.string(""), .number("0"), .bool(false), .object([]), .array([self])]
            return replacements[Int.random(in: 0..<replacements.count, using: &rng)]
        }
    }

    var text: String {
        switch self {
        case .object(let members):
            return "{" + members.map { "\(TestJSON.string($0.0).text):\($0.1.text)" }.joined(separator: ",") + "}"
        case .array(let items):
            return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .number(let n):
            return n
        case .bool(let b):
            return b ? "true" : "false"
        case .string(let s):
            var r = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": r += "\\\""
                case "\\": r += "\\\\"
                case "\n": r += "\\n"
                case "\r": r += "\\r"
                case "\t": r += "\\t"
                default:
                    if u.value < 0x20 || u.value > 0x7E {
                        // Escape everything outside ASCII as UTF-16 \u sequences.
                        for unit in String(u).utf16 {
                            let h = String(unit, radix: 16)
                            r += "\\u" + String(repeating: "0", count: max(0, 4 - h.count)) + h
                        }
                    } else {
                        r.unicodeScalars.append(u)
                    }
                }
            }
            return r + "\""
        }
    }
}

/// Writes a V4 CSDL XML document as CSDL JSON, following the mapping of "OData CSDL JSON
/// Representation 4.01" (independently of the library's JSON-to-EDMX converter): used to
/// check that both representations of the same real documents load into the same model.
/// Annotations are carried over as `@Term` members, which the loader must ignore.
enum CSDLXMLToJSON {
    static let edm = "http://docs.oasis-open.org/odata/ns/edm"
    static let edmx = "http://docs.oasis-open.org/odata/ns/edmx"

    static func convert(_ root: XMLElement) -> TestJSON {
        var doc: [(String, TestJSON)] = []
        if let v = root.attribute("Version") { doc.append(("$Version", .string(v))) }
        var refs: [(String, TestJSON)] = []
        for r in root.children("Reference", namespace: edmx) {
            let includes: [TestJSON] = r.children("Include", namespace: edmx).map { inc in
                var o: [(String, TestJSON)] = [("$Namespace", .string(inc.attribute("Namespace") ?? ""))]
                if let a = inc.attribute("Alias") { o.append(("$Alias", .string(a))) }
                return .object(o)
            }
            refs.append((r.attribute("Uri") ?? "", .object([("$Include", .array(includes))])))
        }
        if !refs.isEmpty { doc.append(("$Reference", .object(refs))) }
        let schemas = root.child("DataServices", namespace: edmx)?.children("Schema", namespace: edm) ?? []
        for s in schemas {
            let ns = s.attribute("Namespace") ?? ""
            if let c = s.child("EntityContainer", namespace: edm), let n = c.attribute("Name") {
                doc.append(("$EntityContainer", .string(ns + "." + n)))
            }
        }
        for s in schemas { doc.append((s.attribute("Namespace") ?? "", schema(s))) }
        return .object(doc)
    }

    private static func annotations(_ e: XMLElement) -> [(String, TestJSON)] {
        e.children("Annotation", namespace: edm).map { a in
            ("@" + (a.attribute("Term") ?? "x"), .string(a.attribute("String") ?? a.allText))
        }
    }

    /// `$Type`/`$Collection`/`$Nullable`/facets of a typed element; XML's Nullable defaults to true.
    private static func typed(_ e: XMLElement, nullableDefault: Bool = true, isNavigation: Bool = false) -> [(String, TestJSON)] {
        var o: [(String, TestJSON)] = []
        var type = e.attribute("Type") ?? "Edm.String"
        var isCollection = false
        if type.hasPrefix("Collection("), type.hasSuffix(")") {
            isCollection = true
            type = String(type.dropFirst(11).dropLast())
        }
        if type != "Edm.String" { o.append(("$Type", .string(type))) }
        if isCollection { o.append(("$Collection", .bool(true))) }
        let nullable = e.attribute("Nullable").map { $0 == "true" } ?? nullableDefault
        if nullable && !(isNavigation && isCollection) { o.append(("$Nullable", .bool(true))) }
        for (xml, json) in [("MaxLength", "$MaxLength"), ("Precision", "$Precision"), ("Scale", "$Scale"), ("SRID", "$SRID")] {
            guard let v = e.attribute(xml) else { continue }
            o.append((json, Int(v) != nil ? .number(v) : .string(v)))
        }
        return o
    }

    private static func schema(_ s: XMLElement) -> TestJSON {
        var o: [(String, TestJSON)] = []
        if let a = s.attribute("Alias") { o.append(("$Alias", .string(a))) }
        var operations: [(String, [TestJSON])] = []
        for c in s.children where c.namespace == edm {
            let name = c.attribute("Name") ?? ""
            switch c.name {
            case "EntityType", "ComplexType":
                var t: [(String, TestJSON)] = [("$Kind", .string(c.name))]
                for (xml, json) in [("BaseType", "$BaseType")] { if let v = c.attribute(xml) { t.append((json, .string(v))) } }
                for (xml, json) in [("Abstract", "$Abstract"), ("OpenType", "$OpenType"), ("HasStream", "$HasStream")] {
                    if let v = c.attribute(xml) { t.append((json, .bool(v == "true"))) }
                }
                if let key = c.child("Key", namespace: edm) {
                    t.append(("$Key", .array(key.children("PropertyRef", namespace: edm).map { r in
                        if let alias = r.attribute("Alias") { return .object([(alias, .string(r.attribute("Name") ?? ""))]) }
                        return .string(r.attribute("Name") ?? "")
                    })))
                }
                for p in c.children where p.namespace == edm {
                    let pn = p.attribute("Name") ?? ""
                    if p.name == "Property" {
                        var po = typed(p)
                        if let d = p.attribute("DefaultValue") { po.append(("$DefaultValue", .string(d))) }
                        t.append((pn, .object(po + annotations(p))))
                    } else if p.name == "NavigationProperty" {
                        var no: [(String, TestJSON)] = [("$Kind", .string("NavigationProperty"))] + typed(p, isNavigation: true)
                        if let v = p.attribute("Partner") { no.append(("$Partner", .string(v))) }
                        if let v = p.attribute("ContainsTarget") { no.append(("$ContainsTarget", .bool(v == "true"))) }
                        let rcs = p.children("ReferentialConstraint", namespace: edm)
                        if !rcs.isEmpty {
                            no.append(("$ReferentialConstraint", .object(rcs.map {
                                ($0.attribute("Property") ?? "", .string($0.attribute("ReferencedProperty") ?? ""))
                            })))
                        }
                        t.append((pn, .object(no)))
                    }
                }
                o.append((name, .object(t + annotations(c))))
            case "EnumType":
                var t: [(String, TestJSON)] = [("$Kind", .string("EnumType"))]
                if let u = c.attribute("UnderlyingType") { t.append(("$UnderlyingType", .string(u))) }
                if let f = c.attribute("IsFlags") { t.append(("$IsFlags", .bool(f.lowercased() == "true"))) }
                var next = 0
                for m in c.children("Member", namespace: edm) {
                    let v = m.attribute("Value").flatMap { Int($0) } ?? next
                    t.append((m.attribute("Name") ?? "", .number(String(v))))
                    next = v + 1
                }
                o.append((name, .object(t)))
            case "TypeDefinition":
                var t: [(String, TestJSON)] = [("$Kind", .string("TypeDefinition")),
                                               ("$UnderlyingType", .string(c.attribute("UnderlyingType") ?? ""))]
                t += typed(c).filter { $0.0 != "$Type" && $0.0 != "$Nullable" && $0.0 != "$Collection" }
                o.append((name, .object(t)))
            case "Function", "Action":
                var t: [(String, TestJSON)] = [("$Kind", .string(c.name))]
                if let v = c.attribute("IsBound") { t.append(("$IsBound", .bool(v == "true"))) }
                if let v = c.attribute("IsComposable") { t.append(("$IsComposable", .bool(v == "true"))) }
                if let v = c.attribute("EntitySetPath") { t.append(("$EntitySetPath", .string(v))) }
                let params = c.children("Parameter", namespace: edm)
                if !params.isEmpty {
                    t.append(("$Parameter", .array(params.map { .object([("$Name", .string($0.attribute("Name") ?? ""))] + typed($0)) })))
                }
                if let r = c.child("ReturnType", namespace: edm) { t.append(("$ReturnType", .object(typed(r)))) }
                if let i = operations.firstIndex(where: { $0.0 == name }) {
                    operations[i].1.append(.object(t))
                } else {
                    operations.append((name, [.object(t)]))
                }
            case "EntityContainer":
                var t: [(String, TestJSON)] = [("$Kind", .string("EntityContainer"))]
                for m in c.children where m.namespace == edm {
                    let mn = m.attribute("Name") ?? ""
                    var mo: [(String, TestJSON)] = []
                    switch m.name {
                    case "EntitySet", "Singleton":
                        if m.name == "EntitySet" { mo.append(("$Collection", .bool(true))) }
                        mo.append(("$Type", .string(m.attribute(m.name == "EntitySet" ? "EntityType" : "Type") ?? "")))
                        let b = m.children("NavigationPropertyBinding", namespace: edm)
                        if !b.isEmpty {
                            mo.append(("$NavigationPropertyBinding", .object(b.map {
                                ($0.attribute("Path") ?? "", .string($0.attribute("Target") ?? ""))
                            })))
                        }
                    case "FunctionImport":
                        mo.append(("$Function", .string(m.attribute("Function") ?? "")))
                        if let es = m.attribute("EntitySet") { mo.append(("$EntitySet", .string(es))) }
                        if let v = m.attribute("IncludeInServiceDocument") { mo.append(("$IncludeInServiceDocument", .bool(v == "true"))) }
                    case "ActionImport":
                        mo.append(("$Action", .string(m.attribute("Action") ?? "")))
                        if let es = m.attribute("EntitySet") { mo.append(("$EntitySet", .string(es))) }
                    default:
                        continue
                    }
                    t.append((mn, .object(mo + annotations(m))))
                }
                o.append((name, .object(t)))
            case "Term":
                o.append((name, .object([("$Kind", .string("Term")), ("$Type", .string(c.attribute("Type") ?? "Edm.String"))])))
            default:
                continue
            }
        }
        for (name, overloads) in operations { o.append((name, .array(overloads))) }
        return .object(o)
    }
}
