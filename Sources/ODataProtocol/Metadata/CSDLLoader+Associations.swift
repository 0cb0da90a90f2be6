/// A V2 `Association`: its two ends by role and its referential constraint.
struct CSDLAssociation {
    struct End {
        var type: String
        var multiplicity: String
    }
    var qualifiedName: String
    var ends: [String: End]
    var principalRole: String?
    var principalProperties: [String] = []
    var dependentRole: String?
    var dependentProperties: [String] = []
}

/// A V2 `AssociationSet`: association, role -> entity set (URL name).
struct CSDLAssociationSet {
    var association: String
    var ends: [(role: String, entitySet: String)]
}

/// V2 relationships: associations into navigation properties, partners, set bindings.
extension CSDLLoader {
    func loadAssociations() throws(MetadataError) {
        for s in schemas {
            for a in edmChildren(s.element, "Association") {
                try noteVersion(of: "Association", isV4: false, at: a)
                guard let name = a.attribute("Name")?.csdlTrimmed, !name.isEmpty else {
                    try warn(.invalidElement, "Association without a Name: skipped", at: a)
                    continue
                }
                let qn = s.namespace + "." + name
                guard associations[qn] == nil else {
                    try warn(.duplicateName, "association \(qn) is declared twice: the second is ignored", at: a)
                    continue
                }
                var assoc = CSDLAssociation(qualifiedName: qn, ends: [:])
                for end in edmChildren(a, "End") {
                    guard let role = end.attribute("Role")?.csdlTrimmed, let type = end.attribute("Type") else {
                        try warn(.invalidElement, "association \(qn): End without Role or Type: skipped", at: end)
                        continue
                    }
                    assoc.ends[role] = .init(type: qualify(type, in: s.namespace),
                                             multiplicity: end.attribute("Multiplicity")?.csdlTrimmed ?? "0..1")
                }
                if let rc = edmChildren(a, "ReferentialConstraint").first {
                    if let p = edmChildren(rc, "Principal").first {
                        assoc.principalRole = p.attribute("Role")?.csdlTrimmed
                        assoc.principalProperties = edmChildren(p, "PropertyRef").compactMap { $0.attribute("Name") }
                    }
                    if let d = edmChildren(rc, "Dependent").first {
                        assoc.dependentRole = d.attribute("Role")?.csdlTrimmed
                        assoc.dependentProperties = edmChildren(d, "PropertyRef").compactMap { $0.attribute("Name") }
                    }
                }
                associations[qn] = assoc
            }
        }
    }

    /// A V2 `NavigationProperty` (Relationship/FromRole/ToRole), resolved through its
    /// association; nil (with a warning) when the association or a role is unknown.
    func v2NavigationProperty(_ e: XMLElement, name: String, owner: String,
                              in ns: String) throws(MetadataError) -> NavigationProperty? {
        let relationship = qualify(e.attribute("Relationship") ?? "", in: ns)
        let from = e.attribute("FromRole")?.csdlTrimmed ?? ""
        let to = e.attribute("ToRole")?.csdlTrimmed ?? ""
        guard let assoc = associations[relationship] else {
            try warn(.danglingReference,
                     "navigation property \(owner)/\(name): unknown association \(relationship): skipped", at: e)
            return nil
        }
        guard let toEnd = assoc.ends[to], assoc.ends[from] != nil else {
            try warn(.danglingReference,
                     "navigation property \(owner)/\(name): association \(relationship) has no role \(assoc.ends[to] == nil ? to : from): skipped",
                     at: e)
            return nil
        }
        var constraints: [(property: String, referencedProperty: String)] = []
        if let p = assoc.principalRole, let d = assoc.dependentRole,
           assoc.principalProperties.count == assoc.dependentProperties.count {
            if p == from, d == to {
                constraints = zip(assoc.principalProperties, assoc.dependentProperties).map { ($0, $1) }
            } else if d == from, p == to {
                constraints = zip(assoc.dependentProperties, assoc.principalProperties).map { ($0, $1) }
            }
        }
        return NavigationProperty(name: name, targetType: toEnd.type, isCollection: toEnd.multiplicity == "*",
                                  nullable: toEnd.multiplicity != "1", referentialConstraints: constraints,
                                  association: relationship, fromRole: from, toRole: to)
    }

    /// V2: a navigation property's partner is the one on the target type that uses the same
    /// association with the roles swapped.
    func linkV2Partners() {
        for (qn, type) in model.types {
            var t = type
            var changed = false
            for (i, nav) in t.navigationProperties.enumerated() where nav.partner == nil {
                guard let assoc = nav.association, let target = model.types[nav.targetType] else { continue }
                let back = model.firstInLineage(of: target) { candidate in
                    candidate.navigationProperties.first {
                        $0.association == assoc && $0.fromRole == nav.toRole && $0.toRole == nav.fromRole
                            && !($0.name == nav.name && candidate.qualifiedName == qn)
                    }
                }
                if let back {
                    t.navigationProperties[i].partner = back.name
                    changed = true
                }
            }
            if changed { model.types[qn] = t }
        }
    }

    /// V2: entity sets get `navigationBindings` from the association sets, as V4 documents
    /// state them: for a set S and a navigation property N of S's type (or of a base type),
    /// the association set of N's association whose `FromRole` end is S names the target set
    /// at the `ToRole` end. Navigation properties declared on types derived from S's type are
    /// bound under the V4 path form `Namespace.Derived/Nav`.
    func deriveV2Bindings() {
        guard !associationSets.isEmpty else { return }
        var byAssociation: [String: [CSDLAssociationSet]] = [:]
        for a in associationSets { byAssociation[a.association, default: []].append(a) }
        // base type -> directly derived types, so finding derived types is not quadratic.
        var directlyDerived: [String: [String]] = [:]
        for (qn, t) in model.types { if let b = t.baseType { directlyDerived[b, default: []].append(qn) } }
        func allDerived(of qn: String) -> [StructuredType] {
            var result: [StructuredType] = []
            var seen: Set<String> = [qn]
            var stack = directlyDerived[qn] ?? []
            while let next = stack.popLast() {
                guard seen.insert(next).inserted, let t = model.types[next] else { continue }
                result.append(t)
                stack += directlyDerived[next] ?? []
            }
            return result.sorted { $0.qualifiedName < $1.qualifiedName }
        }

        for (setName, set) in model.entitySets {
            guard let type = model.types[set.entityType] else { continue }
            var bindings = set.navigationBindings
            func bind(_ nav: NavigationProperty, path: String) {
                guard bindings[path] == nil, let assoc = nav.association, let from = nav.fromRole,
                      let to = nav.toRole, let candidates = byAssociation[assoc] else { return }
                for a in candidates {
                    guard a.ends.contains(where: { $0.role == from && $0.entitySet == setName }),
                          let target = a.ends.first(where: { $0.role == to }) else { continue }
                    bindings[path] = target.entitySet
                    return
                }
            }
            for nav in model.allNavigationProperties(of: type) { bind(nav, path: nav.name) }
            for derived in allDerived(of: type.qualifiedName) {
                for nav in derived.navigationProperties { bind(nav, path: derived.qualifiedName + "/" + nav.name) }
            }
            if bindings != set.navigationBindings { model.entitySets[setName]?.navigationBindings = bindings }
        }
    }

    /// V4: a navigation property without its own referential constraints takes its
    /// partner's, reversed (the partner is on the dependent side and holds them).
    func reverseV4PartnerConstraints() {
        for (qn, type) in model.types {
            var t = type
            var changed = false
            for (i, nav) in t.navigationProperties.enumerated()
            where nav.association == nil && nav.referentialConstraints.isEmpty {
                guard let target = model.types[nav.targetType] else { continue }
                let partner: NavigationProperty?
                if let p = nav.partner {
                    partner = model.navigationProperty(p, of: target)
                } else {
                    // The partner may be declared on the other side only.
                    partner = model.firstInLineage(of: target) { c in
                        c.navigationProperties.first { $0.partner == nav.name && $0.targetType == qn }
                    }
                }
                guard let partner, !partner.referentialConstraints.isEmpty else { continue }
                t.navigationProperties[i].referentialConstraints =
                    partner.referentialConstraints.map { ($0.referencedProperty, $0.property) }
                changed = true
            }
            if changed { model.types[qn] = t }
        }
    }
}
