/// Operations: V4 `Function`/`Action` declarations (schema level) and the imports of the
/// entity container (V2 `FunctionImport`; V4 `FunctionImport`/`ActionImport`, resolved to
/// the operation they import).
extension CSDLLoader {
    func loadOperations() throws(MetadataError) {
        for s in schemas {
            for e in s.element.children where CSDLNamespace.isEDM(e.namespace) {
                let kind: Operation.Kind
                switch e.name {
                case "Function": kind = .function
                case "Action": kind = .action
                default: continue
                }
                try noteVersion(of: e.name, isV4: true, at: e)
                guard let name = e.attribute("Name")?.csdlTrimmed, !name.isEmpty else {
                    try warn(.invalidElement, "\(e.name) without a Name in schema \(s.namespace): skipped", at: e)
                    continue
                }
                let qn = s.namespace + "." + name
                let returnType = edmChildren(e, "ReturnType").first.flatMap { r in
                    r.attribute("Type").map { typeReference($0, facetsOf: r, in: s.namespace) }
                } ?? e.attribute("ReturnType").map { typeReference($0, facetsOf: e, in: s.namespace) }
                let op = Operation(kind: kind, name: qn, qualifiedName: qn,
                                   isBound: e.attribute("IsBound").flatMap(csdlBool) ?? false,
                                   isComposable: e.attribute("IsComposable").flatMap(csdlBool) ?? false,
                                   parameters: try parameters(of: e, owner: qn, in: s.namespace),
                                   returnType: returnType, httpMethod: kind == .function ? "GET" : "POST",
                                   entitySetPath: e.attribute("EntitySetPath")?.csdlTrimmed)
                if op.isBound && op.parameters.isEmpty {
                    try warn(.invalidElement, "bound \(e.name) \(qn) has no binding parameter", at: e)
                }
                model.operations[qn, default: []].append(op)
                if positions["O:" + qn] == nil { positions["O:" + qn] = (e.line, e.column) }
            }
        }
    }

    func parameters(of e: XMLElement, owner: String, in ns: String) throws(MetadataError) -> [Operation.Parameter] {
        var result: [Operation.Parameter] = []
        for p in edmChildren(e, "Parameter") {
            guard let name = p.attribute("Name")?.csdlTrimmed, !name.isEmpty, let type = p.attribute("Type") else {
                try warn(.invalidElement, "\(owner): Parameter without Name or Type: skipped", at: p)
                continue
            }
            result.append(.init(name: name, type: typeReference(type, facetsOf: p, in: ns)))
        }
        return result
    }

    /// A V2 `FunctionImport` (`ReturnType`, `EntitySet`, `m:HttpMethod`, `Parameter`s).
    /// Without `m:HttpMethod` the method is GET, or POST for a V3 import marked
    /// `IsSideEffecting="true"`. V3 `IsBindable="true"` imports are marked bound (their
    /// first parameter is the binding parameter).
    func v2FunctionImport(_ e: XMLElement, urlName: String, setPrefix: String,
                          in ns: String) throws(MetadataError) -> Operation {
        let m = CSDLNamespace.dataServicesMetadata
        var method = e.attribute("HttpMethod", namespace: m)?.csdlTrimmed.uppercased()
        if method == nil || method == "" {
            method = e.attribute("IsSideEffecting").flatMap(csdlBool) == true ? "POST" : "GET"
        }
        return Operation(kind: .functionImportV2, name: urlName, qualifiedName: urlName,
                         isBound: e.attribute("IsBindable").flatMap(csdlBool) ?? false,
                         isComposable: e.attribute("IsComposable").flatMap(csdlBool) ?? false,
                         parameters: try parameters(of: e, owner: "function import \(urlName)", in: ns),
                         returnType: e.attribute("ReturnType").map { typeReference($0, facetsOf: e, in: ns) },
                         httpMethod: method ?? "GET",
                         entitySet: e.attribute("EntitySet").map { setPrefix + $0.csdlTrimmed },
                         sapAnnotations: sapAnnotations(e))
    }

    /// A V4 `FunctionImport`/`ActionImport`: the first unbound overload of the imported
    /// operation, renamed to the import's name, with the import's `EntitySet`. Nil (with a
    /// warning) when the document declares no such unbound operation.
    func v4OperationImport(_ e: XMLElement, urlName: String, in ns: String) throws(MetadataError) -> Operation? {
        let isAction = e.name == "ActionImport"
        let attribute = isAction ? "Action" : "Function"
        guard let raw = e.attribute(attribute) else {
            try warn(.invalidElement, "\(e.name) \(urlName) has no \(attribute) attribute: skipped", at: e)
            return nil
        }
        let qn = qualify(raw, in: ns)
        let kind: Operation.Kind = isAction ? .action : .function
        guard var op = model.operations[qn]?.first(where: { !$0.isBound && $0.kind == kind }) else {
            try warn(.danglingReference,
                     "\(e.name) \(urlName): the document declares no unbound \(isAction ? "action" : "function") \(qn): skipped",
                     at: e)
            return nil
        }
        op.name = urlName
        if let set = e.attribute("EntitySet")?.csdlTrimmed, !set.isEmpty {
            // A simple identifier, or a target path `Container/Set` / `NS.Container/Set`.
            op.entitySet = set.split(separator: "/").last.map(String.init) ?? set
        }
        return op
    }
}
