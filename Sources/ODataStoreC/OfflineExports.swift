import CODataStoreABI
import Glibc
import ODataStore

@c @implementation
public func ods_store_cancel_download(_ handle: OpaquePointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        try store.cancelDownload()
    }
}

/// Checks a caller-initialised versioned struct's version field.
private func checkVersion(_ version: UInt32, _ current: Int32, _ name: StaticString) throws(ODataStoreError) {
    guard version >= 1, version <= UInt32(current) else {
        throw ODataStoreError(.invalidArgument, "\(name).version must be 1...\(current); initialise it with its _INIT macro")
    }
}

@c @implementation
public func ods_store_offline_info(_ out: UnsafeMutablePointer<ods_offline_info>?, _ handle: OpaquePointer?) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        try checkVersion(out.pointee.version, ODS_OFFLINE_INFO_VERSION, "ods_offline_info")
        let info = try store.offlineInfo()
        out.pointee.size_bytes = info.sizeInBytes
        out.pointee.last_download = info.lastDownload.flatMap(unixSeconds) ?? 0
        out.pointee.defining_request_count = info.definingRequests.count
    }
}

@c @implementation
public func ods_store_defining_request(_ out: UnsafeMutablePointer<ods_defining_request_info>?, _ handle: OpaquePointer?,
                                       _ index: Int) -> Int32 {
    status { () throws(ODataStoreError) in
        guard let out else { throw nullArgument("out") }
        guard let store = Handle.store(handle) else { throw nullArgument("store") }
        try checkVersion(out.pointee.version, ODS_DEFINING_REQUEST_INFO_VERSION, "ods_defining_request_info")
        let info = try store.offlineInfo()
        guard index >= 0, index < info.definingRequests.count else {
            throw ODataStoreError(.invalidArgument, "index \(UInt(bitPattern: index)) is out of range (the store has \(info.definingRequests.count) defining requests)")
        }
        let d = info.definingRequests[index]
        let strings = store.context as? CStoreContext
        out.pointee.path = strings?.intern(d.path)
        out.pointee.entity_set = strings?.intern(d.entitySet)
        out.pointee.complete = d.isComplete ? 1 : 0
        out.pointee.entities = d.entities
        out.pointee.bytes = d.bytes
        out.pointee.expected_entities = d.expectedEntities ?? -1
        out.pointee.last_download = d.lastDownload.flatMap(unixSeconds) ?? 0
    }
}

@c @implementation
public func ods_response_is_local(_ handle: OpaquePointer?) -> Int32 {
    guard let view = ResponseView.from(handle) else { return LastError.set(nullArgument("response")) }
    return view.response.isLocal ? 1 : 0
}

/// Unix seconds of an ISO 8601 UTC timestamp the store wrote (`2026-11-24T01:56:35Z`).
private func unixSeconds(_ text: String) -> Int64? {
    let b = Array(text.utf8)
    guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T") else { return nil }
    func n(_ r: Range<Int>) -> Int? { Int(String(decoding: b[r], as: UTF8.self)) }
    guard let y = n(0..<4), let mo = n(5..<7), let d = n(8..<10), let h = n(11..<13), let mi = n(14..<16), let s = n(17..<19) else { return nil }
    var t = tm()
    t.tm_year = Int32(y - 1900)
    t.tm_mon = Int32(mo - 1)
    t.tm_mday = Int32(d)
    t.tm_hour = Int32(h)
    t.tm_min = Int32(mi)
    t.tm_sec = Int32(s)
    return Int64(timegm(&t))
}
