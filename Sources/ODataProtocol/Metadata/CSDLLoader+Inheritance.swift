/// The base-type chains of the structured types, resolved once for the whole document right
/// after the types are loaded, in time linear in the number of types: every type is walked
/// once, its result kept (`lineages`) and reused by the types deriving from it. The last pass
/// (`CSDLLoader+Validation.swift`) reads these results instead of walking each type's chain
/// again, which made loading a chain of n types cost n² steps (20,000 types deep: minutes).
///
/// A type with more than `ServiceModel.maxInheritanceDepth` base types is refused: the
/// document is not loaded (`MetadataError.invalidElement`, thrown even without
/// `Options.strict`). Real services derive a few levels deep; the model's inherited-member
/// lookups (`ServiceModel.firstInLineage`) stop after that many base types too.
extension CSDLLoader {
    /// What validation needs of one type's base-type chain (`ServiceModel.lineage(of:)`, the
    /// type itself first).
    struct Lineage {
        /// The number of base types: `lineage(of:).count - 1`.
        var depth: Int
        /// The chain ends by coming back to a type already in it.
        var reachesCycle: Bool
        /// The last type of the chain has no base type, or one that is declared (a cycle);
        /// false when it names an unknown type.
        var rootIsKnown: Bool
        /// Some type of the chain declares a key or is abstract.
        var hasKeyOrAbstract: Bool
    }

    /// Fills `lineages` for every structured type and refuses a chain deeper than
    /// `ServiceModel.maxInheritanceDepth`. O(number of types).
    func resolveInheritance() throws(MetadataError) {
        let types = model.types
        var result: [String: Lineage] = [:]
        result.reserveCapacity(types.count)
        var path: [StructuredType] = []
        var onPath: [String: Int] = [:]
        for start in types.values where result[start.qualifiedName] == nil {
            // Walk up until a resolved type, the end of the chain, or a type of this walk (a cycle).
            path.removeAll(keepingCapacity: true)
            onPath.removeAll(keepingCapacity: true)
            var current = start
            var above: Lineage? = nil
            var cycleStart = -1
            while true {
                onPath[current.qualifiedName] = path.count
                path.append(current)
                guard let b = current.baseType, let base = model.structuredType(b) else { break }
                if let done = result[base.qualifiedName] { above = done; break }
                if let i = onPath[base.qualifiedName] { cycleStart = i; break }
                current = base
            }
            var end = path.count
            if cycleStart >= 0 {
                // Every type of the cycle has the cycle as its chain.
                let keyed = path[cycleStart...].contains { !$0.key.isEmpty || $0.isAbstract }
                let members = Lineage(depth: end - cycleStart - 1, reachesCycle: true, rootIsKnown: true,
                                      hasKeyOrAbstract: keyed)
                for t in path[cycleStart...] { result[t.qualifiedName] = members }
                above = members
                end = cycleStart
            }
            for t in path[..<end].reversed() {
                let own = !t.key.isEmpty || t.isAbstract
                let l: Lineage
                if let a = above {
                    l = Lineage(depth: a.depth + 1, reachesCycle: a.reachesCycle, rootIsKnown: a.rootIsKnown,
                                hasKeyOrAbstract: own || a.hasKeyOrAbstract)
                } else {
                    l = Lineage(depth: 0, reachesCycle: false, rootIsKnown: t.baseType.map { types[$0] != nil } ?? true,
                                hasKeyOrAbstract: own)
                }
                result[t.qualifiedName] = l
                above = l
            }
        }
        lineages = result
        let limit = ServiceModel.maxInheritanceDepth
        // The shallowest type past the limit (then the first by name): where the chain crosses it.
        var worst: (name: String, depth: Int)? = nil
        for (qn, l) in result where l.depth > limit {
            if let w = worst, (w.depth, w.name) <= (l.depth, qn) { continue }
            worst = (qn, l.depth)
        }
        if let w = worst, let t = types[w.name] {
            let at = positions["T:" + w.name]
            let what = t.kind == .entity ? "entity type" : "complex type"
            throw MetadataError(kind: .invalidElement,
                                message: "\(what) \(w.name) has \(w.depth) base types (BaseType chain), more than the \(limit) this library loads",
                                line: at.flatMap { $0.line > 0 ? $0.line : nil },
                                column: at.flatMap { $0.column > 0 ? $0.column : nil })
        }
    }
}
