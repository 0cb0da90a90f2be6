import CODataStoreABI
import ODataStore

// Change observers through the C ABI (include/odatastore.h, "CHANGE OBSERVERS";
// docs/observers.md). `ods_observer *` is an `Unmanaged<ChangeObserver>` retained once by
// ods_store_observe and released by ods_observer_remove, checked against the live ones
// first (remove twice: ODS_EINVAL). `ods_changes *` is an unretained `CChanges` that lives
// for the call.

/// The record behind `const ods_changes *`: the changes and the C copies of their strings,
/// made when first asked for (on the calling thread: the callback's).
final class CChanges {
    let changes: StoreChanges
    let strings = BorrowedStrings()
    lazy var entitySet: UnsafePointer<CChar>? = strings.keep(changes.entitySet)
    var paths: [Int: UnsafePointer<CChar>?] = [:]
    var oldPaths: [Int: UnsafePointer<CChar>?] = [:]

    init(_ changes: StoreChanges) { self.changes = changes }

    static func from(_ p: OpaquePointer?) -> CChanges? {
        guard let p else { return nil }
        return Unmanaged<CChanges>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }
}

private let liveObservers = Locked<Set<UInt>>([])

@c @implementation
public func ods_store_observe(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?,
                              _ entitySet: UnsafePointer<CChar>?, _ callback: ods_change_cb?,
                              _ context: UnsafeMutableRawPointer?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        let name = try CString.required(entitySet, "entity_set")
        guard let callback else { throw nullArgument("callback") }
        let fn = CFunction(function: callback)
        let ctx = CContext(pointer: context)
        let observer = try store.observe(name) { store, changes in
            let record = CChanges(changes)
            withExtendedLifetime(record) {
                fn.function(Handle.pointer(store), OpaquePointer(Unmanaged.passUnretained(record).toOpaque()), ctx.pointer)
            }
        }
        let p = Unmanaged.passRetained(observer).toOpaque()
        liveObservers.withLock { _ = $0.insert(UInt(bitPattern: p)) }
        out.pointee = OpaquePointer(p)
    }
}

@c @implementation
public func ods_observer_remove(_ handle: OpaquePointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let handle else { throw nullArgument("observer") }
        let raw = UnsafeRawPointer(handle)
        guard liveObservers.withLock({ $0.remove(UInt(bitPattern: raw)) != nil }) else {
            throw ODataStoreError(.invalidArgument, "observer is not a live observer (removed already?)")
        }
        let observer = Unmanaged<ChangeObserver>.fromOpaque(raw)
        observer.takeUnretainedValue().remove()
        observer.release()
    }
}

@c @implementation
public func ods_changes_entity_set(_ p: OpaquePointer?) -> UnsafePointer<CChar>? {
    CChanges.from(p)?.entitySet
}

@c @implementation
public func ods_changes_count(_ p: OpaquePointer?, _ kind: Int32) -> Int64 {
    guard let c = CChanges.from(p) else { return -1 }
    if kind == 0 { return Int64(c.changes.count) }
    guard let k = ChangeKind(rawValue: kind) else { return -1 }
    return Int64(c.changes.counts[k] ?? 0)
}

@c @implementation
public func ods_changes_is_summary(_ p: OpaquePointer?) -> Int32 {
    guard let c = CChanges.from(p) else { return LastError.set(nullArgument("changes")) }
    return c.changes.isSummary ? 1 : 0
}

@c @implementation
public func ods_changes_size(_ p: OpaquePointer?) -> Int {
    CChanges.from(p)?.changes.changes.count ?? 0
}

@c @implementation
public func ods_changes_kind(_ p: OpaquePointer?, _ index: Int) -> Int32 {
    guard let c = CChanges.from(p) else { return LastError.set(nullArgument("changes")) }
    guard index >= 0, index < c.changes.changes.count else {
        return LastError.set(ODataStoreError(.invalidArgument, "index \(UInt(bitPattern: index)) is out of range (\(c.changes.changes.count) changes listed)"))
    }
    return c.changes.changes[index].kind.rawValue
}

@c @implementation
public func ods_changes_path(_ p: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    guard let c = CChanges.from(p), index >= 0, index < c.changes.changes.count else { return nil }
    if let s = c.paths[index] { return s }
    let s = c.strings.keep(c.changes.changes[index].path)
    c.paths[index] = s
    return s
}

@c @implementation
public func ods_changes_old_path(_ p: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    guard let c = CChanges.from(p), index >= 0, index < c.changes.changes.count,
          let old = c.changes.changes[index].oldPath else { return nil }
    if let s = c.oldPaths[index] { return s }
    let s = c.strings.keep(old)
    c.oldPaths[index] = s
    return s
}
