/// What changed in one entity set's local data (offline and mixed stores), as an observer
/// receives it (`Store.observe`, docs/observers.md).
public enum ChangeKind: Int32, Sendable, CaseIterable {
    /// A row was added (a local create, a download).
    case created = 1
    /// A row's values or state changed (a local update, a download, an upload's answer, a
    /// change refused into the error archive).
    case updated = 2
    /// A row was removed (a local delete, a download, a revert).
    case deleted = 3
    /// A row's key changed: an entity created offline got the service's key on upload.
    case keyChanged = 4
}

/// One changed entity: its resource path relative to the service root (`Products(7)`), and
/// for `.keyChanged` the path under its old (local) key.
public struct EntityChange: Sendable, Equatable {
    public var kind: ChangeKind
    public var path: String
    public var oldPath: String?

    public init(kind: ChangeKind, path: String, oldPath: String? = nil) {
        self.kind = kind
        self.path = path
        self.oldPath = oldPath
    }
}

/// The changes of one entity set committed together (a local write, a download page or
/// transaction, an upload step, a revert). Bounded: a batch of more than
/// `StoreChanges.maxListed` changes lists none (`isSummary`), only `count` and `counts`; the
/// app reads the collection again.
public struct StoreChanges: Sendable, Equatable {
    public static let maxListed = ChangeLog.maxListed
    public var entitySet: String
    /// Every change in the batch (one entity may count more than once).
    public var count: Int
    /// `count` by kind.
    public var counts: [ChangeKind: Int]
    /// The changes in the order they were made; empty when `isSummary`.
    public var changes: [EntityChange]
    /// True when the batch was too large to list (more than `maxListed` changes).
    public var isSummary: Bool

    public init(entitySet: String, count: Int, counts: [ChangeKind: Int], changes: [EntityChange], isSummary: Bool) {
        self.entitySet = entitySet
        self.count = count
        self.counts = counts
        self.changes = changes
        self.isSummary = isSummary
    }
}
