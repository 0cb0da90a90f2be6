import CODataStoreABI
import Glibc
import ODataStore

/// Conversions between opaque C handles and the Swift objects behind them.
///
/// `ods_store *` is an `Unmanaged<Store>` retained once by `ods_store_open` and released by
/// `ods_store_close`; `ods_request *` is an `Unmanaged<Request>` retained once by
/// `ods_request_new` and released by `ods_request_free`. Callbacks pass unretained pointers:
/// the store keeps a started request alive until its last callback returns.
enum Handle {
    static func store(_ p: OpaquePointer?) -> Store? {
        guard let p else { return nil }
        return Unmanaged<Store>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    static func pointer(_ store: Store) -> OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(store).toOpaque())
    }

    static func request(_ p: OpaquePointer?) -> Request? {
        guard let p else { return nil }
        return Unmanaged<Request>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    static func pointer(_ request: Request) -> OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(request).toOpaque())
    }
}

/// What the C layer attaches to a request (`Request.context`): the app's `void *` context
/// and the C copy of its path (BORROWED by `ods_request_path` until the request is freed),
/// and the `ods_error` record of its failure, made on the first `ods_request_error`.
struct CRequestContext: Sendable {
    var context: CContext
    var path: CPath?
    var extras = CRequestExtras()
}

/// Per-request C state that lives as long as the request.
final class CRequestExtras: @unchecked Sendable {
    // Guarded by `lock`: the record is made once and kept until the request is freed.
    private let lock = Locked<ErrorRecordBox?>(nil)

    func errorRecord(_ make: () -> ErrorRecord) -> ErrorRecord {
        lock.withLock { box in
            if let box { return box.record }
            let record = make()
            box = ErrorRecordBox(record: record)
            return record
        }
    }
}

struct ErrorRecordBox: @unchecked Sendable {
    let record: ErrorRecord
}

/// The app's store context and the function that releases it (ods_store_set_release),
/// called once by ods_store_close after the store's last callback.
final class CStoreContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    private let releaseFunction = Locked<CFunction<ods_release_cb>?>(nil)

    init(pointer: UnsafeMutableRawPointer?) {
        self.pointer = pointer
    }

    func setRelease(_ f: ods_release_cb?) {
        releaseFunction.withLock { $0 = f.map { CFunction(function: $0) } }
    }

    /// Calls the release function once (later calls do nothing).
    func release() {
        let f = releaseFunction.withLock { f -> CFunction<ods_release_cb>? in
            defer { f = nil }
            return f
        }
        f?.function(pointer)
    }
}

/// A NUL-terminated copy of a request's path, freed with the request.
final class CPath: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<CChar>?
    init(_ s: String) { pointer = CString.duplicate(s) }
    deinit { free(pointer) }
}

extension Request {
    var cContext: CRequestContext {
        get { (context as? CRequestContext) ?? CRequestContext(context: CContext(pointer: nil), path: nil, extras: CRequestExtras()) }
        set { context = newValue }
    }

    var cPath: UnsafePointer<CChar>? { cContext.path?.pointer.map { UnsafePointer($0) } }

    /// Attaches the C context at creation.
    func attachC(context: UnsafeMutableRawPointer?) {
        cContext = CRequestContext(context: CContext(pointer: context), path: CPath(path))
    }
}
