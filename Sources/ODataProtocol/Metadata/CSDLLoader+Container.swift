/// The entity container: entity sets, singletons, V4 navigation property bindings, V2
/// association sets and the operation imports.
///
/// Which container is "the" container: the first one marked `m:IsDefaultEntityContainer="true"`,
/// else the first one in the document. Containers with the same name as that one and also
/// marked default are merged into it (pyodata's test document splits its `EXAMPLE_SRV`
/// container across two schemas). Members of any other container are loaded under their V2
/// URL form `Container.Member`.
extension CSDLLoader {
    func loadContainers() throws(MetadataError) {
        var all: [(ns: String, element: XMLElement)] = []
        for s in schemas {
            for c in edmChildren(s.element, "EntityContainer") { all.append((s.namespace, c)) }
        }
        guard !all.isEmpty else { return }
        let m = CSDLNamespace.dataServicesMetadata
        func isDefault(_ e: XMLElement) -> Bool {
            e.attribute("IsDefaultEntityContainer", namespace: m).flatMap(csdlBool) == true
        }
        let primary = all.firstIndex { isDefault($0.element) } ?? 0
        let primaryName = all[primary].element.attribute("Name")?.csdlTrimmed ?? ""
        model.containerName = primaryName

        for (i, c) in all.enumerated() {
            let name = c.element.attribute("Name")?.csdlTrimmed ?? ""
            let merged = i == primary || (name == primaryName && isDefault(c.element))
            if !merged && model.version == .v4 {
                try warn(.invalidElement,
                         "more than one EntityContainer in a V4 document: the members of \(name) are loaded as \(name).<member>",
                         at: c.element)
            }
            try loadContainer(c.element, ns: c.ns, prefix: merged || name.isEmpty ? "" : name + ".",
                              containerNames: [name, c.ns + "." + name])
        }
    }

    private func loadContainer(_ container: XMLElement, ns: String, prefix: String,
                               containerNames: Set<String>) throws(MetadataError) {
        for e in container.children where CSDLNamespace.isEDM(e.namespace) {
            switch e.name {
            case "EntitySet", "Singleton":
                try loadEntitySet(e, ns: ns, prefix: prefix, containerNames: containerNames)
            case "AssociationSet":
                try noteVersion(of: "AssociationSet", isV4: false, at: e)
                guard let assoc = e.attribute("Association") else {
                    try warn(.invalidElement, "AssociationSet without an Association: skipped", at: e)
                    continue
                }
                var set = CSDLAssociationSet(association: qualify(assoc, in: ns), ends: [])
                for end in edmChildren(e, "End") {
                    guard let role = end.attribute("Role")?.csdlTrimmed,
                          let es = end.attribute("EntitySet")?.csdlTrimmed else {
                        try warn(.invalidElement, "AssociationSet End without Role or EntitySet: skipped", at: end)
                        continue
                    }
                    set.ends.append((role: role, entitySet: prefix + es))
                }
                if associations[set.association] == nil {
                    try warn(.danglingReference, "AssociationSet refers to an unknown association \(set.association)", at: e)
                }
                associationSets.append(set)
            case "FunctionImport", "ActionImport":
                guard let name = e.attribute("Name")?.csdlTrimmed, !name.isEmpty else {
                    try warn(.invalidElement, "\(e.name) without a Name: skipped", at: e)
                    continue
                }
                let urlName = prefix + name
                let op: Operation?
                if e.name == "ActionImport" || e.attribute("Function") != nil {
                    try noteVersion(of: "\(e.name) of a \(e.name == "ActionImport" ? "Action" : "Function")",
                                    isV4: true, at: e)
                    op = try v4OperationImport(e, urlName: urlName, in: ns)
                } else {
                    try noteVersion(of: "FunctionImport with ReturnType/m:HttpMethod", isV4: false, at: e)
                    op = try v2FunctionImport(e, urlName: urlName, setPrefix: prefix, in: ns)
                }
                guard let op else { continue }
                if model.operationImports[urlName] != nil {
                    try warn(.duplicateName, "operation import \(urlName) is declared twice: the second is ignored", at: e)
                    continue
                }
                model.operationImports[urlName] = op
                positions["I:" + urlName] = (e.line, e.column)
            default:
                continue
            }
        }
    }

    private func loadEntitySet(_ e: XMLElement, ns: String, prefix: String,
                               containerNames: Set<String>) throws(MetadataError) {
        let isSingleton = e.name == "Singleton"
        if isSingleton { try noteVersion(of: "Singleton", isV4: true, at: e) }
        guard let name = e.attribute("Name")?.csdlTrimmed, !name.isEmpty,
              let type = e.attribute(isSingleton ? "Type" : "EntityType") else {
            try warn(.invalidElement, "\(e.name) without a Name or \(isSingleton ? "Type" : "EntityType"): skipped", at: e)
            return
        }
        let urlName = prefix + name
        guard model.entitySets[urlName] == nil else {
            try warn(.duplicateName, "entity set or singleton \(urlName) is declared twice: the second is ignored", at: e)
            return
        }
        var set = EntitySet(name: urlName, entityType: qualify(type, in: ns), isSingleton: isSingleton,
                            sapAnnotations: sapAnnotations(e))
        for b in edmChildren(e, "NavigationPropertyBinding") {
            try noteVersion(of: "NavigationPropertyBinding", isV4: true, at: b)
            guard let path = b.attribute("Path")?.csdlTrimmed, let target = b.attribute("Target")?.csdlTrimmed else {
                try warn(.invalidElement, "\(urlName): NavigationPropertyBinding without Path or Target: skipped", at: b)
                continue
            }
            // Type-cast segments may use an alias; a target in this container may be written
            // `Container/Set` or `Namespace.Container/Set`.
            let resolvedPath = path.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.contains(".") ? qualify(String($0), in: ns) : String($0) }
                .joined(separator: "/")
            var resolvedTarget = target
            if let slash = target.firstIndex(of: "/"),
               containerNames.contains(String(target[..<slash])) || containerNames.contains(qualify(String(target[..<slash]), in: ns)) {
                resolvedTarget = prefix + target[target.index(after: slash)...]
            } else if !target.contains("/") {
                resolvedTarget = prefix + target
            }
            set.navigationBindings[resolvedPath] = resolvedTarget
        }
        model.entitySets[urlName] = set
        positions["S:" + urlName] = (e.line, e.column)
    }
}
