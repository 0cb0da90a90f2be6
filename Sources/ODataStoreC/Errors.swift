import CODataStoreABI
import ODataStore

@c @implementation
public func ods_strerror(_ code: Int32) -> UnsafePointer<CChar>? {
    let text: StaticString
    if code == 0 {
        text = "ok"
    } else if let c = ErrorCode(rawValue: code) {
        text = c.text
    } else {
        text = "unknown status"
    }
    return staticCString(text)
}

@c @implementation
public func ods_error_last() -> UnsafePointer<ods_error>? {
    UnsafePointer(LastError.current.record)
}

@c @implementation
public func ods_error_clear() {
    LastError.clear()
}
