/// The query options of a request (or of one `$expand` item), parsed.
///
/// V2 and V4 share one shape: `count` is V2 `$inlinecount=allpages|none` and V4
/// `$count=true|false`. Options this library does not interpret (`$deltatoken`, `$apply`,
/// `$compute`, ...) are kept verbatim in `otherSystemOptions`; custom options (no `$` or `@`)
/// in `customOptions`, both in the order written.
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
    /// `$search`, kept as text.
    public var search: String?
    /// `$levels` (inside `$expand` options only).
    public var levels: ExpandLevels?
    /// V4 parameter aliases `@p=value`, values parsed as expressions.
    public var aliases: [ParameterAlias]
    public var customOptions: [CustomOption]
    public var otherSystemOptions: [CustomOption]

    public init(filter: FilterExpression? = nil, orderBy: [OrderByItem]? = nil, top: Int? = nil, skip: Int? = nil,
                select: [SelectItem]? = nil, expand: [ExpandItem]? = nil, count: Bool? = nil,
                skipToken: String? = nil, format: String? = nil, search: String? = nil, levels: ExpandLevels? = nil,
                aliases: [ParameterAlias] = [], customOptions: [CustomOption] = [],
                otherSystemOptions: [CustomOption] = []) {
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

/// One `$select` item: a path such as `Name`, `Address/City`, `NS.Derived/Extra`, `*`, `NS.*`.
public struct SelectItem: Hashable, Sendable {
    public var path: [String]
    public var position: Int
    public init(path: [String], position: Int = 0) { self.path = path; self.position = position }
    public static func == (a: SelectItem, b: SelectItem) -> Bool { a.path == b.path }
    public func hash(into h: inout Hasher) { h.combine(path) }
}

/// One `$expand` item.
///
/// V4: `Nav`, `Nav/NS.Derived`, `Complex/Nav`, `*`, `Nav/$ref`, `Nav/$count`, with nested
/// options `Nav($select=…;$filter=…;$expand=…;$levels=2)`. V2: `Nav1/Nav2` expands `Nav1`
/// and, inside it, `Nav2` (the path is kept as written).
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
