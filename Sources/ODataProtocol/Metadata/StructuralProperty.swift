/// A structural (non-navigation) property of an entity or complex type.
public struct StructuralProperty: Sendable, Hashable {
    public var name: String
    public var type: TypeReference
    /// V2 `m:FC_*`/`sap:*` and V4 annotations are not modelled; SAP's `sap:` attributes that
    /// matter to clients are kept here by local name (e.g. `"creatable": "false"`).
    public var sapAnnotations: [String: String]

    public init(name: String, type: TypeReference, sapAnnotations: [String: String] = [:]) {
        self.name = name
        self.type = type
        self.sapAnnotations = sapAnnotations
    }
}
