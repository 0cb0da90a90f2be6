/// The type of what a request path returns, from `$metadata`: a collection of entities of
/// one type, an entity, a property's value, an operation's result. It types `ODataValue`s
/// and `ODataEntity`s decoded from the response.
enum ResultTyping {
    static func type(ofPath path: String, serviceRoot: String, model: ServiceModel) -> ValueType {
        var relative = Substring(path)
        if relative.hasPrefix(serviceRoot) { relative = relative.dropFirst(serviceRoot.count) }
        while relative.hasPrefix("/") { relative = relative.dropFirst() }
        guard let request = try? ResourceRequestParser(version: model.version).parse(String(relative), checkingAgainst: model) else {
            return .unknown
        }
        var t = ValueType.unknown
        for segment in request.segments {
            let hasKey = segment.arguments != nil
            switch segment.role {
            case .entitySet:
                guard let set = model.entitySet(segment.name) else { return .unknown }
                let e = ValueType.structured(model.resolve(set.entityType))
                t = hasKey ? e : .collection(e)
            case .singleton:
                guard let set = model.entitySet(segment.name) else { return .unknown }
                t = .structured(model.resolve(set.entityType))
            case .navigation:
                guard case .structured(let name) = t, let type = model.structuredType(name),
                      let nav = model.navigationProperty(segment.name, of: type) else { return .unknown }
                let target = ValueType.structured(model.resolve(nav.targetType))
                t = nav.isCollection && !hasKey ? .collection(target) : target
            case .property:
                guard case .structured(let name) = t, let type = model.structuredType(name),
                      let p = model.property(segment.name, of: type) else { return .unknown }
                t = ValueType(p.type, model: model)
            case .typeCast:
                let cast = ValueType.structured(model.resolve(segment.name))
                if case .collection = t { t = .collection(cast) } else { t = cast }
            case .operationImport:
                guard let op = model.operationImport(segment.name), let r = op.returnType else { return .unknown }
                t = ValueType(r, model: model)
            case .count:
                t = .primitive(.int64)
            default:
                return .unknown
            }
        }
        return t
    }
}
