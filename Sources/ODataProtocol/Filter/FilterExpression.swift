/// A node of a `$filter` / `$orderby` expression tree, for both V2 and V4.
///
/// Equality and hashing compare the tree's shape and content only: `position` (where the node
/// starts in the parsed text) and `type` (filled in by `FilterTypeChecker`) are ignored, so a
/// tree printed with `FilterPrinter` and parsed again compares equal to the original.
/// Grouping parentheses leave no node: `(a eq 1)` and `a eq 1` give equal trees.
public struct FilterExpression: Hashable, Sendable {
    public indirect enum Kind: Hashable, Sendable {
        case literal(Literal)
        /// A parameter alias `@p` (its value is a query option of the request).
        case alias(String)
        /// A property path, optionally ending in a lambda (`Items/any(d:d/Qty gt 1)`).
        case member(MemberPath)
        case unary(UnaryOperator, FilterExpression)
        case binary(BinaryOperator, FilterExpression, FilterExpression)
        /// V4 `x in (a, b, c)`.
        case inList(FilterExpression, [FilterExpression])
        /// A canonical function call such as `startswith(Name,'A')` or `geo.distance(a,b)`.
        case call(String, [FilterExpression])
        /// `cast`/`isof` with an optional operand (the implicit `$it` when absent) and the
        /// qualified type name (V2 writes it quoted, V4 bare).
        case typeFunction(TypeFunction, FilterExpression?, String)
        /// V4 JSON array `[1,"a",Name]` (URL Conventions 5.1.1.14.2; items are expressions,
        /// JSON strings become string literals).
        case array([FilterExpression])
        /// V4 JSON object `{"Street":"Main","City":City}` (members in the order written).
        case object([ObjectMember])
    }

    public let kind: Kind
    /// 0-based offset (in the parsed text, in UTF-8 bytes of the decoded text while parsing;
    /// converted to characters in errors) where the node starts.
    public var position: Int
    /// The node's type, set by `FilterTypeChecker`; nil in a syntactic parse.
    public var type: ExpressionType?

    /// Height of the tree below this node (a leaf has height 1); bounds recursion in parsers,
    /// printers and checkers.
    public let height: Int

    public init(_ kind: Kind, position: Int = 0, type: ExpressionType? = nil) {
        self.kind = kind
        self.position = position
        self.type = type
        self.height = 1 + Self.childHeight(kind)
    }

    private static func childHeight(_ kind: Kind) -> Int {
        switch kind {
        case .literal, .alias: return 0
        case .member(let m): return m.childHeight
        case .unary(_, let e): return e.height
        case .binary(_, let a, let b): return max(a.height, b.height)
        case .inList(let a, let l): return l.reduce(a.height) { max($0, $1.height) }
        case .call(_, let args): return args.reduce(0) { max($0, $1.height) }
        case .typeFunction(_, let e, _): return e?.height ?? 0
        case .array(let items): return items.reduce(0) { max($0, $1.height) }
        case .object(let members): return members.reduce(0) { max($0, $1.value.height) }
        }
    }

    /// Compares iteratively along left spines (`a or b or c …` nests to the left), so long
    /// operator chains do not recurse once per operator.
    public static func == (a: FilterExpression, b: FilterExpression) -> Bool {
        var x = a, y = b
        while true {
            switch (x.kind, y.kind) {
            case (.binary(let o1, let l1, let r1), .binary(let o2, let l2, let r2)):
                guard o1 == o2, r1 == r2 else { return false }
                x = l1
                y = l2
            case (.inList(let l1, let i1), .inList(let l2, let i2)):
                guard i1 == i2 else { return false }
                x = l1
                y = l2
            default:
                return x.kind == y.kind
            }
        }
    }

    public func hash(into h: inout Hasher) {
        var x = self
        while true {
            switch x.kind {
            case .binary(let op, let l, let r):
                h.combine(0xB1)
                h.combine(op)
                h.combine(r)
                x = l
            case .inList(let l, let items):
                h.combine(0x1B)
                h.combine(items)
                x = l
            default:
                h.combine(x.kind)
                return
            }
        }
    }

    /// The left spine below and including this node: each element's left operand is the next
    /// element (binary operators and `in`), the last element is not a binary operator or `in`.
    /// Lets printers and checkers walk operator chains in a loop instead of recursing.
    public var leftSpine: [FilterExpression] {
        var out: [FilterExpression] = [self]
        var x = self
        while true {
            switch x.kind {
            case .binary(_, let l, _), .inList(let l, _):
                out.append(l)
                x = l
            default:
                return out
            }
        }
    }
}

public enum UnaryOperator: String, Hashable, Sendable, CaseIterable {
    case negate = "-"
    case not = "not"
}

/// Binary operators with their precedence (higher binds tighter) as given by the OData V4
/// URL Conventions, section "Operator Precedence" (V2 has the same order, without `has`,
/// `in` and `divby`). All binary operators are left-associative.
public enum BinaryOperator: String, Hashable, Sendable, CaseIterable {
    case or, and
    case eq, ne
    case gt, ge, lt, le
    case add, sub
    case mul, div, divby, mod
    case has

    public var precedence: Int {
        switch self {
        case .or: return 1
        case .and: return 2
        case .eq, .ne: return 3
        case .gt, .ge, .lt, .le: return 4
        case .add, .sub: return 5
        case .mul, .div, .divby, .mod: return 6
        case .has: return 8
        }
    }

    public var isLogical: Bool { self == .and || self == .or }
    public var isComparison: Bool { precedence == 3 || precedence == 4 }
    public var isArithmetic: Bool { precedence == 5 || precedence == 6 }
}

public enum TypeFunction: String, Hashable, Sendable {
    case cast, isof
}

/// A path of members in an expression: `Address/City`, `$it/Name`, `d/Price` (a lambda range
/// variable), `NS.Derived/Extra` (type cast), `Items/$count`, `Tags/any(t:t eq 'x')`.
public struct MemberPath: Hashable, Sendable {
    public enum Root: Hashable, Sendable {
        /// Relative to the current instance (`$it`), not written.
        case implicit
        /// `$it` written out.
        case it
        /// `$root/…`: the path starts at the service root (an entity set with a key).
        case root
        /// A lambda range variable in scope.
        case rangeVariable(String)
        /// V4 `$this`: the instance the query option is evaluated on (in a nested `$filter` of
        /// `$expand`/`$select`, the expanded or selected item; at the top level `$it`).
        case this
        /// A parameter alias whose value is followed by a path: `@a/Street`.
        case alias(String)
    }
    public enum Segment: Hashable, Sendable {
        case property(String)
        case typeCast(String)
        /// V4 `/$count` on a collection.
        case count
        /// A navigation (or, after `$root`, an entity set) with a key predicate: `Items(1)`,
        /// `$root/Employees('A1245')`. Unqualified names with literal arguments parse as this
        /// even when they call a bound function; the schema check tells them apart.
        case keyed(String, SegmentArguments)
        /// V4 bound (or, after `$root`, unbound) function call, qualified or not:
        /// `Model.BestProduct()`, `ProductsByColor(color=@c)`, `$root/TheMostPopular()`.
        /// Parameter values are any expressions (JSON arrays and objects too).
        case function(String, [FunctionArgument])
        /// V4 annotation value `@Measures.Currency` or `@Core.Messages#Qualifier` (without `@`).
        case annotation(String)
        /// V4 filter segment `/$filter(expr)` on a collection (URL Conventions 4.12); also how
        /// `$count($filter=expr)` parses (as `/$filter(expr)/$count`).
        case filter(FilterExpression)
        /// A key predicate on the collection the previous segment gives: `$filter(…)(1)`,
        /// `ProductsByColor(color='red')(1)`.
        case key(SegmentArguments)
    }

    public var root: Root
    public var segments: [Segment]
    public var lambda: Lambda?

    public init(root: Root = .implicit, segments: [Segment], lambda: Lambda? = nil) {
        self.root = root
        self.segments = segments
        self.lambda = lambda
    }

    /// Height of the expressions inside the path (function arguments, filter segments, the
    /// lambda predicate).
    var childHeight: Int {
        var h = lambda?.predicate?.height ?? 0
        for s in segments {
            switch s {
            case .function(_, let args): for a in args { h = max(h, a.value.height) }
            case .filter(let e): h = max(h, e.height)
            default: break
            }
        }
        return h
    }
}

/// A named parameter of a function call in an expression: `Word1=Name`, `colors=["red"]`.
public struct FunctionArgument: Hashable, Sendable {
    public var name: String
    public var value: FilterExpression
    public init(name: String, value: FilterExpression) { self.name = name; self.value = value }
}

/// A member of a JSON object literal.
public struct ObjectMember: Hashable, Sendable {
    public var name: String
    public var value: FilterExpression
    public init(name: String, value: FilterExpression) { self.name = name; self.value = value }
}

/// A V4 lambda `any(v: predicate)` / `all(v: predicate)`; `any()` has neither.
public struct Lambda: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable { case any, all }
    public var kind: Kind
    public var variable: String?
    public var predicate: FilterExpression?

    public init(kind: Kind, variable: String?, predicate: FilterExpression?) {
        self.kind = kind
        self.variable = variable
        self.predicate = predicate
    }
}

/// The type of an expression node after type checking.
public indirect enum ExpressionType: Hashable, Sendable, CustomStringConvertible {
    case primitive(EdmPrimitiveKind)
    /// A V4 enumeration (qualified name).
    case enumeration(String)
    /// An entity or complex type (qualified name).
    case structured(String)
    case collection(ExpressionType)
    /// The `null` literal: compatible with every type.
    case null

    public var description: String {
        switch self {
        case .primitive(let k): return k.rawValue
        case .enumeration(let n), .structured(let n): return n
        case .collection(let e): return "Collection(\(e))"
        case .null: return "null"
        }
    }
}
