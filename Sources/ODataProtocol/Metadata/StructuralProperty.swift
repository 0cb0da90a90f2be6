/// A structural (non-navigation) property of an entity or complex type.
public struct StructuralProperty: Sendable, Hashable {
    public var name: String
    public var type: TypeReference
    /// V2 `m:FC_*`/`sap:*` and V4 annotations are not modelled; SAP's `sap:` attributes that
    /// matter to clients are kept here by local name (e.g. `"creatable": "false"`).
    public var sapAnnotations: [String: String]
    /// V2 `ConcurrencyMode="Fixed"`: the property is part of the entity's ETag.
    public var concurrencyToken: Bool
    /// `DefaultValue` as written in the document.
    public var defaultValue: String?

    public init(name: String, type: TypeReference, sapAnnotations: [String: String] = [:],
                concurrencyToken: Bool = false, defaultValue: String? = nil) {
        self.name = name
        self.type = type
        self.sapAnnotations = sapAnnotations
        self.concurrencyToken = concurrencyToken
        self.defaultValue = defaultValue
    }
}
