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
/// and the C copy of its path (BORROWED by `ods_request_path` until the request is freed).
struct CRequestContext: Sendable {
    var context: CContext
    var path: CPath?
}

/// A NUL-terminated copy of a request's path, freed with the request.
final class CPath: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<CChar>?
    init(_ s: String) { pointer = CString.duplicate(s) }
    deinit { free(pointer) }
}

extension Request {
    var cContext: CRequestContext {
        get { (context as? CRequestContext) ?? CRequestContext(context: CContext(pointer: nil), path: nil) }
        set { context = newValue }
    }

    var cPath: UnsafePointer<CChar>? { cContext.path?.pointer.map { UnsafePointer($0) } }

    /// Attaches the C context at creation.
    func attachC(context: UnsafeMutableRawPointer?) {
        cContext = CRequestContext(context: CContext(pointer: context), path: CPath(path))
    }
}
