import CODataStoreABI
import Glibc
import ODataStore

/// Conversions between opaque C handles and the Swift objects behind them.
///
/// `ods_store *` is an `Unmanaged<Store>` retained once by `ods_store_open` and released by
/// `ods_store_close`; `ods_request *` is an `Unmanaged<Request>` retained once by
/// `ods_request_new` and released by `ods_request_free`. Callbacks pass unretained pointers:
/// the store keeps a started request alive until its last callback returns.
///
/// Handles are validated against a registry of live objects before they are dereferenced,
/// so a store used after ods_store_close, a request freed twice or a pointer that was never a
/// handle is reported (ODS_EINVAL) instead of crashing, as long as nothing else has been put
/// at that address since. The registry costs one uncontended lock per call on a store or
/// request handle; entities, values and responses (borrowed views) are not registered.
enum Handle {
    static func store(_ p: OpaquePointer?) -> Store? {
        guard let p, HandleRegistry.isOpenStore(p) else { return nil }
        return Unmanaged<Store>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
    }

    static func pointer(_ store: Store) -> OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(store).toOpaque())
    }

    static func request(_ p: OpaquePointer?) -> Request? {
        guard let p, HandleRegistry.isLiveRequest(p) else { return nil }
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

/// The addresses of the store and request objects the C layer handed out and that are still
/// alive: stores from ods_store_open until ods_store_close; requests from their creation until
/// they are deallocated (`CRequestExtras.deinit`), with whether the app still holds the
/// reference ods_request_new gave it.
enum HandleRegistry {
    private static let stores = Locked<Set<UInt>>([])
    private static let requests = Locked<[UInt: Bool]>([:])

    static func address(_ p: OpaquePointer) -> UInt { UInt(bitPattern: UnsafeRawPointer(p)) }

    static func addStore(_ p: OpaquePointer) { _ = stores.withLock { $0.insert(address(p)) } }
    /// False when it was not an open store (closed already, or never one).
    static func removeStore(_ p: OpaquePointer) -> Bool { stores.withLock { $0.remove(address(p)) != nil } }
    static func isOpenStore(_ p: OpaquePointer) -> Bool { stores.withLock { $0.contains(address(p)) } }
    /// The store of an open handle, referenced while the registry is locked: the reference
    /// keeps it alive even when another thread closes it right after (ods_store_close
    /// unregisters before it releases), so a call that may race with close (a logon reply
    /// from an SSO thread) finds a closed store rather than freed memory.
    static func retainedStore(_ p: OpaquePointer) -> Store? {
        stores.withLock { s in
            s.contains(address(p)) ? Unmanaged<Store>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue() : nil
        }
    }

    static func addRequest(_ address: UInt, appOwned: Bool) { requests.withLock { $0[address] = appOwned } }
    static func removeRequest(_ address: UInt) { _ = requests.withLock { $0.removeValue(forKey: address) } }
    static func isLiveRequest(_ p: OpaquePointer) -> Bool { requests.withLock { $0[address(p)] != nil } }
    /// Gives up the app's reference: true exactly once per ods_request_new.
    static func releaseAppReference(_ p: OpaquePointer) -> Bool {
        requests.withLock { r in
            guard r[address(p)] == true else { return false }
            r[address(p)] = false
            return true
        }
    }
}

/// Per-request C state that lives as long as the request.
final class CRequestExtras: @unchecked Sendable {
    /// The request's address while registered (0: not registered).
    private let registered = Locked<UInt>(0)

    func register(_ request: Request, appOwned: Bool) {
        let address = UInt(bitPattern: Unmanaged.passUnretained(request).toOpaque())
        registered.withLock { $0 = address }
        HandleRegistry.addRequest(address, appOwned: appOwned)
    }

    deinit {
        let address = registered.withLock { $0 }
        if address != 0 { HandleRegistry.removeRequest(address) }
    }

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
    /// C copies of strings handed out as BORROWED until `ods_store_close` (defining request paths).
    private let strings = Locked<[String: CPath]>([:])

    /// A NUL-terminated copy of `s` that lives as long as the store (the same text gives the same pointer).
    func intern(_ s: String) -> UnsafePointer<CChar>? {
        strings.withLock { d in
            if let p = d[s] { return p.pointer.map { UnsafePointer($0) } }
            let p = CPath(s)
            d[s] = p
            return p.pointer.map { UnsafePointer($0) }
        }
    }

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

    /// Attaches the C context at creation and registers the handle (`appOwned`: the app got
    /// a reference from ods_request_new and releases it with ods_request_free).
    func attachC(context: UnsafeMutableRawPointer?, appOwned: Bool) {
        let extras = CRequestExtras()
        cContext = CRequestContext(context: CContext(pointer: context), path: CPath(path), extras: extras)
        extras.register(self, appOwned: appOwned)
    }
}
