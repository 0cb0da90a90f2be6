/// Member paths: properties (columns), members of flattened complex values (`Address/City`
/// columns), members of complex values and collections kept as JSON (`json_extract` with the
/// path bound as a parameter), to-one navigation (joined in a scalar subquery through the
/// link's condition; null when no entity is related, V4.01 Part 2, 5.1.1.15 "Path
/// Expressions"), type casts (null when the instance is not of the type), `$count`, and
/// the lambda operators `any`/`all` (5.1.1.13) as `EXISTS` over the related rows or the
/// JSON array's elements (`json_each`).
extension FilterSQL {
    /// Where a path has got to: the related rows joined so far (`from`, `conditions`, used
    /// as a subquery around the final value) and what the path addresses.
    struct PathState {
        var from: [String] = []
        /// Join conditions and type guards, each a non-null SQL boolean.
        var conditions: [String] = []
        var cursor: Cursor
    }

    enum Cursor {
        /// An entity row of `table` under `alias`.
        case entity(EntityTable, alias: String)
        /// A complex property flattened into the columns of a row (`path` from the entity).
        case flatComplex(EntityTable, alias: String, path: [String], type: String)
        /// A complex value inside the JSON text `base` at `path`.
        case json(base: String, path: [String], type: String)
        /// A primitive value, in the context of the path.
        case value(Operand)
        /// The entities related through a collection-valued navigation.
        case entityCollection(NavigationLink, from: String, cast: String?)
        /// The elements of a JSON array at `path` inside `base`.
        case jsonCollection(base: String, path: [String], element: String, cast: String?)
    }

    mutating func member(_ m: MemberPath, _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> Term {
        var state = try start(m.root, e, s, &p)
        for segment in m.segments {
            try step(&state, segment, e, &p)
        }
        if let lambda = m.lambda {
            return .scalar(.boolean(try self.lambda(state, lambda, e, s, &p), nullable: false))
        }
        switch state.cursor {
        case .value(let o):
            guard !state.from.isEmpty || !state.conditions.isEmpty else { return .scalar(o) }
            var embedded = o
            embedded.source = .sql(embed(state, try render(o, &p)))
            embedded.nullable = true
            embedded.simple = false
            return .scalar(embedded)
        case .entity, .flatComplex, .json:
            return .structured(state)
        case .entityCollection, .jsonCollection:
            return .collection(state)
        }
    }

    // MARK: - Walking

    mutating func start(_ root: MemberPath.Root, _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> PathState {
        switch root {
        case .implicit, .it, .this:
            // `$this` is the row the option is evaluated on, as the implicit root is.
            return PathState(cursor: .entity(s.table, alias: s.alias))
        case .alias:
            throw unsupported("a path that starts at a parameter alias", e)
        case .root:
            throw unsupported("$root", e)
        case .rangeVariable(let v):
            switch s.variables[v] {
            case .entity(let table, let alias)?:
                return PathState(cursor: .entity(table, alias: alias))
            case .jsonElement(let alias, let column)?:
                let base = "\(alias).value"
                if column.edm == nil, model.structuredType(column.typeName) != nil {
                    return PathState(cursor: .json(base: base, path: [], type: column.typeName))
                }
                return PathState(cursor: .value(jsonValue(base, nil, typeName: column.typeName, &p)))
            case nil:
                throw unsupported("lambda variable \(v) outside its lambda", e)
            }
        }
    }

    mutating func step(_ state: inout PathState, _ segment: MemberPath.Segment, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) {
        switch segment {
        case .property(let name):
            try property(&state, name, e, &p)
        case .typeCast(let name):
            try cast(&state, model.resolve(name), e, &p)
        case .count:
            try count(&state, e, &p)
        case .keyed, .key:
            throw unsupported("a key predicate in a path", e)
        case .function(let name, _):
            throw unsupported("the bound function \(name)", e)
        case .annotation(let term):
            throw unsupported("the annotation @\(term)", e)
        case .filter:
            throw unsupported("a $filter(…) path segment", e)
        }
    }

    mutating func property(_ state: inout PathState, _ name: String, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) {
        switch state.cursor {
        case .entity(let table, let alias):
            if let column = table.column(name) {
                state.cursor = try columnCursor(column, table, alias, e)
                return
            }
            if let type = model.structuredType(table.entityType), model.navigationProperty(name, of: type) != nil
                || table.derivedTypes.contains(where: { model.structuredType($0).flatMap { model.navigationProperty(name, of: $0) } != nil }) {
                let link: NavigationLink
                switch schema.link(from: table, navigation: name) {
                case .success(let l): link = l
                case .failure(let reason): throw unsupported("navigation \(name) (\(reason.message))", e)
                }
                if link.isCollection {
                    state.cursor = .entityCollection(link, from: alias, cast: nil)
                } else {
                    let t = aliases.make()
                    state.from.append("\(link.target.quoted) \(t)")
                    state.conditions.append(link.condition(source: alias, target: t))
                    state.cursor = .entity(link.target, alias: t)
                }
                return
            }
            // A dynamic property of an open type: kept in the row's @extra JSON object.
            let extra = "\(alias).\(SQLName.quote(EntityTable.extraColumn))"
            state.cursor = .value(jsonValue(extra, [name], typeName: nil, &p))
        case .flatComplex(let table, let alias, let path, let type):
            let full = path + [name]
            if let column = table.column(full.joined(separator: "/")) {
                if column.isCollection, let presence = table.column(path.joined(separator: "/")), presence.kind == .presence {
                    // A collection of a null complex value is null, not empty (5.1.1.15).
                    state.conditions.append("\(alias).\(presence.quoted) IS NOT NULL")
                }
                state.cursor = try columnCursor(column, table, alias, e)
                return
            }
            throw unsupported("member \(name) of the complex type \(type)", e)
        case .json(let base, let path, let type):
            let full = path + [name]
            guard let st = model.structuredType(type) else { throw unsupported("member \(name) of \(type)", e) }
            if let prop = model.property(name, of: st) {
                let typeName = model.resolve(prop.type.name)
                if prop.type.isCollection {
                    state.cursor = .jsonCollection(base: base, path: full, element: typeName, cast: nil)
                } else if model.primitiveKind(of: typeName) == nil, model.enumType(typeName) == nil, model.structuredType(typeName) != nil {
                    state.cursor = .json(base: base, path: full, type: typeName)
                } else {
                    state.cursor = .value(jsonValue(base, full, typeName: typeName, &p))
                }
                return
            }
            if model.navigationProperty(name, of: st) != nil {
                throw unsupported("navigation from a complex value", e)
            }
            // Dynamic member of an open complex type.
            state.cursor = .value(jsonValue(base, full, typeName: nil, &p))
        case .value:
            throw unsupported("a member of a primitive value", e)
        case .entityCollection, .jsonCollection:
            throw unsupported("a member of a collection", e)
        }
    }

    func columnCursor(_ c: Column, _ table: EntityTable, _ alias: String, _ e: FilterExpression) throws(ODataStoreError) -> Cursor {
        let sql = "\(alias).\(c.quoted)"
        switch c.kind {
        case .presence:
            return .flatComplex(table, alias: alias, path: c.path, type: c.typeName)
        case .json:
            if c.isCollection { return .jsonCollection(base: sql, path: [], element: c.typeName, cast: nil) }
            if model.structuredType(c.typeName) != nil { return .json(base: sql, path: [], type: c.typeName) }
            return .value(Operand(source: .sql(sql), rep: .opaque, nullable: true, simple: true, type: nil))
        default:
            let nullable = !c.isKey && (c.nullable || c.path.count > 1 || c.declaringType != table.entityType)
            let type = c.edm.map { ExpressionType.primitive($0) } ?? .enumeration(c.typeName)
            return .value(Operand(source: .sql(sql), rep: rep(column: c), nullable: nullable, simple: true, type: type))
        }
    }

    func rep(column c: Column) -> Rep {
        switch c.kind {
        case .integer: return .integer
        case .boolean: return .boolean
        case .real: return .double
        case .decimal: return .decimal
        case .instant: return .instant
        case .duration: return .duration
        case .json, .presence: return .opaque
        case .text:
            guard let k = c.edm else { return model.enumType(c.typeName) != nil ? .enumeration(model.resolve(c.typeName)) : .string }
            return rep(kind: k)
        }
    }

    func rep(kind k: EdmPrimitiveKind) -> Rep {
        switch k {
        case .byte, .sbyte, .int16, .int32, .int64: return .integer
        case .boolean: return .boolean
        case .single, .double: return .double
        case .decimal: return .decimal
        case .string: return .string
        case .guid: return .guid
        case .date: return .date
        case .timeOfDay, .time: return .timeOfDay
        case .dateTime, .dateTimeOffset: return .instant
        case .duration: return .duration
        case .binary: return .binary
        case .stream, .geography, .geometry: return .opaque
        case .other: return .untyped
        }
    }

    /// The rep of a model type name (primitive, type definition or enumeration); nil for
    /// structured types.
    func rep(typeName: String) -> Rep? {
        if let k = model.primitiveKind(of: typeName) { return rep(kind: k) }
        if model.enumType(typeName) != nil { return .enumeration(model.resolve(typeName)) }
        return nil
    }

    /// A primitive value inside JSON text, converted to the store's representation of its
    /// type: JSON strings hold Int64 and Decimal digits (canonical shape), `"INF"`/`"NaN"`
    /// doubles. `typeName` nil: a dynamic property (untyped).
    func jsonValue(_ base: String, _ path: [String]?, typeName: String?, _ p: inout SQLParameters) -> Operand {
        let raw: String
        if let path {
            raw = "json_extract(\(base), \(p.bind(.text(Self.jsonPath(path)))))"
        } else {
            raw = base
        }
        guard let typeName, let r = rep(typeName: typeName) else {
            return Operand(source: .sql(raw), rep: .untyped, nullable: true, simple: path == nil, type: nil)
        }
        let type: ExpressionType = model.primitiveKind(of: typeName).map { .primitive($0) } ?? .enumeration(model.resolve(typeName))
        return Operand(source: .sql(fromJSON(raw, r)), rep: r, nullable: true, simple: path == nil && r != .integer && r != .decimal && r != .double, type: type)
    }

    func fromJSON(_ sql: String, _ r: Rep) -> String {
        switch r {
        case .integer: return "CAST(\(sql) AS INTEGER)"
        case .decimal: return "CAST(\(sql) AS TEXT)"
        case .double: return "ods_double(\(sql))"
        default: return sql
        }
    }

    /// `$."A"."B"`: a JSON path in SQLite's syntax (names are OData identifiers).
    static func jsonPath(_ path: [String]) -> String {
        "$" + path.map { ".\"\($0)\"" }.joined()
    }

    mutating func cast(_ state: inout PathState, _ name: String, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) {
        switch state.cursor {
        case .entity(let table, let alias):
            let guardSQL = entityTypeCondition(table, alias, name, &p)
            if guardSQL != "1" { state.conditions.append(guardSQL) }
        case .entityCollection(let link, let from, _):
            state.cursor = .entityCollection(link, from: from, cast: name)
        case .json(let base, let path, let type):
            let guardSQL = jsonTypeCondition(base, path, declared: type, target: name, &p)
            if guardSQL != "1" { state.conditions.append(guardSQL) }
            state.cursor = .json(base: base, path: path, type: name)
        case .jsonCollection(let base, let path, let element, _):
            state.cursor = .jsonCollection(base: base, path: path, element: element, cast: name)
        case .flatComplex(_, _, _, let type):
            guard model.isType(type, derivedFrom: name) else { throw unsupported("type cast to \(name)", e) }
        case .value:
            throw unsupported("a type cast of a primitive value", e)
        }
    }

    mutating func count(_ state: inout PathState, _ e: FilterExpression, _ p: inout SQLParameters) throws(ODataStoreError) {
        switch state.cursor {
        case .entityCollection(let link, let from, let cast):
            let t = aliases.make()
            var conditions = state.conditions + [link.condition(source: from, target: t)]
            if let cast { conditions.append(entityTypeCondition(link.target, t, cast, &p)) }
            let sources = state.from + ["\(link.target.quoted) \(t)"]
            let sql = "(SELECT count(*) FROM \(sources.joined(separator: ", ")) WHERE \(SQLText.and(conditions)))"
            state = PathState(cursor: .value(.sql(sql, .integer, nullable: false, type: .primitive(.int64))))
        case .jsonCollection(let base, let path, let element, let cast):
            let counted: String
            if let cast {
                let j = aliases.make("j")
                let test = jsonTypeCondition("\(j).value", [], declared: element, target: cast, &p)
                counted = "(SELECT count(*) FROM \(jsonEach(base, path, &p)) \(j) WHERE \(test))"
            } else {
                counted = path.isEmpty ? "json_array_length(\(base))" : "json_array_length(\(base), \(p.bind(.text(Self.jsonPath(path)))))"
            }
            // A collection is never null: an absent one counts 0.
            let sql = "COALESCE(\(embed(state, counted)), 0)"
            state = PathState(cursor: .value(.sql(sql, .integer, nullable: false, type: .primitive(.int64))))
        default:
            throw unsupported("$count of a value that is not a collection", e)
        }
    }

    func jsonEach(_ base: String, _ path: [String], _ p: inout SQLParameters) -> String {
        path.isEmpty ? "json_each(\(base))" : "json_each(\(base), \(p.bind(.text(Self.jsonPath(path)))))"
    }

    /// `sql` evaluated in the context of the path: as is, under its type guards, or in a
    /// scalar subquery over the joined rows (NULL when there is no related row).
    func embed(_ state: PathState, _ sql: String) -> String {
        if state.from.isEmpty {
            let guards = SQLText.and(state.conditions)
            if guards == "1" { return sql }
            return "CASE WHEN \(guards) THEN \(sql) END"
        }
        return "(SELECT \(sql) FROM \(state.from.joined(separator: ", ")) WHERE \(SQLText.and(state.conditions)) LIMIT 1)"
    }

    /// A non-null condition `inner` (about the path's final row or value) that is false when
    /// the path leads nowhere.
    func embedCondition(_ state: PathState, _ inner: String) -> String {
        if state.from.isEmpty { return SQLText.and(state.conditions + [inner]) }
        return "EXISTS (SELECT 1 FROM \(state.from.joined(separator: ", ")) WHERE \(SQLText.and(state.conditions + [inner])))"
    }

    // MARK: - Structured values

    /// 1 when the path's entity or complex value exists (is not null), else 0.
    mutating func exists(_ state: PathState, _ p: inout SQLParameters) -> String {
        switch state.cursor {
        case .entity:
            return embedCondition(state, "1")
        case .flatComplex(let table, let alias, let path, _):
            guard let presence = table.column(path.joined(separator: "/")) else { return embedCondition(state, "1") }
            return embedCondition(state, "\(alias).\(presence.quoted) IS NOT NULL")
        case .json(let base, let path, _):
            let value = path.isEmpty ? base : "json_extract(\(base), \(p.bind(.text(Self.jsonPath(path)))))"
            return embedCondition(state, "\(value) IS NOT NULL")
        default:
            return embedCondition(state, "1")
        }
    }

    /// 1 when the path's entity or complex value exists and is of type `target` or a type
    /// derived from it (`isof`, 5.1.1.10.2; an absent value is of no type), else 0.
    mutating func typeTest(_ state: PathState, _ target: String, _ p: inout SQLParameters) -> String {
        switch state.cursor {
        case .entity(let table, let alias):
            return embedCondition(state, entityTypeCondition(table, alias, target, &p))
        case .flatComplex(_, _, _, let type):
            guard model.isType(type, derivedFrom: target) else { return embedCondition(state, "0") }
            return exists(state, &p)
        case .json(let base, let path, let type):
            let test = jsonTypeCondition(base, path, declared: type, target: target, &p)
            let present = exists(state, &p)
            return SQLText.and([present, embedCondition(state, test)])
        default:
            return embedCondition(state, "0")
        }
    }

    /// Whether the row `alias` of `table` is of type `target` (or derived from it): the
    /// `@type` column names a derived type, NULL the set's declared type.
    func entityTypeCondition(_ table: EntityTable, _ alias: String, _ target: String, _ p: inout SQLParameters) -> String {
        let target = model.resolve(target)
        let candidates = [table.entityType] + table.derivedTypes
        let matching = candidates.filter { model.isType($0, derivedFrom: target) }
        if matching.count == candidates.count { return "1" }
        if matching.isEmpty { return "0" }
        let column = "\(alias).\(SQLName.quote(EntityTable.typeColumn))"
        var parts: [String] = []
        if matching.contains(table.entityType) { parts.append("\(column) IS NULL") }
        let derived = matching.filter { $0 != table.entityType }
        if !derived.isEmpty {
            let names = derived.map { p.bind(.text($0)) }.joined(separator: ", ")
            parts.append("(\(column) IS NOT NULL AND \(column) IN (\(names)))")
        }
        return parts.count == 1 ? parts[0] : "(\(parts.joined(separator: " OR ")))"
    }

    /// Whether the complex value at `path` in `base` is of type `target` (or derived from
    /// it): its `@odata.type` names a derived type (`#NS.Type`), none the declared type.
    func jsonTypeCondition(_ base: String, _ path: [String], declared: String, target: String, _ p: inout SQLParameters) -> String {
        let target = model.resolve(target)
        let candidates = [model.resolve(declared)] + model.derivedTypes(of: declared).map(\.qualifiedName)
        let matching = candidates.filter { model.isType($0, derivedFrom: target) }
        if matching.count == candidates.count { return "1" }
        if matching.isEmpty { return "0" }
        let typePath = p.bind(.text(Self.jsonPath(path + ["@odata.type"])))
        let typeName = "ltrim(json_extract(\(base), \(typePath)), \(p.bind(.text("#"))))"
        let names = matching.map { p.bind(.text($0)) }.joined(separator: ", ")
        if matching.contains(model.resolve(declared)) {
            return "(\(typeName) IS NULL OR \(typeName) IN (\(names)))"
        }
        return "COALESCE(\(typeName) IN (\(names)), 0)"
    }

    // MARK: - Lambdas

    /// `any`/`all` over a collection: `EXISTS` over the related rows or JSON elements with
    /// the range variable bound to them. `any` is false and `all` true for an empty (or
    /// absent) collection (5.1.1.13.1, 5.1.1.13.2); the predicate counts where it is true.
    mutating func lambda(_ state: PathState, _ lambda: Lambda, _ e: FilterExpression, _ s: SQLScope, _ p: inout SQLParameters) throws(ODataStoreError) -> String {
        var inner = s
        var sources = state.from
        var conditions = state.conditions
        switch state.cursor {
        case .entityCollection(let link, let from, let cast):
            let t = aliases.make()
            sources.append("\(link.target.quoted) \(t)")
            conditions.append(link.condition(source: from, target: t))
            if let cast { conditions.append(entityTypeCondition(link.target, t, cast, &p)) }
            if let v = lambda.variable { inner.variables[v] = .entity(link.target, alias: t) }
        case .jsonCollection(let base, let path, let element, let cast):
            let j = aliases.make("j")
            sources.append("\(jsonEach(base, path, &p)) \(j)")
            if let cast {
                conditions.append(jsonTypeCondition("\(j).value", [], declared: element, target: cast, &p))
            }
            if let v = lambda.variable { inner.variables[v] = .jsonElement(alias: j, column: elementColumn(element)) }
        default:
            throw unsupported("\(lambda.kind.rawValue) on a value that is not a collection", e)
        }
        let predicate: String?
        if let pe = lambda.predicate { predicate = try truth(pe, inner, &p) } else { predicate = nil }
        let from = sources.joined(separator: ", ")
        switch lambda.kind {
        case .any:
            let whereSQL = SQLText.and(conditions + (predicate.map { [$0] } ?? []))
            return "EXISTS (SELECT 1 FROM \(from) WHERE \(whereSQL))"
        case .all:
            guard let predicate else { throw unsupported("all() without a predicate", e) }
            return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(SQLText.and(conditions + ["NOT \(SQLText.paren(predicate))"])))"
        }
    }

    /// A column description for the elements of a JSON collection (the `json_each` value).
    func elementColumn(_ typeName: String) -> Column {
        let k = model.primitiveKind(of: typeName)
        let kind: ColumnKind = k.map(ColumnKind.forPrimitive) ?? (model.enumType(typeName) != nil ? .text : .json)
        return Column(sqlName: "value", path: [], kind: kind, edm: k, typeName: model.resolve(typeName), isCollection: false,
                      nullable: true, isKey: false, declaringType: "")
    }
}
