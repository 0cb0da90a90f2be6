/// Convenience lookups over a loaded model, for URL building/checking and payload codecs.
/// All take namespace-qualified or alias-qualified names and are read-only.
extension ServiceModel {
    /// An entity set or singleton by its URL name.
    public func entitySet(_ name: String) -> EntitySet? { entitySets[name] }

    public func enumType(_ qualifiedName: String) -> EnumType? { enumTypes[resolve(qualifiedName)] }

    /// A V2 function import or V4 function/action import by its URL name.
    public func operationImport(_ name: String) -> Operation? { operationImports[name] }

    /// The key as (name used in key predicates, property) pairs in key order. A V4 key alias
    /// is followed through its path into complex properties; unresolvable entries are left out.
    public func keyProperties(of type: StructuredType) -> [(name: String, property: StructuralProperty)] {
        var result: [(name: String, property: StructuralProperty)] = []
        for t in lineage(of: type) where !t.key.isEmpty {
            for k in t.key {
                if let p = propertyAt(path: t.keyAliases[k] ?? k, of: type) { result.append((k, p)) }
            }
            break
        }
        return result
    }

    /// The structural property at a `/`-separated path through complex properties
    /// (`Address/City`), starting at `type` (inherited properties included).
    public func propertyAt(path: String, of type: StructuredType) -> StructuralProperty? {
        var current = type
        let segments = path.split(separator: "/")
        for (i, s) in segments.enumerated() {
            guard let p = property(String(s), of: current) else { return nil }
            if i == segments.count - 1 { return p }
            guard let next = structuredType(p.type.name) else { return nil }
            current = next
        }
        return nil
    }

    /// True when `type` is `base` or derives from it (directly or not).
    public func isType(_ type: String, derivedFrom base: String) -> Bool {
        let base = resolve(base)
        guard let t = structuredType(type) else { return resolve(type) == base }
        return firstInLineage(of: t) { $0.qualifiedName == base ? true : nil } ?? false
    }

    /// Every type deriving from `qualifiedName`, directly or not (the type itself excluded),
    /// sorted by qualified name.
    public func derivedTypes(of qualifiedName: String) -> [StructuredType] {
        let base = resolve(qualifiedName)
        return types.values
            .filter { $0.qualifiedName != base && $0.baseType != nil && isType($0.qualifiedName, derivedFrom: base) }
            .sorted { $0.qualifiedName < $1.qualifiedName }
    }

    /// The properties that make up the entity's ETag (V2 `ConcurrencyMode="Fixed"`),
    /// inherited ones included, base type first.
    public func concurrencyTokens(of type: StructuredType) -> [StructuralProperty] {
        allProperties(of: type).filter(\.concurrencyToken)
    }

    /// True when the type (or a base type) declares a concurrency token, so its entities
    /// carry an ETag. V4 documents state this with the `Core.OptimisticConcurrency`
    /// annotation, which is not read: for V4 this is false unless a V2-style
    /// `ConcurrencyMode` is present.
    public func hasETag(_ type: StructuredType) -> Bool {
        firstInLineage(of: type) { $0.declaresConcurrencyToken ? true : nil } ?? false
    }

    /// The entity set or singleton reached from set `setName` through the navigation
    /// binding `path` (a navigation property name, or `Namespace.Type/Nav` for one declared
    /// on a derived type), if the document binds it.
    public func navigationTarget(ofSet setName: String, path: String) -> EntitySet? {
        guard let target = entitySets[setName]?.navigationBindings[path] else { return nil }
        return entitySets[target]
    }

    /// V4 bound operations with qualified name `qualifiedName` (alias allowed) that can be
    /// called on an instance (`isCollection == false`) or a collection of `bindingType`:
    /// the binding parameter's type must be `bindingType` or one of its base types.
    public func boundOperations(named qualifiedName: String, bindingType: String,
                                isCollection: Bool) -> [Operation] {
        (operations[resolve(qualifiedName)] ?? []).filter { op in
            guard let p = op.bindingParameter, p.type.isCollection == isCollection else { return false }
            return isType(bindingType, derivedFrom: p.type.name)
        }
    }

    /// Every V4 bound operation applicable to `bindingType` (or a collection of it),
    /// sorted by qualified name.
    public func boundOperations(for bindingType: String, isCollection: Bool) -> [Operation] {
        operations.keys.sorted().flatMap { boundOperations(named: $0, bindingType: bindingType, isCollection: isCollection) }
    }

    /// The unbound overloads of a V4 function or action (what an import may call).
    public func unboundOverloads(of qualifiedName: String) -> [Operation] {
        (operations[resolve(qualifiedName)] ?? []).filter { !$0.isBound }
    }
}
