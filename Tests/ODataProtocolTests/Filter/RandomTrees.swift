@testable import ODataProtocol

/// SplitMix64: a small, fast, seedable generator so every run sees the same cases. Shared by
/// every randomized test of the target (round trips, fuzzing, the SWAR scan).
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A number in `0..<n` (0 when `n` is not positive).
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}

/// The model the random trees are typed against: one entity type with a property of each
/// interesting kind, a complex property, and (V4) collections, an enum and a navigation.
enum RandomTreeModel {
    static func model(_ v: ODataVersion) -> ServiceModel {
        var props: [StructuralProperty] = [
            .init(name: "Id", type: TypeReference(name: "Edm.Guid", nullable: false)),
            .init(name: "Name", type: TypeReference(name: "Edm.String")),
            .init(name: "Price", type: TypeReference(name: "Edm.Decimal")),
            .init(name: "Qty", type: TypeReference(name: "Edm.Int32")),
            .init(name: "Big", type: TypeReference(name: "Edm.Int64")),
            .init(name: "Ratio", type: TypeReference(name: "Edm.Double")),
            .init(name: "Flag", type: TypeReference(name: "Edm.Boolean")),
            .init(name: "When", type: TypeReference(name: "Edm.DateTimeOffset")),
            .init(name: "Home", type: TypeReference(name: "Test.Address")),
        ]
        var navs: [NavigationProperty] = [NavigationProperty(name: "Parent", targetType: "Test.Item", isCollection: false)]
        var enums: [String: EnumType] = [:]
        if v == .v4 {
            props += [
                .init(name: "Day", type: TypeReference(name: "Edm.Date")),
                .init(name: "Tags", type: TypeReference(name: "Edm.String", isCollection: true)),
                .init(name: "Color", type: TypeReference(name: "Test.Color")),
            ]
            navs.append(NavigationProperty(name: "Children", targetType: "Test.Item", isCollection: true))
            enums["Test.Color"] = EnumType(namespace: "Test", name: "Color", isFlags: true,
                                           members: [("Red", 1), ("Green", 2), ("Blue", 4)])
        } else {
            props.append(.init(name: "Stamp", type: TypeReference(name: "Edm.DateTime")))
        }
        let item = StructuredType(kind: .entity, namespace: "Test", name: "Item", key: ["Id"], properties: props,
                                  navigationProperties: navs)
        let address = StructuredType(kind: .complex, namespace: "Test", name: "Address", properties: [
            .init(name: "City", type: TypeReference(name: "Edm.String")),
            .init(name: "Zip", type: TypeReference(name: "Edm.Int32")),
        ])
        // Bound functions for V4 expressions: Test.Score(Factor) on an item, Test.Top() on
        // a collection of items.
        var operations: [String: [Operation]] = [:]
        if v == .v4 {
            operations["Test.Score"] = [Operation(kind: .function, name: "Test.Score", qualifiedName: "Test.Score", isBound: true,
                                                  parameters: [.init(name: "item", type: TypeReference(name: "Test.Item")),
                                                               .init(name: "Factor", type: TypeReference(name: "Edm.Int32"))],
                                                  returnType: TypeReference(name: "Edm.Int32"), httpMethod: "GET")]
            operations["Test.Top"] = [Operation(kind: .function, name: "Test.Top", qualifiedName: "Test.Top", isBound: true,
                                                isComposable: true,
                                                parameters: [.init(name: "items", type: TypeReference(name: "Test.Item", isCollection: true))],
                                                returnType: TypeReference(name: "Test.Item"), httpMethod: "GET")]
        }
        return ServiceModel(version: v, namespaces: ["Test"], types: ["Test.Item": item, "Test.Address": address],
                            enumTypes: enums, entitySets: ["Items": EntitySet(name: "Items", entityType: "Test.Item")],
                            operations: operations)
    }
}

/// Generates random, well-typed `$filter` trees for one dialect.
struct RandomTrees {
    var rng: SeededRandom
    let version: ODataVersion
    /// Range variables in scope (all of element type Test.Item in `Children/any(...)`, or
    /// Edm.String in `Tags/any(...)`).
    var itemVariables: [String] = []
    var stringVariables: [String] = []

    init(seed: UInt64, version: ODataVersion) {
        rng = SeededRandom(seed: seed)
        self.version = version
    }

    func e(_ k: FilterExpression.Kind) -> FilterExpression { FilterExpression(k) }

    mutating func path(_ names: [String]) -> FilterExpression {
        if let v = itemVariables.last, rng.chance(0.5) {
            return e(.member(MemberPath(root: .rangeVariable(v), segments: names.map { .property($0) })))
        }
        if version == .v4 && rng.chance(0.1) {
            return e(.member(MemberPath(root: rng.chance(0.5) ? .it : .this, segments: names.map { .property($0) })))
        }
        if version == .v4 && rng.chance(0.05) {
            // A key predicate and a composed bound function on the way.
            let head: [MemberPath.Segment] = rng.chance(0.5) ? [.keyed("Children", .positional(.literal(.guid(guid()))))]
                : [.property("Children"), .function("Test.Top", [])]
            return e(.member(MemberPath(segments: head + names.map { .property($0) })))
        }
        if rng.chance(0.1) {
            return e(.member(MemberPath(segments: [.property("Parent")] + names.map { .property($0) })))
        }
        return e(.member(MemberPath(segments: names.map { .property($0) })))
    }

    mutating func boolean(_ depth: Int) -> FilterExpression {
        if depth <= 0 {
            switch rng.int(0...2) {
            case 0: return e(.literal(.boolean(rng.chance(0.5))))
            case 1: return path(["Flag"])
            default: return e(.binary(.eq, path(["Name"]), e(.literal(.null))))
            }
        }
        let d = depth - 1
        var choices = 10
        if version == .v4 { choices = 19 }
        switch rng.int(0...choices) {
        case 0: return e(.binary(rng.chance(0.5) ? .and : .or, boolean(d), boolean(d)))
        case 1: return e(.unary(.not, boolean(d)))
        case 2, 3:
            let op = rng.pick([BinaryOperator.eq, .ne, .gt, .ge, .lt, .le])
            return e(.binary(op, number(d), number(d)))
        case 4: return e(.binary(rng.pick([.eq, .ne, .lt]), string(d), string(d)))
        case 5:
            let fn = version == .v2 ? rng.pick(["substringof", "startswith", "endswith"]) : rng.pick(["contains", "startswith", "endswith"])
            return e(.call(fn, [string(d), string(d)]))
        case 6: return e(.binary(rng.pick([.eq, .gt]), temporal(d), temporal(d)))
        case 7: return e(.binary(.eq, path(["Id"]), e(.literal(.guid(guid())))))
        case 8: return e(.binary(.ne, path(["Flag"]), boolean(d)))
        case 9: return e(.typeFunction(.isof, rng.chance(0.5) ? path(["Home"]) : nil, rng.chance(0.5) ? "Test.Item" : "Test.Address"))
        case 10: return e(.binary(.eq, boolean(d), e(.literal(.boolean(true)))))
        case 11:
            // `in (literals)`, or a JSON array of expressions.
            var items: [FilterExpression] = []
            let literals = rng.chance(0.6)
            for _ in 0..<rng.int(literals ? 1...4 : 2...4) { items.append(literals ? e(.literal(numberLiteral())) : number(d)) }
            return e(.inList(number(d), items))
        case 12: return e(.binary(.has, path(["Color"]), e(.literal(.enumMember(type: "Test.Color", value: rng.pick(["Red", "Green,Blue", "4"]))))))
        case 13:
            let v = "c\(itemVariables.count)"
            itemVariables.append(v)
            let p = boolean(d)
            itemVariables.removeLast()
            let kind: Lambda.Kind = rng.chance(0.5) ? .any : .all
            return e(.member(MemberPath(segments: [.property("Children")], lambda: Lambda(kind: kind, variable: v, predicate: p))))
        case 14:
            let v = "t\(stringVariables.count)"
            stringVariables.append(v)
            let p = e(.binary(.eq, e(.member(MemberPath(root: .rangeVariable(v), segments: []))), string(d)))
            stringVariables.removeLast()
            return e(.member(MemberPath(segments: [.property("Tags")], lambda: Lambda(kind: .any, variable: v, predicate: p))))
        case 15:
            // Membership in a collection, and collections against JSON arrays.
            switch rng.int(0...2) {
            case 0: return e(.inList(string(d), [path(["Tags"])]))
            case 1: return e(.binary(rng.pick([.eq, .ne]), path(["Tags"]), e(.array((0..<rng.int(0...3)).map { _ in string(d) }))))
            default: return e(.call(rng.pick(["hassubset", "hassubsequence"]), [path(["Tags"]), e(.array([e(.literal(.string(stringLiteral())))]))]))
            }
        case 16:
            // A filter segment inside a path, and $count of it.
            let inner = boolean(d)
            return e(.binary(.gt, e(.member(MemberPath(segments: [.property("Children"), .filter(inner), .count]))), e(.literal(.integer("1")))))
        case 17:
            // A bound function in an expression.
            let f = e(.member(MemberPath(root: rng.chance(0.3) ? .it : .implicit, segments: [.function("Test.Score", [FunctionArgument(name: "Factor", value: intExpr(d))])])))
            return e(.binary(.ge, f, number(d)))
        case 18:
            // A JSON object against a complex value; an annotation value (dynamic).
            if rng.chance(0.5) {
                return e(.binary(.ne, path(["Home"]), e(.object([ObjectMember(name: "City", value: string(d)), ObjectMember(name: "Zip", value: intExpr(d))]))))
            }
            return e(.binary(.eq, e(.member(MemberPath(segments: [.property("Name"), .annotation("Core.Description")]))), string(d)))
        default:
            // case(cond:value, …)
            return e(.binary(.lt, e(.call("case", [boolean(d), number(d), e(.literal(.boolean(true))), number(d)])), number(d)))
        }
    }

    mutating func numberLiteral() -> Literal {
        let n = rng.int(-100_000...100_000)
        let frac = "\(n).\(rng.int(0...999))"
        switch rng.int(0...(version == .v2 ? 7 : 4)) {
        case 0, 1: return .integer(String(n))
        case 2: return .fractional(frac)
        case 3: return .fractional("\(rng.int(1...9)).\(rng.int(0...9))E\(rng.pick(["+", "-", ""]))\(rng.int(1...30))")
        case 4: return version == .v4 ? .integer(String(Int64(n) * 1_000_000_007)) : .int64(String(Int64(n) * 1_000_000_007))
        case 5: return .decimal(frac)
        case 6: return .double(frac)
        default: return .single(frac)
        }
    }

    mutating func number(_ depth: Int) -> FilterExpression {
        if depth <= 0 || rng.chance(0.3) {
            switch rng.int(0...3) {
            case 0: return e(.literal(numberLiteral()))
            case 1: return path([rng.pick(["Price", "Qty", "Big", "Ratio"])])
            case 2: return path(["Home", "Zip"])
            default: return e(.literal(numberLiteral()))
            }
        }
        let d = depth - 1
        switch rng.int(0...6) {
        case 0, 1: return e(.binary(rng.pick([.add, .sub, .mul, .div, .mod]), number(d), number(d)))
        case 2: return e(.unary(.negate, number(d)))
        case 3: return e(.call("length", [string(d)]))
        case 4: return e(.call(rng.pick(["round", "floor", "ceiling"]), [number(d)]))
        case 5: return e(.call(rng.pick(["year", "month", "day", "hour", "minute", "second"]), [path(["When"])]))
        default: return e(.call("indexof", [string(d), string(d)]))
        }
    }

    mutating func stringLiteral() -> String {
        let alphabet = ["a", "Z", "0", " ", "'", "''", "&", "%", "+", "#", "=", "/", "?", "(", ")", ",", ";", "ß", "日本", "😀", "\"", "\\", "$", "@"]
        var s = ""
        for _ in 0..<rng.int(0...8) { s += rng.pick(alphabet) }
        return s
    }

    mutating func string(_ depth: Int) -> FilterExpression {
        if let v = stringVariables.last, rng.chance(0.3) {
            return e(.member(MemberPath(root: .rangeVariable(v), segments: [])))
        }
        if depth <= 0 || rng.chance(0.3) {
            switch rng.int(0...2) {
            case 0: return e(.literal(.string(stringLiteral())))
            case 1: return path(["Name"])
            default: return path(["Home", "City"])
            }
        }
        let d = depth - 1
        switch rng.int(0...4) {
        case 0: return e(.call(rng.pick(["tolower", "toupper", "trim"]), [string(d)]))
        case 1: return e(.call("concat", [string(d), string(d)]))
        case 2: return e(.call("substring", rng.chance(0.5) ? [string(d), intExpr(d)] : [string(d), intExpr(d), intExpr(d)]))
        case 3 where version == .v2: return e(.call("replace", [string(d), string(d), string(d)]))
        default: return e(.literal(.string(stringLiteral())))
        }
    }

    mutating func intExpr(_ depth: Int) -> FilterExpression {
        rng.chance(0.5) ? e(.literal(.integer(String(rng.int(0...50))))) : path(["Qty"])
    }

    mutating func guid() -> String {
        let hex = Array("0123456789abcdefABCDEF")
        var s = ""
        for i in 0..<36 { s.append([8, 13, 18, 23].contains(i) ? "-" : rng.pick(hex)) }
        return s
    }

    mutating func temporal(_ depth: Int) -> FilterExpression {
        let y = rng.int(1900...2100), m = rng.int(1...12), d = rng.int(1...28), h = rng.int(0...23), mi = rng.int(0...59)
        func two(_ x: Int) -> String { x < 10 ? "0\(x)" : "\(x)" }
        let date = "\(y)-\(two(m))-\(two(d))"
        let time = "\(two(h)):\(two(mi)):\(two(rng.int(0...59)))"
        let offset = rng.pick(["Z", "+01:00", "-08:00"])
        if version == .v2 {
            switch rng.int(0...3) {
            case 0: return path(["Stamp"])
            case 1: return e(.literal(.dateTime(date + "T" + time)))
            case 2: return e(.literal(.dateTimeOffset(date + "T" + time + offset)))
            default: return path(["When"])
            }
        }
        switch rng.int(0...4) {
        case 0: return path(["When"])
        case 1: return e(.literal(.dateTimeOffset(date + "T" + time + offset)))
        case 2: return e(.call("now", []))
        case 3: return e(.call("date", [path(["When"])]))
        default: return e(.literal(.date(date)))
        }
    }
}
