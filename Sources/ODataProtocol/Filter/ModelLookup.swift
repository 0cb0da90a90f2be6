/// Name lookups the URL checks share: operations by qualified or unqualified name (4.01 lets
/// URLs leave the namespace out of bound operations and type casts when the name is unique),
/// overloads by binding parameter, and derived types by unqualified name.
extension ServiceModel {
    /// The qualified name of a type given with or without its namespace (or alias); nil when
    /// there is no such entity or complex type.
    func qualifiedStructuredTypeName(_ name: String) -> String? {
        let resolved = resolve(name)
        if types[resolved] != nil { return resolved }
        guard !name.contains(".") else { return nil }
        for ns in namespaces where types[ns + "." + name] != nil { return ns + "." + name }
        return nil
    }

    /// Operations named `name` (qualified or not).
    func operations(named name: String) -> [Operation] {
        if name.contains(".") { return operations[resolve(name)] ?? [] }
        var out: [Operation] = []
        for ns in namespaces { out += operations[ns + "." + name] ?? [] }
        return out
    }

    /// The bound operation named `name` whose binding parameter accepts `binding` (an entity
    /// or complex type, a primitive kind, or a collection of them); for overloads bound to the
    /// same type, the one whose other parameters include all of `parameterNames`.
    func boundOperation(named name: String, binding: ExpressionType, parameterNames: [String]? = nil) -> Operation? {
        let candidates = operations(named: name).filter { $0.isBound && bindingAccepts($0, binding) }
        if let names = parameterNames {
            if let exact = candidates.first(where: { op in names.allSatisfy { n in op.parameters.dropFirst().contains { $0.name == n } } }) {
                return exact
            }
        }
        return candidates.first
    }

    /// Whether `op`'s binding parameter takes a value of `type` (a derived entity or complex
    /// type binds to an operation of its base type).
    func bindingAccepts(_ op: Operation, _ type: ExpressionType) -> Bool {
        guard let first = op.parameters.first else { return false }
        var t = type
        if case .collection(let e) = type {
            guard first.type.isCollection else { return false }
            t = e
        } else if first.type.isCollection {
            return false
        }
        let declared = resolve(first.type.name)
        switch t {
        case .structured(let name):
            guard let s = structuredType(name) else { return false }
            return lineage(of: s).contains { $0.qualifiedName == declared }
        case .primitive(let k):
            return primitiveKind(of: declared) == k || declared == "Edm.PrimitiveType"
        case .enumeration(let name):
            return declared == name
        case .null:
            return true
        case .collection:
            return false
        }
    }

    /// The expression type of a type reference.
    func expressionType(_ ref: TypeReference) -> ExpressionType {
        let element: ExpressionType
        let name = resolve(ref.name)
        if let k = primitiveKind(of: name) {
            element = .primitive(k)
        } else if enumTypes[name] != nil {
            element = .enumeration(name)
        } else if types[name] != nil {
            element = .structured(name)
        } else {
            element = .null
        }
        return ref.isCollection ? .collection(element) : element
    }
}

extension ServiceModel {
    /// What is wrong with a key predicate for an entity of type `typeName` (arity, names,
    /// literal types), or nil when it fits. Alias values are not looked at here.
    func keyProblem(_ args: SegmentArguments, of typeName: String) -> String? {
        guard let type = structuredType(typeName) else { return nil }
        let key = keyProperties(of: type)
        let names = key.map(\.name)
        func fits(_ v: ArgumentValue, _ entry: (name: String, property: StructuralProperty)) -> String? {
            guard case .literal(let l) = v, let k = primitiveKind(of: entry.property.type.name) else { return nil }
            if l == .null { return "key property '\(entry.name)' cannot be null" }
            guard TypeCompatibility.literal(l, fits: k) else {
                return "key property '\(entry.name)' is \(k.rawValue); \(l.withArticle) literal does not fit"
            }
            return nil
        }
        switch args {
        case .empty:
            return "empty key predicate for \(typeName)"
        case .positional(let v):
            guard key.count == 1 else {
                return "\(typeName) has a key of \(key.count) properties (\(names.joined(separator: ", "))); name them"
            }
            return fits(v, key[0])
        case .named(let pairs):
            let given = pairs.map(\.name)
            guard Set(given) == Set(names), given.count == names.count else {
                return "key of \(typeName) is (\(names.joined(separator: ","))), found (\(given.joined(separator: ",")))"
            }
            for p in pairs {
                if let entry = key.first(where: { $0.name == p.name }), let problem = fits(p.value, entry) { return problem }
            }
            return nil
        }
    }
}
