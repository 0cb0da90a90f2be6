import CODataStoreABI
import ODataStore

// Offline stores after opening, through the C ABI: downloading fresh data for all or some
// defining requests, and adding or removing defining requests. The Swift side is
// `Store.download`, `Store.addDefiningRequest` and `Store.removeDefiningRequest`; callbacks
// come through the store's dispatch mode because the Swift API already routes them there.

/// Calls `body` with the C record of `progress` (its `defining_request` borrowed for the call).
/// The one place a `DownloadProgress` becomes an `ods_download_progress` (the options'
/// progress callback and ods_store_download both use it).
func withDownloadProgressRecord(_ progress: DownloadProgress, _ body: (UnsafePointer<ods_download_progress>) -> Void) {
    progress.definingRequest.withCString { path in
        var record = ods_download_progress(
            version: UInt32(ODS_DOWNLOAD_PROGRESS_VERSION), defining_request: path,
            request_index: progress.requestIndex, request_count: progress.requestCount,
            entities: progress.entities, bytes: progress.bytes, expected_entities: progress.expectedEntities ?? -1,
            total_entities: progress.totalEntities, total_bytes: progress.totalBytes,
            request_finished: progress.requestFinished ? 1 : 0)
        body(&record)
    }
}

@c @implementation
public func ods_store_download(_ handle: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?,
                               _ progress: ods_download_progress_cb?, _ completion: ods_download_cb?,
                               _ context: UnsafeMutableRawPointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        var chosen: [String]? = nil
        if paths != nil {
            let list = try CString.list(paths, "paths", limit: 10_000)
            guard !list.isEmpty else {
                throw ODataStoreError(.invalidArgument, "paths names no defining request; pass NULL to download them all")
            }
            chosen = list
        }
        let ctx = CContext(pointer: context)
        let progressFn = progress.map { CFunction(function: $0) }
        let completionFn = completion.map { CFunction(function: $0) }
        var report: (@Sendable (Store, DownloadProgress) -> Void)? = nil
        if let progressFn {
            report = { store, p in
                withDownloadProgressRecord(p) { progressFn.function(Handle.pointer(store), $0, ctx.pointer) }
            }
        }
        try store.download(chosen, progress: report) { store, outcome in
            guard let completionFn else { return }
            switch outcome {
            case .success:
                completionFn.function(Handle.pointer(store), 0, nil, ctx.pointer)
            case .failure(let failure):
                let error = cancelledByClose(failure)
                let record = ErrorRecord(error)
                withExtendedLifetime(record) {
                    completionFn.function(Handle.pointer(store), error.code.rawValue, record.record, ctx.pointer)
                }
            }
        }
    }
}

@c @implementation
public func ods_store_add_defining_request(_ handle: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        try store.addDefiningRequest(try CString.required(path, "path"))
    }
}

@c @implementation
public func ods_store_remove_defining_request(_ handle: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        try store.removeDefiningRequest(try CString.required(path, "path"))
    }
}
