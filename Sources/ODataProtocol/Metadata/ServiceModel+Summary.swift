/// A model summarised as JSON, for tools and bindings that want to look at a service's
/// $metadata without a CSDL parser of their own.
extension ServiceModel {
    /// What the model declares, as JSON (`odatastore metadata`, `ods_store_model_json`,
    /// docs/cli.md): the version, the container, the entity sets and singletons (sorted by
    /// name) with their type, key, properties (Edm types; `Collection(...)` for collections)
    /// and navigation (target type, whether a collection), and the operation imports (sorted
    /// by name) with kind, HTTP method, parameters, return type and entity set.
    public var summary: JSONObject {
        var out = JSONObject()
        out["odataVersion"] = .string(self.version == .v2 ? "2.0" : "4.0")
        out["container"] = .string(self.containerName)
        var sets: [JSONValue] = []
        for set in self.entitySets.values.sorted(by: { $0.name < $1.name }) {
            var s = JSONObject()
            s["name"] = .string(set.name)
            s["kind"] = .string(set.isSingleton ? "singleton" : "entitySet")
            s["entityType"] = .string(set.entityType)
            if let type = self.structuredType(set.entityType) {
                s["key"] = .array(self.key(of: type).map { .string($0) })
                s["properties"] = .array(self.allProperties(of: type).map { p in
                    var o = JSONObject()
                    o["name"] = .string(p.name)
                    o["type"] = .string(Self.summaryTypeName(p.type))
                    return .object(o)
                })
                s["navigation"] = .array(self.allNavigationProperties(of: type).map { n in
                    var o = JSONObject()
                    o["name"] = .string(n.name)
                    o["target"] = .string(n.targetType)
                    o["collection"] = .bool(n.isCollection)
                    return .object(o)
                })
            }
            sets.append(.object(s))
        }
        out["entitySets"] = .array(sets)
        var operations: [JSONValue] = []
        for (name, op) in self.operationImports.sorted(by: { $0.key < $1.key }) {
            var o = JSONObject()
            o["name"] = .string(name)
            switch op.kind {
            case .functionImportV2: o["kind"] = .string("functionImport")
            case .function: o["kind"] = .string("function")
            case .action: o["kind"] = .string("action")
            }
            o["httpMethod"] = .string(op.httpMethod)
            o["parameters"] = .array(op.parameters.map { p in
                var q = JSONObject()
                q["name"] = .string(p.name)
                q["type"] = .string(Self.summaryTypeName(p.type))
                return .object(q)
            })
            o["returns"] = op.returnType.map { .string(Self.summaryTypeName($0)) } ?? .null
            if let set = op.entitySet { o["entitySet"] = .string(set) }
            operations.append(.object(o))
        }
        out["operations"] = .array(operations)
        return out
    }

    private static func summaryTypeName(_ t: TypeReference) -> String { t.isCollection ? "Collection(\(t.name))" : t.name }
}
