import ODataProtocol

/// The tables of an offline store, derived from `$metadata` alone (deterministically: the
/// same document always gives the same names), so a store file reopened with its stored
/// metadata finds its tables again.
///
/// - one `EntityTable` per entity set and singleton (`e:` + set name);
/// - one link table per navigation relationship that has no referential constraint and a
///   known target set (`l:` + set + `/` + navigation);
/// - complex properties flattened into columns (`Address/City`) down to `maxFlattenDepth`
///   levels; collections, geo values, deeper or polymorphic complex values as JSON columns.
///
/// SQL names are compared without case by SQLite while OData names are case-sensitive:
/// names that differ only in case get a `#2`, `#3`... suffix in sorted order.
///
/// Immutable and `Sendable` once built.
final class StoreSchema: Sendable {
    let model: ServiceModel
    /// Tables by entity set name.
    let tables: [String: EntityTable]
    /// Link tables (unquoted names), sorted.
    let linkTables: [String]
    /// Navigation links by "Set/Navigation" (and "Set/NS.Derived/Navigation" is not used:
    /// navigation names are unique within a type and its derived types).
    private let links: [String: NavigationLink]
    /// Why a navigation has no local link ("Set/Nav" -> reason), for clear errors.
    private let unlinkable: [String: String]

    static let maxFlattenDepth = 6

    init(model: ServiceModel) {
        self.model = model
        // Tables, in sorted set order so case-insensitive clashes resolve the same way every time.
        var tables: [String: EntityTable] = [:]
        var usedTableNames = CaseInsensitiveNames()
        for name in model.entitySets.keys.sorted() {
            guard let set = model.entitySets[name], let type = model.structuredType(set.entityType), type.kind == .entity else { continue }
            let sqlName = usedTableNames.claim("e:" + name)
            tables[name] = Self.makeTable(set: set, type: type, sqlName: sqlName, model: model)
        }
        self.tables = tables

        // Navigation links.
        var links: [String: NavigationLink] = [:]
        var unlinkable: [String: String] = [:]
        var linkTables: Set<String> = []
        var usedLinkNames = CaseInsensitiveNames()
        for setName in tables.keys.sorted() {
            guard let table = tables[setName], let type = model.structuredType(table.entityType) else { continue }
            var navigations: [NavigationProperty] = model.allNavigationProperties(of: type)
            for derived in table.derivedTypes {
                if let d = model.structuredType(derived) {
                    for n in d.navigationProperties where !navigations.contains(where: { $0.name == n.name }) { navigations.append(n) }
                }
            }
            for nav in navigations {
                let key = setName + "/" + nav.name
                if links[key] != nil || unlinkable[key] != nil { continue }
                if nav.containsTarget {
                    unlinkable[key] = "navigation \(key) is a containment navigation, which the offline store does not hold yet"
                    continue
                }
                guard let targetSet = Self.targetSet(of: nav, from: setName, model: model), let target = tables[targetSet] else {
                    unlinkable[key] = "navigation \(key) has no target entity set in $metadata (no binding)"
                    continue
                }
                if let pairs = Self.constraintColumns(nav, source: table, target: target) {
                    links[key] = NavigationLink(name: nav.name, source: table, target: target, isCollection: nav.isCollection,
                                                join: .columns(pairs))
                    continue
                }
                // A link table, shared with the partner navigation when there is one.
                let partnerKey = nav.partner.map { targetSet + "/" + $0 }
                if let partnerKey, let partner = links[partnerKey], case .linkTable(let t, let reversed) = partner.join {
                    links[key] = NavigationLink(name: nav.name, source: table, target: target, isCollection: nav.isCollection,
                                                join: .linkTable(table: t, reversed: !reversed))
                    continue
                }
                let name = usedLinkNames.claim("l:" + key)
                linkTables.insert(name)
                links[key] = NavigationLink(name: nav.name, source: table, target: target, isCollection: nav.isCollection,
                                            join: .linkTable(table: name, reversed: false))
            }
        }
        self.links = links
        self.unlinkable = unlinkable
        self.linkTables = linkTables.sorted()
    }

    func table(forSet name: String) -> EntityTable? { tables[name] }

    /// The local link of navigation `name` from rows of `table`, or the reason there is none.
    func link(from table: EntityTable, navigation name: String) -> Result<NavigationLink, ODataStoreError> {
        let key = table.entitySet + "/" + name
        if let l = links[key] { return .success(l) }
        return .failure(ODataStoreError(.unsupported, unlinkable[key] ?? "\(table.entitySet) has no navigation property \(name)"))
    }

    /// The link tables rows of `table` take part in, and on which side (`src` or `dst`): the
    /// links to remove with a deleted row.
    func linkSides(of table: EntityTable) -> [(table: String, column: String)] {
        var out: [(table: String, column: String)] = []
        var seen: Set<String> = []
        for key in links.keys.sorted() {
            guard let link = links[key], link.source === table, case .linkTable(let name, let reversed) = link.join else { continue }
            let column = reversed ? "dst" : "src"
            if seen.insert(name + "|" + column).inserted { out.append((name, column)) }
        }
        return out
    }

    /// The column joins that point at `table`'s key columns from other tables' foreign keys:
    /// what must follow when a local key is replaced by the service's.
    func foreignKeys(to table: EntityTable) -> [(table: EntityTable, pairs: [(foreign: Column, key: Column)])] {
        var out: [(table: EntityTable, pairs: [(foreign: Column, key: Column)])] = []
        var seen: Set<String> = []
        for key in links.keys.sorted() {
            guard let link = links[key], link.target === table, case .columns(let pairs) = link.join,
                  pairs.allSatisfy({ table.keyColumns.contains($0.target) }) else { continue }
            let id = link.source.sqlName + "|" + pairs.map(\.source.sqlName).joined(separator: ",")
            guard link.source !== table || !pairs.allSatisfy({ $0.source.isKey }), seen.insert(id).inserted else { continue }
            out.append((link.source, pairs.map { (foreign: $0.source, key: $0.target) }))
        }
        return out
    }

    /// The foreign keys of `table`'s rows: column joins from its columns to the key columns
    /// of other tables (what a change of a row carries the keys of), with the navigation
    /// property whose referential constraint each one is.
    func foreignKeys(from table: EntityTable) -> [(navigation: String, target: EntityTable, pairs: [(foreign: Column, key: Column)])] {
        var out: [(navigation: String, target: EntityTable, pairs: [(foreign: Column, key: Column)])] = []
        var seen: Set<String> = []
        for key in links.keys.sorted() {
            guard let link = links[key], link.source === table, case .columns(let pairs) = link.join,
                  pairs.allSatisfy({ link.target.keyColumns.contains($0.target) }) else { continue }
            let id = link.target.sqlName + "|" + pairs.map(\.source.sqlName).joined(separator: ",")
            guard link.target !== table || !pairs.allSatisfy({ $0.source.isKey }), seen.insert(id).inserted else { continue }
            out.append((link.name, link.target, pairs.map { (foreign: $0.source, key: $0.target) }))
        }
        return out
    }

    /// Every statement that creates the tables and indexes (idempotent).
    var ddl: [String] {
        var out: [String] = []
        for name in tables.keys.sorted() { out += tables[name]!.ddl }
        for name in linkTables { out += NavigationLink.linkTableDDL(name) }
        out += secondaryIndexes.map(\.sql)
        return out
    }

    /// The indexes on the columns navigation joins compare (foreign keys), so navigation
    /// reads and $expand do not scan the target table: per index its table, name (unquoted)
    /// and `CREATE INDEX IF NOT EXISTS` statement. Nothing needs them to be correct, only
    /// fast, so a first download may drop those of the table it fills and make them after
    /// its last page (`OfflineDatabase.writePage`); opening a file makes missing ones.
    var secondaryIndexes: [(table: EntityTable, name: String, sql: String)] {
        var out: [(table: EntityTable, name: String, sql: String)] = []
        var indexed: Set<String> = []
        for key in links.keys.sorted() {
            guard let link = links[key], case .columns(let pairs) = link.join else { continue }
            let cols = pairs.map(\.target)
            if cols == link.target.keyColumns { continue }
            let indexName = link.target.sqlName + "@" + cols.map(\.sqlName).joined(separator: ",")
            guard indexed.insert(indexName).inserted else { continue }
            out.append((link.target, indexName,
                        "CREATE INDEX IF NOT EXISTS \(SQLName.quote(indexName)) ON \(link.target.quoted) (\(cols.map(\.quoted).joined(separator: ", ")))"))
        }
        return out
    }

    // MARK: - Building

    /// The entity set a navigation leads to: the binding, else the only set of the target type.
    private static func targetSet(of nav: NavigationProperty, from setName: String, model: ServiceModel) -> String? {
        if let set = model.entitySets[setName] {
            if let t = set.navigationBindings[nav.name] { return t }
            // Bindings through a derived type: "NS.Derived/Nav".
            for (path, t) in set.navigationBindings where path.hasSuffix("/" + nav.name) { return t }
        }
        let target = model.resolve(nav.targetType)
        let candidates = model.entitySets.values.filter { !$0.isSingleton && model.resolve($0.entityType) == target }
        return candidates.count == 1 ? candidates[0].name : nil
    }

    /// The column pairs of a referential constraint, when every property has a comparable column.
    private static func constraintColumns(_ nav: NavigationProperty, source: EntityTable, target: EntityTable) -> [(source: Column, target: Column)]? {
        guard !nav.referentialConstraints.isEmpty else { return nil }
        var pairs: [(source: Column, target: Column)] = []
        for c in nav.referentialConstraints {
            guard let s = source.column(c.property), let t = target.column(c.referencedProperty),
                  s.kind == t.kind, !s.isCollection, s.kind != .json, s.kind != .presence else { return nil }
            pairs.append((s, t))
        }
        return pairs
    }

    private static func makeTable(set: EntitySet, type: StructuredType, sqlName: String, model: ServiceModel) -> EntityTable {
        let derived = model.derivedTypes(of: type.qualifiedName).map(\.qualifiedName)
        var columns: [Column] = []
        var names = CaseInsensitiveNames()
        var seenPaths: Set<String> = []
        let keyPaths: [String: String] = {
            var d: [String: String] = [:]  // property path -> key name
            for t in model.lineage(of: type) where !t.key.isEmpty {
                for k in t.key { d[t.keyAliases[k] ?? k] = k }
                break
            }
            return d
        }()
        func add(_ property: StructuralProperty, prefix: [String], declaringType: String, depth: Int, visiting: Set<String>) {
            let path = prefix + [property.name]
            let pathText = path.joined(separator: "/")
            guard seenPaths.insert(pathText).inserted else { return }
            let ref = property.type
            let typeName = model.resolve(ref.name)
            let isKey = keyPaths[pathText] != nil
            func column(_ kind: ColumnKind, _ edm: EdmPrimitiveKind?) -> Column {
                Column(sqlName: names.claim(pathText), path: path, kind: kind, edm: edm, typeName: typeName,
                       isCollection: ref.isCollection, nullable: ref.nullable, isKey: isKey, declaringType: declaringType,
                       facets: PrimitiveValueCheck.Facets(ref))
            }
            if ref.isCollection {
                columns.append(column(.json, model.primitiveKind(of: typeName)))
                return
            }
            if let k = model.primitiveKind(of: typeName) {
                columns.append(column(ColumnKind.forPrimitive(k), k))
                return
            }
            if model.enumType(typeName) != nil {
                columns.append(column(.text, nil))
                return
            }
            guard let complex = model.structuredType(typeName), complex.kind == .complex else {
                columns.append(column(.json, nil))
                return
            }
            // Flatten unless too deep, recursive, open (dynamic members) or polymorphic (a derived
            // complex value would need columns of its own): keep those as JSON.
            if depth >= maxFlattenDepth || visiting.contains(typeName) || complex.isOpen || !model.derivedTypes(of: typeName).isEmpty {
                columns.append(column(.json, nil))
                return
            }
            columns.append(column(.presence, nil))
            for p in model.allProperties(of: complex) {
                add(p, prefix: path, declaringType: declaringType, depth: depth + 1, visiting: visiting.union([typeName]))
            }
        }
        for t in model.lineage(of: type).reversed() {
            for p in t.properties { add(p, prefix: [], declaringType: t.qualifiedName, depth: 0, visiting: []) }
        }
        for d in derived {
            guard let dt = model.structuredType(d) else { continue }
            for p in dt.properties { add(p, prefix: [], declaringType: d, depth: 0, visiting: []) }
        }
        var keyColumns: [Column] = []
        var keyNames: [String] = []
        for entry in model.keyProperties(of: type) {
            let path = type.keyAliases[entry.name] ?? model.lineage(of: type).lazy.compactMap { $0.keyAliases[entry.name] }.first ?? entry.name
            if let c = columns.first(where: { $0.pathText == path }) {
                keyColumns.append(c)
                keyNames.append(entry.name)
            }
        }
        return EntityTable(entitySet: set.name, isSingleton: set.isSingleton, entityType: type.qualifiedName, sqlName: sqlName,
                           columns: columns, keyColumns: keyColumns, keyNames: keyNames, derivedTypes: derived)
    }
}

/// Hands out names unique without regard to ASCII case (as SQLite compares identifiers):
/// the first claim keeps the name, later ones get `#2`, `#3`...
struct CaseInsensitiveNames {
    private var used: Set<String> = []

    mutating func claim(_ name: String) -> String {
        var candidate = name
        var n = 2
        while used.contains(Self.fold(candidate)) {
            candidate = name + "#\(n)"
            n += 1
        }
        used.insert(Self.fold(candidate))
        return candidate
    }

    private static func fold(_ s: String) -> String {
        String(decoding: s.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
