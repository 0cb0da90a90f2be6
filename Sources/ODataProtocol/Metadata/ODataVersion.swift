/// The OData protocol version a service speaks, as far as this library cares:
/// V2 (also what SAP Gateway calls 2.0; V1 documents load as V2) and V4 (4.0 and 4.01).
public enum ODataVersion: Int, Sendable, Hashable, CustomStringConvertible {
    case v2 = 2
    case v4 = 4

    public var description: String { self == .v2 ? "2.0" : "4.0" }
}
