import ODataStore
import CODataStoreABI
import Glibc

/// An `ods_error` record and the strings it points to, owned together.
/// Used for the thread-local last error and for errors passed to callbacks.
final class ErrorRecord {
    let record: UnsafeMutablePointer<ods_error>
    private let strings = BorrowedStrings()

    init(_ error: ODataStoreError) {
        record = .allocate(capacity: 1)
        record.initialize(to: ods_error(
            code: error.code.rawValue,
            message: strings.keep(error.message) ?? ErrorRecord.fallbackMessage,
            http_status: Int32(clamping: error.httpStatus),
            odata_code: error.odataCode.flatMap { strings.keep($0) },
            odata_message: error.odataMessage.flatMap { strings.keep($0) },
            position: error.position))
    }

    /// The "no error" record.
    init() {
        record = .allocate(capacity: 1)
        record.initialize(to: ods_error(code: 0, message: ErrorRecord.noErrorMessage, http_status: 0,
                                        odata_code: nil, odata_message: nil, position: -1))
    }

    deinit { record.deallocate() }

    static var noErrorMessage: UnsafePointer<CChar> { staticCString("no error") }
    static var fallbackMessage: UnsafePointer<CChar> { staticCString("out of memory") }
}

/// The calling thread's last error (`ods_error_last`), kept in a pthread key whose
/// destructor frees it when the thread exits.
enum LastError {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            if let raw { Unmanaged<ErrorRecord>.fromOpaque(raw).release() }
        }
        return key
    }()

    static var current: ErrorRecord {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<ErrorRecord>.fromOpaque(raw).takeUnretainedValue()
        }
        let empty = ErrorRecord()
        pthread_setspecific(key, Unmanaged.passRetained(empty).toOpaque())
        return empty
    }

    static func set(_ record: ErrorRecord) {
        let old = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passRetained(record).toOpaque())
        if let old { Unmanaged<ErrorRecord>.fromOpaque(old).release() }
    }

    /// Records `error` for this thread and returns its status code.
    @discardableResult
    static func set(_ error: ODataStoreError) -> Int32 {
        set(ErrorRecord(error))
        return error.code.rawValue
    }

    static func clear() { set(ErrorRecord()) }
}

/// Runs an exported call: ODS_OK on success, the error's code (recorded as the thread's last
/// error) on failure.
@inline(__always)
func status(_ body: () throws(ODataStoreError) -> Void) -> Int32 {
    do {
        try body()
        return 0
    } catch {
        return LastError.set(error)
    }
}

/// The error for a NULL argument (for handles also: one that is closed, freed or not a handle).
func nullArgument(_ name: StaticString) -> ODataStoreError {
    switch "\(name)" {
    case "store", "request":
        ODataStoreError(.invalidArgument, "\(name) is NULL or not a live handle (closed or freed already?)")
    default:
        ODataStoreError(.invalidArgument, "\(name) must not be NULL")
    }
}

/// A string literal's static, NUL-terminated storage as a C string (never freed).
func staticCString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
