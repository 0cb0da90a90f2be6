/// A JSON object that keeps its members in document order and offers keyed lookup.
///
/// Keys are unique: setting an existing key replaces its value in place (the position is kept).
/// Lookups scan linearly while the object is small and use a hash index once it grows past
/// `indexThreshold` members. Equality ignores member order (JSON objects are unordered sets of
/// members), but iteration, `keys` and serialization follow insertion order.
public struct JSONObject: Sendable, Equatable {
    public typealias Member = (key: String, value: JSONValue)

    /// Members in order.
    public private(set) var members: [Member]
    private var index: [String: Int]?
    private static var indexThreshold: Int { 12 }

    public init() { members = [] }

    public init(_ members: some Sequence<Member>) {
        self.members = []
        for m in members { self[m.key] = m.value }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    /// Position of `key` in `members`, if present.
    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        for i in members.indices where members[i].key == key { return i }
        return nil
    }

    public subscript(key: String) -> JSONValue? {
        get {
            guard let i = position(of: key) else { return nil }
            return members[i].value
        }
        set {
            if let i = position(of: key) {
                if let newValue { members[i].value = newValue } else { remove(at: i) }
            } else if let newValue {
                append(key: key, value: newValue)
            }
        }
    }

    /// Appends a member whose key the caller knows to be new (the parser checks).
    mutating func append(key: String, value: JSONValue) {
        members.append((key, value))
        if index != nil {
            index?[key] = members.count - 1
        } else if members.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let i = position(of: key) else { return nil }
        let v = members[i].value
        remove(at: i)
        return v
    }

    private mutating func remove(at i: Int) {
        members.remove(at: i)
        if index != nil { rebuildIndex() }
    }

    private mutating func rebuildIndex() {
        guard members.count > Self.indexThreshold else { index = nil; return }
        var d = [String: Int](minimumCapacity: members.count)
        for (i, m) in members.enumerated() { d[m.key] = i }
        index = d
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.count == b.count else { return false }
        for m in a.members {
            guard let other = b[m.key], other == m.value else { return false }
        }
        return true
    }
}

extension JSONObject: Sequence {
    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }
}
