import CODataStoreABI
import Glibc
import ODataStore

/// Read-only snapshots handed to C as OWNED handles (`ods_error_archive`,
/// `ods_key_mapping_list`), libgit2's `git_status_list` pattern: the app takes a consistent
/// copy, walks it by index, and frees it. Each holds its C records in one allocation and the
/// strings they point to, so everything it hands out is BORROWED until it is freed.
///
/// Handles are registered while alive, as stores and requests are, so a snapshot freed twice
/// or a pointer that never was one is reported (ODS_EINVAL) instead of crashing.
///
/// Threading: immutable after creation; any thread may read it; free it once.
class CSnapshot: @unchecked Sendable {}

enum Snapshots {
    private static let live = Locked<Set<UInt>>([])

    private static func address(_ p: OpaquePointer) -> UInt { UInt(bitPattern: UnsafeRawPointer(p)) }

    /// A new OWNED handle for the app.
    static func hand(_ snapshot: CSnapshot) -> OpaquePointer {
        let p = OpaquePointer(Unmanaged.passRetained(snapshot).toOpaque())
        _ = live.withLock { $0.insert(address(p)) }
        return p
    }

    /// The snapshot behind a live handle of that kind, or nil.
    static func object<T: CSnapshot>(_ p: OpaquePointer?, as: T.Type) -> T? {
        guard let p, live.withLock({ $0.contains(address(p)) }) else { return nil }
        return Unmanaged<CSnapshot>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue() as? T
    }

    /// Releases the app's handle (NULL is a no-op; one that is not live is reported).
    static func release(_ p: OpaquePointer?, _ function: StaticString) {
        guard let p else { return }
        guard live.withLock({ $0.remove(address(p)) != nil }) else {
            LastError.set(ODataStoreError(.invalidArgument, "\(function): not a live snapshot (freed already?)"))
            return
        }
        Unmanaged<CSnapshot>.fromOpaque(UnsafeRawPointer(p)).release()
    }
}

/// C records of one type in one allocation, with the strings they point to.
class RecordSnapshot<Record>: CSnapshot, @unchecked Sendable {
    private let records: UnsafeMutablePointer<Record>
    let count: Int
    /// Owns the strings the records point to.
    private let strings: BorrowedStrings

    init(_ items: [Record], strings: BorrowedStrings) {
        self.records = .allocate(capacity: max(items.count, 1))
        self.count = items.count
        self.strings = strings
        for (i, item) in items.enumerated() { (records + i).initialize(to: item) }
    }

    deinit {
        records.deinitialize(count: count)
        records.deallocate()
    }

    /// Record `index`, or nil when out of range (never traps on C input).
    func entry(_ index: Int) -> UnsafePointer<Record>? {
        guard index >= 0, index < count else { return nil }
        return UnsafePointer(records + index)
    }
}

/// A copy kept by `strings`, or ODS_ENOMEM.
private func keep(_ s: String, _ strings: BorrowedStrings) throws(ODataStoreError) -> UnsafePointer<CChar> {
    guard let p = strings.keep(s) else { throw ODataStoreError(.noMemory, "out of memory") }
    return p
}

/// `ods_error_archive`: the archive as `Store.errorArchive()` read it.
final class ErrorArchiveSnapshot: RecordSnapshot<ods_archived_error>, @unchecked Sendable {
    init(_ entries: [ArchivedError]) throws(ODataStoreError) {
        let strings = BorrowedStrings()
        var records: [ods_archived_error] = []
        records.reserveCapacity(entries.count)
        for e in entries {
            records.append(ods_archived_error(
                version: UInt32(ODS_ARCHIVED_ERROR_VERSION), id: e.id, created: try keep(e.created, strings),
                method: try keep(e.method, strings), path: try keep(e.path, strings),
                body: try e.body.map { (b) throws(ODataStoreError) in try keep(b, strings) },
                http_status: Int32(clamping: e.httpStatus),
                odata_code: try e.odataCode.map { (c) throws(ODataStoreError) in try keep(c, strings) },
                message: try keep(e.message, strings), entity_set: try keep(e.entitySet, strings)))
        }
        super.init(records, strings: strings)
    }
}

/// `ods_key_mapping_list`: the mappings as `Store.keyMappings()` read them.
final class KeyMappingSnapshot: RecordSnapshot<ods_key_mapping>, @unchecked Sendable {
    init(_ mappings: [KeyMapping]) throws(ODataStoreError) {
        let strings = BorrowedStrings()
        var records: [ods_key_mapping] = []
        records.reserveCapacity(mappings.count)
        for m in mappings {
            records.append(ods_key_mapping(
                version: UInt32(ODS_KEY_MAPPING_VERSION), entity_set: try keep(m.entitySet, strings),
                local_path: try keep(m.localPath, strings),
                server_path: try m.serverPath.map { (s) throws(ODataStoreError) in try keep(s, strings) }))
        }
        super.init(records, strings: strings)
    }
}
