/// Header fields of a MIME part or of an HTTP message inside a batch: order kept, names
/// compared case-insensitively (RFC 9110), values trimmed of surrounding whitespace.
public struct BatchHeaders: Sendable, Equatable, Sequence {
    public typealias Field = (name: String, value: String)
    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) { self.fields = fields }

    /// The first value of `name` (case-insensitive), if present.
    public subscript(name: String) -> String? {
        let n = name.lowercased()
        return fields.first { $0.name.lowercased() == n }?.value
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name, value))
    }

    public mutating func remove(_ name: String) {
        let n = name.lowercased()
        fields.removeAll { $0.name.lowercased() == n }
    }

    public var isEmpty: Bool { fields.isEmpty }
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    public static func == (a: BatchHeaders, b: BatchHeaders) -> Bool {
        a.fields.elementsEqual(b.fields) { $0.name.lowercased() == $1.name.lowercased() && $0.value == $1.value }
    }
}
