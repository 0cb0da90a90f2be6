/// A key the store made for an entity created offline whose key the service assigns, and the
/// key the service gave it once the create was uploaded (`Store.keyMappings()`,
/// `ods_store_key_mapping_at`). Both are resource paths relative to the service root, such as
/// `Categories(-1)` and `Categories(11)`.
public struct KeyMapping: Sendable, Equatable {
    /// The entity set of the entity.
    public var entitySet: String
    /// The path under the local key (what local requests used before the upload).
    public var localPath: String
    /// The path under the service's key; nil while the create waits for upload.
    public var serverPath: String?

    public init(entitySet: String, localPath: String, serverPath: String?) {
        self.entitySet = entitySet
        self.localPath = localPath
        self.serverPath = serverPath
    }
}
