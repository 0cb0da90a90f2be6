import CODataStoreABI
import Glibc
import ODataStore

// Offline store part 2 through the C ABI: upload, pending changes, the error archive (retry,
// revert), key mappings, and an entity's pending state. The Swift side is `Store.upload`,
// `Store.errorArchive` and friends; callbacks come through the store's dispatch mode because
// the Swift API already routes them there.

// MARK: - Upload

/// An operation ended by ods_store_close reports ODS_ECANCELLED, as requests do (the header's
/// callback contract). The offline engine says `.closed` when the close overtook the
/// operation's last step (its database thread already gone), `.cancelled` otherwise.
func cancelledByClose(_ error: ODataStoreError) -> ODataStoreError {
    guard error.code == .closed else { return error }
    return ODataStoreError(.cancelled, "cancelled because the store was closed (\(error.message))")
}

@c @implementation
public func ods_store_upload(_ handle: OpaquePointer?, _ progress: ods_upload_progress_cb?,
                             _ completion: ods_upload_cb?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        let ctx = CContext(pointer: context)
        let progressFn = progress.map { CFunction(function: $0) }
        let completionFn = completion.map { CFunction(function: $0) }
        // The last report, for the counts of an upload that stopped (the Swift failure has none).
        // Progress and completion are delivered one at a time, in order, so the completion
        // sees every report made before it.
        let counts = Locked(UploadProgress(sent: 0, total: 0, failed: 0))
        try store.upload(progress: { store, p in
            counts.withLock { $0 = p }
            guard let progressFn else { return }
            var record = ods_upload_progress(version: UInt32(ODS_UPLOAD_PROGRESS_VERSION), sent: Int64(p.sent),
                                             total: Int64(p.total), failed: Int64(p.failed))
            progressFn.function(Handle.pointer(store), &record, ctx.pointer)
        }) { store, outcome in
            guard let completionFn else { return }
            switch outcome {
            case .success(let r):
                var result = ods_upload_result(version: UInt32(ODS_UPLOAD_RESULT_VERSION), confirmed: Int64(r.confirmed),
                                               failed: Int64(r.failed), remaining: Int64(r.remaining))
                completionFn.function(Handle.pointer(store), 0, &result, nil, ctx.pointer)
            case .failure(let failure):
                let error = cancelledByClose(failure)
                let last = counts.withLock { $0 }
                var result = ods_upload_result(version: UInt32(ODS_UPLOAD_RESULT_VERSION),
                                               confirmed: Int64(last.sent - last.failed), failed: Int64(last.failed),
                                               remaining: -1)
                let record = ErrorRecord(error)
                withExtendedLifetime(record) {
                    completionFn.function(Handle.pointer(store), error.code.rawValue, &result, record.record, ctx.pointer)
                }
            }
        }
    }
}

@c @implementation
public func ods_store_cancel_upload(_ handle: OpaquePointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        try store.cancelUpload()
    }
}

@c @implementation
public func ods_store_pending_count(_ out: UnsafeMutablePointer<Int64>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = 0
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        out.pointee = try store.pendingChangeCount()
    }
}

// MARK: - Entity state

/// The instance annotations local reads put on entities with local changes
/// (`EntityJSON.pendingAnnotation` / `.errorAnnotation` in the offline engine).
private let pendingAnnotation = "@odatastore.pending"
private let errorAnnotation = "@odatastore.error"

@c @implementation
public func ods_entity_pending_state(_ handle: OpaquePointer?) -> Int32 {
    guard let entity = ValueView.from(handle) else { return LastError.set(nullArgument("entity")) }
    func isTrue(_ name: String) -> Bool {
        guard let value = entity.memberRef(name), value.kind == .bool else { return false }
        return (try? value.bool(name)) == true
    }
    if isTrue(errorAnnotation) { return Int32(ODS_ENTITY_ERROR.rawValue) }
    if isTrue(pendingAnnotation) { return Int32(ODS_ENTITY_PENDING.rawValue) }
    return Int32(ODS_ENTITY_CLEAN.rawValue)
}

// MARK: - Error archive

@c @implementation
public func ods_store_error_archive(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        let snapshot = try ErrorArchiveSnapshot(try store.errorArchive())
        out.pointee = Snapshots.hand(snapshot)
    }
}

@c @implementation
public func ods_error_archive_count(_ handle: OpaquePointer?) -> Int {
    Snapshots.object(handle, as: ErrorArchiveSnapshot.self)?.count ?? 0
}

@c @implementation
public func ods_error_archive_at(_ handle: OpaquePointer?, _ index: Int) -> UnsafePointer<ods_archived_error>? {
    Snapshots.object(handle, as: ErrorArchiveSnapshot.self)?.entry(index)
}

@c @implementation
public func ods_error_archive_free(_ handle: OpaquePointer?) {
    Snapshots.release(handle, "ods_error_archive_free")
}

@c @implementation
public func ods_store_error_retry(_ handle: OpaquePointer?, _ id: Int64, _ body: UnsafePointer<CChar>?,
                                  _ etag: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        let bodyText = try CString.read(body, "body_json")
        let etagText = try CString.read(etag, "etag")
        if let etagText, etagText.utf8.contains(where: { $0 == 13 || $0 == 10 }) {
            throw ODataStoreError(.invalidArgument, "etag must not contain CR or LF (it is sent as If-Match)")
        }
        try store.retryError(id: id, body: bodyText, etag: etagText)
    }
}

@c @implementation
public func ods_store_error_revert(_ handle: OpaquePointer?, _ id: Int64, _ completion: ods_revert_cb?,
                                   _ context: UnsafeMutableRawPointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        // The Swift API reports an unknown id through the completion; the C contract wants a
        // call that cannot succeed to fail at once (and then never call back).
        guard try store.errorArchive().contains(where: { $0.id == id }) else {
            throw ODataStoreError(.notFound, "there is no error \(id) in the archive")
        }
        let ctx = CContext(pointer: context)
        let fn = completion.map { CFunction(function: $0) }
        try store.revertError(id: id) { store, outcome in
            guard let fn else { return }
            switch outcome {
            case .success:
                fn.function(Handle.pointer(store), id, 0, nil, ctx.pointer)
            case .failure(let failure):
                let error = cancelledByClose(failure)
                let record = ErrorRecord(error)
                withExtendedLifetime(record) {
                    fn.function(Handle.pointer(store), id, error.code.rawValue, record.record, ctx.pointer)
                }
            }
        }
    }
}

// MARK: - Key mappings

@c @implementation
public func ods_store_key_mappings(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ handle: OpaquePointer?) -> Int32 {
    out?.pointee = nil
    return status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        let snapshot = try KeyMappingSnapshot(try store.keyMappings())
        out.pointee = Snapshots.hand(snapshot)
    }
}

@c @implementation
public func ods_key_mapping_list_count(_ handle: OpaquePointer?) -> Int {
    Snapshots.object(handle, as: KeyMappingSnapshot.self)?.count ?? 0
}

@c @implementation
public func ods_key_mapping_list_at(_ handle: OpaquePointer?, _ index: Int) -> UnsafePointer<ods_key_mapping>? {
    Snapshots.object(handle, as: KeyMappingSnapshot.self)?.entry(index)
}

@c @implementation
public func ods_key_mapping_list_free(_ handle: OpaquePointer?) {
    Snapshots.release(handle, "ods_key_mapping_list_free")
}
