/// The last pass: every name the model refers to is checked, in a stable order (types,
/// sets and operations sorted by name). Problems become `danglingReference` (or
/// `invalidElement`) warnings; the model keeps what was written, so a caller can still see it.
///
/// A type name is known when it is an `Edm.*` type, declared in the document, or in a
/// namespace the document includes through `edmx:Reference` (not loaded, so not checked).
extension CSDLLoader {
    func validate() throws(MetadataError) {
        for qn in model.types.keys.sorted() {
            guard let t = model.types[qn] else { continue }
            try validateType(t)
        }
        for (qn, e) in model.enumTypes.sorted(by: { $0.key < $1.key }) {
            let integer: Set<EdmPrimitiveKind> = [.byte, .sbyte, .int16, .int32, .int64]
            guard let k = EdmPrimitiveKind(qualifiedName: e.underlyingType), integer.contains(k) else {
                try warn(.invalidElement, "enum \(qn): UnderlyingType \(e.underlyingType) is not an integer type",
                         at: positions["T:" + qn])
                continue
            }
        }
        for (qn, underlying) in model.typeDefinitions.sorted(by: { $0.key < $1.key })
        where EdmPrimitiveKind(qualifiedName: underlying) == nil {
            try warn(.danglingReference, "type definition \(qn): UnderlyingType \(underlying) is not a primitive type",
                     at: positions["T:" + qn])
        }
        for name in model.entitySets.keys.sorted() {
            guard let set = model.entitySets[name] else { continue }
            try validateSet(set)
        }
        for qn in model.operations.keys.sorted() {
            for op in model.operations[qn] ?? [] { try validateOperation(op, at: positions["O:" + qn]) }
        }
        for name in model.operationImports.keys.sorted() {
            guard let op = model.operationImports[name] else { continue }
            let at = positions["I:" + name]
            if op.kind == .functionImportV2 { try validateOperation(op, at: at) }
            if let set = op.entitySet, model.entitySets[set] == nil {
                try warn(.danglingReference, "operation import \(name): unknown entity set \(set)", at: at)
            }
        }
        model.warnings.sort { ($0.line ?? Int.max) < ($1.line ?? Int.max) }
    }

    /// True for `Edm.*`, declared types, and types of namespaces included by reference.
    func isKnownType(_ name: String) -> Bool {
        if EdmPrimitiveKind(qualifiedName: name) != nil || declared.contains(name) { return true }
        guard let dot = name.lastIndex(of: ".") else { return false }
        return model.referencedNamespaces.contains(String(name[..<dot]))
    }

    private func validateType(_ t: StructuredType) throws(MetadataError) {
        let at = positions["T:" + t.qualifiedName]
        let qn = t.qualifiedName
        if let b = t.baseType {
            if let base = model.types[b] {
                if base.kind != t.kind {
                    try warn(.invalidElement, "\(qn): base type \(b) is not a\(t.kind == .entity ? "n entity" : " complex") type",
                             at: at)
                }
                if lineages[qn]?.reachesCycle == true {
                    try warn(.invalidElement, "\(qn): its base types form a cycle", at: at)
                }
            } else if !isKnownType(b) {
                try warn(.danglingReference, "\(qn): unknown base type \(b)", at: at)
            }
        }
        for p in t.properties where !isKnownType(p.type.name) {
            try warn(.danglingReference, "property \(qn)/\(p.name): unknown type \(p.type.name)", at: at)
        }
        for n in t.navigationProperties {
            if let target = model.types[n.targetType] {
                if target.kind != .entity {
                    try warn(.invalidElement, "navigation property \(qn)/\(n.name): \(n.targetType) is not an entity type",
                             at: at)
                } else if n.association == nil, let partner = n.partner,
                          model.navigationProperty(partner, of: target) == nil {
                    try warn(.danglingReference,
                             "navigation property \(qn)/\(n.name): partner \(partner) is not a navigation property of \(n.targetType)",
                             at: at)
                }
            } else if !isKnownType(n.targetType) {
                try warn(.danglingReference, "navigation property \(qn)/\(n.name): unknown target type \(n.targetType)",
                         at: at)
            }
        }
        guard t.kind == .entity else { return }
        for k in t.key {
            let path = t.keyAliases[k] ?? k
            let first = String(path.split(separator: "/").first ?? Substring(path))
            if model.property(first, of: t) == nil {
                try warn(.danglingReference, "key of \(qn): \(path) is not a property", at: at)
            }
        }
        // The chain as `resolveInheritance` found it (walking it here per type was quadratic).
        guard let lineage = lineages[qn] else { return }
        if lineage.rootIsKnown, !t.isAbstract, !lineage.hasKeyOrAbstract {
            try warn(.invalidElement, "entity type \(qn) has no key", at: at)
        }
    }

    private func validateSet(_ set: EntitySet) throws(MetadataError) {
        let at = positions["S:" + set.name]
        guard let type = model.types[set.entityType], type.kind == .entity else {
            if !isKnownType(set.entityType) || model.types[set.entityType] != nil {
                try warn(.danglingReference, "entity set \(set.name): \(set.entityType) is not an entity type of the document",
                         at: at)
            }
            return
        }
        for (path, target) in set.navigationBindings.sorted(by: { $0.key < $1.key }) {
            if !bindingPathResolves(path, from: type) {
                try warn(.danglingReference,
                         "\(set.name): binding path \(path) does not end in a navigation property of \(set.entityType)",
                         at: at)
            }
            if !target.contains("/"), model.entitySets[target] == nil {
                try warn(.danglingReference, "\(set.name): binding target \(target) is not an entity set", at: at)
            }
        }
    }

    /// Follows `path` (properties, complex properties, type casts) from `type`; true when
    /// its last segment is a navigation property.
    private func bindingPathResolves(_ path: String, from type: StructuredType) -> Bool {
        var current = type
        let segments = path.split(separator: "/").map(String.init)
        for (i, segment) in segments.enumerated() {
            let last = i == segments.count - 1
            if let nav = model.navigationProperty(segment, of: current) {
                if last { return true }
                guard let next = model.types[nav.targetType] else { return false }
                current = next
            } else if let p = model.property(segment, of: current), !last, let next = model.types[p.type.name] {
                current = next
            } else if segment.contains("."), !last, let cast = model.types[segment] {
                current = cast
            } else {
                return false
            }
        }
        return false
    }

    private func validateOperation(_ op: Operation, at: (line: Int, column: Int)?) throws(MetadataError) {
        for p in op.parameters where !isKnownType(p.type.name) {
            try warn(.danglingReference, "\(op.name): parameter \(p.name) has an unknown type \(p.type.name)", at: at)
        }
        if let r = op.returnType, !isKnownType(r.name) {
            try warn(.danglingReference, "\(op.name): unknown return type \(r.name)", at: at)
        }
    }
}
