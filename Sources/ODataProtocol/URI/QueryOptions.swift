/// The query options of a request (or of one `$expand` item), parsed.
///
/// V2 and V4 share one shape: `count` is V2 `$inlinecount=allpages|none` and V4
/// `$count=true|false`. System options this library does not interpret (`$deltatoken`,
/// `$schemaversion`) are kept verbatim in `otherSystemOptions`; custom options (no `$` or
/// `@`) in `customOptions`, both in the order written. V4 system option names compare
/// without case and may omit the `$` (`filter=`, `$OrderBy=`); they are stored under their
/// canonical names.
public struct QueryOptions: Hashable, Sendable {
    public var filter: FilterExpression?
    public var orderBy: [OrderByItem]?
    public var top: Int?
    public var skip: Int?
    public var select: [SelectItem]?
    public var expand: [ExpandItem]?
    public var count: Bool?
    public var skipToken: String?
    public var format: String?
    /// V4 `$search`.
    public var search: SearchExpression?
    /// `$levels` (inside `$expand` options only).
    public var levels: ExpandLevels?
    /// V4 `$compute=expr as Name,…` (4.01 Part 2, 5.1.10).
    public var compute: [ComputeItem]?
    /// V4 `$apply` (Data Aggregation extension): the transformations in order.
    public var apply: [ApplyTransformation]?
    /// V4 `$index=n` (position in an ordered collection, for POST).
    public var index: Int?
    /// V4 `$id` (with `$entity` and `$ref`), as decoded text.
    public var id: String?
    /// V4 parameter aliases `@p=value`, values parsed as expressions.
    public var aliases: [ParameterAlias]
    public var customOptions: [CustomOption]
    public var otherSystemOptions: [CustomOption]

    public init(filter: FilterExpression? = nil, orderBy: [OrderByItem]? = nil, top: Int? = nil, skip: Int? = nil,
                select: [SelectItem]? = nil, expand: [ExpandItem]? = nil, count: Bool? = nil,
                skipToken: String? = nil, format: String? = nil, search: SearchExpression? = nil, levels: ExpandLevels? = nil,
                aliases: [ParameterAlias] = [], customOptions: [CustomOption] = [],
                otherSystemOptions: [CustomOption] = [], compute: [ComputeItem]? = nil,
                apply: [ApplyTransformation]? = nil, index: Int? = nil, id: String? = nil) {
        self.filter = filter
        self.orderBy = orderBy
        self.top = top
        self.skip = skip
        self.select = select
        self.expand = expand
        self.count = count
        self.skipToken = skipToken
        self.format = format
        self.search = search
        self.levels = levels
        self.aliases = aliases
        self.customOptions = customOptions
        self.otherSystemOptions = otherSystemOptions
        self.compute = compute
        self.apply = apply
        self.index = index
        self.id = id
    }

    public var isEmpty: Bool { self == QueryOptions() }
}

/// A query option kept as decoded text.
public struct CustomOption: Hashable, Sendable {
    public var name: String
    public var value: String
    public init(name: String, value: String) { self.name = name; self.value = value }
}

/// `@name=value` (V4).
public struct ParameterAlias: Hashable, Sendable {
    public var name: String
    public var value: FilterExpression
    public init(name: String, value: FilterExpression) { self.name = name; self.value = value }
}

public enum ExpandLevels: Hashable, Sendable {
    case count(Int)
    case max
}

/// One `$select` item: a path such as `Name`, `Address/City`, `NS.Derived/Extra`, `*`, `NS.*`,
/// an annotation `@Core.Messages` (kept with its `@`), an operation `NS.Function(P1,P2)`
/// (`parameters` names its overload), with V4 nested options on collection-valued and complex
/// properties: `Addresses($filter=…;$top=5)`.
public struct SelectItem: Hashable, Sendable {
    public var path: [String]
    public var position: Int
    /// `NS.Function(P1,P2)`: the parameter names that pick the overload.
    public var parameters: [String]?
    /// Nested options (`$filter`, `$search`, `$count`, `$orderby`, `$skip`, `$top`, `$select`,
    /// `$compute`, aliases).
    public var options: QueryOptions
    public init(path: [String], position: Int = 0, parameters: [String]? = nil, options: QueryOptions = QueryOptions()) {
        self.path = path
        self.position = position
        self.parameters = parameters
        self.options = options
    }
    public static func == (a: SelectItem, b: SelectItem) -> Bool {
        a.path == b.path && a.parameters == b.parameters && a.options == b.options
    }
    public func hash(into h: inout Hasher) { h.combine(path); h.combine(parameters); h.combine(options) }
}

/// One `$compute` item (or item of the `compute` transformation): `Price mul Qty as Total`.
public struct ComputeItem: Hashable, Sendable {
    public var expression: FilterExpression
    public var alias: String
    public init(expression: FilterExpression, alias: String) { self.expression = expression; self.alias = alias }
}

/// One `$expand` item.
///
/// V4: `Nav`, `Nav/NS.Derived`, `Complex/Nav`, `*`, `Nav/$ref`, `Nav/$count`, `$value`,
/// `@NS.EntityTerm` (an annotation, kept with its `@`), with nested options
/// `Nav($select=…;$filter=…;$expand=…;$levels=2)` (after `$ref` only `$filter`, `$search`,
/// `$orderby`, `$skip`, `$top`, `$count`; after `$count` only `$filter` and `$search`).
/// V2: `Nav1/Nav2` expands `Nav1` and, inside it, `Nav2` (the path is kept as written).
public struct ExpandItem: Hashable, Sendable {
    public var path: [String]
    public var isRef: Bool
    public var isCount: Bool
    public var options: QueryOptions
    public var position: Int

    public init(path: [String], isRef: Bool = false, isCount: Bool = false, options: QueryOptions = QueryOptions(),
                position: Int = 0) {
        self.path = path
        self.isRef = isRef
        self.isCount = isCount
        self.options = options
        self.position = position
    }

    public static func == (a: ExpandItem, b: ExpandItem) -> Bool {
        a.path == b.path && a.isRef == b.isRef && a.isCount == b.isCount && a.options == b.options
    }
    public func hash(into h: inout Hasher) { h.combine(path); h.combine(isRef); h.combine(isCount); h.combine(options) }
}

/// A parsed request: the resource path (relative to the service root) and its query options.
public struct ResourceRequest: Hashable, Sendable {
    public var segments: [PathSegment]
    public var options: QueryOptions

    public init(segments: [PathSegment], options: QueryOptions = QueryOptions()) {
        self.segments = segments
        self.options = options
    }
}
